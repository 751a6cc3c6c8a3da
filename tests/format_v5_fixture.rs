//! An index written by format version 5 (`tests/fixtures/v5`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies, answers known queries in exact and
//! approximate mode, and what it stores (file headers, sequences, page
//! signatures, sketch keys) is what this build computes from the same
//! texts. A later format must keep reading it or upgrade it; either way
//! this test says so before a release does.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stemmata::storage::format::{FORMAT_VERSION, MAGIC};
use stemmata::Mode;
use stemmata::{Document, Index, QueryOptions};

/// The fixture itself (read-only opens only; writes go to a copy).
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v5")
}

/// The live books' texts, by key: the four of `texts/` and `epsilon` of
/// `later/` (`zeta`, also in `later/`, was deleted).
fn texts() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (dir, key) in [
        ("texts", "alpha"),
        ("texts", "beta"),
        ("texts", "gamma"),
        ("texts", "delta"),
        ("later", "epsilon"),
    ] {
        let path = fixture().join(dir).join(format!("{key}.txt"));
        out.insert(key.to_string(), std::fs::read_to_string(path).unwrap());
    }
    out
}

fn hits(index: &Index, key: &str, mode: Mode) -> Vec<(String, u32)> {
    let options = QueryOptions::default().mode(mode);
    let reader = index.reader().unwrap();
    let by_key = reader.query_key(key, &options).unwrap().hits;
    let text = &texts()[key];
    let by_text = reader.query_text(text.as_bytes(), &options).unwrap().hits;
    let of = |hits: Vec<stemmata::Hit>| -> Vec<(String, u32)> {
        hits.into_iter()
            .map(|h| (h.key, h.overlap.common))
            .filter(|(k, _)| k != key)
            .collect()
    };
    let by_key = of(by_key);
    assert_eq!(
        by_key,
        of(by_text),
        "{key} {mode:?}: stored and computed sketches differ"
    );
    by_key
}

#[test]
fn the_version_5_fixture_opens_read_only_verifies_and_writes_nothing() {
    let dir = fixture().join("index");
    let before = common::snapshot_files(&dir);
    let index = Index::open_read_only(&dir).unwrap();
    assert_eq!(index.format_version(), 5);
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.books,
            verified.records,
            verified.segments,
            verified.sketched_books,
            verified.dead_sketches,
        ),
        (5, 6, 2, 5, 1)
    );
    assert_eq!(
        (
            verified.paged_books,
            verified.page_files,
            verified.page_records
        ),
        (3, 1, 4)
    );
    let stats = index.stats().unwrap();
    assert_eq!(
        (stats.books, stats.words, stats.unique_words),
        (5, 151, 125)
    );
    drop(index);
    assert!(
        common::snapshot_files(&dir) == before,
        "a read-only open wrote"
    );
}

#[test]
fn every_file_of_the_version_5_fixture_has_a_version_5_header() {
    let dir = fixture().join("index");
    for (sub, kind) in [("barrels", 1u8), ("segments", 2), ("pages", 3)] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            assert_eq!(
                (&bytes[..8], &bytes[8..12]),
                (&MAGIC[..], &[5u8, 0, kind, 0][..]),
                "{sub}"
            );
        }
    }
}

#[test]
fn the_version_5_fixture_answers_as_it_did_when_written() {
    let index = Index::open_read_only(fixture().join("index")).unwrap();
    for mode in [Mode::Exact, Mode::Approximate] {
        let got: Vec<_> = ["alpha", "gamma", "epsilon"]
            .into_iter()
            .map(|key| hits(&index, key, mode))
            .collect();
        let owned = |v: &[(&str, u32)]| -> Vec<(String, u32)> {
            v.iter().map(|(k, c)| (k.to_string(), *c)).collect()
        };
        assert_eq!(
            got,
            [
                owned(&[("beta", 13)]),
                owned(&[("delta", 31), ("epsilon", 19)]),
                owned(&[("gamma", 19), ("delta", 10)]),
            ],
            "{mode:?}"
        );
    }
    let reader = index.reader().unwrap();
    let keys: Vec<_> = reader.books().iter().map(|b| b.key.as_str()).collect();
    assert_eq!(keys, ["alpha", "beta", "delta", "gamma", "epsilon"]);
    let class = |a, b| format!("{:?}", reader.relation(a, b).unwrap().class);
    let relations: Vec<String> = [
        ("gamma", "gamma"),
        ("delta", "gamma"),
        ("epsilon", "gamma"),
        ("alpha", "beta"),
    ]
    .into_iter()
    .map(|(a, b)| class(a, b))
    .collect();
    assert_eq!(relations, RELATIONS);
}

/// The relation classes of the pairs above: a book and itself; delta is
/// gamma's first three pages (one word changed) and epsilon its last two;
/// beta is alpha with a few more words.
const RELATIONS: [&str; 4] = [
    "SamePagination",
    "ContiguousSubset",
    "ContiguousSubset",
    "Duplicate",
];

#[test]
fn the_version_5_fixture_stores_what_this_build_computes() {
    let index = Index::open_read_only(fixture().join("index")).unwrap();
    let docs: Vec<Document> = texts()
        .into_iter()
        .map(|(key, text)| Document::new(key, text.into_bytes()))
        .collect();
    assert_eq!(
        common::sequences_of(&index),
        common::reference_sequences(&docs)
    );
    let reader = index.reader().unwrap();
    for (key, text) in texts() {
        let pages = reader.pages(&key).unwrap();
        assert_eq!(pages, reader.pages_of_text(&text), "{key}");
        let paged = ["gamma", "delta", "epsilon"].contains(&key.as_str());
        assert_eq!(pages.is_empty(), !paged, "{key}");
    }
}

#[test]
fn a_copy_of_the_version_5_fixture_upgrades_to_the_current_format_and_takes_writes() {
    let dir = common::fixture_copy("v5");
    {
        // Before the upgrade, loads are refused and change nothing.
        let index = Index::open(dir.path()).unwrap();
        let refused = index.load([Ok(Document::new("x", "a few words of text"))]);
        assert!(
            matches!(refused, Err(stemmata::Error::OldFormat { found: 5, .. })),
            "{refused:?}"
        );
    }
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(index.part_options(), &stemmata::PartOptions::default());
    assert_eq!(
        (
            stats.from_version,
            stats.to_version,
            stats.catalog_converted
        ),
        (5, FORMAT_VERSION, false)
    );
    drop(index);
    let index = Index::open(dir.path()).unwrap();
    let zeta = std::fs::read(fixture().join("later/zeta.txt")).unwrap();
    common::load_docs(&index, vec![Document::new("zeta", zeta)], 10);
    let verified = index.verify().unwrap();
    assert_eq!((verified.books, verified.paged_books), (6, 4));
    let hits = hits(&index, "alpha", Mode::Approximate);
    assert_eq!(hits, [("beta".to_string(), 13)]);
}
