//! An index written by format version 3 (page signatures as values of the
//! catalog's `pages` table, the catalog in redb's file format 2) is refused
//! until `Index::upgrade` makes it the current format, and the refusal
//! writes nothing. Upgraded, it verifies, answers both modes, reads its
//! page signatures (moved into a page file), relates its paged books by
//! them, and takes loads and deletes.

mod common;

use std::path::Path;

use stemmata::relate::classify::Signals;
use stemmata::relate::RelationClass;
use stemmata::repr::minhash::page_codes;
use stemmata::repr::minhash::page_signatures;
use stemmata::storage::format::{FORMAT_VERSION, MAGIC};
use stemmata::{Document, Index, Mode, QueryOptions};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v3");

fn fixture_text(key: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURE).join(format!("texts/{key}.txt"))).unwrap()
}

#[test]
fn a_version_3_index_is_refused_until_upgraded_and_the_refusal_writes_nothing() {
    let dir = common::fixture_copy("v3");
    common::assert_upgrade_required_and_untouched(dir.path());
}

#[test]
fn an_upgraded_version_3_index_verifies_and_answers_both_modes() {
    let segment = std::fs::read(Path::new(FIXTURE).join("index/segments/000001.seg")).unwrap();
    assert_eq!(
        (&segment[..8], &segment[8..10]),
        (&MAGIC[..], &[3u8, 0][..])
    );

    let dir = common::fixture_copy("v3");
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(
        (
            stats.from_version,
            stats.to_version,
            stats.catalog_converted
        ),
        (3, FORMAT_VERSION, true)
    );
    // Two records of codes: 18 bytes plus 68 per page, after the 16-byte
    // header.
    let page_bytes = 16 + (18 + 68 * 4) + (18 + 68 * 3);
    assert_eq!(
        (stats.paged_books, stats.page_files, stats.page_file_bytes),
        (2, 1, page_bytes)
    );
    assert_eq!(index.format_version(), FORMAT_VERSION);
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.books,
            verified.sketched_books,
            verified.paged_books,
            verified.page_file_bytes
        ),
        (4, 4, 2, page_bytes)
    );

    let reader = index.reader().unwrap();
    for mode in [Mode::Exact, Mode::Approximate] {
        let options = QueryOptions::default().mode(mode);
        let hits = reader.query_key("alpha", &options).unwrap().hits;
        let keys: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
        assert_eq!(keys, ["beta"], "{mode:?}");
    }
}

#[test]
fn an_upgraded_version_3_index_reads_its_page_signatures_and_relates_by_them() {
    let dir = common::upgraded_fixture("v3");
    let index = Index::open_read_only(dir.path()).unwrap();
    let reader = index.reader().unwrap();
    let options = index.sketch_options().unwrap().window_options();
    for (key, pages) in [("gamma", 4), ("delta", 3)] {
        let expected: Vec<_> = page_signatures(&fixture_text(key), &options)
            .iter()
            .map(page_codes)
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
    assert!(
        matches!(relation.signals, Signals::Matched(_)),
        "{relation:?}"
    );
}

#[test]
fn an_upgraded_version_3_index_takes_loads_and_deletes() {
    let dir = common::upgraded_fixture("v3");
    let index = Index::open(dir.path()).unwrap();
    let stats = index
        .load([Ok(Document::new("epsilon", fixture_text("gamma")))])
        .unwrap();
    assert_eq!(stats.books, 1);
    assert_eq!(index.delete(&["beta"]).unwrap(), 1);
    let verified = index.verify().unwrap();
    assert_eq!((verified.books, verified.paged_books), (4, 3));
    let reader = index.reader().unwrap();
    assert_eq!(
        reader.pages("epsilon").unwrap(),
        reader.pages("gamma").unwrap()
    );
    let relation = reader.relation("epsilon", "gamma").unwrap();
    assert_eq!(
        relation.class,
        RelationClass::SamePagination,
        "{relation:?}"
    );
}
