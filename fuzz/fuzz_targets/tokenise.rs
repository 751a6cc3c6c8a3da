//! Text to unique words: `text::decode` (its encoding choice agrees with the
//! bytes, and `text::decode_owned` gives what it gives), `text::tokenise`
//! (and `text::tokenise_spans`: the same tokens with increasing byte ranges
//! on character boundaries) and
//! `unique_words::extract` on any bytes. Words are non-empty letters of at
//! most MAX_WORD_BYTES bytes; normalising is idempotent; a sequence has
//! strictly increasing positions and distinct hashes; without the
//! alphabetical-list guard it equals a naive model built from the tokens, and
//! with the guard it is a subsequence of that.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;
use stemmata::repr::unique_words::{extract, word_hash, ExtractOptions};
use stemmata::text::{
    decode, decode_owned, normalise, tokenise, tokenise_spans, Token, MAX_WORD_BYTES,
};

fuzz_target!(|data: &[u8]| {
    let decoded = decode(data);
    let utf16_bom = data.starts_with(&[0xff, 0xfe]) || data.starts_with(&[0xfe, 0xff]);
    let after_utf8_bom = data.strip_prefix(&[0xef, 0xbb, 0xbf][..]).unwrap_or(data);
    match decoded.encoding {
        "UTF-16LE" | "UTF-16BE" => assert!(utf16_bom),
        "UTF-8" => assert_eq!(
            decoded.invalid_sequences == 0,
            std::str::from_utf8(after_utf8_bom).is_ok()
        ),
        "windows-1252" => {
            assert!(!utf16_bom && decoded.invalid_sequences > 0);
            assert!(std::str::from_utf8(after_utf8_bom).is_err());
        }
        other => panic!("unknown encoding {other}"),
    }
    let owned = decode_owned(data.to_vec());
    assert_eq!(owned.text, decoded.text);
    assert_eq!(
        (owned.invalid_sequences, owned.encoding),
        (decoded.invalid_sequences, decoded.encoding)
    );
    let text: &str = &decoded.text;

    let mut words: Vec<String> = Vec::new();
    let mut page_breaks = 0u64;
    let stats = tokenise(text, |token| match token {
        Token::Word(word) => {
            assert!(!word.is_empty() && word.len() <= MAX_WORD_BYTES, "{word:?}");
            assert!(word.chars().all(char::is_alphabetic), "{word:?}");
            words.push(word.to_string());
        }
        Token::PageBreak => page_breaks += 1,
    });
    assert_eq!(stats.words, words.len() as u64);
    assert_eq!(stats.page_breaks, page_breaks);

    // The spanned tokeniser gives the same tokens, with increasing byte
    // ranges on character boundaries.
    let mut spanned = 0;
    let mut last_end = 0;
    let spanned_stats = tokenise_spans(text, |token, range| {
        assert!(
            last_end <= range.start && range.start < range.end,
            "{range:?}"
        );
        assert!(text.get(range.clone()).is_some(), "{range:?}");
        last_end = range.end;
        if let Token::Word(word) = token {
            assert_eq!(word, words[spanned]);
            spanned += 1;
        }
    });
    assert_eq!(spanned_stats, stats);

    let once = normalise(text);
    assert_eq!(normalise(&once), once, "normalise is not idempotent");

    let options = ExtractOptions::default();
    let guarded = extract(text, &options);
    let unguarded = extract(
        text,
        &ExtractOptions {
            alpha_window: 0,
            ..options
        },
    );
    for features in [&guarded, &unguarded] {
        let seq = &features.sequence;
        assert_eq!(seq.hashes.len(), seq.positions.len());
        assert!(seq.positions.windows(2).all(|w| w[0] < w[1]), "positions");
        let mut hashes = seq.hashes.clone();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), seq.hashes.len(), "hashes not distinct");
        assert_eq!(features.words, words.len() as u64);
        assert_eq!(features.pages as u64, page_breaks + 1);
        assert!(seq.len() <= features.distinct_words as usize);
    }

    // Naive model: words seen at most M (= 1) times, at their first position,
    // with every 32-bit hash collision dropped.
    let mut first: HashMap<&str, (u32, u32)> = HashMap::new();
    for (position, word) in words.iter().enumerate() {
        first.entry(word).or_insert((position as u32, 0)).1 += 1;
    }
    assert_eq!(unguarded.distinct_words as usize, first.len());
    let mut model: Vec<(u32, u32)> = first
        .iter()
        .filter(|(_, &(_, count))| count <= options.max_term_freq)
        .map(|(word, &(position, _))| (position, word_hash(word, options.hash_seed)))
        .collect();
    model.sort_unstable();
    let mut hash_count: HashMap<u32, u32> = HashMap::new();
    for &(_, hash) in &model {
        *hash_count.entry(hash).or_default() += 1;
    }
    model.retain(|(_, hash)| hash_count[hash] == 1);
    let (positions, hashes): (Vec<u32>, Vec<u32>) = model.into_iter().unzip();
    assert_eq!(unguarded.sequence.positions, positions);
    assert_eq!(unguarded.sequence.hashes, hashes);

    // The guard only removes elements.
    let mut rest = unguarded
        .sequence
        .positions
        .iter()
        .zip(&unguarded.sequence.hashes);
    for pair in guarded
        .sequence
        .positions
        .iter()
        .zip(&guarded.sequence.hashes)
    {
        assert!(
            rest.any(|other| other == pair),
            "guard output not a subsequence"
        );
    }
    assert_eq!(
        guarded.alphabetical_dropped as usize,
        unguarded.sequence.len() - guarded.sequence.len()
    );
});
