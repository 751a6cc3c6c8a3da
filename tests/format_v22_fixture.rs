//! An index written by format version 22 (`tests/fixtures/v22`, made by the
//! command line as its README says) stays readable: its sketches are of
//! word-hash shingles, and a text's signature by them matches its stored
//! one; it opens read-only
//! without writing a byte, verifies its books, its dictionary and its two
//! books of word images, lists them with the model book marked, finds a
//! word on the scanned page with its box and crop, finds a book bound
//! inside the volume, holds each book's passage and finds every book under
//! each of its keys. Its book files keep each word's box, found from the
//! ink, the OCR's box it was found in, one of which the ink split in two,
//! and each word's unit, 1.6 x-heights, as its vocabulary says. Its search
//! file holds the widths the model expects of letters, and every image's
//! width in units, by which a query holds an image's width against the
//! word's. A copy refuses an add until upgraded; upgraded, its second book
//! of word images, the same page added under the model kept from the
//! first, is what this build adds again, it refuses pages described
//! otherwise than its vocabulary says, and it takes another book and
//! learns the model again from every book. A later format must keep
//! reading it or upgrade it; either way this test says so before a
//! release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::storage::segment::Segment;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v22")
}

fn segment() -> Segment {
    Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap()
}

#[test]
fn the_version_22_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads_books(
        &fixture().join("index"),
        22,
        &[("scan", true), ("scan-again", false)],
        common::FIXTURE_PAGE_WORDS as u64,
    );
}

#[test]
fn an_upgraded_copy_adds_the_book_under_the_kept_model_as_the_fixture_holds_it() {
    let dir = common::upgraded_fixture("v22");
    let index = Index::open(dir.path()).unwrap();
    common::assert_adds_the_book_under_the_kept_model_as_held(&index, &fixture());
}

#[test]
fn a_copy_of_the_version_22_fixture_upgrades_takes_another_book_and_relearns() {
    common::assert_upgrade_keeps_segments_and_takes_a_page("v22", 22, &fixture());
    let dir = common::upgraded_fixture("v22");
    let index = Index::open(dir.path()).unwrap();
    let images = 3 * common::FIXTURE_PAGE_WORDS as u64;
    common::assert_takes_a_book_and_relearns(&index, &fixture(), images);
}

#[test]
fn the_version_22_fixtures_segment_holds_each_live_books_one_passage() {
    common::assert_fixture_passages(&segment(), &fixture());
}

#[test]
fn every_book_of_the_version_22_fixture_is_found_under_each_of_its_keys() {
    let segment = segment();
    assert_eq!(segment.version().number(), 22);
    let (keys, found) = common::keys_found(&segment);
    assert!(found);
    assert!(keys.len() >= 4 * 100, "{} keys", keys.len());
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn the_version_22_fixtures_sketches_are_of_word_hash_shingles() {
    common::assert_sketch_of_text_is_stored(&fixture(), stemmata::repr::ShingleHash::WordHashes);
}

#[test]
fn the_version_22_fixtures_book_file_keeps_the_ocr_s_box_of_the_words_it_split() {
    common::assert_fixture_book_keeps_split_words(&fixture());
}

#[test]
fn the_version_22_fixtures_words_are_described_by_their_x_height() {
    common::assert_fixture_words_described_by_x_height(&fixture());
}

#[test]
fn pages_read_otherwise_than_the_vocabulary_describes_are_refused_leaving_the_word_images() {
    let dir = common::upgraded_fixture("v22");
    common::assert_refuses_pages_described_otherwise(dir.path(), &fixture());
}

#[test]
fn the_version_22_fixtures_search_file_holds_letter_widths_and_each_image_s_width() {
    use stemmata::images::spot::Rows;
    let path = fixture().join("index/images/000005.wis");
    let file =
        stemmata::storage::image_search::SearchFile::decode(std::fs::read(&path).unwrap(), &path)
            .unwrap();
    let widths = file.widths().expect("learned from 33 read words");
    assert!(widths.expected("garden") > widths.expected("a"));
    let contents = file.contents().unwrap();
    assert_eq!(contents.images.len(), 2 * common::FIXTURE_PAGE_WORDS);
    for (i, image) in contents.images.iter().enumerate() {
        assert!(image.width > 0, "image {i}");
        assert_eq!(file.width(i), image.width);
    }
}
