//! Sketch segments: `Segment::decode` must return `Err` (never panic, never
//! allocate from an unchecked count) on any bytes, and a segment it accepts
//! must answer every accessor without panicking and agree with itself:
//! `books` yields `book_count` ids in increasing order, each book's keys are
//! sorted, `entries` and `lookup` give the same sorted postings (and so
//! do a book's keys read from their places), the book
//! sections (version 10 on) give each book's entry, parts and postings (and
//! passages, version 12 on, read as parts through the passage view), and
//! merging the segment alone with every book live gives back a segment with
//! the same content (the same bytes when the header carries the current
//! version).
//!
//! A reader opens segments with their layout checked only (`Segment::open`,
//! here `Segment::in_memory`): every input whose layout is accepted is also
//! read through every accessor of the book sections, which must clamp what
//! they read (wrong answers from damaged values, never a panic), and
//! `check` must then return without panicking.
//!
//! Random bytes almost never end in a matching checksum, so each input is
//! also read a second time with its last 8 bytes replaced by the XXH3-64
//! of the bytes before them: that lets the fuzzer reach the counts, bounds
//! and order checks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::repr::sketch::Table;
use stemmata::storage::format::{checksum, FORMAT_VERSION, HEADER_LEN};
use stemmata::storage::segment::Segment;
use stemmata::storage::segment_merge::{merge, Fate};

fn increasing(items: &[impl PartialOrd]) -> bool {
    items.windows(2).all(|w| w[0] < w[1])
}

/// Calls every accessor of the book sections of a segment whose layout
/// only was checked; returns nothing, must not panic. Loops are bounded by
/// the segment's counts, which its layout check bounded by its length.
fn read_unchecked(segment: &Segment) {
    let books = segment.book_count();
    let _ = segment.has_books();
    let mut keys = Vec::new();
    for position in 0..=books {
        let _ = segment.book_id(position);
        let _ = segment.flags(position);
        let _ = segment.sketched(position);
        let _ = segment.entry(position);
        keys.push(String::from_utf8_lossy(segment.key_bytes(position)).into_owned());
        let _ = segment.book_parts(position);
        let _ = segment.segment_book(position);
    }
    keys.push(String::new());
    for key in keys.iter().take(16) {
        for position in segment.positions_of_key(key) {
            assert!(position < books, "a key's position past the last book");
        }
    }
    let parts = segment.part_count();
    for part in 0..=parts.min(4096) {
        let _ = segment.book_of_part(part);
        let _ = segment.part_len(part);
        let hashes = segment.part_hashes(part);
        let words = segment.part_words(part);
        for hash in hashes.iter().take(8) {
            let _ = segment.find_word(hash);
        }
        for word in words.iter().take(8) {
            let _ = segment.word_hash(word);
            let _ = segment.word_list(word).to_vec();
        }
    }
    let _ = segment.book_of_part(usize::MAX);
    let _ = segment.part_hashes(usize::MAX);
    let words = segment.word_count();
    for word in (0..=words.min(4096) as u32).chain([u32::MAX]) {
        let _ = segment.word_hash(word);
        let list = segment.word_list(word);
        let mut count = 0u32;
        list.for_each(None, |_, _| count += 1);
        assert!(
            count <= list.len(),
            "a list yields more entries than it counts"
        );
        list.for_each(Some(word), |_, _| {});
        list.for_each(Some(word / 2), |_, block| assert!(block < 64));
    }
    for hash in [0, 1, u32::MAX] {
        let _ = segment.find_word(hash);
    }
    let _ = segment
        .word_lists()
        .take(4096)
        .map(|list| list.len())
        .count();
    for word in segment.long_words().iter().take(64) {
        let _ = segment.list_len(word);
    }
    for table in Table::ALL {
        for slot in 0..=books.min(64) {
            let _ = segment.book_keys(slot, table).count();
            if let Some(listed) = segment.book_key_postings(slot, table) {
                for (_, books) in listed.take(64) {
                    let _ = books.take(64).count();
                }
            }
        }
        let _ = segment.table_len(table);
        let _ = segment.lookup(table, 0).count();
        let _ = segment.entries(table).take(64).count();
    }
    let _ = segment.check();
}

