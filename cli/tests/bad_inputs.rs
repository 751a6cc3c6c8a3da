//! Bad documents are skipped, named and counted; the rest of the load goes
//! on, through the command line and through the library.

mod common;

use std::path::Path;

use stemmata::load::sources;
use stemmata::{Document, Index};

/// A directory of two good books and the usual bad files.
fn mixed_directory(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("good-one.txt"), common::text(0, 500)).unwrap();
    std::fs::write(dir.join("good-two.txt"), common::text(250, 500)).unwrap();
    std::fs::write(dir.join("empty.txt"), b"").unwrap();
    let mut binary = b"\x7fELF\x02\x01\x01\x00".to_vec();
    binary.extend((0..4096u32).map(|i| (i * 7 % 256) as u8));
    std::fs::write(dir.join("binary.txt"), binary).unwrap();
    // One 10 MB "word": longer than any word, so the file has no words.
    std::fs::write(dir.join("one-line.txt"), vec![b'x'; 10 << 20]).unwrap();
    // Invalid UTF-8 inside real text: decoded lossily and loaded.
    let mut latin1 = common::text(5_000, 300).into_bytes();
    latin1.extend_from_slice(b" caf\xe9 na\xefve \xff\xfe ");
    latin1.extend_from_slice(common::text(6_000, 100).as_bytes());
    std::fs::write(dir.join("latin1.txt"), latin1).unwrap();
    // Not .txt: ignored.
    std::fs::write(dir.join("README.md"), "# not a book").unwrap();
}

const BAD_FILES: [&str; 3] = ["empty.txt", "binary.txt", "one-line.txt"];

fn keys(index: &Index) -> Vec<String> {
    let reader = index.reader().unwrap();
    let mut keys: Vec<String> = reader.books().iter().map(|b| b.key.clone()).collect();
    keys.sort();
    keys
}

#[test]
fn cli_load_skips_and_names_each_bad_file_and_loads_the_good_ones() {
    let input = tempfile::tempdir().unwrap();
    mixed_directory(input.path());
    let dir = tempfile::tempdir().unwrap();
    let index_dir = dir.path().join("index");
    let output = common::run(
        common::cli()
            .arg("load")
            .arg(&index_dir)
            .arg(input.path())
            .args(["--create", "--json"]),
    );
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    for name in BAD_FILES {
        let path = input.path().join(name);
        let line = stderr
            .lines()
            .find(|l| l.contains(&path.display().to_string()))
            .unwrap_or_else(|| panic!("{name} not reported: {stderr}"));
        assert!(line.starts_with("skipped "), "{line}");
    }
    assert!(stderr.contains("empty text"), "{stderr}");
    assert!(stderr.contains("binary"), "{stderr}");
    assert!(stderr.contains("no words"), "{stderr}");
    let latin1 = input.path().join("latin1.txt").display().to_string();
    assert!(
        stderr.lines().any(|l| l.starts_with("warning: ")
            && l.contains(&latin1)
            && l.contains("invalid UTF-8")
            && l.contains("windows-1252")),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 4, "{stderr}");
    let stats: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(stats["books"], 3);
    assert_eq!(stats["invalid_utf8_documents"], 1);
    assert_eq!(stats["skipped"].as_array().unwrap().len(), 3);

    let output = common::run(common::cli().arg("verify").arg(&index_dir));
    assert!(output.status.success(), "{}", common::stderr(&output));
    let index = Index::open(&index_dir).unwrap();
    assert_eq!(keys(&index), ["good-one", "good-two", "latin1"]);
    assert_eq!(index.verify().unwrap().books, 3);
    let reader = index.reader().unwrap();
    // Every non-ASCII byte is invalid UTF-8, so the file is read as
    // windows-1252: "café", "naïve" and "ÿþ" stay whole words, and the rest of
    // the book is there.
    assert_eq!(reader.book("latin1").unwrap().unique_words, 403);
    let cafe = stemmata::repr::word_hash("café", stemmata::repr::DEFAULT_HASH_SEED);
    assert!(reader.parts("latin1").unwrap()[0].hashes.contains(&cafe));
    let hits = reader
        .query_key("good-one", &stemmata::QueryOptions::default())
        .unwrap()
        .hits;
    assert_eq!(hits[0].key, "good-two");
}

