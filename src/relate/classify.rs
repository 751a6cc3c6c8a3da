//! The relation of a pair of books, with a confidence (Google Books IV.C).
//!
//! Each class R gets the confidence `∏ φ_R,i(s_i)` over the signals s_i
//! relevant to it, where every φ is a low-pass, high-pass or band filter
//! onto [0, 1] (equation 4). The class of highest confidence wins; when no
//! class reaches [`MIN_CONFIDENCE`] the pair is overlapping text, with
//! confidence 1 − (the best other confidence). A pair without a matching
//! page, or without a region of the portion map spanning
//! [`MIN_REGION_BINS`] bins of both books (600 words at the default bin
//! size; all the bins of a book shorter than that), is
//! [`RelationClass::Unrelated`]: on the labelled corpus, 604 of 630
//! different works by the same author have no such region, while every
//! edition and containment has one of at least 6 bins.
//!
//! **Paged books** ([`classify_pages`], from [`PageSignals`]):
//! - SAME_PAGINATION: `hp(mps; 0.6, 1.0)` — the paper's
//!   `φ_SP,mps(s) = max(0, 1 − ((1 − s)/0.4)²)` — · `band(slope; 1, 0.1)` ·
//!   `lp(unexplained; 0.05, 0.2)` · `lp(rcpc; 0.1, 0.5)` ·
//!   `hp(min page coverage; 0.5, 0.9)`;
//! - DIFFERENT_PAGINATION: `hp(book similarity; 0.3, 0.7)` ·
//!   `hp(min page coverage; 0.5, 0.9)` · `lp(mps; 0.7, 0.95)` ·
//!   `hp(rcpc; 0.1, 0.5)`;
//! - CONTIGUOUS_SUBSET: `hp(mps; 0.6, 1.0)` · `band(slope; 1, 0.1)` ·
//!   `hp(unexplained; 0.05, 0.2)` · `hp(inner page coverage; 0.6, 0.95)`.
//!
//! Here mps is the page-based book similarity, slope the linear fit's `a`,
//! rcpc the relative consecutive page correlation, and *unexplained* =
//! `(|b| + |Δpage_count|) / max(pages)`: the share of the longer book's
//! pages outside the fitted image of the other (large `b` or Δpage_count
//! mark a subset, as the paper says). The *inner* book is the one with the
//! larger share of pages matched; the other contains it. Only
//! `φ_SP,mps` is given in the paper; the other filters follow its shapes
//! and its reading of the signals (section V-A).
//!
//! Same pagination is "same text, same pagination" (IV.A), and the paper
//! tells it from the other classes by mps *together with* book similarity
//! (V-A, figure 3c), so it needs both books' pages covered, as different
//! pagination does: mps, slope and the fit say nothing about how much of
//! the books matched. Without that filter, two different novels of the
//! labelled corpus (paginated by the test `pages_corpus`) that share one
//! or two pages, a series advertisement, were same pagination: mps 0.76
//! on those pages, slope 1 from a fit through two points, and an
//! unexplained share near 0 because that fit spans the books (5 of 630
//! pairs of different works by one author; none with the filter, and no
//! edition lost).
//!
//! Pages decide only when they show the same text or a subset
//! ([`classify_books`]): OCR noise of a few percent breaks most of a page's
//! shingles, so two noisy copies of one book share no page while their
//! unique words still align; then the words decide.
//!
//! **Stored books** ([`classify_matched`], from [`MatchSignals`]): where
//! the pair's *matched pairs of parts* lie: the pairs of parts whose
//! unique-word alignment reaches the default score's threshold, as the pair
//! search accepts them. In each book the match spans from the first to the
//! last aligned word of those pairs (stray ends trimmed); its *extent* is
//! the share of the book it spans. A pair with no matched pair of parts is
//! [`RelationClass::Unrelated`], so a pair the default search lists never
//! is (and, classified under the score and threshold that listed it, no
//! listed pair is). Extents need no bins: a bin's share of aligned words falls under
//! any fixed bar when OCR noise makes words of one copy unique by chance
//! (two copies at 20% and 10% character error align 35–45% of the words
//! they share, evenly), and a work of 300 words inside a volume of a
//! million spans two bins.
//! - duplicate: `hp(min extent; 0.6, 0.9)` · `hp(length ratio; 0.3, 0.5)`;
//! - contains: `hp(inner extent; 0.5, 0.9)` · `lp(outer extent; 0.6, 0.9)`,
//!   the inner book being the one with the larger extent (on a tie, the
//!   shorter).
//!
//! **Full-text alignments** ([`classify_map`], from a [`PortionMap`]): per
//! book, its coverage (share of words in matched bins), and its *core*: the
//! shortest run of bins holding [`CORE_SHARE`] of the words of its matched
//! bins that are not isolated (no other matched bin within
//! [`ISOLATION_BINS`]; all matched bins when every one is), grown over the
//! matched bins next to its ends. So stray matched bins — on sparse maps a
//! bin whose one or two eligible words happen to be aligned — do not count,
//! and a matched run is never cut. The core's *extent* is its share of the
//! book, its *density* the share of its words in matched bins (near 1 when
//! the matched region is contiguous).
//! - duplicate (same text): `hp(min coverage; 0.3, 0.8)` ·
//!   `hp(min extent; 0.6, 0.9)` · `hp(length ratio; 0.3, 0.5)`: matched
//!   along the whole of both books, of comparable lengths;
//! - contains: `hp(inner coverage; 0.5, 0.9)` · `lp(outer coverage; 0.6,
//!   0.9)` · `hp(outer density; 0.3, 0.8)`: one book (inner, the better
//!   covered) is matched throughout, inside a contiguous part of the other.
//!
//! Filters ([`high_pass`], [`low_pass`], [`band`]): `hp(s; lo, hi)` is 0 up
//! to lo, 1 from hi, and `1 − ((hi − s)/(hi − lo))²` between;
//! `lp(s; lo, hi)` is 1 up to lo, 0 from hi, and `1 − ((s − lo)/(hi − lo))²`
//! between; `band(s; c, w) = max(0, 1 − ((s − c)/w)²)`.

