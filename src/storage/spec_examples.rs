//! The worked examples of `storage-format.md`, rebuilt byte for byte.
//!
//! Each example's bytes stand in the document in a fenced block marked
//! `hex example=NAME`; these tests read the document as it is compiled in,
//! build the same values with the encoders the index writes with, compare
//! the bytes, and decode the document's bytes back. A change to the
//! document or to an encoder makes them fail, so the examples stay true.

use std::path::Path;

use super::barrel::{self, EncodedSequence};
use super::catalog::BookEntry;
use super::codec::{Decode, Encode};
use super::format::{checksum, FileHeader, FileKind};
use super::pages;
use super::segment::{self, Segment, SketchRecord};
use super::segment_books::SegmentBook;
use crate::repr::minhash::page_codes;
use crate::repr::sketch::{band_key, value_keys, BookSketch, Table};
use crate::repr::unique_words::{extract, word_hash, ExtractOptions};
use crate::repr::{MinHashSig, PartOptions, SimHash128, SketchOptions};

const SPEC: &str = include_str!("../../storage-format.md");
const ALGORITHMS: &str = include_str!("../../docs/algorithms.md");

/// The text of the examples of sections 3.4 and 6.2.
const CAT_TEXT: &str = "The cat saw the dog.";

/// The bytes of the block marked `hex example=name`. A line that starts
/// with an 8-digit hex offset and a colon is a hex dump: byte i of its row
/// stands at column 10 + 3i, and the offsets must follow on. Any other line
/// gives its leading two-digit hex tokens. Panics, naming the example, on
/// a missing or repeated block and on a dump whose offsets do not follow.
fn example(name: &str) -> Vec<u8> {
    let fence = format!("```hex example={name}\n");
    let starts: Vec<usize> = SPEC.match_indices(&fence).map(|(i, _)| i).collect();
    assert_eq!(starts.len(), 1, "example {name}: {} blocks", starts.len());
    let body = &SPEC[starts[0] + fence.len()..];
    let body = &body[..body.find("```").expect("closing fence")];
    let mut bytes = Vec::new();
    for line in body.lines() {
        let raw = line.as_bytes();
        let is_dump =
            raw.len() > 9 && raw[8] == b':' && raw[..8].iter().all(|b| b.is_ascii_hexdigit());
        if is_dump {
            let row = usize::from_str_radix(&line[..8], 16).unwrap();
            let row_start = row & !15;
            for i in 0..16 {
                let col = 10 + 3 * i;
                let Some(pair) = raw.get(col..col + 2) else {
                    break;
                };
                let Some(byte) = hex_byte(pair) else {
                    continue;
                };
                assert_eq!(
                    row_start + i,
                    bytes.len(),
                    "example {name}: byte at offset {:#x} out of place in line {line:?}",
                    row_start + i
                );
                bytes.push(byte);
            }
        } else {
            for token in line.split_whitespace() {
                match hex_byte(token.as_bytes()) {
                    Some(byte) if token.len() == 2 => bytes.push(byte),
                    _ => break,
                }
            }
        }
    }
    assert!(!bytes.is_empty(), "example {name} has no bytes");
    bytes
}

fn hex_byte(pair: &[u8]) -> Option<u8> {
    let pair = std::str::from_utf8(pair).ok()?;
    if pair.len() != 2 || !pair.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u8::from_str_radix(pair, 16).ok()
}

fn path() -> &'static Path {
    Path::new("storage-format.md")
}

#[test]
fn the_file_headers() {
    for (name, kind) in [
        ("header-barrel", FileKind::Barrel),
        ("header-segment", FileKind::Segment),
        ("header-page-file", FileKind::Pages),
    ] {
        let mut bytes = Vec::new();
        FileHeader::new(kind).encode_into(&mut bytes);
        let doc = example(name);
        assert_eq!(doc, bytes, "{name}");
        assert_eq!(
            FileHeader::decode_from(&doc, kind, path()).unwrap(),
            FileHeader::new(kind)
        );
    }
}

#[test]
fn the_barrel_of_one_book() {
    let features = extract(CAT_TEXT, &ExtractOptions::default());
    let encoded = EncodedSequence::encode(&features.sequence.positions).unwrap();
    let mut bytes = Vec::new();
    FileHeader::new(FileKind::Barrel).encode_into(&mut bytes);
    encoded.encode_into(0, &mut bytes);
    let doc = example("barrel");
    assert_eq!(doc, bytes);
    assert_eq!(doc.len(), 52);

    let record = barrel::decode_record(&doc[16..], 16, path()).unwrap();
    assert_eq!((record.book_id, record.len), (0, 36));
    assert_eq!(record.positions, features.sequence.positions);
    assert_eq!(record.positions, [1, 2, 4]);
    assert_eq!(record.hashes, None);
}

