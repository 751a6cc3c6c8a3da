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

fn refused(args: &[&str]) -> String {
    let output = common::run(common::cli().arg("bench-scale").args(args));
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    common::stderr(&output)
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
        "--books",
        "60",
        "--words",
        "3000",
        "--mode",
        "exact",
        "--seed",
        "2",
        "--fresh-queries",
        "2",
        "--json",
    ];
    let figures = bench_scale(&args);
    assert_eq!(figures["mode"], "exact");
    assert_eq!(figures["existing_index"], false);
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
        ["self_join", "peak_anon_mib"],
        ["reader", "open_ms"],
    ] {
        assert!(number(&figures, &path) > 0.0, "{path:?}");
    }
    // The index at its largest during the load holds at least its bytes
    // at the end.
    assert!(
        number(&figures, &["ingest", "peak_index_bytes"]) >= number(&figures, &["index", "bytes"])
    );
    // The join's heap and stacks are part of its RSS.
    assert!(
        number(&figures, &["self_join", "peak_anon_mib"])
            <= number(&figures, &["self_join", "peak_rss_mib"])
    );
    for path in [
        ["queries", "exact", "median_ms"],
        ["queries", "exact", "p95_ms"],
    ] {
        assert!(number(&figures, &path) > 0.0, "{path:?}");
    }
    assert_eq!(number(&figures, &["ingest", "skipped"]), 0.0);
    // A load whose final compaction failed would say so here.
    assert_eq!(figures["ingest"]["warnings"], serde_json::json!([]));
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

#[test]
fn reader_and_queries_are_measured_in_fresh_processes_in_both_modes() {
    let args = [
        "--books",
        "60",
        "--words",
        "2000",
        "--queries",
        "5",
        "--fresh-queries",
        "4",
        "--json",
    ];
    let figures = bench_scale(&args);
    // The self-join's mode stays approximate; queries are timed in both.
    assert_eq!(figures["mode"], "approximate");
    for path in [
        ["reader", "open_ms"],
        ["reader", "index_open_ms"],
        ["reader", "reader_ms"],
        ["reader", "rss_before_open_mib"],
        ["reader", "rss_after_open_mib"],
        ["reader", "peak_rss_after_open_mib"],
        ["self_join", "peak_rss_mib"],
    ] {
        assert!(number(&figures, &path) > 0.0, "{path:?}");
    }
    let open = number(&figures, &["reader", "open_ms"]);
    let parts =
        number(&figures, &["reader", "index_open_ms"]) + number(&figures, &["reader", "reader_ms"]);
    assert!(
        (open - parts).abs() < 1e-6 * open.max(1.0),
        "{open} {parts}"
    );
    assert_eq!(number(&figures, &["reader", "target_open_ms"]), 100.0);
    assert_eq!(number(&figures, &["queries", "target_p95_ms"]), 20.0);
    assert_eq!(number(&figures, &["fresh_query", "target_ms"]), 200.0);
    let target = ["ingest", "target_books_per_s_per_core_at_100k_words"];
    assert_eq!(number(&figures, &target), 80.0);
    assert_eq!(number(&figures, &["queries", "count"]), 5.0);
    for mode in ["approximate", "exact"] {
        let probe = |field: &str| number(&figures, &["queries", mode, field]);
        assert_eq!(figures["queries"][mode]["mode"], mode);
        assert_eq!(probe("books"), 60.0);
        assert_eq!(probe("count"), 5.0);
        assert!(
            probe("open_ms") > 0.0 && probe("first_query_ms") > 0.0,
            "{mode}"
        );
        assert!(probe("median_ms") > 0.0, "{mode}");
        assert!(probe("median_ms") <= probe("p95_ms"), "{mode}");
        assert!(probe("p95_ms") <= probe("max_ms"), "{mode}");
        for memory in ["before_open", "after_open", "after_queries"] {
            let rss = number(&figures, &["queries", mode, memory, "rss_mib"]);
            assert!(rss > 0.0, "{mode} {memory}");
        }
        let fresh = |field: &str| number(&figures, &["fresh_query", mode, field]);
        assert_eq!(figures["fresh_query"][mode]["mode"], mode);
        assert_eq!(fresh("runs"), 4.0);
        assert!(fresh("median_ms") > 0.0, "{mode}");
        assert!(fresh("median_ms") <= fresh("p95_ms"), "{mode}");
        assert!(fresh("p95_ms") <= fresh("max_ms"), "{mode}");
        // A query process's own peak, not the ingesting parent's.
        assert!(fresh("peak_rss_mib") > 0.0, "{mode}");
    }
    assert_eq!(number(&figures, &["fresh_query", "runs"]), 4.0);
}