use serde::Serialize;

use super::map::{Bin, BookMap, PortionMap};
use super::pages::{PageOptions, PageSignals, PagedBook};
use super::side::Side;
use crate::error::Result;

/// Below this best confidence a pair is overlapping text.
pub const MIN_CONFIDENCE: f64 = 0.5;
/// Share of a book's matched words its core holds (see the module docs).
pub const CORE_SHARE: f64 = 0.9;
/// A pair of books without pages is unrelated unless a region spans this
/// many bins of both (see the module docs).
pub const MIN_REGION_BINS: u32 = 3;
/// A matched bin with no other matched bin this close (in bins) is
/// isolated (see the module docs).
pub const ISOLATION_BINS: usize = 2;

/// High-pass filter: 0 for `s ≤ lo`, 1 for `s ≥ hi`, and
/// `1 − ((hi − s)/(hi − lo))²` between. `high_pass(s, 0.6, 1.0)` is the
/// paper's `φ_SP,mps`. NaN gives 0.
pub fn high_pass(s: f64, lo: f64, hi: f64) -> f64 {
    if s.is_nan() || s <= lo {
        0.0
    } else if s >= hi {
        1.0
    } else {
        1.0 - ((hi - s) / (hi - lo)).powi(2)
    }
}

/// Low-pass filter: 1 for `s ≤ lo`, 0 for `s ≥ hi`, and
/// `1 − ((s − lo)/(hi − lo))²` between. NaN gives 0.
pub fn low_pass(s: f64, lo: f64, hi: f64) -> f64 {
    if s.is_nan() || s >= hi {
        0.0
    } else if s <= lo {
        1.0
    } else {
        1.0 - ((s - lo) / (hi - lo)).powi(2)
    }
}

/// Band filter: `max(0, 1 − ((s − center)/half_width)²)`. NaN gives 0.
pub fn band(s: f64, center: f64, half_width: f64) -> f64 {
    let value = 1.0 - ((s - center) / half_width).powi(2);
    if value.is_nan() {
        0.0
    } else {
        value.max(0.0)
    }
}

