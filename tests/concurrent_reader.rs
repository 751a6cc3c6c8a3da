//! Readers are snapshots: a load running in another thread neither changes
//! a reader taken before it nor shows a new reader a half-written batch.

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use stemmata::{Document, Index, LoadEvent, LoadOptions, QueryOptions};

const INITIAL: usize = 20;

/// Initial book `i`: 300 words of its own.
fn initial(i: u32) -> Document {
    Document::new(format!("old{i:03}"), common::text(i * 1000, 300))
}

/// New book `i`: the second half of initial book `i % INITIAL` and 150 new
/// words, so every new book is related to an initial one.
fn new_book(i: u32) -> Document {
    let base = (i % INITIAL as u32) * 1000;
    let text = format!(
        "{} {}",
        common::text(base + 150, 150),
        common::text(100_000 + i * 1000, 150)
    );
    Document::new(format!("new{i:03}"), text)
}

fn index_with_initial_books() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, (0..INITIAL as u32).map(initial).collect(), 7);
    (dir, index)
}

fn options(batch_books: usize) -> LoadOptions {
    LoadOptions::default().threads(2).batch_books(batch_books)
}

#[test]
fn a_reader_taken_before_a_load_keeps_its_snapshot_during_and_after_the_load() {
    let (_dir, index) = index_with_initial_books();
    let old = index.reader().unwrap();
    let old_hits = old
        .query_key("old003", &QueryOptions::default())
        .unwrap()
        .hits;
    assert!(old_hits.is_empty(), "initial books are unrelated");
    let probe = new_book(3).text;
    assert!(
        old.query_text(&probe, &QueryOptions::default())
            .unwrap()
            .hits[0]
            .key
            == "old003"
    );
    let old_sequences: Vec<_> = old
        .books()
        .iter()
        .map(|b| old.parts(&b.key).unwrap())
        .collect();

    let done = AtomicBool::new(false);
    let mut checks_during_load = 0;
    std::thread::scope(|scope| {
        let loader = scope.spawn(|| {
            let mut loader = index.bulk_loader(options(10)).unwrap();
            loader.on_progress(|event| {
                if let LoadEvent::Committed { .. } = event {
                    std::thread::sleep(Duration::from_millis(1));
                }
            });
            for i in 0..200 {
                loader.add(new_book(i)).unwrap();
            }
            let stats = loader.finish();
            done.store(true, Ordering::Release);
            stats
        });
        while !done.load(Ordering::Acquire) {
            assert_eq!(old.len(), INITIAL);
            let hits = old
                .query_key("old003", &QueryOptions::default())
                .unwrap()
                .hits;
            assert_eq!(hits, old_hits);
            let hits = old
                .query_text(&probe, &QueryOptions::default())
                .unwrap()
                .hits;
            assert_eq!(hits.len(), 1, "the old snapshot sees a new book");
            checks_during_load += 1;
        }
        let stats = loader.join().unwrap().unwrap();
        assert_eq!(stats.books, 200);
        assert_eq!(stats.commits, 20);
    });
    assert!(checks_during_load > 0);

    // Still the old snapshot after the load.
    assert_eq!(old.len(), INITIAL);
    assert!(old.book("new003").is_err());
    assert_eq!(
        old.query_key("old003", &QueryOptions::default())
            .unwrap()
            .hits,
        old_hits
    );
    for (book, sequence) in old.books().iter().zip(&old_sequences) {
        assert_eq!(&old.parts(&book.key).unwrap(), sequence);
    }

    // A new reader sees the new books, and they are found.
    let new = index.reader().unwrap();
    assert_eq!(new.len(), INITIAL + 200);
    let hits = new
        .query_key("old003", &QueryOptions::default().top_k(0))
        .unwrap()
        .hits;
    let found: BTreeSet<&str> = hits.iter().map(|h| h.key.as_str()).collect();
    let expected: BTreeSet<String> = (0..200)
        .filter(|i| i % INITIAL as u32 == 3)
        .map(|i| format!("new{i:03}"))
        .collect();
    // The new books sharing text with old003 all share the same half, so
    // they are related to one another as well; old003's hits are those books.
    assert_eq!(found, expected.iter().map(String::as_str).collect());
    index.verify().unwrap();
}

