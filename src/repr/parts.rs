//! Parts of a volume: a book longer than [`PartOptions::volume_words`] is
//! represented by overlapping parts of [`PartOptions::part_words`] words,
//! each with its own unique-word sequence (words unique *within the part*,
//! at their positions in the whole book); a shorter book is one part, its
//! whole-book sequence.
//!
//! Why: in a volume of a million words almost every word of a short work
//! bound inside it occurs again elsewhere in the volume, so the volume's
//! whole-book sequence keeps only a handful of the work's words. Inside a
//! part of 32Ki words a 500-word work is still 1.5% of the text, and most
//! of its unique words stay unique there.
//!
//! Parts start every `part_words / 2` words (so any passage of up to half
//! a part lies wholly inside one part), and the last part ends at the
//! book's last word: with N words and L = `part_words`, S = L / 2, the
//! parts are `[k·S, k·S + L)` for k = 0, 1, … while `k·S + L < N`, then
//! `[N − L, N)`. The rule is in `docs/algorithms.md` §3.1.

use std::collections::{HashMap, VecDeque};

use nohash_hasher::BuildNoHashHasher;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::unique_words::{sequence_of, BookWords, Scratch};
use super::{ExtractOptions, UniqueWordSeq};
use crate::error::{Error, Result};
use crate::text::{tokenise, Token};

/// Where books are cut into parts. Stored in the catalog at index creation
/// (from format 6): they change what stored sequences mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartOptions {
    /// A book with more words than this is cut into parts. Default 131,072
    /// (a long novel stays one part).
    pub volume_words: u32,
    /// Words in a part. Default 32,768; even, at least 16, at most
    /// `volume_words`.
    pub part_words: u32,
}

/// Default [`PartOptions::volume_words`].
pub const DEFAULT_VOLUME_WORDS: u32 = 1 << 17;
/// Default [`PartOptions::part_words`].
pub const DEFAULT_PART_WORDS: u32 = 1 << 15;

impl Default for PartOptions {
    fn default() -> Self {
        PartOptions {
            volume_words: DEFAULT_VOLUME_WORDS,
            part_words: DEFAULT_PART_WORDS,
        }
    }
}

impl PartOptions {
    /// Books are never cut: what indexes of formats before 6 hold.
    pub const NEVER: PartOptions = PartOptions {
        volume_words: u32::MAX,
        part_words: u32::MAX - 1,
    };

    /// `InvalidArgument` unless the part length is even, at least 16 and
    /// at most the volume threshold.
    pub fn validate(&self) -> Result<()> {
        if self.part_words < 16
            || !self.part_words.is_multiple_of(2)
            || self.part_words > self.volume_words
        {
            return Err(Error::InvalidArgument(format!(
                "part_words {} must be even, at least 16 and at most volume_words {}",
                self.part_words, self.volume_words
            )));
        }
        Ok(())
    }

    /// Half a part: the distance between the starts of two parts.
    fn step(&self) -> u64 {
        u64::from(self.part_words / 2).max(1)
    }

    /// Whether a book of `words` words is cut into more than one part.
    pub fn cuts(&self, words: u64) -> bool {
        words > u64::from(self.volume_words) && words > u64::from(self.part_words)
    }

    /// The word ranges of the parts of a book of `words` words: one range,
    /// the whole book, unless it has more than `volume_words`.
    pub fn ranges(&self, words: u64) -> Vec<std::ops::Range<u64>> {
        let len = u64::from(self.part_words);
        if !self.cuts(words) {
            #[allow(clippy::single_range_in_vec_init)] // one part: the whole book
            return vec![0..words];
        }
        let mut ranges: Vec<_> = (0..)
            .map(|k| k * self.step())
            .take_while(|&start| start + len < words)
            .map(|start| start..start + len)
            .collect();
        ranges.push(words - len..words);
        ranges
    }
}

