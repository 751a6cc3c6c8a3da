//! Page signatures as stored: the page-file record (`pages::decode_record`),
//! the format-3 catalog value (`pages::decode_value`) and the catalog's
//! page locator (`PageLocator::decode_all`) must return an error, never panic,
//! on any bytes, and what they accept must re-encode to exactly the input.
//! The fuzzer rarely forges the trailing checksum, so every input is also
//! tried with a valid one appended: that reaches the checks behind it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::codec::{Decode, Encode};
use stemmata::storage::format::checksum;
use stemmata::storage::page_files::PageLocator;
use stemmata::storage::pages;

/// Book id the decoders expect: the first input byte, so both a matching
/// and a mismatching record id are reached.
fn expected_id(data: &[u8]) -> u32 {
    data.first().map_or(0, |&b| u32::from(b % 4))
}

fuzz_target!(|data: &[u8]| {
    let id = expected_id(data);
    let mut sealed = data.to_vec();
    sealed.extend_from_slice(&checksum(data).to_le_bytes());
    for bytes in [data, sealed.as_slice()] {
        if let Ok(signatures) = pages::decode_record(bytes, Path::new("000001.pgs"), 16, id) {
            let k = signatures[0].0.len();
            assert_eq!(pages::encode_record(id, &signatures, k), bytes);
        }
        if let Ok(signatures) = pages::decode_value(bytes, Path::new("catalog.redb"), id) {
            // A value is a record without its book id, checksummed alone.
            let k = signatures[0].0.len();
            let record = pages::encode_record(id, &signatures, k);
            let body = &bytes[..bytes.len() - 8];
            assert_eq!(&record[4..record.len() - 8], body);
        }
    }
    if let Ok(locator) = PageLocator::decode_all(data, Path::new("catalog.redb")) {
        assert_eq!(locator.encode(), data);
    }
});
