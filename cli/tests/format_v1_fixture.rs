//! An index written by format version 1, once `Index::upgrade` has
//! converted its catalog, opens, verifies and answers exact queries, with the sequences its texts give today; it is read-only:
//! writes and approximate mode, which need sketches, give `OldFormat`.

mod common;

use std::path::Path;

use stemmata::repr::{unique_words::extract, ExtractOptions};
use stemmata::storage::format::{FORMAT_VERSION, MAGIC, OLDEST_SUPPORTED_FORMAT_VERSION};
use stemmata::{Document, Error, Index, LoadOptions, Mode, PairsOptions, QueryOptions, Result};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/v1");

#[test]
fn a_version_1_index_opens_verifies_and_answers_queries() {
    const { assert!(OLDEST_SUPPORTED_FORMAT_VERSION <= 1 && 1 <= FORMAT_VERSION) };
    let barrel = std::fs::read(Path::new(FIXTURE).join("index/barrels/000001.brl")).unwrap();
    assert_eq!((&barrel[..8], &barrel[8..10]), (&MAGIC[..], &[1u8, 0][..]));

    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&Path::new(FIXTURE).join("index"), dir.path());
    // Its catalog converted to the current redb file format; it keeps its
    // format version.
    Index::upgrade(dir.path()).unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.options(), &ExtractOptions::default());
    assert_eq!(index.verify().unwrap().books, 3);

    let reader = index.reader().unwrap();
    let mut keys: Vec<&str> = reader.books().iter().map(|b| b.key.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["alpha", "beta", "gamma"]);
    for key in keys {
        let text =
            std::fs::read_to_string(Path::new(FIXTURE).join(format!("texts/{key}.txt"))).unwrap();
        let expected = extract(&text, &ExtractOptions::default()).sequence;
        assert_eq!(reader.parts(key).unwrap(), [expected], "{key}");
    }
    assert_eq!(reader.book("gamma").unwrap().pages, 2);

    let hits = reader
        .query_key("alpha", &QueryOptions::default())
        .unwrap()
        .hits;
    assert_eq!(
        hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(),
        ["beta"]
    );
}

/// A copy of the fixture's index in a new temporary directory.
fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&Path::new(FIXTURE).join("index"), dir.path());
    // Its catalog converted to the current redb file format; it keeps its
    // format version.
    Index::upgrade(dir.path()).unwrap();
    dir
}

fn assert_old_format<T>(result: Result<T>, dir: &Path, what: &str) {
    match result {
        Err(Error::OldFormat { path, found, needs }) => {
            assert_eq!((path.as_path(), found), (dir, 1), "{what}");
            assert!(!needs.is_empty(), "{what}");
        }
        Err(other) => panic!("{what}: expected OldFormat, got {other:?}"),
        Ok(_) => panic!("{what}: a format-1 index accepted it"),
    }
}

#[test]
fn loading_into_a_version_1_index_is_old_format_and_changes_nothing() {
    let dir = fixture_copy();
    let before = common::snapshot_index(dir.path());
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.format_version(), 1);
    assert_eq!(index.sketch_options(), None);
    let doc = || Document::new("delta", common::text(1_000, 300));
    assert_old_format(index.load([Ok(doc())]), dir.path(), "load");
    assert_old_format(
        index.bulk_loader(LoadOptions::default()),
        dir.path(),
        "bulk_loader",
    );
    assert_old_format(index.delete(&["alpha"]), dir.path(), "delete");
    let stats = index.stats().unwrap();
    assert_eq!(
        (stats.books, stats.segments, stats.segment_bytes),
        (3, 0, 0)
    );
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.books, verified.segments, verified.sketched_books),
        (3, 0, 0)
    );
    drop(index);
    assert!(
        common::snapshot_index(dir.path()) == before,
        "a refused write changed the index"
    );
    assert!(!dir.path().join("segments").exists());

    // The command line refuses the same way, naming the index.
    let more = tempfile::tempdir().unwrap();
    common::write_txt_books(more.path(), &[("delta".into(), common::text(1_000, 300))]);
    let output = common::run(
        common::cli()
            .arg("load")
            .arg(dir.path())
            .arg(more.path())
            .arg("-q"),
    );
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("format version 1"), "{stderr}");
    assert!(
        stderr.contains("load the collection into a new index"),
        "{stderr}"
    );
    assert!(common::snapshot_index(dir.path()) == before);
    assert_eq!(Index::open(dir.path()).unwrap().verify().unwrap().books, 3);
}

#[test]
fn approximate_mode_on_a_version_1_index_is_old_format_while_exact_mode_answers() {
    let dir = fixture_copy();
    let index = Index::open(dir.path()).unwrap();
    let reader = index.reader().unwrap();
    assert_eq!(reader.unsketched_books(), 3);
    let approximate = QueryOptions::default().mode(Mode::Approximate);
    assert_old_format(
        reader.query_key("alpha", &approximate),
        dir.path(),
        "query_key",
    );
    let text = std::fs::read(Path::new(FIXTURE).join("texts/beta.txt")).unwrap();
    assert_old_format(
        reader.query_text(&text, &approximate),
        dir.path(),
        "query_text",
    );
    let pairs = PairsOptions::default().mode(Mode::Approximate);
    assert_old_format(
        reader.pairs(&pairs).map(|all| all.stats),
        dir.path(),
        "pairs",
    );

    let exact = reader.query_key("alpha", &QueryOptions::default()).unwrap();
    let keys: Vec<&str> = exact.hits.iter().map(|h| h.key.as_str()).collect();
    assert_eq!(keys, ["beta"]);
    let by_text = reader.query_text(&text, &QueryOptions::default()).unwrap();
    assert!(by_text.hits.iter().any(|h| h.key == "beta"));
    let found = common::collect_pairs(&reader, &PairsOptions::default(), |a, b| {
        (a.key.clone(), b.key.clone())
    });
    assert_eq!(found.len(), 1);
}
