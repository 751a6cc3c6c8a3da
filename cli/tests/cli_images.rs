//! `stemmata images add|list` and `stemmata spot`: a scanned page added
//! with its hOCR, found by text with `--json` and `--html`, listed, in
//! `stats` and `verify`; bad pages refused with an error naming the file
//! and the index unchanged.

mod common;

use common::run_ok;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn run_err(args: &[&str], dir: &Path) -> String {
    let output = common::run(common::cli().args(args).current_dir(dir));
    assert!(!output.status.success(), "{args:?} succeeded");
    common::stderr(&output)
}

/// The format-9 fixture's scanned page and its hOCR, copied into `dir`.
fn page(dir: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v9/pages");
    let to = dir.join("pages");
    std::fs::create_dir_all(&to).unwrap();
    for name in ["scan-0001.png", "scan-0001.hocr"] {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
    to
}

#[test]
fn add_spot_list_stats_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    page(dir.path());
    run_ok(&["create", "idx"], dir.path());
    let added = run_ok(
        &[
            "images",
            "add",
            "idx",
            "--key",
            "scan",
            "--branching",
            "8",
            "pages",
            "--quiet",
        ],
        dir.path(),
    );
    // The page's 32 OCR words, "through:the" split where the ink shows
    // the gap.
    assert!(
        added.contains("added scan  1 page, 33 word images"),
        "{added}"
    );
    let listed = run_ok(&["images", "list", "idx", "--json"], dir.path());
    let books: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(books[0]["key"], "scan");
    assert_eq!(books[0]["words"], 33);

    let text = run_ok(&["spot", "idx", "garden", "-k", "3"], dir.path());
    assert!(text.lines().next().unwrap().contains("rank"), "{text}");
    assert!(text.lines().nth(1).unwrap().contains("garden"), "{text}");
    let json = run_ok(&["spot", "idx", "garden", "-k", "3", "--json"], dir.path());
    let hits: Vec<Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0]["rank"], 1);
    assert_eq!(hits[0]["key"], "scan");
    assert_eq!(hits[0]["page"], 1);
    assert_eq!(hits[0]["page_name"], "scan-0001.png");
    assert!(hits[0]["ocr"].as_str().unwrap().starts_with("garden"));
    assert!(hits[0]["bbox"]["x1"].as_u64().unwrap() > hits[0]["bbox"]["x0"].as_u64().unwrap());
    let scores: Vec<f64> = hits
        .iter()
        .map(|h| h["scores"]["combined"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // Deterministic output.
    assert_eq!(
        json,
        run_ok(&["spot", "idx", "garden", "-k", "3", "--json"], dir.path())
    );
    // OCR alone and images alone.
    run_ok(&["spot", "idx", "garden", "--ocr-weight", "1"], dir.path());
    run_ok(
        &["spot", "idx", "garden", "--ocr-weight", "0", "-k", "0"],
        dir.path(),
    );
    assert!(
        run_err(&["spot", "idx", "garden", "--ocr-weight", "2"], dir.path())
            .contains("--ocr-weight")
    );
    assert!(run_err(&["spot", "idx", "..."], dir.path()).contains("no letter or digit"));
    // Case: "GARDEN" as typed shares no bigram with the OCR's "garden";
    // with --ignore-case it is that word.
    let top = |extra: &[&str]| -> Value {
        let mut args = vec![
            "spot",
            "idx",
            "GARDEN",
            "-k",
            "1",
            "--ocr-weight",
            "1",
            "--json",
        ];
        args.extend_from_slice(extra);
        serde_json::from_str(run_ok(&args, dir.path()).lines().next().unwrap()).unwrap()
    };
    assert!(top(&[])["scores"]["ocr"].as_f64().unwrap() < 0.5);
    let folded = top(&["--ignore-case"]);
    assert!(
        folded["ocr"].as_str().unwrap().starts_with("garden"),
        "{folded}"
    );
    assert_eq!(folded["scores"]["ocr"].as_f64().unwrap(), 1.0, "{folded}");

    let html = run_ok(
        &["spot", "idx", "garden", "-k", "2", "--html", "sheet.html"],
        dir.path(),
    );
    assert!(html.contains("contact sheet: sheet.html"), "{html}");
    let sheet = std::fs::read_to_string(dir.path().join("sheet.html")).unwrap();
    assert_eq!(sheet.matches("data:image/png;base64,").count(), 2);
    assert!(sheet.contains("scan-0001.png"));
    assert!(run_err(
        &["spot", "idx", "garden", "--html", "idx/x.html"],
        dir.path()
    )
    .contains("inside the index"));

    let stats = run_ok(&["stats", "idx"], dir.path());
    assert!(stats.contains("word images    33 in 1 book"), "{stats}");
    let verified = run_ok(&["verify", "idx"], dir.path());
    assert!(verified.contains("1 book of word images"), "{verified}");
}

#[test]
fn bad_pages_are_refused_naming_the_file_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pages = page(dir.path());
    run_ok(&["create", "idx"], dir.path());
    assert!(run_err(&["spot", "idx", "garden"], dir.path()).contains("no word images"));
    run_ok(
        &[
            "images",
            "add",
            "idx",
            "--key",
            "scan",
            "--branching",
            "8",
            "pages",
        ],
        dir.path(),
    );
    let before = common::snapshot_files(&dir.path().join("idx/images"));

    std::fs::write(pages.join("junk.png"), b"\x89PNG but not really").unwrap();
    std::fs::copy(pages.join("scan-0001.hocr"), pages.join("junk.hocr")).unwrap();
    let error = run_err(
        &["images", "add", "idx", "--key", "b", "pages/junk.png"],
        dir.path(),
    );
    assert!(error.contains("junk.png"), "{error}");
    std::fs::write(pages.join("lonely.png"), b"").unwrap();
    let error = run_err(
        &["images", "add", "idx", "--key", "b", "pages/lonely.png"],
        dir.path(),
    );
    assert!(
        error.contains("lonely.png") && error.contains("no OCR file"),
        "{error}"
    );
    std::fs::remove_file(pages.join("lonely.png")).unwrap();
    let error = run_err(&["images", "add", "idx", "--key", "b", "pages"], dir.path());
    assert!(error.contains("junk.png"), "{error}");
    let error = run_err(
        &["images", "add", "idx", "--key", " b", "pages/scan-0001.png"],
        dir.path(),
    );
    assert!(error.contains("white space"), "{error}");
    let error = run_err(
        &[
            "images",
            "add",
            "nowhere",
            "--key",
            "b",
            "pages/scan-0001.png",
        ],
        dir.path(),
    );
    assert!(error.contains("nowhere"), "{error}");
    assert!(common::snapshot_files(&dir.path().join("idx/images")) == before);
    run_ok(&["verify", "idx"], dir.path());
}

