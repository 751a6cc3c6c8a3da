//! `stemmata generate translated`: a tiny corpus and a tiny dictd
//! dictionary give a labelled set of translations that the evaluation's
//! reader accepts, with alignments, the same bytes every time.

mod common;

use std::path::Path;
use std::process::Command;

fn stemmata() -> Command {
    common::cli()
}

/// Writes `freedict-eng-deu.index` and `.dict.dz` under `dir`.
fn write_dictionary(dir: &Path) -> std::path::PathBuf {
    let entries = [
        ("and", "and\nund\n"),
        ("cat", "cat /kæt/\nKatze\n"),
        ("dog", "dog <n>\nHund\n"),
        ("garden", "garden\nGarten\n"),
        ("house", "house\nHaus; Heim\n"),
        ("in", "in\nin\n"),
        ("is", "is\nist\n"),
        ("paper", "paper\nBlatt <neut>,  /pˈeɪpə/ , Papier\n"),
        ("red", "red\nrot\n"),
        ("sleeps", "sleeps\nschläft\n"),
        ("the", "the\nder, die, das\n"),
    ];
    common::write_dictd(dir, "freedict-eng-deu", &entries)
}

/// A corpus of 12 partnerless English books and an English/German
/// translation pair.
fn write_corpus(dir: &Path) {
    const WORDS: [&str; 12] = [
        "the", "house", "is", "red", "and", "dog", "sleeps", "cat", "garden", "in", "Alice",
        "paper",
    ];
    std::fs::create_dir_all(dir.join("texts")).unwrap();
    let mut books = String::from("id\tgutenberg_id\ttitle\tauthor\tlanguage\twords\tsource\n");
    let mut state = 7u64;
    for (id, language) in (1..=13)
        .map(|i| (format!("b{i}"), "en"))
        .chain([("g1".to_string(), "de")])
    {
        let mut text = String::new();
        for _ in 0..80 {
            let line: Vec<&str> = (0..10)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    WORDS[(state >> 33) as usize % WORDS.len()]
                })
                .collect();
            text.push_str(&line.join(" "));
            text.push_str(".\n");
        }
        std::fs::write(dir.join(format!("texts/{id}.txt")), text).unwrap();
        books.push_str(&format!(
            "{id}\t\tBook {id}\tWriter\t{language}\t800\ttest\n"
        ));
    }
    std::fs::write(dir.join("books.tsv"), books).unwrap();
    std::fs::write(
        dir.join("pairs.tsv"),
        "a\tb\trelation\tnote\nb13\tg1\ttranslation\ten/de\n",
    )
    .unwrap();
}

fn generate(corpus: &Path, dictionary: &Path, out: &Path) -> serde_json::Value {
    let output = stemmata()
        .args([
            "generate",
            "translated",
            "--books",
            "4",
            "--seed",
            "3",
            "--quiet",
            "--json",
        ])
        .arg("--corpus")
        .arg(corpus)
        .arg("--dictionary")
        .arg(dictionary)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Every file under `dir`, by relative path, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for sub in ["", "texts", "alignments"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn generate_translated_writes_a_labelled_set_with_alignments() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    write_corpus(&corpus);
    let dictionary = write_dictionary(dir.path());
    let out = dir.path().join("set");
    let summary = generate(&corpus, &dictionary, &out);
    // 4 sources, 4 translations, 2 foreign and 2 own-language distractors.
    assert_eq!(summary["books"], 12);
    assert_eq!(summary["pairs"], 4);

    let set = stemmata_eval::Corpus::read(&out).unwrap();
    assert_eq!(set.books.len(), 12);
    assert_eq!(set.pairs.len(), 4);
    let language = |id: &str| {
        set.books
            .iter()
            .find(|b| b.id == id)
            .map(|b| b.language.clone())
            .unwrap()
    };
    for pair in &set.pairs {
        assert_eq!(pair.relation, "translation");
        assert!(pair.band.starts_with("noise "), "{}", pair.band);
        assert_eq!(language(&pair.a), "en");
        assert_eq!(language(&pair.b), "de");
        let alignment =
            std::fs::read_to_string(out.join(format!("alignments/{}.tsv", pair.b))).unwrap();
        assert!(alignment.starts_with("source_word\ttarget_word\n0\t"));
    }
    assert_eq!(set.pairs.iter().filter(|p| p.partial).count(), 2);
    assert!(set
        .books
        .iter()
        .all(|b| b.language == "en" || b.language == "de"));
    // The book with a translation partner is never used.
    let books = std::fs::read_to_string(out.join("books.tsv")).unwrap();
    assert!(!books.contains("b13"), "{books}");
    // The translations are German words of the dictionary.
    let translated = std::fs::read_to_string(out.join(format!("texts/{}.txt", set.pairs[0].b)))
        .unwrap()
        .to_lowercase();
    assert!(translated.contains("hund") || translated.contains("katze"));
    // A pronunciation in a translation line is not a translation.
    for entry in std::fs::read_dir(out.join("texts")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains('ˈ'), "{text}");
        assert!(!text.contains("pˈeɪpə"));
    }

    // The same options write the same bytes.
    let again = dir.path().join("again");
    generate(&corpus, &dictionary, &again);
    assert_eq!(files(&out), files(&again));

    // Without a corpus there is nothing to translate.
    let output = stemmata()
        .args(["generate", "translated", "--quiet", "--dictionary"])
        .arg(&dictionary)
        .arg("--out")
        .arg(dir.path().join("none"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--corpus"));
}