/// The kind of relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RelationClass {
    /// Same text, same pagination (paged books).
    SamePagination,
    /// Same text, paginated differently (paged books).
    DifferentPagination,
    /// One book contains the other with the same pagination (paged books).
    ContiguousSubset,
    /// Much shared text, but none of the above (paged books).
    OverlappingText,
    /// Same text (books without pages).
    Duplicate,
    /// One book contains the other (books without pages).
    Contains,
    /// Shared text, but neither duplicate nor containment (books without pages).
    Overlap,
    /// No matching page, or no matched region of some length.
    Unrelated,
}

impl RelationClass {
    /// The class's name in output: `same_pagination`, `duplicate`, ...
    pub fn name(self) -> &'static str {
        match self {
            RelationClass::SamePagination => "same_pagination",
            RelationClass::DifferentPagination => "different_pagination",
            RelationClass::ContiguousSubset => "contiguous_subset",
            RelationClass::OverlappingText => "overlapping_text",
            RelationClass::Duplicate => "duplicate",
            RelationClass::Contains => "contains",
            RelationClass::Overlap => "overlap",
            RelationClass::Unrelated => "unrelated",
        }
    }

    /// True for the classes that mean "the same text".
    pub fn is_same_text(self) -> bool {
        matches!(
            self,
            RelationClass::SamePagination
                | RelationClass::DifferentPagination
                | RelationClass::Duplicate
        )
    }
}

impl std::fmt::Display for RelationClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A class and its confidence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassConfidence {
    /// The class.
    pub class: RelationClass,
    /// Its confidence, in [0, 1].
    pub confidence: f64,
}

/// What the classifier saw.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Signals {
    /// Page signals of paged books.
    Pages(PageSignals),
    /// Portion-map signals of a full-text alignment.
    Map(MapSignals),
    /// Where the matched pairs of parts of two stored books lie.
    Matched(MatchSignals),
}

/// Where a pair's matched unique words lie in one book.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MatchedBook {
    /// Words in the book.
    pub words: u32,
    /// The words the match spans, `[start, end)`: from the first to the
    /// last aligned word of the matched pairs of parts, stray ends trimmed.
    pub matched: [u32; 2],
    /// The share of the book the match spans.
    pub extent: f64,
}

impl MatchedBook {
    /// A book of `words` words whose match spans `matched` (clamped to
    /// the book).
    pub fn new(words: u32, matched: [u32; 2]) -> Self {
        let end = matched[1].min(words);
        let start = matched[0].min(end);
        MatchedBook {
            words,
            matched: [start, end],
            extent: match words {
                0 => 0.0,
                _ => f64::from(end - start) / f64::from(words),
            },
        }
    }
}

/// The signals of two stored books without pages: where their matched
/// pairs of parts lie (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MatchSignals {
    /// Book A.
    pub a: MatchedBook,
    /// Book B.
    pub b: MatchedBook,
    /// Shorter book's words / longer book's words.
    pub length_ratio: f64,
    /// The pairs of parts whose score reached the threshold: 0 when the
    /// books' unique words do not align beyond chance.
    pub matched_part_pairs: u32,
}

impl MatchSignals {
    /// The signals of books `a` and `b`, matched in `matched_part_pairs`
    /// pairs of parts.
    pub fn new(a: MatchedBook, b: MatchedBook, matched_part_pairs: u32) -> Self {
        let (short, long) = (a.words.min(b.words), a.words.max(b.words));
        MatchSignals {
            a,
            b,
            length_ratio: match long {
                0 => 0.0,
                _ => f64::from(short) / f64::from(long),
            },
            matched_part_pairs,
        }
    }
}

/// The relation of a pair of books.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Relation {
    /// The class.
    pub class: RelationClass,
    /// Its confidence, in [0, 1].
    pub confidence: f64,
    /// For a containment (contiguous subset, contains): the book that
    /// contains the other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<Side>,
    /// The confidence of every class the classifier weighed.
    pub confidences: Vec<ClassConfidence>,
    /// The signals.
    pub signals: Signals,
}

