//! RETAS, the recursive text alignment scheme (thesis ch. 3): a full
//! alignment of two long texts, word by word and character by character.
//!
//! 1. Both texts are tokenised into normalised words with the byte range each
//!    came from ([`crate::text::tokenise_spans`]).
//! 2. **Anchors**: the words that occur exactly once in each text, taken in
//!    the same order in both. The thesis takes their LCS; here each word is
//!    weighted by the words around it that match too, and the heaviest chain
//!    is taken, so that a passage moved between editions does not pull the
//!    alignment away from the text around it. The anchors fix pairs of
//!    corresponding segments.
//! 3. **Recursion**: each pair of segments between consecutive anchors is
//!    split again at the words unique within that pair, until a segment is
//!    under [`RetasOptions::leaf_words`] words or has no common unique word.
//!    The recursion runs on an explicit stack, [`RetasOptions::max_depth`]
//!    levels at most.
//! 4. **Leaves** are aligned at word level by the dynamic-programming LCS.
//! 5. **Characters**: runs of matched words that hold an anchor or have at
//!    least three words are kept; the stretch between two kept runs
//!    (shorter runs included: in noisy text the word LCS pairs common words
//!    with the wrong occurrence) is aligned at character level, edit costs
//!    insertion 1, deletion 1, substitution 2. The character alignment is
//!    cut at spaces matched with spaces; a piece without edits is an exact
//!    match, a piece whose edit operations are at most
//!    [`RetasOptions::max_edit_share`] of its characters an edited one, and
//!    the rest stays unaligned.
//!
//! 6. **Moved passages** (when [`RetasOptions::find_moved`]): the steps
//!    above align in order only, so a passage moved between editions stays
//!    unaligned in both texts. A second pass anchors on the words unique in
//!    both remainders, takes the runs of anchors that follow each other in
//!    both texts, and aligns each as a block by steps 3–5; a block of at
//!    least [`RetasOptions::min_moved_words`] aligned words is kept, its
//!    spans marked [`AlignedSpan::moved`] (module `moved`).
//!
//! Every dynamic-programming table is capped at
//! [`RetasOptions::max_dp_cells`] cells. A stretch too large is cut at its
//! shorter run nearest the diagonal until the pieces fit; a piece without a
//! run that still does not fit is left unaligned (counted in
//! [`RetasStats`]). The result, [`Alignment`], lists non-overlapping spans
//! in order of A; the spans not marked moved increase in B too.

mod anchors;
mod chain;
mod chars;
mod dp;
mod moved;
mod spans;
mod words;

use serde::Serialize;
use std::ops::Range;

use crate::error::Result;
pub use anchors::WordMatch;
pub(crate) use anchors::{WordAligner, WordRelation};
pub(crate) use chars::{join_words, joined_len};
pub(crate) use dp::edit_operations;
pub(crate) use words::{byte_range, WordTexts};

/// Parameters of RETAS.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RetasOptions {
    /// K: a pair of segments whose longer side has fewer words than this is
    /// a leaf, aligned at word level without looking for anchors. Default
    /// 200 (the thesis's K): much smaller, and common words become unique
    /// within a sentence and mislead the split. Any value is valid.
    pub leaf_words: u32,
    /// Largest dynamic-programming table, in cells, for the word alignment
    /// of a leaf and the character alignment of a stretch; larger ones are
    /// left unaligned. Default 2,000,000 (two stretches of about 1,400 words,
    /// or 1,400 characters, each).
    pub max_dp_cells: u64,
    /// Deepest level of the recursion; a segment pair this deep is a leaf.
    /// Default 32 (real texts need fewer than 10); it bounds the work on
    /// inputs where each split peels off only a few words.
    pub max_depth: u32,
    /// A character-aligned piece is an edited match when its edit operations
    /// are at most this share of the characters of its longer side. Default
    /// 0.5; valid 0.0..=1.0.
    pub max_edit_share: f64,
    /// Look for passages moved between the texts after the in-order
    /// alignment (step 6). Default true.
    pub find_moved: bool,
    /// Fewest words of A a moved passage must align to count: shorter
    /// matches out of order are common phrases as often as moved text.
    /// Default 40. Any value is valid (0 counts as 1).
    pub min_moved_words: u32,
}

