//! The catalog's 40-byte `sketch_options`: `decode_sketch_options` must
//! return `None` on any malformed or invalid bytes, and options it accepts
//! are valid and re-encode to exactly the input (the encoding is canonical).
#![no_main]

use libfuzzer_sys::fuzz_target;
use stemmata::storage::catalog::{decode_sketch_options, encode_sketch_options};

fuzz_target!(|data: &[u8]| {
    if let Some(options) = decode_sketch_options(data) {
        assert!(options.validate().is_ok());
        let out = encode_sketch_options(&options);
        assert_eq!(out, data);
        assert_eq!(decode_sketch_options(&out), Some(options));
    }
});