/// Portion-map signals of one book (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BookSignals {
    /// Words in the book.
    pub words: u32,
    /// Share of its words in matched bins.
    pub coverage: f64,
    /// Share of the book in its core.
    pub extent: f64,
    /// Share of the core's words in matched bins.
    pub density: f64,
}

impl BookSignals {
    /// The signals of one book's bins.
    pub fn of(map: &BookMap) -> Self {
        let (extent, density) = match core(&map.bins, map.matched_words) {
            Some((core_words, matched)) if map.words > 0 => (
                f64::from(core_words) / f64::from(map.words),
                f64::from(matched) / f64::from(core_words.max(1)),
            ),
            _ => (0.0, 0.0),
        };
        BookSignals {
            words: map.words,
            coverage: map.coverage,
            extent,
            density,
        }
    }
}

/// (words, matched words) of the core (see the module docs); `None` when
/// nothing matched.
fn core(bins: &[Bin], matched_words: u32) -> Option<(u32, u32)> {
    if matched_words == 0 {
        return None;
    }
    let words = |bin: &Bin| bin.words.len() as u64;
    let matched = |bin: &Bin| if bin.matched { words(bin) } else { 0 };
    let mut counted: Vec<u64> = (0..bins.len())
        .map(|i| {
            if isolated(bins, i) {
                0
            } else {
                matched(&bins[i])
            }
        })
        .collect();
    if counted.iter().all(|&w| w == 0) {
        counted = bins.iter().map(matched).collect();
    }
    let need = (counted.iter().sum::<u64>() as f64 * CORE_SHARE).ceil() as u64;
    let (mut left, mut window_words, mut window_counted) = (0, 0u64, 0u64);
    let mut best: Option<(u64, usize, usize)> = None;
    for (right, bin) in bins.iter().enumerate() {
        window_words += words(bin);
        window_counted += counted[right];
        while window_counted - counted[left] >= need {
            window_words -= words(&bins[left]);
            window_counted -= counted[left];
            left += 1;
        }
        if window_counted >= need && best.is_none_or(|(w, _, _)| window_words < w) {
            best = Some((window_words, left, right));
        }
    }
    let (_, mut first, mut last) = best?;
    while first > 0 && bins[first - 1].matched {
        first -= 1;
    }
    while last + 1 < bins.len() && bins[last + 1].matched {
        last += 1;
    }
    let run = &bins[first..=last];
    Some((
        run.iter().map(words).sum::<u64>() as u32,
        run.iter().map(matched).sum::<u64>() as u32,
    ))
}

/// True when bin `i` matched but no other bin within [`ISOLATION_BINS`] of
/// it did.
fn isolated(bins: &[Bin], i: usize) -> bool {
    let near = i.saturating_sub(ISOLATION_BINS)..(i + ISOLATION_BINS + 1).min(bins.len());
    bins[i].matched && !near.filter(|&j| j != i).any(|j| bins[j].matched)
}

/// Portion-map signals of a pair (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MapSignals {
    /// Book A.
    pub a: BookSignals,
    /// Book B.
    pub b: BookSignals,
    /// Shorter book's words / longer book's words.
    pub length_ratio: f64,
}

impl MapSignals {
    /// The signals of a portion map.
    pub fn of(map: &PortionMap) -> Self {
        let (a, b) = (BookSignals::of(&map.a), BookSignals::of(&map.b));
        let (short, long) = (a.words.min(b.words), a.words.max(b.words));
        MapSignals {
            a,
            b,
            length_ratio: if long == 0 {
                0.0
            } else {
                f64::from(short) / f64::from(long)
            },
        }
    }

    /// (inner, outer, the side of outer): the inner book is the better
    /// covered one (on a tie, the shorter).
    fn inner_outer(&self) -> (&BookSignals, &BookSignals, Side) {
        let a_inner = (self.a.coverage, std::cmp::Reverse(self.a.words))
            >= (self.b.coverage, std::cmp::Reverse(self.b.words));
        if a_inner {
            (&self.a, &self.b, Side::B)
        } else {
            (&self.b, &self.a, Side::A)
        }
    }
}

