//! Damaged index files are reported as errors naming the file — never a
//! panic, never silently wrong data — and a torn barrel tail is harmless.

mod common;

use std::path::{Path, PathBuf};

use redb::TableDefinition;
use stemmata::storage::format::FORMAT_VERSION;
use stemmata::{Document, Error, Index, Mode, QueryOptions};

const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// A closed index of eight books in one barrel; returns its directory.
fn closed_index() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let docs = (0..8)
        .map(|i| Document::new(format!("b{i}"), common::text(i * 400, 300)))
        .collect();
    common::load_in_loads(&index, docs, 3);
    index.verify().unwrap();
    dir
}

fn catalog(dir: &Path) -> PathBuf {
    dir.join("catalog.redb")
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(path, bytes).unwrap();
}

fn open_err(dir: &Path) -> Error {
    match Index::open(dir) {
        Ok(_) => panic!("a damaged index opened"),
        Err(e) => e,
    }
}

#[test]
fn a_flipped_byte_in_a_barrel_record_is_a_checksum_mismatch_naming_the_barrel() {
    let dir = closed_index();
    let barrel = common::barrel(dir.path(), 1);
    // Inside the frame of the first record (16-byte file header, 24-byte
    // record header).
    flip(&barrel, 16 + 24 + 5);
    let index = Index::open(dir.path()).expect("open reads no record");
    match index.verify() {
        Err(Error::ChecksumMismatch {
            path,
            offset,
            expected,
            got,
        }) => {
            assert_eq!(path, barrel);
            assert_eq!(offset, 16);
            assert_ne!(expected, got);
        }
        other => panic!("expected ChecksumMismatch, got {other:?}"),
    }
    // Readers read a record when a hit or a relation needs it: then they
    // refuse too, and say where.
    let reader = index.reader().expect("opening reads no record");
    match reader.parts("b0") {
        Err(e @ Error::ChecksumMismatch { .. }) => {
            assert!(e.to_string().contains(&barrel.display().to_string()), "{e}")
        }
        Err(other) => panic!("expected ChecksumMismatch, got {other:?}"),
        Ok(_) => panic!("a damaged record was read"),
    }
    drop(reader);
    drop(index);
    let output = common::run(common::cli().arg("verify").arg(dir.path()));
    assert_eq!(output.status.code(), Some(1));
    let stderr = common::stderr(&output);
    assert!(stderr.contains(&barrel.display().to_string()), "{stderr}");
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
}

/// Offsets of the records of a barrel, found by walking their headers.
fn record_offsets(barrel: &Path) -> Vec<usize> {
    let bytes = std::fs::read(barrel).unwrap();
    let mut at = 16;
    let mut starts = vec![];
    while at < bytes.len() {
        starts.push(at);
        let stored = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += 24 + stored;
    }
    assert_eq!(at, bytes.len(), "records tile the barrel");
    starts
}

#[test]
fn a_flipped_byte_in_the_last_record_header_is_found_by_verify() {
    let dir = closed_index();
    let barrel = common::barrel(dir.path(), 1);
    let offsets = record_offsets(&barrel);
    assert_eq!(offsets.len(), 8);
    let last = *offsets.last().unwrap();
    // The book id: the checksum covers the record header too.
    flip(&barrel, last + 8);
    let index = Index::open(dir.path()).unwrap();
    match index.verify() {
        Err(Error::ChecksumMismatch { path, offset, .. }) => {
            assert_eq!(path, barrel);
            assert_eq!(offset as usize, last);
        }
        other => panic!("expected ChecksumMismatch, got {other:?}"),
    }
}

#[test]
fn a_record_damaged_after_a_reader_opened_fails_the_reads_of_its_positions() {
    let dir = closed_index();
    let barrel = common::barrel(dir.path(), 1);
    let offsets = record_offsets(&barrel);
    let index = Index::open(dir.path()).unwrap();
    let reader = index.reader().unwrap();
    let hashes = reader.hashes("b2").unwrap()[0].to_vec();
    let before = reader.parts("b2").unwrap();
    assert_eq!(before[0].hashes, hashes);
    // A reader keeps the hashes in memory and reads positions from the
    // record when asked: damage to it now shows there, naming the barrel.
    flip(&barrel, offsets[2] + 24 + 5);
    match reader.parts("b2") {
        Err(e @ Error::ChecksumMismatch { .. }) => {
            assert!(e.to_string().contains(&barrel.display().to_string()), "{e}")
        }
        other => panic!("expected ChecksumMismatch, got {other:?}"),
    }
    assert!(reader.matched_positions("b2", "b3").is_err());
    assert_eq!(reader.hashes("b2").unwrap()[0], hashes);
    assert!(reader.parts("b3").is_ok());
}

