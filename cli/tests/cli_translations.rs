//! `query --translations` and `pairs --translations`: an English book and
//! its German translation, which share no word, are found through a
//! dictionary of the index, reported with "relation": "translation" and
//! both languages; without the flag, or without the dictionary, they are
//! not; a German book that translates nothing is not.

mod common;

use serde_json::Value;
use std::path::Path;

/// English word `i` and its German translation: made-up words of letters
/// only, no Roman numeral among them.
fn english(i: u32) -> String {
    format!("q{}", common::letters(i.wrapping_mul(0x9E37_79B1) >> 10))
}

fn german(i: u32) -> String {
    format!("z{}", common::letters(i.wrapping_mul(0x85EB_CA6B) >> 10))
}

/// A text of `words` words, each made by `word`, with a few local swaps.
fn text(words: impl Iterator<Item = u32>, word: impl Fn(u32) -> String) -> String {
    let mut words: Vec<String> = words.map(word).collect();
    for i in (3..words.len()).step_by(7) {
        words.swap(i - 1, i);
    }
    words.join(" ")
}

/// The index at `dir/idx` with the three books and, if asked, the
/// dictionary.
fn index(dir: &Path, with_dictionary: bool) {
    let books = [
        ("en1", "en", text(0..600, english)),
        ("de1", "de", text(0..600, german)),
        ("de2", "de", text(1000..1600, german)),
        ("en2", "en", text(2000..2600, english)),
    ];
    write_books(&dir.join("books.jsonl"), &books);
    let dictionary =
        common::write_word_dictionary(dir, "freedict-eng-deu", 0..3000, english, german);
    run(dir, &["create", "idx"]);
    run(dir, &["load", "idx", "books.jsonl", "-q"]);
    if with_dictionary {
        run(
            dir,
            &["dictionary", "add", "idx", dictionary.to_str().unwrap()],
        );
    }
}

/// Writes `books` (key, language, text) as JSON Lines to `path`.
fn write_books(path: &Path, books: &[(&str, &str, String)]) {
    let mut jsonl = String::new();
    for (key, language, text) in books {
        jsonl.push_str(
            &serde_json::json!({"key": key, "language": language, "text": text}).to_string(),
        );
        jsonl.push('\n');
    }
    std::fs::write(path, jsonl).unwrap();
}

fn run(dir: &Path, args: &[&str]) -> String {
    common::run_ok(args, dir)
}

fn hits(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["query", "idx", "--key", "en1", "--json"];
    args.extend(extra);
    let out: Value = serde_json::from_str(&run(dir, &args)).unwrap();
    assert_eq!(out["language"], "eng");
    out["hits"].as_array().unwrap().clone()
}

#[test]
fn a_translation_is_found_through_the_dictionary_and_marked() {
    let dir = tempfile::tempdir().unwrap();
    index(dir.path(), true);
    assert!(hits(dir.path(), &[]).is_empty(), "no shared word");
    let found = hits(dir.path(), &["--translations"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["key"], "de1");
    assert_eq!(found[0]["language"], "deu");
    assert_eq!(found[0]["relation"], "translation");
    assert!(found[0]["score"].as_f64().unwrap() > 0.5);
    let text = run(
        dir.path(),
        &["query", "idx", "--key", "en1", "--translations"],
    );
    assert!(
        text.contains("de1") && text.contains("translation"),
        "{text}"
    );

    let pairs = run(
        dir.path(),
        &["pairs", "idx", "--translations", "--json", "-q"],
    );
    let pairs: Vec<Value> = pairs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    // Found from the book whose language sorts first: deu before eng.
    assert_eq!(
        (&pairs[0]["a"], &pairs[0]["b"]),
        (&"de1".into(), &"en1".into())
    );
    assert_eq!(pairs[0]["relation"], "translation");
    assert_eq!(
        (&pairs[0]["a_language"], &pairs[0]["b_language"]),
        (&"deu".into(), &"eng".into())
    );
    let tsv = run(dir.path(), &["pairs", "idx", "--translations", "-q"]);
    let header = tsv.lines().next().unwrap();
    assert!(header.ends_with("relation\tconfidence\tcontainer\ta_part\ta_words\tb_part\tb_words\ta_language\tb_language\tshape"), "{header}");
    let row = tsv.lines().nth(1).unwrap();
    assert!(row.contains("\ttranslation\t"), "{tsv}");
    // Two whole books: the shape is whole, no container.
    assert!(row.ends_with("\tdeu\teng\twhole"), "{tsv}");
    assert_eq!(pairs[0]["shape"], "whole");
    assert!(pairs[0].get("container").is_none(), "{:?}", pairs[0]);
    assert_eq!(run(dir.path(), &["pairs", "idx", "--json", "-q"]), "");
}

#[test]
fn without_a_dictionary_nothing_is_translated() {
    let dir = tempfile::tempdir().unwrap();
    index(dir.path(), false);
    assert!(hits(dir.path(), &["--translations"]).is_empty());
    let pairs = run(
        dir.path(),
        &["pairs", "idx", "--translations", "--json", "-q"],
    );
    assert_eq!(pairs, "");
}

#[test]
fn a_bad_translation_threshold_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    index(dir.path(), false);
    let output = common::run(
        common::cli()
            .args([
                "query",
                "idx",
                "--key",
                "en1",
                "--translations",
                "--translation-min-score",
                "2",
            ])
            .current_dir(dir.path()),
    );
    assert!(!output.status.success());
    assert!(common::stderr(&output).contains("--translation-min-score 2"));
}