/// The relation of two books without pages, from their portion map (see
/// the module docs).
pub fn classify_map(map: &PortionMap) -> Relation {
    let signals = MapSignals::of(map);
    let (inner, outer, container) = signals.inner_outer();
    let duplicate = high_pass(signals.a.coverage.min(signals.b.coverage), 0.3, 0.8)
        * high_pass(signals.a.extent.min(signals.b.extent), 0.6, 0.9)
        * high_pass(signals.length_ratio, 0.3, 0.5);
    let contains = high_pass(inner.coverage, 0.5, 0.9)
        * low_pass(outer.coverage, 0.6, 0.9)
        * high_pass(outer.density, 0.3, 0.8);
    let nothing = !has_region(map);
    decide(
        [
            (RelationClass::Duplicate, duplicate, None),
            (RelationClass::Contains, contains, Some(container)),
        ],
        RelationClass::Overlap,
        nothing,
        Signals::Map(signals),
    )
}

/// The relation of two stored books without pages, from where their
/// matched pairs of parts lie (see the module docs).
pub fn classify_matched(signals: &MatchSignals) -> Relation {
    let (a, b) = (&signals.a, &signals.b);
    let a_inner = (a.extent, std::cmp::Reverse(a.words)) >= (b.extent, std::cmp::Reverse(b.words));
    let (inner, outer, container) = match a_inner {
        true => (a, b, Side::B),
        false => (b, a, Side::A),
    };
    let duplicate =
        high_pass(a.extent.min(b.extent), 0.6, 0.9) * high_pass(signals.length_ratio, 0.3, 0.5);
    let contains = high_pass(inner.extent, 0.5, 0.9) * low_pass(outer.extent, 0.6, 0.9);
    decide(
        [
            (RelationClass::Duplicate, duplicate, None),
            (RelationClass::Contains, contains, Some(container)),
        ],
        RelationClass::Overlap,
        signals.matched_part_pairs == 0,
        Signals::Matched(*signals),
    )
}

/// True when some region spans [`MIN_REGION_BINS`] bins of both books (or
/// all the bins of the book with fewer).
fn has_region(map: &PortionMap) -> bool {
    let least = MIN_REGION_BINS.min(map.a.bins.len().min(map.b.bins.len()) as u32);
    map.regions
        .iter()
        .any(|r| r.a_bins.len().min(r.b_bins.len()) as u32 >= least.max(1))
}

/// The relation of two books: from their page signals when both have page
/// signatures and the pages show the same text or a contiguous subset;
/// else from `words` (called only then), the classification of their
/// words ([`classify_matched`] for stored books, [`classify_map`] for a
/// full-text alignment). Pages that show neither say little: OCR noise of
/// a few percent breaks most of a page's shingles, so two noisy copies of
/// one book share no page, while their unique words still align.
pub fn classify_books(
    a: &PagedBook<'_>,
    b: &PagedBook<'_>,
    page_options: &PageOptions,
    words: impl FnOnce() -> Result<Relation>,
) -> Result<Relation> {
    if a.pages.is_empty() || b.pages.is_empty() {
        return words();
    }
    let signals = PageSignals::compute(a, b, page_options)?;
    let by_pages = classify_pages(&signals);
    if by_pages.class.is_same_text() || by_pages.class == RelationClass::ContiguousSubset {
        return Ok(by_pages);
    }
    words()
}