#[test]
fn a_barrel_truncated_below_its_committed_length_fails_open_as_corrupted() {
    let dir = closed_index();
    let barrel = common::barrel(dir.path(), 1);
    let len = std::fs::metadata(&barrel).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&barrel)
        .unwrap()
        .set_len(len - 10)
        .unwrap();
    match open_err(dir.path()) {
        Error::Corrupted { path, offset, what } => {
            assert_eq!(path, barrel);
            assert_eq!(offset, Some(len - 10));
            assert!(what.contains(&len.to_string()), "{what}");
        }
        other => panic!("expected Corrupted, got {other:?}"),
    }
    let output = common::run(common::cli().arg("stats").arg(dir.path()));
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stderr(&output).contains(&barrel.display().to_string()));
}

#[test]
fn a_missing_barrel_fails_open_naming_it() {
    let dir = closed_index();
    let barrel = common::barrel(dir.path(), 1);
    std::fs::remove_file(&barrel).unwrap();
    match open_err(dir.path()) {
        Error::Io { path, source } => {
            assert_eq!(path, barrel);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected Io, got {other:?}"),
    }
}

#[test]
fn a_damaged_barrel_header_fails_open() {
    let dir = closed_index();
    let barrel = common::barrel(dir.path(), 1);
    let pristine = std::fs::read(&barrel).unwrap();
    assert_eq!(
        pristine[..8],
        [0x89, b'S', b'T', b'M', b'\r', b'\n', 0x1a, b'\n']
    );
    // Magic: as a text-mode transfer would damage it (CRLF -> LF), and one bit.
    let mut crlf = pristine.clone();
    crlf[4] = b'\n';
    std::fs::write(&barrel, &crlf).unwrap();
    match open_err(dir.path()) {
        Error::Corrupted { path, what, .. } => {
            assert_eq!(path, barrel);
            assert!(what.contains("magic"), "{what}");
        }
        other => panic!("expected Corrupted, got {other:?}"),
    }
    for at in [0, 3, 7] {
        let mut bytes = pristine.clone();
        bytes[at] ^= 0x01;
        std::fs::write(&barrel, &bytes).unwrap();
        assert!(
            matches!(open_err(dir.path()), Error::Corrupted { ref path, .. } if *path == barrel),
            "magic byte {at}"
        );
    }
    // A newer version in the barrel header.
    let mut bytes = pristine.clone();
    bytes[8..10].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&barrel, &bytes).unwrap();
    match open_err(dir.path()) {
        Error::UnsupportedVersion { path, found, .. } => {
            assert_eq!((path, found), (barrel.clone(), FORMAT_VERSION + 1))
        }
        other => panic!("expected UnsupportedVersion, got {other:?}"),
    }
    // Wrong kind and unknown flags.
    for (at, value) in [(10, 7u8), (12, 0xff)] {
        let mut bytes = pristine.clone();
        bytes[at] = value;
        std::fs::write(&barrel, &bytes).unwrap();
        assert!(
            matches!(open_err(dir.path()), Error::Corrupted { .. }),
            "byte {at}"
        );
    }
    // Restored, it opens and verifies again: the checks above were the header's.
    std::fs::write(&barrel, &pristine).unwrap();
    assert_eq!(Index::open(dir.path()).unwrap().verify().unwrap().books, 8);
}

#[test]
fn damaged_catalog_pages_give_errors_not_panics() {
    // Offsets where flipped bytes once made the database engine panic during
    // open, verify or reader, plus every page of the first 64 KiB.
    let dir = closed_index();
    let path = catalog(dir.path());
    let real = std::fs::read(&path).unwrap();
    let offsets = (0..16).map(|page| page * 4096).chain([536_576]);
    for offset in offsets.filter(|&o| o + 16 <= real.len()) {
        let mut damaged = real.clone();
        damaged[offset..offset + 16]
            .iter_mut()
            .for_each(|b| *b ^= 0xff);
        std::fs::write(&path, &damaged).unwrap();
        let outcome = std::panic::catch_unwind(|| {
            let index = Index::open(dir.path())?;
            index.verify()?;
            index.reader().map(|_| ())
        });
        match outcome {
            Err(_) => panic!("offset {offset}: a damaged catalog panicked out of the library"),
            Ok(Err(e)) => assert!(!e.to_string().is_empty()),
            Ok(Ok(())) => {}
        }
    }
    std::fs::write(&path, &real).unwrap();
    Index::open(dir.path()).unwrap().verify().unwrap();
}

