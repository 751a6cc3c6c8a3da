//! Symbolic links planted inside an index are never written through: a
//! link where a writer is about to start a new barrel, page file or
//! segment is removed (never its target) and a real file made in its
//! place; a link in place of a committed file or of one of the index's
//! subdirectories makes a write fail with an error naming it. In every
//! case the files the links point at, outside the index, keep their bytes
//! and the index still verifies.
#![cfg(unix)]

mod common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use stemmata::{Document, Index, LoadOptions};

/// Books of three pages each (form feeds), sharing no text: `n` of them
/// from number `first` on.
fn paged_books(first: u32, n: u32) -> Vec<Document> {
    (first..first + n)
        .map(|i| {
            let pages: Vec<String> = (0..3)
                .map(|p| common::text(i * 1000 + p * 100, 80))
                .collect();
            Document::new(format!("book{i:03}"), pages.join("\n\x0c"))
        })
        .collect()
}

/// Loads `docs` in batches of two books, starting a new barrel and page
/// file when one exceeds `max_bytes`.
fn load(index: &Index, docs: Vec<Document>, max_bytes: u64) -> stemmata::Result<()> {
    let mut loader = index.bulk_loader(
        LoadOptions::default()
            .batch_books(2)
            .threads(1)
            .max_barrel_bytes(max_bytes),
    )?;
    for doc in docs {
        loader.add(doc)?;
    }
    loader.finish().map(drop)
}

const NO_LIMIT: u64 = 1 << 30;

/// A directory outside the index holding one file, `precious`, that links
/// will point at; returns the directory and the file.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("precious");
    std::fs::write(&file, b"bytes that belong to someone else").unwrap();
    (dir, file)
}

/// Opens the index in `dir`, verifies it and returns its number of books.
fn verified_books(dir: &Path) -> u64 {
    let index = Index::open(dir).expect("the index opens");
    let verified = index.verify().expect("the index verifies");
    assert_eq!(verified.books, index.stats().unwrap().books);
    verified.books
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Plants a link to `target` at `at` (relative to the index `dir`).
fn plant(dir: &Path, at: &str, target: &Path) -> PathBuf {
    let link = dir.join(at);
    symlink(target, &link).unwrap();
    link
}

#[test]
fn a_link_at_the_next_barrel_path_is_replaced_and_its_target_left_alone() {
    let root = tempfile::tempdir().unwrap();
    let (outside, precious) = outside();
    let before = common::snapshot_files(outside.path());
    let dir = root.path().join("index");
    let index = Index::create(&dir).unwrap();
    let link = plant(&dir, "barrels/000001.brl", &precious);
    load(&index, paged_books(0, 3), NO_LIMIT).unwrap();
    assert!(
        common::snapshot_files(outside.path()) == before,
        "the link's target changed"
    );
    assert!(!is_link(&link), "barrel 1 is a real file now");
    // A barrel limit of one byte makes the next load start barrel 2.
    let link = plant(&dir, "barrels/000002.brl", &precious);
    load(&index, paged_books(3, 3), 1).unwrap();
    assert!(!is_link(&link), "barrel 2 is a real file now");
    drop(index);
    assert!(
        common::snapshot_files(outside.path()) == before,
        "the link's target changed"
    );
    assert_eq!(verified_books(&dir), 6);
}

#[test]
fn a_link_at_the_next_page_file_path_is_replaced_and_its_target_left_alone() {
    let root = tempfile::tempdir().unwrap();
    let (outside, precious) = outside();
    let before = common::snapshot_files(outside.path());
    let dir = root.path().join("index");
    let index = Index::create(&dir).unwrap();
    let link = plant(&dir, "pages/000001.pgs", &precious);
    load(&index, paged_books(0, 3), NO_LIMIT).unwrap();
    assert!(
        common::snapshot_files(outside.path()) == before,
        "the link's target changed"
    );
    assert!(!is_link(&link), "page file 1 is a real file now");
    let link = plant(&dir, "pages/000002.pgs", &precious);
    load(&index, paged_books(3, 3), 1).unwrap();
    assert!(!is_link(&link), "page file 2 is a real file now");
    drop(index);
    assert!(
        common::snapshot_files(outside.path()) == before,
        "the link's target changed"
    );
    assert_eq!(verified_books(&dir), 6);
}

#[test]
fn links_at_the_next_segment_paths_are_removed_and_their_targets_left_alone() {
    let root = tempfile::tempdir().unwrap();
    let (outside, precious) = outside();
    let before = common::snapshot_files(outside.path());
    let dir = root.path().join("index");
    let index = Index::create(&dir).unwrap();
    plant(&dir, "segments/000001.seg", &precious);
    plant(&dir, "segments/000002.seg", &outside.path().join("missing"));
    load(&index, paged_books(0, 5), NO_LIMIT).unwrap();
    drop(index);
    for entry in std::fs::read_dir(dir.join("segments")).unwrap() {
        assert!(!is_link(&entry.unwrap().path()));
    }
    assert!(
        common::snapshot_files(outside.path()) == before,
        "the link's target changed"
    );
    assert_eq!(verified_books(&dir), 5);
}

/// Moves the committed file `at` of the index in `dir` out of it and puts
/// a link to it in its place; then a load must fail naming the link,
/// leave the moved file as it was and the index verifying.
fn committed_file_replaced_by_a_link(at: &str) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("index");
    let index = Index::create(&dir).unwrap();
    load(&index, paged_books(0, 4), NO_LIMIT).unwrap();
    drop(index);
    let (outside, _) = outside();
    let moved = outside.path().join("moved");
    std::fs::rename(dir.join(at), &moved).unwrap();
    let link = plant(&dir, at, &moved);
    let before = common::snapshot_files(outside.path());

    let index = Index::open(&dir).unwrap();
    let error = load(&index, paged_books(4, 4), NO_LIMIT)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(&format!("{}: is a symbolic link", link.display())),
        "{at}: {error}"
    );
    drop(index);
    assert!(
        common::snapshot_files(outside.path()) == before,
        "{at}: the link's target changed"
    );
    assert_eq!(verified_books(&dir), 4, "{at}");
}

#[test]
fn a_link_in_place_of_a_committed_barrel_or_page_file_is_refused() {
    committed_file_replaced_by_a_link("barrels/000001.brl");
    committed_file_replaced_by_a_link("pages/000001.pgs");
}

#[test]
fn a_linked_subdirectory_is_refused_for_loads_and_deletes() {
    for sub in ["barrels", "segments", "pages"] {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("index");
        let index = Index::create(&dir).unwrap();
        load(&index, paged_books(0, 4), NO_LIMIT).unwrap();
        drop(index);
        let outside = tempfile::tempdir().unwrap();
        let moved = outside.path().join(sub);
        std::fs::rename(dir.join(sub), &moved).unwrap();
        let link = plant(&dir, sub, &moved);
        let before = common::snapshot_files(outside.path());

        let index = Index::open(&dir).unwrap();
        let expected = format!("{}: is a symbolic link", link.display());
        let error = load(&index, paged_books(4, 4), 1).unwrap_err().to_string();
        assert!(error.contains(&expected), "{sub}: load: {error}");
        let error = index
            .delete(&["book000", "book001", "book002"])
            .unwrap_err();
        assert!(
            error.to_string().contains(&expected),
            "{sub}: delete: {error}"
        );
        drop(index);
        assert!(
            common::snapshot_files(outside.path()) == before,
            "{sub}: files behind the link changed"
        );
        assert_eq!(verified_books(&dir), 4, "{sub}");
    }
}
