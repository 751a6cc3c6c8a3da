//! JSON Lines input: `parse_json_document` on the whole input, and the line
//! iterator `json_lines_from_reader` over it, checked against splitting the
//! bytes at line feeds (a UTF-8 byte-order mark before the first line
//! dropped) and parsing each non-blank line on its own; every parsed key
//! goes through the key rule (`check_key`), which must answer, not panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::keys::check_key;
use stemmata::load::sources::{json_lines_from_reader, parse_json_document};
use stemmata::{Document, Error};

fn same(a: &Document, b: &Document) -> bool {
    (&a.key, &a.title, &a.author, &a.language, &a.text)
        == (&b.key, &b.title, &b.author, &b.language, &b.text)
}

fuzz_target!(|data: &[u8]| {
    if let Ok(document) = parse_json_document(data, "fuzz") {
        assert_eq!(document.source_name, "fuzz");
        if check_key(&document.key).is_ok() {
            assert!(!document.key.is_empty() && document.key.len() <= 1024);
        }
    }

    let mut expected = Vec::new();
    let lines = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    for (n, line) in lines.split_inclusive(|&b| b == b'\n').enumerate() {
        if !line.iter().all(|b| b.is_ascii_whitespace()) {
            let name = format!("fuzz:{}", n + 1);
            expected.push((name.clone(), parse_json_document(line, &name)));
        }
    }
    let items: Vec<_> = json_lines_from_reader(data, Path::new("fuzz")).collect();
    assert_eq!(items.len(), expected.len());
    for (item, (name, want)) in items.iter().zip(&expected) {
        match (item, want) {
            (Ok(got), Ok(want)) => {
                assert!(same(got, want));
                assert_eq!(&got.source_name, name);
            }
            (Err(Error::BadDocument { source_name, .. }), Err(_)) => {
                assert_eq!(source_name, name)
            }
            (got, want) => panic!("iterator gave {got:?}, line parse gave {want:?}"),
        }
    }
});
