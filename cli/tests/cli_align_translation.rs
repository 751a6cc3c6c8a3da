//! `align` across languages (RTA): a text and its word-by-word translation
//! through a dictionary give word correspondences, a passage mapping that
//! finds each passage where it is, a portion map, in text and JSON; texts
//! in two languages no dictionary joins get an error that says what to do.

mod common;

use serde_json::Value;
use std::path::Path;

fn english(i: u32) -> String {
    format!("q{}", common::letters(i))
}

fn german(i: u32) -> String {
    format!("z{}", common::letters(i))
}

/// Writes `a.txt` (2,000 words over a 700-word vocabulary, a name every 30
/// words), `b.txt` (its translation with 300 words of other text inserted
/// after word 1,000) and the dictionary; returns the dictionary's path.
fn setup(dir: &Path) -> String {
    let source: Vec<u32> = (0..2_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 700)
        .collect();
    let word = |i: usize, n: u32, translate: bool| match (i % 30, translate) {
        (29, _) => format!("Kname{}", common::letters(i as u32)),
        (_, false) => english(n),
        (_, true) => german(n),
    };
    let a: Vec<String> = source
        .iter()
        .enumerate()
        .map(|(i, &n)| word(i, n, false))
        .collect();
    let mut b: Vec<String> = source
        .iter()
        .enumerate()
        .map(|(i, &n)| word(i, n, true))
        .collect();
    let other = (0..300u32).map(|i| format!("x{}", common::letters(i * 7 % 97)));
    b.splice(1_000..1_000, other);
    std::fs::write(dir.join("a.txt"), a.join(" ")).unwrap();
    std::fs::write(dir.join("b.txt"), b.join(" ")).unwrap();
    let path = common::write_word_dictionary(dir, "freedict-eng-deu", 0..700, english, german);
    path.display().to_string()
}

#[test]
fn a_translation_is_aligned_passage_by_passage() {
    let dir = tempfile::tempdir().unwrap();
    let dictionary = setup(dir.path());
    let args = [
        "align",
        "a.txt",
        "b.txt",
        "--dictionary",
        &dictionary,
        "--passages",
        "50",
    ];
    let json: Value = serde_json::from_str(&common::run_ok(
        &[&args[..], &["--json"]].concat(),
        dir.path(),
    ))
    .unwrap();
    assert_eq!(json["relation"], "translation");
    assert_eq!(json["languages"], serde_json::json!(["eng", "deu"]));
    assert_eq!(json["words_a"], 2_000);
    assert_eq!(json["words_b"], 2_300);
    assert!(
        json["matched_words"].as_u64().unwrap() > 1_900,
        "{}",
        json["matched_words"]
    );
    let passages = json["passages"].as_array().unwrap();
    assert_eq!(passages.len(), 40);
    for passage in passages {
        let a_start = passage["a_words"]["start"].as_u64().unwrap();
        let b_start = passage["b_words"]["start"].as_u64().unwrap();
        let expected = if a_start < 1_000 {
            a_start
        } else {
            a_start + 300
        };
        assert_eq!(b_start, expected, "{passage}");
        assert!(passage["confidence"].as_f64().unwrap() > 0.9, "{passage}");
    }
    let first = &json["matches"][0];
    assert_eq!(
        (first["a"].as_u64(), first["b"].as_u64()),
        (Some(0), Some(0))
    );

    let text = common::run_ok(&[&args[..], &["--map", "map.html"]].concat(), dir.path());
    assert!(text.contains("translation from eng into deu"), "{text}");
    assert!(text.contains("40 of 40 passages mapped"), "{text}");
    let row = text
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|fields| fields.first() == Some(&"1050..1100"));
    assert_eq!(row.unwrap()[1..4], ["1350..1400", "50", "1.00"]);
    assert!(text.contains("map: 2 matched regions"), "{text}");
    let html = std::fs::read_to_string(dir.path().join("map.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg"));
}

#[test]
fn word_correspondences_are_listed_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let dictionary = setup(dir.path());
    let text = common::run_ok(
        &[
            "align",
            "a.txt",
            "b.txt",
            "--dictionary",
            &dictionary,
            "--words",
        ],
        dir.path(),
    );
    let line = format!("{:>9}  {:>9}  {:<20}  {}", 0, 0, english(0), german(0));
    assert!(text.contains(&line), "{text}");
}

#[test]
fn languages_no_dictionary_joins_are_an_error_that_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let output = common::run(
        common::cli()
            .args([
                "align",
                "a.txt",
                "b.txt",
                "--language-a",
                "fi",
                "--language-b",
                "ja",
            ])
            .current_dir(dir.path()),
    );
    assert!(!output.status.success());
    let message = common::stderr(&output);
    assert!(
        message.contains("a.txt is in fin and b.txt in jpn"),
        "{message}"
    );
    assert!(message.contains("--dictionary"), "{message}");
}

#[test]
fn passages_need_two_languages() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let output = common::run(
        common::cli()
            .args([
                "align",
                "a.txt",
                "a.txt",
                "--language-a",
                "en",
                "--language-b",
                "en",
                "--passages",
                "50",
            ])
            .current_dir(dir.path()),
    );
    assert!(!output.status.success());
    let message = common::stderr(&output);
    assert!(
        message.contains("a.txt is in eng and a.txt in eng"),
        "{message}"
    );
}
