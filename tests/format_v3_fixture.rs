//! An index written by format version 3, which keeps page signatures as
//! values of the catalog's `pages` table, still opens, verifies, answers
//! queries and reads those page signatures, so paged books still relate by
//! their pages; it is read-only: loads and deletes give `OldFormat`, since
//! format 4 keeps page signatures in page files.

mod common;

use std::path::Path;

use stemmata::relate::classify::Signals;
use stemmata::relate::RelationClass;
use stemmata::repr::minhash::page_signatures;
use stemmata::storage::format::{FORMAT_VERSION, MAGIC, OLDEST_SUPPORTED_FORMAT_VERSION};
use stemmata::storage::pages::reduce;
use stemmata::{Document, Index, Mode, QueryOptions};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v3");

fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&Path::new(FIXTURE).join("index"), dir.path());
    dir
}

fn fixture_text(key: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURE).join(format!("texts/{key}.txt"))).unwrap()
}

#[test]
fn a_version_3_index_opens_verifies_and_answers_both_modes() {
    const { assert!(OLDEST_SUPPORTED_FORMAT_VERSION <= 3 && 3 <= FORMAT_VERSION) };
    let segment = std::fs::read(Path::new(FIXTURE).join("index/segments/000001.seg")).unwrap();
    assert_eq!(
        (&segment[..8], &segment[8..10]),
        (&MAGIC[..], &[3u8, 0][..])
    );

    let dir = fixture_copy();
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.format_version(), 3);
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.books,
            verified.sketched_books,
            verified.paged_books
        ),
        (4, 4, 2)
    );

    let reader = index.reader().unwrap();
    for mode in [Mode::Exact, Mode::Approximate] {
        let options = QueryOptions {
            mode,
            ..QueryOptions::default()
        };
        let hits = reader.query_key("alpha", &options).unwrap().hits;
        let keys: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
        assert_eq!(keys, ["beta"], "{mode:?}");
    }
}

#[test]
fn a_version_3_index_reads_its_page_signatures_from_the_catalog() {
    let dir = fixture_copy();
    let index = Index::open(dir.path()).unwrap();
    let reader = index.reader().unwrap();
    let options = index.sketch_options().unwrap().window_options();
    for (key, pages) in [("gamma", 4), ("delta", 3)] {
        let expected: Vec<_> = page_signatures(&fixture_text(key), &options)
            .iter()
            .map(reduce)
            .collect();
        assert_eq!(expected.len(), pages, "{key}");
        assert_eq!(reader.book(key).unwrap().pages as usize, pages, "{key}");
        assert_eq!(reader.pages(key).unwrap(), expected, "{key}");
    }
    assert!(reader.pages("alpha").unwrap().is_empty());

    // Both paged: the class comes from their pages, not from a portion map.
    let relation = reader.relation("gamma", "gamma").unwrap();
    assert!(
        matches!(relation.signals, Signals::Pages(_)),
        "{relation:?}"
    );
    assert_eq!(
        relation.class,
        RelationClass::SamePagination,
        "{relation:?}"
    );
    let relation = reader.relation("delta", "gamma").unwrap();
    assert!(
        matches!(relation.signals, Signals::Pages(_)),
        "{relation:?}"
    );
    assert_eq!(
        relation.class,
        RelationClass::ContiguousSubset,
        "{relation:?}"
    );
    let relation = reader.relation("alpha", "gamma").unwrap();
    assert!(matches!(relation.signals, Signals::Map(_)), "{relation:?}");
}

#[test]
fn writing_to_a_version_3_index_is_old_format_and_changes_nothing() {
    const { assert!(FORMAT_VERSION > 3) };
    let dir = fixture_copy();
    let doc = Document::new("epsilon", fixture_text("gamma"));
    common::assert_writes_refused(dir.path(), 3, doc, "gamma");
}