impl Default for RetasOptions {
    fn default() -> Self {
        RetasOptions {
            leaf_words: 200,
            max_dp_cells: 2_000_000,
            max_depth: 32,
            max_edit_share: 0.5,
            find_moved: true,
            min_moved_words: 40,
        }
    }
}

impl RetasOptions {
    /// The options of RTA ([`crate::translate::rta`]): 400-word leaves (the
    /// thesis's: translated words match more sparsely than equal words, so
    /// a leaf's table needs more words to find their order), no search for
    /// moved passages.
    pub fn translations() -> Self {
        RetasOptions {
            leaf_words: 400,
            find_moved: false,
            ..RetasOptions::default()
        }
    }
}

/// Character edit operations between two aligned stretches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CharEdits {
    /// Characters replaced by another.
    pub substitutions: u64,
    /// Characters of B with no counterpart in A.
    pub insertions: u64,
    /// Characters of A with no counterpart in B.
    pub deletions: u64,
}

impl CharEdits {
    /// Number of edit operations (each costs 1).
    pub fn operations(&self) -> u64 {
        self.substitutions + self.insertions + self.deletions
    }

    /// Edit distance with costs insertion 1, deletion 1, substitution 2.
    pub fn distance(&self) -> u64 {
        self.operations() + self.substitutions
    }

    pub(crate) fn add(&mut self, other: &CharEdits) {
        self.substitutions += other.substitutions;
        self.insertions += other.insertions;
        self.deletions += other.deletions;
    }
}

/// How the words of a span correspond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SpanKind {
    /// The same words in both texts.
    Exact,
    /// Different words, aligned character by character.
    Edited {
        /// Edit distance with costs insertion 1, deletion 1, substitution 2
        /// between the words joined by single spaces.
        distance: u64,
        /// The operations: where deletions and insertions meet between two
        /// matched characters, pairs of them count as substitutions.
        edits: CharEdits,
    },
}

/// Words of A and words of B that correspond.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AlignedSpan {
    /// Word indexes in A (indexes among all words of A from 0).
    pub a_words: Range<u32>,
    /// Word indexes in B.
    pub b_words: Range<u32>,
    /// Bytes of text A from the first word's first letter to the last
    /// word's last, on character boundaries.
    pub a_bytes: Range<usize>,
    /// Bytes of text B likewise.
    pub b_bytes: Range<usize>,
    /// Exact or edited.
    #[serde(flatten)]
    pub kind: SpanKind,
    /// Found by the pass for moved passages out of the order of the other
    /// spans: its B words lie before the spans that precede it in A, or
    /// after those that follow it.
    pub moved: bool,
}

/// Counts from one alignment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RetasStats {
    /// Anchors of the first level: common unique words in the LCS.
    pub anchors: u32,
    /// Deepest recursion level reached (0: the whole texts).
    pub depth: u32,
    /// Segment pairs aligned at word level.
    pub leaves: u32,
    /// Dynamic-programming cells computed, words and characters.
    pub dp_cells: u64,
    /// Stretches left unaligned because their table exceeded
    /// [`RetasOptions::max_dp_cells`].
    pub capped_stretches: u32,
    /// Words of A in those stretches.
    pub capped_words_a: u32,
    /// Words of B in those stretches.
    pub capped_words_b: u32,
    /// Spans marked moved.
    pub moved_spans: u32,
    /// Words of A in moved spans.
    pub moved_words_a: u32,
    /// Words of B in moved spans.
    pub moved_words_b: u32,
}

