//! Pair scores over an [`Overlap`], their upper bounds, and the least LCS a
//! pair needs to reach a threshold.
//!
//! Every score is non-decreasing in |LCS| for fixed lengths and common count,
//! and its value at |LCS| = c is non-decreasing in c. So with c (or any upper
//! bound on c) known, `score(lcs = c)` bounds the score from above: the
//! planner drops a pair whose bound cannot reach what it needs. For a fixed
//! |LCS| and lengths, no score grows with c: when c is only known to lie in
//! a range, the bound takes its least value.

use super::Overlap;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// Z of [`Score::Order`]: the excess of |LCS| over 2·√c must pass
/// Z·c^(1/6), Z times the scale of chance's spread, before the in-order
/// term rises above 0.
const ORDER_EVIDENCE: f64 = 30.0;

/// `2·√c + evidence·c^(1/6)`, c being `common`: the LCS that `common`
/// common words in random order reach (about `2·√c`) plus `evidence` times
/// the scale of its spread (`c^(1/6)`), the least LCS that is evidence of
/// order ([`Score::Order`] with [`ORDER_EVIDENCE`], the word sample's
/// threshold with its own).
pub(crate) fn lcs_beyond_chance(common: u32, evidence: f64) -> f64 {
    2.0 * f64::from(common).sqrt() + evidence * sixth_root(common)
}

/// `common^(1/6)`: the planner and the word sample's join ask it of every
/// candidate they count (hundreds of thousands for an all-pairs job), so
/// the values below [`SIXTH_ROOTS_TABULATED`] are computed once, by the
/// same `powf`, into a table.
fn sixth_root(common: u32) -> f64 {
    static TABLE: OnceLock<Box<[f64]>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..SIXTH_ROOTS_TABULATED)
            .map(sixth_root_computed)
            .collect()
    });
    match table.get(common as usize) {
        Some(&root) => root,
        None => sixth_root_computed(common),
    }
}

/// Common counts below this have their [`sixth_root`] in a table (32 KiB).
const SIXTH_ROOTS_TABULATED: u32 = 4096;

fn sixth_root_computed(common: u32) -> f64 {
    f64::from(common).powf(1.0 / 6.0)
}

/// The share of one of the two sequences (the larger of the two shares)
/// that a match must span for [`Score::Order`]'s in-order term to count:
/// the span runs from the first to the last element of one LCS, stray ends
/// trimmed ([`Overlap::span_share`]).
pub const MIN_SPAN_SHARE: f64 = 0.15;

/// How a pair of unique-word sequences is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Score {
    /// The default: the larger of [`Score::Coverage`] and the share of
    /// the common words aligned in order beyond chance, the latter counted
    /// when the match spans at least [`MIN_SPAN_SHARE`] of one of the two
    /// sequences:
    /// `max(coverage, (|LCS| − 2·√c − Z·c^(1/6)) / c)`, c = |X ∩ Y|,
    /// Z = 30, threshold 0.05.
    ///
    /// Coverage divides by the shorter sequence, which OCR junk inflates:
    /// junk is made of words that occur once, so two scans of one book at
    /// 20% and 10% character error have long unique-word sequences that
    /// share few words, and their coverage falls to 0.02–0.04. The few
    /// words they share are still mostly in order, and the second term
    /// judges that order against chance alone: the longest increasing run
    /// of c common words in random order is about `2·√c + c^(1/6)·χ` long,
    /// χ of Tracy–Widom law (mean −1.8, spread about 1), so Z·c^(1/6) asks
    /// the excess to stand well above chance (about 85 common words all in
    /// order before it rises above 0). Z and the threshold were set on five
    /// labelled collections together (the corpus, and generated volumes and
    /// pairs of noisy scans from it and from generated texts; see
    /// `benches/README.md`): below Z = 30, books of one series that share a
    /// few hundred rare words in order (a foreword naming the series, a
    /// recurring description) pass; above it, scans at 20% and 10% start
    /// to fail.
    ///
    /// The second term does not look at the books' sizes, so by itself it
    /// would also admit two books sharing one passage of a few hundred
    /// words (a preface, a licence, a quotation). The span rule keeps it to
    /// matches that reach across a sizeable share of one book (an edition,
    /// a scan, a contained work, an overlap of 15% or more), whatever the
    /// noise; a shorter shared passage is left to coverage, which sees it
    /// as the small share of the shorter book it is. Small texts, whose few
    /// common words cannot pass the evidence margin, are scored by coverage
    /// as before.
    ///
    /// Both terms are non-decreasing in |LCS| and fall as c grows at a
    /// fixed |LCS|, and their value at |LCS| = c grows with c, so the
    /// planner's bounds hold (the bounds take the span rule as passed).
    #[default]
    Order,
    /// Share of the shorter sequence aligned in order beyond chance,
    /// `(|LCS| − 2·√c) / min(|X|, |Y|)`, at least 0 (threshold 0.05): the
    /// default before [`Score::Order`]. Unrelated books score near 0
    /// whatever their vocabulary overlap, a book contained in another scores
    /// like a duplicate, and a pair sharing only a short passage stays low;
    /// but OCR junk inflates |X| and |Y|, so two noisy scans of one book
    /// fall under the threshold.
    Coverage,
    /// DUPNIQ-its: `ln|LCS| / ln(|X| + |Y| − |LCS|)` (paper threshold 0.72).
    Its,
    /// DUPNIQ-cs: `|LCS| / √(|X|·|Y|)` (paper threshold 0.12).
    Cs,
    /// `|LCS| / min(|X|, |Y|)`: how much of the shorter book is inside the longer.
    Containment,
}

