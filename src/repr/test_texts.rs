//! Texts and checks shared by the tests of the representations cut from a
//! book's words (parts, passages).

use std::ops::Range;

use super::unique_words::extract;
use super::{ExtractOptions, UniqueWordSeq};

/// `words` words drawn from a vocabulary of `vocabulary` made-up words of
/// letters (a word of at most three letters for a vocabulary under
/// 17,576), by a linear congruential generator seeded with `seed`.
pub(crate) fn text_of(words: usize, vocabulary: usize, seed: u64) -> String {
    let mut state = seed;
    (0..words)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let n = ((state >> 33) % vocabulary as u64) as usize;
            let mut w = String::new();
            let mut m = n + 1;
            while m > 0 {
                w.push((b'a' + (m % 26) as u8) as char);
                m /= 26;
            }
            w
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asserts that each of `sequences` is the sequence of the words of its
/// range of `ranges` in `text` (words separated by single spaces),
/// extracted alone, at their positions in the whole text, and not empty.
pub(crate) fn assert_each_is_its_range(
    sequences: &[UniqueWordSeq],
    ranges: &[Range<u64>],
    text: &str,
    options: &ExtractOptions,
) {
    let words: Vec<&str> = text.split(' ').collect();
    assert_eq!(sequences.len(), ranges.len());
    for (sequence, range) in sequences.iter().zip(ranges) {
        let own = words[range.start as usize..range.end as usize].join(" ");
        let direct = extract(&own, options).sequence;
        assert_eq!(sequence.hashes, direct.hashes);
        let shifted: Vec<u32> = direct
            .positions
            .iter()
            .map(|p| p + range.start as u32)
            .collect();
        assert_eq!(sequence.positions, shifted);
        assert!(!sequence.is_empty());
    }
}
