//! The catalog's 40-byte `sketch_options`: `SketchOptions::decode_all` must
//! return an error on any malformed or invalid bytes, and options it
//! accepts are valid and re-encode to exactly the input (the encoding is
//! canonical).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::repr::sketch::SketchOptions;
use stemmata::storage::codec::{Decode, Encode};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("catalog.redb");
    if let Ok(options) = SketchOptions::decode_all(data, path) {
        assert!(options.validate().is_ok());
        let out = options.encode();
        assert_eq!(out, data);
        assert_eq!(SketchOptions::decode_all(&out, path).ok(), Some(options));
    }
});
