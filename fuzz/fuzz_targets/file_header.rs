//! The 16-byte file header: `FileHeader::decode_from` must return `Err` on
//! any bytes, and a header it accepts, for any file kind, must be of that
//! kind and re-encode to the same 16 bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::codec::Encode;
use stemmata::storage::format::{FileHeader, FileKind, HEADER_LEN};

fuzz_target!(|data: &[u8]| {
    for kind in [
        FileKind::Barrel,
        FileKind::Segment,
        FileKind::Pages,
        FileKind::Dictionary,
    ] {
        if let Ok(header) = FileHeader::decode_from(data, kind, Path::new("fuzz")) {
            assert_eq!(header.kind, kind);
            assert_eq!(header.encode(), &data[..HEADER_LEN]);
        }
    }
});