/// The parts of a book of `words` words whose whole-book sequence is
/// `whole`: `whole` alone when the book is not cut, else the sequence of
/// each part of `text`, tokenised again, holding one part's words at once.
/// A load gives the same parts without tokenising again, from the words
/// its extraction numbered.
pub fn book_parts(
    text: &str,
    words: u64,
    whole: UniqueWordSeq,
    options: &ExtractOptions,
    parts: &PartOptions,
) -> Vec<UniqueWordSeq> {
    let ranges = parts.ranges(words);
    if ranges.len() == 1 {
        return vec![whole];
    }
    drop(whole);
    let mut cutter = Cutter {
        ranges: &ranges,
        next: 0,
        window: VecDeque::with_capacity(parts.part_words as usize),
        first_position: 0,
        out: Vec::with_capacity(ranges.len()),
        options,
    };
    tokenise(text, |token| {
        if let Token::Word(word) = token {
            cutter.push(word);
        }
    });
    cutter.out
}

/// [`book_parts`] of `text`, cut from its [`BookWords`] when its extraction
/// kept them (a text extracted in memory) instead of tokenising it again.
pub(crate) fn parts_of(
    text: &str,
    book_words: Option<&BookWords>,
    words: u64,
    whole: UniqueWordSeq,
    options: &ExtractOptions,
    parts: &PartOptions,
) -> Vec<UniqueWordSeq> {
    let Some(book_words) = book_words else {
        return book_parts(text, words, whole, options, parts);
    };
    let ranges = parts.ranges(words);
    if ranges.len() == 1 {
        return vec![whole];
    }
    drop(whole);
    let mut scratch = Scratch::default();
    ranges
        .into_iter()
        .map(|range| {
            book_words
                .range_sequence(
                    range.start as usize..range.end as usize,
                    options,
                    &mut scratch,
                )
                .0
        })
        .collect()
}

/// Slides a window of one part's words over the text and emits each part's
/// sequence when its last word arrives.
struct Cutter<'a> {
    ranges: &'a [std::ops::Range<u64>],
    next: usize,
    /// The last words seen (at most a part), with their 64-bit hashes.
    window: VecDeque<(u64, String)>,
    /// Position of the window's first word.
    first_position: u64,
    out: Vec<UniqueWordSeq>,
    options: &'a ExtractOptions,
}

impl Cutter<'_> {
    fn push(&mut self, word: &str) {
        let Some(range) = self.ranges.get(self.next) else {
            return;
        };
        let capacity = (range.end - range.start) as usize;
        if self.window.len() == capacity {
            self.window.pop_front();
            self.first_position += 1;
        }
        let key = xxh3_64_with_seed(word.as_bytes(), self.options.hash_seed);
        self.window.push_back((key, word.to_string()));
        let end = self.first_position + self.window.len() as u64;
        // Ranges all have the part's length, so the window holds exactly
        // one part when that part's last word has arrived.
        while let Some(range) = self.ranges.get(self.next) {
            if range.end != end || range.start != self.first_position {
                break;
            }
            self.out.push(part_sequence(
                &self.window,
                range.start as u32,
                self.options,
            ));
            self.next += 1;
        }
    }
}

