//! The word-level stages of RETAS: anchors (the LCS of the words unique in
//! both sides of a segment pair), the recursion into the segments between
//! anchors, and the word-level LCS of each leaf. The result is one monotone
//! list of matched word pairs.
//!
//! Which words match is a [`WordRelation`]: equal words ([`SameWord`]) for
//! RETAS, a word and its translations for RTA ([`super::super::rta`]). A
//! word of A stands for its keys (the words of B it can match); a key that
//! stands for one word of A's segment and occurs once in B's is unique in
//! both, and makes a candidate anchor.

use std::ops::Range;

use super::chain::ChainFinder;
use super::dp::{fill_table_by, trace_by, Step};
use super::{RetasOptions, RetasStats};

/// Matching words on each side of a candidate anchor that add to its
/// weight, at most.
const CONTEXT_WORDS: usize = 16;

/// A pair of word indexes (A, B).
type Pair = (u32, u32);

/// Which words of A (by vocabulary id) can match which words of B.
pub trait WordRelation {
    /// Calls `key` with every word of B that A's word `id` can match, each
    /// once.
    fn for_each_key(&self, id: u32, key: impl FnMut(u32));

    /// Whether A's word `a` can match B's word `b`.
    fn matches(&self, a: u32, b: u32) -> bool;
}

/// Equal words match (RETAS).
#[derive(Debug, Clone, Copy, Default)]
pub struct SameWord;

impl WordRelation for SameWord {
    fn for_each_key(&self, id: u32, mut key: impl FnMut(u32)) {
        key(id);
    }

    fn matches(&self, a: u32, b: u32) -> bool {
        a == b
    }
}

/// Two matching words, one of A and one of B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct WordMatch {
    /// Word index in A.
    pub a: u32,
    /// Word index in B.
    pub b: u32,
    /// Found as an anchor (a word unique in both sides of its segment
    /// pair) rather than by a leaf's LCS.
    pub anchor: bool,
}

/// A pair of corresponding segments: word ranges of A and B.
#[derive(Debug, Clone)]
struct Segment {
    a: Range<u32>,
    b: Range<u32>,
    depth: u32,
}

/// What the recursion still has to do, last item first.
#[derive(Debug)]
enum Work {
    Segment(Segment),
    Match(Pair),
}

/// The word-level stages over one pair of texts, with their buffers.
#[derive(Debug)]
pub struct WordAligner {
    options: RetasOptions,
    stats: RetasStats,
    /// Occurrences (saturating at 2) of each vocabulary id in the current
    /// segment of A and of B.
    count_a: Vec<u8>,
    count_b: Vec<u8>,
    /// Position in B of each id seen once in the current segment of B.
    position_b: Vec<u32>,
    /// (A index, B index) of the words unique in both sides.
    candidates: Vec<Pair>,
    /// Weight of each candidate.
    weights: Vec<u32>,
    chains: ChainFinder,
    anchors: Vec<Pair>,
    /// Leaf dynamic-programming table.
    table: Vec<u32>,
    work: Vec<Work>,
    matches: Vec<WordMatch>,
}

impl WordAligner {
    /// An aligner for texts over a vocabulary of `vocabulary_len` words.
    pub fn new(vocabulary_len: usize, options: &RetasOptions) -> Self {
        WordAligner {
            options: *options,
            stats: RetasStats::default(),
            count_a: vec![0; vocabulary_len],
            count_b: vec![0; vocabulary_len],
            position_b: vec![0; vocabulary_len],
            candidates: Vec::new(),
            weights: Vec::new(),
            chains: ChainFinder::default(),
            anchors: Vec::new(),
            table: Vec::new(),
            work: Vec::new(),
            matches: Vec::new(),
        }
    }

