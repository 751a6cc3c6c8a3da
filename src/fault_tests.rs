//! Fault-injection walks over every write operation of an index: create,
//! load, replace, delete, the end-of-load compaction, the compaction of
//! the whole index (`Index::compact`), upgrade, removing a dictionary and
//! adding a book of word images.
//!
//! Each walk first runs its operation once with the operations of the
//! index directory counted through the file seam
//! ([`crate::storage::fs::faults`]): N of them, whatever writes them (the
//! catalog's storage backend counts too, once it calls the hook). Then, for
//! every n in 1..=N and for both an I/O error and a crash at operation n,
//! it runs the operation on a fresh copy of the starting index with that
//! fault armed, drops everything, disarms, and checks that:
//!
//! - the index opens, and read-only use (open, stats, `verify`, reading
//!   every book, exact and approximate queries) succeeds and writes
//!   nothing;
//! - exactly the books of committed batches are present, each with the
//!   sequence and page signatures a clean run gives it: the batches the
//!   operation reported committed, and at most the one in flight when the
//!   fault hit the catalog (whose commit may have landed);
//! - running the operation again (resuming) succeeds and reaches the books,
//!   query answers, dictionaries and books of word images of a clean run,
//!   and leaves no file the catalog does not list.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use crate::query::{Mode, QueryOptions};
use crate::repr::{MinHashSig, UniqueWordSeq};
use crate::storage::fs::faults::{self, Fault, FaultPlan};
use crate::{Document, Error, Index, LoadEvent, LoadOptions, Result};

/// Every book with its sequence and page signatures.
type Books = BTreeMap<String, (Vec<UniqueWordSeq>, Vec<MinHashSig>)>;

/// Per stored key, the exact and the approximate hits: (key, score bits),
/// sorted by key, so that ties ranked by (differing) ids compare equal.
type Answers = BTreeMap<String, [Vec<(String, u64)>; 2]>;

/// What a finished operation leaves, for comparing a resumed run with a
/// clean one.
#[derive(Debug, PartialEq)]
struct Final {
    version: u16,
    books: Books,
    answers: Answers,
    /// The names of the dictionaries.
    dictionaries: Vec<String>,
    /// The keys of the books of word images.
    image_books: Vec<String>,
    /// Files the catalog does not list, which `verify` names.
    unlisted_files: Vec<PathBuf>,
}

/// How a faulted run ended.
struct Outcome {
    /// The operation returned `Ok`.
    ok: bool,
    /// Batches the operation reported committed.
    acked: usize,
    /// The fault hit the catalog rather than a barrel, page file or segment
    /// (or their directories).
    in_catalog: bool,
    /// The fault was a crash (nothing reported after it), not an error.
    crashed: bool,
}

/// One operation to walk.
struct Walk {
    name: &'static str,
    /// Makes the index the operation starts from, in `dir` (not counted).
    setup: fn(&Path),
    /// Runs the operation on the index in `dir`, counting into `acked` the
    /// batches it reports committed; drops everything before returning.
    run: fn(&Path, &mut usize) -> Result<()>,
    /// The books after 0, 1, ... commits, from those before the operation
    /// and those after a clean run.
    states: fn(&Books, &Books) -> Vec<Books>,
    /// The states (indexes into `states`) a faulted run may leave.
    allowed: fn(&Outcome, usize) -> RangeInclusive<usize>,
    /// Whether a faulted run may leave no index at all (creation).
    may_leave_none: bool,
}

/// Word `i` of a vocabulary of distinct pseudo-words in no alphabetical order.
fn word(i: u32) -> String {
    crate::testing::letters(i.wrapping_mul(0x9E37_79B1))
}

/// Book `i` under `key`: three pages of 80 words, from a stretch of text
/// its family (three consecutive numbers) shares, shifted by `variant`
/// so that editions overlap without being equal.
fn book(key: &str, i: u32, variant: u32) -> Document {
    let start = (i / 3) * 1000 + (i % 3) * 30 + variant * 7;
    let pages: Vec<String> = (0..3)
        .map(|p| {
            let from = start + p * 80;
            (from..from + 80).map(word).collect::<Vec<_>>().join(" ")
        })
        .collect();
    Document::new(key, pages.join("\n\x0c"))
}

