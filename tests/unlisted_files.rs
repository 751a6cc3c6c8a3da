//! Files of the index's kinds that the catalog does not list (left by a
//! writer that stopped) are named by `verify` and removed by the next
//! writer, whatever their kind; other files are left alone.

mod common;

use std::path::{Path, PathBuf};

use stemmata::Index;

/// The current format's fixture: books, a dictionary and a book of word
/// images.
fn fixture() -> tempfile::TempDir {
    common::fixture_copy("v23")
}

const PLANTED: [&str; 7] = [
    "barrels/000077.brl",
    "dictionaries/000077.dic",
    "images/000077.wib",
    "images/000078.wiv",
    "images/000079.wis",
    "pages/000077.pgs",
    "segments/000077.seg",
];

const FOREIGN: [&str; 3] = [
    "barrels/notes.txt",
    "dictionaries/77.dic.bak",
    "images/x.wis",
];

fn plant(dir: &Path) {
    for name in PLANTED.iter().chain(&FOREIGN) {
        std::fs::write(dir.join(name), b"left behind").unwrap();
    }
}

fn unlisted(dir: &Path) -> Vec<PathBuf> {
    Index::open_read_only(dir)
        .unwrap()
        .verify()
        .unwrap()
        .unlisted_files
}

#[test]
fn verify_names_unlisted_files_of_every_kind_and_the_next_writer_removes_them() {
    let fixture = fixture();
    let dir = fixture.path().to_path_buf();
    assert!(unlisted(&dir).is_empty());
    plant(&dir);
    let expected: Vec<PathBuf> = PLANTED.iter().map(PathBuf::from).collect();
    assert_eq!(unlisted(&dir), expected);
    // A writer that changes nothing still starts by removing them.
    let index = Index::open(&dir).unwrap();
    assert_eq!(index.remove_dictionary("no-such-dictionary").unwrap(), None);
    drop(index);
    assert!(unlisted(&dir).is_empty());
    for name in PLANTED {
        assert!(!dir.join(name).exists(), "{name} is left");
    }
    for name in FOREIGN {
        assert!(dir.join(name).exists(), "{name} was removed");
    }
}

#[test]
fn an_upgrade_of_a_current_index_removes_unlisted_files_and_otherwise_writes_nothing() {
    let fixture = fixture();
    let dir = fixture.path().to_path_buf();
    let before = common::snapshot_files(&dir);
    let stats = Index::upgrade_in_place(&dir).unwrap();
    assert_eq!(stats.from_version, stats.to_version);
    assert_eq!(
        common::snapshot_files(&dir),
        before,
        "an upgrade with nothing to do wrote"
    );
    plant(&dir);
    Index::upgrade_in_place(&dir).unwrap();
    assert!(unlisted(&dir).is_empty());
}
