//! An index written by format version 13 (`tests/fixtures/v13`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, finds a book bound inside the volume, holds each
//! book's passage, finds every book under each of its keys through the key
//! tables stored once (book after book, with a key order of numbers), and
//! holds barrel records of variable-length deltas. An upgrade keeps its
//! segment, and a merge with a segment of the current format keeps every
//! book's keys. A later format must keep reading it or upgrade it; either
//! way this test says so before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::repr::sketch::Table;
use stemmata::storage::segment::Segment;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v13")
}

fn segment() -> Segment {
    Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap()
}

#[test]
fn the_version_13_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 13);
}

#[test]
fn a_copy_of_the_version_13_fixture_upgrades_and_takes_another_book_of_word_images() {
    // Format 14 writes its key tables in key order: a write waits for the
    // upgrade, which is one catalog transaction.
    common::assert_upgrade_keeps_segments_and_takes_a_page("v13", 13, &fixture());
}

#[test]
fn a_merge_of_the_version_13_segment_and_a_current_one_keeps_every_books_keys() {
    common::assert_merge_with_a_current_segment_keeps_every_key("v13", 13);
}

#[test]
fn the_version_13_fixtures_segment_holds_each_live_books_one_passage() {
    common::assert_fixture_passages(&segment(), &fixture());
}

#[test]
fn every_book_of_the_version_13_fixture_is_found_under_each_of_its_keys() {
    let segment = segment();
    assert_eq!(segment.version().number(), 13);
    let ids: Vec<u32> = segment.books().map(|(id, _, _)| id).collect();
    let mut looked_up = 0;
    for (slot, &id) in ids.iter().enumerate() {
        for table in Table::ALL {
            for key in segment.book_keys(slot, table) {
                let books: Vec<u32> = segment.lookup(table, key).collect();
                assert!(books.contains(&id), "{table:?} {key:#x}: {books:?}");
                assert!(books.windows(2).all(|w| w[0] < w[1]), "{books:?}");
                looked_up += 1;
            }
        }
    }
    // Every book has its k value keys at least.
    assert!(looked_up >= 4 * 100, "{looked_up} keys");
}

#[test]
fn the_version_13_fixtures_barrel_records_hold_variable_length_deltas() {
    use stemmata::storage::barrel::{BarrelReader, RECORD_HEADER_LEN, VARINT_DELTAS};
    let path = fixture().join("index/barrels/000001.brl");
    let bytes = std::fs::read(&path).unwrap();
    let (mut at, mut records) = (16, 0);
    while at < bytes.len() {
        let field = |i: usize| u32::from_le_bytes(bytes[at + i..at + i + 4].try_into().unwrap());
        let (stored_len, raw_len, elements) = (field(0), field(4), field(12));
        assert_ne!(raw_len & VARINT_DELTAS, 0, "record at {at}");
        let payload = raw_len & !VARINT_DELTAS;
        assert!(
            (elements..=5 * elements).contains(&payload),
            "record at {at}"
        );
        at += RECORD_HEADER_LEN + stored_len as usize;
        records += 1;
    }
    assert_eq!((at, records), (bytes.len(), 8));
    let reader = BarrelReader::open(&path, bytes.len() as u64).unwrap();
    let read: Vec<_> = reader.records().map(|r| r.unwrap().1).collect();
    assert_eq!(read.len(), 8);
    assert!(read.iter().all(|r| r.hashes.is_none()));
    assert!(read.iter().any(|r| r.positions.len() > 1));
}