    /// Every matched word pair of the words `area_a` of `a` and `area_b`
    /// of `b`, in order: anchors found recursively, then the word-level LCS
    /// of each leaf. The counts of the recursion add up in [`Self::stats`]
    /// over the calls; its `anchors` are those of the last call's first
    /// level.
    pub fn matches(
        &mut self,
        a: &[u32],
        b: &[u32],
        area_a: Range<u32>,
        area_b: Range<u32>,
    ) -> Vec<WordMatch> {
        self.matches_by(&SameWord, a, b, area_a, area_b)
    }

    /// [`Self::matches`] with the words `relation` relates matching.
    pub fn matches_by(
        &mut self,
        relation: &impl WordRelation,
        a: &[u32],
        b: &[u32],
        area_a: Range<u32>,
        area_b: Range<u32>,
    ) -> Vec<WordMatch> {
        self.work.push(Work::Segment(Segment {
            a: area_a,
            b: area_b,
            depth: 0,
        }));
        while let Some(item) = self.work.pop() {
            match item {
                Work::Match((a, b)) => self.matches.push(WordMatch { a, b, anchor: true }),
                Work::Segment(segment) => self.split_or_align(relation, segment, a, b),
            }
        }
        std::mem::take(&mut self.matches)
    }

    /// The counts of the calls so far.
    pub fn stats(&self) -> RetasStats {
        self.stats
    }

    /// Splits `segment` at its anchors (pushing the parts on the work
    /// stack), or aligns it as a leaf.
    fn split_or_align(
        &mut self,
        relation: &impl WordRelation,
        segment: Segment,
        a: &[u32],
        b: &[u32],
    ) {
        if segment.a.is_empty() || segment.b.is_empty() {
            return;
        }
        self.stats.depth = self.stats.depth.max(segment.depth);
        let longer = segment.a.len().max(segment.b.len());
        let is_leaf =
            longer < self.options.leaf_words as usize || segment.depth >= self.options.max_depth;
        if !is_leaf {
            self.find_anchors(relation, &segment, a, b);
            if segment.depth == 0 {
                self.stats.anchors = self.anchors.len() as u32;
            }
        }
        if is_leaf || self.anchors.is_empty() {
            self.stats.leaves += 1;
            let (leaf_a, leaf_b) = (range_of(a, &segment.a), range_of(b, &segment.b));
            self.align_leaf(relation, &segment, leaf_a, leaf_b);
        } else {
            push_parts(&segment, &self.anchors, &mut self.work);
        }
    }

    /// The word-level LCS of a leaf whose words are `a` and `b`: its common
    /// prefix and suffix, and a dynamic-programming LCS of the middle when
    /// its table fits `max_dp_cells` (else the middle gets no match).
    fn align_leaf(
        &mut self,
        relation: &impl WordRelation,
        segment: &Segment,
        a: &[u32],
        b: &[u32],
    ) {
        let same = |x: &u32, y: &u32| relation.matches(*x, *y);
        let prefix = a.iter().zip(b).take_while(|(x, y)| same(x, y)).count();
        let (a_rest, b_rest) = (&a[prefix..], &b[prefix..]);
        let suffix = a_rest
            .iter()
            .rev()
            .zip(b_rest.iter().rev())
            .take_while(|(x, y)| same(x, y))
            .count();
        let (middle_a, middle_b) = (
            &a_rest[..a_rest.len() - suffix],
            &b_rest[..b_rest.len() - suffix],
        );
        let at = |i: usize, j: usize| WordMatch {
            a: segment.a.start + i as u32,
            b: segment.b.start + j as u32,
            anchor: false,
        };
        self.matches.extend((0..prefix).map(|k| at(k, k)));
        let cells = (middle_a.len() as u64 + 1) * (middle_b.len() as u64 + 1);
        if !middle_a.is_empty() && !middle_b.is_empty() && cells <= self.options.max_dp_cells {
            self.stats.dp_cells += cells;
            fill_table_by(middle_a, middle_b, same, &mut self.table);
            let matches = &mut self.matches;
            trace_by(middle_a, middle_b, same, &self.table, |step| {
                if let Step::Match(i, j) = step {
                    matches.push(at(prefix + i, prefix + j));
                }
            });
        }
        let (suffix_a, suffix_b) = (a.len() - suffix, b.len() - suffix);
        self.matches
            .extend((0..suffix).map(|k| at(suffix_a + k, suffix_b + k)));
    }