#[test]
fn an_add_past_learn_from_keeps_the_model_and_relearn_learns_it_from_every_book() {
    let dir = tempfile::tempdir().unwrap();
    page(dir.path());
    run_ok(&["create", "idx"], dir.path());
    let refused = run_err(&["images", "relearn", "idx"], dir.path());
    assert!(refused.contains("no word images"), "{refused}");
    let add = |key: &str| {
        let args = ["images", "add", "idx", "--key", key, "--branching", "8"];
        let more = ["--learn-from", "10", "pages", "--quiet", "--json"];
        let json = run_ok(&[&args[..], &more[..]].concat(), dir.path());
        serde_json::from_str::<Value>(&json).unwrap()
    };
    let first = add("first");
    assert_eq!(first["model_book"], true);
    assert_eq!(first["model"]["relearned"], true);
    let second = add("second");
    assert_eq!(second["model_book"], false);
    assert_eq!(
        second["model"],
        serde_json::json!({"relearned": false, "books": 1, "images": 33})
    );
    let listed = run_ok(&["images", "list", "idx"], dir.path());
    assert!(
        listed.contains("first  1 page, 33 word images")
            && listed
                .lines()
                .filter(|l| l.ends_with("; model book"))
                .count()
                == 1,
        "{listed}"
    );
    let relearned = run_ok(&["images", "relearn", "idx", "--quiet"], dir.path());
    assert_eq!(
        relearned.trim(),
        "model learned from 66 word images of 2 books"
    );
    let json = run_ok(&["images", "relearn", "idx", "--json"], dir.path());
    let model: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(model["books"], 2);
    run_ok(&["verify", "idx"], dir.path());

    // A book of --learn-alone word images or more is scored by its own model.
    let own = "its rows by a model learned from its own word images alone";
    let add = |learn_alone: &str| {
        let args = ["images", "add", "idx", "--key", "third", "--learn-alone"];
        run_ok(
            &[&args[..], &[learn_alone, "pages", "--quiet"]].concat(),
            dir.path(),
        )
    };
    let (alone, with_others) = (add("33"), add("34"));
    assert!(
        alone.contains(own) && !with_others.contains(own),
        "{alone}{with_others}"
    );

    // A relearn scores the books of the index's vocabulary alone from its
    // --learn-alone on; by default (1,000) none of these 33-image books.
    let spotted = || {
        let args = ["spot", "idx", "garden", "-k", "0", "--ocr-weight", "0"];
        run_ok(&[&args[..], &["--json"]].concat(), dir.path())
    };
    run_ok(&["images", "relearn", "idx", "--quiet"], dir.path());
    let shared = spotted();
    run_ok(
        &["images", "relearn", "idx", "--quiet", "--learn-alone", "33"],
        dir.path(),
    );
    assert_ne!(spotted(), shared);
    run_ok(&["images", "relearn", "idx", "--quiet"], dir.path());
    assert_eq!(spotted(), shared);
}

#[test]
fn list_says_when_the_model_has_no_word_widths_until_a_relearn_learns_them() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    common::copy_dir(
        &common::repo_root().join("tests/fixtures/v21/index"),
        &index,
    );
    let note = "no word widths";
    let before = run_ok(&["images", "list", "idx"], dir.path());
    assert!(before.contains(note), "{before}");
    let json = run_ok(&["images", "list", "idx", "--json"], dir.path());
    assert!(
        serde_json::from_str::<Value>(&json).unwrap().is_array(),
        "{json}"
    );
    run_ok(&["upgrade", "idx"], dir.path());
    let upgraded = run_ok(&["images", "list", "idx"], dir.path());
    assert!(upgraded.contains(note), "{upgraded}");
    run_ok(&["images", "relearn", "idx", "--quiet"], dir.path());
    let after = run_ok(&["images", "list", "idx"], dir.path());
    assert!(!after.contains(note), "{after}");
    let spotted = |weight: &str| {
        let args = [
            "spot",
            "idx",
            "garden",
            "-k",
            "0",
            "--json",
            "--width-weight",
        ];
        let json = run_ok(&[&args[..], &[weight]].concat(), dir.path());
        (json.lines())
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["scores"]["width"]
                    .as_f64()
                    .unwrap()
            })
            .collect::<Vec<f64>>()
    };
    assert!(spotted("0").iter().all(|&w| w == 0.0));
    assert!(spotted("0.5").iter().any(|&w| w > 0.0));
    let refused = run_err(&["spot", "idx", "garden", "--width-weight=-1"], dir.path());
    assert!(refused.contains("--width-weight -1"), "{refused}");
}
