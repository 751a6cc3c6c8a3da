//! Page signals of a pair of books (Google Books IV.B), from their page
//! min-hash signatures ([`crate::repr::page_signatures`], 34 min-hashes per
//! page).
//!
//! **Page similarities.** Two pages' similarity is the share of positions
//! where their signatures hold the same value ([`MinHashSig::similarity`]).
//! Only page pairs that share a (position, value) can be similar, so
//! [`page_similarities`] finds them through an inverted index of B's values
//! and counts the shared positions: exact, and proportional to the number of
//! collisions rather than to P1 × P2. Pages without words have similarity 0
//! with every page.
//!
//! **Matching pages** are mutual best matches: page i of A and page j of B
//! such that j is i's most similar page and i is j's (ties to the lower
//! page number), with similarity at least
//! [`PageOptions::min_page_similarity`].
//!
//! The signals, as the paper defines them:
//! - *book similarity*: the similarity of the two books' min-hash
//!   signatures ([`PagedBook::signature`]: a stored book's sketch, 100
//!   min-hashes of its 5-word shingles by default). Stored pages hold 16-bit
//!   codes of their values ([`crate::repr::minhash::page_codes`]), which compare but do
//!   not order, so a book's signature is not rebuilt from its pages;
//! - *page-based book similarity*: the mean similarity of the matching pages;
//! - *linear fit* `p2 = a·p1 + b` by least squares over the matching pages
//!   (page numbers from 0), and `Δpage_count = max(p2) − (a·max(p1) + b)`
//!   with max(p) the last page of each book;
//! - *relative consecutive page correlation*: with book 1 the denser book
//!   (fewer pages with words; A on a tie), the sum over all (i, j) with
//!   `sim(p_i, p_j) ≠ 0` and `sim(p_i, p_j+1) ≠ 0` of
//!   `sim(p_i, p_j) + sim(p_i, p_j+1)`, divided by book 1's page count.
//!
//! Also each book's *page coverage*: the share of its pages with words that
//! have a page of the other book at least `min_page_similarity` similar.

use std::collections::HashMap;

use serde::Serialize;

use super::side::Side;
use crate::error::{Error, Result};
use crate::repr::minhash::page_codes;
use crate::repr::{book_signature, page_signatures, MinHashOptions, MinHashSig};
use crate::text::PAGE_BREAK;

/// Default least similarity of matching pages.
pub const DEFAULT_MIN_PAGE_SIMILARITY: f64 = 0.1;

/// Settings of the page signals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageOptions {
    /// Least similarity of two matching pages, and of a page that counts as
    /// covered. Default [`DEFAULT_MIN_PAGE_SIMILARITY`] (0.1: 4 of 34
    /// min-hashes); valid 0.0..=1.0.
    pub min_page_similarity: f64,
}

impl Default for PageOptions {
    fn default() -> Self {
        PageOptions {
            min_page_similarity: DEFAULT_MIN_PAGE_SIMILARITY,
        }
    }
}

/// A book as its page signals see it.
#[derive(Debug, Clone, Copy)]
pub struct PagedBook<'a> {
    /// Its page signatures, in page order (stored ones are codes,
    /// [`crate::repr::minhash::page_codes`]; the two books' must be alike).
    pub pages: &'a [MinHashSig],
    /// Its book min-hash signature, made with the other book's options.
    pub signature: &'a MinHashSig,
}

/// A book's pages and signature, owned: what [`PagedBook`] views.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OwnedPagedBook {
    /// The page signatures (codes).
    pub pages: Vec<MinHashSig>,
    /// The book signature.
    pub signature: MinHashSig,
}

impl OwnedPagedBook {
    /// The pages and signature of `text` as an index with the default
    /// options would store them: its page signatures reduced to codes
    /// ([`crate::repr::minhash::page_codes`]) and its book signature; none
    /// of either without a page break (a book without pages is not
    /// classified by them).
    pub fn of_text(text: &str) -> OwnedPagedBook {
        if !text.contains(PAGE_BREAK) {
            return OwnedPagedBook::default();
        }
        OwnedPagedBook {
            pages: page_signatures(text, &MinHashOptions::pages())
                .iter()
                .map(page_codes)
                .collect(),
            signature: book_signature(text, &MinHashOptions::default()),
        }
    }

    /// The view the page signals take.
    pub fn view(&self) -> PagedBook<'_> {
        PagedBook {
            pages: &self.pages,
            signature: &self.signature,
        }
    }
}

