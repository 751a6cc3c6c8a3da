//! The command line's messages: counts in the right number, rates, and
//! errors that say what is wrong and what to do.

mod common;

use std::path::Path;
use std::process::Output;

fn stemmata(args: &[&str], dir: &Path) -> Output {
    common::run(common::cli().args(args).current_dir(dir))
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A directory with an index `idx` holding the one book `one`.
fn one_book_index() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::write_txt_books(
        &dir.path().join("in"),
        &[("one".to_string(), common::text(0, 400))],
    );
    let output = stemmata(&["load", "--create", "-q", "idx", "in"], dir.path());
    assert!(output.status.success(), "{}", common::stderr(&output));
    assert!(
        stdout(&output).starts_with("loaded 1 book ("),
        "{}",
        stdout(&output)
    );
    dir
}

#[test]
fn one_of_a_thing_is_singular_in_load_stats_and_verify() {
    let dir = one_book_index();
    let verify = stdout(&stemmata(&["verify", "idx"], dir.path()));
    assert!(verify.contains("; 1 book, "), "{verify}");
    assert!(
        verify.contains(" 1 record, ") && verify.contains(" 1 segment ("),
        "{verify}"
    );
    assert!(
        !verify.contains(" 1 books") && !verify.contains(" 1 records"),
        "{verify}"
    );
    let stats = stdout(&stemmata(&["stats", "idx"], dir.path()));
    assert!(!stats.contains(" 1 bytes"), "{stats}");
}

#[test]
fn a_missing_index_directory_is_said_to_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["stats", "verify", "pairs"] {
        let output = stemmata(&[command, "nonexistent"], dir.path());
        assert_eq!(output.status.code(), Some(1), "{command}");
        let stderr = common::stderr(&output);
        assert!(
            stderr.contains("nonexistent: the directory does not exist"),
            "{command}: {stderr}"
        );
    }
}

#[test]
fn load_without_an_index_tells_about_create() {
    let dir = tempfile::tempdir().unwrap();
    common::write_txt_books(
        &dir.path().join("in"),
        &[("one".to_string(), common::text(0, 400))],
    );
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    for (index, what) in [
        ("empty", "not a stemmata index"),
        ("missing", "the directory does not exist"),
    ] {
        let output = stemmata(&["load", index, "in"], dir.path());
        assert_eq!(output.status.code(), Some(1), "{index}");
        let stderr = common::stderr(&output);
        assert!(
            stderr.contains(what) && stderr.contains("`stemmata load --create`"),
            "{index}: {stderr}"
        );
    }
    assert!(!dir.path().join("missing").exists());
}
