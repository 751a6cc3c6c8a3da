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
use stemmata::storage::format::MAGIC;
use stemmata::{Index, Mode, QueryOptions};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v10")
}

#[test]
fn the_version_10_fixture_opens_read_only_verifies_and_writes_nothing() {
    let dir = fixture().join("index");
    let before = common::snapshot_files(&dir);
    let index = Index::open_read_only(&dir).unwrap();
    assert_eq!(index.format_version(), 10);
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.books,
            verified.records,
            verified.segments,
            verified.dictionaries,
            verified.image_books,
        ),
        (4, 8, 1, 1, 1)
    );
    for (sub, kinds) in [
        ("barrels", &[1u8][..]),
        ("segments", &[2]),
        ("pages", &[3]),
        ("dictionaries", &[4]),
        ("images", &[5, 6, 7]),
    ] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            assert_eq!((&bytes[..8], &bytes[8..10]), (&MAGIC[..], &[10u8, 0][..]));
            assert!(kinds.contains(&bytes[10]), "{sub}: kind {}", bytes[10]);
        }
    }
    let books = index.image_books().unwrap();
    assert_eq!(books.len(), 1);
    assert_eq!(
        (books[0].key.as_str(), books[0].pages, books[0].words),
        ("scan", 1, 32)
    );
    let search = index.word_images().unwrap().unwrap();
    assert_eq!((search.books(), search.images()), (1, 32));
    let hits = search.spot("garden", &SpotOptions::default(), 2).unwrap();
    assert!(hits.iter().all(|h| h.ocr.starts_with("garden")), "{hits:?}");
    assert!(hits
        .iter()
        .all(|h| h.key == "scan" && h.page == 1 && h.page_name == "scan-0001.png"));
    let crops = search.crops(&hits).unwrap();
    assert!(crops.iter().all(|c| c.height() == 32 && c.width() > 100));
    drop(search);
    let reader = index.reader().unwrap();
    let keys: Vec<&str> = reader.books().iter().map(|b| b.key.as_str()).collect();
    assert_eq!(keys, ["alpha", "beta", "gamma", "volume"]);
    for mode in [Mode::Exact, Mode::Approximate] {
        let hits = reader
            .query_key("alpha", &QueryOptions::default().mode(mode))
            .unwrap()
            .hits;
        assert!(hits.iter().any(|h| h.key == "volume"), "{mode:?}");
    }
    drop(reader);
    drop(index);
    assert!(
        common::snapshot_files(&dir) == before,
        "a read-only open wrote"
    );
}

#[test]
fn a_copy_of_the_version_10_fixture_takes_another_book_of_word_images() {
    let dir = common::fixture_copy("v10");
    let index = Index::open(dir.path()).unwrap();
    let page = fixture().join("pages/scan-0001.png");
    let files = [stemmata::images::pages::PageFiles::beside(&page).unwrap()];
    let options = stemmata::images::learn::LearnOptions::default();
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