/// The catalog entry of the example book, stored as `doc`.
fn cat_entry() -> BookEntry {
    let features = extract(CAT_TEXT, &ExtractOptions::default());
    let record_len = EncodedSequence::encode(&features.sequence.positions)
        .unwrap()
        .record_len();
    BookEntry {
        key: "doc".into(),
        barrel: 1,
        offset: 16,
        record_len: u32::try_from(record_len).unwrap(),
        words: features.words,
        pages: features.pages,
        unique_words: u32::try_from(features.sequence.len()).unwrap(),
        distinct_words: features.distinct_words,
        ..BookEntry::default()
    }
}

#[test]
fn the_book_entry_of_that_book() {
    let entry = cat_entry();
    let mut bytes = Vec::new();
    entry.encode_into(&mut bytes);
    let doc = example("book-entry");
    assert_eq!(doc, bytes);
    assert_eq!(BookEntry::decode_all(&doc, path()).unwrap(), entry);
}

#[test]
fn the_segment_of_that_book_has_the_stated_length() {
    let options = SketchOptions::default();
    let sketch = BookSketch::compute(CAT_TEXT, &options);
    let record = SketchRecord::new(0, &sketch, &options);
    let counts = record.keys.each_ref().map(Vec::len);
    assert_eq!(counts, [20, 17, 8, 100]);
    let features = extract(CAT_TEXT, &ExtractOptions::default());
    let records = [SegmentBook {
        sketch: record,
        sketched: true,
        entry: cat_entry(),
        pages: None,
        parts: vec![features.sequence.hashes],
        passages: Vec::new(),
    }];
    let bytes = segment::encode(records.to_vec(), options.book.num_hashes).unwrap();
    assert_eq!(bytes.len(), 2179);
    assert!(SPEC.contains("listed in\n`segments` with length 2179"));
}

#[test]
fn the_segment_of_two_books() {
    let sig = |v: [u64; 2]| MinHashSig(v.to_vec());
    let book = |id, simhash, minhash, keys: [&[u64]; 4]| SketchRecord {
        book_id: id,
        simhash: SimHash128(simhash),
        minhash: sig(minhash),
        keys: keys.map(<[u64]>::to_vec),
    };
    let with_books = |sketch: SketchRecord, key: &str, parts: &[&[u32]]| SegmentBook {
        sketch,
        sketched: true,
        entry: BookEntry {
            key: key.into(),
            barrel: 1,
            offset: 16,
            record_len: 40,
            words: 9,
            unique_words: parts.iter().map(|p| p.len() as u32).sum(),
            distinct_words: 7,
            ..BookEntry::default()
        },
        pages: None,
        parts: parts.iter().map(|p| p.to_vec()).collect(),
        passages: Vec::new(),
    };
    let mut records = [
        with_books(
            book(
                5,
                0x0f,
                [0x11, 0x22],
                [&[0xa1], &[0xb1, 0xb2], &[], &[0xd1, 0xd2]],
            ),
            "b",
            &[&[0x0a, 0x0b, 0x0c]],
        ),
        with_books(
            book(3, 0xf0, [0x33, 0x44], [&[0xa1], &[], &[0xc1], &[0xd1]]),
            "a",
            &[&[0x0c, 0x0a]],
        ),
    ];
    // Segment order: by id, as `encode` writes them.
    records.sort_by_key(SegmentBook::id);
    let bytes = segment::encode(records.to_vec(), 2).unwrap();
    let doc = example("segment");
    assert_eq!(doc, bytes);
    assert_eq!(doc.len(), 449);

    let decoded = Segment::decode(doc, path()).unwrap();
    let books: Vec<_> = decoded.books().collect();
    assert_eq!(
        books,
        [
            (3, SimHash128(0xf0), sig([0x33, 0x44])),
            (5, SimHash128(0x0f), sig([0x11, 0x22])),
        ]
    );
    for (slot, record) in records.iter().enumerate() {
        for table in Table::ALL {
            let keys: Vec<u64> = decoded.book_keys(slot, table).collect();
            assert_eq!(
                keys, record.sketch.keys[table as usize],
                "slot {slot} {table:?}"
            );
        }
    }
    assert_eq!(
        decoded.lookup(Table::Value, 0xd1).collect::<Vec<_>>(),
        [3, 5]
    );
    assert_eq!(decoded.positions_of_key("b"), [1]);
    assert_eq!(decoded.entry(0).unwrap().0, records[0].entry);
    assert_eq!(decoded.part_hashes(1).to_vec(), [0x0a, 0x0b, 0x0c]);
    let word = decoded.find_word(0x0c).unwrap();
    // Parts in decreasing order: index 2 of 3 lies in fine block 42, index
    // 0 of 2 in block 0.
    assert_eq!(decoded.word_list(word).to_vec(), [(1, 42), (0, 0)]);
}