/// A segment `Segment::decode` accepts: every accessor agrees with the
/// others.
fn check_decoded(data: &[u8], segment: &Segment) {
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
            if let Some(listed) = segment.book_key_postings(slot, table) {
                let listed: Vec<(u64, Vec<u32>)> =
                    listed.map(|(key, books)| (key, books.collect())).collect();
                let looked_up: Vec<(u64, Vec<u32>)> = (keys.iter())
                    .map(|&key| (key, segment.lookup(table, key).collect()))
                    .collect();
                assert_eq!(listed, looked_up, "a book's keys from its places");
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

    if !segment.has_books() {
        // The books of a segment before version 10 have no sections to
        // copy: a merge refuses them.
        if segment.book_count() > 0 {
            assert!(merge(&[segment], |_| Fate::Keep).is_err());
        }
        return;
    }
    // The book sections of a checked segment agree with themselves, its
    // passages too.
    check_units(segment, books.len());
    if segment.stores_passages() {
        let passages = segment
            .passage_view()
            .expect("a segment with books has a passage view");
        check_units(&passages, books.len());
    }

    let merged = merge(&[segment], |_| Fate::Keep).expect("a decoded segment fits one segment");
    let again = Segment::decode(merged.clone(), Path::new("fuzz")).expect("a merge decodes");
    assert_eq!(again.hashes_per_book(), k);
    assert!(again.books().eq(books.iter().cloned()));
    let remerged = merge(&[&again], |_| Fate::Keep).expect("a merge merges");
    assert!(remerged == merged, "merging a merge changes it");
    // A checked segment is the encoder's bytes for its books, so a merge of
    // it alone gives them back when the header carries the current version.
    if data[8..10] == FORMAT_VERSION.to_le_bytes() {
        assert!(merged == data, "a merge of one segment is not canonical");
    }
}

/// The units (parts, or passages through a passage view) of the `books`
/// books of a checked segment agree with its word table and postings.
fn check_units(segment: &Segment, books: usize) {
    let mut elements = 0;
    for position in 0..books {
        let (entry, _) = segment.entry(position).expect("a checked entry decodes");
        assert_eq!(segment.key_bytes(position), entry.key.as_bytes());
        assert!(segment.positions_of_key(&entry.key).contains(&position));
        for part in segment.book_parts(position) {
            assert_eq!(segment.book_of_part(part), position);
            let hashes = segment.part_hashes(part);
            let words = segment.part_words(part);
            assert_eq!(hashes.len(), segment.part_len(part) as usize);
            assert_eq!(words.len(), hashes.len());
            let len = hashes.len() as u32;
            for (index, (hash, word)) in hashes.iter().zip(words.iter()).enumerate() {
                assert_eq!(segment.find_word(hash), Some(word));
                assert_eq!(segment.word_hash(word), hash);
                let entries = segment.word_list(word).to_vec();
                let block = stemmata::storage::posting_lists::fine_block_of(index as u32, len);
                assert!(
                    entries.contains(&(part as u32, block)),
                    "an element missing from its word's postings"
                );
                let mut past = Vec::new();
                segment
                    .word_list(word)
                    .for_each(Some(part as u32), |p, i| past.push((p, i)));
                assert!(past.iter().all(|&(p, _)| p as usize > part));
                assert_eq!(
                    past.len(),
                    entries.iter().filter(|e| e.0 as usize > part).count()
                );
            }
            elements += hashes.len();
        }
    }
    let listed: usize = segment.word_lists().map(|list| list.len() as usize).sum();
    assert_eq!(listed, elements);
}

fn check(data: &[u8]) {
    if let Ok(segment) = Segment::in_memory(data.to_vec(), Path::new("fuzz")) {
        read_unchecked(&segment);
        if let Some(passages) = segment.passage_view() {
            read_unchecked(&passages);
        }
    }
    if let Ok(segment) = Segment::decode(data.to_vec(), Path::new("fuzz")) {
        check_decoded(data, &segment);
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
