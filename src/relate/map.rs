//! Portion maps (thesis 4.3): which parts of two books match.
//!
//! Both books are cut into bins of [`MapOptions::bin_words`] words (200 by
//! default; the last bin of a book may be shorter). An alignment marks words
//! of each book as aligned; a bin's *share* is its aligned eligible words
//! divided by its eligible words, and the bin *matches* when its share is at
//! least [`MapOptions::min_share`] (50% by default).
//!
//! Which words are *eligible* is the one thing that differs between inputs:
//! - a full-text alignment (RETAS) can align any word, so every word is
//!   eligible ([`Eligible::AllWords`]) and the share is the thesis's share of
//!   aligned words;
//! - an alignment of unique-word sequences can only align words that are
//!   unique in both books, so only their positions are eligible
//!   ([`Eligible::Positions`]); [`PortionMap::from_unique_words`] builds this
//!   map from two sequences.
//!
//! The alignment is given as pairs of word ranges (a range in book A, a range
//! in book B), increasing in A and not overlapping on either side: the shape
//! of a full-text aligner's matched runs, and of single matched words
//! (`p..p + 1, q..q + 1`). The ranges in B usually increase too; those of a
//! passage moved between the books go back or ahead.
//!
//! **Regions** join matched bins of A to matched bins of B. Each range pair
//! is cut where either side crosses a bin boundary (the two ranges are
//! mapped onto each other linearly, so unequal lengths are allowed); every
//! piece links one bin of A to one bin of B. A region is a maximal run of
//! consecutive pieces whose two bins both match and where each piece's bins
//! are the previous piece's bins or the next ones: so a region covers
//! contiguous matched bins on both sides, and pieces in unmatched bins are
//! left out.

use std::ops::Range;

use serde::Serialize;

use crate::align::SequenceIndex;
use crate::error::{Error, Result};
use crate::repr::UniqueWordSeq;

/// Default words per bin (thesis: 200).
pub const DEFAULT_BIN_WORDS: u32 = 200;
/// Default share of a bin's eligible words that must be aligned for the bin
/// to match (thesis: 50%).
pub const DEFAULT_MIN_SHARE: f64 = 0.5;

/// How books are binned and when a bin matches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MapOptions {
    /// Words per bin. Default [`DEFAULT_BIN_WORDS`] (200); at least 1.
    pub bin_words: u32,
    /// A bin matches when at least this share of its eligible words is
    /// aligned. Default [`DEFAULT_MIN_SHARE`] (0.5); valid 0.0..=1.0 (a bin
    /// without eligible words never matches).
    pub min_share: f64,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            bin_words: DEFAULT_BIN_WORDS,
            min_share: DEFAULT_MIN_SHARE,
        }
    }
}

impl MapOptions {
    /// The portion map of a translation (thesis 6.3): 100-word bins,
    /// matched when a tenth of their words correspond.
    pub fn translations() -> Self {
        MapOptions {
            bin_words: 100,
            min_share: 0.1,
        }
    }

    /// Checks that every field is in its valid range.
    pub fn validate(&self) -> Result<()> {
        if self.bin_words == 0 {
            return Err(Error::InvalidArgument(
                "map bin_words must be at least 1".to_string(),
            ));
        }
        if !(0.0..=1.0).contains(&self.min_share) {
            return Err(Error::InvalidArgument(format!(
                "map min_share {} is outside 0..=1",
                self.min_share
            )));
        }
        Ok(())
    }
}

/// Which words of a book count towards its bins' shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eligible<'a> {
    /// Every word: the input is a full-text alignment.
    AllWords,
    /// Only these word positions, strictly increasing and below the book's
    /// word count: e.g. the words unique in both books.
    Positions(&'a [u32]),
}

/// One book as a map sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapBook<'a> {
    /// Words in the book.
    pub words: u32,
    /// Which of them can be aligned.
    pub eligible: Eligible<'a>,
}

