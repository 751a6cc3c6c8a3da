//! Passage mapping between a text and its translation, against known
//! correspondences: P@1 of RTA's mapping ([`stemmata::translate::rta`])
//! and of the IBM Model 1 baseline (thesis 6.2.2), over the same
//! dictionary and the same candidate passages.
//!
//! **Truth.** Query passages of A (byte ranges) and as many candidate
//! passages of B, query k corresponding to candidate k: the passages
//! between corresponding points ([`tiles`]), or the start of each chapter
//! (module `headings`). Every query is ranked against every candidate.
//!
//! **RTA** maps each passage of A into B ([`TranslationAlignment::map_passage`])
//! and picks the candidate its stretch overlaps most; a passage without
//! a match gets no answer (a miss).
//!
//! **IBM Model 1** ranks the candidates t by Pr(t|q) = ε/(l+1)^m
//! ∏_j Σ_i Pr(t_j|q_i) (equation 6.3) with Pr(t|q) uniform over q's
//! translations (q itself when it has none, as RTA takes it) and smoothed
//! as equation 6.4, with λ = [`IBM1_LAMBDA`] and Pr(t) = 1/|V_t|. Its
//! product has a factor below 1 per word of t, so it prefers short
//! candidates whatever they say; the baseline is reported as the thesis
//! defines it and, the stronger one, per word of t (the m-th root of the
//! product, the geometric mean of the factors).
//!
//! A pick is **near** when it is the true passage or one next to it (the
//! thesis's proximity k = 1).

use std::collections::HashMap;
use std::ops::Range;

use serde::Serialize;
use stemmata::align::RetasOptions;
use stemmata::text::{tokenise_spans, Token};
use stemmata::translate::lexicon::Lexicon;
use stemmata::translate::rta::{align_translation, TranslationAlignment};
use stemmata::Result;

/// λ of the IBM Model 1 smoothing (equation 6.4), "a small value".
pub const IBM1_LAMBDA: f64 = 0.05;

/// Query passages of A and candidate passages of B (byte ranges), query k
/// corresponding to candidate k.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Correspondences {
    /// Passages of A.
    pub queries: Vec<Range<usize>>,
    /// Passages of B, as many.
    pub candidates: Vec<Range<usize>>,
}

/// Counts of one pair or of many.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PassageScores {
    /// Passages of A queried.
    pub queries: u64,
    /// RTA picked the true passage.
    pub rta_hits: u64,
    /// RTA picked it or one next to it.
    pub rta_near: u64,
    /// IBM Model 1 picked the true passage.
    pub ibm1_hits: u64,
    /// IBM Model 1 picked it or one next to it.
    pub ibm1_near: u64,
    /// IBM Model 1 per word of t picked the true passage.
    pub ibm1_per_word_hits: u64,
    /// IBM Model 1 per word of t picked it or one next to it.
    pub ibm1_per_word_near: u64,
    /// Seconds RTA took (tokenising included).
    pub rta_seconds: f64,
}

impl PassageScores {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &PassageScores) {
        self.queries += other.queries;
        self.rta_hits += other.rta_hits;
        self.rta_near += other.rta_near;
        self.ibm1_hits += other.ibm1_hits;
        self.ibm1_near += other.ibm1_near;
        self.ibm1_per_word_hits += other.ibm1_per_word_hits;
        self.ibm1_per_word_near += other.ibm1_per_word_near;
        self.rta_seconds += other.rta_seconds;
    }

    /// P@1 of RTA, IBM Model 1 and IBM Model 1 per word.
    pub fn p_at_1(&self) -> [f64; 3] {
        [self.rta_hits, self.ibm1_hits, self.ibm1_per_word_hits].map(|h| self.share(h))
    }

    /// The same, a pick next to the true passage counted right.
    pub fn p_at_1_near(&self) -> [f64; 3] {
        [self.rta_near, self.ibm1_near, self.ibm1_per_word_near].map(|h| self.share(h))
    }

    fn share(&self, hits: u64) -> f64 {
        hits as f64 / self.queries.max(1) as f64
    }
}

