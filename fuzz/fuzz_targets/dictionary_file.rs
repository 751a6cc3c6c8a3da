//! Stored dictionary files (`dictionaries/NNNNNN.dic`): `decode` must
//! return an error, never panic, on any bytes, and a file it accepts must
//! re-encode to exactly the input. The fuzzer rarely forges the header and
//! the trailing checksum, so every input is also tried behind a valid
//! header and with a valid checksum appended: that reaches the fields.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::codec::Encode;
use stemmata::storage::dictionary_file::{decode, encode};
use stemmata::storage::format::{checksum, FileHeader, FileKind};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("000001.dic");
    let mut sealed = FileHeader::new(FileKind::Dictionary).encode();
    sealed.extend_from_slice(data);
    let sum = checksum(&sealed);
    sealed.extend_from_slice(&sum.to_le_bytes());
    for bytes in [data, sealed.as_slice()] {
        if let Ok(dictionary) = decode(bytes, path) {
            assert_eq!(encode(&dictionary), bytes);
        }
    }
});
