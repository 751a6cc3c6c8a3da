//! Pair scores over an [`Overlap`], their upper bounds, and the least LCS a
//! pair needs to reach a threshold.
//!
//! Every score is non-decreasing in |LCS| for fixed lengths and common count,
//! and its value at |LCS| = c is non-decreasing in c. So with c (or any upper
//! bound on c) known, `score(lcs = c)` bounds the score from above: the
//! planner drops a pair whose bound cannot reach what it needs.

use super::Overlap;
use std::fmt;
use std::str::FromStr;

/// How a pair of unique-word sequences is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Score {
    /// The default: share of the shorter sequence aligned in order beyond
    /// chance, `(|LCS| − 2·√c) / min(|X|, |Y|)`, at least 0. The longest
    /// increasing run of c common words in random order is about 2·√c long,
    /// so unrelated books score near 0 whatever their vocabulary overlap,
    /// and a book contained in another scores like a duplicate.
    #[default]
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
    pub const ALL: [Score; 4] = [Score::Coverage, Score::Its, Score::Cs, Score::Containment];

    /// The documented default threshold: pairs at or above it are related.
    pub fn default_threshold(self) -> f64 {
        match self {
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
                    "unknown score {s:?} (expected coverage, its, cs or containment)"
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
