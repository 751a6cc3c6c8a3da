//! The unique-word sequence (DUPNIQ): the words that occur at most M times in
//! a book (M = 1 by default), in text order, each as a 32-bit hash with the
//! word position of its first occurrence.
//!
//! The hash is the low 32 bits of XXH3-64 of the word's UTF-8 bytes with the
//! index's hash seed (default [`DEFAULT_HASH_SEED`]); both are part of the
//! on-disk format. Two words of one book whose 32-bit hashes collide are both
//! dropped, so every element of a sequence is distinct and the LCS of two
//! sequences is the longest increasing subsequence of their common elements.
//!
//! **Alphabetical-list guard.** Glossaries, vocabularies and indexes list
//! words in alphabetical order, so two unrelated books that both carry one
//! align in order without sharing any text. Every window of
//! [`ExtractOptions::alpha_window`] consecutive unique words whose longest
//! alphabetically increasing run (as a subsequence) covers at least
//! `alpha_min_share` of the window is dropped. In running text that
//! subsequence is about 2·√window long (13 of 64), far below the 40% share a
//! list reaches even when half its unique words are definitions.

use crate::align::lis_len_by;
use crate::text::{tokenise, Token, TokenStats};
use nohash_hasher::BuildNoHashHasher;
use std::collections::HashMap;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Seed of the word hash unless the index was created with another.
pub const DEFAULT_HASH_SEED: u64 = 0x5354_454d_4d41_5441; // "STEMMATA"

/// The 32-bit hash of a normalised word: low 32 bits of XXH3-64 with `seed`.
pub fn word_hash(word: &str, seed: u64) -> u32 {
    xxh3_64_with_seed(word.as_bytes(), seed) as u32
}

/// Parameters of extraction. Stored in the catalog at index creation: they
/// change what stored sequences mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExtractOptions {
    /// Seed of the word hash. Default [`DEFAULT_HASH_SEED`].
    pub hash_seed: u64,
    /// M: a word enters the sequence when it occurs at most this many times
    /// (at its first occurrence). Default 1; valid 1..=16.
    pub max_term_freq: u32,
    /// Window of the alphabetical-list guard, in unique words; 0 disables
    /// the guard. Default 64.
    pub alpha_window: u32,
    /// Share of a window that an alphabetically increasing subsequence must
    /// cover for the window to be dropped, in thousandths. Default 400.
    pub alpha_min_share_permille: u32,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            hash_seed: DEFAULT_HASH_SEED,
            max_term_freq: 1,
            alpha_window: 64,
            alpha_min_share_permille: 400,
        }
    }
}

/// A book's unique words in text order: parallel arrays of word hashes and
/// word positions (index of the word among all words of the book).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UniqueWordSeq {
    /// 32-bit word hashes, all distinct.
    pub hashes: Vec<u32>,
    /// Word position of each element, strictly increasing.
    pub positions: Vec<u32>,
}

impl UniqueWordSeq {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// True when the sequence has no element.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
}

/// Everything extracted from one book's text.
#[derive(Debug, Clone, Default)]
pub struct Features {
    /// The unique-word sequence.
    pub sequence: UniqueWordSeq,
    /// Words in the book.
    pub words: u64,
    /// Pages in the book (page breaks + 1).
    pub pages: u32,
    /// Distinct words in the book.
    pub distinct_words: u32,
    /// Unique words dropped by the alphabetical-list guard.
    pub alphabetical_dropped: u32,
    /// Tokeniser counts.
    pub token_stats: TokenStats,
}

struct WordEntry {
    count: u32,
    first_position: u32,
    text_start: u32,
    text_len: u8,
}

/// Extracts a book's features from its (decoded) text.
pub fn extract(text: &str, options: &ExtractOptions) -> Features {
    let mut entries: HashMap<u64, WordEntry, BuildNoHashHasher<u64>> = HashMap::default();
    let mut word_text = String::new();
    let mut position: u32 = 0;
    let mut pages: u32 = 1;
    let token_stats = tokenise(text, |token| match token {
        Token::Word(word) => {
            let key = xxh3_64_with_seed(word.as_bytes(), options.hash_seed);
            let entry = entries.entry(key).or_insert_with(|| {
                let text_start = word_text.len() as u32;
                word_text.push_str(word);
                WordEntry {
                    count: 0,
                    first_position: position,
                    text_start,
                    text_len: word.len() as u8,
                }
            });
            entry.count = entry.count.saturating_add(1);
            position = position.saturating_add(1);
        }
        Token::PageBreak => pages = pages.saturating_add(1),
    });
    let distinct_words = entries.len() as u32;
    let mut unique: Vec<(u32, u32, &str)> = entries
        .iter()
        .filter(|(_, e)| e.count <= options.max_term_freq)
        .map(|(&key, e)| {
            let start = e.text_start as usize;
            let word = &word_text[start..start + e.text_len as usize];
            (e.first_position, key as u32, word)
        })
        .collect();
    unique.sort_unstable_by_key(|&(pos, _, _)| pos);
    drop_hash_collisions(&mut unique);
    let before_guard = unique.len();
    drop_alphabetical_runs(&mut unique, options);
    Features {
        alphabetical_dropped: (before_guard - unique.len()) as u32,
        sequence: UniqueWordSeq {
            hashes: unique.iter().map(|&(_, h, _)| h).collect(),
            positions: unique.iter().map(|&(p, _, _)| p).collect(),
        },
        words: token_stats.words,
        pages,
        distinct_words,
        token_stats,
    }
}

