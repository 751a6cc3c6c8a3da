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
    for command in ["stats", "verify", "pairs", "compact"] {
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

#[test]
fn query_without_a_book_names_both_key_and_text() {
    let dir = one_book_index();
    let output = stemmata(&["query", "idx"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    let stderr = common::stderr(&output);
    assert!(
        stderr.contains("--key") && stderr.contains("--text"),
        "{stderr}"
    );
    let both = stemmata(&["query", "idx", "--key", "one", "--text", "x"], dir.path());
    assert_eq!(both.status.code(), Some(2), "{}", common::stderr(&both));
}

#[test]
fn query_refuses_a_text_align_refuses() {
    let dir = one_book_index();
    std::fs::write(dir.path().join("empty.txt"), "").unwrap();
    std::fs::write(dir.path().join("marks.txt"), "... !!! ---\n").unwrap();
    for (file, reason) in [
        ("empty.txt", "empty text"),
        ("marks.txt", "no words after normalisation"),
    ] {
        let query = stemmata(&["query", "idx", "--text", file], dir.path());
        let align = stemmata(&["align", file, "in/one.txt"], dir.path());
        for (what, output) in [("query", &query), ("align", &align)] {
            assert_eq!(output.status.code(), Some(1), "{what} {file}");
            let stderr = common::stderr(output);
            assert!(
                stderr.contains(&format!("{file}: {reason}")),
                "{what} {file}: {stderr}"
            );
        }
        assert!(stdout(&query).is_empty(), "{}", stdout(&query));
    }
}

#[test]
fn delete_names_every_key_not_found() {
    let dir = one_book_index();
    let output = stemmata(
        &["delete", "idx", "nosuch", "one", "other", "nosuch"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    assert_eq!(
        stdout(&output).trim(),
        r#"deleted 1 of 4 books; not found: "nosuch", "other""#
    );
    let output = stemmata(&["delete", "idx", "one", "--json"], dir.path());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["not_found"], serde_json::json!(["one"]));
}

#[test]
fn a_min_score_outside_the_score_range_is_refused() {
    let dir = one_book_index();
    for (score, min) in [("its", "2"), ("coverage", "-0.5"), ("cs", "1.01")] {
        for command in [
            &["query", "idx", "--key", "one"][..],
            &["pairs", "idx", "-q"][..],
        ] {
            let mut args = command.to_vec();
            args.extend(["--score", score, "--min-score", min]);
            let output = stemmata(&args, dir.path());
            assert_eq!(output.status.code(), Some(1), "{args:?}");
            let stderr = common::stderr(&output);
            assert!(
                stderr.contains(&format!("{score} scores range from 0 to 1")),
                "{args:?}: {stderr}"
            );
            assert!(stdout(&output).is_empty(), "{args:?}");
        }
    }
    let output = stemmata(
        &[
            "query",
            "idx",
            "--key",
            "one",
            "--score",
            "its",
            "--min-score",
            "1",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
}

/// A labelled corpus of four books: `a` and `b` labelled editions but
/// unrelated (a false negative), `c` and `d` the same text unlisted (a
/// false positive).
fn tiny_corpus(dir: &Path) {
    let texts = [
        ("a", common::text(0, 600)),
        ("b", common::text(10_000, 600)),
        ("c", common::text(20_000, 600)),
        ("d", common::text(20_000, 600)),
    ];
    let books: Vec<(String, String)> = texts
        .iter()
        .map(|(id, text)| (id.to_string(), text.clone()))
        .collect();
    common::write_txt_books(&dir.join("texts"), &books);
    let mut tsv = "id\tgutenberg_id\ttitle\tauthor\tlanguage\twords\tsource\n".to_string();
    for (id, _) in &texts {
        tsv.push_str(&format!(
            "{id}\t0\tTitle {id}\tAuthor\ten\t600\tgenerated\n"
        ));
    }
    std::fs::write(dir.join("books.tsv"), tsv).unwrap();
    std::fs::write(
        dir.join("pairs.tsv"),
        "a\tb\trelation\tnote\na\tb\tedition\tlabelled wrong on purpose\n",
    )
    .unwrap();
}

#[test]
fn eval_lists_errors_one_readable_line_each() {
    let dir = tempfile::tempdir().unwrap();
    tiny_corpus(&dir.path().join("corpus"));
    let output = stemmata(
        &["eval", "--corpus", "corpus", "--list-errors", "-q"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    let text = stdout(&output);
    assert!(
        !text.contains("Overlap") && !text.contains("Some("),
        "{text}"
    );
    assert!(
        text.lines().any(
            |l| l.starts_with("false positive: c – d, labelled unlisted, order ")
                && l.contains("; LCS 600 of 600 common unique words")
        ),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l
                == "false negative: a – b, labelled edition, order 0.0000; no common unique word"),
        "{text}"
    );
    let output = stemmata(
        &["eval", "--corpus", "corpus", "--list-errors", "--json"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(&output)));
    let errors = json["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors
        .iter()
        .any(|e| e["kind"] == "false negative" && e["a"] == "a" && e["relation"] == "edition"));
}
