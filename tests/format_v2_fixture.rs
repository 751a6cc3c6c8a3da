//! An index written by format version 2, once `Index::upgrade` has
//! converted its catalog, opens, verifies and answers queries in both modes and relations (from the portion map: format 2
//! stores no page signatures); it is read-only: loads and deletes give
//! `OldFormat`, because its segments have the version-2 layout.

mod common;

use std::path::Path;

use stemmata::relate::classify::Signals;
use stemmata::relate::RelationClass;
use stemmata::storage::format::{FORMAT_VERSION, MAGIC, OLDEST_SUPPORTED_FORMAT_VERSION};
use stemmata::{Document, Index, Mode, QueryOptions};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v2");

fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&Path::new(FIXTURE).join("index"), dir.path());
    // Its catalog converted to the current redb file format; it keeps its
    // format version.
    Index::upgrade(dir.path()).unwrap();
    dir
}

#[test]
fn a_version_2_index_opens_verifies_and_answers_both_modes() {
    const { assert!(OLDEST_SUPPORTED_FORMAT_VERSION <= 2 && 2 < FORMAT_VERSION) };
    let segment = std::fs::read(Path::new(FIXTURE).join("index/segments/000001.seg")).unwrap();
    assert_eq!(
        (&segment[..8], &segment[8..10]),
        (&MAGIC[..], &[2u8, 0][..])
    );

    let dir = fixture_copy();
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.format_version(), 2);
    let verified = index.verify().unwrap();
    assert_eq!((verified.books, verified.sketched_books), (3, 3));

    let reader = index.reader().unwrap();
    assert_eq!(reader.unsketched_books(), 0);
    for mode in [Mode::Exact, Mode::Approximate] {
        let options = QueryOptions::default().mode(mode);
        let hits = reader.query_key("alpha", &options).unwrap().hits;
        let keys: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
        assert_eq!(keys, ["beta"], "{mode:?}");
    }
    // gamma has two pages, but format 2 stored no page signatures.
    assert_eq!(reader.book("gamma").unwrap().pages, 2);
    assert!(reader.pages("gamma").unwrap().is_empty());
    // So even gamma against itself is classed from its matched words, where a
    // index of format 3 or later would use its pages (same pagination).
    let relation = reader.relation("gamma", "gamma").unwrap();
    assert!(
        matches!(relation.signals, Signals::Matched(_)),
        "{relation:?}"
    );
    assert_eq!(relation.class, RelationClass::Duplicate, "{relation:?}");
}

#[test]
fn writing_to_a_version_2_index_is_old_format_and_changes_nothing() {
    let dir = fixture_copy();
    let doc = Document::new("delta", common::text(1_000, 300));
    common::assert_writes_refused(dir.path(), 2, doc, "alpha");
}
