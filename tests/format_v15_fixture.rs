//! An index written by format version 15 (`tests/fixtures/v15`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, finds a book bound inside the volume, holds each
//! book's passage, finds every book under each of its keys, and its paged
//! book's page file record holds 16-bit codes, the codes of that text's
//! page signatures; its search file, without the flags of format 16,
//! reads its book as a model book. A later format must keep reading it or
//! upgrade it; either way this test says so before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::storage::segment::Segment;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v15")
}

fn segment() -> Segment {
    Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap()
}

#[test]
fn the_version_15_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 15);
}

#[test]
fn a_copy_of_the_version_15_fixture_upgrades_and_takes_another_book_of_word_images() {
    common::assert_upgrade_keeps_segments_and_takes_a_page("v15", 15, &fixture());
}

#[test]
fn the_version_15_fixtures_segment_holds_each_live_books_one_passage() {
    common::assert_fixture_passages(&segment(), &fixture());
}

#[test]
fn every_book_of_the_version_15_fixture_is_found_under_each_of_its_keys() {
    let segment = segment();
    assert_eq!(segment.version().number(), 15);
    let (keys, found) = common::keys_found(&segment);
    assert!(found);
    // Every book has its k value keys at least, and the merge that wrote
    // the segment kept each book's keys distinct.
    assert!(keys.len() >= 4 * 100, "{} keys", keys.len());
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn the_version_15_fixtures_page_record_holds_the_codes_of_its_texts_pages() {
    let index = Index::open_read_only(fixture().join("index")).unwrap();
    let reader = index.reader().unwrap();
    let text = std::fs::read_to_string(fixture().join("texts/gamma.txt")).unwrap();
    let pages = reader.pages("gamma").unwrap();
    assert_eq!(pages.len(), 4);
    assert_eq!(pages, reader.pages_of_text(&text));
    let codes = pages.iter().flat_map(|page| &page.0);
    assert!(codes.clone().all(|&v| v <= 0xfffe || v == u64::MAX));
    assert!(codes.clone().any(|&v| v > 0xff), "codes use their 16 bits");
    // 16 + the 2 records (gamma's, and the deleted delta's) of 18 + 2k bytes a page.
    let file = std::fs::read(fixture().join("index/pages/000001.pgs")).unwrap();
    assert_eq!(file[20..22], [34, 0x80], "k = 34 with the codes flag");
}

#[test]
fn a_copy_of_the_version_15_fixture_refuses_a_relearn_until_upgraded() {
    let dir = common::fixture_copy("v15");
    let before = common::snapshot_files(dir.path());
    let index = Index::open(dir.path()).unwrap();
    let refused = index.relearn_word_images(
        stemmata::images::learn::LearnOptions::default().learn_alone,
        &|_| {},
    );
    assert!(
        matches!(refused, Err(stemmata::Error::OldFormat { found: 15, .. })),
        "{refused:?}"
    );
    assert!(
        common::snapshot_files(dir.path()) == before,
        "an open for writing or a refused relearn wrote"
    );
}

#[test]
fn a_copy_of_the_version_15_fixture_upgrades_only_once_its_handles_are_dropped() {
    let dir = common::fixture_copy("v15");
    let old = Index::open(dir.path()).unwrap();
    assert!(old.is_read_only() && old.format_version() == 15);
    let refused = Index::upgrade(dir.path());
    assert!(
        matches!(refused, Err(stemmata::Error::Locked(_))),
        "{refused:?}"
    );
    drop(old);
    let (upgraded, _) = Index::upgrade(dir.path()).unwrap();
    assert!(!upgraded.is_read_only());
    assert_eq!(
        upgraded.format_version(),
        stemmata::storage::format::FORMAT_VERSION
    );
}