impl<'a> MapBook<'a> {
    /// A book of `words` words, every one of them eligible.
    pub fn full_text(words: u32) -> Self {
        MapBook {
            words,
            eligible: Eligible::AllWords,
        }
    }

    /// A book of `words` words of which only `positions` are eligible.
    pub fn sparse(words: u32, positions: &'a [u32]) -> Self {
        MapBook {
            words,
            eligible: Eligible::Positions(positions),
        }
    }

    fn validate(&self, side: &str) -> Result<()> {
        let Eligible::Positions(positions) = self.eligible else {
            return Ok(());
        };
        let increasing = positions.windows(2).all(|w| w[0] < w[1]);
        let in_book = positions.last().is_none_or(|&p| p < self.words);
        if increasing && in_book {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "book {side}: eligible positions must be strictly increasing and below its {} words",
                self.words
            )))
        }
    }

    /// Adds 1 to `slot(bin)` for every eligible word in `range`.
    fn count_eligible(
        &self,
        range: Range<u32>,
        bin_words: u32,
        bins: &mut [Bin],
        slot: fn(&mut Bin) -> &mut u32,
    ) {
        match self.eligible {
            Eligible::AllWords => {
                let mut start = range.start;
                while start < range.end {
                    let bin = start / bin_words;
                    let bin_end = (u64::from(bin) + 1) * u64::from(bin_words);
                    let end = bin_end.min(u64::from(range.end)) as u32;
                    *slot(&mut bins[bin as usize]) += end - start;
                    start = end;
                }
            }
            Eligible::Positions(positions) => {
                let first = positions.partition_point(|&p| p < range.start);
                for &p in positions[first..].iter().take_while(|&&p| p < range.end) {
                    *slot(&mut bins[(p / bin_words) as usize]) += 1;
                }
            }
        }
    }
}

/// One bin of a book.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bin {
    /// The bin's words (positions in the book).
    pub words: Range<u32>,
    /// Eligible words in the bin.
    pub eligible: u32,
    /// Aligned eligible words in the bin.
    pub aligned: u32,
    /// `aligned / eligible`, 0.0 for a bin without eligible words.
    pub share: f64,
    /// The share reached [`MapOptions::min_share`] (and the bin has an
    /// eligible word).
    pub matched: bool,
}

/// One book's bins.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookMap {
    /// Words in the book.
    pub words: u32,
    /// Words in matched bins.
    pub matched_words: u32,
    /// `matched_words / words` (0.0 for a book without words).
    pub coverage: f64,
    /// The bins, in book order.
    pub bins: Vec<Bin>,
}

impl BookMap {
    fn new(book: &MapBook, bin_words: u32) -> Self {
        let count = book.words.div_ceil(bin_words);
        let mut bins: Vec<Bin> = (0..count)
            .map(|i| Bin {
                words: i * bin_words
                    ..((u64::from(i) + 1) * u64::from(bin_words)).min(u64::from(book.words)) as u32,
                eligible: 0,
                aligned: 0,
                share: 0.0,
                matched: false,
            })
            .collect();
        book.count_eligible(0..book.words, bin_words, &mut bins, |b| &mut b.eligible);
        BookMap {
            words: book.words,
            matched_words: 0,
            coverage: 0.0,
            bins,
        }
    }

    fn judge(&mut self, min_share: f64) {
        for bin in &mut self.bins {
            if bin.eligible > 0 {
                bin.share = f64::from(bin.aligned) / f64::from(bin.eligible);
                bin.matched = bin.share >= min_share;
            }
        }
        self.matched_words = self
            .bins
            .iter()
            .filter(|b| b.matched)
            .map(|b| b.words.len() as u32)
            .sum();
        if self.words > 0 {
            self.coverage = f64::from(self.matched_words) / f64::from(self.words);
        }
    }

    /// Words from the start of the first matched bin to the end of the last
    /// one, or `None` when no bin matched.
    pub fn matched_span(&self) -> Option<Range<u32>> {
        let first = self.bins.iter().find(|b| b.matched)?;
        let last = self.bins.iter().rev().find(|b| b.matched)?;
        Some(first.words.start..last.words.end)
    }
}

