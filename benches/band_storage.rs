//! Where band tables live: immutable segment files against a redb table,
//! for the two operations the engine does with them — writing one load
//! batch's band entries, and looking keys up at query time.
//!
//! The batch is 1,000 books with the default layouts' key counts at 20K
//! words (20 book keys, about 425 window keys and 8 simhash keys each),
//! so almost every key lists one book, as in real band tables. The redb
//! variant stores each key with its sorted book ids (4 bytes each), in one
//! write transaction, as a catalog table would.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use redb::{Database, ReadableDatabase, TableDefinition};
use std::path::Path;
use stemmata::repr::minhash::mix64;
use stemmata::repr::{MinHashSig, SimHash128};
use stemmata::storage::catalog::BookEntry;
use stemmata::storage::segment::{encode, write_file, Segment, SketchRecord};
use stemmata::storage::segment_books::SegmentBook;

const BOOKS: u32 = 1_000;
const TABLE: TableDefinition<u64, &[u8]> = TableDefinition::new("bands");

fn records() -> Vec<SketchRecord> {
    (0..BOOKS)
        .map(|book| {
            let keys = |table: u64, n: u64| {
                let mut keys: Vec<u64> = (0..n)
                    .map(|i| mix64(table << 56 ^ u64::from(book) << 20 ^ i))
                    .collect();
                keys.sort_unstable();
                keys
            };
            SketchRecord {
                book_id: book,
                simhash: SimHash128(u128::from(book)),
                minhash: MinHashSig(vec![u64::from(book); 100]),
                keys: [keys(0, 20), keys(1, 425), keys(2, 8), keys(3, 100)],
            }
        })
        .collect()
}

/// The records as segment books, each with an entry and no words (the
/// book sections cost little beside the key tables here).
fn books(records: &[SketchRecord]) -> Vec<SegmentBook> {
    records
        .iter()
        .map(|sketch| SegmentBook {
            sketch: sketch.clone(),
            sketched: true,
            entry: BookEntry {
                key: format!("k{}", sketch.book_id),
                ..BookEntry::default()
            },
            pages: None,
            parts: vec![Vec::new()],
            passages: Vec::new(),
        })
        .collect()
}

fn entries(records: &[SketchRecord]) -> Vec<(u64, u32)> {
    let mut all: Vec<(u64, u32)> = records
        .iter()
        .flat_map(|r| r.keys.iter().flatten().map(|&k| (k, r.book_id)))
        .collect();
    all.sort_unstable();
    all
}

fn write_redb(path: &Path, entries: &[(u64, u32)]) {
    let db = Database::create(path).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut table = txn.open_table(TABLE).unwrap();
        for &(key, book) in entries {
            table.insert(key, book.to_le_bytes().as_slice()).unwrap();
        }
    }
    txn.commit().unwrap();
}

fn band_storage(c: &mut Criterion) {
    let records = records();
    let entries = entries(&records);
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("band_storage");
    group.sample_size(10);
    group.throughput(Throughput::Elements(entries.len() as u64));
    let mut n = 0;
    group.bench_function("write_batch/segment", |b| {
        b.iter_batched(
            || books(&records),
            |batch| {
                n += 1;
                let bytes = encode(batch, 100).unwrap();
                write_file(&dir.path().join(format!("{n}.seg")), &bytes).unwrap();
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("write_batch/redb", |b| {
        b.iter(|| {
            n += 1;
            write_redb(&dir.path().join(format!("{n}.redb")), &entries);
        })
    });

    let seg_path = dir.path().join("lookup.seg");
    write_file(&seg_path, &encode(books(&records), 100).unwrap()).unwrap();
    let segment = Segment::open(&seg_path).unwrap();
    let db_path = dir.path().join("lookup.redb");
    write_redb(&db_path, &entries);
    let db = Database::open(&db_path).unwrap();
    let probes: Vec<u64> = entries.iter().step_by(97).map(|&(k, _)| k).collect();
    group.throughput(Throughput::Elements(probes.len() as u64));
    group.bench_function("lookup/segment", |b| {
        b.iter(|| {
            probes
                .iter()
                .map(|&k| segment.lookup(stemmata::repr::Table::Window, k).count())
                .sum::<usize>()
        })
    });
    group.bench_function("lookup/redb", |b| {
        b.iter(|| {
            let txn = db.begin_read().unwrap();
            let table = txn.open_table(TABLE).unwrap();
            probes
                .iter()
                .map(|&k| table.get(k).unwrap().map_or(0, |v| v.value().len() / 4))
                .sum::<usize>()
        })
    });
    group.finish();
    let seg_bytes = std::fs::metadata(&seg_path).unwrap().len();
    let db_bytes = std::fs::metadata(&db_path).unwrap().len();
    println!(
        "band_storage: {} entries; segment file {:.1} MB ({:.1} B/entry, sketches and per-book keys included); redb file {:.1} MB ({:.1} B/entry, band table only)",
        entries.len(),
        seg_bytes as f64 / 1e6,
        seg_bytes as f64 / entries.len() as f64,
        db_bytes as f64 / 1e6,
        db_bytes as f64 / entries.len() as f64
    );
}

criterion_group!(benches, band_storage);
criterion_main!(benches);
