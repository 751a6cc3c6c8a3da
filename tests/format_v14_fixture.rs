//! An index written by format version 14 (`tests/fixtures/v14`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, finds a book bound inside the volume, holds each
//! book's passage, and finds every book under each of its keys through the
//! key tables in key order. A later format must keep reading it or upgrade
//! it; either way this test says so before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::storage::segment::Segment;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v14")
}

fn segment() -> Segment {
    Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap()
}

#[test]
fn the_version_14_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 14);
}

#[test]
fn a_copy_of_the_version_14_fixture_takes_another_book_of_word_images() {
    let dir = common::fixture_copy("v14");
    let index = Index::open(dir.path()).unwrap();
    common::assert_takes_fixture_page_again(&index, &fixture());
}

#[test]
fn the_version_14_fixtures_segment_holds_each_live_books_one_passage() {
    common::assert_fixture_passages(&segment(), &fixture());
}

#[test]
fn every_book_of_the_version_14_fixture_is_found_under_each_of_its_keys() {
    let segment = segment();
    assert_eq!(segment.version().number(), 14);
    let (keys, found) = common::keys_found(&segment);
    assert!(found);
    // Every book has its k value keys at least, and the merge that wrote
    // the segment kept each book's keys distinct.
    assert!(keys.len() >= 4 * 100, "{} keys", keys.len());
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
}
