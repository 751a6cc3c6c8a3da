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
//!
//! **Memory.** A text of up to [`LARGE_TEXT_BYTES`] is extracted in one pass
//! that numbers its distinct words through a hash map and keeps each word's
//! number (4 bytes a word), from which the sequence of any range of its
//! words is computed: the whole book's, and each part's when a volume is
//! cut ([`crate::repr::parts`]) without tokenising it again. A larger text
//! is extracted in two passes
//! (`unique_words/large.rs`) that need about 9 bytes per distinct word and
//! 17 per element, not a map entry and a copy of every word, so that a
//! 200 MB book of distinct words takes under three times its size, not ten.
//! Both give the same features.

mod large;

use crate::error::{Error, Result};
use crate::repr::PartOptions;
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
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
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

impl ExtractOptions {
    /// `InvalidArgument` naming the field when M is outside 1..=16 or the
    /// alphabetical-list window is neither 0 nor in 8..=4096.
    pub fn validate(&self) -> Result<()> {
        if !(1..=16).contains(&self.max_term_freq) {
            return Err(Error::InvalidArgument(format!(
                "max_term_freq {} outside 1..=16",
                self.max_term_freq
            )));
        }
        if self.alpha_window != 0 && !(8..=4096).contains(&self.alpha_window) {
            return Err(Error::InvalidArgument(format!(
                "alpha_window {} must be 0 or in 8..=4096",
                self.alpha_window
            )));
        }
        Ok(())
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
    /// The unique-word sequence (empty when the extraction was given
    /// part options that cut the book: its parts' sequences are used).
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

/// Texts longer than this (in bytes) are extracted in two passes over the
/// text in bounded memory (`large.rs`): the in-memory extraction keeps a
/// hash-map entry and a copy of every distinct word, several times the
/// text when most words are distinct.
pub const LARGE_TEXT_BYTES: usize = 8 << 20;

/// Extracts a book's features from its (decoded) text. The result does not
/// depend on the text's size: texts over [`LARGE_TEXT_BYTES`] are only
/// extracted another way.
pub fn extract(text: &str, options: &ExtractOptions) -> Features {
    extract_with(text, options, None, |_, _| {}).0
}

/// [`extract`], also giving every token of the text, in order, to `also`:
/// from the same tokenising pass when the text is extracted in one, each
/// word with the hash it is numbered by (its key, by `options.hash_seed`),
/// and then with the book's [`BookWords`], from which its parts are cut
/// without tokenising it again. With `cut`, a text extracted in one pass
/// that those options cut into parts gets no whole-book sequence (its
/// `sequence` is empty, its `alphabetical_dropped` 0): its caller cuts the
/// parts' sequences from the [`BookWords`] instead.
pub(crate) fn extract_with(
    text: &str,
    options: &ExtractOptions,
    cut: Option<&PartOptions>,
    mut also: impl FnMut(Token<'_>, Option<WordHash>),
) -> (Features, Option<BookWords>) {
    if text.len() > LARGE_TEXT_BYTES {
        tokenise(text, |token| also(token, None));
        (large::extract(text, options, large::MIN_RUN), None)
    } else {
        let (features, words) = extract_in_memory(text, options, cut, also);
        (features, Some(words))
    }
}

/// A word's XXH3-64 with `seed`: the key the extraction numbers it by,
/// which a shingler of the same seed takes instead of hashing the word
/// again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WordHash {
    pub(crate) seed: u64,
    pub(crate) hash: u64,
}

/// One pass over the text, every distinct word numbered through a hash
/// map; `also` is given every token, a word with its key. The whole
/// book's sequence is left empty when `cut` cuts the book into parts.
fn extract_in_memory(
    text: &str,
    options: &ExtractOptions,
    cut: Option<&PartOptions>,
    mut also: impl FnMut(Token<'_>, Option<WordHash>),
) -> (Features, BookWords) {
    let mut words = BookWords::with_capacity(text.len());
    let mut numbers: HashMap<u64, u32, BuildNoHashHasher<u64>> =
        HashMap::with_capacity_and_hasher(text.len() / 32, BuildNoHashHasher::default());
    let mut pages: u32 = 1;
    let token_stats = tokenise(text, |token| match token {
        Token::Word(word) => {
            let key = xxh3_64_with_seed(word.as_bytes(), options.hash_seed);
            let hash = WordHash {
                seed: options.hash_seed,
                hash: key,
            };
            also(token, Some(hash));
            let number = *numbers
                .entry(key)
                .or_insert_with(|| words.add_distinct(key, word));
            words.numbers.push(number);
        }
        Token::PageBreak => {
            also(token, None);
            pages = pages.saturating_add(1)
        }
    });
    let (sequence, alphabetical_dropped) =
        match cut.is_some_and(|parts| parts.cuts(token_stats.words)) {
            true => (UniqueWordSeq::default(), 0),
            false => words.range_sequence(0..words.numbers.len(), options, &mut Scratch::default()),
        };
    let features = Features {
        alphabetical_dropped,
        sequence,
        words: token_stats.words,
        pages,
        distinct_words: words.keys.len() as u32,
        token_stats,
    };
    (features, words)
}

/// A book's words as the numbers of its distinct words, in text order,
/// with each distinct word's key and text: the unique-word sequence of any
/// range of its words is computed from them, the whole book's and each
/// part's ([`crate::repr::parts`]), without tokenising the text again.
#[derive(Debug, Default)]
pub(crate) struct BookWords {
    /// Each word's number, in text order.
    numbers: Vec<u32>,
    /// Each distinct word's 64-bit hash (the low 32 bits are its element).
    keys: Vec<u64>,
    /// Each distinct word's start and length in `text`.
    spans: Vec<(u32, u8)>,
    /// The distinct words, one after the other.
    text: String,
}

/// Counters of [`BookWords::range_sequence`], by word number: zero between
/// calls; and the numbers a range holds, in the order of their first
/// occurrence.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    counts: Vec<u32>,
    first: Vec<u32>,
    seen: Vec<u32>,
}

impl BookWords {
    /// Room for the words of a text of `bytes` bytes.
    fn with_capacity(bytes: usize) -> Self {
        BookWords {
            numbers: Vec::with_capacity(bytes / 6),
            ..BookWords::default()
        }
    }

    /// Numbers a new distinct word.
    fn add_distinct(&mut self, key: u64, word: &str) -> u32 {
        let number = self.keys.len() as u32;
        self.keys.push(key);
        self.spans.push((self.text.len() as u32, word.len() as u8));
        self.text.push_str(word);
        number
    }

    /// The same words cut to their first `letters` characters: each
    /// distinct prefix numbered, with its key the hash of the prefix.
    pub(crate) fn prefixes(&self, letters: usize, options: &ExtractOptions) -> BookWords {
        let mut prefixes = BookWords::default();
        let mut numbers: HashMap<u64, u32, BuildNoHashHasher<u64>> = HashMap::default();
        let of_word: Vec<u32> = (0..self.keys.len() as u32)
            .map(|number| {
                let prefix = prefix(self.word(number), letters);
                let key = xxh3_64_with_seed(prefix.as_bytes(), options.hash_seed);
                *numbers
                    .entry(key)
                    .or_insert_with(|| prefixes.add_distinct(key, prefix))
            })
            .collect();
        prefixes.numbers = self.numbers.iter().map(|&n| of_word[n as usize]).collect();
        prefixes
    }

    fn word(&self, number: u32) -> &str {
        let (start, len) = self.spans[number as usize];
        &self.text[start as usize..start as usize + usize::from(len)]
    }

    /// The unique-word sequence of the words in `range` (positions counted
    /// from the book's first word), by the rules of [`extract`]: each word
    /// seen at most M times in the range at its first occurrence, colliding
    /// 32-bit hashes dropped, then the alphabetical-list guard.
    /// With the sequence, how many elements the guard dropped.
    pub(crate) fn range_sequence(
        &self,
        range: std::ops::Range<usize>,
        options: &ExtractOptions,
        scratch: &mut Scratch,
    ) -> (UniqueWordSeq, u32) {
        let distinct = self.keys.len();
        if scratch.counts.len() < distinct {
            scratch.counts.resize(distinct, 0);
            scratch.first.resize(distinct, 0);
        }
        let Scratch {
            counts,
            first,
            seen,
        } = scratch;
        seen.clear();
        for (i, &number) in self.numbers[range.clone()].iter().enumerate() {
            let count = &mut counts[number as usize];
            if *count == 0 {
                first[number as usize] = i as u32;
                seen.push(number);
            }
            *count = count.saturating_add(1);
        }
        // First occurrences come in text order: the words seen at most M
        // times, at their first occurrence, in text order, without a
        // second pass over every word of the range.
        let unique: Vec<(u32, u32, &str)> = (seen.iter())
            .filter(|&&number| counts[number as usize] <= options.max_term_freq)
            .map(|&number| {
                (
                    range.start as u32 + first[number as usize],
                    self.keys[number as usize] as u32,
                    self.word(number),
                )
            })
            .collect();
        for &number in seen.iter() {
            counts[number as usize] = 0;
        }
        sequence_of(unique, options)
    }
}

/// The first `letters` characters of `word` (all of a shorter word).
pub(crate) fn prefix(word: &str, letters: usize) -> &str {
    match word.char_indices().nth(letters) {
        Some((end, _)) => &word[..end],
        None => word,
    }
}

/// The sequence of `unique`, words seen at most M times in text order as
/// (position, hash, word): colliding hashes dropped, then the
/// alphabetical-list guard; with how many elements the guard dropped.
pub(crate) fn sequence_of(
    mut unique: Vec<(u32, u32, &str)>,
    options: &ExtractOptions,
) -> (UniqueWordSeq, u32) {
    drop_hash_collisions(&mut unique);
    let before_guard = unique.len();
    drop_alphabetical_runs(&mut unique, options);
    let sequence = UniqueWordSeq {
        hashes: unique.iter().map(|&(_, h, _)| h).collect(),
        positions: unique.iter().map(|&(p, _, _)| p).collect(),
    };
    (sequence, (before_guard - unique.len()) as u32)
}

/// Removes every element whose 32-bit hash is shared with another element.
/// A bitmap of the hashes' top bits (about 16 slots an element) finds the
/// elements whose slot another element fills too, every repeated hash
/// among them; only those few are counted exactly, in a map.
pub(crate) fn drop_hash_collisions(unique: &mut Vec<(u32, u32, &str)>) {
    let slot_bits = (unique.len().max(64).next_power_of_two() * 16)
        .trailing_zeros()
        .min(MAX_COLLISION_SLOT_BITS);
    // A hash's slot as its bitmap word and the bit in that word.
    let slot = |hash: u32| {
        let slot = (hash >> (32 - slot_bits)) as usize;
        (slot / 64, 1u64 << (slot % 64))
    };
    let mut once = vec![0u64; 1 << (slot_bits - 6)];
    let mut shared = once.clone();
    for &(_, hash, _) in unique.iter() {
        let (word, bit) = slot(hash);
        shared[word] |= once[word] & bit;
        once[word] |= bit;
    }
    let in_shared = |hash: u32| {
        let (word, bit) = slot(hash);
        shared[word] & bit != 0
    };
    let mut counts: HashMap<u32, u32, BuildNoHashHasher<u32>> = HashMap::default();
    for &(_, hash, _) in unique.iter().filter(|&&(_, hash, _)| in_shared(hash)) {
        *counts.entry(hash).or_default() += 1;
    }
    if counts.values().any(|&count| count > 1) {
        unique.retain(|(_, hash, _)| counts.get(hash).is_none_or(|&count| count == 1));
    }
}

/// The most bits of the slots [`drop_hash_collisions`] marks (two bitmaps
/// of 2 MiB): past a million elements, more of them share a slot.
const MAX_COLLISION_SLOT_BITS: u32 = 24;

/// The alphabetical-list guard (see the module docs).
pub(crate) fn drop_alphabetical_runs(unique: &mut Vec<(u32, u32, &str)>, options: &ExtractOptions) {
    let window = options.alpha_window as usize;
    if window == 0 || unique.len() < window {
        return;
    }
    let min_run = (window * options.alpha_min_share_permille as usize).div_ceil(1000);
    let mut drop = vec![false; unique.len()];
    let step = (window / 2).max(1);
    // Words compared by their first 8 bytes first (big-endian, zero-padded:
    // the order of the words wherever those differ), whole only on a tie.
    let keys: Vec<(u64, &str)> = unique
        .iter()
        .map(|&(_, _, word)| {
            let mut head = [0u8; 8];
            let len = word.len().min(8);
            head[..len].copy_from_slice(&word.as_bytes()[..len]);
            (
                head.iter().fold(0u64, |key, &b| key << 8 | u64::from(b)),
                word,
            )
        })
        .collect();
    let mut tails = Tails::default();
    let mut start = 0;
    loop {
        let end = (start + window).min(unique.len());
        let words = &keys[end - window..end];
        if alphabetical_run_len(words, &mut tails) >= min_run {
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

/// The smallest last word of an alphabetically increasing subsequence of
/// each length, as the patience method keeps them: their head keys apart,
/// to be compared all at once.
#[derive(Default)]
struct Tails<'w> {
    heads: Vec<u64>,
    words: Vec<&'w str>,
}

/// The length of the longest alphabetically increasing subsequence of
/// `words`, each given by its head key (its first 8 bytes, big-endian) and
/// itself: [`crate::align::lis_len_by`] under that order, each word's place
/// among the tails found by counting the smaller heads (no branch to
/// mispredict) and only on equal heads by comparing whole words.
fn alphabetical_run_len<'w>(words: &[(u64, &'w str)], tails: &mut Tails<'w>) -> usize {
    tails.heads.clear();
    tails.words.clear();
    for &(head, word) in words {
        let mut at = tails.heads.iter().filter(|&&tail| tail < head).count();
        while tails.heads.get(at) == Some(&head) && tails.words.get(at).is_some_and(|&w| w < word) {
            at += 1;
        }
        if at == tails.heads.len() {
            tails.heads.push(head);
            tails.words.push(word);
        } else {
            tails.heads[at] = head;
            tails.words[at] = word;
        }
    }
    tails.heads.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::lis_len_by;
    use proptest::strategy::Strategy;

    fn sequence_words(text: &str, options: &ExtractOptions) -> Vec<u32> {
        extract(text, options).sequence.hashes
    }

    /// The guard comparing whole words, as first written.
    fn reference_guard(unique: &mut Vec<(u32, u32, &str)>, options: &ExtractOptions) {
        let window = options.alpha_window as usize;
        if window == 0 || unique.len() < window {
            return;
        }
        let min_run = (window * options.alpha_min_share_permille as usize).div_ceil(1000);
        let mut drop = vec![false; unique.len()];
        let mut start = 0;
        loop {
            let end = (start + window).min(unique.len());
            if lis_len_by(&unique[end - window..end], |a, b| a.2 < b.2) >= min_run {
                drop[end - window..end].iter_mut().for_each(|d| *d = true);
            }
            if end == unique.len() {
                break;
            }
            start += (window / 2).max(1);
        }
        let mut flags = drop.iter();
        unique.retain(|_| !flags.next().copied().unwrap_or(false));
    }

    proptest::proptest! {
        #[test]
        fn the_guard_orders_words_as_whole_strings(
            words in proptest::collection::vec("(abcdefgh|abcdefg|abc)?[a-cé]{0,4}", 0..200),
            window in 2u32..12,
        ) {
            let options = ExtractOptions { alpha_window: window, ..ExtractOptions::default() };
            let unique: Vec<(u32, u32, &str)> = words
                .iter()
                .enumerate()
                .map(|(i, w)| (i as u32, i as u32, w.as_str()))
                .collect();
            let (mut fast, mut slow) = (unique.clone(), unique);
            drop_alphabetical_runs(&mut fast, &options);
            reference_guard(&mut slow, &options);
            proptest::prop_assert_eq!(fast, slow);
        }

        /// The bitmap's slots are the hashes' top bits: hashes drawn from
        /// a few top values, from a few low ones and from the whole range
        /// share slots without being equal, and repeat.
        #[test]
        fn hash_collisions_are_dropped_as_a_count_of_every_hash_drops_them(
            hashes in proptest::collection::vec(
                proptest::prop_oneof![
                    (0u32..4, 0u32..8).prop_map(|(top, low)| top << 28 | low),
                    0u32..64,
                    proptest::num::u32::ANY,
                ],
                0..3000,
            ),
        ) {
            let unique: Vec<(u32, u32, &str)> =
                hashes.iter().enumerate().map(|(i, &h)| (i as u32, h, "w")).collect();
            let mut counts: HashMap<u32, u32> = HashMap::new();
            for &h in &hashes {
                *counts.entry(h).or_default() += 1;
            }
            let expected: Vec<_> = unique.iter().copied().filter(|e| counts[&e.1] == 1).collect();
            let mut dropped = unique;
            drop_hash_collisions(&mut dropped);
            proptest::prop_assert_eq!(dropped, expected);
        }
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
    fn options_out_of_range_are_refused() {
        assert!(ExtractOptions::default().validate().is_ok());
        for (m, window, field) in [
            (0, 64, "max_term_freq"),
            (17, 64, "max_term_freq"),
            (1, 7, "alpha_window"),
            (1, 4097, "alpha_window"),
        ] {
            let options = ExtractOptions {
                max_term_freq: m,
                alpha_window: window,
                ..ExtractOptions::default()
            };
            let error = options.validate().unwrap_err().to_string();
            assert!(error.contains(field), "{error}");
        }
        for (m, window) in [(16, 0), (1, 8), (1, 4096)] {
            let options = ExtractOptions {
                max_term_freq: m,
                alpha_window: window,
                ..ExtractOptions::default()
            };
            assert!(options.validate().is_ok(), "{options:?}");
        }
        let error = crate::Index::builder()
            .max_term_freq(0)
            .create(tempfile::tempdir().unwrap().path().join("i"))
            .unwrap_err();
        assert!(error.to_string().contains("max_term_freq"), "{error}");
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

    /// The features of both extractions, field by field.
    fn assert_same(text: &str, options: &ExtractOptions, min_run: usize) {
        let a = extract_in_memory(text, options, None, |_, _| {}).0;
        let b = large::extract(text, options, min_run);
        assert_eq!(a.sequence, b.sequence, "{options:?}, runs of {min_run}");
        assert_eq!(
            (a.words, a.pages, a.distinct_words, a.alphabetical_dropped),
            (b.words, b.pages, b.distinct_words, b.alphabetical_dropped),
            "{options:?}, runs of {min_run}"
        );
        assert_eq!(a.token_stats, b.token_stats);
    }

    /// A text of `n` words: a word of a small vocabulary (often repeated),
    /// a fresh word, or a run of words in alphabetical order (which the
    /// guard drops); with punctuation, digits and page breaks.
    fn mixed_text(n: usize, seed: u64) -> String {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut words = Vec::new();
        while words.len() < n {
            match rng.random_range(0..20) {
                0 => {
                    let start = rng.random_range(0..10_000u32);
                    let mut run: Vec<String> = (start..start + rng.random_range(5..80))
                        .map(|i| format!("g{}", crate::testing::letters(i)))
                        .collect();
                    run.sort();
                    words.extend(run);
                }
                1 => words.push("\x0c".to_string()),
                2 => words.push("12, --".to_string()),
                3..=9 => words.push(crate::testing::letters(rng.random_range(0..300u32))),
                _ => words.push(format!(
                    "w{}",
                    crate::testing::letters(rng.random::<u32>() % 5_000_000)
                )),
            }
        }
        words.join(" ")
    }

    #[test]
    fn large_texts_extract_as_in_memory() {
        let text = mixed_text(40_000, 3);
        for max_term_freq in [1, 2, 5] {
            for (alpha_window, permille) in [(0, 400), (8, 400), (64, 400), (16, 250), (9, 900)] {
                let options = ExtractOptions {
                    max_term_freq,
                    alpha_window,
                    alpha_min_share_permille: permille,
                    ..ExtractOptions::default()
                };
                for min_run in [1, 7, 1000, large::MIN_RUN] {
                    assert_same(&text, &options, min_run);
                }
            }
        }
        let features = extract(&text, &ExtractOptions::default());
        assert!(features.alphabetical_dropped > 1000, "{features:?}");
        assert!(features.pages > 100);
    }

    #[test]
    fn large_extraction_handles_short_and_empty_texts() {
        for text in ["", "a", "\x0c", "a b a", "one two three", "12 34 \x0c x"] {
            for alpha_window in [0, 8] {
                let options = ExtractOptions {
                    alpha_window,
                    ..ExtractOptions::default()
                };
                assert_same(text, &options, 1);
            }
        }
    }

    #[test]
    fn large_extraction_drops_colliding_hashes_as_in_memory() {
        // 300,000 distinct words hold about ten pairs of words whose 32-bit
        // hashes collide; seed 7 is one with collisions.
        let text: String = (0..300_000u32)
            .map(|i| format!("x{} ", crate::testing::letters(i.wrapping_mul(0x9E37_79B1))))
            .collect();
        let options = ExtractOptions {
            alpha_window: 0,
            hash_seed: 7,
            ..ExtractOptions::default()
        };
        let features = extract_in_memory(&text, &options, None, |_, _| {}).0;
        assert_eq!(features.distinct_words, 300_000);
        assert!(features.sequence.len() < 300_000, "no collision to test");
        assert_same(&text, &options, 4096);
    }

    #[test]
    fn a_text_over_the_threshold_is_extracted_as_in_memory() {
        let text = mixed_text(2_000_000, 5);
        assert!(text.len() > LARGE_TEXT_BYTES);
        let options = ExtractOptions::default();
        let features = extract(&text, &options);
        let in_memory = extract_in_memory(&text, &options, None, |_, _| {}).0;
        assert_eq!(features.sequence, in_memory.sequence);
        assert_eq!(features.distinct_words, in_memory.distinct_words);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn large_extraction_equals_in_memory(
            n in 0usize..3000,
            seed in 0u64..1000,
            max_term_freq in 1u32..4,
            alpha_window in proptest::sample::select(vec![0u32, 8, 12, 64]),
            min_run in 1usize..200,
        ) {
            let options = ExtractOptions {
                max_term_freq,
                alpha_window,
                ..ExtractOptions::default()
            };
            assert_same(&mixed_text(n, seed), &options, min_run);
        }
    }
}
