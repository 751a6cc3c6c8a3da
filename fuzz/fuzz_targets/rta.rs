//! RTA on any two texts and any dictionary between their words: the input
//! is split at its first 0xFF byte (or in half), each part decoded; the
//! first byte picks the leaf size, the table cap, the passage length and
//! which word of B each word of A translates to. Never panics; word pairs
//! increase in A and in B within the word counts, each a translation (or
//! the same word when it has none); passages cover A in order, their
//! stretches of B never overlap, lie within B, and their byte ranges are
//! character boundaries; confidences lie in [0, 1]; the portion map builds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stemmata::align::RetasOptions;
use stemmata::relate::MapOptions;
use stemmata::text::{decode, tokenise_spans, Token};
use stemmata::translate::dictionary::Dictionary;
use stemmata::translate::lexicon::Lexicon;
use stemmata::translate::rta::align_translation;

fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokenise_spans(text, |token, _| {
        if let Token::Word(word) = token {
            out.push(word.to_string());
        }
    });
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&knob, rest)) = data.split_first() else {
        return;
    };
    let cut = rest
        .iter()
        .position(|&b| b == 0xff)
        .unwrap_or(rest.len() / 2);
    let (a, b) = (decode(&rest[..cut]), decode(&rest[cut..]));
    let (a, b): (&str, &str) = (&a.text, &b.text);
    let (words_a, words_b) = (words(a), words(b));
    // Word k of A translates to word (k * step) of B, for every other k.
    let step = usize::from(knob % 7) + 1;
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    if !words_b.is_empty() {
        for (k, word) in words_a.iter().enumerate().step_by(2) {
            pairs.push((word, &words_b[(k * step) % words_b.len()]));
        }
    }
    let dictionary = Dictionary::from_word_pairs("fuzz", "eng", "deu", &pairs)
        .expect("languages of three letters");
    let lexicon = Lexicon::build(&[&dictionary], "eng", "deu", u64::from(knob));
    let options = RetasOptions {
        leaf_words: u32::from(knob % 16),
        max_dp_cells: 1 << (knob / 16 + 6),
        ..RetasOptions::translations()
    };
    let alignment = align_translation(a, b, &lexicon, &options).expect("texts this small align");
    assert_eq!(alignment.words_a as usize, words_a.len());
    assert_eq!(alignment.words_b as usize, words_b.len());
    for w in alignment.matches.windows(2) {
        assert!(w[0].a < w[1].a && w[0].b < w[1].b, "{w:?}");
    }
    for m in &alignment.matches {
        let (x, y) = (&words_a[m.a as usize], &words_b[m.b as usize]);
        let translations = dictionary.translations_of(x);
        assert!(
            translations.contains(&y.as_str()) || (translations.is_empty() && x == y),
            "{x} matched {y}"
        );
    }
    let passages = alignment.passages(u32::from(knob % 9) + 1);
    let mut next = 0;
    let mut end_b = 0;
    for passage in &passages {
        assert_eq!(passage.a_words.start, next);
        next = passage.a_words.end;
        assert!((0.0..=1.0).contains(&passage.confidence));
        assert!(a.get(passage.a_bytes.clone()).is_some());
        if let (Some(words), Some(bytes)) = (&passage.b_words, &passage.b_bytes) {
            assert!(
                words.start >= end_b && words.start <= words.end,
                "{passage:?}"
            );
            assert!(words.end <= alignment.words_b);
            assert!(b.get(bytes.clone()).is_some());
            end_b = words.end;
        }
    }
    assert_eq!(next, alignment.words_a);
    alignment
        .portion_map(&MapOptions::translations())
        .expect("valid options");
});
