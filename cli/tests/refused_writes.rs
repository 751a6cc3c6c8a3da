//! A writer command refused for its input (a bad dictionary, an unknown
//! dictionary name, a bad page, a missing file, a bad key) checks it before
//! opening the index for writing: every byte of the index stays as it was,
//! the catalog's included. So does an upgrade with nothing to do.

mod common;

use std::path::Path;

fn fixture(dir: &Path) {
    common::copy_dir(&common::repo_root().join("tests/fixtures/v23"), dir);
    std::fs::write(dir.join("bad.index"), "x\n").unwrap();
    std::fs::write(dir.join("bad.dict.dz"), "junk").unwrap();
    std::fs::create_dir(dir.join("badpages")).unwrap();
    std::fs::write(dir.join("badpages/p.png"), "not a png").unwrap();
    std::fs::write(dir.join("badpages/p.hocr"), "<html>").unwrap();
}

#[test]
fn refused_writers_and_an_upgrade_with_nothing_to_do_leave_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let index = dir.path().join("index");
    let refused: &[&[&str]] = &[
        &["dictionary", "add", "index", "bad.index"],
        &["dictionary", "add", "index", "no-such.index"],
        &["dictionary", "remove", "index", "no-such-dictionary"],
        &["images", "add", "index", "--key", "x", "badpages"],
        &["images", "add", "index", "--key", "", "pages"],
        &[
            "images",
            "add",
            "index",
            "--key",
            "x",
            "--branching",
            "0",
            "pages",
        ],
        &["load", "index", "no-such-file.txt"],
        &["load", "index", "texts", "--metadata", "no-such.csv"],
        &["import", "index", "no-such.parquet"],
    ];
    let before = common::snapshot_files(&index);
    for args in refused {
        let output = common::run(common::cli().args(*args).current_dir(dir.path()));
        let stderr = common::stderr(&output);
        assert!(!output.status.success(), "{args:?} succeeded: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(
            common::snapshot_files(&index) == before,
            "{args:?} changed the index: {stderr}"
        );
    }
    let upgraded = common::run_ok(&["upgrade", "index"], dir.path());
    assert!(upgraded.contains("nothing to do"), "{upgraded}");
    assert!(
        common::snapshot_files(&index) == before,
        "upgrade changed the index"
    );
}