/// Matched bins of A joined to matched bins of B (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Region {
    /// Bins of A (indices into [`BookMap::bins`]).
    pub a_bins: Range<u32>,
    /// Bins of B.
    pub b_bins: Range<u32>,
    /// The words of those bins of A.
    pub a_words: Range<u32>,
    /// The words of those bins of B.
    pub b_words: Range<u32>,
}

/// Which portions of two books match: both books' bins and the regions
/// joining them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortionMap {
    /// The options the map was built with.
    pub options: MapOptions,
    /// Book A.
    pub a: BookMap,
    /// Book B.
    pub b: BookMap,
    /// Matched regions, in book order.
    pub regions: Vec<Region>,
}

impl PortionMap {
    /// The map of an alignment of books `a` and `b`: `aligned` gives pairs of
    /// word ranges (in A, in B), increasing in A, not overlapping on each side,
    /// within each book's words. `InvalidArgument` when the options, the
    /// eligible positions or the ranges break these rules.
    pub fn build(
        a: MapBook,
        b: MapBook,
        aligned: impl IntoIterator<Item = (Range<u32>, Range<u32>)>,
        options: &MapOptions,
    ) -> Result<PortionMap> {
        options.validate()?;
        a.validate("A")?;
        b.validate("B")?;
        let pairs = checked_pairs(aligned, a.words, b.words)?;
        let mut map_a = BookMap::new(&a, options.bin_words);
        let mut map_b = BookMap::new(&b, options.bin_words);
        for (ra, rb) in &pairs {
            a.count_eligible(ra.clone(), options.bin_words, &mut map_a.bins, |b| {
                &mut b.aligned
            });
            b.count_eligible(rb.clone(), options.bin_words, &mut map_b.bins, |b| {
                &mut b.aligned
            });
        }
        map_a.judge(options.min_share);
        map_b.judge(options.min_share);
        let regions = regions(&pairs, &map_a, &map_b, options.bin_words);
        Ok(PortionMap {
            options: *options,
            a: map_a,
            b: map_b,
            regions,
        })
    }

    /// The sparse map of two books from their unique-word sequences: the
    /// eligible words are those unique in both books, the aligned ones those
    /// of the LCS of the two sequences. `a_words` and `b_words` are the
    /// books' word counts.
    pub fn from_unique_words(
        a: &UniqueWordSeq,
        a_words: u32,
        b: &UniqueWordSeq,
        b_words: u32,
        options: &MapOptions,
    ) -> Result<PortionMap> {
        Self::from_parts(
            std::slice::from_ref(a),
            a_words,
            std::slice::from_ref(b),
            b_words,
            options,
        )
    }

    /// [`from_unique_words`](Self::from_unique_words) for books stored as
    /// parts (a volume's overlapping parts, each with its own sequence): the
    /// eligible words of A are those of its parts' sequences that some part
    /// of B holds (and the other way round), the aligned ones those of
    /// [`matched_positions_of_parts`].
    pub fn from_parts(
        a: &[UniqueWordSeq],
        a_words: u32,
        b: &[UniqueWordSeq],
        b_words: u32,
        options: &MapOptions,
    ) -> Result<PortionMap> {
        let matched = matched_positions_of_parts(a, b);
        let shared = |parts: &[UniqueWordSeq], other: &[UniqueWordSeq]| -> Vec<u32> {
            let other: std::collections::HashSet<u32> = other
                .iter()
                .flat_map(|p| p.hashes.iter().copied())
                .collect();
            let mut positions: Vec<u32> = parts
                .iter()
                .flat_map(|p| p.hashes.iter().zip(&p.positions))
                .filter(|(h, _)| other.contains(h))
                .map(|(_, &p)| p)
                .collect();
            positions.sort_unstable();
            positions.dedup();
            positions
        };
        let (eligible_a, eligible_b) = (shared(a, b), shared(b, a));
        PortionMap::build(
            MapBook::sparse(a_words, &eligible_a),
            MapBook::sparse(b_words, &eligible_b),
            matched.into_iter().map(|(p, q)| (p..p + 1, q..q + 1)),
            options,
        )
    }
}