impl Score {
    /// All scores, in documentation order.
    pub const ALL: [Score; 5] = [
        Score::Order,
        Score::Coverage,
        Score::Its,
        Score::Cs,
        Score::Containment,
    ];

    /// The documented default threshold: pairs at or above it are related.
    pub fn default_threshold(self) -> f64 {
        match self {
            Score::Order => 0.05,
            Score::Coverage => 0.05,
            Score::Its => 0.72,
            Score::Cs => 0.12,
            Score::Containment => 0.2,
        }
    }

    /// The documented default threshold of translation pairs: a book's
    /// unique words translated through a dictionary against another's
    /// (see [`crate::QueryOptions::translations`]). A translated pair keeps
    /// fewer common words in order than two editions do (a translator
    /// reorders, a dictionary misses words and offers several translations
    /// of most, each a chance match), so its scores are lower; what still
    /// tells a translation is order beyond chance, which the default score
    /// measures against the chance run of as many pairs. Set on two
    /// collections together (`benches/README.md`): on the development
    /// corpus (Roman numerals left out of the translated words) every pair
    /// of two languages that are not translations scored at most 0.007 and
    /// 49 of its 53 translations at least 0.02 (the four below are a 7%
    /// first instalment, two much-divergent versions and a work that is 20%
    /// of a tome, through an 8,500-headword dictionary); on a generated set
    /// of 30 word-by-word translations with reordering and OCR noise, found
    /// with the other direction's dictionary, every translation scored at
    /// least 0.098 and the best negative, two novels of one series sharing
    /// a translated advertisement page, 0.019. Its and Cs keep the thesis's
    /// thresholds (0.49, 0.023).
    pub fn translation_threshold(self) -> f64 {
        match self {
            Score::Order | Score::Coverage => 0.02,
            Score::Its => 0.49,
            Score::Cs => 0.023,
            Score::Containment => 0.05,
        }
    }

    /// The score of an aligned pair, in [0, 1].
    pub fn value(self, o: &Overlap) -> f64 {
        let lcs = o.lcs as f64;
        let shorter = o.len_x.min(o.len_y) as f64;
        if o.lcs == 0 || shorter == 0.0 {
            return 0.0;
        }
        match self {
            Score::Order => {
                let coverage = Score::Coverage.value(o);
                if o.common == 0 || o.span_share() < MIN_SPAN_SHARE {
                    return coverage;
                }
                let common = o.common as f64;
                let chance = lcs_beyond_chance(o.common, ORDER_EVIDENCE);
                coverage.max(((lcs.min(common) - chance) / common).clamp(0.0, 1.0))
            }
            Score::Coverage => ((lcs - 2.0 * (o.common as f64).sqrt()) / shorter).max(0.0),
            Score::Its => {
                let total = o.len_x as f64 + o.len_y as f64 - lcs;
                if total <= 1.0 {
                    1.0
                } else {
                    lcs.ln() / total.ln()
                }
            }
            Score::Cs => lcs / (o.len_x as f64 * o.len_y as f64).sqrt(),
            Score::Containment => lcs / shorter,
        }
    }

    /// An upper bound on the score of a pair with these lengths and at most
    /// `common_at_most` common elements, whatever its LCS.
    pub fn upper_bound(self, len_x: u32, len_y: u32, common_at_most: u32) -> f64 {
        let common = common_at_most.min(len_x).min(len_y);
        self.value(&Overlap {
            len_x,
            len_y,
            common,
            lcs: common,
            span_x: len_x,
            span_y: len_y,
        })
    }

