//! An index written by format version 9 (`tests/fixtures/v9`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, and finds a book bound inside the volume. A later
//! format must keep reading it or upgrade it; either way this test says so
//! before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::storage::format::FORMAT_VERSION;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v9")
}

#[test]
fn the_version_9_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 9);
}

#[test]
fn a_copy_of_the_version_9_fixture_upgrades_and_takes_another_book_of_word_images() {
    let dir = common::fixture_copy("v9");
    // Format 10 rewrites the segments: a write waits for the upgrade.
    let refused = common::add_fixture_page_again(&Index::open(dir.path()).unwrap(), &fixture());
    assert!(matches!(
        refused,
        Err(stemmata::Error::OldFormat { found: 9, .. })
    ));
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!((stats.from_version, stats.to_version), (9, FORMAT_VERSION));
    common::assert_takes_fixture_page_again(&index, &fixture());
}
