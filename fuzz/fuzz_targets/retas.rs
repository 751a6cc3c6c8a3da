//! RETAS and OCR accuracy on any two texts: the input is split at its first
//! 0xFF byte (or in half), each part decoded; the first byte picks the leaf
//! size, the table cap and the least size of a moved passage. Never panics;
//! spans are non-empty on both sides, increase in A (and in B, those not
//! moved), overlap in neither text, lie within the word counts, and their
//! byte ranges are character boundaries of the texts; the summary counts
//! agree with the spans; accuracies lie in [0, 1].
#![no_main]

use libfuzzer_sys::fuzz_target;
use stemmata::align::{align_texts, ocr_accuracy, RetasOptions};
use stemmata::text::decode;

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
    let options = RetasOptions {
        leaf_words: u32::from(knob % 16),
        max_dp_cells: 1 << (knob / 16 + 6),
        min_moved_words: u32::from(knob % 7) * 4,
        ..RetasOptions::default()
    };
    let alignment = align_texts(a, b, &options).expect("texts this small align");
    let mut end = (0, 0, 0, 0);
    for span in &alignment.spans {
        assert!(!span.a_words.is_empty() && !span.b_words.is_empty());
        assert!(span.a_words.start >= end.0 && span.a_bytes.start >= end.2);
        assert!(span.a_words.end <= alignment.words_a && span.b_words.end <= alignment.words_b);
        assert!(a.get(span.a_bytes.clone()).is_some() && b.get(span.b_bytes.clone()).is_some());
        (end.0, end.2) = (span.a_words.end, span.a_bytes.end);
        if !span.moved {
            assert!(span.b_words.start >= end.1 && span.b_bytes.start >= end.3);
            (end.1, end.3) = (span.b_words.end, span.b_bytes.end);
        }
    }
    let mut in_b: Vec<_> = alignment
        .spans
        .iter()
        .map(|s| (s.b_words.clone(), s.b_bytes.clone()))
        .collect();
    in_b.sort_by_key(|(words, _)| words.start);
    for w in in_b.windows(2) {
        assert!(
            w[0].0.end <= w[1].0.start && w[0].1.end <= w[1].1.start,
            "{w:?}"
        );
    }
    let aligned_a: usize = alignment.spans.iter().map(|s| s.a_words.len()).sum();
    let aligned_b: usize = alignment.spans.iter().map(|s| s.b_words.len()).sum();
    assert_eq!(aligned_a, alignment.aligned_words_a as usize);
    assert_eq!(aligned_b, alignment.aligned_words_b as usize);
    let moved_a: usize = alignment
        .spans
        .iter()
        .filter(|s| s.moved)
        .map(|s| s.a_words.len())
        .sum();
    assert_eq!(moved_a, alignment.stats.moved_words_a as usize);
    assert!((0.0..=1.0).contains(&alignment.share_a) && (0.0..=1.0).contains(&alignment.share_b));
    assert_eq!(alignment.word_range_pairs().len(), alignment.spans.len());

    match ocr_accuracy(a, b, &options) {
        Ok(measured) => {
            for share in [
                measured.char_accuracy,
                measured.word_accuracy,
                measured.stop_word_accuracy,
            ] {
                assert!((0.0..=1.0).contains(&share), "{measured:?}");
            }
            assert_eq!(measured.clean_words, alignment.words_a);
        }
        Err(_) => assert_eq!(alignment.words_a, 0),
    }
});