#[test]
fn the_creation_options() {
    let doc = example("extract-options");
    assert_eq!(doc, ExtractOptions::default().encode());
    assert_eq!(
        ExtractOptions::decode_all(&doc, path()).unwrap(),
        ExtractOptions::default()
    );

    let doc = example("sketch-options");
    assert_eq!(doc, SketchOptions::default().encode());
    assert_eq!(
        SketchOptions::decode_all(&doc, path()).unwrap(),
        SketchOptions::default()
    );

    let doc = example("part-options");
    assert_eq!(doc, PartOptions::default().encode());
    assert_eq!(
        PartOptions::decode_all(&doc, path()).unwrap(),
        PartOptions::default()
    );
}

fn two_pages() -> [MinHashSig; 2] {
    [
        MinHashSig(vec![0x1111_1111_0000_0011, 0x2222_2222_0000_0022]),
        MinHashSig::empty(2),
    ]
}

/// The pages of [`two_pages`] as they read back: their codes.
fn two_pages_read() -> [MinHashSig; 2] {
    two_pages().each_ref().map(page_codes)
}

#[test]
fn the_page_file_record() {
    let reduced = two_pages_read();
    let doc = example("page-file-record");
    let record = pages::encode_record(7, &reduced, 2);
    assert_eq!(doc, record);
    assert_eq!(doc.len(), 26);
    let read = pages::decode_record(&doc, path(), 16, 7).unwrap();
    assert_eq!(read, reduced);
    assert_eq!(read[0].0, [0xf053, 0x9fcd]);
    assert!(read[1].is_empty());
    assert!(SPEC.contains(&format!("checksum {:#018x}", checksum(&doc[..18]))));
}

/// The record of [`two_pages`] as formats 4 to 14 wrote it: k without the
/// codes flag, each value's high 32 bits. No writer makes it any more, so
/// it is built by hand.
fn format_14_record() -> Vec<u8> {
    let mut record = Vec::new();
    record.extend_from_slice(&7u32.to_le_bytes());
    record.extend_from_slice(&2u16.to_le_bytes());
    record.extend_from_slice(&2u32.to_le_bytes());
    for page in two_pages() {
        for value in page.0 {
            record.extend_from_slice(&((value >> 32) as u32).to_le_bytes());
        }
    }
    record.extend_from_slice(&checksum(&record).to_le_bytes());
    record
}

#[test]
fn the_page_file_record_of_format_14() {
    let doc = example("page-file-record-format-14");
    assert_eq!(doc, format_14_record());
    assert_eq!(doc.len(), 34);
    assert!(SPEC.contains(&format!("checksum {:#018x}", checksum(&doc[..26]))));
    assert_eq!(checksum(&doc[..26]), 0x498b_2bc8_4183_c239);
    // It reads back as the codes the format-15 record holds.
    assert_eq!(
        pages::decode_record(&doc, path(), 16, 7).unwrap(),
        two_pages_read()
    );
}

#[test]
fn the_format_3_pages_value() {
    // Format 3 stored the old record without its book id, checksummed
    // alone; no writer makes it any more, so it is built from that record.
    let record = format_14_record();
    let mut value = record[4..record.len() - 8].to_vec();
    value.extend_from_slice(&checksum(&value).to_le_bytes());
    let doc = example("pages-value-format-3");
    assert_eq!(doc, value);
    assert_eq!(
        pages::decode_value(&doc, path(), 7).unwrap(),
        two_pages_read()
    );
}

#[test]
fn the_hashes_quoted_in_the_algorithms() {
    let seed = ExtractOptions::default().hash_seed;
    for (word, hash) in [
        ("cat", 0x913f_e47e),
        ("saw", 0x390e_668d),
        ("dog", 0x568e_ce69),
    ] {
        assert_eq!(word_hash(word, seed), hash, "{word}");
        assert!(
            ALGORITHMS.contains(&format!("`{word}` →\n`{hash:#010x}`"))
                || ALGORITHMS.contains(&format!("`{word}` → `{hash:#010x}`"))
        );
    }
    let options = SketchOptions::default();
    let sketch = BookSketch::compute(CAT_TEXT, &options);
    assert!(sketch.book.0.iter().all(|&v| v == 0x2c4a_46a5_84aa_5c78));
    assert!(ALGORITHMS.contains("holds `0x2c4a46a584aa5c78`"));
    let first = band_key(Table::Value, 0, &[0x2c4a_46a5_84aa_5c78]);
    assert_eq!(first, 0xa672_f2fb_3bdb_7ccd);
    assert!(ALGORITHMS.contains("`0xa672f2fb3bdb7ccd`"));
    assert!(value_keys(&sketch.book).contains(&first));
    let mut joined = options;
    joined.book.shingle_hash = crate::repr::ShingleHash::JoinedWords;
    let sketch = BookSketch::compute(CAT_TEXT, &joined);
    assert!(sketch.book.0.iter().all(|&v| v == 0x5cfd_2e96_e75b_5574));
    assert!(ALGORITHMS.contains("value is\n`0x5cfd2e96e75b5574`"));
    let first = band_key(Table::Value, 0, &[0x5cfd_2e96_e75b_5574]);
    assert_eq!(first, 0x0519_8d70_b155_5228);
    assert!(ALGORITHMS.contains("key `0x05198d70b1555228`"));
}
