//! Compacting an index: the space of deleted and replaced books given back,
//! and nothing else changed.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use stemmata::{Document, Error, Index, Mode, PairsOptions, QueryOptions, Reader};

/// Book `i` of family `i / 3`: three pages of 150 words from a stretch its
/// family shares, shifted by `variant`.
fn book(i: u32, variant: u32) -> Document {
    let start = (i / 3) * 2000 + (i % 3) * 40 + variant * 11;
    let pages: Vec<String> = (0..3).map(|p| common::text(start + p * 150, 150)).collect();
    Document::new(format!("b{i:02}"), pages.join("\n\x0c"))
}

fn books(range: std::ops::Range<u32>, variant: u32) -> Vec<Document> {
    range.map(|i| book(i, variant)).collect()
}

/// 24 books loaded in batches of 5, 4 of them deleted, 12 others loaded
/// again with other texts: 16 of 36 records dead, and 16 dead sketches in
/// 8 segments.
fn index_with_dead_records(dir: &Path) -> Index {
    let index = Index::create(dir).unwrap();
    common::load_docs(&index, books(0..24, 0), 5);
    // Too few dead sketches for the delete to compact the segments; eight
    // segments, not enough for the load to.
    index.delete(&["b13", "b16", "b19", "b22"]).unwrap();
    common::load_docs(&index, books(0..12, 1), 5);
    index
}

/// Everything a reader answers: each book's sequence and page signatures,
/// exact and approximate hits of every book, and every pair in both modes,
/// by key.
#[derive(Debug, PartialEq)]
struct Answers {
    books: BTreeMap<String, (String, usize)>,
    hits: BTreeMap<String, Vec<Vec<(String, u64)>>>,
    pairs: Vec<Vec<(String, String, u64)>>,
    relations: Vec<String>,
}

fn answers(reader: &Reader) -> Answers {
    let mut books = BTreeMap::new();
    let mut hits = BTreeMap::new();
    for info in reader.books() {
        let sequence = reader.parts(&info.key).unwrap();
        let pages = reader.pages(&info.key).unwrap();
        books.insert(info.key.clone(), (format!("{sequence:?}"), pages.len()));
        let by_mode = [Mode::Exact, Mode::Approximate]
            .into_iter()
            .map(|mode| {
                let options = QueryOptions::default().mode(mode);
                let mut found: Vec<(String, u64)> = reader
                    .query_key(&info.key, &options)
                    .unwrap()
                    .hits
                    .into_iter()
                    .map(|h| (h.key, h.score.to_bits()))
                    .collect();
                found.sort();
                found
            })
            .collect();
        hits.insert(info.key.clone(), by_mode);
    }
    let pairs = [Mode::Exact, Mode::Approximate]
        .into_iter()
        .map(|mode| {
            let options = PairsOptions::default().mode(mode);
            let mut found: Vec<_> = reader
                .pairs(&options)
                .unwrap()
                .pairs
                .iter()
                .map(|pair| (pair.a.key.clone(), pair.b.key.clone(), pair.score.to_bits()))
                .collect();
            found.sort();
            found
        })
        .collect();
    let relations = [("b00", "b01"), ("b03", "b04"), ("b12", "b14")]
        .iter()
        .filter(|(a, b)| reader.book(a).is_ok() && reader.book(b).is_ok())
        .map(|(a, b)| format!("{:?}", reader.relation(a, b).unwrap()))
        .collect();
    Answers {
        books,
        hits,
        pairs,
        relations,
    }
}

fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[test]
fn compaction_reclaims_dead_bytes_and_answers_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = index_with_dead_records(dir.path());
    let before = index.stats().unwrap();
    assert!(before.barrel_bytes > before.live_record_bytes + 16 * before.barrels);
    let expected = answers(&index.reader().unwrap());
    assert!(expected.pairs[0].len() > 5, "{:?}", expected.pairs);

    let stats = index.compact().unwrap();
    assert!(stats.warnings.is_empty(), "{:?}", stats.warnings);
    assert!(stats.catalog_compacted);
    let after = index.stats().unwrap();
    // The barrels hold exactly the live records, after their headers.
    assert_eq!(
        after.barrel_bytes,
        after.live_record_bytes + 16 * after.barrels
    );
    assert_eq!(stats.barrels.bytes_before, before.barrel_bytes);
    assert_eq!(stats.barrels.bytes_after, after.barrel_bytes);
    assert_eq!(stats.page_files.bytes_after, after.page_file_bytes);
    assert!(stats.page_files.bytes_after < stats.page_files.bytes_before);
    assert_eq!(stats.records_moved, after.books);
    assert_eq!(stats.page_records_moved, after.books);
    // Loads unlisted the segments holding only replaced books; the rest
    // are merged into one.
    assert_eq!(stats.segments_merged, before.segments);
    assert_eq!(stats.segments.files_after, 1);
    assert!(stats.bytes_after() < stats.bytes_before());
    assert_eq!((after.books, after.words), (before.books, before.words));
    // Only the listed files are left.
    assert_eq!(files_in(&dir.path().join("barrels")) as u64, after.barrels);
    assert_eq!(files_in(&dir.path().join("pages")) as u64, after.page_files);
    assert_eq!(
        files_in(&dir.path().join("segments")) as u64,
        after.segments
    );

    let verified = index.verify().unwrap();
    assert_eq!(verified.dead_sketches, 0);
    assert_eq!(verified.records, after.books);
    assert_eq!(verified.page_records, verified.paged_books);
    assert_eq!(answers(&index.reader().unwrap()), expected);
    drop(index);
    let reopened = Index::open_read_only(dir.path()).unwrap();
    reopened.verify().unwrap();
    assert_eq!(answers(&reopened.reader().unwrap()), expected);
}

#[test]
fn loads_after_a_compaction_give_what_they_give_without_it() {
    let (compacted, plain) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut index = index_with_dead_records(compacted.path());
    index.compact().unwrap();
    let reference = index_with_dead_records(plain.path());
    for index in [&index, &reference] {
        common::load_docs(index, books(24..30, 0), 4);
        common::load_docs(index, books(0..3, 2), 4);
    }
    index.verify().unwrap();
    assert_eq!(index.reader().unwrap().len(), 26);
    assert_eq!(
        answers(&index.reader().unwrap()),
        answers(&reference.reader().unwrap())
    );
}

#[test]
fn a_reader_opened_before_a_compaction_still_answers() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = index_with_dead_records(dir.path());
    let reader = index.reader().unwrap();
    let expected = answers(&reader);
    let stats = index.compact().unwrap();
    assert!(stats.records_moved > 0 && stats.files_removed > 0);
    // The reader holds a handle: the catalog waits for the next compaction.
    assert!(!stats.catalog_compacted);
    assert!(
        stats.warnings[0].contains("other handles of this index"),
        "{:?}",
        stats.warnings
    );
    assert_eq!(answers(&reader), expected);
    drop(reader);
    assert!(index.compact().unwrap().catalog_compacted);
}

#[test]
fn a_reader_still_reads_a_book_deleted_and_compacted_away_after_it_opened() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = index_with_dead_records(dir.path());
    let reader = index.reader().unwrap();
    let sequence = reader.parts("b05").unwrap();
    let pages = reader.pages("b05").unwrap();
    assert!(!pages.is_empty());
    index.delete(&["b05"]).unwrap();
    let stats = index.compact().unwrap();
    assert!(stats.records_moved > 0 && stats.files_removed > 0);
    // Its snapshot's files are open: their records outlive the names.
    assert_eq!(reader.parts("b05").unwrap(), sequence);
    assert_eq!(reader.pages("b05").unwrap(), pages);
    assert!(reader.parts("b06").is_ok());
    assert!(index.reader().unwrap().book("b05").is_err());
}

#[test]
fn compaction_is_refused_on_a_read_only_index() {
    let dir = tempfile::tempdir().unwrap();
    drop(index_with_dead_records(dir.path()));
    let files = common::snapshot_files(dir.path());
    let mut index = Index::open_read_only(dir.path()).unwrap();
    assert!(matches!(index.compact(), Err(Error::ReadOnly(_))));
    drop(index);
    assert_eq!(common::snapshot_files(dir.path()), files);
}

#[test]
fn compacting_a_compact_index_leaves_its_files_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, books(0..12, 0), 20);
    let files = |dir: &Path| {
        let mut files = common::snapshot_files(dir);
        files.remove(&dir.join("catalog.redb"));
        files
    };
    let before = files(dir.path());
    let expected = answers(&index.reader().unwrap());
    let stats = index.compact().unwrap();
    assert_eq!(
        (
            stats.records_moved,
            stats.page_records_moved,
            stats.files_removed
        ),
        (0, 0, 0)
    );
    assert_eq!(stats.barrels.bytes_before, stats.barrels.bytes_after);
    assert_eq!(files(dir.path()), before);
    assert_eq!(answers(&index.reader().unwrap()), expected);
}