/// Two pages and their similarity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PagePair {
    /// Page of A (from 0).
    pub a: u32,
    /// Page of B.
    pub b: u32,
    /// Their signatures' similarity, above 0.
    pub similarity: f64,
}

/// The linear fit `p2 = slope·p1 + offset` over the matching pages.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LinearFit {
    /// a.
    pub slope: f64,
    /// b.
    pub offset: f64,
    /// `max(p2) − (a·max(p1) + b)`.
    pub delta_page_count: f64,
    /// `(|b| + |Δpage_count|) / max(page counts)`: the share of the longer
    /// book outside the fitted image of the other.
    pub unexplained_share: f64,
}

/// The page signals of a pair (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageSignals {
    /// Pages of A.
    pub pages_a: u32,
    /// Pages of B.
    pub pages_b: u32,
    /// Book similarity.
    pub book_similarity: f64,
    /// Page-based book similarity: mean similarity of the matching pages.
    pub page_based_similarity: f64,
    /// Matching page pairs.
    pub matched_pages: u32,
    /// Share of A's pages with words that have a similar page in B.
    pub coverage_a: f64,
    /// Share of B's pages with words that have a similar page in A.
    pub coverage_b: f64,
    /// The linear fit; `None` with fewer than two matching pages.
    pub fit: Option<LinearFit>,
    /// Relative consecutive page correlation.
    pub consecutive_correlation: f64,
    /// The denser book (book 1 of the consecutive page correlation).
    pub denser: Side,
}

/// Every pair of pages (page of A, page of B) with similarity above 0,
/// sorted by page of A, then page of B. `InvalidArgument` when the
/// signatures differ in length.
pub fn page_similarities(a: &[MinHashSig], b: &[MinHashSig]) -> Result<Vec<PagePair>> {
    let k = same_length(a.iter().chain(b))?;
    let mut index: HashMap<(u32, u64), Vec<u32>> = HashMap::new();
    for (page, sig) in b.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
        for (position, &value) in sig.0.iter().enumerate() {
            index
                .entry((position as u32, value))
                .or_default()
                .push(page as u32);
        }
    }
    let mut counts = vec![0u32; b.len()];
    let mut touched: Vec<u32> = Vec::new();
    let mut pairs = Vec::new();
    for (page_a, sig) in a.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
        for (position, &value) in sig.0.iter().enumerate() {
            for &page_b in index.get(&(position as u32, value)).into_iter().flatten() {
                if counts[page_b as usize] == 0 {
                    touched.push(page_b);
                }
                counts[page_b as usize] += 1;
            }
        }
        touched.sort_unstable();
        for page_b in touched.drain(..) {
            let equal = std::mem::take(&mut counts[page_b as usize]);
            pairs.push(PagePair {
                a: page_a as u32,
                b: page_b,
                similarity: f64::from(equal) / k as f64,
            });
        }
    }
    Ok(pairs)
}

/// The common length of the signatures; `InvalidArgument` when they differ.
fn same_length<'s>(mut signatures: impl Iterator<Item = &'s MinHashSig>) -> Result<usize> {
    let Some(first) = signatures.next() else {
        return Ok(0);
    };
    let k = first.0.len();
    match signatures.find(|s| s.0.len() != k) {
        None => Ok(k),
        Some(other) => Err(Error::InvalidArgument(format!(
            "page signatures of {k} and {} min-hashes cannot be compared",
            other.0.len()
        ))),
    }
}

impl PageSignals {
    /// The signals of two books given as page signatures.
    /// `InvalidArgument` when the signatures differ in length or
    /// `min_page_similarity` is outside 0..=1.
    pub fn compute(a: &PagedBook<'_>, b: &PagedBook<'_>, options: &PageOptions) -> Result<Self> {
        if !(0.0..=1.0).contains(&options.min_page_similarity) {
            return Err(Error::InvalidArgument(format!(
                "min_page_similarity {} is outside 0..=1",
                options.min_page_similarity
            )));
        }
        let book_similarity = a.signature.similarity(b.signature);
        let (a, b) = (a.pages, b.pages);
        let pairs = page_similarities(a, b)?;
        let matches = mutual_best(&pairs, a.len(), b.len(), options.min_page_similarity);
        let page_based_similarity = if matches.is_empty() {
            0.0
        } else {
            matches.iter().map(|p| p.similarity).sum::<f64>() / matches.len() as f64
        };
        let (pages_a, pages_b) = (a.len() as u32, b.len() as u32);
        let with_words = |pages: &[MinHashSig]| pages.iter().filter(|s| !s.is_empty()).count();
        let denser = if with_words(b) < with_words(a) {
            Side::B
        } else {
            Side::A
        };
        Ok(PageSignals {
            pages_a,
            pages_b,
            book_similarity,
            page_based_similarity,
            matched_pages: matches.len() as u32,
            coverage_a: coverage(&pairs, a, |p| p.a, options.min_page_similarity),
            coverage_b: coverage(&pairs, b, |p| p.b, options.min_page_similarity),
            fit: linear_fit(&matches, pages_a, pages_b),
            consecutive_correlation: consecutive_correlation(&pairs, denser, pages_a, pages_b),
            denser,
        })
    }
}