/// Byte offsets of the whitespace-separated words of `text`, as the
/// generated sets count words.
pub fn whitespace_word_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut previous_space = true;
    for (at, c) in text.char_indices() {
        let space = c.is_whitespace();
        if !space && previous_space {
            starts.push(at);
        }
        previous_space = space;
    }
    starts
}

/// The passages of a text cut at `points` (byte offsets, increasing): the
/// k-th from point k to point k + 1, the last to `len`.
pub fn tiles(points: &[usize], len: usize) -> Vec<Range<usize>> {
    let ends = points.iter().skip(1).copied().chain([len]);
    points.iter().zip(ends).map(|(&s, e)| s..e.max(s)).collect()
}

/// Scores RTA and IBM Model 1 on one pair: `a` translated as `b`, query
/// passage k of A corresponding to candidate passage k of B (see the
/// module docs), `lexicon` translating from A's language into B's.
pub fn score_pair(
    a: &str,
    b: &str,
    truth: &Correspondences,
    lexicon: &Lexicon,
) -> Result<PassageScores> {
    let (queries, candidates) = (&truth.queries, &truth.candidates);
    let started = std::time::Instant::now();
    let alignment = align_translation(a, b, lexicon, &RetasOptions::translations())?;
    let rta_seconds = started.elapsed().as_secs_f64();
    let ibm1 = Ibm1::new(b, candidates, lexicon);
    let mut scores = PassageScores {
        rta_seconds,
        ..PassageScores::default()
    };
    for (k, query) in queries.iter().enumerate() {
        if query.is_empty() || candidates[k].is_empty() {
            continue;
        }
        scores.queries += 1;
        let judge = |pick: Option<usize>| match pick {
            Some(p) => (u64::from(p == k), u64::from(p.abs_diff(k) <= 1)),
            None => (0, 0),
        };
        let (hit, near) = judge(rta_pick(&alignment, query, candidates));
        scores.rta_hits += hit;
        scores.rta_near += near;
        let [product, per_word] = ibm1.picks(&a[query.clone()]);
        let (hit, near) = judge(product);
        scores.ibm1_hits += hit;
        scores.ibm1_near += near;
        let (hit, near) = judge(per_word);
        scores.ibm1_per_word_hits += hit;
        scores.ibm1_per_word_near += near;
    }
    Ok(scores)
}

/// The candidate RTA's stretch for `query` (bytes of A) overlaps most;
/// `None` when the passage has no match or its stretch overlaps none.
fn rta_pick(
    alignment: &TranslationAlignment,
    query: &Range<usize>,
    candidates: &[Range<usize>],
) -> Option<usize> {
    let mapped = alignment.map_passage(alignment.a_words_in(query.clone()));
    let b = mapped.b_bytes?;
    let overlap = |c: &Range<usize>| c.end.min(b.end).saturating_sub(c.start.max(b.start));
    let (best, size) = candidates
        .iter()
        .enumerate()
        .map(|(k, c)| (k, overlap(c)))
        .max_by_key(|&(k, size)| (size, std::cmp::Reverse(k)))?;
    (size > 0).then_some(best)
}

/// IBM Model 1 over the candidate passages of B.
struct Ibm1<'l> {
    lexicon: &'l Lexicon,
    /// Each candidate's words (hashes).
    candidates: Vec<Vec<u32>>,
    /// Pr(t) = 1/|V_t|: one over B's distinct words.
    background: f64,
}

impl<'l> Ibm1<'l> {
    fn new(b: &str, candidates: &[Range<usize>], lexicon: &'l Lexicon) -> Self {
        let candidates: Vec<Vec<u32>> = candidates
            .iter()
            .map(|range| words(&b[range.clone()], lexicon))
            .collect();
        let mut vocabulary: Vec<u32> = candidates.iter().flatten().copied().collect();
        vocabulary.sort_unstable();
        vocabulary.dedup();
        Ibm1 {
            lexicon,
            candidates,
            background: 1.0 / vocabulary.len().max(1) as f64,
        }
    }

