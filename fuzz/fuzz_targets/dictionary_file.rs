//! Stored dictionary files (`dictionaries/NNNNNN.dic`): `decode` must
//! return an error, never panic, on any bytes, and a file it accepts must
//! re-encode to exactly the input when its header carries the current
//! version (an older one re-encodes at the current version, to bytes that
//! decode and re-encode to themselves). The fuzzer rarely forges the header
//! and the trailing checksum, so every input is also tried behind a valid
//! header and with a valid checksum appended: that reaches the fields.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::codec::Encode;
use stemmata::storage::dictionary_file::{decode, encode};
use stemmata::storage::format::{checksum, FileHeader, FileKind, FORMAT_VERSION};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("000001.dic");
    let mut sealed = FileHeader::new(FileKind::Dictionary).encode();
    sealed.extend_from_slice(data);
    let sum = checksum(&sealed);
    sealed.extend_from_slice(&sum.to_le_bytes());
    for bytes in [data, sealed.as_slice()] {
        if let Ok(dictionary) = decode(bytes, path) {
            let again = encode(&dictionary);
            if bytes[8..10] == FORMAT_VERSION.to_le_bytes() {
                assert_eq!(again, bytes);
            } else {
                let back = decode(&again, path).expect("a re-encoded file decodes");
                assert_eq!(encode(&back), again);
            }
        }
    }
});
