//! An index written by format version 14 (`tests/fixtures/v14`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, finds a book bound inside the volume, holds each
//! book's passage, and finds every book under each of its keys through the
//! key tables in key order. Its page file holds the high 32 bits of each
//! page min-hash, which read back as the codes format 15 stores; an upgrade
//! (one catalog transaction) keeps its segments and page file, and a
//! paged book loaded after it appends a record of codes to that file. A
//! later format must keep reading it or upgrade it; either way this test
//! says so before a release does.

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
fn a_copy_of_the_version_14_fixture_upgrades_and_takes_another_book_of_word_images() {
    common::assert_upgrade_keeps_segments_and_takes_a_page("v14", 14, &fixture());
}

#[test]
fn the_version_14_page_record_reads_as_codes_and_takes_a_record_of_codes_after_it() {
    let dir = common::fixture_copy("v14");
    let page_file = dir.path().join("pages/000001.pgs");
    let before = std::fs::read(&page_file).unwrap();
    assert_eq!(before[20..22], [34, 0], "k = 34, 32-bit values");
    let (index, _) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(std::fs::read(&page_file).unwrap(), before, "page file kept");
    let text = std::fs::read_to_string(fixture().join("texts/gamma.txt")).unwrap();
    let reader = index.reader().unwrap();
    let old = reader.pages("gamma").unwrap();
    assert_eq!(old.len(), 4);
    assert_eq!(
        old,
        reader.pages_of_text(&text),
        "old records read as codes"
    );
    drop(reader);

    let paged = text.replace("\u{c}", "\u{c}\u{c}");
    index
        .load([Ok(stemmata::Document::new("gamma-again", paged.as_str()))])
        .unwrap();
    let after = std::fs::read(&page_file).unwrap();
    assert!(after.len() > before.len() && after.starts_with(&before));
    let reader = index.reader().unwrap();
    let new = reader.pages("gamma-again").unwrap();
    assert_eq!(new, reader.pages_of_text(&paged));
    assert_eq!(reader.pages("gamma").unwrap(), old);
    let relation = reader.relation("gamma", "gamma-again").unwrap();
    assert!(relation.class.is_same_text(), "{relation:?}");
    drop(reader);
    let stats = index.verify().unwrap();
    assert_eq!((stats.paged_books, stats.page_records), (2, 3));
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
