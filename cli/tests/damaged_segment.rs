//! A damaged segment: readers check its layout (damage there stops them,
//! naming it) and never panic over damage inside it; loads go on, `verify`
//! names the segment and the books to reload, and reloading them lets the
//! next compaction drop the segment.

mod common;

use std::path::{Path, PathBuf};

use stemmata::{Document, Error, Index, Mode, PairsOptions, QueryOptions, Reader};

/// Twelve books, three per load: segment n sketches books 3(n-1)..3n.
/// Book i shares text with books i-1 and i+1, so every query has hits.
fn docs() -> Vec<Document> {
    (0..12u32)
        .map(|i| Document::new(format!("b{i:02}"), common::text(i * 300, 500)))
        .collect()
}

fn indexed() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_in_loads(&index, docs(), 3);
    assert_eq!(index.stats().unwrap().segments, 4);
    (dir, index)
}

fn segment(dir: &Path, n: u32) -> PathBuf {
    dir.join("segments").join(format!("{n:06}.seg"))
}

/// Flips one byte in the middle of the body of `path`.
fn damage(path: &Path) -> u64 {
    let mut bytes = std::fs::read(path).unwrap();
    let len = bytes.len();
    bytes[len / 2] ^= 0x10;
    std::fs::write(path, bytes).unwrap();
    len as u64
}

fn mode(mode: Mode) -> QueryOptions {
    QueryOptions::default().mode(mode).top_k(0)
}

fn corrupted(error: Error) -> (PathBuf, Option<u64>, String) {
    match error {
        Error::Corrupted { path, offset, what } => (path, offset, what),
        other => panic!("expected Corrupted, got {other:?}"),
    }
}

#[test]
fn a_damaged_segment_is_named_by_verify_and_never_panics_a_reader() {
    let (dir, index) = indexed();
    drop(index);
    let path = segment(dir.path(), 2);
    let len = damage(&path);
    let index = Index::open(dir.path()).unwrap();
    // Readers map segments and check their layout, not their checksum: a
    // byte damaged inside a section is not seen at open. Queries over it
    // answer without panicking.
    let reader = index.reader().expect("the layout is intact");
    assert_eq!(reader.damaged_segment(), None);
    for m in [Mode::Exact, Mode::Approximate] {
        let _ = answers_or_errors(&reader, m);
        let _ = reader.pairs(&PairsOptions::default().mode(m));
    }
    drop(reader);

    // verify reads the checksum: it names the segment, the offset and the
    // books it holds.
    let (named, offset, what) = corrupted(index.verify().unwrap_err());
    assert_eq!((named, offset), (path.clone(), Some(len - 8)));
    assert!(
        what.contains(r#"3 live books are sketched in no readable segment"#)
            && what.contains(r#""b03", "b04", "b05""#)
            && what.contains("reload those books under the same keys with `stemmata load`")
            && what.contains("the next compaction"),
        "{what}"
    );
    let verify = common::run(common::cli().arg("verify").arg(dir.path()));
    assert_eq!(verify.status.code(), Some(1));
    let stderr = common::stderr(&verify);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains(r#""b03", "b04", "b05""#), "{stderr}");

    // A segment cut short fails its layout check: readers refuse, naming it.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let (named, _, what) = corrupted(index.reader().unwrap_err());
    assert_eq!(named, path);
    assert!(what.contains("stemmata verify"), "{what}");
    drop(index);
    let query = common::run(
        common::cli()
            .args(["query", "--key", "b04"])
            .arg(dir.path()),
    );
    assert_eq!(query.status.code(), Some(1));
    assert!(common::stderr(&query).contains(&path.display().to_string()));
}

/// Every book's hits in `mode`, or the error.
fn answers_or_errors(reader: &Reader, m: Mode) -> Vec<Result<usize, Error>> {
    reader
        .books()
        .iter()
        .map(|book| reader.query_key(&book.key, &mode(m)).map(|r| r.hits.len()))
        .collect()
}

#[test]
fn reloading_the_books_of_a_damaged_segment_lets_the_next_compaction_drop_it() {
    let (dir, index) = indexed();
    let path = segment(dir.path(), 2);
    damage(&path);
    let reloaded: Vec<Document> = docs().into_iter().skip(3).take(3).collect();
    let stats = common::load_docs(&index, reloaded, 3);
    assert_eq!((stats.books, stats.replaced), (3, 3));
    assert!(stats.warnings.is_empty(), "{:?}", stats.warnings);
    let verified = index.verify().expect("the damaged segment was dropped");
    assert_eq!((verified.books, verified.sketched_books), (12, 12));
    assert_eq!(verified.segments, 4);
    assert!(!path.exists(), "the dropped segment's file was removed");
    let reader = index.reader().unwrap();
    assert_eq!(reader.damaged_segment(), None);
    let hits = reader
        .query_key("b04", &mode(Mode::Approximate))
        .unwrap()
        .hits;
    assert!(hits.iter().any(|h| h.key == "b05"), "{hits:?}");
}

#[test]
fn loads_and_deletes_go_on_while_a_damaged_segment_sketches_live_books() {
    let (dir, index) = indexed();
    let path = segment(dir.path(), 2);
    let len = damage(&path);
    // Six more batches make ten segments: the end-of-load compaction merges
    // the nine readable ones and leaves the damaged one listed.
    let more: Vec<Document> = (12..18u32)
        .map(|i| Document::new(format!("n{i:02}"), common::text(i * 300, 500)))
        .collect();
    let stats = common::load_docs(&index, more, 1);
    assert_eq!(stats.books, 6);
    let [warning] = &stats.warnings[..] else {
        panic!("one warning expected: {:?}", stats.warnings);
    };
    assert!(
        warning.starts_with(&format!(
            "{}: damaged sketch segment (at byte {}",
            path.display(),
            len - 8
        )) && warning.contains(r#""b03", "b04", "b05""#),
        "{warning}"
    );
    assert_eq!(index.stats().unwrap().segments, 2);
    assert!(path.exists());
    let reader = index.reader().unwrap();
    assert_eq!(reader.len(), 18);
    assert!(reader.query_key("n13", &mode(Mode::Exact)).is_ok());
    drop(reader);

    // A delete commits too; its compaction merges nothing (under a quarter
    // of the books is dead), so it does not read the damaged segment.
    let deleted = index.delete_books(&["b00", "b01", "b02", "n12"]).unwrap();
    assert_eq!(deleted.deleted, 4);
    assert!(deleted.warnings.is_empty(), "{:?}", deleted.warnings);
    let (named, _, what) = corrupted(index.verify().unwrap_err());
    assert_eq!(named, path);
    assert!(what.contains("3 live books"), "{what}");

    // Deleting the books it sketched leaves it sketching nothing live: the
    // delete's compaction drops it.
    let deleted = index.delete_books(&["b03", "b04", "b05"]).unwrap();
    assert_eq!(deleted.deleted, 3);
    assert!(deleted.warnings.is_empty(), "{:?}", deleted.warnings);
    assert!(!path.exists());
    let verified = index.verify().unwrap();
    assert_eq!(verified.books, 11);
}
