//! An index written by format version 10 (`tests/fixtures/v10`, made by the
//! command line as its README says) stays readable: it opens read-only
//! without writing a byte, verifies its books, its dictionary and its word
//! images, lists the book of word images, finds a word on the scanned page
//! with its box and crop, and finds a book bound inside the volume. A later
//! format must keep reading it or upgrade it; either way this test says so
//! before a release does.

mod common;

use std::path::{Path, PathBuf};

use stemmata::Index;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v10")
}

#[test]
fn the_version_10_fixture_opens_read_only_verifies_and_writes_nothing() {
    common::assert_word_image_fixture_reads(&fixture().join("index"), 10);
}

#[test]
fn a_copy_of_the_version_10_fixture_upgrades_and_takes_another_book_of_word_images() {
    // Format 11 writes barrel records of positions alone: a write waits
    // for the upgrade, which is one catalog transaction.
    common::assert_upgrade_keeps_segments_and_takes_a_page("v10", 10, &fixture());
}

#[test]
fn an_upgraded_copy_of_the_version_10_fixture_takes_books_beside_its_old_records() {
    let dir = common::fixture_copy("v10");
    let (index, _) = Index::upgrade(dir.path()).unwrap();
    let before = index.reader().unwrap();
    let old_parts = before.parts("alpha").unwrap();
    drop(before);
    // A book appended after the upgrade: its records hold positions only,
    // in the barrel whose records hold the hashes too.
    let text = std::fs::read(fixture().join("texts/alpha.txt")).unwrap();
    common::load_docs(
        &index,
        vec![stemmata::Document::new("alpha-again", text)],
        10,
    );
    assert_eq!(index.verify().unwrap().books, 5);
    let reader = index.reader().unwrap();
    assert_eq!(reader.parts("alpha").unwrap(), old_parts);
    assert_eq!(reader.parts("alpha-again").unwrap(), old_parts);
}

#[test]
fn compacting_an_upgraded_copy_of_the_version_10_fixture_drops_its_records_hashes() {
    use stemmata::storage::barrel::BarrelReader;
    let dir = common::fixture_copy("v10");
    let (mut index, _) = Index::upgrade(dir.path()).unwrap();
    let keys: Vec<String> = index
        .reader()
        .unwrap()
        .books()
        .iter()
        .map(|b| b.key.clone())
        .collect();
    let parts = |index: &Index| -> Vec<_> {
        let reader = index.reader().unwrap();
        keys.iter().map(|k| reader.parts(k).unwrap()).collect()
    };
    let before = parts(&index);
    let stats = index.compact().unwrap();
    assert!(
        stats.barrels.bytes_after < stats.barrels.bytes_before,
        "{:?}",
        stats.barrels
    );
    assert_eq!(stats.records_moved, keys.len() as u64);
    assert_eq!(parts(&index), before);
    assert_eq!(index.verify().unwrap().books, keys.len() as u64);
    for entry in std::fs::read_dir(dir.path().join("barrels")).unwrap() {
        let path = entry.unwrap().path();
        let len = std::fs::metadata(&path).unwrap().len();
        let barrel = BarrelReader::open(&path, len).unwrap();
        assert!(barrel.created_by().number() >= 11);
        assert!(barrel.records().all(|r| r.unwrap().1.hashes.is_none()));
    }
    // A barrel created by this format is left alone: nothing to drop.
    let again = index.compact().unwrap();
    assert_eq!(again.records_moved, 0);
    assert_eq!(parts(&index), before);
}

#[test]
fn compaction_rewrites_a_barrel_created_before_format_11_even_without_dead_bytes() {
    // A barrel whose header names format 10 (the loader continues the last
    // barrel after an upgrade, so such a barrel holds live records only):
    // a compaction rewrites it, and leaves the barrel it wrote alone.
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::create(dir.path()).unwrap();
    let texts = fixture().join("texts");
    let docs: Vec<_> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|k| {
            let text = std::fs::read(texts.join(format!("{k}.txt"))).unwrap();
            stemmata::Document::new(*k, text)
        })
        .collect();
    common::load_docs(&index, docs, 10);
    let before = index.reader().unwrap().parts("beta").unwrap();
    let barrel = common::barrel(dir.path(), 1);
    let mut bytes = std::fs::read(&barrel).unwrap();
    bytes[8..10].copy_from_slice(&10u16.to_le_bytes());
    std::fs::write(&barrel, &bytes).unwrap();

    let stats = index.compact().unwrap();
    assert_eq!(stats.records_moved, 3);
    assert!(!barrel.exists(), "the format-10 barrel is replaced");
    assert_eq!(index.reader().unwrap().parts("beta").unwrap(), before);
    assert_eq!(index.verify().unwrap().books, 3);
    assert_eq!(index.compact().unwrap().records_moved, 0);
}
