//! Closing and reopening an index: data and options persist, and the index
//! refuses to be created twice, opened where none exists, or written by two
//! loaders or two openers at once.

mod common;

use stemmata::{Document, Error, Index, LoadOptions, QueryOptions};

fn docs() -> Vec<Document> {
    (0..12)
        .map(|i| {
            // Book i shares half its text with book i + 1.
            Document::new(format!("b{i:02}"), common::text(i * 300, 600))
                .with_title(format!("Title {i}"))
                .with_author(format!("Author {i}"))
        })
        .collect()
}

#[test]
fn books_and_sequences_survive_drop_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, docs(), 5);
    let before = common::sequences_of(&index);
    let stats_before = index.stats().unwrap();
    let query_before = index
        .reader()
        .unwrap()
        .query_key("b05", &QueryOptions::default())
        .unwrap()
        .hits;
    drop(index);

    let index = Index::open(dir.path()).unwrap();
    let after = common::sequences_of(&index);
    assert_eq!(after.len(), 12);
    assert_eq!(after, before);
    let reader = index.reader().unwrap();
    let info = reader.book("b07").unwrap();
    assert_eq!(
        (info.title.as_str(), info.author.as_str()),
        ("Title 7", "Author 7")
    );
    assert_eq!(info.words, 600);
    let hits = reader
        .query_key("b05", &QueryOptions::default())
        .unwrap()
        .hits;
    assert_eq!(hits, query_before);
    let mut neighbours: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
    neighbours.sort();
    assert_eq!(neighbours, ["b04", "b06"]);
    let stats = index.stats().unwrap();
    assert_eq!(
        (stats.books, stats.words, stats.barrel_bytes),
        (
            stats_before.books,
            stats_before.words,
            stats_before.barrel_bytes
        )
    );
    assert_eq!(index.verify().unwrap().books, 12);
    // A reader keeps the index open until it is dropped: opening it again
    // meanwhile returns the index the reader holds.
    drop(index);
    let again = Index::open(dir.path()).unwrap();
    assert_eq!(again.stats().unwrap().books, 12);
    drop(again);
    drop(reader);
    let index = Index::open(dir.path()).unwrap();

    // Loading into the reopened index appends to what is there.
    common::load_docs(
        &index,
        vec![Document::new("late", common::text(9_000, 400))],
        5,
    );
    drop(index);
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.reader().unwrap().len(), 13);
    assert_eq!(index.verify().unwrap().books, 13);
}

#[test]
fn creation_options_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::builder()
        .max_term_freq(3)
        .hash_seed(42)
        .alpha_window(0)
        .create(dir.path())
        .unwrap();
    let options = *index.options();
    assert_eq!(
        (
            options.max_term_freq,
            options.hash_seed,
            options.alpha_window
        ),
        (3, 42, 0)
    );
    // Each word three times: only an index with M >= 3 keeps them.
    let thrice = [common::text(0, 200).as_str(); 3].join(" ");
    common::load_docs(&index, vec![Document::new("thrice", thrice.as_bytes())], 10);
    drop(index);

    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.options(), &options);
    assert_ne!(index.options(), &stemmata::repr::ExtractOptions::default());
    // New loads use the stored options, not the defaults.
    common::load_docs(&index, vec![Document::new("again", thrice.as_bytes())], 10);
    let reader = index.reader().unwrap();
    assert_eq!(reader.book("thrice").unwrap().unique_words, 200);
    assert_eq!(
        reader.parts("again").unwrap(),
        reader.parts("thrice").unwrap()
    );
    // Query text is extracted with the stored options too.
    let hits = reader
        .query_text(thrice.as_bytes(), &QueryOptions::default())
        .unwrap()
        .hits;
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].overlap.lcs, 200);
}

#[test]
fn create_on_an_existing_index_is_already_exists() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, docs(), 100);
    drop(index);
    let catalog = std::fs::read(dir.path().join("catalog.redb")).unwrap();
    match Index::create(dir.path()) {
        Err(Error::AlreadyExists(path)) => assert_eq!(path, dir.path()),
        other => panic!("expected AlreadyExists, got {:?}", other.map(|_| ())),
    }
    assert!(matches!(
        Index::builder().max_term_freq(2).create(dir.path()),
        Err(Error::AlreadyExists(_))
    ));
    let output = common::run(common::cli().arg("create").arg(dir.path()));
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stderr(&output).contains("already exists"));
    // Nothing was touched: the books are still there.
    assert_eq!(
        std::fs::read(dir.path().join("catalog.redb")).unwrap(),
        catalog
    );
    assert_eq!(Index::open(dir.path()).unwrap().reader().unwrap().len(), 12);
}