/// The word positions (in A, in B) of the elements of one LCS of two
/// unique-word sequences, increasing in both.
pub fn matched_positions(a: &UniqueWordSeq, b: &UniqueWordSeq) -> Vec<(u32, u32)> {
    positions_of(&SequenceIndex::new(&a.hashes).lcs_pairs(&b.hashes), a, b)
}

/// The word positions (in A, in B) of matched words of two books stored as
/// parts, increasing in both: the LCS of every pair of parts, gathered and
/// cut to their longest chain increasing in both books. For two books of
/// one part each, the LCS of their sequences ([`matched_positions`]).
pub fn matched_positions_of_parts(a: &[UniqueWordSeq], b: &[UniqueWordSeq]) -> Vec<(u32, u32)> {
    if let ([a], [b]) = (a, b) {
        return matched_positions(a, b);
    }
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for x in a {
        let index = SequenceIndex::new(&x.hashes);
        for y in b {
            pairs.extend(positions_of(&index.lcs_pairs(&y.hashes), x, y));
        }
    }
    // By A ascending and, for one position of A, by B descending: a chain
    // strictly increasing in B then takes at most one pair per position of A.
    pairs.sort_unstable_by(|p, q| p.0.cmp(&q.0).then(q.1.cmp(&p.1)));
    pairs.dedup();
    let in_b: Vec<u32> = pairs.iter().map(|p| p.1).collect();
    crate::align::lis_indices(&in_b)
        .into_iter()
        .map(|i| pairs[i as usize])
        .collect()
}

/// The word positions of element pairs (index in `a`, index in `b`).
fn positions_of(pairs: &[(u32, u32)], a: &UniqueWordSeq, b: &UniqueWordSeq) -> Vec<(u32, u32)> {
    pairs
        .iter()
        .filter_map(|&(i, j)| Some((*a.positions.get(i as usize)?, *b.positions.get(j as usize)?)))
        .collect()
}

/// Collects the range pairs, checking that they are in bounds, increasing
/// in A and not overlapping in A or in B.
fn checked_pairs(
    aligned: impl IntoIterator<Item = (Range<u32>, Range<u32>)>,
    a_words: u32,
    b_words: u32,
) -> Result<Vec<(Range<u32>, Range<u32>)>> {
    let mut pairs: Vec<(Range<u32>, Range<u32>)> = Vec::new();
    let mut a_end = 0;
    for (ra, rb) in aligned {
        let ordered = ra.start <= ra.end && rb.start <= rb.end;
        let in_books = ra.end <= a_words && rb.end <= b_words;
        if !(ordered && in_books && ra.start >= a_end) {
            return Err(Error::InvalidArgument(format!(
                "aligned ranges {ra:?} (A) and {rb:?} (B) must lie within the books ({a_words} and {b_words} words), in A after the previous pair (word {a_end})"
            )));
        }
        a_end = ra.end.max(a_end);
        pairs.push((ra, rb));
    }
    let mut in_b: Vec<&Range<u32>> = pairs.iter().map(|(_, rb)| rb).collect();
    in_b.sort_unstable_by_key(|rb| (rb.start, rb.end));
    if let Some(w) = in_b.windows(2).find(|w| w[0].end > w[1].start) {
        return Err(Error::InvalidArgument(format!(
            "aligned ranges {:?} and {:?} overlap in B",
            w[0], w[1]
        )));
    }
    Ok(pairs)
}

