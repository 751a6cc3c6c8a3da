//! Creating an index is atomic: its catalog is written under another name
//! and renamed into place once complete, so a creation stopped at any point
//! leaves either no index or a whole one. A directory holding what an
//! interrupted creation leaves is named as such by every command, and
//! creating the index again finishes the job. `create` refuses a directory
//! that holds anything else.

mod common;

use std::path::Path;

use stemmata::{Document, Error, Index};

/// What a creation stopped before its rename leaves in `dir`: the four
/// empty subdirectories and a partly written catalog.
fn interrupted_creation(dir: &Path) {
    for sub in ["barrels", "segments", "pages", "dictionaries"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("catalog.redb.new"), [0u8; 1000]).unwrap();
}

#[test]
fn an_interrupted_creation_is_named_and_creating_again_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    interrupted_creation(dir.path());
    for result in [Index::open(dir.path()), Index::open_read_only(dir.path())] {
        match result {
            Err(Error::IncompleteIndex(path)) => assert_eq!(path, dir.path()),
            other => panic!("expected IncompleteIndex, got {:?}", other.err()),
        }
    }
    let index = Index::create(dir.path()).unwrap();
    index
        .load([Ok(Document::new("a", common::text(0, 300)))])
        .unwrap();
    assert_eq!(index.verify().unwrap().books, 1);
    assert!(!dir.path().join("catalog.redb.new").exists());

    // Only the subdirectories, without the catalog: the same.
    let dir = tempfile::tempdir().unwrap();
    interrupted_creation(dir.path());
    std::fs::remove_file(dir.path().join("catalog.redb.new")).unwrap();
    assert!(matches!(
        Index::open(dir.path()),
        Err(Error::IncompleteIndex(_))
    ));
    Index::create(dir.path()).unwrap();
}

#[test]
fn the_command_line_says_to_create_again_and_load_create_does() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    interrupted_creation(&index);
    let texts = dir.path().join("texts");
    common::write_txt_books(&texts, &[("a".into(), common::text(0, 300))]);
    for args in [vec!["stats"], vec!["query", "--key", "a"]] {
        let output = common::run(common::cli().arg(args[0]).arg(&index).args(&args[1..]));
        let stderr = common::stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        assert!(stderr.contains("--create"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let output = common::run(common::cli().arg("load").arg(&index).arg(&texts).arg("-q"));
    assert!(!output.status.success());
    let output = common::run(
        common::cli()
            .arg("load")
            .arg(&index)
            .arg(&texts)
            .args(["-q", "--create"]),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    let output = common::run(common::cli().arg("verify").arg(&index));
    assert!(output.status.success(), "{}", common::stderr(&output));
}

#[test]
fn create_refuses_a_directory_that_holds_other_files_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "my notes").unwrap();
    let before = common::snapshot_files(dir.path());
    match Index::create(dir.path()) {
        Err(Error::InvalidArgument(message)) => {
            assert!(message.contains("not empty"), "{message}")
        }
        other => panic!("expected InvalidArgument, got {:?}", other.err()),
    }
    assert!(common::snapshot_files(dir.path()) == before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    // An index is AlreadyExists; an empty directory, or a new one, is fine.
    let dir = tempfile::tempdir().unwrap();
    Index::create(dir.path()).unwrap();
    assert!(matches!(
        Index::create(dir.path()),
        Err(Error::AlreadyExists(_))
    ));
    let other = tempfile::tempdir().unwrap();
    Index::create(other.path().join("new/deeper")).unwrap();
}
