//! Page files (`pages/NNNNNN.pgs`): the page signatures of paged books are
//! records there, found through the catalog's locators. A damaged record is
//! an error naming the page file, never a panic or wrong signatures; a torn
//! tail is ignored and cut off by the next load; records of deleted books
//! stay as dead bytes, which verify checks as well.

mod common;

use std::path::{Path, PathBuf};

use redb::{ReadableTable, TableDefinition};
use stemmata::{Document, Error, Index};

const PAGES: TableDefinition<u32, &[u8]> = TableDefinition::new("pages");

/// `pages` pages of 120 words from word `from`, separated by form feeds.
fn paged(from: u32, pages: u32) -> String {
    (0..pages)
        .map(|p| common::text(from + 120 * p, 120))
        .collect::<Vec<_>>()
        .join("\n\x0c")
}

/// A closed index of six paged books and one without pages, loaded in
/// batches of two, so into one page file over several commits.
fn closed_index() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let mut docs: Vec<Document> = (0..6)
        .map(|i| Document::new(format!("p{i}"), paged(i * 1_000, 3 + i)))
        .collect();
    docs.push(Document::new("flat", common::text(9_000, 400)));
    common::load_docs(&index, docs, 2);
    dir
}

fn page_file(dir: &Path, n: u32) -> PathBuf {
    dir.join("pages").join(format!("{n:06}.pgs"))
}

/// Every book's page signatures.
fn all_pages(index: &Index) -> Vec<(String, Vec<stemmata::repr::MinHashSig>)> {
    let reader = index.reader().unwrap();
    reader
        .books()
        .iter()
        .map(|b| (b.key.clone(), reader.pages(&b.key).unwrap()))
        .collect()
}

fn names(error: &Error, path: &Path) -> bool {
    error.to_string().contains(&path.display().to_string())
}

#[test]
fn paged_books_have_records_in_one_page_file_and_nothing_else_there() {
    let dir = closed_index();
    let index = Index::open(dir.path()).unwrap();
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.books, verified.paged_books, verified.page_files),
        (7, 6, 1)
    );
    let file = page_file(dir.path(), 1);
    let on_disk = std::fs::metadata(&file).unwrap().len();
    // The header and one record per paged book: 4 + 6 + 68 per page + 8.
    let pages: u64 = (0..6).map(|i| 3 + i).sum();
    assert_eq!(on_disk, 16 + 6 * 18 + 68 * pages);
    assert_eq!(verified.page_file_bytes, on_disk);
    let stats = index.stats().unwrap();
    assert_eq!((stats.page_files, stats.page_file_bytes), (1, on_disk));
    for (key, pages) in all_pages(&index) {
        let expected = if key == "flat" {
            0
        } else {
            key[1..].parse::<usize>().unwrap() + 3
        };
        assert_eq!(pages.len(), expected, "{key}");
    }
}

#[test]
fn every_damaged_page_file_byte_is_an_error_naming_the_file_never_a_panic() {
    let dir = closed_index();
    let file = page_file(dir.path(), 1);
    let clean = std::fs::read(&file).unwrap();
    // The first record (book p0, three pages) and the header before it.
    let first_record = 18 + 68 * 3;
    for at in (0..16 + first_record).step_by(7) {
        let mut damaged = clean.clone();
        damaged[at] ^= 0x20;
        std::fs::write(&file, &damaged).unwrap();
        let error = match Index::open(dir.path()) {
            // A damaged header fails open.
            Err(error) => error,
            Ok(index) => {
                let verify = index.verify().unwrap_err();
                assert!(names(&verify, &file), "byte {at}: {verify}");
                let reader = index.reader().unwrap();
                assert!(reader.pages("p1").is_ok(), "byte {at}: another record");
                reader.pages("p0").unwrap_err()
            }
        };
        assert!(names(&error, &file), "byte {at}: {error}");
        if at >= 16 {
            assert!(
                matches!(
                    error,
                    Error::ChecksumMismatch { .. } | Error::Corrupted { .. }
                ),
                "byte {at}: {error:?}"
            );
        }
    }
    std::fs::write(&file, &clean).unwrap();
    assert_eq!(
        Index::open(dir.path())
            .unwrap()
            .verify()
            .unwrap()
            .paged_books,
        6
    );
}

