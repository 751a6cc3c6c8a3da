//! An index written by format version 8 (`tests/fixtures/v8`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books and its dictionary, lists the
//! dictionary and builds its lexicon in both directions with the words the
//! tokeniser makes, and finds a book bound inside the volume. A later
//! format must keep reading it or upgrade it; either way this test says so
//! before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::repr::unique_words::word_hash;
use stemmata::storage::format::{FORMAT_VERSION, MAGIC};
use stemmata::{Index, Mode, QueryOptions};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v8")
}

#[test]
fn the_version_8_fixture_opens_read_only_verifies_and_writes_nothing() {
    let dir = fixture().join("index");
    let before = common::snapshot_files(&dir);
    let index = Index::open_read_only(&dir).unwrap();
    assert_eq!(index.format_version(), 8);
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.books,
            verified.records,
            verified.segments,
            verified.dictionaries,
            verified.dictionary_bytes
        ),
        (4, 8, 1, 1, 202)
    );
    for (sub, kind) in [
        ("barrels", 1u8),
        ("segments", 2),
        ("pages", 3),
        ("dictionaries", 4),
    ] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            assert_eq!(
                (&bytes[..8], &bytes[8..12]),
                (&MAGIC[..], &[8u8, 0, kind, 0][..])
            );
        }
    }
    let dictionaries = index.dictionaries().unwrap();
    assert_eq!(dictionaries.len(), 1);
    let d = &dictionaries[0];
    assert_eq!(
        (
            d.name.as_str(),
            d.from.as_str(),
            d.to.as_str(),
            d.headwords,
            d.pairs
        ),
        ("freedict-eng-deu", "eng", "deu", 4, 9)
    );
    let seed = index.options().hash_seed;
    let h = |w: &str| word_hash(&stemmata::text::normalise(w), seed);
    let lexicon = index.lexicon("eng", "deu").unwrap().unwrap();
    let mut want = vec![h("Haus"), h("Gebäude")];
    want.sort();
    assert_eq!(lexicon.translations(h("house")), want);
    assert_eq!(lexicon.translations(h("go")), [h("gehen")]);
    let back = index.lexicon("deu", "eng").unwrap().unwrap();
    let mut want = vec![h("house"), h("maison")];
    want.sort();
    assert_eq!(back.translations(h("Haus")), want);
    assert!(index.lexicon("eng", "fra").unwrap().is_none());
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
fn a_copy_of_the_version_8_fixture_upgrades_keeping_its_files_but_segments() {
    let dir = common::fixture_copy("v8");
    let before = common::snapshot_files(dir.path());
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!((stats.from_version, stats.to_version), (8, FORMAT_VERSION));
    assert_eq!(index.format_version(), FORMAT_VERSION);
    assert!(dir.path().join("images").is_dir());
    assert!(index.image_books().unwrap().is_empty());
    assert!(index.word_images().unwrap().is_none());
    let after = common::snapshot_files(dir.path());
    // Segments are rewritten in the compact layout of format 10.
    for sub in ["barrels", "pages", "dictionaries"] {
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
    assert_eq!((verified.books, verified.dictionaries), (4, 1));
}