#[test]
fn cli_load_with_strict_exits_2_when_anything_was_skipped() {
    let input = tempfile::tempdir().unwrap();
    mixed_directory(input.path());
    let dir = tempfile::tempdir().unwrap();
    let output = common::run(
        common::cli()
            .arg("load")
            .arg(dir.path())
            .arg(input.path())
            .args(["--create", "--strict", "-q"]),
    );
    assert_eq!(output.status.code(), Some(2), "{}", common::stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("loaded 3 books"), "{stdout}");
    assert!(stdout.contains("3 skipped"), "{stdout}");
    let output = common::run(common::cli().arg("verify").arg(dir.path()));
    assert!(output.status.success(), "{}", common::stderr(&output));

    // Only good files: --strict succeeds.
    let good = tempfile::tempdir().unwrap();
    common::write_txt_books(good.path(), &[("clean".into(), common::text(9_000, 100))]);
    let output = common::run(
        common::cli()
            .arg("load")
            .arg(dir.path())
            .arg(good.path())
            .args(["--strict", "-q"]),
    );
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    assert_eq!(keys(&Index::open(dir.path()).unwrap()).len(), 4);
}

/// A JSON Lines file whose lines 2, 4 and 6 are bad.
fn mixed_json_lines(path: &Path) {
    let good = |key: &str, from: u32| {
        serde_json::json!({"key": key, "text": common::text(from, 300)}).to_string()
    };
    let lines = [
        good("j1", 0),
        "{not json".to_string(),
        serde_json::json!({"key": "j3", "pages": [common::text(400, 100), common::text(500, 100)]})
            .to_string(),
        serde_json::json!({"key": "j4"}).to_string(),
        String::new(),
        serde_json::json!({"key": "j6", "text": "x", "colour": "red"}).to_string(),
        good("j7", 1000),
    ];
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn cli_load_names_a_bad_json_line_by_file_and_line_and_loads_the_others() {
    let input = tempfile::tempdir().unwrap();
    let path = input.path().join("books.jsonl");
    mixed_json_lines(&path);
    let dir = tempfile::tempdir().unwrap();
    let output = common::run(
        common::cli()
            .arg("load")
            .arg(dir.path())
            .arg(&path)
            .args(["--create", "-q"]),
    );
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let at = |line: u32| format!("skipped {}:{line}: ", path.display());
    for line in [2, 4, 6] {
        assert!(
            stderr.contains(&at(line)),
            "line {line} not named: {stderr}"
        );
    }
    assert!(stderr.contains("invalid JSON"), "{stderr}");
    assert!(stderr.contains("exactly one of"), "{stderr}");
    assert!(stderr.contains("colour"), "{stderr}");
    assert_eq!(stderr.lines().count(), 3, "{stderr}");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(keys(&index), ["j1", "j3", "j7"]);
    assert_eq!(index.reader().unwrap().book("j3").unwrap().pages, 2);
    index.verify().unwrap();
}

#[test]
fn library_load_skips_bad_files_and_lists_them_in_the_stats() {
    let input = tempfile::tempdir().unwrap();
    mixed_directory(input.path());
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let stats = index
        .load(sources::text_files(input.path()).unwrap())
        .unwrap();
    assert_eq!(stats.books, 3);
    assert_eq!(stats.invalid_utf8_documents, 1);
    let mut skipped: Vec<(String, String)> = stats
        .skipped
        .iter()
        .map(|s| (s.source_name.clone(), s.reason.clone()))
        .collect();
    skipped.sort();
    let name = |file: &str| input.path().join(file).display().to_string();
    assert_eq!(
        skipped.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(),
        [name("binary.txt"), name("empty.txt"), name("one-line.txt")]
    );
    assert!(skipped[0].1.contains("binary"));
    assert_eq!(skipped[1].1, "empty text");
    assert!(skipped[2].1.contains("no words"));
    assert!(
        skipped[2].1.contains("1 tokens over 64 bytes"),
        "{}",
        skipped[2].1
    );
    assert_eq!(keys(&index), ["good-one", "good-two", "latin1"]);
    assert_eq!(index.verify().unwrap().books, 3);
}

#[test]
fn library_load_skips_bad_json_lines_and_bad_documents() {
    let input = tempfile::tempdir().unwrap();
    let path = input.path().join("books.jsonl");
    mixed_json_lines(&path);
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let stats = index.load(sources::json_lines(&path).unwrap()).unwrap();
    assert_eq!(stats.books, 3);
    let mut names: Vec<String> = stats
        .skipped
        .iter()
        .map(|s| s.source_name.clone())
        .collect();
    names.sort();
    let at = |line: u32| format!("{}:{line}", path.display());
    assert_eq!(names, [at(2), at(4), at(6)]);

    // Documents handed in directly: an empty key, an empty text, binary
    // bytes and punctuation only are skipped under their source names.
    let stats = index
        .load([
            Ok(Document::new("", common::text(0, 10))),
            Ok(Document::new("blank", "")),
            Ok(Document::new("nul", b"abc\0def".to_vec())),
            Ok(Document::new("marks", "... 123 -- !! 42")),
            Ok(Document::new("fine", common::text(7_000, 50))),
        ])
        .unwrap();
    assert_eq!(stats.books, 1);
    let mut names: Vec<&str> = stats
        .skipped
        .iter()
        .map(|s| s.source_name.as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["", "blank", "marks", "nul"]);
    assert_eq!(keys(&index), ["fine", "j1", "j3", "j7"]);
    index.verify().unwrap();
}

#[test]
fn an_unreadable_input_is_skipped_as_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let missing = dir.path().join("vanished.txt");
    let stats = index
        .load([
            sources::read_text_file(&missing),
            Ok(Document::new("kept", common::text(0, 50))),
        ])
        .unwrap();
    assert_eq!(stats.books, 1);
    assert_eq!(stats.skipped.len(), 1);
    assert_eq!(stats.skipped[0].source_name, missing.display().to_string());
    // A missing input named on the command line is an error before loading.
    drop(index);
    let output = common::run(common::cli().arg("load").arg(dir.path()).arg(&missing));
    assert_eq!(output.status.code(), Some(1));
    let stderr = common::stderr(&output);
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
}