/// The mutual best matches at or above `min_similarity`, by page of A.
fn mutual_best(
    pairs: &[PagePair],
    pages_a: usize,
    pages_b: usize,
    min_similarity: f64,
) -> Vec<PagePair> {
    let better = |best: Option<PagePair>, p: &PagePair| match best {
        Some(b) if b.similarity >= p.similarity => Some(b),
        _ => Some(*p),
    };
    let mut best_of_a: Vec<Option<PagePair>> = vec![None; pages_a];
    let mut best_of_b: Vec<Option<PagePair>> = vec![None; pages_b];
    for p in pairs.iter().filter(|p| p.similarity >= min_similarity) {
        best_of_a[p.a as usize] = better(best_of_a[p.a as usize], p);
        best_of_b[p.b as usize] = better(best_of_b[p.b as usize], p);
    }
    best_of_a
        .into_iter()
        .flatten()
        .filter(|p| best_of_b[p.b as usize].is_some_and(|q| q.a == p.a))
        .collect()
}

/// Share of `pages` with words whose number (`page_of`) appears in a pair
/// at or above `min_similarity`.
fn coverage(
    pairs: &[PagePair],
    pages: &[MinHashSig],
    page_of: fn(&PagePair) -> u32,
    min_similarity: f64,
) -> f64 {
    let with_words = pages.iter().filter(|s| !s.is_empty()).count();
    if with_words == 0 {
        return 0.0;
    }
    let mut covered = vec![false; pages.len()];
    for p in pairs.iter().filter(|p| p.similarity >= min_similarity) {
        covered[page_of(p) as usize] = true;
    }
    covered.iter().filter(|&&c| c).count() as f64 / with_words as f64
}

/// Least squares `p2 = a·p1 + b` over the matches; `None` with fewer than
/// two distinct pages of A among them.
fn linear_fit(matches: &[PagePair], pages_a: u32, pages_b: u32) -> Option<LinearFit> {
    if matches.len() < 2 {
        return None;
    }
    let n = matches.len() as f64;
    let mean_a = matches.iter().map(|p| f64::from(p.a)).sum::<f64>() / n;
    let mean_b = matches.iter().map(|p| f64::from(p.b)).sum::<f64>() / n;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for p in matches {
        let dx = f64::from(p.a) - mean_a;
        sxx += dx * dx;
        sxy += dx * (f64::from(p.b) - mean_b);
    }
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let offset = mean_b - slope * mean_a;
    let last = |pages: u32| f64::from(pages.saturating_sub(1));
    let delta_page_count = last(pages_b) - (slope * last(pages_a) + offset);
    let longest = f64::from(pages_a.max(pages_b));
    Some(LinearFit {
        slope,
        offset,
        delta_page_count,
        unexplained_share: (offset.abs() + delta_page_count.abs()) / longest,
    })
}