/// Removes every element whose 32-bit hash is shared with another element.
fn drop_hash_collisions(unique: &mut Vec<(u32, u32, &str)>) {
    let mut seen: HashMap<u32, u32, BuildNoHashHasher<u32>> = HashMap::default();
    for &(_, hash, _) in unique.iter() {
        *seen.entry(hash).or_default() += 1;
    }
    if seen.len() != unique.len() {
        unique.retain(|(_, hash, _)| seen[hash] == 1);
    }
}

/// The alphabetical-list guard (see the module docs).
fn drop_alphabetical_runs(unique: &mut Vec<(u32, u32, &str)>, options: &ExtractOptions) {
    let window = options.alpha_window as usize;
    if window == 0 || unique.len() < window {
        return;
    }
    let min_run = (window * options.alpha_min_share_permille as usize).div_ceil(1000);
    let mut drop = vec![false; unique.len()];
    let step = (window / 2).max(1);
    let mut start = 0;
    loop {
        let end = (start + window).min(unique.len());
        let words = &unique[end - window..end];
        if lis_len_by(words, |a, b| a.2 < b.2) >= min_run {
            drop[end - window..end].iter_mut().for_each(|d| *d = true);
        }
        if end == unique.len() {
            break;
        }
        start += step;
    }
    let mut flags = drop.iter();
    unique.retain(|_| !flags.next().copied().unwrap_or(false));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sequence_words(text: &str, options: &ExtractOptions) -> Vec<u32> {
        extract(text, options).sequence.hashes
    }

    #[test]
    fn keeps_words_seen_once_in_text_order_with_positions() {
        let options = ExtractOptions::default();
        let features = extract("the cat and the dog and a bird", &options);
        let expected: Vec<u32> = ["cat", "dog", "a", "bird"]
            .iter()
            .map(|w| word_hash(w, DEFAULT_HASH_SEED))
            .collect();
        assert_eq!(features.sequence.hashes, expected);
        assert_eq!(features.sequence.positions, [1, 4, 6, 7]);
        assert_eq!(features.words, 8);
        assert_eq!(features.distinct_words, 6);
    }

    #[test]
    fn max_term_freq_admits_words_seen_up_to_m_times() {
        let options = ExtractOptions {
            max_term_freq: 2,
            ..ExtractOptions::default()
        };
        let hashes = sequence_words("x y x z z z", &options);
        let expected: Vec<u32> = ["x", "y"]
            .iter()
            .map(|w| word_hash(w, DEFAULT_HASH_SEED))
            .collect();
        assert_eq!(hashes, expected);
    }

    #[test]
    fn counts_pages_from_form_feeds() {
        let features = extract("a\x0cb\x0cc", &ExtractOptions::default());
        assert_eq!(features.pages, 3);
    }

    #[test]
    fn alphabetical_glossary_is_dropped_but_prose_is_kept() {
        let prose: Vec<String> = (0..300u32)
            .map(|i| format!("w{}", crate::testing::letters(i.wrapping_mul(2654435761))))
            .collect();
        let mut glossary: Vec<String> = (0..200u32)
            .map(|i| format!("g{}", crate::testing::letters(i)))
            .collect();
        glossary.sort();
        let text = format!("{} {}", prose.join(" "), glossary.join(" "));
        let features = extract(&text, &ExtractOptions::default());
        assert!(features.alphabetical_dropped >= 180, "{features:?}");
        assert!(features.sequence.len() >= 280);
        let unguarded = ExtractOptions {
            alpha_window: 0,
            ..ExtractOptions::default()
        };
        assert_eq!(extract(&text, &unguarded).sequence.len(), 500);
    }
}
