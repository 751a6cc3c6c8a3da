//! `Index::upgrade` (and `stemmata upgrade`) turns a format-3 index into a
//! format-4 one in place: page signatures move from catalog values into
//! page files, and books, queries, page signatures and relations stay as
//! they were; afterwards the index verifies and takes loads and deletes.
//! Stopped before its catalog transaction, it leaves a valid format-3
//! index; format-1 and format-2 indexes are refused untouched.

mod common;

use std::path::Path;

use stemmata::repr::MinHashSig;
use stemmata::{Document, Error, Index, QueryOptions};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn fixture_copy(version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&Path::new(FIXTURES).join(version).join("index"), dir.path());
    dir
}

/// What a reader answers: page signatures, relations and a query.
#[derive(Debug, PartialEq)]
struct Answers {
    pages: Vec<Vec<MinHashSig>>,
    /// Debug forms, so that a NaN signal compares equal to itself.
    relations: Vec<String>,
    hits: Vec<String>,
}

fn answers(index: &Index) -> Answers {
    let reader = index.reader().unwrap();
    let keys = ["alpha", "beta", "gamma", "delta"];
    let pages = keys.iter().map(|k| reader.pages(k).unwrap()).collect();
    let pairs = [
        ("gamma", "gamma"),
        ("delta", "gamma"),
        ("gamma", "delta"),
        ("alpha", "beta"),
    ];
    let relations = pairs
        .iter()
        .map(|(a, b)| format!("{:?}", reader.relation(a, b).unwrap()))
        .collect();
    let hits = reader
        .query_key("alpha", &QueryOptions::default())
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.key)
        .collect();
    Answers {
        pages,
        relations,
        hits,
    }
}

#[test]
fn a_version_3_index_upgrades_keeping_its_answers_and_then_takes_writes() {
    let dir = fixture_copy("v3");
    let before = answers(&Index::open(dir.path()).unwrap());
    assert_eq!(
        before.pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [0, 0, 4, 3]
    );

    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!((stats.from_version, stats.to_version), (3, 4));
    // Two records: 18 bytes plus 136 per page, after the 16-byte header.
    let page_bytes = 16 + (18 + 136 * 4) + (18 + 136 * 3);
    assert_eq!(
        (stats.paged_books, stats.page_files, stats.page_file_bytes),
        (2, 1, page_bytes)
    );
    assert!(stats.catalog_bytes_after <= stats.catalog_bytes_before);
    assert_eq!(index.format_version(), 4);
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.books, verified.paged_books, verified.page_files),
        (4, 2, 1)
    );
    assert_eq!(verified.page_file_bytes, page_bytes);
    assert_eq!(answers(&index), before);
    drop(index);
    // Reopened, it is still format 4 with the same answers.
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.format_version(), 4);
    assert_eq!(answers(&index), before);

    let text = std::fs::read_to_string(Path::new(FIXTURES).join("v3/texts/gamma.txt")).unwrap();
    let stats = index.load([Ok(Document::new("epsilon", text))]).unwrap();
    assert_eq!(stats.books, 1);
    assert_eq!(index.delete(&["beta"]).unwrap(), 1);
    let verified = index.verify().unwrap();
    assert_eq!((verified.books, verified.paged_books), (4, 3));
    let reader = index.reader().unwrap();
    assert_eq!(reader.pages("epsilon").unwrap(), before.pages[2]);
    let relation = reader.relation("epsilon", "gamma").unwrap();
    assert_eq!(format!("{relation:?}"), before.relations[0]);
}

#[test]
fn an_upgrade_stopped_before_its_catalog_transaction_leaves_a_version_3_index() {
    // The page file a finished upgrade wrote, put beside an untouched copy:
    // what an upgrade leaves when it stops after syncing its page files.
    let upgraded = fixture_copy("v3");
    Index::upgrade(upgraded.path()).unwrap();
    let written = std::fs::read(upgraded.path().join("pages/000001.pgs")).unwrap();
    let dir = fixture_copy("v3");
    let before = answers(&Index::open(dir.path()).unwrap());
    std::fs::create_dir_all(dir.path().join("pages")).unwrap();
    std::fs::write(
        dir.path().join("pages/000001.pgs"),
        [&written[..], &[7u8; 300]].concat(),
    )
    .unwrap();

    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.format_version(), 3);
    let verified = index.verify().unwrap();
    assert_eq!((verified.paged_books, verified.page_files), (2, 0));
    assert_eq!(answers(&index), before);
    assert!(matches!(
        index.load([Ok(Document::new("x", "some words"))]),
        Err(Error::OldFormat { found: 3, .. })
    ));
    drop(index);

    // Run again, the upgrade overwrites the file it finds.
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    let len = std::fs::metadata(dir.path().join("pages/000001.pgs"))
        .unwrap()
        .len();
    assert_eq!(
        (stats.page_file_bytes, len),
        (written.len() as u64, written.len() as u64)
    );
    index.verify().unwrap();
    assert_eq!(answers(&index), before);
}

#[test]
fn only_version_3_upgrades_and_a_version_4_index_is_left_as_it_is() {
    let dir = fixture_copy("v2");
    let before = common::snapshot_files(dir.path());
    match Index::upgrade(dir.path()) {
        Err(Error::OldFormat { path, found, needs }) => {
            assert_eq!((path.as_path(), found), (dir.path(), 2));
            assert!(needs.contains("only a format-3 index"), "{needs}");
        }
        other => panic!("expected OldFormat, got {:?}", other.err()),
    }
    assert!(
        common::snapshot_files(dir.path()) == before,
        "a refused upgrade wrote"
    );

    let dir = fixture_copy("v3");
    Index::upgrade(dir.path()).unwrap();
    let before = common::snapshot_files(dir.path());
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!((stats.from_version, stats.paged_books), (4, 0));
    drop(index);
    assert!(
        common::snapshot_files(dir.path()) == before,
        "a second upgrade wrote"
    );
}

#[test]
fn the_command_line_names_the_upgrade_and_runs_it() {
    let dir = fixture_copy("v3");
    let index = dir.path();
    let output = common::run(
        common::cli()
            .args(["load"])
            .arg(index)
            .arg(Path::new(FIXTURES).join("v3/texts/alpha.txt")),
    );
    assert!(!output.status.success());
    assert!(
        common::stderr(&output).contains("stemmata upgrade"),
        "{}",
        common::stderr(&output)
    );

    let output = common::run(common::cli().arg("upgrade").arg(index));
    assert!(output.status.success(), "{}", common::stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("from format 3 to 4"), "{stdout}");
    let output = common::run(common::cli().arg("verify").arg(index));
    assert!(output.status.success(), "{}", common::stderr(&output));

    let help = common::run(common::cli().args(["upgrade", "--help"]));
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("format-3 index") && help.contains("format-2"),
        "{help}"
    );
}
