//! An index written by format version 17 (`tests/fixtures/v17`, made by the
//! command line as its README says) stays readable: its sketches are of
//! word-hash shingles, and a text's signature by them matches its stored
//! one; it opens read-only
//! without writing a byte, verifies its books, its dictionary and its two
//! books of word images, lists them with the model book marked, finds a
//! word on the scanned page with its box and crop, finds a book bound
//! inside the volume, holds each book's passage and finds every book under
//! each of its keys. A copy refuses an add until upgraded; upgraded, it
//! keeps its word-hash shingles, takes another book of word images and
//! learns the model again from every book, its format-17 book files
//! holding one box a word. A later format must keep reading it or upgrade
//! it; either way this test says so before a release does.

mod common;

use std::path::{Path, PathBuf};

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
        32,
    );
}

#[test]
fn a_copy_of_the_version_17_fixture_upgrades_takes_another_book_and_relearns() {
    common::assert_upgrade_keeps_segments_and_takes_a_page("v17", 17, &fixture());
    let dir = common::fixture_copy("v17");
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(stats.from_version, 17);
    assert_eq!(
        index.sketch_options().unwrap().book.shingle_hash,
        stemmata::repr::ShingleHash::WordHashes
    );
    // Its two books of one-box words (32 each) and the page added again,
    // its boxes found from the ink.
    let images = 2 * 32 + common::FIXTURE_PAGE_WORDS as u64;
    common::assert_takes_a_book_and_relearns(&index, &fixture(), images);
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

#[test]
fn the_version_17_fixtures_book_files_read_their_one_box_as_both() {
    for file in ["000002.wib", "000004.wib"] {
        let path = fixture().join("index/images").join(file);
        let bytes = std::fs::read(&path).unwrap();
        let book = stemmata::storage::word_images::decode_book(&bytes, &path).unwrap();
        assert_eq!(book.words.len(), 32);
        assert!(book.words.iter().all(|w| w.ocr_box == w.bbox));
    }
}
