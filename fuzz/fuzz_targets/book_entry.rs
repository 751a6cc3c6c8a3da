//! Catalog book entries: `BookEntry::decode_from` must return `None` on any
//! malformed bytes, and an entry it accepts must re-encode to exactly the
//! input (the encoding is canonical: no slack, no trailing bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use stemmata::storage::catalog::BookEntry;

fuzz_target!(|data: &[u8]| {
    if let Some(entry) = BookEntry::decode_from(data) {
        let mut out = Vec::new();
        entry.encode_into(&mut out);
        assert_eq!(out, data);
        assert_eq!(BookEntry::decode_from(&out), Some(entry));
    }
});
