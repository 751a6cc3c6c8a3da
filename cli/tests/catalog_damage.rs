//! A damaged catalog never makes a reader write, never lets a panic reach
//! the caller or the terminal, and never passes `verify` while it blocks
//! writes: every bit of the catalog's first KiB is flipped in turn (where
//! redb keeps its header, commit slots and root pointers), and the file
//! is cut short or grown.

mod common;

use std::path::Path;

use stemmata::{Document, Index, LoadOptions};

/// A closed index of 30 books loaded in batches of 10 on one thread.
fn index_of_30_books(dir: &Path) {
    let index = Index::create(dir).unwrap();
    let docs: Vec<Document> = (0..30)
        .map(|i| Document::new(format!("b{i:02}"), common::text(i * 1_000, 300)))
        .collect();
    let mut loader = index
        .bulk_loader(LoadOptions::default().threads(1).batch_books(10))
        .unwrap();
    for doc in docs {
        loader.add(doc).unwrap();
    }
    loader.finish().unwrap();
}

/// Opens the index read-only, verifies it and queries it; Ok when all of
/// it succeeded. A panic escaping the library fails the test.
fn read(dir: &Path) -> stemmata::Result<()> {
    let index = Index::open_read_only(dir)?;
    index.stats()?;
    index.verify()?;
    let reader = index.reader()?;
    reader.query_key("b00", &stemmata::QueryOptions::default())?;
    Ok(())
}

#[test]
fn flipped_bits_in_the_catalog_never_make_readers_write_or_panic() {
    let dir = tempfile::tempdir().unwrap();
    index_of_30_books(dir.path());
    let path = dir.path().join("catalog.redb");
    let pristine = std::fs::read(&path).unwrap();
    let (mut passed, mut refused) = (0, 0);
    for byte in 0..1024.min(pristine.len()) {
        for bit in 0..8 {
            let mut damaged = pristine.clone();
            damaged[byte] ^= 1 << bit;
            std::fs::write(&path, &damaged).unwrap();
            let outcome = std::panic::catch_unwind(|| read(dir.path()))
                .unwrap_or_else(|_| panic!("byte {byte} bit {bit}: a panic escaped"));
            assert!(
                std::fs::read(&path).unwrap() == damaged,
                "byte {byte} bit {bit}: a reader wrote to the catalog"
            );
            match outcome {
                Ok(()) => passed += 1,
                Err(e) => {
                    // A flip can make redb's file-format version read as
                    // an older one: then the upgrade is named.
                    let message = e.to_string();
                    assert!(
                        message.contains("catalog") || message.contains("stemmata upgrade"),
                        "{message}"
                    );
                    refused += 1;
                }
            }
        }
    }
    eprintln!("{passed} flips read and verified, {refused} refused");
    std::fs::write(&path, &pristine).unwrap();
    read(dir.path()).unwrap();
}

#[test]
fn when_verify_passes_a_damaged_catalog_still_takes_a_load() {
    let dir = tempfile::tempdir().unwrap();
    index_of_30_books(dir.path());
    let path = dir.path().join("catalog.redb");
    let pristine = std::fs::read(&path).unwrap();
    let mut loads = 0;
    // Every eighth byte of the first KiB, each bit: a load per flip that
    // verify passes.
    for byte in (0..1024.min(pristine.len())).step_by(8) {
        for bit in 0..8 {
            let mut damaged = pristine.clone();
            damaged[byte] ^= 1 << bit;
            std::fs::write(&path, &damaged).unwrap();
            if read(dir.path()).is_err() {
                continue;
            }
            let case = format!("byte {byte} bit {bit}");
            let loaded = std::panic::catch_unwind(|| {
                let index = Index::open(dir.path())?;
                index.load([Ok(Document::new("new", common::text(90_000, 300)))])?;
                drop(index);
                read(dir.path())
            })
            .unwrap_or_else(|_| panic!("{case}: a panic escaped"));
            loaded.unwrap_or_else(|e| panic!("{case}: verify passed, then a load failed: {e}"));
            loads += 1;
        }
    }
    eprintln!("{loads} loads after a passing verify");
    assert!(loads > 0);
}

#[test]
fn a_cut_or_grown_catalog_gives_an_error_and_no_panic_text() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    index_of_30_books(&index);
    let path = index.join("catalog.redb");
    let pristine = std::fs::read(&path).unwrap();
    let len = pristine.len();
    let mut damaged_files = Vec::new();
    for cut in [0, 1, 100, 512, 4096, len / 2, len - 4096, len - 1] {
        damaged_files.push((format!("cut to {cut}"), pristine[..cut].to_vec()));
    }
    for grow in [1, 4096, 100_000] {
        let mut grown = pristine.clone();
        grown.extend((0..grow).map(|i| (i * 7 % 251) as u8));
        damaged_files.push((format!("grown by {grow}"), grown));
    }
    for (what, bytes) in damaged_files {
        for args in [vec!["verify"], vec!["stats"], vec!["query", "--key", "b00"]] {
            std::fs::write(&path, &bytes).unwrap();
            let output = common::run(common::cli().arg(args[0]).arg(&index).args(&args[1..]));
            let stderr = common::stderr(&output);
            assert!(!stderr.contains("panicked"), "{what}, {args:?}: {stderr}");
            assert!(
                output.status.code().is_some_and(|c| c <= 1),
                "{what}, {args:?}: {stderr}"
            );
            assert!(
                std::fs::read(&path).unwrap() == bytes,
                "{what}, {args:?}: a read-only command wrote"
            );
        }
    }
}

#[test]
fn verify_prints_no_panic_text_for_a_damaged_header_even_with_backtraces_on() {
    // Among the flips of the first 16 bytes are some that make the
    // database engine panic inside its integrity check; the command line
    // contains it and prints only the error, RUST_BACKTRACE or not.
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    index_of_30_books(&index);
    let path = index.join("catalog.redb");
    let pristine = std::fs::read(&path).unwrap();
    let mut refused = 0;
    for byte in 0..16 {
        for bit in 0..8 {
            let mut damaged = pristine.clone();
            damaged[byte] ^= 1 << bit;
            std::fs::write(&path, &damaged).unwrap();
            let output = common::run(
                common::cli()
                    .arg("verify")
                    .arg(&index)
                    .env("RUST_BACKTRACE", "1"),
            );
            let stderr = common::stderr(&output);
            assert!(
                !stderr.contains("panicked") && !stderr.contains("backtrace"),
                "byte {byte} bit {bit}: {stderr}"
            );
            if !output.status.success() {
                assert_eq!(output.status.code(), Some(1), "{stderr}");
                refused += 1;
            }
        }
    }
    assert!(refused > 0);
}
