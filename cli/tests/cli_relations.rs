//! `--relations` on `query` and `pairs`: each hit or pair says how the books
//! relate (duplicate, contains with the container, overlap; the page
//! classes when both books have pages), in the readable output and in JSON.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn stemmata(args: &[&str], dir: &Path) -> Output {
    let output = common::run(common::cli().args(args).current_dir(dir));
    assert!(
        output.status.success(),
        "{args:?}: {}",
        common::stderr(&output)
    );
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// An index of a book, its second edition (with a preface), a part of it
/// and an unrelated book.
fn index() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let whole = common::text(0, 6_000);
    let books = vec![
        ("whole".to_string(), whole.clone()),
        (
            "edition".to_string(),
            format!("{} {whole}", common::text(9_000, 150)),
        ),
        ("part".to_string(), common::text(2_000, 1_500)),
        ("other".to_string(), common::text(20_000, 3_000)),
    ];
    common::write_txt_books(&dir.path().join("in"), &books);
    stemmata(&["load", "idx", "in", "--create", "-q"], dir.path());
    dir
}

fn relation_of<'v>(hits: &'v Value, key: &str) -> &'v Value {
    let hit = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["key"] == key)
        .unwrap_or_else(|| panic!("no hit {key} in {hits}"));
    &hit["relation"]
}

#[test]
fn query_relations_say_which_book_contains_which() {
    let dir = index();
    let out = stemmata(
        &["query", "idx", "--key", "part", "--relations", "--json"],
        dir.path(),
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    for container in ["whole", "edition"] {
        let relation = relation_of(&result["hits"], container);
        assert_eq!(relation["class"], "contains", "{relation}");
        // a is the query, b the hit: the hit contains the query.
        assert_eq!(relation["container"], "b");
        assert!(relation["confidence"].as_f64().unwrap() > 0.9);
        assert!(
            relation["signals"]["matched"]["b"]["extent"]
                .as_f64()
                .unwrap()
                < 0.3
        );
    }

    let out = stdout(&stemmata(
        &["query", "idx", "--key", "whole", "--relations"],
        dir.path(),
    ));
    let line = |key: &str| out.lines().find(|l| l.contains(key)).unwrap().to_string();
    assert!(out.lines().next().unwrap().contains("relation"), "{out}");
    assert!(line("edition").contains("duplicate 1.00"), "{out}");
    assert!(line("part").contains("contains 1.00 query ⊃ hit"), "{out}");
}

#[test]
fn query_relations_work_for_a_new_text() {
    let dir = index();
    std::fs::write(dir.path().join("new.txt"), common::text(2_500, 500)).unwrap();
    let out = stemmata(
        &["query", "idx", "--text", "new.txt", "--relations", "--json"],
        dir.path(),
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let relation = relation_of(&result["hits"], "part");
    assert_eq!(relation["class"], "contains");
    assert_eq!(relation["container"], "b");
}

#[test]
fn without_the_flag_there_is_no_relation() {
    let dir = index();
    let out = stemmata(&["query", "idx", "--key", "part", "--json"], dir.path());
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(result["hits"][0].get("relation").is_none());
    let out = stdout(&stemmata(&["pairs", "idx", "-q"], dir.path()));
    assert!(!out.contains("relation"));
}

#[test]
fn pairs_relations_in_tsv_and_json_lines() {
    let dir = index();
    let out = stdout(&stemmata(
        &["pairs", "idx", "--relations", "-q"],
        dir.path(),
    ));
    let mut lines = out.lines();
    assert_eq!(
        lines.next().unwrap(),
        "a\tb\tscore\tlcs\tcommon\ta_unique\tb_unique\trelation\tconfidence\tcontainer\ta_part\ta_words\tb_part\tb_words"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 3, "{out}");
    for row in &rows {
        let pair = [row[0], row[1]];
        let (class, container) = (row[7], row[9]);
        if pair.contains(&"part") {
            let other = if row[0] == "part" { row[1] } else { row[0] };
            assert_eq!((class, container), ("contains", other), "{out}");
        } else {
            assert_eq!((class, container), ("duplicate", "-"), "{out}");
        }
        assert!(row[8].parse::<f64>().unwrap() > 0.9);
    }

    let out = stdout(&stemmata(
        &["pairs", "idx", "--relations", "--json", "-q"],
        dir.path(),
    ));
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    for line in &lines {
        let relation = &line["relation"];
        if line["a"] == "part" || line["b"] == "part" {
            assert_eq!(relation["class"], "contains");
            let container = relation["container"].as_str().unwrap();
            assert_ne!(line[container], "part", "{line}");
        } else {
            assert_eq!(relation["class"], "duplicate");
            assert!(relation.get("container").is_none());
        }
    }
}

/// `text` cut into pages of `per_page` words, separated by form feeds.
fn paginate(text: &str, per_page: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .chunks(per_page)
        .map(|page| page.join(" "))
        .collect::<Vec<_>>()
        .join("\n\x0c")
}

#[test]
fn paged_books_get_the_page_classes() {
    let dir = tempfile::tempdir().unwrap();
    let text = common::text(0, 12_000);
    let volume: String = text
        .split_whitespace()
        .skip(3_000)
        .take(4_500)
        .collect::<Vec<_>>()
        .join(" ");
    let books = vec![
        ("book".to_string(), paginate(&text, 300)),
        ("repaginated".to_string(), paginate(&text, 230)),
        ("volume".to_string(), paginate(&volume, 300)),
    ];
    common::write_txt_books(&dir.path().join("in"), &books);
    stemmata(&["load", "idx", "in", "--create", "-q"], dir.path());
    let out = stemmata(
        &["query", "idx", "--key", "book", "--relations", "--json"],
        dir.path(),
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let relation = relation_of(&result["hits"], "repaginated");
    assert_eq!(relation["class"], "different_pagination", "{relation}");
    let relation = relation_of(&result["hits"], "volume");
    assert_eq!(relation["class"], "contiguous_subset", "{relation}");
    assert_eq!(relation["container"], "a", "{relation}");
    assert!(relation["signals"]["pages"].is_object(), "{relation}");
}
