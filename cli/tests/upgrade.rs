//! `Index::upgrade` (and `stemmata upgrade`) brings an index written by an
//! older build up to date in place, through a converted copy of its catalog
//! renamed over the catalog at the end: stopped before that rename, it
//! leaves the old index as it was; run on a current index, it writes
//! nothing; formats 1 and 2 keep their format and stay read-only. The
//! answers of upgraded fixtures are checked in `format_vN_fixture.rs`.

mod common;

use stemmata::storage::format::FORMAT_VERSION;
use stemmata::{Document, Error, Index};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");

#[test]
fn an_upgrade_stopped_before_its_rename_leaves_the_old_index_and_runs_again() {
    // What an upgrade leaves when stopped after writing its page file and
    // part of its catalog copy: both unpublished.
    let dir = common::fixture_copy("v3");
    std::fs::create_dir_all(dir.path().join("pages")).unwrap();
    std::fs::write(dir.path().join("pages/000001.pgs"), [7u8; 300]).unwrap();
    std::fs::write(dir.path().join("catalog.redb.upgrade"), [9u8; 4096]).unwrap();
    let catalog = std::fs::read(dir.path().join("catalog.redb")).unwrap();
    assert!(matches!(
        Index::open_read_only(dir.path()),
        Err(Error::UpgradeRequired(_))
    ));
    assert_eq!(
        std::fs::read(dir.path().join("catalog.redb")).unwrap(),
        catalog
    );

    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!((stats.from_version, stats.to_version), (3, FORMAT_VERSION));
    let verified = index.verify().unwrap();
    assert_eq!((verified.books, verified.paged_books), (4, 2));
    assert!(!dir.path().join("catalog.redb.upgrade").exists());
}

#[test]
fn a_current_index_is_left_as_it_is() {
    let dir = common::upgraded_fixture("v3");
    let before = common::snapshot_index(dir.path());
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(
        (
            stats.from_version,
            stats.to_version,
            stats.catalog_converted
        ),
        (FORMAT_VERSION, FORMAT_VERSION, false)
    );
    drop(index);
    assert!(
        common::snapshot_index(dir.path()) == before,
        "a second upgrade changed the index"
    );
}

#[test]
fn formats_1_and_2_keep_their_format_and_stay_read_only() {
    for (version, found) in [("v1", 1), ("v2", 2)] {
        let dir = common::fixture_copy(version);
        let (index, stats) = Index::upgrade(dir.path()).unwrap();
        assert_eq!(
            (
                stats.from_version,
                stats.to_version,
                stats.catalog_converted
            ),
            (found, found, true)
        );
        assert_eq!(index.verify().unwrap().books, 3);
        drop(index);
        let doc = Document::new("delta", common::text(1_000, 300));
        common::assert_writes_refused(dir.path(), found, doc, "alpha");
    }
}

#[test]
fn the_command_line_names_the_upgrade_and_runs_it() {
    let dir = common::fixture_copy("v3");
    let index = dir.path();
    for args in [
        vec!["load".to_string(), format!("{FIXTURES}/v3/texts/alpha.txt")],
        vec!["stats".to_string()],
        vec!["query".to_string(), "--key".into(), "alpha".into()],
    ] {
        let output = common::run(common::cli().arg(&args[0]).arg(index).args(&args[1..]));
        assert!(!output.status.success(), "{args:?}");
        let stderr = common::stderr(&output);
        assert!(stderr.contains("stemmata upgrade"), "{args:?}: {stderr}");
    }

    let output = common::run(common::cli().arg("upgrade").arg(index));
    assert!(output.status.success(), "{}", common::stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("from format 3 to {FORMAT_VERSION}")),
        "{stdout}"
    );
    let output = common::run(common::cli().arg("verify").arg(index));
    assert!(output.status.success(), "{}", common::stderr(&output));

    let help = common::run(common::cli().args(["upgrade", "--help"]));
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("format-3 index") || help.contains("format 3"),
        "{help}"
    );
    assert!(help.contains("format-2"), "{help}");
}

#[test]
fn a_format_7_index_is_told_to_upgrade_and_upgrades_in_place() {
    let dir = common::fixture_copy("v7");
    let index = dir.path();
    let text = format!("{FIXTURES}/v7/texts/alpha.txt");
    let output = common::run(common::cli().arg("load").arg(index).arg(&text));
    assert!(!output.status.success());
    let stderr = common::stderr(&output);
    assert!(
        stderr.contains(&format!("needs an upgrade to format {FORMAT_VERSION}"))
            && stderr.contains("stemmata upgrade"),
        "{stderr}"
    );

    let output = common::run(common::cli().arg("upgrade").arg(index));
    assert!(output.status.success(), "{}", common::stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!(
            "upgraded from format 7 to {FORMAT_VERSION} in place"
        )),
        "{stdout}"
    );
    let output = common::run(common::cli().arg("upgrade").arg(index));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("already format"), "{stdout}");
    let output = common::run(common::cli().arg("verify").arg(index));
    assert!(output.status.success(), "{}", common::stderr(&output));
}

#[test]
fn an_upgrade_is_refused_while_an_older_build_has_the_index_open() {
    let dir = common::fixture_copy("v4");
    // An older build holding the index open has redb 2's flock on it.
    let older = redb2::Database::open(dir.path().join("catalog.redb")).unwrap();
    let after_open = common::snapshot_files(dir.path());
    match Index::upgrade(dir.path()) {
        Err(Error::Locked(path)) => assert_eq!(path, dir.path()),
        other => panic!("expected Locked, got {:?}", other.err()),
    }
    assert!(common::snapshot_files(dir.path()) == after_open);
    drop(older);
    let (_, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(stats.from_version, 4);
}
