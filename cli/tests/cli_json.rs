//! Every command's `--json` output is one JSON document a machine can read,
//! with the fields a caller needs.

mod common;

use serde_json::Value;
use std::path::Path;

fn json_of(args: &[&str], dir: &Path) -> Value {
    let output = common::run(common::cli().args(args).current_dir(dir));
    assert!(
        output.status.success(),
        "{args:?}: {}",
        common::stderr(&output)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {:?}", output.stdout))
}

#[test]
fn create_load_query_pairs_stats_verify_and_delete_speak_json() {
    let dir = tempfile::tempdir().unwrap();
    let base = common::text(0, 600);
    let books = vec![
        ("original".to_string(), base.clone()),
        (
            "edition".to_string(),
            format!("{} {base}", common::text(5_000, 80)),
        ),
        ("other".to_string(), common::text(20_000, 500)),
    ];
    common::write_txt_books(&dir.path().join("in"), &books);

    let created = json_of(&["create", "idx", "--json"], dir.path());
    assert_eq!(created["max_term_freq"], 1);
    assert_eq!(
        (&created["volume_words"], &created["part_words"]),
        (&131_072.into(), &32_768.into())
    );
    let parts = json_of(
        &[
            "create",
            "parted",
            "--json",
            "--volume-words",
            "4096",
            "--part-words",
            "1024",
        ],
        dir.path(),
    );
    assert_eq!(
        (&parts["volume_words"], &parts["part_words"]),
        (&4096.into(), &1024.into())
    );
    let loaded = json_of(&["load", "idx", "in", "--json"], dir.path());
    assert_eq!(loaded["books"], 3);
    assert_eq!(loaded["skipped"].as_array().unwrap().len(), 0);

    let result = json_of(&["query", "idx", "--key", "original", "--json"], dir.path());
    assert_eq!(result["query"]["key"], "original");
    assert_eq!(result["score_name"], "order");
    assert!(result["hits"][0]["hit_words"][1].as_u64().unwrap() > 0);
    assert_eq!(result["hits"][0]["hit_part"], 0);
    assert_eq!(result["hits"][0]["key"], "edition");
    assert!(result["hits"][0]["score"].as_f64().unwrap() > 0.5);
    assert_eq!(result["explain"]["books"], 2);
    assert_eq!(result["hits"].as_array().unwrap().len(), 1);

    let output = common::run(
        common::cli()
            .args(["pairs", "idx", "--json", "-q"])
            .current_dir(dir.path()),
    );
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    let mut pair = [
        lines[0]["a"].as_str().unwrap(),
        lines[0]["b"].as_str().unwrap(),
    ];
    pair.sort();
    assert_eq!(pair, ["edition", "original"]);

    let output = common::run(
        common::cli()
            .args([
                "pairs",
                "idx",
                "-q",
                "-o",
                "pairs.tsv",
                "--clusters",
                "clusters.tsv",
            ])
            .current_dir(dir.path()),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    let clusters = std::fs::read_to_string(dir.path().join("clusters.tsv")).unwrap();
    assert_eq!(
        clusters.lines().collect::<Vec<_>>(),
        ["cluster\tsize\tkey", "1\t2\tedition", "1\t2\toriginal"]
    );

    assert_eq!(json_of(&["stats", "idx", "--json"], dir.path())["books"], 3);
    assert_eq!(
        json_of(&["verify", "idx", "--json"], dir.path())["books"],
        3
    );
    let deleted = json_of(&["delete", "idx", "other", "missing", "--json"], dir.path());
    assert_eq!(
        (deleted["deleted"].as_u64(), deleted["asked"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(json_of(&["stats", "idx", "--json"], dir.path())["books"], 2);
}
