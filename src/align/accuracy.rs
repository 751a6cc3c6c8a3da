//! OCR accuracy of a text against a clean copy of it (thesis 3.5), measured
//! through their RETAS alignment.
//!
//! Both texts are compared in normalised form (lower-case words, no
//! punctuation or digits), words joined by single spaces. Over that form:
//!
//! - **character accuracy** = 1 − edit operations / characters of the clean
//!   text. An operation is a substitution, insertion or deletion of one
//!   character, spaces included. The exact spans of the alignment are taken
//!   as correct; each stretch between two of them counts the least number
//!   of operations turning its clean words into its OCR words (Levenshtein
//!   distance, unit costs); a stretch too large for the table cap counts as
//!   substituted up to its shorter side and inserted or deleted for the
//!   rest. OCR text before the first span or after the last (of any kind)
//!   has no counterpart in the clean copy — an extra preface or index — and
//!   is reported as `extra_ocr_words`, not counted; missing clean text is.
//! - **word accuracy** = clean words in exact spans / clean words.
//! - **stop-word accuracy** = the same over the occurrences of the clean
//!   text's [`STOP_WORDS`] most frequent words (the thesis used the 100 most
//!   frequent English words; taking them from the clean text works for any
//!   language).
//!
//! The alignment is the in-order one ([`RetasOptions::find_moved`] is
//! turned off): a passage moved in the OCR text counts as missing where the
//! clean text has it and as extra where the OCR text has it.

use serde::Serialize;
use std::ops::Range;

use super::retas::{align_words, edit_operations, join_words, joined_len, WordTexts};
use super::{AlignedSpan, Alignment, RetasOptions, SpanKind};
use crate::error::{Error, Result};

/// How many of the clean text's most frequent words are its stop words.
pub const STOP_WORDS: usize = 100;

/// The accuracy of an OCR text against its clean copy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OcrAccuracy {
    /// Characters of the clean text (words and the single spaces between them).
    pub clean_chars: u64,
    /// Character edit operations counted against the OCR text.
    pub char_errors: u64,
    /// `1 − char_errors / clean_chars`, at least 0.
    pub char_accuracy: f64,
    /// Words of the clean text.
    pub clean_words: u32,
    /// Clean words matched exactly.
    pub matched_words: u32,
    /// `matched_words / clean_words`.
    pub word_accuracy: f64,
    /// Occurrences of stop words in the clean text.
    pub stop_words: u32,
    /// Of those, matched exactly.
    pub matched_stop_words: u32,
    /// `matched_stop_words / stop_words` (1 when there are none).
    pub stop_word_accuracy: f64,
    /// Words of the OCR text.
    pub ocr_words: u32,
    /// OCR words before the first span and after the last: text the clean
    /// copy does not have, not counted as errors.
    pub extra_ocr_words: u32,
    /// Share of the clean text inside spans (exact or edited).
    pub aligned_share: f64,
}

/// Measures the accuracy of `ocr` against its clean copy `clean` (both
/// decoded text). Fails when the clean text has no words.
pub fn ocr_accuracy(clean: &str, ocr: &str, options: &RetasOptions) -> Result<OcrAccuracy> {
    let texts = WordTexts::new(clean, ocr)?;
    if texts.a.len() == 0 {
        return Err(Error::InvalidArgument(
            "the clean text has no words to measure against".to_string(),
        ));
    }
    let in_order = RetasOptions {
        find_moved: false,
        ..*options
    };
    let alignment = align_words(&texts, &in_order);
    let clean_chars = joined_len(&texts, &texts.a.ids, &(0..texts.a.len()));
    let extent = ocr_extent(&alignment);
    let char_errors = ErrorCounter::new(&texts, options).count(&alignment, &extent);
    let (stop_words, matched_stop_words) = stop_word_counts(&texts, &alignment);
    let matched_words = exact_spans(&alignment).map(|s| s.len() as u32).sum();
    Ok(OcrAccuracy {
        clean_chars,
        char_errors,
        char_accuracy: (1.0 - char_errors as f64 / clean_chars as f64).max(0.0),
        clean_words: texts.a.len(),
        matched_words,
        word_accuracy: f64::from(matched_words) / f64::from(texts.a.len()),
        stop_words,
        matched_stop_words,
        stop_word_accuracy: match stop_words {
            0 => 1.0,
            _ => f64::from(matched_stop_words) / f64::from(stop_words),
        },
        ocr_words: texts.b.len(),
        extra_ocr_words: texts.b.len() - extent.len() as u32,
        aligned_share: alignment.share_a,
    })
}

