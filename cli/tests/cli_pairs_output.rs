//! What `pairs` writes: never a file inside the index it reads, the same
//! bytes for any number of threads, and whole lines whatever the keys.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use stemmata::storage::catalog::{Access, Catalog, CatalogBatch};
use stemmata::storage::segment;
use stemmata::storage::segment_merge::{self, Fate};
use stemmata::{Document, Index};

/// An index in `dir/idx` of a generated collection of `families` families.
fn collection_index(dir: &Path, families: usize) -> PathBuf {
    let path = dir.join("idx");
    let index = Index::create(&path).unwrap();
    let docs = common::documents(&common::small_collection(families, 7, 300, 900));
    common::load_docs(&index, docs, 50);
    path
}

/// Runs `stemmata pairs INDEX ARGS -q`.
fn pairs(index: &Path, args: &[&str]) -> std::process::Output {
    common::run(common::cli().arg("pairs").arg(index).args(args).arg("-q"))
}

#[test]
fn pairs_refuses_to_write_its_output_inside_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let idx = collection_index(dir.path(), 3);
    let catalog = idx.join("catalog.redb");
    let before = common::snapshot_files(&idx);
    let link = dir.path().join("link.tsv");
    std::os::unix::fs::symlink(&catalog, &link).unwrap();
    let dangling = dir.path().join("dangling.tsv");
    std::os::unix::fs::symlink(idx.join("fresh.tsv"), &dangling).unwrap();
    let linked_dir = dir.path().join("linked-dir");
    std::os::unix::fs::symlink(&idx, &linked_dir).unwrap();
    let show = |p: &Path| p.display().to_string();
    let cases: Vec<(&str, String)> = vec![
        ("-o", show(&catalog)),
        ("--clusters", show(&catalog)),
        ("-o", show(&idx.join("barrels").join("000001.brl"))),
        (
            "-o",
            show(&idx.join("not-yet").join("deeper").join("out.tsv")),
        ),
        ("-o", show(&idx.join("..").join("idx").join("catalog.redb"))),
        ("-o", show(&link)),
        ("--clusters", show(&dangling)),
        ("-o", show(&linked_dir.join("out.tsv"))),
    ];
    for (option, path) in &cases {
        let output = pairs(&idx, &[option, path]);
        let stderr = common::stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{option} {path}: {stderr}");
        let expected = format!(
            "error: {path}: is inside the index {}; write the output elsewhere",
            idx.display()
        );
        assert_eq!(stderr.trim_end(), expected, "{option} {path}");
        assert!(
            common::snapshot_files(&idx) == before,
            "{option} {path} changed the index"
        );
    }
    assert!(!idx.join("not-yet").exists() && !idx.join("fresh.tsv").exists());
    // Relative paths, from inside the index.
    let output = common::run(
        common::cli()
            .args(["pairs", ".", "-q", "-o", "catalog.redb"])
            .current_dir(&idx),
    );
    assert_eq!(output.status.code(), Some(1), "{}", common::stderr(&output));
    assert!(common::snapshot_files(&idx) == before);

    let output = common::run(common::cli().arg("verify").arg(&idx));
    assert!(output.status.success(), "{}", common::stderr(&output));
    // Outside the index, beside it, is fine.
    let out = dir.path().join("pairs.tsv");
    let clusters = dir.path().join("clusters.tsv");
    let output = pairs(&idx, &["-o", &show(&out), "--clusters", &show(&clusters)]);
    assert!(output.status.success(), "{}", common::stderr(&output));
    assert!(std::fs::read_to_string(&out).unwrap().lines().count() > 1);
    assert!(std::fs::read_to_string(&clusters).unwrap().lines().count() > 1);
}

#[test]
fn pairs_lines_are_in_id_order_and_the_same_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let idx = collection_index(dir.path(), 100);
    // Slots are in internal-id order.
    let slot: HashMap<String, usize> = {
        let reader = Index::open(&idx).unwrap().reader().unwrap();
        let books = reader.books();
        assert!(books.windows(2).all(|w| w[0].id < w[1].id));
        books
            .iter()
            .enumerate()
            .map(|(i, b)| (b.key.clone(), i))
            .collect()
    };
    for mode in ["exact", "approximate"] {
        let run = |threads: &str| {
            let output = pairs(&idx, &["--mode", mode, "--threads", threads]);
            assert!(output.status.success(), "{}", common::stderr(&output));
            String::from_utf8(output.stdout).unwrap()
        };
        let one = run("1");
        let lines: Vec<(usize, usize)> = one
            .lines()
            .skip(1)
            .map(|line| {
                let mut columns = line.split('\t');
                let mut slot_of = || slot[columns.next().unwrap()];
                (slot_of(), slot_of())
            })
            .collect();
        assert!(lines.len() > 100, "{mode}: only {} pairs", lines.len());
        assert!(
            lines.windows(2).all(|w| w[0] < w[1]),
            "{mode}: not in id order"
        );
        for threads in ["2", "3", "7"] {
            assert!(run(threads) == one, "{mode}: --threads {threads} differs");
        }
    }
}

