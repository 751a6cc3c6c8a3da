//! `stemmata generate`: writes a labelled set, refuses a non-empty directory.

use std::process::Command;

fn stemmata() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stemmata"))
}

#[test]
fn generate_writes_a_set_and_refuses_a_non_empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("noisy");
    let run = |out: &std::path::Path| {
        stemmata()
            .args([
                "generate",
                "noisy-copies",
                "--books",
                "4",
                "--quiet",
                "--json",
                "--out",
            ])
            .arg(out)
            .output()
            .unwrap()
    };
    let output = run(&out);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["books"], 8);
    assert_eq!(summary["pairs"], 4);
    let pairs = std::fs::read_to_string(out.join("pairs.tsv")).unwrap();
    assert!(pairs.starts_with("a\tb\trelation\tnote\tband\n"));

    let again = run(&out);
    assert!(!again.status.success());
    let message = String::from_utf8_lossy(&again.stderr);
    assert!(message.contains("not empty"), "{message}");
    assert!(message.contains("noisy"), "{message}");
}

#[test]
fn eval_reports_recall_per_band_and_leaves_excluded_bands_out() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("noisy");
    let written = stemmata()
        .args([
            "generate",
            "noisy-copies",
            "--books",
            "27",
            "--quiet",
            "--out",
        ])
        .arg(&set)
        .output()
        .unwrap();
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    let eval = |extra: &[&str]| {
        stemmata()
            .args(["eval", "--quiet", "--json", "--corpus"])
            .arg(&set)
            .args(extra)
            .output()
            .unwrap()
    };
    let output = eval(&["--exclude-band", "noise 20%+20%", "--gate-band-recall", "0"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = report["recall_by_band"].as_array().unwrap();
    let row = |band: &str| rows.iter().find(|r| r["band"] == band).unwrap().clone();
    assert_eq!(row("all")["relation"], "edition");
    assert_eq!(row("all")["pairs"], 26, "the excluded pair is left out");
    assert_eq!(row("noise 20%+20%")["excluded"], true);
    assert_eq!(row("noise 1%+1%")["exact_recall"], 1.0);
    assert!(row("noise 1%+1%")["approximate_recall"].is_number());

    // A recall above 1 can never be met: the gate fails and says which band.
    let failed = eval(&["--gate-band-recall", "1.01", "--gate-f1", "0.5"]);
    assert_eq!(failed.status.code(), Some(1));
    let message = String::from_utf8_lossy(&failed.stderr);
    assert!(
        message.contains("gate failed: edition noise 1%+1%: exact recall"),
        "{message}"
    );

    let unknown = eval(&["--exclude-band", "share 7%"]);
    assert!(!unknown.status.success());
    let message = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        message.contains("pairs.tsv") && message.contains("share 7%"),
        "{message}"
    );
}