/// OCR words from the first span to the last.
fn ocr_extent(alignment: &Alignment) -> Range<u32> {
    match (alignment.spans.first(), alignment.spans.last()) {
        (Some(first), Some(last)) => first.b_words.start..last.b_words.end,
        _ => 0..0,
    }
}

/// Clean-text word ranges of the exact spans.
fn exact_spans(alignment: &Alignment) -> impl Iterator<Item = Range<u32>> + '_ {
    alignment
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Exact)
        .map(|s| s.a_words.clone())
}

/// Occurrences of the clean text's stop words, and how many are matched.
fn stop_word_counts(texts: &WordTexts, alignment: &Alignment) -> (u32, u32) {
    let mut counts = vec![0u32; texts.vocabulary.len()];
    for &id in &texts.a.ids {
        counts[id as usize] += 1;
    }
    let mut by_frequency: Vec<u32> = (0..counts.len() as u32)
        .filter(|&id| counts[id as usize] > 0)
        .collect();
    by_frequency.sort_unstable_by_key(|&id| (std::cmp::Reverse(counts[id as usize]), id));
    by_frequency.truncate(STOP_WORDS);
    let mut is_stop_word = vec![false; counts.len()];
    for &id in &by_frequency {
        is_stop_word[id as usize] = true;
    }
    let occurrences = by_frequency.iter().map(|&id| counts[id as usize]).sum();
    let matched = exact_spans(alignment)
        .flat_map(|words| &texts.a.ids[words.start as usize..words.end as usize])
        .filter(|&&id| is_stop_word[id as usize])
        .count() as u32;
    (occurrences, matched)
}

/// Counts the edit operations of an alignment (see the module docs).
struct ErrorCounter<'t> {
    texts: &'t WordTexts,
    max_cells: u64,
    chars_a: Vec<char>,
    chars_b: Vec<char>,
    row: Vec<u64>,
}

impl<'t> ErrorCounter<'t> {
    fn new(texts: &'t WordTexts, options: &RetasOptions) -> Self {
        ErrorCounter {
            texts,
            max_cells: options.max_dp_cells,
            chars_a: Vec::new(),
            chars_b: Vec::new(),
            row: Vec::new(),
        }
    }

    /// Operations over the stretches between exact spans, OCR words outside
    /// `extent` left out.
    fn count(mut self, alignment: &Alignment, extent: &Range<u32>) -> u64 {
        let mut from = (0, extent.start);
        let mut edited = Vec::new();
        let mut errors = 0;
        for span in &alignment.spans {
            if span.kind != SpanKind::Exact {
                edited.push(span);
                continue;
            }
            let (a, b) = (from.0..span.a_words.start, from.1..span.b_words.start);
            errors += self.region(a, b, &edited);
            edited.clear();
            from = (span.a_words.end, span.b_words.end);
        }
        let rest_b = from.1.min(extent.end)..extent.end;
        errors + self.region(from.0..self.texts.a.len(), rest_b, &edited)
    }

    /// Operations turning the clean words `a` into the OCR words `b`, which
    /// hold the edited spans `edited`: as one stretch when its table fits
    /// the cap, else each edited span and each stretch between them apart.
    fn region(&mut self, a: Range<u32>, b: Range<u32>, edited: &[&AlignedSpan]) -> u64 {
        if edited.is_empty() {
            return self.stretch(a, b);
        }
        if let Some(operations) = self.operations(&a, &b) {
            return operations;
        }
        let mut from = (a.start, b.start);
        let mut errors = 0;
        for span in edited {
            errors += self.stretch(from.0..span.a_words.start, from.1..span.b_words.start);
            errors += match (self.operations(&span.a_words, &span.b_words), span.kind) {
                (Some(operations), _) => operations,
                (None, SpanKind::Edited { edits, .. }) => edits.operations(),
                (None, SpanKind::Exact) => 0,
            };
            from = (span.a_words.end, span.b_words.end);
        }
        errors + self.stretch(from.0..a.end, from.1..b.end)
    }