/// The alignment of two texts A and B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alignment {
    /// Words in A.
    pub words_a: u32,
    /// Words in B.
    pub words_b: u32,
    /// Words of A inside spans.
    pub aligned_words_a: u32,
    /// Words of B inside spans.
    pub aligned_words_b: u32,
    /// `aligned_words_a / words_a` (0 for a text without words).
    pub share_a: f64,
    /// `aligned_words_b / words_b`.
    pub share_b: f64,
    /// Spans in order of A, not overlapping in either text. The spans not
    /// marked [`AlignedSpan::moved`] increase in B too; a moved span does
    /// not: it lies in B before the spans preceding it, or after those
    /// following it.
    pub spans: Vec<AlignedSpan>,
    /// How the alignment went.
    pub stats: RetasStats,
}

impl Alignment {
    /// The word ranges of each span in A and in B, in order of A (the
    /// ranges in B of moved spans are out of order).
    pub fn word_range_pairs(&self) -> Vec<(Range<u32>, Range<u32>)> {
        self.spans
            .iter()
            .map(|s| (s.a_words.clone(), s.b_words.clone()))
            .collect()
    }

    /// Share of the text with fewer words that is aligned (0 when it has
    /// none): how much of the shorter book the longer one holds.
    pub fn shorter_share(&self) -> f64 {
        if self.words_a <= self.words_b {
            self.share_a
        } else {
            self.share_b
        }
    }

    fn new(texts: &WordTexts, spans: Vec<AlignedSpan>, stats: RetasStats) -> Self {
        let aligned_words_a = spans.iter().map(|s| s.a_words.len() as u32).sum();
        let aligned_words_b = spans.iter().map(|s| s.b_words.len() as u32).sum();
        let share = |aligned: u32, words: u32| match words {
            0 => 0.0,
            _ => f64::from(aligned) / f64::from(words),
        };
        Alignment {
            words_a: texts.a.len(),
            words_b: texts.b.len(),
            aligned_words_a,
            aligned_words_b,
            share_a: share(aligned_words_a, texts.a.len()),
            share_b: share(aligned_words_b, texts.b.len()),
            spans,
            stats,
        }
    }
}

/// Aligns text `a` with text `b` (decoded text; see [`crate::text::decode`]).
/// Never panics; fails only when a text has more than 2^32 − 2 words.
pub fn align_texts(a: &str, b: &str, options: &RetasOptions) -> Result<Alignment> {
    let texts = WordTexts::new(a, b)?;
    Ok(align_words(&texts, options))
}

