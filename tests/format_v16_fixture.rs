//! An index written by format version 16 (`tests/fixtures/v16`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its two
//! books of word images, lists them with the model book marked, finds a
//! word on the scanned page with its box and crop, finds a book bound
//! inside the volume, holds each book's passage and finds every book under
//! each of its keys. A copy refuses an add until upgraded; upgraded, it
//! takes another book and learns the model again from every book, its
//! format-16 book files holding one box a word. A later format must keep
//! reading it or upgrade it; either way this test says so before a release
//! does.

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

#[test]
fn a_copy_of_the_version_16_fixture_upgrades_and_takes_another_book_of_word_images() {
    common::assert_upgrade_keeps_segments_and_takes_a_page("v16", 16, &fixture());
}

#[test]
fn an_upgraded_copy_of_the_version_16_fixture_relearns_from_its_one_box_book_files() {
    let dir = common::fixture_copy("v16");
    let (index, _) = Index::upgrade(dir.path()).unwrap();
    common::assert_takes_fixture_page_again(&index, &fixture());
    let (model, _) = index.relearn_word_images(&|_| {}).unwrap();
    assert_eq!(
        (model.relearned, model.books, model.images),
        (true, 3, 32 + 32 + 33)
    );
    assert!(index.image_books().unwrap().iter().all(|b| b.model_book));
    assert_eq!(index.verify().unwrap().image_books, 3);
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
