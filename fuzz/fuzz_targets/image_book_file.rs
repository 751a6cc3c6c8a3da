//! Stored word-image book files (`images/NNNNNN.wib`): `decode_book` must
//! return an error, never panic, on any bytes; a file it accepts must re-
//! encode to exactly the input when its header carries the current version
//! (an older one re-encodes at the current version, to bytes that decode
//! and re-encode to themselves) and its crops must decode or fail cleanly.
//! Every input is also tried behind a valid header and with a valid
//! checksum appended, to reach the fields.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::codec::Encode;
use stemmata::storage::format::{checksum, FileHeader, FileKind, FORMAT_VERSION};
use stemmata::storage::word_images::{decode_book, encode_book};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("000001.wib");
    let mut sealed = FileHeader::new(FileKind::ImageBook).encode();
    sealed.extend_from_slice(data);
    let sum = checksum(&sealed);
    sealed.extend_from_slice(&sum.to_le_bytes());
    for bytes in [data, sealed.as_slice()] {
        if let Ok(book) = decode_book(bytes, path) {
            let again = encode_book(&book);
            if bytes[8..10] == FORMAT_VERSION.to_le_bytes() {
                assert_eq!(again, bytes);
            } else {
                let back = decode_book(&again, path).expect("a re-encoded file decodes");
                assert_eq!(encode_book(&back), again);
            }
            for page in 0..book.pages.len() as u32 {
                let _ = book.page_crops(page, path);
            }
        }
    }
});
