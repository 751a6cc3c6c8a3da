//! Every command whose standard output cannot be written (here `/dev/full`:
//! every write fails with "No space left on device") ends with one
//! `error: <stdout>: …` line and exit status 1, never a panic; a command
//! that changed the index says that its changes are committed.
#![cfg(target_os = "linux")]

mod common;

use std::fs::OpenOptions;
use std::path::Path;

/// The format-9 fixture (index, texts, dictionary and page), copied into `dir`.
fn fixture(dir: &Path) {
    common::copy_dir(&common::repo_root().join("tests/fixtures/v9"), dir);
}

fn with_full_stdout(args: &[&str], dir: &Path) -> std::process::Output {
    let full = OpenOptions::new().write(true).open("/dev/full").unwrap();
    common::run(
        common::cli()
            .args(args)
            .current_dir(dir)
            .stdout(full)
            .env("NO_COLOR", "1"),
    )
}

#[test]
fn every_command_reports_a_full_stdout_as_an_error_line() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let commands: &[&[&str]] = &[
        &["create", "new-index"],
        &["stats", "index"],
        &["stats", "index", "--json"],
        &["verify", "index"],
        &["query", "index", "--key", "alpha"],
        &["query", "index", "--key", "alpha", "--json"],
        &["pairs", "index"],
        &["dictionary", "list", "index"],
        &["images", "list", "index"],
        &["spot", "index", "garden"],
        &["align", "texts/alpha.txt", "texts/volume.txt"],
        &[
            "ocr-accuracy",
            "--clean",
            "texts/alpha.txt",
            "texts/alpha.txt",
        ],
        &["upgrade", "index"],
        &["load", "index", "later"],
        &["delete", "index", "alpha"],
        &["compact", "index"],
        &["dictionary", "remove", "index", "freedict-eng-deu"],
    ];
    let before = common::snapshot_files(&dir.path().join("index"));
    for args in commands {
        let output = with_full_stdout(args, dir.path());
        let stderr = common::stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        let last = stderr.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("error: <stdout>: No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("internal error"), "{args:?}: {stderr}");
        let writer = ["create", "load", "delete", "compact", "upgrade", "remove"]
            .iter()
            .any(|w| args.contains(w));
        assert_eq!(
            last.contains("changes to the index are committed"),
            writer,
            "{args:?}: {stderr}"
        );
    }
    let after = common::snapshot_files(&dir.path().join("index"));
    assert_ne!(before, after, "the writers' changes are kept");
    let stats = common::run_ok(&["stats", "index", "--json"], dir.path());
    assert!(stats.contains("\"books\":4"), "{stats}");
}