#[test]
fn open_of_an_empty_or_missing_directory_is_not_an_index() {
    let dir = tempfile::tempdir().unwrap();
    match Index::open(dir.path()) {
        Err(Error::NotAnIndex(path)) => assert_eq!(path, dir.path()),
        other => panic!("expected NotAnIndex, got {:?}", other.map(|_| ())),
    }
    let missing = dir.path().join("missing");
    assert!(matches!(Index::open(&missing), Err(Error::NotAnIndex(_))));
    assert!(!missing.exists(), "open must not create the directory");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let output = common::run(common::cli().arg("stats").arg(dir.path()));
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stderr(&output).contains("not a stemmata index"));
}

#[test]
fn a_second_bulk_loader_while_one_is_alive_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let mut first = index.bulk_loader(LoadOptions::default()).unwrap();
    first
        .add(Document::new("one", common::text(0, 300)))
        .unwrap();
    match index.bulk_loader(LoadOptions::default()) {
        Err(Error::Locked(path)) => assert_eq!(path, dir.path()),
        other => panic!("expected Locked, got {:?}", other.map(|_| ())),
    }
    // A clone shares the writer role; delete is a writer too.
    let clone = index.clone();
    assert!(matches!(
        clone.bulk_loader(LoadOptions::default()),
        Err(Error::Locked(_))
    ));
    assert!(matches!(clone.delete(&["one"]), Err(Error::Locked(_))));
    assert!(matches!(
        index.load([Ok(Document::new("two", common::text(0, 300)))]),
        Err(Error::Locked(_))
    ));
    assert_eq!(first.finish().unwrap().books, 1);

    // Released by finish: the next loader works.
    let stats = index
        .load([Ok(Document::new("two", common::text(500, 300)))])
        .unwrap();
    assert_eq!(stats.books, 1);
    // And by drop without finish, which commits nothing.
    let mut abandoned = index.bulk_loader(LoadOptions::default()).unwrap();
    abandoned
        .add(Document::new("three", common::text(900, 300)))
        .unwrap();
    drop(abandoned);
    assert_eq!(clone.delete(&["two"]).unwrap(), 1);
    let reader = index.reader().unwrap();
    let keys: Vec<&str> = reader.books().iter().map(|b| b.key.as_str()).collect();
    assert_eq!(keys, ["one"]);
    index.verify().unwrap();
}

#[test]
fn a_second_open_in_this_process_shares_the_index_and_another_process_is_locked_out() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, docs(), 100);
    // The same directory, by another path, is the same index: one catalog,
    // one writer role.
    let again = Index::open(dir.path().join(".")).unwrap();
    assert_eq!(again.stats().unwrap().books, index.stats().unwrap().books);
    let loader = index.bulk_loader(stemmata::LoadOptions::default()).unwrap();
    assert!(matches!(
        again.bulk_loader(stemmata::LoadOptions::default()),
        Err(Error::Locked(_))
    ));
    drop(loader);
    drop(again);
    // Another process is refused while any handle is open, and says so; a
    // clone keeps the index open, and dropping every handle releases it.
    // Its input (an empty file: a document it skips) passes the checks made
    // before the index is opened.
    std::fs::write(dir.path().join("nothing.txt"), "").unwrap();
    let writer_elsewhere = || {
        common::run(
            common::cli()
                .args(["load", "-q"])
                .arg(dir.path())
                .arg(dir.path().join("nothing.txt")),
        )
    };
    let clone = index.clone();
    drop(index);
    let output = writer_elsewhere();
    assert_eq!(output.status.code(), Some(1), "{}", common::stderr(&output));
    assert!(
        common::stderr(&output).contains("locked"),
        "{}",
        common::stderr(&output)
    );
    drop(clone);
    let output = writer_elsewhere();
    assert!(
        !common::stderr(&output).contains("locked"),
        "{}",
        common::stderr(&output)
    );
    let again = Index::open(dir.path()).unwrap();
    assert_eq!(again.reader().unwrap().len(), 12);
    drop(again);
    let output = common::run(common::cli().arg("verify").arg(dir.path()));
    assert!(output.status.success(), "{}", common::stderr(&output));
}
