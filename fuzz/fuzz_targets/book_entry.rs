//! Catalog book entries: `BookEntry::decode_all` must return an error on
//! any malformed bytes, and an entry it accepts must re-encode to exactly
//! the input (the encoding is canonical: no slack, no trailing bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::catalog::BookEntry;
use stemmata::storage::codec::{Decode, Encode};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("catalog.redb");
    if let Ok(entry) = BookEntry::decode_all(data, path) {
        let out = entry.encode();
        assert_eq!(out, data);
        assert_eq!(BookEntry::decode_all(&out, path).ok(), Some(entry));
    }
});
