//! An index written by format version 7 (`tests/fixtures/v7`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies, keeps its part options, skips the book
//! it deleted (held by a segment, listed as dead), stores its volume as the
//! parts this build computes from the same text, and finds a book bound
//! inside the volume with where it lies. A later format must keep reading
//! it or upgrade it; either way this test says so before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::storage::format::{FORMAT_VERSION, MAGIC};
use stemmata::{Document, Index, Mode, QueryOptions, WordRange};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v7")
}

fn documents() -> Vec<Document> {
    ["alpha", "beta", "gamma", "volume"]
        .into_iter()
        .map(|key| {
            let text = std::fs::read(fixture().join(format!("texts/{key}.txt"))).unwrap();
            Document::new(key, text)
        })
        .collect()
}

#[test]
fn the_version_7_fixture_opens_read_only_verifies_and_writes_nothing() {
    let dir = fixture().join("index");
    let before = common::snapshot_files(&dir);
    let index = Index::open_read_only(&dir).unwrap();
    assert_eq!(index.format_version(), 7);
    let parts = index.part_options();
    assert_eq!((parts.volume_words, parts.part_words), (64, 32));
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.books,
            verified.records,
            verified.segments,
            verified.dead_sketches
        ),
        (4, 8, 2, 1)
    );
    for (sub, kind) in [("barrels", 1u8), ("segments", 2), ("pages", 3)] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            assert_eq!(
                (&bytes[..8], &bytes[8..12]),
                (&MAGIC[..], &[7u8, 0, kind, 0][..])
            );
        }
    }
    let reader = index.reader().unwrap();
    let keys: Vec<&str> = reader.books().iter().map(|b| b.key.as_str()).collect();
    assert_eq!(keys, ["alpha", "beta", "gamma", "volume"]);
    assert!(reader.book("delta").is_err());
    drop(reader);
    drop(index);
    assert!(
        common::snapshot_files(&dir) == before,
        "a read-only open wrote"
    );
}

#[test]
fn the_version_7_fixture_stores_the_parts_this_build_computes() {
    let index = Index::open_read_only(fixture().join("index")).unwrap();
    let reader = index.reader().unwrap();
    assert_eq!(reader.book("volume").unwrap().parts, 4);
    let stored = common::sequences_of(&index);
    let dir = tempfile::tempdir().unwrap();
    let fresh = Index::builder().parts(64, 32).create(dir.path()).unwrap();
    common::load_docs(&fresh, documents(), 10);
    assert_eq!(stored, common::sequences_of(&fresh));
    for key in ["alpha", "beta", "gamma", "volume"] {
        let hashes = reader.hashes(key).unwrap();
        let parts: Vec<Vec<u32>> = reader
            .parts(key)
            .unwrap()
            .into_iter()
            .map(|p| p.hashes)
            .collect();
        assert_eq!(hashes, parts, "{key}: segment and barrels agree");
    }
}

#[test]
fn the_version_7_fixture_finds_alpha_inside_the_volume() {
    let index = Index::open_read_only(fixture().join("index")).unwrap();
    let reader = index.reader().unwrap();
    for mode in [Mode::Exact, Mode::Approximate] {
        let hits = reader
            .query_key("alpha", &QueryOptions::default().mode(mode))
            .unwrap()
            .hits;
        assert!(hits.iter().all(|h| h.key != "delta"), "{mode:?}");
        let volume = hits.iter().find(|h| h.key == "volume").unwrap();
        assert_eq!(
            volume.hit_words,
            WordRange { start: 27, end: 40 },
            "{mode:?}"
        );
        assert_eq!(volume.overlap.lcs, 11, "{mode:?}");
    }
}

#[test]
fn a_copy_of_the_version_7_fixture_upgrades_to_the_current_format_keeping_its_files_but_segments() {
    let dir = common::fixture_copy("v7");
    let before = common::snapshot_files(dir.path());
    assert!(Index::open(dir.path())
        .unwrap()
        .add_dictionary(Path::new("no-such.index"))
        .is_err());
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!((stats.from_version, stats.to_version), (7, FORMAT_VERSION));
    assert_eq!(index.format_version(), FORMAT_VERSION);
    assert!(dir.path().join("dictionaries").is_dir());
    assert!(dir.path().join("images").is_dir());
    assert!(index.image_books().unwrap().is_empty());
    assert!(index.dictionaries().unwrap().is_empty());
    let after = common::snapshot_files(dir.path());
    // Segments are rewritten in the compact layout of format 10, as one.
    for sub in ["barrels", "pages"] {
        let pick = |files: &std::collections::BTreeMap<PathBuf, Vec<u8>>| {
            files
                .iter()
                .filter(|(p, _)| p.strip_prefix(dir.path()).unwrap().starts_with(sub))
                .map(|(p, b)| (p.clone(), b.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(pick(&before), pick(&after), "{sub} changed");
    }
    let verified = index.verify().unwrap();
    assert_eq!((verified.books, verified.segments), (4, 1));
    common::load_docs(&index, documents().into_iter().take(1).collect(), 10);
}
