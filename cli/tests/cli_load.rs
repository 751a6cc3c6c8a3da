//! `stemmata load` on directories: recursive, any case of `.txt` or
//! `.text`, a warning for a directory with nothing to load and exit status 2
//! when no input has a document; titles and authors from Project Gutenberg
//! headers.

mod common;

use serde_json::Value;
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_directory_is_loaded_recursively_in_path_order_with_any_case_of_txt_or_text() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(&input.join("sub/x.txt"), &common::text(0, 300));
    write(&input.join("y.TXT"), &common::text(1_000, 300));
    write(&input.join("z.text"), &common::text(2_000, 300));
    write(&input.join("notes.md"), &common::text(3_000, 300));
    // Same stem as sub/x.txt in another folder: one key, reported.
    write(&input.join("sub2/deeper/x.Text"), &common::text(4_000, 300));

    let output = common::run(
        common::cli()
            .args(["load", "--create", "idx", "in", "--json"])
            .current_dir(dir.path()),
    );
    let stderr = common::stderr(&output);
    assert!(output.status.success(), "{stderr}");
    let loaded: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(loaded["books"], 4, "{loaded}");
    let duplicates = loaded["duplicate_keys"].as_array().unwrap();
    assert_eq!(duplicates.len(), 1, "{loaded}");
    // Path order: sub/x.txt comes before sub2/deeper/x.Text, which wins.
    let later = Path::new("in").join("sub2/deeper/x.Text");
    let earlier = Path::new("in").join("sub/x.txt");
    assert!(
        stderr.contains(&format!(
            "{} replaces {}",
            later.display(),
            earlier.display()
        )),
        "{stderr}"
    );

    let stats = common::run(
        common::cli()
            .args(["stats", "idx", "--json"])
            .current_dir(dir.path()),
    );
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["books"], 3, "{stats}");
}

#[test]
fn a_directory_with_nothing_to_load_is_named_and_no_documents_at_all_is_exit_status_2() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("empty/deep/readme.md"), "not a book");
    write(&dir.path().join("book.txt"), &common::text(0, 300));

    let output = common::run(
        common::cli()
            .args(["load", "--create", "idx", "empty"])
            .current_dir(dir.path()),
    );
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("warning: empty: no .txt or .text files"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: no documents to load in empty"),
        "{stderr}"
    );
    // Inputs are checked before the index is opened: nothing was created.
    assert!(!dir.path().join("idx").exists());

    // Beside an input that has a document: the warning, and the load goes on.
    let output = common::run(
        common::cli()
            .args(["load", "--create", "idx", "empty", "book.txt"])
            .current_dir(dir.path()),
    );
    let stderr = common::stderr(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: empty: no .txt or .text files"),
        "{stderr}"
    );
    assert!(!stderr.contains("error"), "{stderr}");

    // JSON Lines with no document (blank lines only) is no document either;
    // the extension is matched in any case.
    write(&dir.path().join("blank.JSONL"), "\n  \n");
    let output = common::run(
        common::cli()
            .args(["load", "idx", "blank.JSONL"])
            .current_dir(dir.path()),
    );
    assert_eq!(output.status.code(), Some(2), "{}", common::stderr(&output));
}

#[test]
fn titles_and_authors_come_from_a_gutenberg_header() {
    let dir = tempfile::tempdir().unwrap();
    let base = common::text(0, 600);
    let header = "\u{feff}The Project Gutenberg eBook of A Made-Up Book\n\n\
        This ebook is for the use of anyone anywhere in the United States.\n\n\
        Title: A Made-Up Book\n       or, The Second Line\n\n\
        Author: Jane Doe\n\n\
        Release date: January 1, 2000 [eBook #99999]\n\n\
        Language: English\n\n\n\
        *** START OF THE PROJECT GUTENBERG EBOOK A MADE-UP BOOK ***\n\n";
    write(
        &dir.path().join("in/original.txt"),
        &format!("{header}{base}"),
    );
    write(
        &dir.path().join("in/edition.txt"),
        &format!("Title: Not From A Header\n\n{base}"),
    );
    let output = common::run(
        common::cli()
            .args(["load", "--create", "idx", "in"])
            .current_dir(dir.path()),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));

    let output = common::run(
        common::cli()
            .args(["query", "idx", "--key", "edition"])
            .current_dir(dir.path()),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", common::stderr(&output));
    assert!(
        stdout.contains("original") && stdout.contains("A Made-Up Book or, The Second Line"),
        "{stdout}"
    );
    let output = common::run(
        common::cli()
            .args(["query", "idx", "--key", "original"])
            .current_dir(dir.path()),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("edition"), "{stdout}");
    assert!(!stdout.contains("Not From A Header"), "{stdout}");
}

