//! An index written by format version 17 (`tests/fixtures/v17`, made by the
//! command line as its README says) stays readable: its sketches are of
//! word-hash shingles, and a text's signature by them matches its stored
//! one; it opens read-only
//! without writing a byte, verifies its books, its dictionary and its two
//! books of word images, lists them with the model book marked, finds a
//! word on the scanned page with its box and crop, finds a book bound
//! inside the volume, holds each book's passage and finds every book under
//! each of its keys. Its second book of word images, the same page added
//! under the model kept from the first, is what this build adds again; a
//! copy takes another book and learns the model again from every book. A
//! later format must keep reading it or upgrade it; either way this test
//! says so before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::images::spot::SpotOptions;
use stemmata::storage::segment::Segment;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v17")
}

fn segment() -> Segment {
    Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap()
}

#[test]
fn the_version_17_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads_books(
        &fixture().join("index"),
        17,
        &[("scan", true), ("scan-again", false)],
    );
}

/// Every image's combined and images-alone scores for `word`, by book and
/// box.
fn scores(index: &Index, word: &str) -> Vec<(String, [u32; 4], [u64; 2])> {
    let search = index.word_images().unwrap().unwrap();
    let mut out: Vec<_> = (search.spot(word, &SpotOptions::default(), 0).unwrap())
        .into_iter()
        .map(|h| {
            let b = h.bbox;
            let scores = [h.scores.combined.to_bits(), h.scores.image.to_bits()];
            (h.key, [b.x0, b.y0, b.x1, b.y1], scores)
        })
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn this_build_adds_the_book_under_the_kept_model_as_the_fixture_holds_it() {
    let fixture_index = Index::open_read_only(fixture().join("index")).unwrap();
    let dir = common::fixture_copy("v17");
    let index = Index::open(dir.path()).unwrap();
    let page = fixture().join("pages/scan-0001.png");
    let files = [stemmata::images::pages::PageFiles::beside(&page).unwrap()];
    let options = stemmata::images::learn::LearnOptions {
        learn_from: 1,
        ..Default::default()
    };
    let info = index
        .add_word_images("scan-again", &files, &options, &|_| {})
        .unwrap();
    assert!(!info.model_book && !info.model.unwrap().relearned);
    for word in ["garden", "the"] {
        let (held, made) = (scores(&fixture_index, word), scores(&index, word));
        assert_eq!(held.len(), 64);
        assert_eq!(held, made, "{word}");
    }
}

#[test]
fn a_copy_of_the_version_17_fixture_takes_another_book_and_relearns() {
    let dir = common::fixture_copy("v17");
    let index = Index::open(dir.path()).unwrap();
    common::assert_takes_fixture_page_again(&index, &fixture());
    let (model, _) = index.relearn_word_images(&|_| {}).unwrap();
    assert_eq!((model.relearned, model.books, model.images), (true, 3, 96));
    assert!(index.image_books().unwrap().iter().all(|b| b.model_book));
    assert_eq!(index.verify().unwrap().image_books, 3);
}

#[test]
fn the_version_17_fixtures_segment_holds_each_live_books_one_passage() {
    common::assert_fixture_passages(&segment(), &fixture());
}

#[test]
fn every_book_of_the_version_17_fixture_is_found_under_each_of_its_keys() {
    let segment = segment();
    assert_eq!(segment.version().number(), 17);
    let (keys, found) = common::keys_found(&segment);
    assert!(found);
    assert!(keys.len() >= 4 * 100, "{} keys", keys.len());
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn the_version_17_fixtures_sketches_are_of_word_hash_shingles() {
    common::assert_sketch_of_text_is_stored(&fixture(), stemmata::repr::ShingleHash::WordHashes);
}