/// Books `range` under keys "bNNN".
fn books(range: std::ops::Range<u32>) -> Vec<Document> {
    range.map(|i| book(&format!("b{i:03}"), i, 0)).collect()
}

/// Barrels and page files start a new file past this many bytes, so that
/// loads create files as well as append to them.
const SMALL_FILES: u64 = 4096;

/// Loads `docs` into the index in `dir` on one worker thread, `batch`
/// books per commit; `acked` counts the committed batches.
fn load(dir: &Path, docs: Vec<Document>, batch: usize, acked: &mut usize) -> Result<()> {
    let index = Index::open(dir)?;
    let mut loader = index.bulk_loader(LoadOptions {
        threads: 1,
        batch_books: batch,
        max_barrel_bytes: SMALL_FILES,
        passages: None,
    })?;
    loader.on_progress(|event| {
        if let LoadEvent::Committed { .. } = event {
            *acked += 1;
        }
    });
    for doc in docs {
        loader.add(doc)?;
    }
    let stats = loader.finish()?;
    assert!(stats.skipped.is_empty(), "{:?}", stats.skipped);
    Ok(())
}

fn create_and_load(dir: &Path, docs: Vec<Document>, batch: usize) {
    Index::create(dir).unwrap();
    load(dir, docs, batch, &mut 0).unwrap();
}

/// The states of a load of `docs` in batches of `batch`: the books before
/// it, with the books of the first 0, 1, 2, ... batches as a clean run
/// stores them.
fn batch_states(docs: &[Document], batch: usize, before: &Books, after: &Books) -> Vec<Books> {
    let mut states = vec![before.clone()];
    for chunk in docs.chunks(batch) {
        let mut next = states.last().expect("one state at least").clone();
        for doc in chunk {
            next.insert(doc.key.clone(), after[&doc.key].clone());
        }
        states.push(next);
    }
    assert_eq!(
        states.last(),
        Some(after),
        "the batches make the clean result"
    );
    states
}

/// A load's possible states after a fault: exactly the batches it
/// reported committed when the fault was an error (a load whose catalog
/// commit fails finds whether the batch landed and says so); after a crash
/// in the catalog, perhaps the batch whose commit was under way too.
fn batches_allowed(outcome: &Outcome, last: usize) -> RangeInclusive<usize> {
    if outcome.ok {
        return last..=last;
    }
    let upper = if outcome.in_catalog && outcome.crashed {
        outcome.acked + 1
    } else {
        outcome.acked
    };
    outcome.acked..=upper.min(last)
}

/// Books loaded first, then by the load walk.
const LOAD_BATCH: usize = 3;
fn load_docs() -> Vec<Document> {
    books(6..18)
}

/// Keys reloaded with other texts by the replace walk, in batches of 2.
const REPLACE_BATCH: usize = 2;
fn replace_docs() -> Vec<Document> {
    [1, 4, 7, 10, 13, 16]
        .into_iter()
        .map(|i| book(&format!("b{i:03}"), i, 3))
        .collect()
}

/// Keys the delete walk deletes: a third of 18 books, so that the delete
/// compacts the segments.
const DELETED: [&str; 6] = ["b000", "b003", "b005", "b009", "b012", "b017"];

/// The format-9 fixture's scanned page and its hOCR.
fn fixture_page() -> crate::images::pages::PageFiles {
    let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v9/pages");
    crate::images::pages::PageFiles {
        image: pages.join("scan-0001.png"),
        ocr: pages.join("scan-0001.hocr"),
    }
}

/// Adds the fixture page as the book of word images `key`.
fn add_page(dir: &Path, key: &str) -> Result<()> {
    let options = crate::images::learn::LearnOptions {
        branching: 4,
        ..Default::default()
    };
    Index::open(dir)?
        .add_word_images(key, &[fixture_page()], &options, &|_| {})
        .map(drop)
}