/// The relative consecutive page correlation with book 1 = `denser` (see
/// the module docs). `pairs` must be sorted by page of A, then of B.
fn consecutive_correlation(pairs: &[PagePair], denser: Side, pages_a: u32, pages_b: u32) -> f64 {
    let (mut oriented, pages_1): (Vec<(u32, u32, f64)>, u32) = match denser {
        Side::A => (
            pairs.iter().map(|p| (p.a, p.b, p.similarity)).collect(),
            pages_a,
        ),
        Side::B => (
            pairs.iter().map(|p| (p.b, p.a, p.similarity)).collect(),
            pages_b,
        ),
    };
    oriented.sort_by_key(|&(i, j, _)| (i, j));
    let total: f64 = oriented
        .windows(2)
        .filter(|w| w[0].0 == w[1].0 && w[0].1 + 1 == w[1].1)
        .fold(0.0, |sum, w| sum + w[0].2 + w[1].2);
    if pages_1 == 0 {
        0.0
    } else {
        total / f64::from(pages_1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sig(values: &[u64]) -> MinHashSig {
        MinHashSig(values.to_vec())
    }

    #[test]
    fn similar_pages_are_found_through_shared_values() {
        let a = [sig(&[1, 2, 3, 4]), sig(&[5, 6, 7, 8]), MinHashSig::empty(4)];
        let b = [sig(&[9, 9, 9, 9]), sig(&[1, 2, 7, 8]), sig(&[5, 2, 3, 0])];
        let pairs = page_similarities(&a, &b).unwrap();
        let found: Vec<(u32, u32, f64)> = pairs.iter().map(|p| (p.a, p.b, p.similarity)).collect();
        assert_eq!(found, [(0, 1, 0.5), (0, 2, 0.5), (1, 1, 0.5), (1, 2, 0.25)]);
        assert!(page_similarities(&a, &[sig(&[1, 2])]).is_err());
    }

    proptest! {
        #[test]
        fn page_similarities_equal_all_pairs_compared(
            a in prop::collection::vec(prop::collection::vec(0u64..4, 6), 0..8),
            b in prop::collection::vec(prop::collection::vec(0u64..4, 6), 0..8),
        ) {
            let (a, b): (Vec<_>, Vec<_>) = (a.into_iter().map(MinHashSig).collect(), b.into_iter().map(MinHashSig).collect());
            let mut expected = Vec::new();
            for (i, x) in a.iter().enumerate() {
                for (j, y) in b.iter().enumerate() {
                    let similarity = x.similarity(y);
                    if similarity > 0.0 {
                        expected.push(PagePair { a: i as u32, b: j as u32, similarity });
                    }
                }
            }
            prop_assert_eq!(page_similarities(&a, &b).unwrap(), expected);
        }
    }

    fn pair(a: u32, b: u32, similarity: f64) -> PagePair {
        PagePair { a, b, similarity }
    }

    #[test]
    fn mutual_best_matches_are_one_to_one() {
        let pairs = [
            pair(0, 0, 0.9),
            pair(0, 1, 0.3),
            pair(1, 1, 0.2),
            pair(2, 1, 0.5),
            pair(3, 2, 0.05),
        ];
        let matches = mutual_best(&pairs, 4, 3, 0.1);
        assert_eq!(matches, [pair(0, 0, 0.9), pair(2, 1, 0.5)]);
    }

    #[test]
    fn linear_fit_of_an_offset_subset() {
        // A's pages 0..10 are B's pages 5..15; B has 30 pages.
        let matches: Vec<PagePair> = (0..10).map(|i| pair(i, i + 5, 1.0)).collect();
        let fit = linear_fit(&matches, 10, 30).unwrap();
        assert!((fit.slope - 1.0).abs() < 1e-12);
        assert!((fit.offset - 5.0).abs() < 1e-12);
        assert!((fit.delta_page_count - 15.0).abs() < 1e-12);
        assert!((fit.unexplained_share - 20.0 / 30.0).abs() < 1e-12);
        assert!(linear_fit(&matches[..1], 10, 30).is_none());
        assert!(linear_fit(&[], 10, 30).is_none());
    }

    #[test]
    fn consecutive_correlation_sums_pages_split_over_two() {
        // Denser book A: page 0 spans B's 0 and 1, page 1 spans B's 1 and 2.
        let pairs = [
            pair(0, 0, 0.4),
            pair(0, 1, 0.3),
            pair(1, 1, 0.2),
            pair(1, 2, 0.5),
            pair(2, 4, 0.9),
        ];
        let rcpc = consecutive_correlation(&pairs, Side::A, 4, 6);
        assert!((rcpc - (0.7 + 0.7) / 4.0).abs() < 1e-12);
        // Seen from B as book 1: B's page 1 spans A's 0 and 1.
        let rcpc = consecutive_correlation(&pairs, Side::B, 4, 6);
        assert!((rcpc - 0.5 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn bad_options_are_rejected() {
        let options = PageOptions {
            min_page_similarity: 2.0,
        };
        let signature = MinHashSig(vec![1, 2]);
        let book = PagedBook {
            pages: &[],
            signature: &signature,
        };
        assert!(PageSignals::compute(&book, &book, &options).is_err());
        let signals = PageSignals::compute(&book, &book, &PageOptions::default()).unwrap();
        assert_eq!(signals.book_similarity, 1.0);
        assert_eq!(signals.matched_pages, 0);
        assert_eq!(signals.fit, None);
    }
}
