//! An index written by format version 11 (`tests/fixtures/v11`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, and finds a book bound inside the volume. A later
//! format must keep reading it or upgrade it; either way this test says so
//! before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v11")
}

#[test]
fn the_version_11_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 11);
}

#[test]
fn a_copy_of_the_version_11_fixture_upgrades_and_takes_another_book_of_word_images() {
    // Format 12 writes segments with passages: a write waits for the
    // upgrade, which is one catalog transaction.
    common::assert_upgrade_keeps_segments_and_takes_a_page("v11", 11, &fixture());
}

#[test]
fn an_upgraded_copy_of_the_version_11_fixture_reads_its_books_without_passages_and_verifies() {
    let dir = common::fixture_copy("v11");
    let (index, _) = Index::upgrade(dir.path()).unwrap();
    let verified = index.verify().unwrap();
    assert_eq!(verified.books, 4);
    let segment =
        stemmata::storage::segment::Segment::open_checked(&dir.path().join("segments/000001.seg"))
            .unwrap();
    assert!(!segment.stores_passages());
    let passages = segment.passage_view().unwrap();
    assert!((0..segment.book_count()).all(|p| passages.book_parts(p).is_empty()));
    // A compaction writes the books again in a version-12 segment, still
    // without passages (they need the texts).
    let mut index = index;
    index.compact().unwrap();
    assert_eq!(index.verify().unwrap().books, 4);
}

#[test]
fn the_version_11_fixtures_barrel_records_hold_positions_alone() {
    use stemmata::storage::barrel::BarrelReader;
    let path = fixture().join("index/barrels/000001.brl");
    let len = std::fs::metadata(&path).unwrap().len();
    let reader = BarrelReader::open(&path, len).unwrap();
    let records: Vec<_> = reader.records().map(|r| r.unwrap().1).collect();
    assert_eq!(records.len(), 8);
    assert!(records.iter().all(|r| r.hashes.is_none()), "{records:?}");
    assert!(records.iter().any(|r| !r.positions.is_empty()));
}

#[test]
fn a_merge_of_a_version_11_segment_and_a_version_12_one_keeps_each_books_passages() {
    use stemmata::storage::segment::Segment;
    use stemmata::storage::segment_merge::{merge, Fate};
    // The index holds a dictionary: the new book is stored with passages.
    let (_dir, _index, old, new) = common::upgraded_fixture_with_a_new_segment("v11");
    assert!(!old.stores_passages() && new.stores_passages());
    let bytes = merge(&[&old, &new], |_| Fate::Keep).unwrap();
    let merged = Segment::decode(bytes, Path::new("merged")).unwrap();
    let passages = merged.passage_view().unwrap();
    let counts: Vec<usize> = (0..merged.book_count())
        .map(|p| passages.book_parts(p).len())
        .collect();
    let (last, older) = counts.split_last().unwrap();
    assert_eq!(*last, 1, "{counts:?}");
    assert!(older.iter().all(|&n| n == 0), "{counts:?}");
}
