//! Posting lists (segment book sections, format 10): `List::read` and its
//! walks must never panic on any bytes, must yield at most the entries the
//! list says it holds, each with a fine block below 64, and a walk past a
//! part must yield only parts past it; a whole list that decodes in
//! strictly decreasing part order must read back the same after encoding
//! it again. The first byte of the input picks the part past which the
//! second walk starts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stemmata::storage::posting_lists::{encode, List, FINE_BLOCKS};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let list = List::read(bytes);
    let entries = list.to_vec();
    assert!(entries.len() <= list.len() as usize);
    assert!(entries
        .iter()
        .all(|&(_, block)| usize::from(block) < FINE_BLOCKS));
    let after = entries.get(usize::from(pick)).map(|&(part, _)| part);
    let mut past = 0usize;
    list.for_each(after, |part, _| {
        assert!(after.is_none_or(|after| part > after));
        past += 1;
    });
    assert!(past <= entries.len());
    let decreasing = entries.windows(2).all(|w| w[0].0 > w[1].0);
    if !entries.is_empty() && entries.len() == list.len() as usize && decreasing {
        let mut again = Vec::new();
        encode(&entries, &mut again);
        assert_eq!(List::read(&again).to_vec(), entries);
    }
});
