//! The word-image search file (`images/NNNNNN.wis`), read in place: on any
//! bytes, opening it (layout only, as a reader does), checking it whole,
//! reading its contents back (as an add that keeps the model does), and
//! running queries in both case modes (holding images to the file's widths
//! of letters, and each book's own where it has some) and reading hits'
//! records on a file whose layout was accepted must return results or
//! errors, never panic. Every input is also tried behind a valid header and
//! with a valid checksum appended.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::images::spot::{rank, Query, SpotOptions};
use stemmata::storage::codec::Encode;
use stemmata::storage::format::{checksum, FileHeader, FileKind};
use stemmata::storage::image_search::SearchFile;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("000001.wis");
    let mut sealed = FileHeader::new(FileKind::ImageSearch).encode();
    sealed.extend_from_slice(data);
    let sum = checksum(&sealed);
    sealed.extend_from_slice(&sum.to_le_bytes());
    for bytes in [data, sealed.as_slice()] {
        let Ok(file) = SearchFile::in_memory(bytes.to_vec(), path) else {
            continue;
        };
        let _ = file.check();
        let _ = file.contents();
        for (word, ignore_case) in [("the", false), ("Qu1e", true), ("a", false)] {
            let Some(query) = Query::with_classes(word, file.classes(), ignore_case) else {
                continue;
            };
            let query = (query.with_widths(file.widths()))
                .with_book_widths(file.own_widths());
            let options = SpotOptions {
                ignore_case,
                ..SpotOptions::default()
            };
            if let Ok(hits) = rank(&file, &query, &options, 5) {
                for (image, _) in hits {
                    let _ = file.image(image as usize);
                    let _ = file.book_of(image);
                }
            }
        }
    }
});
