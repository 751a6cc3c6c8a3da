//! Options and inputs past the engine's bounds are refused with a clear
//! error before anything is written: thread counts.

mod common;

use stemmata::threads::MAX_THREADS;
use stemmata::{Document, Index, LoadOptions, PairsOptions};

fn loaded_index(dir: &std::path::Path) -> Index {
    let index = Index::create(dir).unwrap();
    common::load_docs(
        &index,
        vec![
            Document::new("one", common::text(0, 400)),
            Document::new("two", common::text(100, 400)),
        ],
        10,
    );
    index
}

#[test]
fn a_load_with_more_threads_than_the_bound_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let index = loaded_index(dir.path());
    let before = common::snapshot_files(dir.path());
    for threads in [0, MAX_THREADS + 1, 100_000] {
        let error = index
            .bulk_loader(LoadOptions::default().threads(threads))
            .unwrap_err()
            .to_string();
        assert!(error.contains("threads"), "{threads}: {error}");
    }
    assert_eq!(common::snapshot_files(dir.path()), before);
}

#[test]
fn pairs_with_more_threads_than_the_bound_are_refused_and_the_bound_itself_runs() {
    let dir = tempfile::tempdir().unwrap();
    let index = loaded_index(dir.path());
    let reader = index.reader().unwrap();
    for threads in [0, MAX_THREADS + 1, 20_000] {
        let error = reader
            .pairs(&PairsOptions::default().threads(threads).min_score(0.0))
            .unwrap_err()
            .to_string();
        assert!(error.contains("threads"), "{threads}: {error}");
    }
    let pairs = reader
        .pairs(&PairsOptions::default().threads(64).min_score(0.0))
        .unwrap();
    assert_eq!(pairs.pairs.len(), 1);
}
