//! An index written by format version 6 (`tests/fixtures/v6`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies, keeps its part options, stores its
//! volume as the parts this build computes from the same text, and finds
//! a book bound inside the volume with where it lies. A later format must
//! keep reading it or upgrade it; either way this test says so before a
//! release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::storage::format::{FORMAT_VERSION, MAGIC};
use stemmata::{Document, Index, Mode, QueryOptions, WordRange};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v6")
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
fn the_version_6_fixture_opens_read_only_verifies_and_writes_nothing() {
    let dir = fixture().join("index");
    let before = common::snapshot_files(&dir);
    let index = Index::open_read_only(&dir).unwrap();
    assert_eq!(index.format_version(), 6);
    let parts = index.part_options();
    assert_eq!((parts.volume_words, parts.part_words), (64, 32));
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.books, verified.records, verified.paged_books),
        (4, 7, 1)
    );
    for (sub, kind) in [("barrels", 1u8), ("segments", 2), ("pages", 3)] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            assert_eq!(
                (&bytes[..8], &bytes[8..12]),
                (&MAGIC[..], &[6u8, 0, kind, 0][..])
            );
        }
    }
    drop(index);
    assert!(
        common::snapshot_files(&dir) == before,
        "a read-only open wrote"
    );
}

#[test]
fn the_version_6_fixture_stores_the_parts_this_build_computes() {
    let index = Index::open_read_only(fixture().join("index")).unwrap();
    let reader = index.reader().unwrap();
    assert_eq!(reader.book("volume").unwrap().parts, 4);
    let stored = common::sequences_of(&index);
    let dir = tempfile::tempdir().unwrap();
    let fresh = Index::builder().parts(64, 32).create(dir.path()).unwrap();
    common::load_docs(&fresh, documents(), 10);
    assert_eq!(stored, common::sequences_of(&fresh));
    let positions: Vec<(u32, u32)> = reader
        .parts("volume")
        .unwrap()
        .iter()
        .map(|p| (p.positions[0], *p.positions.last().unwrap()))
        .collect();
    assert!(
        positions[3].1 == 68 && positions[1].0 >= 16,
        "{positions:?}"
    );
}

#[test]
fn the_version_6_fixture_finds_alpha_inside_the_volume() {
    let index = Index::open_read_only(fixture().join("index")).unwrap();
    let reader = index.reader().unwrap();
    for mode in [Mode::Exact, Mode::Approximate] {
        let hits = reader
            .query_key("alpha", &QueryOptions::default().mode(mode))
            .unwrap()
            .hits;
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
fn a_copy_of_the_version_6_fixture_upgrades_to_the_current_format_with_the_same_answers() {
    type Hits = Vec<(String, u32, WordRange)>;
    let answers = |index: &Index| -> Vec<(Mode, Hits)> {
        let reader = index.reader().unwrap();
        [Mode::Exact, Mode::Approximate]
            .into_iter()
            .map(|mode| {
                let hits = reader
                    .query_key("alpha", &QueryOptions::default().mode(mode))
                    .unwrap()
                    .hits;
                let hits = hits
                    .into_iter()
                    .map(|h| (h.key, h.overlap.lcs, h.hit_words))
                    .collect();
                (mode, hits)
            })
            .collect()
    };
    let dir = common::fixture_copy("v6");
    let before = answers(&Index::open_read_only(dir.path()).unwrap());
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!((stats.from_version, stats.to_version), (6, FORMAT_VERSION));
    // The index's own part options are kept, not reset to the defaults.
    let parts = index.part_options();
    assert_eq!((parts.volume_words, parts.part_words), (64, 32));
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.books, verified.segments, verified.paged_books),
        (4, 1, 1)
    );
    assert_eq!(answers(&index), before);
    let segment = std::fs::read_dir(dir.path().join("segments"))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .next()
        .unwrap();
    assert_eq!(&segment[8..12], &[FORMAT_VERSION as u8, 0, 2, 0][..]);
    assert!(dir.path().join("dictionaries").is_dir());
    // It takes loads, and deletes list the dead.
    common::load_docs(&index, documents().into_iter().take(1).collect(), 10);
    assert_eq!(index.verify().unwrap().books, 4);
}