/// The relation of two paged books, from their page signals (see the
/// module docs).
pub fn classify_pages(signals: &PageSignals) -> Relation {
    let slope = signals.fit.map_or(f64::NAN, |f| f.slope);
    let unexplained = signals.fit.map_or(f64::NAN, |f| f.unexplained_share);
    let mps = signals.page_based_similarity;
    let rcpc = signals.consecutive_correlation;
    let (inner, container) = if signals.coverage_a >= signals.coverage_b {
        (signals.coverage_a, Side::B)
    } else {
        (signals.coverage_b, Side::A)
    };
    let both_covered = high_pass(signals.coverage_a.min(signals.coverage_b), 0.5, 0.9);
    let same = high_pass(mps, 0.6, 1.0)
        * band(slope, 1.0, 0.1)
        * low_pass(unexplained, 0.05, 0.2)
        * low_pass(rcpc, 0.1, 0.5)
        * both_covered;
    let different = high_pass(signals.book_similarity, 0.3, 0.7)
        * both_covered
        * low_pass(mps, 0.7, 0.95)
        * high_pass(rcpc, 0.1, 0.5);
    let subset = high_pass(mps, 0.6, 1.0)
        * band(slope, 1.0, 0.1)
        * high_pass(unexplained, 0.05, 0.2)
        * high_pass(inner, 0.6, 0.95);
    decide(
        [
            (RelationClass::SamePagination, same, None),
            (RelationClass::DifferentPagination, different, None),
            (RelationClass::ContiguousSubset, subset, Some(container)),
        ],
        RelationClass::OverlappingText,
        signals.matched_pages == 0,
        Signals::Pages(signals.clone()),
    )
}

