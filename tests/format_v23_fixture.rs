//! An index written by format version 23 (`tests/fixtures/v23`, made by the
//! command line as its README says) stays readable: its sketches are of
//! word-hash shingles, and a text's signature by them matches its stored
//! one; it opens read-only without writing a byte, verifies its books, its
//! dictionary and its three books of word images, lists them with the
//! model book marked, finds a word on the scanned page with its box and
//! crop, finds a book bound inside the volume, holds each book's passage
//! and finds every book under each of its keys. Its book files keep each
//! word's box, found from the ink, the OCR's box it was found in, one of
//! which the ink split in two, and each word's unit, 1.6 x-heights, as its
//! vocabulary says. Its search file holds the widths the model expects of
//! letters, and every image's width in units. Its third book, `scan-alone`,
//! was described by a vocabulary of its own and scored by its own model:
//! its book file says so, and the search file holds that model's widths
//! for it alone. Its second and third books are what this build adds
//! again; a copy takes another book and learns the model again from the
//! books of the index's vocabulary. A later format must keep reading it or
//! upgrade it; either way this test says so before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::storage::segment::Segment;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v23")
}

fn segment() -> Segment {
    Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap()
}

#[test]
fn the_version_23_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads_books(
        &fixture().join("index"),
        23,
        &[("scan", true), ("scan-again", false), ("scan-alone", false)],
        common::FIXTURE_PAGE_WORDS as u64,
    );
}

#[test]
fn this_build_adds_the_book_under_the_kept_model_as_the_fixture_holds_it() {
    let dir = common::fixture_copy("v23");
    let index = Index::open(dir.path()).unwrap();
    let options = stemmata::images::learn::LearnOptions {
        learn_from: 1,
        ..Default::default()
    };
    common::assert_adds_the_book_as_held(&index, &fixture(), "scan-again", &options, 3);
}

#[test]
fn this_build_adds_the_book_of_its_own_vocabulary_as_the_fixture_holds_it() {
    let dir = common::fixture_copy("v23");
    let index = Index::open(dir.path()).unwrap();
    let options = stemmata::images::learn::LearnOptions {
        learn_alone: 33,
        ..Default::default()
    };
    common::assert_adds_the_book_as_held(&index, &fixture(), "scan-alone", &options, 3);
}

#[test]
fn a_copy_of_the_version_23_fixture_takes_another_book_and_relearns_from_the_index_s_vocabulary() {
    let dir = common::fixture_copy("v23");
    let index = Index::open(dir.path()).unwrap();
    common::assert_takes_fixture_page_again(&index, &fixture());
    let (model, _) = index
        .relearn_word_images(
            stemmata::images::learn::LearnOptions::default().learn_alone,
            &|_| {},
        )
        .unwrap();
    let words = common::FIXTURE_PAGE_WORDS as u64;
    // Every book but scan-alone, whose terms come from its own vocabulary.
    assert_eq!(
        (model.relearned, model.books, model.images),
        (true, 3, 3 * words)
    );
    let books = index.image_books().unwrap();
    let model_books: Vec<(&str, bool)> = (books.iter())
        .map(|b| (b.key.as_str(), b.model_book))
        .collect();
    assert_eq!(
        model_books,
        [
            ("again", true),
            ("scan", true),
            ("scan-again", true),
            ("scan-alone", false)
        ]
    );
    assert_eq!(index.verify().unwrap().image_books, 4);
}

#[test]
fn the_version_23_fixtures_segment_holds_each_live_books_one_passage() {
    common::assert_fixture_passages(&segment(), &fixture());
}

#[test]
fn every_book_of_the_version_23_fixture_is_found_under_each_of_its_keys() {
    let segment = segment();
    assert_eq!(segment.version().number(), 23);
    let (keys, found) = common::keys_found(&segment);
    assert!(found);
    assert!(keys.len() >= 4 * 100, "{} keys", keys.len());
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn the_version_23_fixtures_sketches_are_of_word_hash_shingles() {
    common::assert_sketch_of_text_is_stored(&fixture(), stemmata::repr::ShingleHash::WordHashes);
}

#[test]
fn the_version_23_fixtures_book_file_keeps_the_ocr_s_box_of_the_words_it_split() {
    common::assert_fixture_book_keeps_split_words(&fixture());
}

#[test]
fn the_version_23_fixtures_words_are_described_by_their_x_height() {
    common::assert_fixture_words_described_by_x_height(&fixture());
}

#[test]
fn pages_read_otherwise_than_the_vocabulary_describes_are_refused_leaving_the_word_images() {
    let dir = common::fixture_copy("v23");
    common::assert_refuses_pages_described_otherwise(dir.path(), &fixture());
}

#[test]
fn the_version_23_fixtures_search_file_holds_letter_widths_and_each_image_s_width() {
    use stemmata::images::spot::Rows;
    let path = fixture().join("index/images/000007.wis");
    let file =
        stemmata::storage::image_search::SearchFile::decode(std::fs::read(&path).unwrap(), &path)
            .unwrap();
    let widths = file.widths().expect("learned from 33 read words");
    assert!(widths.expected("garden") > widths.expected("a"));
    let contents = file.contents().unwrap();
    assert_eq!(contents.images.len(), 3 * common::FIXTURE_PAGE_WORDS);
    for (i, image) in contents.images.iter().enumerate() {
        assert!(image.width > 0, "image {i}");
        assert_eq!(file.width(i), image.width);
    }
}

#[test]
fn the_version_23_fixtures_book_of_its_own_vocabulary_holds_its_own_widths() {
    use stemmata::images::spot::Rows;
    let book = |n: u32| {
        let path = fixture().join(format!("index/images/{n:06}.wib"));
        stemmata::storage::word_images::decode_book(&std::fs::read(&path).unwrap(), &path).unwrap()
    };
    let flags: Vec<(String, bool)> = [2, 4, 6]
        .map(book)
        .into_iter()
        .map(|b| (b.key, b.own_vocabulary))
        .collect();
    assert_eq!(
        flags,
        [
            ("scan".to_string(), false),
            ("scan-again".to_string(), false),
            ("scan-alone".to_string(), true)
        ]
    );
    let path = fixture().join("index/images/000007.wis");
    let file =
        stemmata::storage::image_search::SearchFile::decode(std::fs::read(&path).unwrap(), &path)
            .unwrap();
    let own = (file.books().iter())
        .map(|b| (b.key.as_str(), b.widths.is_some()))
        .collect::<Vec<_>>();
    assert_eq!(
        own,
        [("scan", false), ("scan-again", false), ("scan-alone", true)]
    );
    // Learned from the same page's read words as the model's: the same.
    let widths = file.books()[2].widths.expect("learned from 33 read words");
    assert_eq!(Some(&widths), file.widths());
    let words = common::FIXTURE_PAGE_WORDS;
    for image in 0..3 * words {
        let set = if image >= 2 * words { 1 } else { 0 };
        assert_eq!(file.width_set(image), set, "image {image}");
    }
}