#[test]
fn a_glossary_of_the_dictionary_is_no_translation_of_anything() {
    let dir = tempfile::tempdir().unwrap();
    index(dir.path(), true);
    // The dictionary itself as a book: every entry a line, in the order
    // of its English headwords, in each language's label.
    let mut lines: Vec<String> = (0..3000)
        .map(|i| format!("{} — {}", english(i), german(i)))
        .collect();
    lines.sort();
    let mut jsonl = String::new();
    for (key, language) in [("glossary-en", "en"), ("glossary-de", "de")] {
        let book = serde_json::json!({"key": key, "language": language, "text": lines.join("\n")});
        jsonl.push_str(&format!("{book}\n"));
    }
    std::fs::write(dir.path().join("glossaries.jsonl"), jsonl).unwrap();
    run(dir.path(), &["load", "idx", "glossaries.jsonl", "-q"]);
    let pairs = run(
        dir.path(),
        &["pairs", "idx", "--translations", "--json", "-q"],
    );
    let pairs: Vec<Value> = pairs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|p: &Value| p["relation"] == "translation")
        .collect();
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    assert_eq!(
        (&pairs[0]["a"], &pairs[0]["b"]),
        (&"de1".into(), &"en1".into())
    );
}

/// An index at `dir/vol` of an English volume that binds the original of
/// the German book `de1` (English words 0..600) near its start and holds
/// the same words again, shuffled, 3,000 words later (so that none is
/// unique in the volume, only in its first passage), beside `de1`; the
/// dictionary added before the load unless `load_args` says otherwise.
fn volume_index(dir: &Path, dictionary_first: bool, load_args: &[&str]) {
    let mut shuffled: Vec<u32> = (0..600).collect();
    shuffled.sort_by_key(|&i| i.wrapping_mul(0x2545_F491) % 997);
    let volume = [
        text(0..600, english),
        text(5000..8000, english),
        text(shuffled.into_iter(), english),
    ]
    .join(" ");
    let books = [("vol", "en", volume), ("de1", "de", text(0..600, german))];
    write_books(&dir.join("vol.jsonl"), &books);
    let dictionary =
        common::write_word_dictionary(dir, "freedict-eng-deu", 0..8000, english, german);
    let add = ["dictionary", "add", "vol", dictionary.to_str().unwrap()];
    run(dir, &["create", "vol"]);
    if dictionary_first {
        run(dir, &add);
    }
    let mut load = vec!["load", "vol", "vol.jsonl", "-q"];
    load.extend(load_args);
    run(dir, &load);
    if !dictionary_first {
        let output = common::run(common::cli().args(add).current_dir(dir));
        let stderr = common::stderr(&output);
        assert!(
            stderr.contains("2 books loaded before") && stderr.contains("passages"),
            "{stderr}"
        );
    }
}

fn volume_hits(dir: &Path) -> Vec<Value> {
    let args = ["query", "vol", "--key", "de1", "--translations", "--json"];
    let out: Value = serde_json::from_str(&run(dir, &args)).unwrap();
    out["hits"].as_array().unwrap().clone()
}

#[test]
fn a_translated_work_inside_a_volume_is_found_through_the_passages() {
    let dir = tempfile::tempdir().unwrap();
    volume_index(dir.path(), true, &[]);
    let found = volume_hits(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["key"], "vol");
    assert_eq!(found[0]["relation"], "translation");
    assert_eq!(found[0]["shape"], "contained");
    assert_eq!(found[0]["container"], "b");
    // Located where the original lies: the volume's first 600 words.
    let words = &found[0]["hit_words"];
    assert!(words[0].as_u64().unwrap() < 50, "{words}");
    assert!((550..700).contains(&words[1].as_u64().unwrap()), "{words}");
}

#[test]
fn without_passages_the_work_inside_the_volume_is_missed() {
    // Its words are not unique in the volume: the parts alone miss it,
    // whether the load was told not to store passages or the dictionary
    // came after it (which `dictionary add` warns about).
    for (dictionary_first, load_args) in [(true, &["--no-passages"][..]), (false, &[])] {
        let dir = tempfile::tempdir().unwrap();
        volume_index(dir.path(), dictionary_first, load_args);
        assert!(volume_hits(dir.path()).is_empty(), "{load_args:?}");
    }
    // `--passages` stores them without a dictionary.
    let dir = tempfile::tempdir().unwrap();
    volume_index(dir.path(), false, &["--passages"]);
    assert_eq!(volume_hits(dir.path()).len(), 1);
}
