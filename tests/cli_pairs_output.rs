//! What `pairs` writes: the same bytes for any number of threads.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use stemmata::Index;

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