/// The unique-word sequence of one part (or passage): `words` from
/// position `start`, with the rules of the whole-book sequence (frequency
/// at most M within the part, colliding hashes dropped, the
/// alphabetical-list guard).
pub(crate) fn part_sequence(
    words: &VecDeque<(u64, String)>,
    start: u32,
    options: &ExtractOptions,
) -> UniqueWordSeq {
    let mut counts: HashMap<u64, (u32, u32), BuildNoHashHasher<u64>> = HashMap::default();
    for (i, (key, _)) in words.iter().enumerate() {
        let entry = counts.entry(*key).or_insert((0, i as u32));
        entry.0 = entry.0.saturating_add(1);
    }
    let mut unique: Vec<(u32, u32, &str)> = counts
        .values()
        .filter(|&&(count, _)| count <= options.max_term_freq)
        .map(|&(_, first)| {
            let (key, word) = &words[first as usize];
            (start + first, *key as u32, word.as_str())
        })
        .collect();
    unique.sort_unstable_by_key(|&(position, _, _)| position);
    sequence_of(unique, options).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repr::test_texts::{assert_each_is_its_range, text_of};
    use crate::repr::unique_words::extract;
    use proptest::prelude::*;

    fn small() -> PartOptions {
        PartOptions {
            volume_words: 4096,
            part_words: 1024,
        }
    }

    #[test]
    fn ranges_overlap_by_half_and_end_at_the_last_word() {
        let parts = small();
        assert_eq!(parts.ranges(4096), vec![0..4096]);
        assert_eq!(parts.ranges(10), vec![0..10]);
        let ranges = parts.ranges(5000);
        assert_eq!(ranges.first(), Some(&(0..1024)));
        assert_eq!(ranges[1], 512..1536);
        assert_eq!(ranges.last(), Some(&(3976..5000)));
        for pair in ranges.windows(2) {
            assert!(pair[1].start - pair[0].start <= 512);
        }
    }

    proptest! {
        #[test]
        fn every_short_passage_lies_inside_one_part(words in 4097u64..40_000, start in 0u64..40_000, len in 1u64..=512) {
            let parts = small();
            let start = start % (words - len + 1);
            prop_assert!(parts.ranges(words).iter().any(|r| r.start <= start && start + len <= r.end));
        }
    }

    #[test]
    fn each_part_is_the_sequence_of_its_words_at_book_positions() {
        let options = ExtractOptions::default();
        let parts = small();
        let text = text_of(6000, 3000, 7);
        let whole = extract(&text, &options);
        let sequences = book_parts(&text, whole.words, whole.sequence, &options, &parts);
        assert_each_is_its_range(&sequences, &parts.ranges(6000), &text, &options);
    }

    proptest! {
        #[test]
        fn parts_cut_from_book_words_equal_parts_of_the_text_tokenised_again(
            words in 4097usize..9000,
            vocabulary in 200usize..5000,
            seed in any::<u64>(),
            max_term_freq in 1u32..3,
        ) {
            let options = ExtractOptions { max_term_freq, ..ExtractOptions::default() };
            let text = text_of(words, vocabulary, seed);
            let (whole, book_words) =
                crate::repr::unique_words::extract_with(&text, &options, None, |_, _| {});
            let book_words = book_words.expect("a short text is extracted in memory");
            let again = book_parts(&text, whole.words, whole.sequence.clone(), &options, &small());
            let cut = parts_of(&text, Some(&book_words), whole.words, whole.sequence, &options, &small());
            prop_assert_eq!(&cut, &again);
            // Extracted for those parts, the book has no whole-book
            // sequence, and its parts are the same.
            let (features, book_words) =
                crate::repr::unique_words::extract_with(&text, &options, Some(&small()), |_, _| {});
            prop_assert!(small().cuts(features.words) && features.sequence.is_empty());
            let from_words = parts_of(
                &text, book_words.as_ref(), features.words, features.sequence, &options, &small(),
            );
            prop_assert_eq!(from_words, cut);
        }
    }

    #[test]
    fn a_book_up_to_the_volume_threshold_is_its_whole_sequence() {
        let options = ExtractOptions::default();
        let text = text_of(4096, 3000, 3);
        let whole = extract(&text, &options);
        let sequences = book_parts(
            &text,
            whole.words,
            whole.sequence.clone(),
            &options,
            &small(),
        );
        assert_eq!(sequences, vec![whole.sequence]);
    }

    #[test]
    fn validation_refuses_odd_tiny_or_oversized_parts() {
        assert!(PartOptions::default().validate().is_ok());
        for (volume_words, part_words) in [(4096, 15), (4096, 1025), (1024, 2048), (4096, 0)] {
            let options = PartOptions {
                volume_words,
                part_words,
            };
            assert!(options.validate().is_err(), "{volume_words} {part_words}");
        }
    }
}
