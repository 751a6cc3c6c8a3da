//! The stored visual vocabulary (`images/NNNNNN.wiv`): `decode_vocabulary`
//! must return an error, never panic, on any bytes; a file it accepts must
//! re-encode to exactly the input when its header carries the current
//! version (an older one re-encodes at the current version, to bytes that
//! decode and re-encode to themselves) and quantise any descriptor. Every
//! input is also tried behind a valid header and with a valid checksum
//! appended.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::codec::Encode;
use stemmata::storage::format::{checksum, FileHeader, FileKind, FORMAT_VERSION};
use stemmata::storage::word_images::{decode_vocabulary, encode_vocabulary};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("000001.wiv");
    let mut sealed = FileHeader::new(FileKind::Vocabulary).encode();
    sealed.extend_from_slice(data);
    let sum = checksum(&sealed);
    sealed.extend_from_slice(&sum.to_le_bytes());
    for bytes in [data, sealed.as_slice()] {
        if let Ok(codebook) = decode_vocabulary(bytes, path) {
            let again = encode_vocabulary(&codebook);
            if bytes[8..10] == FORMAT_VERSION.to_le_bytes() {
                assert_eq!(again, bytes);
            } else {
                let back = decode_vocabulary(&again, path).expect("a re-encoded file decodes");
                assert_eq!(encode_vocabulary(&back), again);
            }
            let term = codebook.quantise(&[7u8; 128]);
            assert!((term as usize) < codebook.terms());
        }
    }
});