/// A small dictionary of the walk's words, written beside `dir`.
fn add_dictionary(dir: &Path) {
    let words: Vec<(String, String)> = (0..40)
        .map(|i| (word(i), format!("{}\n{}\n", word(i), word(i + 5000))))
        .collect();
    let entries: Vec<(&str, &str)> = words
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let files = dir.with_extension("dictd");
    std::fs::create_dir_all(&files).unwrap();
    let path = crate::store::dictionaries::tests::write_dictd(&files, "freedict-eng-fra", &entries);
    Index::open(dir).unwrap().add_dictionary(&path).unwrap();
}

/// The format-3 fixture index.
fn v3_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v3/index")
}

const WALKS: &[Walk] = &[
    Walk {
        name: "create",
        setup: |_| {},
        run: |dir, _| match Index::create(dir) {
            // What a user does after an interrupted creation that left a
            // whole index: use it.
            Err(Error::AlreadyExists(_)) => Index::open(dir).map(drop),
            other => other.map(drop),
        },
        states: |before, _| vec![before.clone()],
        allowed: |_, _| 0..=0,
        may_leave_none: true,
    },
    Walk {
        name: "load",
        setup: |dir| create_and_load(dir, books(0..6), LOAD_BATCH),
        run: |dir, acked| load(dir, load_docs(), LOAD_BATCH, acked),
        states: |before, after| batch_states(&load_docs(), LOAD_BATCH, before, after),
        allowed: batches_allowed,
        may_leave_none: false,
    },
    Walk {
        name: "replace",
        setup: |dir| create_and_load(dir, books(0..18), LOAD_BATCH),
        run: |dir, acked| load(dir, replace_docs(), REPLACE_BATCH, acked),
        states: |before, after| batch_states(&replace_docs(), REPLACE_BATCH, before, after),
        allowed: batches_allowed,
        may_leave_none: false,
    },
    Walk {
        name: "delete",
        setup: |dir| create_and_load(dir, books(0..18), LOAD_BATCH),
        run: |dir, _| Index::open(dir)?.delete(&DELETED).map(drop),
        states: |before, after| vec![before.clone(), after.clone()],
        // A delete's one catalog transaction comes before any file
        // operation (the compaction): a fault at a file operation finds
        // it committed. An error in the catalog is reported only when the
        // deletion did not land (a delete whose commit fails reads the
        // catalog file again); a crash there may come before or after.
        allowed: |outcome, _| match (outcome.ok, outcome.in_catalog, outcome.crashed) {
            (true, _, _) | (false, false, _) => 1..=1,
            (false, true, false) => 0..=0,
            (false, true, true) => 0..=1,
        },
        may_leave_none: false,
    },
    Walk {
        name: "compaction",
        // Eight batches: eight segments; one more batch makes nine, which
        // the end of the load compacts into one.
        setup: |dir| create_and_load(dir, books(0..16), 2),
        run: |dir, acked| load(dir, books(16..18), 2, acked),
        states: |before, after| batch_states(&books(16..18), 2, before, after),
        allowed: batches_allowed,
        may_leave_none: false,
    },
    Walk {
        name: "full compaction",
        setup: |dir| {
            create_and_load(dir, books(0..18), LOAD_BATCH);
            load(dir, replace_docs(), REPLACE_BATCH, &mut 0).unwrap();
            Index::open(dir).unwrap().delete(&DELETED[..2]).unwrap();
        },
        run: |dir, _| Index::open(dir)?.compact().map(drop),
        // A compaction changes where records are, never which books.
        states: |before, _| vec![before.clone()],
        allowed: |_, _| 0..=0,
        may_leave_none: false,
    },
    Walk {
        name: "upgrade",
        setup: |dir| copy_dir(&v3_fixture(), dir),
        run: |dir, _| Index::upgrade(dir).map(drop),
        // Stopped before its rename, the old index is as it was (checked
        // in `read_only_use`); after it, the upgraded index is whole.
        states: |_, after| vec![after.clone()],
        allowed: |_, _| 0..=0,
        may_leave_none: true,
    },
    Walk {
        name: "dictionary remove",
        setup: |dir| {
            create_and_load(dir, books(0..6), LOAD_BATCH);
            add_dictionary(dir);
        },
        // Run again after its commit, a remove finds no dictionary of
        // that name: `Ok(None)`, as for a user running it twice.
        run: |dir, _| {
            Index::open(dir)?
                .remove_dictionary("freedict-eng-fra")
                .map(drop)
        },
        states: |before, _| vec![before.clone()],
        allowed: |_, _| 0..=0,
        may_leave_none: false,
    },
    Walk {
        name: "images add",
        setup: |dir| {
            create_and_load(dir, books(0..6), LOAD_BATCH);
            add_page(dir, "scan").unwrap();
        },
        // A second book: a search file replaced, a book file added.
        run: |dir, _| add_page(dir, "scan-two"),
        states: |before, _| vec![before.clone()],
        allowed: |_, _| 0..=0,
        may_leave_none: false,
    },
];

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The books of the index in `dir`, after checking that it opens, gives
/// its stats, verifies and answers queries, all without writing; `None`
/// when `dir` holds no index and `may_be_none`.
fn read_only_use(root: &Path, dir: &Path, may_be_none: bool) -> Option<(Books, Answers, Final)> {
    let counter = faults::count(root);
    let index = match Index::open_read_only(dir) {
        Err(Error::NotAnIndex(_) | Error::IncompleteIndex(_)) if may_be_none => return None,
        // An upgrade that stopped before its rename: the old index, whole.
        Err(Error::UpgradeRequired(_)) if may_be_none => {
            let catalog = std::fs::read(dir.join("catalog.redb")).unwrap();
            assert!(
                catalog == std::fs::read(v3_fixture().join("catalog.redb")).unwrap(),
                "an unfinished upgrade changed the old catalog"
            );
            return None;
        }
        other => other.unwrap_or_else(|e| panic!("the index does not open: {e}")),
    };
    let stats = index.stats().unwrap_or_else(|e| panic!("stats: {e}"));
    let verified = index.verify().unwrap_or_else(|e| panic!("verify: {e}"));
    let reader = index.reader().unwrap_or_else(|e| panic!("reader: {e}"));
    let mut books = Books::new();
    for info in reader.books() {
        let sequence = reader.parts(&info.key).unwrap();
        let pages = reader.pages(&info.key).unwrap();
        books.insert(info.key.clone(), (sequence, pages));
    }
    assert_eq!(
        (stats.books, verified.books),
        (books.len() as u64, books.len() as u64)
    );
    let mut answers = Answers::new();
    for key in books.keys() {
        let hits = [Mode::Exact, Mode::Approximate].map(|mode| {
            let options = QueryOptions {
                mode,
                ..QueryOptions::default()
            };
            let result = reader
                .query_key(key, &options)
                .unwrap_or_else(|e| panic!("query {key} ({mode:?}): {e}"));
            let mut hits: Vec<(String, u64)> = result
                .hits
                .into_iter()
                .map(|hit| (hit.key, hit.score.to_bits()))
                .collect();
            hits.sort();
            hits
        });
        answers.insert(key.clone(), hits);
    }
    let version = index.format_version();
    let extras = Final {
        version,
        books: Books::new(),
        answers: Answers::new(),
        dictionaries: index
            .dictionaries()
            .unwrap_or_else(|e| panic!("dictionaries: {e}"))
            .into_iter()
            .map(|d| d.name)
            .collect(),
        image_books: index
            .image_books()
            .unwrap_or_else(|e| panic!("image books: {e}"))
            .into_iter()
            .map(|b| b.key)
            .collect(),
        unlisted_files: verified.unlisted_files.clone(),
    };
    drop(reader);
    drop(index);
    assert_eq!(
        counter.operations(),
        0,
        "read-only use wrote to the index: {:#?}",
        counter.log()
    );
    Some((books, answers, extras))
}