#[test]
fn documents_whose_keys_break_the_rule_are_skipped_naming_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let longest = "k".repeat(stemmata::keys::MAX_KEY_BYTES);
    let good = ["fine", "a b", "back\\slash", "café", "a\u{FFFD}", &longest];
    let huge = "k".repeat(1 << 20);
    let bad = [
        "", "a\tb", "a\nb", "a\rb", "a\0b", "a\u{7f}", "a\u{85}b", " lead", "trail ", &huge,
    ];
    let document = |i: usize, key: &str| {
        Document::new(key, common::text(1_000 * i as u32, 50)).with_source_name(format!("doc{i}"))
    };
    let documents: Vec<_> = bad
        .iter()
        .chain(&good)
        .enumerate()
        .map(|(i, key)| Ok(document(i, key)))
        // Named by its key: shown escaped and cut.
        .chain([Ok(Document::new(
            huge.clone() + "\n",
            common::text(90_000, 50),
        ))])
        .collect();
    let stats = index.load(documents).unwrap();
    assert_eq!(stats.books, good.len() as u64);
    assert_eq!(stats.skipped.len(), bad.len() + 1);
    for (i, skipped) in stats.skipped[..bad.len()].iter().enumerate() {
        assert_eq!(skipped.source_name, format!("doc{i}"));
        let reason = &skipped.reason;
        assert!(reason.starts_with("bad key "), "{reason}");
        assert!(reason.contains("1 to 1024 bytes"), "{reason}");
        assert!(reason.len() < 400, "{reason}");
    }
    let reasons: Vec<&str> = stats.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert!(
        reasons[1].contains("control character (U+0009)"),
        "{}",
        reasons[1]
    );
    assert!(reasons[7].contains("begins with white space"));
    assert!(reasons[8].contains("ends with white space"));
    assert!(reasons[9].contains("key of 1048576 bytes; at most 1024"));
    let last = stats.skipped.last().unwrap();
    assert!(
        last.source_name.len() < 120 && last.source_name.ends_with("(1048577 bytes)"),
        "{}",
        last.source_name
    );
    let mut expected: Vec<String> = good.iter().map(|k| k.to_string()).collect();
    expected.sort();
    assert_eq!(keys(&index), expected);
    index.verify().unwrap();
}

