//! FreeDict dictd dictionaries: `Dictionary::parse` (the `.index` lines,
//! dictd base64, entries, markup) must return an error or a dictionary,
//! never panic, on any bytes. The input is the index, a 0xFF byte, then
//! the dict; the first byte picks a name that gives the languages or one
//! that makes the parser look for the `00databaseshort` entry. Whatever it
//! returns is a valid dictionary: it stores and decodes back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::dictionary_file::{decode, encode};
use stemmata::translate::dictionary::{parse_entry, Dictionary};

fuzz_target!(|data: &[u8]| {
    let (index, dict) = match data.iter().position(|&b| b == 0xff) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let name = if data.first().is_some_and(|b| b % 2 == 0) {
        "freedict-eng-deu"
    } else {
        "mydict"
    };
    let _ = parse_entry(&String::from_utf8_lossy(dict));
    if let Ok(dictionary) =
        Dictionary::parse(name, index, Path::new("x.index"), dict, Path::new("x.dict"))
    {
        let bytes = encode(&dictionary);
        let back = decode(&bytes, Path::new("000001.dic")).expect("a parsed dictionary stores");
        assert_eq!(back.words(), dictionary.words());
        assert_eq!(back.pairs(), dictionary.pairs());
    }
});