    /// An upper bound on the score of a pair with these lengths, exactly
    /// `common` common elements and an LCS of at most `lcs_at_most`.
    pub fn upper_bound_with_lcs(
        self,
        len_x: u32,
        len_y: u32,
        common: u32,
        lcs_at_most: u32,
    ) -> f64 {
        let common = common.min(len_x).min(len_y);
        self.value(&Overlap {
            len_x,
            len_y,
            common,
            lcs: lcs_at_most.min(common),
            span_x: len_x,
            span_y: len_y,
        })
    }

    /// The least |LCS| with which a pair of these lengths and `common` common
    /// elements reaches `threshold`, or `None` when no LCS ≤ common does.
    pub fn min_lcs(self, len_x: u32, len_y: u32, common: u32, threshold: f64) -> Option<u32> {
        let common = common.min(len_x).min(len_y);
        let reaches = |lcs: u32| {
            self.value(&Overlap {
                len_x,
                len_y,
                common,
                lcs,
                span_x: len_x,
                span_y: len_y,
            }) >= threshold
        };
        if !reaches(common) {
            return None;
        }
        let (mut low, mut high) = (0u32, common);
        while low < high {
            let mid = low + (high - low) / 2;
            if reaches(mid) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        Some(low)
    }

    /// The name used on the command line and in output.
    pub fn name(self) -> &'static str {
        match self {
            Score::Order => "order",
            Score::Coverage => "coverage",
            Score::Its => "its",
            Score::Cs => "cs",
            Score::Containment => "containment",
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Score {
    type Err = crate::error::Error;

    fn from_str(s: &str) -> crate::error::Result<Self> {
        Score::ALL
            .into_iter()
            .find(|score| score.name() == s)
            .ok_or_else(|| {
                crate::error::Error::InvalidArgument(format!(
                    "unknown score {s:?} (expected order, coverage, its, cs or containment)"
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_sixth_root_table_holds_the_computed_values_bit_for_bit() {
        for common in (0..SIXTH_ROOTS_TABULATED + 3).chain([u32::MAX]) {
            let expected = f64::from(common).powf(1.0 / 6.0);
            assert_eq!(sixth_root(common).to_bits(), expected.to_bits(), "{common}");
        }
        assert_eq!(sixth_root(64), 2.0);
    }

    /// An overlap whose match spans both sequences.
    fn overlap(len_x: u32, len_y: u32, common: u32, lcs: u32) -> Overlap {
        Overlap {
            len_x,
            len_y,
            common,
            lcs,
            span_x: len_x,
            span_y: len_y,
        }
    }

    #[test]
    fn paper_scores_match_their_formulas() {
        let o = overlap(1000, 4000, 600, 500);
        assert!((Score::Cs.value(&o) - 500.0 / 2000.0).abs() < 1e-12);
        assert!((Score::Its.value(&o) - 500f64.ln() / 4500f64.ln()).abs() < 1e-12);
        assert!((Score::Containment.value(&o) - 0.5).abs() < 1e-12);
        let chance = (500.0 - 2.0 * 600f64.sqrt()) / 1000.0;
        assert!((Score::Coverage.value(&o) - chance).abs() < 1e-12);
    }

    #[test]
    fn order_matches_its_formula() {
        let o = overlap(1000, 4000, 600, 500);
        let chance = 2.0 * 600f64.sqrt() + ORDER_EVIDENCE * 600f64.powf(1.0 / 6.0);
        assert!((Score::Order.value(&o) - (500.0 - chance) / 600.0).abs() < 1e-12);
        // Coverage when it is the larger: a small book all inside.
        let small = overlap(40, 4000, 30, 30);
        assert_eq!(Score::Order.value(&small), Score::Coverage.value(&small));
        assert_eq!(Score::Order.value(&overlap(10, 10, 0, 0)), 0.0);
        assert_eq!(Score::default(), Score::Order);
    }

    #[test]
    fn order_holds_two_noisy_scans_that_coverage_misses() {
        // Two scans at 20% and 10% character error: 17,000 unique words
        // each, mostly junk, 2,017 shared, 470 of them in order.
        let noisy = overlap(17_000, 18_000, 2017, 470);
        assert!(Score::Coverage.value(&noisy) < Score::Coverage.default_threshold());
        assert!(Score::Order.value(&noisy) >= Score::Order.default_threshold());
    }

    #[test]
    fn a_passage_shared_by_two_books_counts_only_by_its_coverage() {
        // Two 5,000-element books sharing one passage: 160 of 450 common
        // words in order, spanning 300 elements of each (6%).
        let passage = Overlap {
            span_x: 300,
            span_y: 300,
            ..overlap(5000, 5000, 450, 160)
        };
        assert!(passage.span_share() < MIN_SPAN_SHARE);
        assert_eq!(
            Score::Order.value(&passage),
            Score::Coverage.value(&passage)
        );
        assert!(Score::Order.value(&passage) < Score::Order.default_threshold());
        // The same counts spread over the books: two noisy scans.
        let spread = overlap(5000, 5000, 450, 160);
        assert!(Score::Order.value(&spread) >= Score::Order.default_threshold());
        // Spanning 15% of the shorter book is enough.
        let overlap_15 = Overlap {
            span_x: 750,
            span_y: 300,
            ..overlap(5000, 20_000, 450, 160)
        };
        assert!(Score::Order.value(&overlap_15) >= Score::Order.default_threshold());
    }

    #[test]
    fn order_of_a_short_or_chance_alignment_is_zero() {
        let t = Score::Order.default_threshold();
        // Any alignment of up to 80 common words, even all in order.
        for c in 1..=80 {
            assert!(
                Score::Order.value(&overlap(5000, 5000, c, c)) < t,
                "c = {c}"
            );
        }
        // 90 common words all in order are enough.
        assert!(Score::Order.value(&overlap(5000, 5000, 90, 90)) >= t);
        // Thousands of words shared by vocabulary, in random order.
        assert!(Score::Order.value(&overlap(20_000, 20_000, 3000, 110)) < 1e-4);
        // Twice chance's run on 400 words is still below the threshold.
        assert!(Score::Order.value(&overlap(3000, 3000, 400, 80)) < t);
    }

    #[test]
    fn coverage_of_a_chance_alignment_is_zero() {
        // 400 common words in random order: LIS about 2·√400 = 40.
        assert_eq!(Score::Coverage.value(&overlap(3000, 3000, 400, 38)), 0.0);
        assert!(Score::Its.value(&overlap(3000, 3000, 400, 38)) > 0.4);
    }

    #[test]
    fn min_lcs_is_the_least_lcs_reaching_the_threshold() {
        for score in Score::ALL {
            let t = score.default_threshold();
            if let Some(l) = score.min_lcs(2000, 3000, 900, t) {
                assert!(score.value(&overlap(2000, 3000, 900, l)) >= t);
                if l > 0 {
                    assert!(score.value(&overlap(2000, 3000, 900, l - 1)) < t);
                }
            }
        }
        assert_eq!(Score::Containment.min_lcs(100, 100, 10, 0.5), None);
    }

    #[test]
    fn names_round_trip() {
        for score in Score::ALL {
            assert_eq!(score.name().parse::<Score>().unwrap(), score);
        }
        assert!("nope".parse::<Score>().is_err());
    }

    proptest! {
        #[test]
        fn no_score_grows_with_common_for_a_fixed_lcs(len_x in 1u32..5000, len_y in 1u32..5000,
                                                      l in 0u32..5000, c in 0u32..5000, more in 0u32..500) {
            let shorter = len_x.min(len_y);
            let l = l.min(shorter);
            let c = c.clamp(l, shorter);
            let c2 = (c + more).min(shorter);
            for score in Score::ALL {
                prop_assert!(score.value(&overlap(len_x, len_y, c2, l)) <= score.value(&overlap(len_x, len_y, c, l)) + 1e-12);
            }
        }

        #[test]
        fn the_value_at_full_alignment_grows_with_common(len_x in 1u32..5000, len_y in 1u32..5000,
                                                        c in 0u32..5000, more in 0u32..500) {
            let shorter = len_x.min(len_y);
            let c = c.min(shorter);
            let c2 = (c + more).min(shorter);
            for score in Score::ALL {
                prop_assert!(score.value(&overlap(len_x, len_y, c2, c2)) + 1e-12 >= score.value(&overlap(len_x, len_y, c, c)));
            }
        }

        #[test]
        fn upper_bound_is_at_least_the_score(len_x in 1u32..5000, len_y in 1u32..5000,
                                             c in 0u32..5000, l in 0u32..5000, slack in 0u32..100,
                                             span_x in 0u32..5000, span_y in 0u32..5000) {
            let common = c.min(len_x).min(len_y);
            let o = Overlap {
                span_x: span_x.min(len_x),
                span_y: span_y.min(len_y),
                ..overlap(len_x, len_y, common, l.min(common))
            };
            for score in Score::ALL {
                prop_assert!(score.upper_bound(len_x, len_y, common + slack) >= score.value(&o));
                prop_assert!(score.upper_bound_with_lcs(len_x, len_y, common, l.min(common) + slack) >= score.value(&o));
            }
        }
    }
}
