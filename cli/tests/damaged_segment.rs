//! A damaged sketch segment stops only approximate mode: exact queries,
//! relations and loads go on, `verify` names the segment and the books to
//! reload, and reloading them lets the next compaction drop the segment.

mod common;

use std::path::{Path, PathBuf};

use stemmata::{Document, Error, Index, Mode, PairsOptions, QueryOptions, Reader};

/// Twelve books, three per batch: segment n sketches books 3(n-1)..3n.
/// Book i shares text with books i-1 and i+1, so every query has hits.
fn docs() -> Vec<Document> {
    (0..12u32)
        .map(|i| Document::new(format!("b{i:02}"), common::text(i * 300, 500)))
        .collect()
}

fn indexed() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, docs(), 3);
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

/// Every book's exact hits (key, score), and the relation of two books.
fn exact_answers(reader: &Reader) -> Vec<(String, Vec<(String, f64)>)> {
    reader
        .books()
        .iter()
        .map(|book| {
            let hits = reader
                .query_key(&book.key, &mode(Mode::Exact))
                .unwrap()
                .hits;
            let hits = hits.into_iter().map(|h| (h.key, h.score)).collect();
            (book.key.clone(), hits)
        })
        .collect()
}

fn corrupted(error: Error) -> (PathBuf, Option<u64>, String) {
    match error {
        Error::Corrupted { path, offset, what } => (path, offset, what),
        other => panic!("expected Corrupted, got {other:?}"),
    }
}

#[test]
fn a_damaged_segment_leaves_exact_mode_and_relations_working() {
    let (dir, index) = indexed();
    let before = index.reader().unwrap();
    let exact = exact_answers(&before);
    assert!(exact.iter().all(|(_, hits)| !hits.is_empty()));
    let relation = before.relation("b04", "b05").unwrap();
    let approximate = before
        .query_key("b04", &mode(Mode::Approximate))
        .unwrap()
        .hits;
    assert!(!approximate.is_empty());
    drop(before);
    drop(index);

    let path = segment(dir.path(), 2);
    let len = damage(&path);
    let index = Index::open(dir.path()).unwrap();
    let reader = index
        .reader()
        .expect("a reader opens over a damaged segment");
    assert_eq!(reader.damaged_segment(), Some(path.as_path()));
    assert_eq!(exact_answers(&reader), exact);
    assert_eq!(reader.relation("b04", "b05").unwrap(), relation);
    let text = common::text(4 * 300, 500);
    let from_text = reader.query_text(text.as_bytes(), &mode(Mode::Exact));
    assert_eq!(from_text.unwrap().hits.len(), exact[4].1.len() + 1);

    // Approximate mode, by key, by text and for pairs, names the segment and
    // the offset of the damage, and says that exact mode still works.
    let errors = [
        reader.query_key("b00", &mode(Mode::Approximate)).err(),
        reader
            .query_text(text.as_bytes(), &mode(Mode::Approximate))
            .err(),
        reader
            .pairs(&PairsOptions::default().mode(Mode::Approximate))
            .err(),
    ];
    for error in errors {
        let (named, offset, what) = corrupted(error.expect("approximate mode failed"));
        assert_eq!((named, offset), (path.clone(), Some(len - 8)));
        assert!(what.starts_with("checksum mismatch"), "{what}");
        assert!(
            what.contains("exact mode and relations still work"),
            "{what}"
        );
        assert!(what.contains("stemmata verify"), "{what}");
    }

    // verify names the segment, the offset and the books it sketched.
    let (named, offset, what) = corrupted(index.verify().unwrap_err());
    assert_eq!((named, offset), (path.clone(), Some(len - 8)));
    assert!(
        what.contains(r#"3 live books are sketched in no readable segment"#)
            && what.contains(r#""b03", "b04", "b05""#)
            && what.contains("reload those books under the same keys with `stemmata load`")
            && what.contains("the next compaction"),
        "{what}"
    );
    drop(reader);
    drop(index);

    // The command line: exact queries answer, approximate ones and verify
    // fail naming the file.
    let query = |mode: &str| {
        common::run(
            common::cli()
                .args(["query", "--key", "b04", "--mode", mode])
                .arg(dir.path()),
        )
    };
    let exact = query("exact");
    assert!(exact.status.success(), "{}", common::stderr(&exact));
    assert!(String::from_utf8_lossy(&exact.stdout).contains("b05"));
    let approximate = query("approximate");
    assert_eq!(approximate.status.code(), Some(1));
    let stderr = common::stderr(&approximate);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("exact mode"), "{stderr}");
    let verify = common::run(common::cli().arg("verify").arg(dir.path()));
    assert_eq!(verify.status.code(), Some(1));
    let stderr = common::stderr(&verify);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains(r#""b03", "b04", "b05""#), "{stderr}");
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
    assert!(reader.query_key("n13", &mode(Mode::Approximate)).is_err());
    drop(reader);

    // A delete commits too, with the same warning from its compaction.
    let deleted = index.delete_books(&["b00", "b01", "b02", "n12"]).unwrap();
    assert_eq!(deleted.deleted, 4);
    assert_eq!(deleted.warnings.len(), 1, "{:?}", deleted.warnings);
    assert!(deleted.warnings[0].contains(r#""b03", "b04", "b05""#));
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