#[test]
fn a_garbage_catalog_fails_open_naming_catalog_redb_without_panicking() {
    let dir = closed_index();
    let path = catalog(dir.path());
    let real = std::fs::read(&path).unwrap();
    let mut state = 0x1234_5678_9abc_def0u64;
    let noise: Vec<u8> = (0..real.len().max(8192))
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let variants: [(&str, Vec<u8>); 5] = [
        ("empty", vec![]),
        ("random bytes", noise),
        ("zeros", vec![0; 8192]),
        ("text", b"this is not a database\n".repeat(200)),
        ("one byte", vec![0x42]),
    ];
    for (what, bytes) in variants {
        std::fs::write(&path, &bytes).unwrap();
        let result = std::panic::catch_unwind(|| Index::open(dir.path()).map(|i| i.verify()));
        match result {
            Err(_) => panic!("{what}: open panicked"),
            Ok(Ok(Ok(_))) => panic!("{what}: a garbage catalog opened and verified"),
            Ok(Ok(Err(e))) | Ok(Err(e)) => {
                assert!(e.to_string().contains("catalog.redb"), "{what}: {e}")
            }
        }
        let output = common::run(common::cli().arg("verify").arg(dir.path()));
        assert_eq!(
            output.status.code(),
            Some(1),
            "{what}: {}",
            common::stderr(&output)
        );
        let stderr = common::stderr(&output);
        assert!(
            stderr.contains(&path.display().to_string()),
            "{what}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    }
}

/// Rewrites the catalog's format version with redb directly.
fn set_catalog_version(dir: &Path, version: u16) {
    let db = redb::Database::open(catalog(dir)).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut meta = txn.open_table(META).unwrap();
        let old = meta
            .insert("format_version", version.to_le_bytes().as_slice())
            .unwrap();
        assert!(old.is_some(), "format_version is stored in meta");
    }
    txn.commit().unwrap();
}

#[test]
fn a_catalog_from_a_newer_format_is_unsupported_version_and_is_left_untouched() {
    let dir = closed_index();
    for version in [FORMAT_VERSION + 1, FORMAT_VERSION + 2, u16::MAX, 0] {
        if version == FORMAT_VERSION {
            continue;
        }
        set_catalog_version(dir.path(), version);
        match open_err(dir.path()) {
            Error::UnsupportedVersion {
                path,
                found,
                oldest,
                newest,
            } => {
                assert_eq!(path, catalog(dir.path()));
                assert_eq!(found, version);
                assert!(oldest <= newest && newest == FORMAT_VERSION);
            }
            other => panic!("expected UnsupportedVersion, got {other:?}"),
        }
    }
    set_catalog_version(dir.path(), FORMAT_VERSION + 1);
    let before = common::snapshot_files(dir.path());
    let more = tempfile::tempdir().unwrap();
    common::write_txt_books(more.path(), &[("new".into(), common::text(90_000, 100))]);
    let commands: [Vec<&std::ffi::OsStr>; 5] = [
        vec!["verify".as_ref(), dir.path().as_os_str()],
        vec!["stats".as_ref(), dir.path().as_os_str(), "--json".as_ref()],
        vec![
            "query".as_ref(),
            dir.path().as_os_str(),
            "--key".as_ref(),
            "b1".as_ref(),
        ],
        vec![
            "load".as_ref(),
            dir.path().as_os_str(),
            more.path().as_os_str(),
            "-q".as_ref(),
        ],
        vec![
            "load".as_ref(),
            dir.path().as_os_str(),
            more.path().as_os_str(),
            "--create".as_ref(),
        ],
    ];
    for args in commands {
        let output = common::run(common::cli().args(&args));
        let stderr = common::stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&catalog(dir.path()).display().to_string()),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("version {}", FORMAT_VERSION + 1)),
            "{stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(
            common::snapshot_files(dir.path()) == before,
            "{args:?} changed the files"
        );
    }
    // The library refuses as well without touching anything.
    assert!(matches!(
        open_err(dir.path()),
        Error::UnsupportedVersion { .. }
    ));
    assert!(matches!(
        Index::create(dir.path()),
        Err(Error::AlreadyExists(_))
    ));
    assert!(common::snapshot_files(dir.path()) == before);
    // Put back, the index is whole.
    set_catalog_version(dir.path(), FORMAT_VERSION);
    assert_eq!(Index::open(dir.path()).unwrap().verify().unwrap().books, 8);
}

