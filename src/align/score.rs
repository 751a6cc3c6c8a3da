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

/// Z of [`Score::Order`]: the excess of |LCS| over 2·√c must pass
/// Z·c^(1/6), Z times the scale of chance's spread, before the score rises
/// above 0.
const ORDER_EVIDENCE: f64 = 16.0;

/// How a pair of unique-word sequences is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Score {
    /// The default: share of the common words aligned in order beyond
    /// chance and beyond a margin of evidence,
    /// `(|LCS| − 2·√c − Z·c^(1/6)) / c`, at least 0, with c = |X ∩ Y| and
    /// Z = 16 (threshold 0.08).
    ///
    /// The longest increasing run of c common words in random order is
    /// about `2·√c + c^(1/6)·χ` long, χ of Tracy–Widom law (mean −1.8,
    /// spread about 1): unrelated books sharing thousands of words by
    /// vocabulary alone score 0, and Z·c^(1/6) asks the excess to stand
    /// well above the spread of chance (and above the order that related
    /// vocabulary of unrelated books has). It needs about 50 common words
    /// all in order: a short chance alignment of 5 to 30 words scores 0.
    ///
    /// Unlike [`Score::Coverage`], it does not divide by the books' sizes.
    /// OCR junk is made of words that occur once, so two noisy scans of one
    /// book have long unique-word sequences that share few words; the few
    /// they share are still mostly in order. Two scans at 20% and 10%
    /// character error score 0.12 to 0.5 (median 0.25), while their
    /// coverage falls to 0.02–0.04, under that of unrelated books sharing a
    /// preface.
    ///
    /// Threshold 0.08, between the highest unrelated pairs and the lowest
    /// noisy scans: on the labelled corpus, pairs that share no text score
    /// at most 0.054 (two volumes that reuse a few passages) and editions and
    /// containment at least 0.21; two scans of one book at up to 20% and
    /// 10% character error at least 0.12, and at 20% and 15% 0.98 of them
    /// reach it.
    ///
    /// The costs. A pair that shares one passage of about a hundred rare
    /// words or more in order (a preface, a long quotation, the names of a
    /// story told in another language) scores like a related pair, whatever
    /// the books' sizes. And its bound prunes less: with the common count
    /// alone, it passes the threshold from 50 common words on, so exact mode
    /// aligns more candidates than under coverage.
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
            Score::Order => 0.08,
            Score::Coverage => 0.05,
            Score::Its => 0.72,
            Score::Cs => 0.12,
            Score::Containment => 0.2,
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
                if o.common == 0 {
                    return 0.0;
                }
                let common = o.common as f64;
                let chance = 2.0 * common.sqrt() + ORDER_EVIDENCE * common.powf(1.0 / 6.0);
                ((lcs.min(common) - chance) / common).clamp(0.0, 1.0)
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

    fn overlap(len_x: u32, len_y: u32, common: u32, lcs: u32) -> Overlap {
        Overlap {
            len_x,
            len_y,
            common,
            lcs,
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
        assert_eq!(Score::Order.value(&overlap(10, 10, 0, 0)), 0.0);
        assert_eq!(Score::Order.value(&overlap(10, 10, 0, 3)), 0.0);
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
    fn order_of_a_short_or_chance_alignment_is_zero() {
        let t = Score::Order.default_threshold();
        // Any alignment of up to 45 common words, even all in order.
        for c in 1..=45 {
            assert!(
                Score::Order.value(&overlap(5000, 5000, c, c)) < t,
                "c = {c}"
            );
        }
        // 50 common words all in order are enough.
        assert!(Score::Order.value(&overlap(5000, 5000, 50, 50)) >= t);
        // Thousands of words shared by vocabulary, in random order.
        assert_eq!(Score::Order.value(&overlap(20_000, 20_000, 3000, 110)), 0.0);
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
                                             c in 0u32..5000, l in 0u32..5000, slack in 0u32..100) {
            let common = c.min(len_x).min(len_y);
            let o = overlap(len_x, len_y, common, l.min(common));
            for score in Score::ALL {
                prop_assert!(score.upper_bound(len_x, len_y, common + slack) >= score.value(&o));
                prop_assert!(score.upper_bound_with_lcs(len_x, len_y, common, l.min(common) + slack) >= score.value(&o));
            }
        }
    }
}
