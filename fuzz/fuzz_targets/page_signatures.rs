//! Page signatures as stored: the page-file record (`pages::decode_record`),
//! the format-3 catalog value (`pages::decode_value`) and the catalog's
//! page locator (`PageLocator::decode_all`) must return an error, never panic,
//! on any bytes. A record of codes they accept must re-encode to exactly the
//! input; a record or value of high 32-bit values (formats 3 to 14) reads as
//! codes, which a record of codes must hold unchanged.
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
            let record = pages::encode_record(id, &signatures, k);
            if bytes[5] & 0x80 != 0 {
                assert_eq!(record, bytes);
            }
            let again = pages::decode_record(&record, Path::new("000001.pgs"), 16, id);
            assert_eq!(again.unwrap(), signatures);
        }
        if let Ok(signatures) = pages::decode_value(bytes, Path::new("catalog.redb"), id) {
            let k = signatures[0].0.len();
            let record = pages::encode_record(id, &signatures, k);
            let again = pages::decode_record(&record, Path::new("000001.pgs"), 16, id);
            assert_eq!(again.unwrap(), signatures);
        }
    }
    if let Ok(locator) = PageLocator::decode_all(data, Path::new("catalog.redb")) {
        assert_eq!(locator.encode(), data);
    }
});