#[test]
fn a_torn_barrel_tail_is_ignored_on_open_and_cut_off_by_the_next_load() {
    let dir = closed_index();
    let barrel = common::barrel(dir.path(), 1);
    let committed = std::fs::metadata(&barrel).unwrap().len();
    let before = common::sequences_of(&Index::open(dir.path()).unwrap());
    let torn = common::append_torn_tail(&barrel, 40, 10_000);

    let index = Index::open(dir.path()).unwrap();
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.books, verified.records, verified.bytes),
        (8, 8, committed)
    );
    assert_eq!(common::sequences_of(&index), before);
    assert_eq!(index.stats().unwrap().barrel_bytes, committed);
    assert_eq!(
        std::fs::metadata(&barrel).unwrap().len(),
        torn,
        "open must not write"
    );

    let stats = index
        .load([Ok(Document::new("after", common::text(70_000, 50)))])
        .unwrap();
    assert_eq!(stats.books, 1);
    let new_len = index.stats().unwrap().barrel_bytes;
    assert_eq!(std::fs::metadata(&barrel).unwrap().len(), new_len);
    assert!(
        new_len > committed && new_len < torn,
        "the tail was not cut off"
    );
    let verified = index.verify().unwrap();
    assert_eq!((verified.books, verified.records), (9, 9));
    let after = common::sequences_of(&index);
    assert_eq!(after.len(), 9);
    assert!(before.iter().all(|(k, s)| after.get(k) == Some(s)));
    drop(index);
    let output = common::run(common::cli().arg("verify").arg(dir.path()));
    assert!(output.status.success(), "{}", common::stderr(&output));
}

fn segment(dir: &Path, n: u32) -> PathBuf {
    dir.join("segments").join(format!("{n:06}.seg"))
}

/// The errors of a reader and of `verify` over the index in `dir` (which
/// must open: opening reads no segment). A reader maps the segments and
/// checks their layout: damage to it stops the reader, naming the segment;
/// damage inside a section is found by `verify` (the checksum), and
/// queries over it answer without panicking.
fn reader_and_verify_errors(dir: &Path) -> Vec<Error> {
    let index = Index::open(dir).expect("open reads no segment");
    let mut errors = Vec::new();
    match index.reader() {
        Err(error) => errors.push(error),
        Ok(reader) => {
            let _ = reader.query_key("b0", &QueryOptions::default());
            let approximate = QueryOptions::default().mode(Mode::Approximate);
            let _ = reader.query_key("b0", &approximate);
        }
    }
    match index.verify() {
        Ok(_) => panic!("a damaged segment verified"),
        Err(e) => errors.push(e),
    }
    errors
}

fn names(error: &Error, path: &Path) -> bool {
    error.to_string().contains(&path.display().to_string())
}

#[test]
fn the_closed_index_has_three_segments() {
    let dir = closed_index();
    let index = Index::open(dir.path()).unwrap();
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.segments,
            verified.sketched_books,
            verified.dead_sketches
        ),
        (3, 8, 0)
    );
    let stats = index.stats().unwrap();
    assert_eq!(stats.segments, 3);
    let on_disk: u64 = (1..=3)
        .map(|n| std::fs::metadata(segment(dir.path(), n)).unwrap().len())
        .sum();
    assert_eq!(
        (stats.segment_bytes, verified.segment_bytes),
        (on_disk, on_disk)
    );
}

