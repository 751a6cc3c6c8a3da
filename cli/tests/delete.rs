//! Deleting books by key.

mod common;

use stemmata::{Document, Error, Index, QueryOptions};

/// Books `b0..b9`; each shares half its words with the next.
fn index_with_chain() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let docs = (0..10)
        .map(|i| Document::new(format!("b{i}"), common::text(i * 200, 400)))
        .collect();
    common::load_docs(&index, docs, 4);
    (dir, index)
}

fn keys(hits: &[stemmata::Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.key.as_str()).collect()
}

#[test]
fn a_deleted_book_is_gone_from_new_readers_and_their_queries() {
    let (_dir, index) = index_with_chain();
    let text_of_b5 = common::text(1000, 400);
    let before = index.reader().unwrap();
    assert!(keys(
        &before
            .query_key("b4", &QueryOptions::default())
            .unwrap()
            .hits
    )
    .contains(&"b5"));
    assert_eq!(
        before
            .query_text(text_of_b5.as_bytes(), &QueryOptions::default())
            .unwrap()
            .hits[0]
            .key,
        "b5"
    );

    assert_eq!(index.delete(&["b5"]).unwrap(), 1);
    let reader = index.reader().unwrap();
    assert_eq!(reader.len(), 9);
    assert!(reader.books().iter().all(|b| b.key != "b5"));
    assert!(matches!(reader.book("b5"), Err(Error::UnknownKey(k)) if k == "b5"));
    assert!(matches!(reader.parts("b5"), Err(Error::UnknownKey(_))));
    assert!(matches!(
        reader.query_key("b5", &QueryOptions::default()),
        Err(Error::UnknownKey(_))
    ));
    let hits = reader
        .query_key("b4", &QueryOptions::default())
        .unwrap()
        .hits;
    assert_eq!(keys(&hits), ["b3"]);
    let hits = reader
        .query_text(text_of_b5.as_bytes(), &QueryOptions::default())
        .unwrap()
        .hits;
    let mut found = keys(&hits);
    found.sort();
    assert_eq!(found, ["b4", "b6"]);
    assert_eq!(index.stats().unwrap().books, 9);
}

#[test]
fn a_reader_taken_before_the_delete_still_sees_the_book() {
    let (_dir, index) = index_with_chain();
    let old = index.reader().unwrap();
    let sequence = old.parts("b2").unwrap();
    assert_eq!(index.delete(&["b2", "b3"]).unwrap(), 2);
    assert_eq!(old.len(), 10);
    assert_eq!(old.parts("b2").unwrap(), sequence);
    let hits = old.query_key("b2", &QueryOptions::default()).unwrap().hits;
    let mut found = keys(&hits);
    found.sort();
    assert_eq!(found, ["b1", "b3"]);
    assert_eq!(index.reader().unwrap().len(), 8);
}

#[test]
fn verify_passes_after_deletes_and_the_records_stay_as_dead_bytes() {
    let (dir, index) = index_with_chain();
    let before = index.stats().unwrap();
    assert_eq!(before.live_record_bytes + 16, before.barrel_bytes);
    assert_eq!(index.delete(&["b0", "b9", "b4"]).unwrap(), 3);
    let verified = index.verify().unwrap();
    assert_eq!((verified.books, verified.records), (7, 10));
    let after = index.stats().unwrap();
    assert_eq!(after.books, 7);
    assert_eq!(after.barrel_bytes, before.barrel_bytes);
    assert!(after.live_record_bytes < before.live_record_bytes);
    assert_eq!(after.words, 7 * 400);
    drop(index);

    // Deletes are durable, and the key can be used again.
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.reader().unwrap().len(), 7);
    assert!(index.reader().unwrap().book("b4").is_err());
    let stats = index
        .load([Ok(Document::new("b4", common::text(50_000, 300)))])
        .unwrap();
    assert_eq!((stats.books, stats.replaced), (1, 0));
    assert_eq!(
        index.reader().unwrap().book("b4").unwrap().unique_words,
        300
    );
    assert_eq!(index.verify().unwrap().books, 8);
    // Verifying needs only read access: it runs beside the open writer.
    let output = common::run(common::cli().arg("verify").arg(dir.path()));
    assert!(output.status.success(), "{}", common::stderr(&output));
    drop(index);
    let output = common::run(common::cli().arg("verify").arg(dir.path()));
    assert!(output.status.success(), "{}", common::stderr(&output));
}

#[test]
fn deleting_a_missing_key_returns_zero() {
    let (_dir, index) = index_with_chain();
    assert_eq!(index.delete(&["nope"]).unwrap(), 0);
    assert_eq!(index.delete(&[]).unwrap(), 0);
    // Only keys that exist are counted, each once.
    assert_eq!(index.delete(&["b1", "nope", "b1", "B2"]).unwrap(), 1);
    assert_eq!(index.delete(&["b1"]).unwrap(), 0);
    assert_eq!(index.reader().unwrap().len(), 9);
    index.verify().unwrap();
}

#[test]
fn delete_through_the_command_line_reports_the_count() {
    let (dir, index) = index_with_chain();
    drop(index);
    let output = common::run(
        common::cli()
            .arg("delete")
            .arg(dir.path())
            .args(["b7", "zz"]),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        r#"deleted 1 of 2 books; not found: "zz""#
    );
    let index = Index::open(dir.path()).unwrap();
    assert!(index.reader().unwrap().book("b7").is_err());
    assert_eq!(index.reader().unwrap().len(), 9);
}
