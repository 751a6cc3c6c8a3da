//! An index written by format version 12 (`tests/fixtures/v12`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, finds a book bound inside the volume, and holds
//! each book's passage (its words' first six letters unique in it). Its
//! segment has the wide key tables (each key twice) and its barrels `u32`
//! deltas: an upgrade keeps both, and a merge with a segment of the
//! current format writes every book's keys once, each found again. A later format must
//! keep reading it or upgrade it; either way this test says so before a
//! release does.

mod common;

use std::path::{Path, PathBuf};

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
    // Formats 13 on write their key tables once: a write waits for the
    // upgrade, which is one catalog transaction.
    common::assert_upgrade_keeps_segments_and_takes_a_page("v12", 12, &fixture());
}

#[test]
fn the_version_12_fixtures_segment_holds_each_live_books_one_passage() {
    let segment = Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap();
    common::assert_fixture_passages(&segment, &fixture());
}

#[test]
fn a_merge_of_the_version_12_segment_and_a_current_one_keeps_every_books_keys() {
    common::assert_merge_with_a_current_segment_keeps_every_key("v12", 12);
}