#[test]
fn a_flipped_byte_in_a_segment_is_a_checksum_mismatch_naming_it() {
    let dir = closed_index();
    let path = segment(dir.path(), 2);
    let len = std::fs::metadata(&path).unwrap().len();
    flip(&path, len as usize / 2);
    for error in reader_and_verify_errors(dir.path()) {
        match error {
            Error::Corrupted {
                path: ref named,
                offset,
                ref what,
            } => {
                assert_eq!(named, &path);
                assert_eq!(offset, Some(len - 8));
                assert!(what.starts_with("checksum mismatch (stored 0x"), "{what}");
            }
            other => panic!("expected Corrupted, got {other:?}"),
        }
    }
    let output = common::run(common::cli().arg("verify").arg(dir.path()));
    assert_eq!(output.status.code(), Some(1));
    let stderr = common::stderr(&output);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
}

#[test]
fn every_damaged_segment_byte_is_an_error_naming_the_segment_never_a_panic() {
    let dir = closed_index();
    let path = segment(dir.path(), 1);
    let pristine = std::fs::read(&path).unwrap();
    for at in (0..pristine.len()).step_by(23).chain([pristine.len() - 1]) {
        let mut bytes = pristine.clone();
        bytes[at] ^= 0x04;
        std::fs::write(&path, &bytes).unwrap();
        let errors = std::panic::catch_unwind(|| reader_and_verify_errors(dir.path()))
            .unwrap_or_else(|_| panic!("byte {at}: a damaged segment panicked"));
        for error in errors {
            assert!(
                matches!(
                    error,
                    Error::Corrupted { .. } | Error::ChecksumMismatch { .. }
                ),
                "byte {at}: {error:?}"
            );
            assert!(names(&error, &path), "byte {at}: {error}");
        }
    }
    std::fs::write(&path, &pristine).unwrap();
    Index::open(dir.path()).unwrap().verify().unwrap();
}

#[test]
fn a_truncated_segment_is_an_error_naming_it() {
    let dir = closed_index();
    let path = segment(dir.path(), 3);
    let pristine = std::fs::read(&path).unwrap();
    for len in [pristine.len() - 1, pristine.len() / 2, 30, 16, 5, 0] {
        std::fs::write(&path, &pristine[..len]).unwrap();
        for error in reader_and_verify_errors(dir.path()) {
            assert!(
                matches!(
                    error,
                    Error::Corrupted { .. } | Error::ChecksumMismatch { .. }
                ),
                "{len} bytes: {error:?}"
            );
            assert!(names(&error, &path), "{len} bytes: {error}");
        }
    }
    std::fs::write(&path, &pristine).unwrap();
    Index::open(dir.path()).unwrap().verify().unwrap();
}

#[test]
fn a_missing_segment_is_an_error_naming_it() {
    let dir = closed_index();
    let path = segment(dir.path(), 1);
    std::fs::remove_file(&path).unwrap();
    for error in reader_and_verify_errors(dir.path()) {
        match error {
            Error::Corrupted {
                path: ref named,
                ref what,
                ..
            } => {
                assert_eq!(named, &path);
                assert!(what.starts_with("cannot be read: "), "{what}");
            }
            other => panic!("expected Corrupted, got {other:?}"),
        }
    }
    let output = common::run(common::cli().arg("verify").arg(dir.path()));
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stderr(&output).contains(&path.display().to_string()));
}

#[test]
fn a_segment_from_a_newer_format_is_refused_naming_its_version() {
    let dir = closed_index();
    let path = segment(dir.path(), 2);
    let mut bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[..8], stemmata::storage::format::MAGIC);
    assert_eq!(bytes[8..16], [FORMAT_VERSION as u8, 0, 2, 0, 2, 0, 0, 0]);
    bytes[8..10].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let version = format!("format version {} is not supported", FORMAT_VERSION + 1);
    for error in reader_and_verify_errors(dir.path()) {
        match error {
            Error::Corrupted {
                path: ref named,
                ref what,
                ..
            } => assert!(named == &path && what.starts_with(&version), "{what}"),
            other => panic!("expected Corrupted, got {other:?}"),
        }
    }
}

#[test]
fn a_listed_segment_replaced_by_another_whole_segment_fails_verify() {
    // Each file is a valid segment on its own, so readers accept it; verify
    // compares it with the catalog and finds the books it holds twice.
    let dir = closed_index();
    std::fs::copy(segment(dir.path(), 1), segment(dir.path(), 2)).unwrap();
    let index = Index::open(dir.path()).unwrap();
    match index.verify() {
        Err(Error::Corrupted { path, what, .. }) => {
            assert_eq!(path, segment(dir.path(), 2), "{what}")
        }
        other => panic!("expected Corrupted, got {other:?}"),
    }
}
