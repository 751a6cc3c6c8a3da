//! The catalog's 41-byte `sketch_options` (40 bytes in indexes created by
//! formats 2 to 16) and 8-byte `part_options`: `decode_all` must return an
//! error on any malformed or invalid bytes, and options it accepts are
//! valid and re-encode to exactly the input (the encodings are canonical),
//! but for the 40-byte form, which re-encodes with its shingle hash, 0,
//! after it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::repr::sketch::SketchOptions;
use stemmata::repr::PartOptions;
use stemmata::storage::codec::{Decode, Encode};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("catalog.redb");
    if let Ok(options) = SketchOptions::decode_all(data, path) {
        assert!(options.validate().is_ok());
        let out = options.encode();
        match data.len() {
            40 => assert_eq!(out, [data, &[0]].concat()),
            _ => assert_eq!(out, data),
        }
        assert_eq!(SketchOptions::decode_all(&out, path).ok(), Some(options));
    }
    if let Ok(parts) = PartOptions::decode_all(data, path) {
        assert!(parts.validate().is_ok());
        assert_eq!(parts.encode(), data);
        // A book of up to about a million words (the ranges take memory in
        // proportion to the book, as its text does) is cut into ranges that
        // cover it from its first word to its last.
        let extra = u64::from(data.first().copied().unwrap_or(0)) * 977;
        let words = u64::from(parts.volume_words).min(1 << 20) + 1 + extra;
        let ranges = parts.ranges(words);
        assert_eq!(ranges.first().map(|r| r.start), Some(0));
        assert_eq!(ranges.last().map(|r| r.end), Some(words));
    }
});