    /// Operations turning the clean words `a` into the OCR words `b` with
    /// no span between them. A stretch next to aligned text also gains or
    /// loses one space when one side is empty; a stretch too large for the
    /// cap counts as substituted up to its shorter side.
    fn stretch(&mut self, a: Range<u32>, b: Range<u32>) -> u64 {
        let len_a = joined_len(self.texts, &self.texts.a.ids, &a);
        let len_b = joined_len(self.texts, &self.texts.b.ids, &b);
        let whole_text = a.start == 0 && a.end == self.texts.a.len() && b.is_empty();
        match (a.is_empty(), b.is_empty()) {
            (true, true) => 0,
            (false, true) => len_a + u64::from(!whole_text),
            (true, false) => len_b + 1,
            (false, false) => self.operations(&a, &b).unwrap_or(len_a.max(len_b)),
        }
    }

    /// The unit-cost edit distance between the clean words `a` and the OCR
    /// words `b` joined by spaces, or `None` when its table would exceed
    /// the cap.
    fn operations(&mut self, a: &Range<u32>, b: &Range<u32>) -> Option<u64> {
        let len_a = joined_len(self.texts, &self.texts.a.ids, a);
        let len_b = joined_len(self.texts, &self.texts.b.ids, b);
        if (len_a + 1).saturating_mul(len_b + 1) > self.max_cells {
            return None;
        }
        join_words(self.texts, &self.texts.a.ids, a, &mut self.chars_a);
        join_words(self.texts, &self.texts.b.ids, b, &mut self.chars_b);
        Some(edit_operations(&self.chars_a, &self.chars_b, &mut self.row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accuracy(clean: &str, ocr: &str) -> OcrAccuracy {
        ocr_accuracy(clean, ocr, &RetasOptions::default()).unwrap()
    }

    #[test]
    fn a_perfect_copy_is_fully_accurate_whatever_its_extra_matter() {
        let clean = stemmata_synth::work_text(500, 1);
        let ocr = format!("A preface the clean copy lacks.\n\n{clean}\n\nIndex.");
        let measured = accuracy(&clean, &ocr);
        assert_eq!(measured.char_accuracy, 1.0);
        assert_eq!(measured.word_accuracy, 1.0);
        assert_eq!(measured.stop_word_accuracy, 1.0);
        assert_eq!(measured.extra_ocr_words, 7);
        assert_eq!(measured.clean_words, 500);
    }

    #[test]
    fn each_kind_of_edit_is_counted_once() {
        // "the" -> "tbe": 1 substitution; "quick" -> "quiick": 1 insertion;
        // "brown" -> "brwn": 1 deletion; "fox jumps" -> "foxjumps": 1 deletion.
        let clean = "the quick brown fox jumps over a lazy dog";
        let ocr = "tbe quiick brwn foxjumps over a lazy dog";
        let measured = accuracy(clean, ocr);
        assert_eq!(measured.char_errors, 4);
        assert_eq!(measured.clean_chars, clean.len() as u64);
        let expected = 1.0 - 4.0 / clean.len() as f64;
        assert!((measured.char_accuracy - expected).abs() < 1e-12);
        assert_eq!(measured.matched_words, 4);
    }

    #[test]
    fn missing_and_inserted_words_count_with_their_spaces() {
        let clean = stemmata_synth::work_text(400, 2);
        let words: Vec<&str> = clean.split_whitespace().collect();
        let mut ocr_words = words.clone();
        ocr_words.remove(200); // one word missing
        ocr_words.insert(100, "zzzz"); // one word inserted
        let measured = accuracy(&clean, &ocr_words.join(" "));
        let missing = crate::text::normalise(words[200]).chars().count() as u64 + 1;
        assert_eq!(measured.char_errors, missing + 5);
    }

    #[test]
    fn an_empty_clean_text_is_an_error_and_an_empty_ocr_text_scores_zero() {
        assert!(ocr_accuracy("", "some words", &RetasOptions::default()).is_err());
        let measured = accuracy("some words here", "");
        assert_eq!(measured.char_accuracy, 0.0);
        assert_eq!(measured.word_accuracy, 0.0);
    }
}
