//! An index written by format version 12 (`tests/fixtures/v12`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, finds a book bound inside the volume, and holds
//! each book's passage (its words' first six letters unique in it). A
//! later format must keep reading it or upgrade it;
//! either way this test says so before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::repr::passages::book_passages;
use stemmata::repr::unique_words::extract;
use stemmata::repr::ExtractOptions;
use stemmata::storage::segment::Segment;
use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v12")
}

#[test]
fn the_version_12_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 12);
}

#[test]
fn a_copy_of_the_version_12_fixture_takes_another_book_of_word_images() {
    let dir = common::fixture_copy("v12");
    let index = Index::open(dir.path()).unwrap();
    common::assert_takes_fixture_page_again(&index, &fixture());
}

#[test]
fn the_version_12_fixtures_segment_holds_each_live_books_one_passage() {
    let segment = Segment::open_checked(&fixture().join("index/segments/000001.seg")).unwrap();
    assert!(segment.stores_passages());
    let passages = segment.passage_view().unwrap();
    let mut checked = 0;
    for position in 0..segment.book_count() {
        let (entry, _) = segment.entry(position).unwrap();
        let Some(path) = ["texts", "later"]
            .iter()
            .map(|dir| fixture().join(dir).join(format!("{}.txt", entry.key)))
            .find(|path| path.exists())
        else {
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap();
        let expected = book_passages(&text, &ExtractOptions::default());
        let range = passages.book_parts(position);
        assert_eq!((range.len(), expected.len()), (1, 1), "{}", entry.key);
        assert_eq!(
            passages.part_hashes(range.start).to_vec(),
            expected[0].hashes,
            "{}",
            entry.key
        );
        // Its words' first six letters are as distinct as its words here:
        // as many elements as the whole-book sequence.
        let whole = extract(&text, &ExtractOptions::default()).sequence;
        assert_eq!(expected[0].len(), whole.len(), "{}", entry.key);
        checked += 1;
    }
    assert!(checked >= 4, "{checked} books checked");
}
