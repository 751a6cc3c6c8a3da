//! `export` and `import`: an index exported to Parquet features and
//! imported into a new one lists the same pairs, byte for byte; export
//! only reads the index and never writes inside it; a damaged file or a
//! file of another schema is an error naming it, and leaves the index as
//! it was.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stemmata::Index;

/// An index in `dir/idx` of a generated collection with pages and volumes.
fn collection_index(dir: &Path) -> PathBuf {
    let path = dir.join("idx");
    let index = Index::builder().parts(4_096, 1_024).create(&path).unwrap();
    let docs = common::documents(&common::small_collection(8, 11, 800, 5_000));
    common::load_docs(&index, docs, 16);
    path
}

fn run_ok(args: &[&str]) -> String {
    common::run_ok(args, Path::new("."))
}

fn run_err(args: &[&str]) -> (Option<i32>, String) {
    let output = common::run(common::cli().args(args));
    (output.status.code(), common::stderr(&output))
}

fn show(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn export_then_import_gives_the_same_pairs_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let idx = collection_index(dir.path());
    let out = dir.path().join("features");
    let before = common::snapshot_files(&idx);
    let summary = run_ok(&[
        "export",
        show(&idx),
        show(&out),
        "--rows-per-file",
        "7",
        "-q",
    ]);
    assert!(summary.starts_with("exported "), "{summary}");
    assert_eq!(
        common::snapshot_files(&idx),
        before,
        "export wrote in the index"
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 2, "{names:?}");
    assert_eq!(names[0], "features-00000.parquet");
    assert_eq!(names[1], "features-00001.parquet");

    let copy = dir.path().join("copy");
    let imported = run_ok(&["import", show(&copy), show(&out), "--create", "-q"]);
    assert!(imported.starts_with("imported "), "{imported}");
    for mode in ["approximate", "exact"] {
        let a = run_ok(&["pairs", show(&idx), "--mode", mode, "-q"]);
        let b = run_ok(&["pairs", show(&copy), "--mode", mode, "-q"]);
        assert!(a.lines().count() > 3, "{mode}: {a}");
        assert_eq!(a, b, "{mode}");
    }

    // The JSON summary, and a second export refused in a non-empty
    // directory unless --force.
    let json = run_ok(&[
        "export",
        show(&copy),
        show(&dir.path().join("again")),
        "--json",
    ]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(value["books"].as_u64().unwrap() > 3, "{json}");
    assert_eq!(value["files"].as_array().unwrap().len(), 1, "{json}");
    assert!(value["bytes"].as_u64().unwrap() > 0, "{json}");
    let (code, stderr) = run_err(&["export", show(&idx), show(&out), "-q"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is not empty"), "{stderr}");
    run_ok(&["export", show(&idx), show(&out), "-q", "--force"]);
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let (code, stderr) = run_err(&["export", show(&idx), show(&out), "-q", "--force"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("notes.txt"), "{stderr}");
    assert!(out.join("notes.txt").exists());
}

#[test]
fn export_refuses_a_directory_inside_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let idx = collection_index(dir.path());
    let before = common::snapshot_files(&idx);
    let inside = idx.join("features");
    let (code, stderr) = run_err(&["export", show(&idx), show(&inside), "-q"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is inside the index"), "{stderr}");
    assert!(!inside.exists());
    assert_eq!(common::snapshot_files(&idx), before);
}

/// An index with a few books, and a directory of their exported features.
fn exported(dir: &Path) -> (PathBuf, PathBuf) {
    let idx = collection_index(dir);
    let out = dir.join("features");
    run_ok(&["export", show(&idx), show(&out), "-q"]);
    (idx, out)
}

#[test]
fn a_damaged_file_is_named_and_leaves_the_index_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let (idx, out) = exported(dir.path());
    let file = out.join("features-00000.parquet");
    let mut bytes = std::fs::read(&file).unwrap();
    // A second file, named after the first, is cut short: the first is
    // good and must not be loaded either.
    let cut = out.join("features-00001.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let target = dir.path().join("target");
    Index::builder()
        .parts(4_096, 1_024)
        .create(&target)
        .unwrap();
    let before = common::snapshot_files(&target);
    let (code, stderr) = run_err(&["import", show(&target), show(&out), "-q"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("features-00001.parquet"), "{stderr}");
    assert_eq!(common::snapshot_files(&target), before);
    // Bytes flipped in the middle of the data: an error, never a panic.
    std::fs::remove_file(&cut).unwrap();
    let middle = bytes.len() / 3;
    for b in &mut bytes[middle..middle + 64] {
        *b ^= 0xa5;
    }
    std::fs::write(&file, &bytes).unwrap();
    let (code, stderr) = run_err(&["import", show(&target), show(&file), "-q"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("features-00000.parquet"), "{stderr}");
    assert_eq!(common::snapshot_files(&target), before);
    // With --create, no index is made for a file that fails.
    let fresh = dir.path().join("fresh");
    let (code, stderr) = run_err(&["import", show(&fresh), show(&file), "--create", "-q"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!fresh.exists(), "{stderr}");
    drop(idx);
}

#[test]
fn a_file_of_another_schema_is_named_and_leaves_the_index_as_it_was() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch};
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::KeyValue;
    use parquet::file::properties::WriterProperties;

    let dir = tempfile::tempdir().unwrap();
    let (idx, out) = exported(dir.path());
    // The good file first, then one with the layout's metadata but only an
    // `id` column.
    let column: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    let batch = RecordBatch::try_from_iter([("id", column)]).unwrap();
    let options = Index::open(&idx).unwrap().feature_options().unwrap();
    let metadata = vec![
        KeyValue::new("stemmata.features".into(), "1".to_string()),
        KeyValue::new(
            "stemmata.options".into(),
            stemmata_parquet::options_json(&options),
        ),
    ];
    let properties = WriterProperties::builder()
        .set_key_value_metadata(Some(metadata))
        .build();
    let bad = out.join("features-00001.parquet");
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(&bad).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let target = dir.path().join("target");
    run_ok(&["create", show(&target)]);
    let before = common::snapshot_files(&target);
    let (code, stderr) = run_err(&["import", show(&target), show(&out), "-q"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("features-00001.parquet") && stderr.contains("column \"key\": missing"),
        "{stderr}"
    );
    assert_eq!(common::snapshot_files(&target), before);
}

#[test]
fn features_of_other_options_are_refused_by_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let (_, out) = exported(dir.path());
    // The default index does not cut books into parts of 1,024 words.
    let target = dir.path().join("target");
    run_ok(&["create", show(&target)]);
    let before = common::snapshot_files(&target);
    let (code, stderr) = run_err(&["import", show(&target), show(&out), "-q"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "features-00000.parquet: row 0: features computed with other options than the index's"
        ),
        "{stderr}"
    );
    assert_eq!(common::snapshot_files(&target), before);
}