#[test]
fn an_existing_index_is_measured_without_loading_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("scale");
    let index_arg = index.to_str().unwrap();
    let sizes = ["--books", "40", "--words", "1500", "--seed", "3"];
    let quick = ["--queries", "3", "--fresh-queries", "2", "--json"];
    let built = bench_scale(
        &[
            &sizes[..],
            &["--dir", index_arg, "--skip-self-join"],
            &quick,
        ]
        .concat(),
    );
    assert!(built["self_join"].is_null());
    assert!(built["ingest"].is_object());
    assert_eq!(built["existing_index"], false);

    // Without the self-join nothing is generated: no ingest, no ground truth.
    let measured = bench_scale(&[&["--index", index_arg, "--skip-self-join"], &quick[..]].concat());
    assert_eq!(measured["existing_index"], true);
    assert!(measured["ingest"].is_null());
    assert!(measured["self_join"].is_null());
    assert!(measured["collection"]["edition_pairs"].is_null());
    assert!(measured["seed"].is_null());
    assert_eq!(number(&measured, &["collection", "books"]), 40.0);
    assert_eq!(measured["index"]["bytes"], built["index"]["bytes"]);
    assert!(number(&measured, &["reader", "open_ms"]) > 0.0);

    // With it, the ground truth is generated again and scored as when built.
    let joined = bench_scale(&[&sizes[..], &["--index", index_arg], &quick].concat());
    assert!(joined["ingest"].is_null());
    assert_eq!(joined["collection"], built["collection"]);
    assert!(number(&joined, &["self_join", "edition", "truth"]) > 0.0);
    assert!(number(&joined, &["self_join", "edition", "recall"]) > 0.5);

    // The index must be the collection the ground truth is generated for.
    let stderr = refused(&["--books", "41", "--index", index_arg]);
    assert!(stderr.contains("holds 40 books"), "{stderr}");
    assert!(stderr.contains("--skip-self-join"), "{stderr}");
    // A kept --dir is never written over.
    let stderr = refused(&[&sizes[..], &["--dir", index_arg]].concat());
    assert!(
        stderr.contains("not empty") && stderr.contains("--index"),
        "{stderr}"
    );
}

#[test]
fn bench_scale_peak_reports_the_peak_rss_and_anonymous_peak_of_the_command_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let peak = dir.path().join("peak");
    let output = common::run(common::cli().arg("create").arg(&index));
    assert!(output.status.success(), "{}", common::stderr(&output));
    let output = common::run(
        common::cli()
            .args(["bench-scale-peak", "--peak-file"])
            .arg(&peak)
            .args(["--", "stats"])
            .arg(&index)
            .arg("--json"),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    let stats: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(stats["books"], 0);
    let text = std::fs::read_to_string(&peak).unwrap();
    let kib: Vec<u64> = text
        .split_whitespace()
        .map(|field| field.parse().unwrap())
        .collect();
    // The whole RSS's peak, then the anonymous part's, which it holds.
    assert!(
        matches!(kib[..], [rss, anon] if rss > 0 && anon > 0 && anon <= rss),
        "{text:?}"
    );
}
