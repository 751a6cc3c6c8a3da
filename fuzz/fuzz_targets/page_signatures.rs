//! Page signatures stored in the catalog: `pages::decode` must return an
//! error, never panic, on any bytes, and signatures it accepts must
//! re-encode to exactly the input. The fuzzer rarely forges the trailing
//! checksum, so half of the inputs get a valid one appended: that reaches
//! the checks behind it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::pages;
use stemmata::storage::format::checksum;

fuzz_target!(|data: &[u8]| {
    let mut sealed = data.to_vec();
    sealed.extend_from_slice(&checksum(data).to_le_bytes());
    for bytes in [data, sealed.as_slice()] {
        if let Ok(signatures) = pages::decode(bytes, Path::new("catalog.redb"), 1) {
            let k = signatures[0].0.len();
            assert_eq!(pages::encode(&signatures, k), bytes);
        }
    }
});
