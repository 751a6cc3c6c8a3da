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
