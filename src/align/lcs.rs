//! LCS of sequences whose elements are distinct: the positions in X of Y's
//! common elements, taken in Y's order, form a sequence whose longest
//! increasing subsequence is the LCS. O(|Y| + c log c) for c common elements.

use nohash_hasher::BuildNoHashHasher;
use std::collections::HashMap;

/// Length of the longest strictly increasing subsequence of `values`
/// (patience sorting, O(n log n)).
pub fn lis_len(values: &[u32]) -> usize {
    let mut tails: Vec<u32> = Vec::with_capacity(64);
    for &v in values {
        let at = tails.partition_point(|&t| t < v);
        if at == tails.len() {
            tails.push(v);
        } else {
            tails[at] = v;
        }
    }
    tails.len()
}

/// Length of the longest subsequence of `items` increasing under `less`.
pub fn lis_len_by<T: Copy>(items: &[T], less: impl Fn(&T, &T) -> bool) -> usize {
    let mut tails: Vec<T> = Vec::with_capacity(64);
    for item in items {
        let at = tails.partition_point(|t| less(t, item));
        if at == tails.len() {
            tails.push(*item);
        } else {
            tails[at] = *item;
        }
    }
    tails.len()
}

/// The naive O(|X|·|Y|) dynamic-programming LCS length, for any sequences.
/// The baseline the LIS method is measured against, and the test oracle.
pub fn lcs_len_dp(x: &[u32], y: &[u32]) -> usize {
    let mut row = vec![0u32; y.len() + 1];
    for &a in x {
        let mut diagonal = 0;
        for (j, &b) in y.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if a == b {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[y.len()] as usize
}

/// What the alignment of two sequences found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Overlap {
    /// |X|.
    pub len_x: u32,
    /// |Y|.
    pub len_y: u32,
    /// |X ∩ Y|: common elements.
    pub common: u32,
    /// |LCS(X, Y)|.
    pub lcs: u32,
}

/// One sequence X prepared for aligning against many Y: element → index in X.
#[derive(Debug, Clone)]
pub struct SequenceIndex {
    index_of: HashMap<u32, u32, BuildNoHashHasher<u32>>,
}

impl SequenceIndex {
    /// Prepares `x` (elements must be distinct).
    pub fn new(x: &[u32]) -> Self {
        let mut index_of = HashMap::with_capacity_and_hasher(x.len(), Default::default());
        for (i, &h) in x.iter().enumerate() {
            index_of.insert(h, i as u32);
        }
        SequenceIndex { index_of }
    }

    /// |X|.
    pub fn len(&self) -> usize {
        self.index_of.len()
    }

    /// True when X is empty.
    pub fn is_empty(&self) -> bool {
        self.index_of.is_empty()
    }

    /// Aligns X with `y` (elements distinct). `scratch` is reused between calls.
    pub fn align(&self, y: &[u32], scratch: &mut Vec<u32>) -> Overlap {
        scratch.clear();
        scratch.extend(y.iter().filter_map(|h| self.index_of.get(h).copied()));
        Overlap {
            len_x: self.len() as u32,
            len_y: y.len() as u32,
            common: scratch.len() as u32,
            lcs: lis_len(scratch) as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn distinct(v: Vec<u32>) -> Vec<u32> {
        let mut seen = std::collections::HashSet::new();
        v.into_iter().filter(|x| seen.insert(*x)).collect()
    }

    #[test]
    fn lis_of_small_cases() {
        assert_eq!(lis_len(&[]), 0);
        assert_eq!(lis_len(&[3, 1, 2, 5, 4, 6]), 4);
        assert_eq!(lis_len(&[5, 4, 3]), 1);
        assert_eq!(lis_len(&[1, 1, 1]), 1);
    }

    #[test]
    fn dp_lcs_of_small_cases() {
        assert_eq!(lcs_len_dp(&[1, 2, 3, 4], &[2, 4, 3]), 2);
        assert_eq!(lcs_len_dp(&[], &[1]), 0);
        assert_eq!(lcs_len_dp(&[1, 2, 1], &[1, 1]), 2);
    }

    #[test]
    fn align_counts_common_and_lcs() {
        let x = SequenceIndex::new(&[10, 20, 30, 40, 50]);
        let overlap = x.align(&[20, 99, 10, 30, 50], &mut Vec::new());
        assert_eq!(
            overlap,
            Overlap {
                len_x: 5,
                len_y: 5,
                common: 4,
                lcs: 3
            }
        );
    }

    proptest! {
        #[test]
        fn lis_lcs_equals_dp_lcs(x in prop::collection::vec(0u32..60, 0..50),
                                 y in prop::collection::vec(0u32..60, 0..50)) {
            let (x, y) = (distinct(x), distinct(y));
            let overlap = SequenceIndex::new(&x).align(&y, &mut Vec::new());
            prop_assert_eq!(overlap.lcs as usize, lcs_len_dp(&x, &y));
            prop_assert!(overlap.common >= overlap.lcs);
            prop_assert!(overlap.common as usize <= x.len().min(y.len()));
        }
    }
}