/// The index in `dir` after a finished operation.
fn finished(root: &Path, dir: &Path) -> Final {
    let (books, answers, extras) = read_only_use(root, dir, false).expect("an index");
    Final {
        books,
        answers,
        ..extras
    }
}

/// Walks every fault of `walk`; returns the number of operations counted.
fn walk(walk: &Walk) -> u64 {
    let base = tempfile::tempdir().unwrap();
    let start = base.path().join("index");
    (walk.setup)(&start);
    let before = match read_only_use(base.path(), &start, walk.may_leave_none) {
        Some((books, _, _)) => books,
        None => Books::new(),
    };

    let clean_root = tempfile::tempdir().unwrap();
    let clean_dir = clean_root.path().join("index");
    if start.exists() {
        copy_dir(&start, &clean_dir);
    }
    let counter = faults::count(clean_root.path());
    (walk.run)(&clean_dir, &mut 0).unwrap_or_else(|e| panic!("{}: clean run: {e}", walk.name));
    let operations = counter.operations();
    drop(counter);
    let clean = finished(clean_root.path(), &clean_dir);
    assert!(
        clean.unlisted_files.is_empty(),
        "{}: a clean run leaves unlisted files {:?}",
        walk.name,
        clean.unlisted_files
    );
    let states = (walk.states)(&before, &clean.books);
    let last = states.len() - 1;

    for at in 1..=operations {
        for kind in [Fault::Error, Fault::Crash] {
            let case = format!("{}: {kind:?} at operation {at} of {operations}", walk.name);
            let root = tempfile::tempdir().unwrap();
            let dir = root.path().join("index");
            if start.exists() {
                copy_dir(&start, &dir);
            }
            let mut acked = 0;
            let armed = faults::arm(root.path(), FaultPlan { at, kind });
            let result = (walk.run)(&dir, &mut acked);
            let fired = armed.fired();
            drop(armed);
            let Some((_, what)) = fired else {
                panic!("{case}: never reached (the operation count is not deterministic)");
            };
            let case = format!("{case} ({what})");
            let outcome = Outcome {
                ok: result.is_ok(),
                acked,
                in_catalog: what.contains("/catalog"),
                crashed: kind == Fault::Crash,
            };
            let found =
                std::panic::catch_unwind(|| read_only_use(root.path(), &dir, walk.may_leave_none))
                    .unwrap_or_else(|_| panic!("{case}: after the fault (run: {result:?})"));
            if let Some((books, _, _)) = found {
                let allowed = (walk.allowed)(&outcome, last);
                let matched: Vec<usize> = (0..=last).filter(|&k| states[k] == books).collect();
                assert!(
                    matched.iter().any(|k| allowed.contains(k)),
                    "{case}: the books match states {matched:?} of 0..={last}, expected one of {allowed:?} (run: {result:?}, batches committed: {acked})"
                );
            }
            (walk.run)(&dir, &mut 0).unwrap_or_else(|e| panic!("{case}: resuming: {e}"));
            let resumed = std::panic::catch_unwind(|| finished(root.path(), &dir))
                .unwrap_or_else(|_| panic!("{case}: after resuming"));
            assert!(
                resumed == clean,
                "{case}: resuming does not reach the clean result (unlisted files {:?})",
                resumed.unlisted_files
            );
        }
    }
    operations
}

/// Runs the walk called `name`, requiring at least `min` operations (a
/// walk that counts fewer no longer exercises what it should).
fn walk_named(name: &str, min: u64) {
    let w = WALKS
        .iter()
        .find(|w| w.name == name)
        .expect("a walk of that name");
    let operations = walk(w);
    eprintln!("{name}: {operations} operations");
    assert!(operations >= min, "{name}: only {operations} operations");
}

#[test]
fn faults_while_creating_an_index() {
    walk_named("create", 3);
}

#[test]
fn faults_while_loading() {
    walk_named("load", 30);
}

#[test]
fn faults_while_replacing() {
    walk_named("replace", 20);
}

#[test]
fn faults_while_deleting() {
    walk_named("delete", 5);
}

#[test]
fn faults_in_the_end_of_load_compaction() {
    walk_named("compaction", 10);
}

#[test]
fn faults_while_compacting_the_index() {
    walk_named("full compaction", 30);
}

#[test]
fn faults_while_upgrading() {
    walk_named("upgrade", 4);
}

#[test]
fn faults_while_removing_a_dictionary() {
    walk_named("dictionary remove", 5);
}

#[test]
fn faults_while_adding_word_images() {
    walk_named("images add", 10);
}
