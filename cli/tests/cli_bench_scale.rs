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