/// Gives the books of the index in `dir` new keys and titles (key → (new
/// key, new title)) straight in the catalog, as a build that did not check
/// keys could have stored them.
fn rekey(dir: &Path, new: &[(&str, &str, &str)]) {
    let (catalog, _) = Catalog::open(&dir.join("catalog.redb"), Access::ReadWrite).unwrap();
    let snapshot = catalog.snapshot().unwrap();
    let mut batch = CatalogBatch {
        next_book_id: snapshot.next_book_id().unwrap(),
        ..CatalogBatch::default()
    };
    for (id, mut entry) in snapshot.books().unwrap() {
        if let Some(&(old, key, title)) = new.iter().find(|n| n.0 == entry.key) {
            batch.delete_keys.push(old.to_string());
            entry.key = key.to_string();
            entry.title = title.to_string();
            batch.insert.push((id, entry));
        }
    }
    assert_eq!(batch.insert.len(), new.len());
    drop(snapshot);
    catalog.commit(&batch).unwrap();
    // Readers take entries from the segments: they are rewritten too.
    let snapshot = catalog.snapshot().unwrap();
    let next_book_id = snapshot.next_book_id().unwrap();
    for (n, _) in snapshot.segments().unwrap() {
        let path = dir.join("segments").join(format!("{n:06}.seg"));
        let segment = segment::Segment::open_checked(&path).unwrap();
        let renamed = |id: u32| {
            let position = segment.book_ids().position(|i| i == id).unwrap();
            let (mut entry, pages) = segment.entry(position).unwrap();
            match new.iter().find(|n| n.0 == entry.key) {
                Some(&(_, key, title)) => {
                    entry.key = key.to_string();
                    entry.title = title.to_string();
                    Fate::Relocate(entry, pages)
                }
                None => Fate::Keep,
            }
        };
        let rewritten = path.with_extension("new");
        let len = segment_merge::write(&rewritten, &[&segment], renamed).unwrap();
        drop(segment);
        std::fs::rename(&rewritten, &path).unwrap();
        catalog
            .commit(&CatalogBatch {
                add_segments: vec![(n, len)],
                next_book_id,
                ..CatalogBatch::default()
            })
            .unwrap();
    }
}

#[test]
fn text_output_escapes_keys_and_titles_an_older_build_stored() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    let base = common::text(0, 600);
    let index = Index::create(&idx).unwrap();
    common::load_docs(
        &index,
        vec![
            Document::new("original", base.clone()),
            Document::new("edition", format!("{} {base}", common::text(5_000, 80))),
            Document::new("reprint", format!("{base} {}", common::text(7_000, 80))),
        ],
        10,
    );
    drop(index);
    rekey(
        &idx,
        &[
            ("original", "tab\there", "A\ttitle"),
            ("edition", "new\nline", "Two\nlines"),
            ("reprint", "back\\slash\r\u{1}", ""),
        ],
    );
    let pairs_tsv = dir.path().join("pairs.tsv");
    let clusters_tsv = dir.path().join("clusters.tsv");
    let output = pairs(
        &idx,
        &[
            "--relations",
            "-o",
            pairs_tsv.to_str().unwrap(),
            "--clusters",
            clusters_tsv.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    let escaped = ["tab\\there", "new\\nline", "back\\\\slash\\r\\u{1}"];
    let text = std::fs::read_to_string(&pairs_tsv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text:?}");
    for line in &lines {
        // 10 columns, then each book's part and matched words.
        assert_eq!(line.split('\t').count(), 14, "{line:?}");
        assert!(!line.contains('\r') && !line.contains('\u{1}'), "{line:?}");
    }
    for line in &lines[1..] {
        let columns: Vec<&str> = line.split('\t').collect();
        assert!(escaped.contains(&columns[0]) && escaped.contains(&columns[1]));
        // Books of one part; the matched words a range of each.
        assert_eq!((columns[10], columns[12]), ("0", "0"), "{line:?}");
        for range in [columns[11], columns[13]] {
            let (start, end) = range.split_once('-').unwrap();
            assert!(
                start.parse::<u32>().unwrap() < end.parse::<u32>().unwrap(),
                "{line:?}"
            );
        }
        assert!(
            columns[9] == "-" || escaped.contains(&columns[9]),
            "{line:?}"
        );
    }
    let text = std::fs::read_to_string(&clusters_tsv).unwrap();
    let keys: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|line| {
            let columns: Vec<&str> = line.split('\t').collect();
            assert_eq!(columns.len(), 3, "{line:?}");
            columns[2]
        })
        .collect();
    let mut sorted = escaped.to_vec();
    sorted.sort();
    assert_eq!(keys, sorted, "{text:?}");

    // The hit list of a query: one line per hit, key and title escaped.
    let output = common::run(
        common::cli()
            .arg("query")
            .arg(&idx)
            .args(["--key", "back\\slash\r\u{1}"]),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 3, "{stdout:?}");
    assert!(
        !stdout.contains('\t') && !stdout.contains('\r'),
        "{stdout:?}"
    );
    assert!(stdout.contains("tab\\there") && stdout.contains("A\\ttitle"));
    assert!(stdout.contains("new\\nline") && stdout.contains("Two\\nlines"));
    // JSON keeps the keys as they are stored.
    let output = pairs(&idx, &["--json"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 3, "{stdout:?}");
    assert!(stdout.contains(r#""tab\there""#), "{stdout:?}");
}