    /// The candidates of highest Pr(t|q) and of highest Pr(t|q) per word
    /// of t for the passage `query` (the first of equal ones); `None` for
    /// a query without words.
    fn picks(&self, query: &str) -> [Option<usize>; 2] {
        let query = words(query, self.lexicon);
        if query.is_empty() {
            return [None, None];
        }
        // Σ_i Pr(t|q_i) for every t some q_i translates to.
        let mut sums: HashMap<u32, f64> = HashMap::new();
        for &q in &query {
            let translations = match self.lexicon.translations(q) {
                [] => std::slice::from_ref(&q),
                some => some,
            };
            let each = 1.0 / translations.len() as f64;
            for &t in translations {
                *sums.entry(t).or_default() += each;
            }
        }
        let l = query.len() as f64 + 1.0;
        let factor = |t: &u32| {
            let sum = sums.get(t).copied().unwrap_or(0.0);
            ((1.0 - IBM1_LAMBDA) * sum / l + IBM1_LAMBDA * self.background).ln()
        };
        let scored: Vec<(usize, f64, f64)> = self
            .candidates
            .iter()
            .enumerate()
            .filter(|(_, words)| !words.is_empty())
            .map(|(k, words)| {
                let log = words.iter().map(factor).sum::<f64>();
                (k, log, log / words.len() as f64)
            })
            .collect();
        let best = |value: fn(&(usize, f64, f64)) -> f64| {
            scored
                .iter()
                .fold(None, |best: Option<(usize, f64)>, s| match best {
                    Some((_, b)) if b >= value(s) => best,
                    _ => Some((s.0, value(s))),
                })
                .map(|(k, _)| k)
        };
        [best(|s| s.1), best(|s| s.2)]
    }
}

/// The normalised words of `text`, hashed as the lexicon hashes them.
fn words(text: &str, lexicon: &Lexicon) -> Vec<u32> {
    let mut out = Vec::new();
    tokenise_spans(text, |token, _| {
        if let Token::Word(word) = token {
            out.push(lexicon.hash(word));
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use stemmata::translate::dictionary::Dictionary;

    fn lexicon(pairs: &[(&str, &str)]) -> Lexicon {
        let d = Dictionary::from_word_pairs("test", "eng", "deu", pairs).unwrap();
        Lexicon::build(&[&d], "eng", "deu", 0)
    }

    #[test]
    fn whitespace_words_start_after_white_space() {
        assert_eq!(whitespace_word_starts("  ab c\n\nd-e "), [2, 5, 8]);
        assert!(whitespace_word_starts("").is_empty());
    }

    #[test]
    fn both_methods_find_passages_a_dictionary_joins() {
        let lexicon = lexicon(&[
            ("cat", "katze"),
            ("dog", "hund"),
            ("house", "haus"),
            ("tree", "baum"),
            ("river", "fluss"),
            ("bird", "vogel"),
        ]);
        let a = "cat dog house. tree river bird. house cat dog.";
        let b = "katze hund haus. baum fluss vogel. haus katze hund.";
        let truth = Correspondences {
            queries: tiles(&[0, 15, 32], a.len()),
            candidates: tiles(&[0, 17, 35], b.len()),
        };
        let scores = score_pair(a, b, &truth, &lexicon).unwrap();
        assert_eq!(scores.queries, 3);
        assert_eq!(scores.rta_hits, 3);
        // The first and last passages hold the same words: a bag of words
        // cannot tell them apart, and takes the first.
        assert_eq!(scores.ibm1_hits, 2);
        assert_eq!(scores.p_at_1_near(), [1.0, 2.0 / 3.0, 2.0 / 3.0]);
    }
}
