//! Sketch segments: `Segment::decode` must return `Err` (never panic, never
//! allocate from an unchecked count) on any bytes, and a segment it accepts
//! must answer every accessor without panicking and agree with itself:
//! `books` yields `book_count` ids in increasing order, each book's keys are
//! sorted, `entries` and `lookup` give the same sorted postings, and merging
//! the segment alone with every book live gives back a segment with the same
//! content (the same bytes when the header carries the current version).
//!
//! Random bytes almost never end in a matching checksum, so each input is
//! also decoded a second time with its last 8 bytes replaced by the XXH3-64
//! of the bytes before them: that lets the fuzzer reach the counts, bounds
//! and order checks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::repr::sketch::Table;
use stemmata::storage::format::{checksum, FORMAT_VERSION, HEADER_LEN};
use stemmata::storage::segment::{merge, Segment};

fn increasing(items: &[impl PartialOrd]) -> bool {
    items.windows(2).all(|w| w[0] < w[1])
}

fn check(data: &[u8]) {
    let Ok(segment) = Segment::decode(data.to_vec(), Path::new("fuzz")) else {
        return;
    };
    assert!(segment.path() == Path::new("fuzz"));
    let k = segment.hashes_per_book();
    let books: Vec<_> = segment.books().collect();
    assert_eq!(books.len(), segment.book_count());
    let ids: Vec<u32> = books.iter().map(|(id, _, _)| *id).collect();
    assert!(increasing(&ids), "book ids out of order");
    assert!(books.iter().all(|(_, _, sig)| sig.0.len() == k));

    let mut probes = Vec::new();
    for table in Table::ALL {
        for slot in 0..=books.len() {
            let keys: Vec<u64> = segment.book_keys(slot, table).collect();
            assert!(increasing(&keys), "book keys out of order");
            if slot == books.len() {
                assert!(keys.is_empty(), "keys past the last book");
            }
            probes.extend(keys.iter().take(4));
        }
        let entries: Vec<(u64, Vec<u32>)> = segment
            .entries(table)
            .map(|(key, postings)| {
                let len = postings.len();
                let ids: Vec<u32> = postings.collect();
                assert_eq!(ids.len(), len);
                (key, ids)
            })
            .collect();
        let (key_count, entry_count) = segment.table_len(table);
        assert_eq!(entries.len(), key_count);
        assert_eq!(
            entries.iter().map(|(_, ids)| ids.len()).sum::<usize>(),
            entry_count
        );
        let keys: Vec<u64> = entries.iter().map(|(key, _)| *key).collect();
        assert!(increasing(&keys), "table keys out of order");
        for (key, ids) in &entries {
            assert!(!ids.is_empty() && increasing(ids), "postings");
            assert_eq!(&segment.lookup(table, *key).collect::<Vec<_>>(), ids);
        }
        for key in probes.iter().copied().chain([0, u64::MAX]) {
            let found: Vec<u32> = segment.lookup(table, key).collect();
            let listed = entries.binary_search_by_key(&key, |(k, _)| *k);
            match listed {
                Ok(i) => assert_eq!(found, entries[i].1),
                Err(_) => assert!(found.is_empty()),
            }
        }
    }

    let merged = merge(&[&segment], |_| true).expect("a decoded segment fits one segment");
    let again = Segment::decode(merged.clone(), Path::new("fuzz")).expect("a merge decodes");
    assert_eq!(again.hashes_per_book(), k);
    assert!(again.books().eq(books.iter().cloned()));
    if data[8..10] == FORMAT_VERSION.to_le_bytes() {
        assert!(merged == data, "a merge of one segment is not canonical");
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= HEADER_LEN + 16 {
        let body_end = data.len() - 8;
        let mut fixed = data.to_vec();
        fixed[body_end..].copy_from_slice(&checksum(&data[..body_end]).to_le_bytes());
        check(&fixed);
    }
});