/// Aligns two tokenised texts.
pub(crate) fn align_words(texts: &WordTexts, options: &RetasOptions) -> Alignment {
    let mut aligner = WordAligner::new(texts.vocabulary.len(), options);
    let whole = (0..texts.a.len(), 0..texts.b.len());
    let matches = aligner.matches(&texts.a.ids, &texts.b.ids, whole.0.clone(), whole.1.clone());
    let mut stats = aligner.stats();
    let mut spans = spans::build(texts, whole, &matches, options, &mut stats);
    if options.find_moved {
        let found = moved::find(texts, &spans, options, &mut stats);
        if !found.is_empty() {
            spans.extend(found);
            spans.sort_unstable_by_key(|s| s.a_words.start);
        }
    }
    Alignment::new(texts, spans, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalise;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use stemmata_synth::{ocr_noise, work_text};

    fn align(a: &str, b: &str) -> Alignment {
        align_texts(a, b, &RetasOptions::default()).unwrap()
    }

    fn words(text: &str) -> Vec<String> {
        normalise(text)
            .split([' ', '\x0c'])
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// Checks what every alignment must satisfy: spans in order of A, the
    /// spans not moved in order of B too, no word in two spans, counts that
    /// agree with the spans.
    fn check_invariants(alignment: &Alignment, a: &str, b: &str) {
        let mut end = (0, 0, 0, 0);
        for span in &alignment.spans {
            assert!(!span.a_words.is_empty() && !span.b_words.is_empty());
            assert!(span.a_words.start >= end.0 && span.a_bytes.start >= end.2);
            assert!(span.a_words.end <= alignment.words_a);
            assert!(span.b_words.end <= alignment.words_b);
            assert!(a.get(span.a_bytes.clone()).is_some());
            assert!(b.get(span.b_bytes.clone()).is_some());
            (end.0, end.2) = (span.a_words.end, span.a_bytes.end);
            if !span.moved {
                assert!(span.b_words.start >= end.1 && span.b_bytes.start >= end.3);
                (end.1, end.3) = (span.b_words.end, span.b_bytes.end);
            }
        }
        let mut in_b: Vec<&AlignedSpan> = alignment.spans.iter().collect();
        in_b.sort_by_key(|s| s.b_words.start);
        for pair in in_b.windows(2) {
            assert!(pair[0].b_words.end <= pair[1].b_words.start, "{pair:?}");
            assert!(pair[0].b_bytes.end <= pair[1].b_bytes.start, "{pair:?}");
        }
        let sum = |side: fn(&AlignedSpan) -> &Range<u32>, moved_only: bool| -> u32 {
            let spans = alignment.spans.iter().filter(|s| s.moved || !moved_only);
            spans.map(|s| side(s).len() as u32).sum()
        };
        assert_eq!(sum(|s| &s.a_words, false), alignment.aligned_words_a);
        assert_eq!(sum(|s| &s.b_words, false), alignment.aligned_words_b);
        assert_eq!(sum(|s| &s.a_words, true), alignment.stats.moved_words_a);
        assert_eq!(sum(|s| &s.b_words, true), alignment.stats.moved_words_b);
        let moved = alignment.spans.iter().filter(|s| s.moved).count();
        assert_eq!(moved as u32, alignment.stats.moved_spans);
        assert!((0.0..=1.0).contains(&alignment.share_a));
        assert!((0.0..=1.0).contains(&alignment.share_b));
    }

    /// Word range of the spans marked moved (`true`) or not, in A and in B
    /// (from the first span's start to the last span's end).
    fn extent(alignment: &Alignment, moved: bool) -> (Range<u32>, Range<u32>) {
        let spans: Vec<&AlignedSpan> = alignment
            .spans
            .iter()
            .filter(|s| s.moved == moved)
            .collect();
        let (first, last) = (spans[0], spans[spans.len() - 1]);
        let b_start = spans.iter().map(|s| s.b_words.start).min().unwrap();
        let b_end = spans.iter().map(|s| s.b_words.end).max().unwrap();
        (first.a_words.start..last.a_words.end, b_start..b_end)
    }

    /// The parts x, m, y, z of [`moved_passage_texts`]: 500, 300, 1,000 and
    /// 500 words.
    fn moved_passage_parts() -> [String; 4] {
        [(500, 21), (300, 22), (1_000, 23), (500, 24)].map(|(n, seed)| work_text(n, seed))
    }

    /// A = x m y z, B = x y m z: the passage m (300 words) moved after y.
    fn moved_passage_texts() -> (String, String) {
        let [x, m, y, z] = moved_passage_parts();
        (
            format!("{x}\n\n{m}\n\n{y}\n\n{z}"),
            format!("{x}\n\n{y}\n\n{m}\n\n{z}"),
        )
    }

    #[test]
    fn a_moved_passage_is_found_where_it_is_in_both_texts_and_marked_moved() {
        let (a, b) = moved_passage_texts();
        let alignment = align(&a, &b);
        check_invariants(&alignment, &a, &b);
        assert_eq!((alignment.share_a, alignment.share_b), (1.0, 1.0));
        assert_eq!(extent(&alignment, true), (500..800, 1_500..1_800));
        assert!(alignment
            .spans
            .iter()
            .filter(|s| s.moved)
            .all(|s| s.kind == SpanKind::Exact));
        assert_eq!(alignment.stats.moved_words_a, 300);
        assert_eq!(alignment.stats.moved_words_b, 300);
        let in_order = alignment.spans.iter().filter(|s| !s.moved);
        assert_eq!(in_order.map(|s| s.a_words.len()).sum::<usize>(), 2_000);
    }

    #[test]
    fn a_moved_passage_with_ocr_noise_is_still_found() {
        let (a, _) = moved_passage_texts();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        let [x, m, y, z] = moved_passage_parts().map(|part| ocr_noise(&part, 0.03, &mut rng));
        let noisy = format!("{x}\n\n{y}\n\n{m}\n\n{z}");
        let alignment = align(&a, &noisy);
        check_invariants(&alignment, &a, &noisy);
        let (moved_a, moved_b) = extent(&alignment, true);
        assert!(moved_a.start >= 500 && moved_a.end <= 800, "{moved_a:?}");
        assert!(
            alignment.stats.moved_words_a >= 280,
            "{:?}",
            alignment.stats
        );
        let m_start = (words(&x).len() + words(&y).len()) as u32;
        let m_end = m_start + words(&m).len() as u32;
        assert!(
            moved_b.start >= m_start && moved_b.end <= m_end,
            "{moved_b:?}"
        );
        assert!(moved_b.len() as u32 >= m_end - m_start - 20, "{moved_b:?}");
        assert!(alignment.share_a > 0.97, "{}", alignment.share_a);
    }

    #[test]
    fn without_the_second_pass_a_moved_passage_stays_unaligned() {
        let (a, b) = moved_passage_texts();
        let in_order = RetasOptions {
            find_moved: false,
            ..RetasOptions::default()
        };
        let alignment = align_texts(&a, &b, &in_order).unwrap();
        check_invariants(&alignment, &a, &b);
        assert!(alignment.spans.iter().all(|s| !s.moved));
        assert_eq!(alignment.stats.moved_spans, 0);
        // m, apart from chance matches of common words.
        assert!(
            alignment.aligned_words_a < 2_000 + 60,
            "{}",
            alignment.aligned_words_a
        );
        assert!(alignment.aligned_words_a >= 2_000);
    }

    #[test]
    fn a_moved_phrase_shorter_than_the_minimum_is_not_a_moved_passage() {
        let phrase = work_text(30, 25);
        let (x, y) = (work_text(600, 26), work_text(600, 27));
        let a = format!("{x}\n\n{phrase}\n\n{y}");
        let b = format!("{phrase}\n\n{x}\n\n{y}");
        let alignment = align(&a, &b);
        check_invariants(&alignment, &a, &b);
        assert_eq!(alignment.stats.moved_spans, 0, "{alignment:?}");
        let shorter = RetasOptions {
            min_moved_words: 20,
            ..RetasOptions::default()
        };
        let alignment = align_texts(&a, &b, &shorter).unwrap();
        check_invariants(&alignment, &a, &b);
        assert_eq!(alignment.stats.moved_words_a, 30, "{:?}", alignment.stats);
    }

    #[test]
    fn unrelated_texts_have_no_moved_passages() {
        // Two halves of one generated work: the same lexicon and style, so
        // common words and phrases match by chance, but no passage.
        let loose = RetasOptions {
            min_moved_words: 5,
            ..RetasOptions::default()
        };
        for seed in 0..3 {
            let text = work_text(20_000, 40 + seed);
            let halves: Vec<&str> = text.split_whitespace().collect();
            let (a, b) = (halves[..10_000].join(" "), halves[10_000..].join(" "));
            for options in [RetasOptions::default(), loose] {
                let alignment = align_texts(&a, &b, &options).unwrap();
                check_invariants(&alignment, &a, &b);
                assert!(
                    alignment.aligned_words_a > 100,
                    "{}",
                    alignment.aligned_words_a
                );
                assert_eq!(alignment.stats.moved_spans, 0, "{:?}", alignment.stats);
            }
        }
    }

    #[test]
    fn identical_texts_align_completely_in_one_exact_span() {
        let text = work_text(3_000, 1);
        let alignment = align(&text, &text);
        assert_eq!(alignment.words_a, 3_000);
        assert_eq!((alignment.share_a, alignment.share_b), (1.0, 1.0));
        assert_eq!(alignment.spans.len(), 1);
        assert_eq!(alignment.spans[0].kind, SpanKind::Exact);
        assert!(alignment.stats.anchors > 100, "{:?}", alignment.stats);
        check_invariants(&alignment, &text, &text);
    }

    #[test]
    fn a_text_inside_another_aligns_completely_where_it_is() {
        let inner = work_text(2_000, 2);
        let before = work_text(1_500, 3);
        let after = work_text(800, 4);
        let outer = format!("{before}\n\n{inner}\n\n{after}");
        let alignment = align(&inner, &outer);
        assert_eq!(alignment.share_a, 1.0);
        let first = &alignment.spans[0];
        let last = alignment.spans.last().unwrap();
        assert_eq!((first.a_words.start, last.a_words.end), (0, 2_000));
        let start = words(&before).len() as u32;
        assert_eq!(
            (first.b_words.start, last.b_words.end),
            (start, start + 2_000)
        );
        assert!(alignment.share_b < 0.6, "{}", alignment.share_b);
        check_invariants(&alignment, &inner, &outer);
    }

    #[test]
    fn inserted_and_deleted_paragraphs_are_left_unaligned() {
        let part = |seed| work_text(600, seed);
        let (p1, p2, p3, extra) = (part(5), part(6), part(7), part(8));
        let a = format!("{p1}\n\n{p2}\n\n{p3}");
        let b = format!("{p1}\n\n{extra}\n\n{p3}");
        let alignment = align(&a, &b);
        check_invariants(&alignment, &a, &b);
        // p1 and p3 align; p2 and the inserted paragraph do not, apart from
        // chance matches of common words.
        assert!(alignment.aligned_words_a >= 1_200);
        assert!(alignment.aligned_words_a <= 1_200 + 120, "{alignment:?}");
        let in_p2 = |s: &AlignedSpan| s.a_words.start >= 600 && s.a_words.end <= 1_200;
        let stray: usize = alignment
            .spans
            .iter()
            .filter(|s| in_p2(s))
            .map(|s| s.a_words.len())
            .sum();
        assert!(
            stray < 120,
            "{stray} words of the deleted paragraph aligned"
        );
    }

    #[test]
    fn ocr_noise_gives_edited_spans_and_still_aligns_nearly_everything() {
        let clean = work_text(5_000, 9);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let noisy = ocr_noise(&clean, 0.05, &mut rng);
        let alignment = align(&clean, &noisy);
        check_invariants(&alignment, &clean, &noisy);
        let edited = alignment
            .spans
            .iter()
            .filter(|s| matches!(s.kind, SpanKind::Edited { .. }))
            .count();
        assert!(edited > 100, "{edited} edited spans");
        assert!(alignment.share_a > 0.97, "{}", alignment.share_a);
        assert!(alignment.share_b > 0.95, "{}", alignment.share_b);
    }

    #[test]
    fn an_edited_span_records_its_edits() {
        let alignment = align("the planet mars", "the plamet mars");
        let kinds: Vec<SpanKind> = alignment.spans.iter().map(|s| s.kind).collect();
        let edits = CharEdits {
            substitutions: 1,
            ..CharEdits::default()
        };
        let edited = SpanKind::Edited { distance: 2, edits };
        assert_eq!(kinds, [SpanKind::Exact, edited, SpanKind::Exact]);
        assert_eq!(alignment.share_a, 1.0);
    }

    #[test]
    fn the_cell_cap_leaves_a_long_stretch_unaligned() {
        let shared = work_text(400, 10);
        let (x, y) = (work_text(300, 11), work_text(300, 12));
        let a = format!("{shared} {x} {shared}");
        let b = format!("{shared} {y} {shared}");
        let capped = RetasOptions {
            max_dp_cells: 1_000,
            ..RetasOptions::default()
        };
        let alignment = align_texts(&a, &b, &capped).unwrap();
        check_invariants(&alignment, &a, &b);
        assert!(alignment.stats.capped_stretches >= 1, "{alignment:?}");
        assert!(alignment.stats.capped_words_a >= 200);
        assert!(alignment.aligned_words_a < 900);
        assert!(alignment.aligned_words_a >= 800);
    }

    #[test]
    fn byte_ranges_slice_the_original_texts_back_to_the_aligned_words() {
        let clean = work_text(1_500, 13);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(2);
        let noisy = ocr_noise(&clean, 0.03, &mut rng);
        let alignment = align(&clean, &noisy);
        let (words_a, words_b) = (words(&clean), words(&noisy));
        for span in &alignment.spans {
            let sliced_a = words(&clean[span.a_bytes.clone()]);
            let sliced_b = words(&noisy[span.b_bytes.clone()]);
            let range = |r: &Range<u32>| r.start as usize..r.end as usize;
            assert_eq!(sliced_a, words_a[range(&span.a_words)]);
            assert_eq!(sliced_b, words_b[range(&span.b_words)]);
            if span.kind == SpanKind::Exact {
                assert_eq!(sliced_a, sliced_b);
            }
        }
    }

    #[test]
    fn word_range_pairs_follow_the_spans() {
        let alignment = align("a b c d e", "a b x d e");
        assert_eq!(alignment.word_range_pairs(), [(0..2, 0..2), (3..5, 3..5)]);
        assert_eq!(alignment.shorter_share(), 0.8);
    }

    #[test]
    fn degenerate_inputs_give_empty_or_partial_alignments() {
        let text = work_text(300, 14);
        for (a, b) in [("", ""), ("", text.as_str()), ("!!! 123", "...")] {
            let alignment = align(a, b);
            assert!(alignment.spans.is_empty());
            assert_eq!(alignment.share_a, 0.0);
        }
        let unrelated = align("alpha beta gamma", "delta epsilon zeta");
        check_invariants(&unrelated, "alpha beta gamma", "delta epsilon zeta");
        let junk: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let junk = String::from_utf8_lossy(&junk);
        let alignment = align(&junk, &text);
        check_invariants(&alignment, &junk, &text);
    }

    #[test]
    fn a_ten_megabyte_line_aligns_without_trouble() {
        let line: String = work_text(1_000, 15)
            .split_whitespace()
            .cycle()
            .take(1_700_000)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(line.len() >= 10 << 20, "{}", line.len());
        let started = std::time::Instant::now();
        let alignment = align(&line, &line[..line.len() / 2]);
        check_invariants(&alignment, &line, &line[..line.len() / 2]);
        assert!(alignment.share_b > 0.99, "{}", alignment.share_b);
        assert!(started.elapsed().as_secs() < 60);
        let long_word = "x".repeat(10 << 20);
        assert!(align(&long_word, "x").spans.is_empty());
    }

    proptest! {
        #[test]
        fn spans_are_monotone_in_bounds_and_on_char_boundaries(
            a in "[abcé \\n-]{0,300}",
            b in "[abcé \\n-]{0,300}",
            leaf_words in 1u32..40,
            max_dp_cells in 0u64..5_000,
            min_moved_words in 0u32..8,
        ) {
            let options = RetasOptions {
                leaf_words, max_dp_cells, min_moved_words, ..RetasOptions::default()
            };
            let alignment = align_texts(&a, &b, &options).unwrap();
            check_invariants(&alignment, &a, &b);
        }

        #[test]
        fn any_strings_align_without_panicking(a in any::<String>(), b in any::<String>()) {
            let alignment = align_texts(&a, &b, &RetasOptions::default()).unwrap();
            check_invariants(&alignment, &a, &b);
        }
    }
}
