//! `stemmata align` and `stemmata ocr-accuracy`: summaries, JSON, and
//! errors that name the file.

mod common;

use rand::SeedableRng;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

use stemmata_synth::{ocr_noise, work_text};

/// A clean text, a noisy copy of it with an added preface, and the directory.
fn texts() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let clean = work_text(3_000, 31);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let noisy = format!(
        "{}\n\n{}",
        common::text(40_000, 100),
        ocr_noise(&clean, 0.02, &mut rng)
    );
    let (a, b) = (dir.path().join("clean.txt"), dir.path().join("noisy.txt"));
    std::fs::write(&a, clean).unwrap();
    std::fs::write(&b, noisy).unwrap();
    (dir, a, b)
}

fn run(args: &[&Path]) -> Output {
    common::run(common::cli().args(args))
}

fn json(args: &[&Path]) -> Value {
    let output = run(args);
    assert!(output.status.success(), "{}", common::stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn stdout(args: &[&Path]) -> String {
    let output = run(args);
    assert!(output.status.success(), "{}", common::stderr(&output));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn align_prints_a_short_summary_by_default() {
    let (_dir, a, b) = texts();
    let stdout = stdout(&[Path::new("align"), &a, &b]);
    assert!(stdout.lines().count() <= 10, "{stdout}");
    assert!(stdout.contains("clean.txt: 3000 words"), "{stdout}");
    let spans = stdout.lines().find(|l| l.contains(" spans: ")).unwrap();
    assert!(
        spans.contains(" exact (") && spans.contains(" edited ("),
        "{spans}"
    );
    assert!(stdout.contains("moved passages: none"), "{stdout}");
    // The one matched region: all of A, and B from its first bin or its
    // second: the 100-word preface leaves the first 200-word bin half
    // aligned, matched or not as the noise falls.
    assert!(
        stdout.contains("largest matched regions (1 of 1;"),
        "{stdout}"
    );
    assert!(
        stdout.contains("A words 0..3000 (0%-100%)  <->  B words 0..")
            || stdout.contains("A words 0..3000 (0%-100%)  <->  B words 200.."),
        "{stdout}"
    );
    assert!(stdout.contains("--spans prints them"), "{stdout}");
    assert!(!stdout.contains("distance"), "no table of spans: {stdout}");
}

#[test]
fn align_spans_prints_the_table_of_spans() {
    let (_dir, a, b) = texts();
    let stdout = stdout(&[Path::new("align"), &a, &b, Path::new("--spans")]);
    let header = stdout.lines().position(|l| l.contains("distance")).unwrap();
    let spans: usize = stdout
        .lines()
        .find(|l| l.contains(" spans: "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(stdout.lines().count(), header + 1 + spans, "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.contains("exact") || last.contains("edited"), "{last}");
    assert!(!stdout.contains("--spans prints them"), "{stdout}");
}

#[test]
fn unrelated_texts_have_no_matched_regions() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, work_text(3_000, 51)).unwrap();
    std::fs::write(&b, work_text(3_000, 52)).unwrap();
    let stdout = stdout(&[Path::new("align"), &a, &b]);
    assert!(stdout.lines().count() <= 10, "{stdout}");
    assert!(stdout.contains("no matched regions"), "{stdout}");
}

#[test]
fn align_json_is_the_whole_alignment() {
    let (_dir, a, b) = texts();
    let options = [
        Path::new("--leaf-words"),
        Path::new("100"),
        Path::new("--json"),
    ];
    let value = json(&[&[Path::new("align"), &a, &b][..], &options[..]].concat());
    assert_eq!(value["words_a"], 3000);
    assert!(value["share_a"].as_f64().unwrap() > 0.97);
    assert!(value["share_b"].as_f64().unwrap() < 0.99);
    assert!(value["seconds"].as_f64().is_some());
    let spans = value["spans"].as_array().unwrap();
    // The first span starts at A's first word that survived the noise, 100
    // words (the preface) later in B.
    let first = &spans[0];
    let (a_start, b_start) = (
        first["a_words"]["start"].as_u64().unwrap(),
        first["b_words"]["start"].as_u64().unwrap(),
    );
    assert!(a_start <= 2, "{first}");
    assert_eq!(b_start - a_start, 100, "the preface is 100 words");
    assert!(first["a_bytes"]["end"].as_u64().is_some());
    let edited = spans.iter().find(|s| s["kind"] == "edited").unwrap();
    assert!(edited["distance"].as_u64().unwrap() > 0);
    assert!(edited["edits"]["substitutions"].as_u64().is_some());
    assert!(value["stats"]["anchors"].as_u64().unwrap() > 0);
}

#[test]
fn ocr_accuracy_reports_characters_words_and_stop_words() {
    let (_dir, a, b) = texts();
    let clean = [Path::new("ocr-accuracy"), Path::new("--clean"), &a, &b];
    let value = json(&[&clean[..], &[Path::new("--json")][..]].concat());
    let accuracy = value["char_accuracy"].as_f64().unwrap();
    assert!((0.9..1.0).contains(&accuracy), "{value}");
    assert_eq!(value["clean_words"], 3000);
    // The preface, and a noisy word or two before the first that aligns.
    let extra = value["extra_ocr_words"].as_u64().unwrap();
    assert!((100..=102).contains(&extra), "{value}");
    assert!(value["stop_word_accuracy"].as_f64().unwrap() > 0.8);
    let output = run(&clean);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.starts_with("character accuracy"), "{stdout}");
}

#[test]
fn missing_empty_binary_and_wordless_files_are_errors_naming_the_file() {
    let (dir, a, _) = texts();
    let empty = dir.path().join("empty.txt");
    let binary = dir.path().join("binary.txt");
    let wordless = dir.path().join("digits.txt");
    let missing = dir.path().join("missing.txt");
    std::fs::write(&empty, "").unwrap();
    std::fs::write(&binary, b"\x00\x01\x02binary\x00").unwrap();
    std::fs::write(&wordless, "1 2 3 ... 42").unwrap();
    for (bad, why) in [
        (&empty, "empty text"),
        (&binary, "binary data"),
        (&wordless, "no words"),
        (&missing, "No such file"),
    ] {
        for args in [
            vec![Path::new("align"), &a, bad],
            vec![Path::new("ocr-accuracy"), Path::new("--clean"), bad, &a],
        ] {
            let output = run(&args);
            assert_eq!(output.status.code(), Some(1), "{args:?}");
            let stderr = common::stderr(&output);
            assert!(stderr.contains(&bad.display().to_string()), "{stderr}");
            assert!(stderr.contains(why), "{stderr}");
        }
    }
}

#[test]
fn align_relations_name_the_container() {
    // Without pages: a work, and a volume holding it between two others.
    let dir = tempfile::tempdir().unwrap();
    let unpaged = |text: String| text.replace('\x0c', "\n");
    let work = unpaged(work_text(3_000, 31));
    let volume = [work_text(4_000, 32), work.clone(), work_text(4_000, 33)]
        .map(unpaged)
        .join("\n\n");
    let (a, b) = (dir.path().join("work.txt"), dir.path().join("volume.txt"));
    std::fs::write(&a, work).unwrap();
    std::fs::write(&b, volume).unwrap();
    let value = json(&[
        Path::new("align"),
        &a,
        &b,
        Path::new("--relations"),
        Path::new("--json"),
    ]);
    let relation = &value["relation"];
    assert_eq!(relation["class"], "contains", "{relation}");
    assert_eq!(relation["container"], "b", "{relation}");
    let output = run(&[Path::new("align"), &a, &b, Path::new("--relations")]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("relation: contains"), "{stdout}");
    assert!(stdout.contains("volume.txt ⊃"), "{stdout}");
}

#[test]
fn paged_texts_are_classified_by_page_signals() {
    let dir = tempfile::tempdir().unwrap();
    let words: Vec<String> = work_text(6_000, 5)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let paged = words
        .chunks(300)
        .map(|page| page.join(" "))
        .collect::<Vec<_>>()
        .join("\x0c");
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, &paged).unwrap();
    std::fs::write(&b, &paged).unwrap();
    let value = json(&[
        Path::new("align"),
        &a,
        &b,
        Path::new("--relations"),
        Path::new("--json"),
    ]);
    assert_eq!(
        value["relation"]["class"], "same_pagination",
        "{}",
        value["relation"]
    );
    assert!(value["relation"]["signals"]["pages"].is_object());
}

#[test]
fn align_map_writes_svg_or_an_html_page() {
    let (dir, a, b) = texts();
    let svg = dir.path().join("map.svg");
    let output = run(&[Path::new("align"), &a, &b, Path::new("--map"), &svg]);
    assert!(output.status.success(), "{}", common::stderr(&output));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("100.0% of A and"), "{stdout}");
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg"), "{picture}");
    assert!(picture.contains("clean.txt") && picture.contains("noisy.txt"));
    let html = dir.path().join("map.html");
    let output = run(&[Path::new("align"), &a, &b, Path::new("--map"), &html]);
    assert!(output.status.success(), "{}", common::stderr(&output));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>") && page.contains("<svg"),
        "{page}"
    );
    let unwritable = dir.path().join("missing").join("map.svg");
    let output = run(&[Path::new("align"), &a, &b, Path::new("--map"), &unwritable]);
    assert!(!output.status.success());
    assert!(
        common::stderr(&output).contains("missing"),
        "{}",
        common::stderr(&output)
    );
}

#[test]
fn a_moved_passage_is_counted_and_marked_in_the_table_of_spans() {
    let dir = tempfile::tempdir().unwrap();
    let work = work_text(3_000, 41);
    let words: Vec<&str> = work.split_whitespace().collect();
    let (head, rest) = words.split_at(600);
    let (middle, tail) = rest.split_at(1_800);
    let a = [head, middle, tail].concat().join(" ");
    // B moves the first 600 words to the end.
    let b = [middle, tail, head].concat().join(" ");
    let (pa, pb) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let summary = stdout(&[Path::new("align"), &pa, &pb]);
    assert!(summary.contains("moved passages: 1 ("), "{summary}");
    assert!(!summary.contains("exact moved"), "{summary}");
    let table = stdout(&[Path::new("align"), &pa, &pb, Path::new("--spans")]);
    assert!(table.contains("exact moved"), "{table}");
}
