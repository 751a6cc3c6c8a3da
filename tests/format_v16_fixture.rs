//! An index written by format version 16 (`tests/fixtures/v16`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its two
//! books of word images, lists them with the model book marked, finds a
//! word on the scanned page with its box and crop, finds a book bound
//! inside the volume, holds each book's passage and finds every book under
//! each of its keys. Its sketches are of joined-word shingles, and stay so
//! once it is upgraded: a book loaded after the upgrade is sketched as its
//! older books are. Upgraded, it takes another book of word images and
//! learns the model again from every book, its format-16 book files
//! holding one box a word. A later format must keep reading it or upgrade
//! it; either way this test says so before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::storage::segment::Segment;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v16")
}

fn segment() -> Segment {
    Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap()
}

#[test]
fn the_version_16_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads_books(
        &fixture().join("index"),
        16,
        &[("scan", true), ("scan-again", false)],
        32,
    );
}

/// A copy of the fixture, upgraded to the current format.
fn upgraded_copy() -> (tempfile::TempDir, Index) {
    let dir = common::fixture_copy("v16");
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(stats.from_version, 16);
    (dir, index)
}

#[test]
fn a_copy_of_the_version_16_fixture_upgrades_takes_another_book_and_relearns() {
    common::assert_upgrade_keeps_segments_and_takes_a_page("v16", 16, &fixture());
    let (_dir, index) = upgraded_copy();
    // Its two books of one-box words (32 each) and the page added again,
    // its boxes found from the ink.
    let images = 2 * 32 + common::FIXTURE_PAGE_WORDS as u64;
    common::assert_takes_a_book_and_relearns(&index, &fixture(), images);
}

#[test]
fn the_version_16_fixtures_segment_holds_each_live_books_one_passage() {
    common::assert_fixture_passages(&segment(), &fixture());
}

#[test]
fn every_book_of_the_version_16_fixture_is_found_under_each_of_its_keys() {
    let segment = segment();
    assert_eq!(segment.version().number(), 16);
    let (keys, found) = common::keys_found(&segment);
    assert!(found);
    assert!(keys.len() >= 4 * 100, "{} keys", keys.len());
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn the_version_16_fixtures_sketches_are_of_joined_word_shingles() {
    common::assert_sketch_of_text_is_stored(&fixture(), stemmata::repr::ShingleHash::JoinedWords);
}

/// The stored book signature of the book under `key`, from whichever of
/// the index's segments holds it.
fn stored_signature(dir: &Path, key: &str) -> stemmata::repr::MinHashSig {
    for file in std::fs::read_dir(dir.join("segments")).unwrap() {
        let segment = Segment::open_checked(&file.unwrap().path()).unwrap();
        for position in 0..segment.book_count() {
            if segment.entry(position).unwrap().0.key == key {
                return segment.minhash(position);
            }
        }
    }
    panic!("no segment holds {key}")
}

#[test]
fn an_upgraded_copy_sketches_a_new_book_by_the_joined_words_of_its_older_ones() {
    let (dir, index) = upgraded_copy();
    assert_eq!(
        index.sketch_options().unwrap().book.shingle_hash,
        stemmata::repr::ShingleHash::JoinedWords
    );
    let text = std::fs::read_to_string(fixture().join("texts/alpha.txt")).unwrap();
    index
        .load([Ok(stemmata::Document::new("alpha-again", text))])
        .unwrap();
    drop(index);
    let (old, new) = (
        stored_signature(dir.path(), "alpha"),
        stored_signature(dir.path(), "alpha-again"),
    );
    assert!(!old.is_empty());
    assert_eq!(old, new);
}