/// The regions of the range pairs (see the module docs).
fn regions(
    pairs: &[(Range<u32>, Range<u32>)],
    a: &BookMap,
    b: &BookMap,
    bin_words: u32,
) -> Vec<Region> {
    let mut regions: Vec<Region> = Vec::new();
    for (ra, rb) in pairs {
        for (bin_a, bin_b) in pieces(ra, rb, bin_words) {
            let matched =
                |map: &BookMap, bin: u32| map.bins.get(bin as usize).is_some_and(|b| b.matched);
            if !(matched(a, bin_a) && matched(b, bin_b)) {
                continue;
            }
            match regions.last_mut() {
                Some(last) if next_to(bin_a, &last.a_bins) && next_to(bin_b, &last.b_bins) => {
                    last.a_bins.end = last.a_bins.end.max(bin_a + 1);
                    last.b_bins.end = last.b_bins.end.max(bin_b + 1);
                }
                _ => regions.push(Region {
                    a_bins: bin_a..bin_a + 1,
                    b_bins: bin_b..bin_b + 1,
                    a_words: 0..0,
                    b_words: 0..0,
                }),
            }
        }
    }
    for region in &mut regions {
        region.a_words = bin_span(a, &region.a_bins);
        region.b_words = bin_span(b, &region.b_bins);
    }
    regions
}

/// Whether `bin` is the last of `bins` or the one after it.
fn next_to(bin: u32, bins: &Range<u32>) -> bool {
    bin + 1 >= bins.end && bin <= bins.end
}

/// The words of bins `bins` of `map`.
fn bin_span(map: &BookMap, bins: &Range<u32>) -> Range<u32> {
    let start = map
        .bins
        .get(bins.start as usize)
        .map_or(0, |b| b.words.start);
    let end = map
        .bins
        .get(bins.end.saturating_sub(1) as usize)
        .map_or(start, |b| b.words.end);
    start..end
}