#[cfg(unix)]
#[test]
fn cli_load_skips_files_whose_names_are_not_utf8_instead_of_merging_them() {
    use std::os::unix::ffi::OsStrExt;
    let input = tempfile::tempdir().unwrap();
    let names: [&[u8]; 3] = [b"a\xff.txt", b"a\xfe.txt", "a\u{FFFD}.txt".as_bytes()];
    for (i, name) in names.iter().enumerate() {
        let path = input.path().join(std::ffi::OsStr::from_bytes(name));
        std::fs::write(path, common::text(1_000 * i as u32, 300)).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let output = common::run(
        common::cli()
            .arg("load")
            .arg(dir.path())
            .arg(input.path())
            .args(["--create", "--json"]),
    );
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let stats: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(stats["books"], 1, "{stderr}");
    assert_eq!(stats["replaced"], 0);
    assert_eq!(stats["skipped"].as_array().unwrap().len(), 2);
    let skipped: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("skipped "))
        .collect();
    assert_eq!(skipped.len(), 2, "{stderr}");
    for line in skipped {
        assert!(
            line.contains("not valid UTF-8") && line.contains("rename"),
            "{line}"
        );
        assert!(line.contains(&input.path().display().to_string()), "{line}");
    }
    assert_eq!(keys(&Index::open(dir.path()).unwrap()), ["a\u{FFFD}"]);
}

#[test]
fn a_key_given_twice_in_one_load_is_reported_with_both_sources() {
    let input = tempfile::tempdir().unwrap();
    let path = input.path().join("books.jsonl");
    let line = |key: &str, from: u32, n: u32| {
        serde_json::json!({"key": key, "text": common::text(from, n)}).to_string()
    };
    let lines = [
        line("dup", 0, 300),
        line("other", 5_000, 300),
        line("dup", 10_000, 200),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    // One book per commit: the earlier "dup" is committed when the later comes.
    let output = common::run(common::cli().arg("load").arg(dir.path()).arg(&path).args([
        "--create",
        "--json",
        "--batch-books",
        "1",
    ]));
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let at = |line: u32| format!("{}:{line}", path.display());
    let warning = format!(
        "warning: key \"dup\": {} replaces {} of this load",
        at(3),
        at(1)
    );
    assert!(stderr.lines().any(|l| l.starts_with(&warning)), "{stderr}");
    let stats: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(stats["replaced"], 0);
    let duplicates = stats["duplicate_keys"].as_array().unwrap();
    assert_eq!(duplicates.len(), 1);
    assert_eq!(duplicates[0]["key"], "dup");
    assert_eq!(duplicates[0]["source_name"], at(3));
    assert_eq!(duplicates[0]["earlier_source_name"], at(1));
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(keys(&index), ["dup", "other"]);
    // The later document won.
    assert_eq!(index.reader().unwrap().book("dup").unwrap().words, 200);

    // Loading the file again, in one batch: two books of the earlier load
    // replaced, and the repeated key reported again.
    let mut events = Vec::new();
    let mut loader = index.bulk_loader(stemmata::LoadOptions::default()).unwrap();
    loader.on_progress(|event| {
        if let stemmata::LoadEvent::DuplicateKey {
            key,
            source_name,
            earlier_source_name,
        } = event
        {
            events.push(format!("{key} {source_name} {earlier_source_name}"));
        }
    });
    loader.extend(sources::json_lines(&path).unwrap()).unwrap();
    let stats = loader.finish().unwrap();
    assert_eq!(stats.replaced, 2);
    assert_eq!(stats.duplicate_keys.len(), 1);
    assert_eq!(events, [format!("dup {} {}", at(3), at(1))]);
    assert_eq!(keys(&index), ["dup", "other"]);
    index.verify().unwrap();
}

#[test]
fn query_and_delete_with_a_key_that_breaks_the_rule_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_docs(
        &index,
        vec![
            Document::new("fine", common::text(0, 300)),
            Document::new("also", common::text(100, 300)),
        ],
        10,
    );
    drop(index);
    let fails = |args: &[&str]| {
        let output = common::run(common::cli().arg(args[0]).arg(dir.path()).args(&args[1..]));
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        common::stderr(&output)
    };
    for (args, wrong) in [
        (
            &["query", "--key", "a\tb"][..],
            "control character (U+0009)",
        ),
        (&["query", "--key", " fine"], "begins with white space"),
        (&["query", "--key", "fine\n"], "control character (U+000A)"),
        (&["delete", "fine", "a\rb"], "control character (U+000D)"),
        (&["delete", "also", ""], "empty key"),
    ] {
        let stderr = fails(args);
        assert!(stderr.contains(wrong), "{args:?}: {stderr}");
        assert!(
            stderr.contains("no book can be stored under it"),
            "{stderr}"
        );
        assert!(!stderr.contains("no book with key"), "{stderr}");
    }
    // A valid key that is not stored is still "no book".
    assert!(fails(&["query", "--key", "missing"]).contains("no book with key \"missing\""));
    // The refused deletes deleted nothing.
    assert_eq!(keys(&Index::open(dir.path()).unwrap()), ["also", "fine"]);
}
