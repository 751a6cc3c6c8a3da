//! Passages: a book cut into runs of [`PASSAGE_WORDS`] consecutive words
//! (the last one shorter), each with the unique-word sequence of its own
//! words cut to their first [`PREFIX_LETTERS`] characters (prefixes unique
//! *within the passage*, at their positions in the whole book), by the
//! rules of the whole-book sequence.
//!
//! Why: translation search (`query/translations.rs`) compares a book's
//! words with another language's through a dictionary, and a translated
//! work of a few thousand words inside a volume keeps few of its unique
//! words inside a 32Ki-word part: most of the work's words occur again
//! elsewhere in the part. A passage keeps them (ARCHITECTURE.md,
//! "Translations inside volumes", measures the unit). Passages do not
//! overlap: translation search pairs passages of both books, so a work is
//! found by its best pair of passages wherever it starts.

use std::collections::VecDeque;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::parts::part_sequence;
use super::unique_words::{prefix, BookWords, Scratch};
use super::{ExtractOptions, UniqueWordSeq};
use crate::text::{tokenise, Token};

/// Words in a passage (the last passage of a book holds the rest).
pub const PASSAGE_WORDS: u32 = 2048;

/// A passage's words are cut to their first this many characters before
/// its sequence is built, so that inflected forms of one word (and a
/// dictionary's headword) meet: `maisons` and `maison`, `houses` and
/// `house`.
pub const PREFIX_LETTERS: usize = 6;

/// The hash a passage's element has for `word`: the index's word hash of
/// its first [`PREFIX_LETTERS`] characters.
pub fn passage_word_hash(word: &str, seed: u64) -> u32 {
    super::unique_words::word_hash(prefix(word, PREFIX_LETTERS), seed)
}

/// The word ranges of the passages of a book of `words` words: runs of
/// [`PASSAGE_WORDS`] from the first word, the last one ending at the last
/// word; none for a book without words.
pub fn passage_ranges(words: u64) -> Vec<std::ops::Range<u64>> {
    let len = u64::from(PASSAGE_WORDS);
    (0..words.div_ceil(len))
        .map(|i| i * len..((i + 1) * len).min(words))
        .collect()
}

/// The passages of a book's (decoded) text as a load stores them.
pub fn book_passages(text: &str, options: &ExtractOptions) -> Vec<UniqueWordSeq> {
    let (features, book_words) = super::unique_words::extract_with(text, options, None, |_, _| {});
    passages_of(text, book_words.as_ref(), features.words, options)
}

/// The passages of `text` (of `words` words): each one's unique-word
/// sequence, cut from its [`BookWords`] when the extraction kept them (a
/// text extracted in memory), else from the text tokenised again, one
/// passage's words held at once.
pub(crate) fn passages_of(
    text: &str,
    book_words: Option<&BookWords>,
    words: u64,
    options: &ExtractOptions,
) -> Vec<UniqueWordSeq> {
    let ranges = passage_ranges(words);
    let Some(book_words) = book_words else {
        return passages_of_text(text, ranges.len(), options);
    };
    let prefixes = book_words.prefixes(PREFIX_LETTERS, options);
    let mut scratch = Scratch::default();
    ranges
        .into_iter()
        .map(|range| {
            prefixes
                .range_sequence(
                    range.start as usize..range.end as usize,
                    options,
                    &mut scratch,
                )
                .0
        })
        .collect()
}

/// The passages of `text`, tokenised again: `count` of them.
fn passages_of_text(text: &str, count: usize, options: &ExtractOptions) -> Vec<UniqueWordSeq> {
    let mut out = Vec::with_capacity(count);
    let mut window: VecDeque<(u64, String)> = VecDeque::with_capacity(PASSAGE_WORDS as usize);
    let mut start = 0u32;
    tokenise(text, |token| {
        if let Token::Word(word) = token {
            let word = prefix(word, PREFIX_LETTERS);
            let key = xxh3_64_with_seed(word.as_bytes(), options.hash_seed);
            window.push_back((key, word.to_string()));
            if window.len() == PASSAGE_WORDS as usize {
                out.push(part_sequence(&window, start, options));
                start += PASSAGE_WORDS;
                window.clear();
            }
        }
    });
    if !window.is_empty() {
        out.push(part_sequence(&window, start, options));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repr::test_texts::{assert_each_is_its_range, text_of};
    use crate::repr::unique_words::extract_with;
    use proptest::prelude::*;

    #[test]
    fn passages_are_consecutive_runs_the_last_one_shorter() {
        assert_eq!(passage_ranges(0), Vec::<std::ops::Range<u64>>::new());
        assert_eq!(passage_ranges(10), vec![0..10]);
        assert_eq!(passage_ranges(2048), vec![0..2048]);
        assert_eq!(passage_ranges(5000), vec![0..2048, 2048..4096, 4096..5000]);
    }

    #[test]
    fn each_passage_is_the_sequence_of_its_own_words_at_book_positions() {
        let options = ExtractOptions::default();
        let text = text_of(5000, 4000, 11);
        let (features, book_words) = extract_with(&text, &options, None, |_, _| {});
        let passages = passages_of(&text, book_words.as_ref(), features.words, &options);
        assert_eq!(passages.len(), 3);
        assert_each_is_its_range(&passages, &passage_ranges(5000), &text, &options);
    }

    #[test]
    fn a_passage_matches_words_by_their_first_six_letters() {
        let options = ExtractOptions::default();
        let passages = book_passages("alpha maisons beta maison gamma extraordinary", &options);
        let hash = |w: &str| passage_word_hash(w, options.hash_seed);
        // `maisons` and `maison` are one prefix, seen twice: not unique.
        assert_eq!(passages.len(), 1);
        assert_eq!(
            passages[0].hashes,
            [hash("alpha"), hash("beta"), hash("gamma"), hash("extrao")]
        );
        assert_eq!(hash("extraordinary"), hash("extraordinaire"));
        assert_eq!(passages[0].positions, [0, 2, 4, 5]);
    }

    proptest! {
        #[test]
        fn passages_cut_from_book_words_equal_passages_of_the_text_tokenised_again(
            words in 1usize..7000,
            vocabulary in 50usize..6000,
            seed in any::<u64>(),
        ) {
            let options = ExtractOptions::default();
            // Words of up to nine letters, so that prefixes merge some.
            let text: Vec<String> = text_of(words, vocabulary, seed)
                .split(' ')
                .map(|w| w.repeat(3))
                .collect();
            let text = text.join(" ");
            let (features, book_words) = extract_with(&text, &options, None, |_, _| {});
            let cut = passages_of(&text, book_words.as_ref(), features.words, &options);
            let again = passages_of(&text, None, features.words, &options);
            prop_assert_eq!(cut, again);
        }
    }
}