    /// Sets `self.anchors` to the heaviest chain (in order in both sides)
    /// of the keys unique in both sides of `segment`: a key of one word of
    /// A's segment that occurs once in B's.
    fn find_anchors(
        &mut self,
        relation: &impl WordRelation,
        segment: &Segment,
        a: &[u32],
        b: &[u32],
    ) {
        let (a_words, b_words) = (range_of(a, &segment.a), range_of(b, &segment.b));
        for &id in a_words {
            relation.for_each_key(id, |key| {
                let count = &mut self.count_a[key as usize];
                *count = count.saturating_add(1).min(2);
            });
        }
        for (j, &id) in (segment.b.start..).zip(b_words) {
            let count = &mut self.count_b[id as usize];
            *count = count.saturating_add(1).min(2);
            self.position_b[id as usize] = j;
        }
        self.candidates.clear();
        for (i, &id) in (segment.a.start..).zip(a_words) {
            let first = self.candidates.len();
            relation.for_each_key(id, |key| {
                let key = key as usize;
                if self.count_a[key] == 1 && self.count_b[key] == 1 {
                    self.candidates.push((i, self.position_b[key]));
                }
            });
            // The chain takes one word of A's candidates at most when they
            // come in descending order of B.
            self.candidates[first..].sort_unstable_by_key(|&(_, j)| std::cmp::Reverse(j));
        }
        for &id in a_words {
            relation.for_each_key(id, |key| self.count_a[key as usize] = 0);
        }
        for &id in b_words {
            self.count_b[id as usize] = 0;
        }
        self.weigh_candidates(relation, segment, a, b);
        self.chains
            .heaviest(&self.candidates, &self.weights, &mut self.anchors);
    }

    /// Weighs each candidate by the words around it that match too (up to
    /// [`CONTEXT_WORDS`] on each side, within the segment): an anchor
    /// inside a common passage outweighs one that only shares its word.
    fn weigh_candidates(
        &mut self,
        relation: &impl WordRelation,
        segment: &Segment,
        a: &[u32],
        b: &[u32],
    ) {
        self.weights.clear();
        for &(i, j) in &self.candidates {
            let (i, j) = (i as usize, j as usize);
            let before = (1..=CONTEXT_WORDS)
                .take_while(|&k| {
                    i >= segment.a.start as usize + k
                        && j >= segment.b.start as usize + k
                        && relation.matches(a[i - k], b[j - k])
                })
                .count();
            let after = (1..=CONTEXT_WORDS)
                .take_while(|&k| {
                    i + k < segment.a.end as usize
                        && j + k < segment.b.end as usize
                        && relation.matches(a[i + k], b[j + k])
                })
                .count();
            self.weights.push(1 + before as u32 + after as u32);
        }
    }
}

fn range_of<'t>(words: &'t [u32], range: &Range<u32>) -> &'t [u32] {
    &words[range.start as usize..range.end as usize]
}