#[test]
fn a_reader_opened_at_each_commit_sees_exactly_the_books_committed_so_far() {
    let (_dir, index) = index_with_initial_books();
    let reference = common::reference_sequences(&(0..60).map(new_book).collect::<Vec<_>>());
    let mut added: Vec<String> = Vec::new();
    let mut commits = 0;
    {
        let mut loader = index.bulk_loader(options(7)).unwrap();
        loader.on_progress(|event| match event {
            LoadEvent::Added { key, .. } => added.push(key.to_string()),
            LoadEvent::Committed { books } => {
                commits += 1;
                assert_eq!(*books as usize, added.len());
                assert!(added.len().is_multiple_of(7) || added.len() == 60);
                let reader = index.reader().unwrap();
                assert_eq!(reader.len(), INITIAL + added.len());
                let visible: BTreeSet<&str> = reader
                    .books()
                    .iter()
                    .map(|b| b.key.as_str())
                    .filter(|k| k.starts_with("new"))
                    .collect();
                assert_eq!(visible, added.iter().map(String::as_str).collect());
                for key in &visible {
                    assert_eq!(reader.parts(key).unwrap(), reference[*key]);
                }
                assert_eq!(
                    index.verify().unwrap().books as usize,
                    INITIAL + added.len()
                );
            }
            LoadEvent::Skipped { .. } => panic!("nothing should be skipped"),
            _ => {}
        });
        for i in 0..60 {
            loader.add(new_book(i)).unwrap();
        }
        let stats = loader.finish().unwrap();
        assert_eq!(stats.books, 60);
    }
    assert_eq!(commits, 9);
    assert_eq!(index.reader().unwrap().len(), INITIAL + 60);
}

#[test]
fn readers_opened_during_a_load_in_another_thread_see_whole_batches_only() {
    let (_dir, index) = index_with_initial_books();
    let docs: Vec<Document> = (0..150).map(new_book).collect();
    let reference = common::reference_sequences(&docs);
    let initial_sequences = common::sequences_of(&index);
    let done = AtomicBool::new(false);
    let mut seen_counts = BTreeSet::new();
    std::thread::scope(|scope| {
        let loader = scope.spawn(|| {
            let mut loader = index.bulk_loader(options(10)).unwrap();
            loader.on_progress(|event| {
                if let LoadEvent::Committed { .. } = event {
                    std::thread::sleep(Duration::from_millis(2));
                }
            });
            loader.extend(docs.iter().cloned().map(Ok)).unwrap();
            let stats = loader.finish();
            done.store(true, Ordering::Release);
            stats
        });
        let mut last = 0;
        while !done.load(Ordering::Acquire) {
            let reader = index.reader().unwrap();
            let new = reader.len() - INITIAL;
            assert_eq!(new % 10, 0, "a reader saw {new} new books: half a batch");
            assert!(new >= last, "book count went back from {last} to {new}");
            last = new;
            for book in reader.books() {
                let sequence = reader.parts(&book.key).unwrap();
                let expected = reference
                    .get(&book.key)
                    .or(initial_sequences.get(&book.key))
                    .unwrap_or_else(|| panic!("unknown book {}", book.key));
                assert_eq!(&sequence, expected, "{}", book.key);
            }
            // verify takes a snapshot of its own, possibly a later one.
            let verified = index.verify().unwrap().books as usize;
            assert!(verified >= reader.len() && (verified - INITIAL).is_multiple_of(10));
            seen_counts.insert(new);
        }
        assert_eq!(loader.join().unwrap().unwrap().books, 150);
    });
    assert!(
        seen_counts.len() >= 3,
        "the reader saw too few states of the load: {seen_counts:?}"
    );
    assert_eq!(common::sequences_of(&index).len(), INITIAL + 150);
}
