//! Page signatures follow their books: a paged book gets one per page, a
//! replaced or deleted book loses them (also when the same key comes twice
//! in one batch), its record staying in the page file as dead bytes, and
//! `verify` holds after each step.

mod common;

use stemmata::{Document, Index};

/// `pages` pages of 120 words from word `from`, separated by form feeds.
fn paged(from: u32, pages: u32) -> String {
    (0..pages)
        .map(|p| common::text(from + 120 * p, 120))
        .collect::<Vec<_>>()
        .join("\n\x0c")
}

fn page_count(index: &Index, key: &str) -> usize {
    index.reader().unwrap().pages(key).unwrap().len()
}

fn verified_paged_books(index: &Index) -> u64 {
    index.verify().unwrap().paged_books
}

fn page_file_bytes(index: &Index) -> u64 {
    index.stats().unwrap().page_file_bytes
}

/// Bytes of the page-file record of a book of `pages` pages.
fn record_len(pages: u64) -> u64 {
    4 + 6 + 2 * 34 * pages + 8
}

#[test]
fn page_signatures_follow_replacements_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    // The same key twice in one batch: only the second copy stays.
    common::load_docs(
        &index,
        vec![
            Document::new("p", paged(0, 3)),
            Document::new("p", paged(1_000, 5)),
            Document::new("flat", common::text(5_000, 600)),
        ],
        10,
    );
    assert_eq!(page_count(&index, "p"), 5);
    assert_eq!(page_count(&index, "flat"), 0);
    assert_eq!(verified_paged_books(&index), 1);
    // Both copies were written; the first one is dead.
    let written = 16 + record_len(3) + record_len(5);
    assert_eq!(page_file_bytes(&index), written);

    // Replaced by a later load, then by a text without pages.
    common::load_docs(&index, vec![Document::new("p", paged(2_000, 4))], 10);
    assert_eq!(page_count(&index, "p"), 4);
    assert_eq!(verified_paged_books(&index), 1);
    let written = written + record_len(4);
    assert_eq!(page_file_bytes(&index), written);
    common::load_docs(
        &index,
        vec![Document::new("p", common::text(3_000, 500))],
        10,
    );
    assert_eq!(page_count(&index, "p"), 0);
    assert_eq!(verified_paged_books(&index), 0);
    assert_eq!(page_file_bytes(&index), written);

    common::load_docs(&index, vec![Document::new("q", paged(4_000, 2))], 10);
    assert_eq!(verified_paged_books(&index), 1);
    let written = written + record_len(2);
    assert_eq!(page_file_bytes(&index), written);
    index.delete(&["q"]).unwrap();
    assert_eq!(verified_paged_books(&index), 0);
    assert!(index.reader().unwrap().book("q").is_err());
    assert_eq!(
        page_file_bytes(&index),
        written,
        "a delete keeps the dead record"
    );
    assert_eq!(index.verify().unwrap().books, 2);
}
