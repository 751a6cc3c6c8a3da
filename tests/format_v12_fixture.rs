//! An index written by format version 12 (`tests/fixtures/v12`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, finds a book bound inside the volume, and holds
//! each book's passage (its words' first six letters unique in it). Its
//! segment has the wide key tables (each key twice) and its barrels `u32`
//! deltas: an upgrade keeps both, and a merge with a segment of format 13
//! writes every book's keys once, each found again. A later format must
//! keep reading it or upgrade it; either way this test says so before a
//! release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::repr::sketch::Table;
use stemmata::storage::segment::Segment;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v12")
}

#[test]
fn the_version_12_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 12);
}

#[test]
fn a_copy_of_the_version_12_fixture_upgrades_and_takes_another_book_of_word_images() {
    // Format 13 writes its key tables once: a write waits for the upgrade,
    // which is one catalog transaction.
    common::assert_upgrade_keeps_segments_and_takes_a_page("v12", 12, &fixture());
}

#[test]
fn the_version_12_fixtures_segment_holds_each_live_books_one_passage() {
    let segment = Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap();
    common::assert_fixture_passages(&segment, &fixture());
}

/// Every (table, key, book id) of `segment`'s books, and whether a lookup
/// of each key lists its book.
fn keys_found(segment: &Segment) -> (Vec<(usize, u64, u32)>, bool) {
    let ids: Vec<u32> = segment.books().map(|(id, _, _)| id).collect();
    let mut keys = Vec::new();
    let mut found = true;
    for (slot, &id) in ids.iter().enumerate() {
        for table in Table::ALL {
            for key in segment.book_keys(slot, table) {
                found &= segment.lookup(table, key).any(|b| b == id);
                keys.push((table as usize, key, id));
            }
        }
    }
    keys.sort_unstable();
    (keys, found)
}

#[test]
fn a_merge_of_the_version_12_segment_and_a_version_13_one_keeps_every_books_keys() {
    use stemmata::storage::segment_merge::{merge, Fate};
    let (_dir, index, old, new) = common::upgraded_fixture_with_a_new_segment("v12");
    assert_eq!((old.version().number(), new.version().number()), (12, 13));
    let bytes = merge(&[&old, &new], |_| Fate::Keep).unwrap();
    let merged = Segment::decode(bytes, Path::new("merged")).unwrap();
    assert_eq!(merged.version().number(), 13);
    let (old_keys, old_found) = keys_found(&old);
    let (new_keys, new_found) = keys_found(&new);
    let (merged_keys, merged_found) = keys_found(&merged);
    assert!(old_found && new_found && merged_found);
    let mut expected = [old_keys, new_keys].concat();
    expected.sort_unstable();
    assert_eq!(merged_keys, expected);
    assert!(expected.len() > 5 * 100, "{} keys", expected.len());
    // The compaction of the upgraded index does the same merge.
    let mut index = index;
    index.compact().unwrap();
    assert_eq!(index.verify().unwrap().books, 5);
}