#[test]
fn files_no_commit_lists_are_removed_by_the_next_writer() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = index_with_dead_records(dir.path());
    let stray = [
        dir.path().join("barrels/000099.brl"),
        dir.path().join("pages/000042.pgs"),
        dir.path().join("segments/000777.seg"),
    ];
    for path in &stray {
        std::fs::write(path, b"left by a writer that stopped").unwrap();
    }
    let other = dir.path().join("barrels/notes.txt");
    std::fs::write(&other, b"not the index's").unwrap();
    // Readers ignore them.
    index.verify().unwrap();
    let stats = index.compact().unwrap();
    assert!(stats.files_removed >= 2);
    for path in &stray {
        assert!(!path.exists(), "{}", path.display());
    }
    assert!(other.exists());
    // A load removes them too.
    std::fs::write(&stray[0], b"again").unwrap();
    std::fs::write(&stray[1], b"again").unwrap();
    common::load_docs(&index, books(30..31, 0), 5);
    assert!(!stray[0].exists() && !stray[1].exists());
    index.verify().unwrap();
}

#[test]
fn compacting_away_every_book_keeps_file_numbers_rising() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, books(0..6, 0), 3);
    let keys: Vec<String> = (0..6).map(|i| format!("b{i:02}")).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    index.delete(&keys).unwrap();
    index.compact().unwrap();
    let stats = index.stats().unwrap();
    assert_eq!((stats.books, stats.barrels, stats.barrel_bytes), (0, 1, 16));
    assert!(dir.path().join("barrels/000002.brl").exists());
    common::load_docs(&index, books(0..2, 0), 3);
    index.verify().unwrap();
    assert_eq!(index.reader().unwrap().len(), 2);
}

#[test]
fn the_command_line_compacts_and_reports_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    drop(index_with_dead_records(dir.path()));
    let out = common::run(common::cli().arg("compact").arg(dir.path()));
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    for line in [
        "barrels ",
        "page files ",
        "segments ",
        "catalog ",
        "moved ",
        "total ",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(line)),
            "{line:?} in {text}"
        );
    }
    assert!(text.contains("reclaimed"), "{text}");
    assert!(common::stderr(&out).is_empty(), "{}", common::stderr(&out));

    // Compact again: nothing left to move. The catalog's sizes are its
    // file's, before the command and after it.
    let catalog = dir.path().join("catalog.redb");
    let before = std::fs::metadata(&catalog).unwrap().len();
    let out = common::run(common::cli().args(["compact", "--json"]).arg(dir.path()));
    assert!(out.status.success(), "{}", common::stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["records_moved"], 0);
    assert_eq!(json["page_records_moved"], 0);
    assert_eq!(json["catalog_compacted"], true);
    assert_eq!(json["warnings"], serde_json::json!([]));
    let barrels = &json["barrels"];
    assert_eq!(barrels["bytes_before"], barrels["bytes_after"]);
    for kind in ["page_files", "segments", "catalog"] {
        assert!(json[kind]["bytes_after"].is_u64(), "{kind}: {json}");
    }
    assert_eq!(json["catalog"]["bytes_before"], before);
    let after = std::fs::metadata(&catalog).unwrap().len();
    assert_eq!(json["catalog"]["bytes_after"], after);

    let out = common::run(common::cli().arg("verify").arg(dir.path()));
    assert!(out.status.success(), "{}", common::stderr(&out));
}

#[test]
fn readers_and_verify_in_another_thread_work_through_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = index_with_dead_records(dir.path());
    let expected = common::sequences_of(&index);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let checker = {
        let (index, stop) = (index.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut rounds = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || rounds == 0 {
                let reader = index.reader().unwrap();
                assert_eq!(reader.len(), 20);
                let verified = index.verify().unwrap();
                assert_eq!(verified.books, 20);
                rounds += 1;
            }
            rounds
        })
    };
    for round in 0..6 {
        // The same texts again: new records, the old ones dead.
        common::load_docs(&index, books(0..12, u32::from(round % 2 == 1)), 5);
        index.compact().unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(checker.join().unwrap() > 0);
    assert_eq!(common::sequences_of(&index), expected);
    index.verify().unwrap();
}
