//! An index written by format version 10 (`tests/fixtures/v10`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, and finds a book bound inside the volume. A later
//! format must keep reading it or upgrade it; either way this test says so
//! before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::images::spot::SpotOptions;
use stemmata::storage::format::FORMAT_VERSION;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v10")
}

#[test]
fn the_version_10_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 10);
}

#[test]
fn a_copy_of_the_version_10_fixture_upgrades_and_takes_another_book_of_word_images() {
    let dir = common::fixture_copy("v10");
    // Format 11 writes barrel records of positions alone: a write waits
    // for the upgrade, which is one catalog transaction.
    let page = fixture().join("pages/scan-0001.png");
    let files = [stemmata::images::pages::PageFiles::beside(&page).unwrap()];
    let options = stemmata::images::learn::LearnOptions::default();
    let refused =
        Index::open(dir.path())
            .unwrap()
            .add_word_images("again", &files, &options, &|_| {});
    assert!(matches!(
        refused,
        Err(stemmata::Error::OldFormat { found: 10, .. })
    ));
    let segments = dir.path().join("segments");
    let before = common::snapshot_files(&segments);
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!((stats.from_version, stats.to_version), (10, FORMAT_VERSION));
    assert_eq!(common::snapshot_files(&segments), before, "segments kept");
    index
        .add_word_images("again", &files, &options, &|_| {})
        .unwrap();
    let search = index.word_images().unwrap().unwrap();
    assert_eq!((search.books(), search.images()), (2, 64));
    // The vocabulary is the fixture's (branching 4), not relearned.
    let hits = search.spot("garden", &SpotOptions::default(), 4).unwrap();
    assert!(hits.iter().all(|h| h.ocr.starts_with("garden")), "{hits:?}");
    drop(search);
    assert_eq!(index.verify().unwrap().image_books, 2);
}

#[test]
fn an_upgraded_copy_of_the_version_10_fixture_takes_books_beside_its_old_records() {
    let dir = common::fixture_copy("v10");
    let (index, _) = Index::upgrade(dir.path()).unwrap();
    let before = index.reader().unwrap();
    let old_parts = before.parts("alpha").unwrap();
    drop(before);
    // A book appended after the upgrade: its records hold positions only,
    // in the barrel whose records hold the hashes too.
    let text = std::fs::read(fixture().join("texts/alpha.txt")).unwrap();
    common::load_docs(
        &index,
        vec![stemmata::Document::new("alpha-again", text)],
        10,
    );
    assert_eq!(index.verify().unwrap().books, 5);
    let reader = index.reader().unwrap();
    assert_eq!(reader.parts("alpha").unwrap(), old_parts);
    assert_eq!(reader.parts("alpha-again").unwrap(), old_parts);
}