#[test]
fn corpus_texts_keep_their_bytes_and_get_a_title_only_from_a_real_header() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    // The corpus texts had their Gutenberg header cut off; pg5711 still has
    // "Author:" and "Title:" lines after its producer credit, body text now.
    for id in ["pg11", "pg1342", "pg5711", "pg1000"] {
        let path = corpus.join("texts").join(format!("{id}.txt"));
        let bytes = std::fs::read(&path).unwrap();
        let document = stemmata::load::sources::read_text_file(&path).unwrap();
        assert_eq!(
            (document.title.as_str(), document.author.as_str()),
            ("", ""),
            "{id}"
        );
        assert_eq!(document.text, bytes, "{id}");

        // The same text under a Gutenberg header.
        let header = format!(
            "The Project Gutenberg eBook of {id}\n\nTitle: Book {id}\n\nAuthor: Someone\n\n\
             Language: English\n\n*** START OF THE PROJECT GUTENBERG EBOOK {id} ***\n\n"
        );
        let mut with_header = header.into_bytes();
        with_header.extend_from_slice(&bytes);
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join(format!("{id}.txt"));
        std::fs::write(&copy, &with_header).unwrap();
        let document = stemmata::load::sources::read_text_file(&copy).unwrap();
        assert_eq!(
            (document.title.as_str(), document.author.as_str()),
            (format!("Book {id}").as_str(), "Someone"),
        );
        assert_eq!(document.text, with_header, "{id}");
    }
}

#[test]
fn metadata_gives_titles_by_key_and_a_bad_file_leaves_no_index() {
    let dir = tempfile::tempdir().unwrap();
    let base = common::text(0, 600);
    write(&dir.path().join("in/first.txt"), &base);
    write(
        &dir.path().join("in/reprint.txt"),
        &format!("{} {base}", common::text(5_000, 60)),
    );
    write(
        &dir.path().join("books.tsv"),
        "id\ttitle\tauthor\tlanguage\nfirst\tThe First\tA. Writer\ten\nnot-loaded\tElsewhere\t\t\n",
    );
    write(
        &dir.path().join("bad.tsv"),
        "name\ttitle\nfirst\tThe First\n",
    );

    let refused = common::run(
        common::cli()
            .args(["load", "--create", "idx", "in", "--metadata", "bad.tsv"])
            .current_dir(dir.path()),
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        common::stderr(&refused).contains("bad.tsv"),
        "{}",
        common::stderr(&refused)
    );
    assert!(!dir.path().join("idx").exists());

    let output = common::run(
        common::cli()
            .args([
                "load",
                "--create",
                "idx",
                "in",
                "--metadata",
                "books.tsv",
                "-q",
            ])
            .current_dir(dir.path()),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    let query = common::run(
        common::cli()
            .args(["query", "idx", "--key", "reprint", "--json"])
            .current_dir(dir.path()),
    );
    let result: Value = serde_json::from_slice(&query.stdout).unwrap();
    assert_eq!(result["hits"][0]["key"], "first", "{result}");
    assert_eq!(result["hits"][0]["title"], "The First", "{result}");
}

#[test]
fn every_book_gets_an_iso_639_3_code_whatever_language_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let line = |key: &str, language: &str| {
        serde_json::json!({"key": key, "language": language, "text": common::text(0, 300)})
            .to_string()
    };
    let lines = [
        line("tab", "a\tb\nc"),
        line("long", &"x".repeat(5000)),
        line("name", "German"),
        line("rare", "GRC"),
    ];
    write(&dir.path().join("books.jsonl"), &lines.join("\n"));
    common::run_ok(&["load", "--create", "idx", "books.jsonl"], dir.path());
    let stats = common::run_ok(&["stats", "idx"], dir.path());
    let languages = stats
        .lines()
        .find(|l| l.starts_with("languages"))
        .unwrap_or_else(|| panic!("{stats}"));
    // The two values that are no language get the detected one (pseudo-words:
    // undetermined).
    assert_eq!(languages, "languages      deu 1, grc 1, und 2", "{stats}");
    assert_eq!(stats.lines().count(), 9, "{stats}");
}