/// Picks the class of highest confidence (the first on a tie), or the
/// fallback when none reaches [`MIN_CONFIDENCE`], or unrelated when
/// `nothing` matched; the last two with confidence 1 − the best.
fn decide<const N: usize>(
    candidates: [(RelationClass, f64, Option<Side>); N],
    fallback: RelationClass,
    nothing: bool,
    signals: Signals,
) -> Relation {
    let best = candidates.iter().fold(
        None,
        |best: Option<&(RelationClass, f64, Option<Side>)>, c| match best {
            Some(b) if b.1 >= c.1 => Some(b),
            _ => Some(c),
        },
    );
    let best_confidence = best.map_or(0.0, |b| b.1);
    let mut confidences: Vec<ClassConfidence> = candidates
        .iter()
        .map(|&(class, confidence, _)| ClassConfidence { class, confidence })
        .collect();
    confidences.push(ClassConfidence {
        class: fallback,
        confidence: 1.0 - best_confidence,
    });
    let (class, confidence, container) = match best {
        _ if nothing => (RelationClass::Unrelated, 1.0 - best_confidence, None),
        Some(&(class, confidence, container)) if confidence >= MIN_CONFIDENCE => {
            (class, confidence, container)
        }
        _ => (fallback, 1.0 - best_confidence, None),
    };
    Relation {
        class,
        confidence,
        container,
        confidences,
        signals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relate::map::{MapBook, MapOptions};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn the_papers_same_pagination_filter_at_known_points() {
        // φ_SP,mps(s) = max(0, 1 − ((1 − s)/0.4)²)
        let phi = |s| high_pass(s, 0.6, 1.0);
        assert_eq!(phi(1.0), 1.0);
        assert!(close(phi(0.8), 0.75));
        assert!(close(phi(0.9), 1.0 - 0.0625));
        assert_eq!(phi(0.6), 0.0);
        assert_eq!(phi(0.3), 0.0);
        assert_eq!(phi(1.2), 1.0);
        for s in [0.61, 0.7, 0.85, 0.99] {
            assert!(close(phi(s), (1.0 - ((1.0 - s) / 0.4).powi(2)).max(0.0)));
        }
    }

    #[test]
    fn low_pass_at_known_points() {
        assert_eq!(low_pass(0.0, 0.1, 0.5), 1.0);
        assert_eq!(low_pass(0.1, 0.1, 0.5), 1.0);
        assert!(close(low_pass(0.3, 0.1, 0.5), 0.75));
        assert_eq!(low_pass(0.5, 0.1, 0.5), 0.0);
        assert_eq!(low_pass(7.0, 0.1, 0.5), 0.0);
    }

    #[test]
    fn band_at_known_points() {
        assert_eq!(band(1.0, 1.0, 0.1), 1.0);
        assert!(close(band(1.05, 1.0, 0.1), 0.75));
        assert!(close(band(0.95, 1.0, 0.1), 0.75));
        assert_eq!(band(1.1, 1.0, 0.1), 0.0);
        assert_eq!(band(0.5, 1.0, 0.1), 0.0);
    }

    #[test]
    fn filters_give_zero_for_nan() {
        assert_eq!(high_pass(f64::NAN, 0.6, 1.0), 0.0);
        assert_eq!(low_pass(f64::NAN, 0.6, 1.0), 0.0);
        assert_eq!(band(f64::NAN, 1.0, 0.1), 0.0);
    }

    fn full_text_map(
        a_words: u32,
        b_words: u32,
        aligned: &[(std::ops::Range<u32>, std::ops::Range<u32>)],
    ) -> PortionMap {
        PortionMap::build(
            MapBook::full_text(a_words),
            MapBook::full_text(b_words),
            aligned.iter().cloned(),
            &MapOptions::default(),
        )
        .unwrap()
    }

    /// Page signals of two 300-page books whose `matched` pages (from the
    /// first on) match one to one with similarity 0.76.
    fn page_signals(matched: u32) -> PageSignals {
        let coverage = f64::from(matched) / 300.0;
        PageSignals {
            pages_a: 300,
            pages_b: 300,
            book_similarity: 0.76 * coverage,
            page_based_similarity: 0.76,
            matched_pages: matched,
            coverage_a: coverage,
            coverage_b: coverage,
            fit: Some(crate::relate::pages::LinearFit {
                slope: 1.0,
                offset: 0.0,
                delta_page_count: 0.0,
                unexplained_share: 0.0,
            }),
            consecutive_correlation: 0.0,
            denser: Side::A,
        }
    }

    #[test]
    fn same_pagination_needs_both_books_covered_not_just_a_straight_fit() {
        // Two different novels that share two pages (a series
        // advertisement): a fit through two points is straight and explains
        // everything, yet the books are not the same text.
        let two_pages = classify_pages(&page_signals(2));
        assert_eq!(two_pages.class, RelationClass::OverlappingText);
        assert_eq!(
            classify_pages(&page_signals(300)).class,
            RelationClass::SamePagination
        );
    }

    #[test]
    fn same_text_is_a_duplicate() {
        let relation = classify_map(&full_text_map(10_000, 10_000, &[(0..10_000, 0..10_000)]));
        assert_eq!(relation.class, RelationClass::Duplicate);
        assert_eq!(relation.confidence, 1.0);
        assert_eq!(relation.container, None);
    }

    #[test]
    fn a_book_inside_another_is_contained_by_it() {
        // B is words 20_000..30_000 of A.
        let relation = classify_map(&full_text_map(
            50_000,
            10_000,
            &[(20_000..30_000, 0..10_000)],
        ));
        assert_eq!(relation.class, RelationClass::Contains);
        assert_eq!(relation.container, Some(Side::A));
        let Signals::Map(signals) = relation.signals else {
            panic!()
        };
        assert!(close(signals.a.coverage, 0.2));
        assert!(close(signals.a.extent, 0.2));
        assert_eq!(signals.a.density, 1.0);
        // And the other way round.
        let relation = classify_map(&full_text_map(
            10_000,
            50_000,
            &[(0..10_000, 40_000..50_000)],
        ));
        assert_eq!(relation.container, Some(Side::B));
    }

    #[test]
    fn a_shared_middle_part_is_an_overlap() {
        let relation = classify_map(&full_text_map(
            30_000,
            30_000,
            &[(10_000..20_000, 5_000..15_000)],
        ));
        assert_eq!(relation.class, RelationClass::Overlap);
        assert!(relation.confidence >= 0.5);
    }

    #[test]
    fn nothing_matched_is_unrelated() {
        let relation = classify_map(&full_text_map(3_000, 3_000, &[]));
        assert_eq!(relation.class, RelationClass::Unrelated);
        let empty = classify_map(&full_text_map(0, 0, &[]));
        assert_eq!(empty.class, RelationClass::Unrelated);
        // Two bins (400 words) shared: too little to tell from chance.
        let short = classify_map(&full_text_map(
            30_000,
            30_000,
            &[(1_000..1_400, 9_000..9_400)],
        ));
        assert_eq!(short.class, RelationClass::Unrelated);
        assert_eq!(short.confidence, 1.0);
        let three = classify_map(&full_text_map(
            30_000,
            30_000,
            &[(1_000..1_600, 9_000..9_600)],
        ));
        assert_eq!(three.class, RelationClass::Overlap);
    }

    #[test]
    fn short_books_need_only_their_own_length_matched() {
        let relation = classify_map(&full_text_map(300, 300, &[(0..300, 0..300)]));
        assert_eq!(relation.class, RelationClass::Duplicate);
    }

    #[test]
    fn the_core_skips_stray_matched_bins() {
        // 10_000 words matched in one run, and one stray 200-word bin far away.
        let map = full_text_map(
            100_000,
            10_200,
            &[(1_000..1_200, 0..200), (60_000..70_000, 200..10_200)],
        );
        let signals = BookSignals::of(&map.a);
        assert!(close(signals.extent, 0.1));
        assert_eq!(signals.density, 1.0);
    }

    fn matched(a: (u32, [u32; 2]), b: (u32, [u32; 2]), pairs: u32) -> Relation {
        classify_matched(&MatchSignals::new(
            MatchedBook::new(a.0, a.1),
            MatchedBook::new(b.0, b.1),
            pairs,
        ))
    }

    #[test]
    fn matched_along_both_books_is_a_duplicate_however_sparse() {
        let relation = matched((20_000, [150, 19_900]), (21_000, [90, 20_950]), 1);
        assert_eq!(relation.class, RelationClass::Duplicate);
        // Books of one part: lengths 1 : 4 are not copies of one text.
        let relation = matched((5_000, [0, 5_000]), (20_000, [0, 19_000]), 1);
        assert_ne!(relation.class, RelationClass::Duplicate);
    }

    #[test]
    fn a_small_work_matched_inside_a_volume_is_contained_by_it() {
        // 300 words at 0.03% of a volume of a million.
        let relation = matched((1_000_000, [412_000, 412_290]), (300, [4, 298]), 1);
        assert_eq!(relation.class, RelationClass::Contains);
        assert_eq!(relation.container, Some(Side::A));
        let relation = matched((300, [4, 298]), (1_000_000, [412_000, 412_290]), 2);
        assert_eq!(relation.container, Some(Side::B));
    }

    #[test]
    fn a_partial_match_of_both_is_an_overlap() {
        let relation = matched((20_000, [12_000, 19_000]), (30_000, [0, 8_000]), 1);
        assert_eq!(relation.class, RelationClass::Overlap);
    }

    #[test]
    fn no_matched_pair_of_parts_is_unrelated_and_one_never_is() {
        let relation = matched((20_000, [0, 20_000]), (20_000, [0, 20_000]), 0);
        assert_eq!(relation.class, RelationClass::Unrelated);
        for extent in [0, 10, 1_000, 20_000] {
            let relation = matched((20_000, [0, extent]), (20_000, [0, extent]), 1);
            assert_ne!(relation.class, RelationClass::Unrelated, "{extent}");
        }
    }

    #[test]
    fn matched_ranges_are_clamped_to_the_book() {
        let book = MatchedBook::new(100, [90, 300]);
        assert_eq!(book.matched, [90, 100]);
        assert!((book.extent - 0.1).abs() < 1e-12);
        assert_eq!(MatchedBook::new(0, [5, 9]).extent, 0.0);
        assert_eq!(MatchedBook::new(100, [50, 20]).matched, [20, 20]);
    }

    #[test]
    fn relations_serialise_with_class_names() {
        let relation = classify_map(&full_text_map(
            50_000,
            10_000,
            &[(20_000..30_000, 0..10_000)],
        ));
        let json = serde_json::to_value(&relation).unwrap();
        assert_eq!(json["class"], "contains");
        assert_eq!(json["container"], "a");
        assert!(json["signals"]["map"]["a"]["coverage"].is_number());
        assert_eq!(json["confidences"][2]["class"], "overlap");
    }
}
