//! `stemmata bench-scale` runs end to end on a small collection: its JSON
//! has every figure, and exact mode finds the generated relations.

mod common;

use serde_json::Value;

fn bench_scale(args: &[&str]) -> Value {
    let output = common::run(common::cli().arg("bench-scale").args(args));
    assert!(output.status.success(), "{}", common::stderr(&output));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", output.stdout))
}

fn number(figures: &Value, path: &[&str]) -> f64 {
    let value = path.iter().fold(figures, |v, key| &v[*key]);
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{path:?} is not a number: {value}"))
}

#[test]
fn exact_mode_reports_every_figure_and_finds_the_generated_pairs() {
    // A seed whose 60 books hold anthologies as well as editions (a small
    // collection may hold none: the generator draws them by chance).
    let args = [
        "--books", "60", "--words", "3000", "--mode", "exact", "--seed", "2", "--json",
    ];
    let figures = bench_scale(&args);
    assert_eq!(figures["mode"], "exact");
    assert_eq!(number(&figures, &["collection", "books"]), 60.0);
    for path in [
        ["ingest", "books_per_s_per_core_excl_generation"],
        ["ingest", "books_per_s_per_core_incl_generation"],
        ["ingest", "mb_per_s_per_core_excl_generation"],
        ["ingest", "generator_cpu_s"],
        ["index", "bytes_per_book"],
        ["collection", "text_mb_per_book"],
        ["self_join", "wall_s"],
        ["self_join", "peak_rss_mib"],
        ["queries", "reader_open_s"],
        ["queries", "median_ms"],
        ["queries", "p95_ms"],
    ] {
        assert!(number(&figures, &path) > 0.0, "{path:?}");
    }
    assert_eq!(number(&figures, &["ingest", "skipped"]), 0.0);
    assert_eq!(number(&figures, &["queries", "count"]), 200.0);
    for relation in ["edition", "contains"] {
        assert!(number(&figures, &["self_join", relation, "truth"]) > 0.0);
        let recall = number(&figures, &["self_join", relation, "recall"]);
        assert!(recall > 0.9, "{relation} recall {recall}");
    }
    assert!(number(&figures, &["self_join", "not_in_truth"]) <= 2.0);
}

#[test]
fn kept_directory_holds_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("scale");
    let index_arg = index.to_str().unwrap();
    let args = [
        "--books",
        "12",
        "--words",
        "500",
        "--mode",
        "exact",
        "--queries",
        "3",
        "--dir",
        index_arg,
        "--json",
    ];
    bench_scale(&args);
    let output = common::run(common::cli().args(["stats", index_arg, "--json"]));
    assert!(output.status.success(), "{}", common::stderr(&output));
    let stats: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(stats["books"], 12);
}

#[test]
fn zero_books_is_refused_by_the_argument_parser() {
    let output = common::run(common::cli().args(["bench-scale", "--books", "0"]));
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).contains("--books"));
}

#[test]
fn volumes_are_generated_and_scored_as_contains() {
    let args = [
        "--books",
        "250",
        "--words",
        "300",
        "--mode",
        "exact",
        "--volume-share",
        "0.01",
        "--queries",
        "5",
        "--json",
    ];
    let figures = bench_scale(&args);
    let in_volumes = number(&figures, &["collection", "volume_pairs"]);
    assert!(in_volumes >= 25.0, "{in_volumes} contains pairs in volumes");
    assert_eq!(
        number(&figures, &["self_join", "volume", "truth"]),
        in_volumes
    );
    let recall = number(&figures, &["self_join", "volume", "recall"]);
    assert!(recall > 0.9, "volume recall {recall}");
    assert!(number(&figures, &["collection", "contains_pairs"]) >= in_volumes);
    // Without --volume-share the figures are as before.
    let plain = bench_scale(&[
        "--books",
        "12",
        "--words",
        "300",
        "--queries",
        "3",
        "--json",
    ]);
    assert!(plain["collection"].get("volume_pairs").is_none());
    assert!(plain["self_join"].get("volume").is_none());
}

#[test]
fn write_texts_writes_the_books_and_their_related_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("collection");
    let args = [
        "bench-scale",
        "--books",
        "120",
        "--words",
        "200",
        "--volume-share",
        "0.01",
        "--write-texts",
        out.to_str().unwrap(),
        "--json",
    ];
    let output = common::run(common::cli().args(args));
    assert!(output.status.success(), "{}", common::stderr(&output));
    let texts = std::fs::read_dir(out.join("texts")).unwrap().count();
    assert_eq!(texts, 120);
    assert!(out.join("texts/vol0000.txt").is_file());
    let truth = std::fs::read_to_string(out.join("truth.tsv")).unwrap();
    let mut lines = truth.lines();
    assert_eq!(lines.next(), Some("a\tb\trelation\tvolume"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    assert!(rows.iter().all(|r| r.len() == 4));
    let in_volume = rows
        .iter()
        .filter(|r| r[0] == "vol0000" && r[2] == "contains" && r[3] == "1")
        .count();
    assert!(in_volume >= 25, "{in_volume} pairs of vol0000");
    assert!(rows.iter().any(|r| r[2] == "edition" && r[3] == "0"));
    for row in &rows {
        for key in &row[..2] {
            assert!(out.join(format!("texts/{key}.txt")).is_file(), "{key}");
        }
    }
}

#[test]
fn a_volume_share_outside_0_1_is_refused() {
    let output = common::run(common::cli().args(["bench-scale", "--volume-share", "1.5"]));
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).contains("between 0 and 1"));
}