/// Pushes the parts of `segment` cut at `anchors` on `work` so that they
/// pop in text order: the segment before each anchor, the anchor, ..., the
/// segment after the last anchor.
fn push_parts(segment: &Segment, anchors: &[Pair], work: &mut Vec<Work>) {
    let depth = segment.depth + 1;
    let mut end = (segment.a.end, segment.b.end);
    for &(i, j) in anchors.iter().rev() {
        work.push(Work::Segment(Segment {
            a: i + 1..end.0,
            b: j + 1..end.1,
            depth,
        }));
        work.push(Work::Match((i, j)));
        end = (i, j);
    }
    work.push(Work::Segment(Segment {
        a: segment.a.start..end.0,
        b: segment.b.start..end.1,
        depth,
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn matches_of(a: &[u32], b: &[u32], options: &RetasOptions) -> Vec<Pair> {
        let vocabulary = a.iter().chain(b).max().map_or(0, |&m| m as usize + 1);
        let (area_a, area_b) = (0..a.len() as u32, 0..b.len() as u32);
        let found = WordAligner::new(vocabulary, options).matches(a, b, area_a, area_b);
        found.iter().map(|m| (m.a, m.b)).collect()
    }

    #[test]
    fn anchors_are_the_heaviest_chain_of_words_unique_in_both() {
        let mut aligner = WordAligner::new(10, &RetasOptions::default());
        // 1 and 2 are unique in both but cross; 3 is unique in both; 0 repeats.
        let a = [0, 1, 0, 2, 3];
        let b = [2, 0, 1, 3, 0];
        let segment = Segment {
            a: 0..5,
            b: 0..5,
            depth: 0,
        };
        aligner.find_anchors(&SameWord, &segment, &a, &b);
        // 1 at (1, 2) has a matching word before it: weight 2 against 1.
        assert_eq!(aligner.anchors, [(1, 2), (4, 3)]);
        assert!(aligner
            .count_a
            .iter()
            .chain(&aligner.count_b)
            .all(|&c| c == 0));
    }

    #[test]
    fn recursion_finds_words_unique_only_within_a_segment() {
        // Word 5 occurs twice in each text (not an anchor at the top), but
        // once in each segment between the anchors 100 and 101.
        let a: Vec<u32> = vec![5, 7, 100, 5, 7, 101, 8];
        let b: Vec<u32> = vec![5, 9, 100, 9, 5, 101, 8];
        let options = RetasOptions {
            leaf_words: 2,
            ..RetasOptions::default()
        };
        let found = matches_of(&a, &b, &options);
        assert_eq!(found, [(0, 0), (2, 2), (3, 4), (5, 5), (6, 6)]);
    }

    #[test]
    fn a_leaf_over_the_cell_cap_keeps_only_its_common_prefix_and_suffix() {
        let a = [1, 2, 3, 4, 5, 6];
        let b = [1, 9, 3, 4, 8, 6];
        let capped = RetasOptions {
            max_dp_cells: 4,
            ..RetasOptions::default()
        };
        assert_eq!(matches_of(&a, &b, &capped), [(0, 0), (5, 5)]);
        let found = matches_of(&a, &b, &RetasOptions::default());
        assert_eq!(found, [(0, 0), (2, 2), (3, 3), (5, 5)]);
    }

    #[test]
    fn matches_say_whether_they_are_anchors() {
        let (a, b) = ([1, 2, 3, 1], [1, 2, 3, 1]);
        let options = RetasOptions {
            leaf_words: 3,
            ..RetasOptions::default()
        };
        let mut aligner = WordAligner::new(4, &options);
        let found = aligner.matches(&a, &b, 0..4, 0..4);
        let stats = aligner.stats();
        let anchors: Vec<bool> = found.iter().map(|m| m.anchor).collect();
        // 2 and 3 are unique; the 1s are matched by the leaves around them.
        assert_eq!(anchors, [false, true, true, false]);
        assert_eq!((stats.anchors, stats.leaves), (2, 2));
    }

    proptest! {
        #[test]
        fn recursive_matches_are_monotone_equal_words(
            a in prop::collection::vec(0u32..30, 0..300),
            b in prop::collection::vec(0u32..30, 0..300),
            leaf_words in 1u32..50,
        ) {
            let options = RetasOptions { leaf_words, ..RetasOptions::default() };
            let found = matches_of(&a, &b, &options);
            for w in found.windows(2) {
                prop_assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1);
            }
            for &(i, j) in &found {
                prop_assert_eq!(a[i as usize], b[j as usize]);
            }
        }
    }
}