/// The (bin of A, bin of B) of each piece of a range pair cut at the bin
/// boundaries of either side, the ranges mapped onto each other linearly.
/// Positions along the pair are counted in units of 1 / (|ra|·|rb|) so every
/// boundary is an integer.
fn pieces(ra: &Range<u32>, rb: &Range<u32>, bin_words: u32) -> Vec<(u32, u32)> {
    let (la, lb) = (u128::from(ra.end - ra.start), u128::from(rb.end - rb.start));
    let mut out = Vec::new();
    if la == 0 || lb == 0 {
        return out;
    }
    let (total, width) = (la * lb, u128::from(bin_words));
    let (start_a, start_b) = (u128::from(ra.start), u128::from(rb.start));
    let mut t = 0u128;
    while t < total {
        let bin_a = (start_a + t / lb) / width;
        let bin_b = (start_b + t / la) / width;
        out.push((bin_a as u32, bin_b as u32));
        let next_a = ((bin_a + 1) * width - start_a) * lb;
        let next_b = ((bin_b + 1) * width - start_b) * la;
        t = next_a.min(next_b).min(total);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(bin_words: u32) -> MapOptions {
        MapOptions {
            bin_words,
            ..MapOptions::default()
        }
    }

    fn matched(map: &BookMap) -> Vec<bool> {
        map.bins.iter().map(|b| b.matched).collect()
    }

    #[test]
    fn identical_books_match_every_bin_in_one_region() {
        let map = PortionMap::build(
            MapBook::full_text(1000),
            MapBook::full_text(1000),
            [(0..1000, 0..1000)],
            &MapOptions::default(),
        )
        .unwrap();
        assert_eq!(map.a.bins.len(), 5);
        assert!(map.a.bins.iter().all(|b| b.matched && b.share == 1.0));
        assert_eq!(map.a.coverage, 1.0);
        assert_eq!(
            map.regions,
            [Region {
                a_bins: 0..5,
                b_bins: 0..5,
                a_words: 0..1000,
                b_words: 0..1000
            }]
        );
    }

    #[test]
    fn a_bin_matches_from_half_its_words() {
        // A's bin 0 has 50 of 100 words aligned, bin 1 has 49.
        let map = PortionMap::build(
            MapBook::full_text(200),
            MapBook::full_text(99),
            [(0..50, 0..50), (100..149, 50..99)],
            &options(100),
        )
        .unwrap();
        assert_eq!(matched(&map.a), [true, false]);
        assert_eq!(map.a.bins[1].share, 0.49);
        assert_eq!(map.b.bins[0].words, 0..99);
        assert_eq!(map.a.matched_words, 100);
        assert_eq!(map.a.coverage, 0.5);
        assert_eq!(map.b.coverage, 1.0);
    }

    #[test]
    fn contained_book_maps_to_a_middle_region() {
        // B (300 words) is words 400..700 of A (1000 words).
        let map = PortionMap::build(
            MapBook::full_text(1000),
            MapBook::full_text(300),
            [(400..700, 0..300)],
            &options(100),
        )
        .unwrap();
        assert_eq!(
            matched(&map.a),
            [false, false, false, false, true, true, true, false, false, false]
        );
        assert_eq!(map.b.coverage, 1.0);
        assert_eq!(map.a.matched_span(), Some(400..700));
        assert_eq!(map.regions.len(), 1);
        assert_eq!(map.regions[0].a_bins, 4..7);
        assert_eq!(map.regions[0].b_bins, 0..3);
    }

    #[test]
    fn a_gap_splits_regions() {
        // Two stories shared in the same order, with unmatched text between.
        let map = PortionMap::build(
            MapBook::full_text(1000),
            MapBook::full_text(1000),
            [(0..200, 500..700), (600..800, 800..1000)],
            &options(100),
        )
        .unwrap();
        let bins: Vec<_> = map
            .regions
            .iter()
            .map(|r| (r.a_bins.clone(), r.b_bins.clone()))
            .collect();
        assert_eq!(bins, [(0..2, 5..7), (6..8, 8..10)]);
    }

    #[test]
    fn unequal_ranges_are_mapped_linearly() {
        // 200 words of A aligned to 100 words of B: A's bins 0 and 1 both
        // join B's bin 0.
        assert_eq!(pieces(&(0..200), &(0..100), 100), [(0, 0), (1, 0)]);
        assert_eq!(pieces(&(50..150), &(0..100), 100), [(0, 0), (1, 0)]);
        assert_eq!(
            pieces(&(50..150), &(30..130), 100),
            [(0, 0), (1, 0), (1, 1)]
        );
        assert!(pieces(&(5..5), &(0..10), 100).is_empty());
    }

    #[test]
    fn sparse_shares_count_only_eligible_positions() {
        // Bin 0 (words 0..100) has eligible words 10, 20, 30, 40; bin 1 has 150.
        let eligible = [10, 20, 30, 40, 150];
        let map = PortionMap::build(
            MapBook::sparse(200, &eligible),
            MapBook::full_text(200),
            [(10..11, 0..1), (30..31, 5..6), (150..151, 7..8)],
            &options(100),
        )
        .unwrap();
        assert_eq!(map.a.bins[0].eligible, 4);
        assert_eq!(map.a.bins[0].aligned, 2);
        assert_eq!(map.a.bins[0].share, 0.5);
        assert_eq!(matched(&map.a), [true, true]);
        assert_eq!(map.b.bins[0].aligned, 3);
    }

    #[test]
    fn a_bin_without_eligible_words_never_matches() {
        let map = PortionMap::build(
            MapBook::sparse(200, &[150]),
            MapBook::full_text(200),
            [(150..151, 150..151)],
            &MapOptions {
                bin_words: 100,
                min_share: 0.0,
            },
        )
        .unwrap();
        assert_eq!(matched(&map.a), [false, true]);
        assert_eq!(map.a.bins[0].share, 0.0);
    }

    #[test]
    fn unique_word_sequences_give_a_sparse_map() {
        let seq = |hashes: &[u32], positions: &[u32]| UniqueWordSeq {
            hashes: hashes.to_vec(),
            positions: positions.to_vec(),
        };
        // A's words 1, 3, 5 are unique in both books; 7 only in A.
        let a = seq(&[1, 3, 5, 7], &[10, 30, 50, 70]);
        let b = seq(&[5, 1, 3, 9], &[5, 15, 25, 35]);
        assert_eq!(matched_positions(&a, &b), [(10, 15), (30, 25)]);
        let map = PortionMap::from_unique_words(&a, 100, &b, 40, &options(20)).unwrap();
        let shares: Vec<(u32, u32)> = map.a.bins.iter().map(|b| (b.eligible, b.aligned)).collect();
        assert_eq!(shares, [(1, 1), (1, 1), (1, 0), (0, 0), (0, 0)]);
        assert_eq!(matched(&map.b), [true, true]);
    }

    #[test]
    fn a_moved_passage_is_a_region_of_its_own() {
        // A's words 400..600 are B's 1000..1200; the rest is in order.
        let aligned = [
            (0..400, 0..400),
            (400..600, 1000..1200),
            (600..1000, 400..800),
            (1000..1200, 800..1000),
        ];
        let map = PortionMap::build(
            MapBook::full_text(1200),
            MapBook::full_text(1200),
            aligned,
            &MapOptions::default(),
        )
        .unwrap();
        assert_eq!((map.a.coverage, map.b.coverage), (1.0, 1.0));
        let bins: Vec<(Range<u32>, Range<u32>)> = map
            .regions
            .iter()
            .map(|r| (r.a_bins.clone(), r.b_bins.clone()))
            .collect();
        assert_eq!(bins, [(0..2, 0..2), (2..3, 5..6), (3..6, 2..5)]);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let build =
            |aligned: Vec<(Range<u32>, Range<u32>)>, eligible: &[u32], options: MapOptions| {
                PortionMap::build(
                    MapBook::sparse(100, eligible),
                    MapBook::full_text(100),
                    aligned,
                    &options,
                )
            };
        let defaults = MapOptions::default();
        assert!(build(vec![(0..101, 0..10)], &[], defaults).is_err());
        assert!(build(vec![(10..20, 0..10), (15..30, 20..30)], &[], defaults).is_err());
        assert!(build(vec![(10..20, 50..60), (30..40, 55..70)], &[], defaults).is_err());
        assert!(build(vec![(30..40, 0..10), (10..20, 50..60)], &[], defaults).is_err());
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = vec![(20..10, 0..1)];
        assert!(build(reversed, &[], defaults).is_err());
        assert!(build(vec![], &[5, 5], defaults).is_err());
        assert!(build(vec![], &[100], defaults).is_err());
        assert!(build(
            vec![],
            &[],
            MapOptions {
                bin_words: 0,
                ..defaults
            }
        )
        .is_err());
        assert!(build(
            vec![],
            &[],
            MapOptions {
                min_share: 1.5,
                ..defaults
            }
        )
        .is_err());
        assert!(build(
            vec![],
            &[],
            MapOptions {
                min_share: f64::NAN,
                ..defaults
            }
        )
        .is_err());
    }

    #[test]
    fn empty_books_have_no_bins() {
        let map = PortionMap::build(
            MapBook::full_text(0),
            MapBook::full_text(0),
            [],
            &MapOptions::default(),
        )
        .unwrap();
        assert!(map.a.bins.is_empty() && map.regions.is_empty());
        assert_eq!(map.a.coverage, 0.0);
        assert_eq!(map.a.matched_span(), None);
    }

    #[test]
    fn huge_books_do_not_overflow() {
        let map = PortionMap::build(
            MapBook::full_text(u32::MAX),
            MapBook::full_text(u32::MAX),
            [(u32::MAX - 10..u32::MAX, u32::MAX - 10..u32::MAX)],
            &options(u32::MAX / 2),
        )
        .unwrap();
        assert_eq!(map.a.bins.len(), 3);
        assert_eq!(map.a.bins[2].words, u32::MAX - 1..u32::MAX);
    }
}