#[test]
fn verify_checks_the_dead_records_too() {
    let dir = closed_index();
    let index = Index::open(dir.path()).unwrap();
    index.delete(&["p0"]).unwrap();
    let verified = index.verify().unwrap();
    assert_eq!((verified.paged_books, verified.page_records), (5, 6));
    drop(index);
    // Inside p0's record, now dead: no reader reads it, verify does.
    let file = page_file(dir.path(), 1);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[16 + 40] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let index = Index::open(dir.path()).unwrap();
    let reader = index.reader().unwrap();
    for key in ["p1", "p5"] {
        assert!(reader.pages(key).is_ok(), "{key}");
    }
    let error = index.verify().unwrap_err();
    assert!(names(&error, &file), "{error}");
    // The offset is within p0's record (three pages: 18 + 3 × 68 bytes).
    assert!(
        matches!(error, Error::ChecksumMismatch { offset, .. } if (16..16 + 18 + 3 * 68).contains(&offset)),
        "{error:?}"
    );
}

#[test]
fn a_locator_pointing_at_another_books_record_is_refused() {
    let dir = closed_index();
    let (p0, p1) = {
        let index = Index::open(dir.path()).unwrap();
        let reader = index.reader().unwrap();
        (reader.book("p0").unwrap().id, reader.book("p1").unwrap().id)
    };
    let db = redb::Database::open(dir.path().join("catalog.redb")).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut table = txn.open_table(PAGES).unwrap();
        let other = table.get(p1).unwrap().unwrap().value().to_vec();
        table.insert(p0, other.as_slice()).unwrap();
    }
    txn.commit().unwrap();
    drop(db);
    let index = Index::open(dir.path()).unwrap();
    // Readers take each book's locator from its segment, which still
    // points at its own record; verify finds the catalog disagreeing.
    let reader = index.reader().unwrap();
    assert_eq!(reader.pages("p0").unwrap().len(), 3);
    let error = index.verify().unwrap_err();
    assert!(
        error.to_string().contains("disagrees with the catalog's"),
        "{error}"
    );
}

#[test]
fn a_torn_page_file_tail_is_ignored_on_open_and_cut_off_by_the_next_load() {
    let dir = closed_index();
    let file = page_file(dir.path(), 1);
    let committed = std::fs::metadata(&file).unwrap().len();
    let before = all_pages(&Index::open(dir.path()).unwrap());
    let torn = common::append_torn_tail(&file, 300, 5_000);

    let index = Index::open(dir.path()).unwrap();
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.paged_books, verified.page_file_bytes),
        (6, committed)
    );
    assert_eq!(all_pages(&index), before);
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        torn,
        "open must not write"
    );

    index
        .load([Ok(Document::new("after", paged(50_000, 2)))])
        .unwrap();
    let new_len = index.stats().unwrap().page_file_bytes;
    assert_eq!(new_len, committed + 18 + 2 * 68, "the tail was not cut off");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), new_len);
    assert_eq!(index.verify().unwrap().paged_books, 7);
    let after = all_pages(&index);
    assert!(before.iter().all(|book| after.contains(book)));
    assert_eq!(index.reader().unwrap().pages("after").unwrap().len(), 2);
}

#[test]
fn a_short_or_missing_page_file_fails_open_naming_it() {
    let dir = closed_index();
    let file = page_file(dir.path(), 1);
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
    match Index::open(dir.path()) {
        Err(error @ Error::Corrupted { .. }) => assert!(names(&error, &file), "{error}"),
        other => panic!("expected Corrupted, got {:?}", other.err()),
    }
    std::fs::remove_file(&file).unwrap();
    match Index::open(dir.path()) {
        Err(error @ Error::Io { .. }) => assert!(names(&error, &file), "{error}"),
        other => panic!("expected Io, got {:?}", other.err()),
    }
}
