//! LCS of sequences whose elements are distinct: the positions in X of Y's
//! common elements, taken in Y's order, form a sequence whose longest
//! increasing subsequence is the LCS. O(|Y| + c log c) for c common elements.
//! [`SequenceIndex::lcs_pairs`] also says which elements the LCS matched.

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

/// Indices into `values` of one longest strictly increasing subsequence, in
/// increasing order (patience sorting with back links, O(n log n)). Among
/// several longest ones it returns one ending at the least value that ends
/// any of them; its length is [`lis_len`]`(values)`.
pub fn lis_indices(values: &[u32]) -> Vec<u32> {
    // tails[k]: index of the least value ending an increasing run of k + 1.
    let mut tails: Vec<u32> = Vec::with_capacity(64);
    let mut previous: Vec<u32> = Vec::with_capacity(values.len());
    for (i, &v) in values.iter().enumerate() {
        let at = tails.partition_point(|&t| values[t as usize] < v);
        previous.push(if at == 0 { u32::MAX } else { tails[at - 1] });
        if at == tails.len() {
            tails.push(i as u32);
        } else {
            tails[at] = i as u32;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied().unwrap_or(u32::MAX);
    while at != u32::MAX {
        out.push(at);
        at = previous[at as usize];
    }
    out.reverse();
    out
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

    /// True when `element` is in X.
    pub fn contains(&self, element: u32) -> bool {
        self.index_of.contains_key(&element)
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

    /// The elements of one LCS of X and `y` (elements distinct), as pairs
    /// (index in X, index in `y`), increasing in both.
    pub fn lcs_pairs(&self, y: &[u32]) -> Vec<(u32, u32)> {
        let common: Vec<(u32, u32)> = y
            .iter()
            .enumerate()
            .filter_map(|(j, h)| self.index_of.get(h).map(|&i| (i, j as u32)))
            .collect();
        let x_indices: Vec<u32> = common.iter().map(|&(i, _)| i).collect();
        lis_indices(&x_indices)
            .into_iter()
            .map(|k| common[k as usize])
            .collect()
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
    fn lis_indices_pick_an_increasing_run_of_lis_length() {
        assert!(lis_indices(&[]).is_empty());
        assert_eq!(lis_indices(&[3, 1, 2, 5, 4, 6]), [1, 2, 4, 5]);
        assert_eq!(lis_indices(&[5, 4, 3]), [2]);
        assert_eq!(lis_indices(&[1, 1, 1]), [2]);
    }

    #[test]
    fn lcs_pairs_are_the_common_elements_in_order() {
        let x = SequenceIndex::new(&[10, 20, 30, 40, 50]);
        assert_eq!(x.lcs_pairs(&[20, 99, 10, 30, 50]), [(0, 2), (2, 3), (4, 4)]);
        assert!(x.lcs_pairs(&[]).is_empty());
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

        #[test]
        fn lis_indices_are_increasing_and_as_long_as_lis_len(v in prop::collection::vec(0u32..100, 0..80)) {
            let indices = lis_indices(&v);
            prop_assert_eq!(indices.len(), lis_len(&v));
            for w in indices.windows(2) {
                prop_assert!(w[0] < w[1] && v[w[0] as usize] < v[w[1] as usize]);
            }
        }

        #[test]
        fn lcs_pairs_match_equal_elements_as_long_as_the_lcs(x in prop::collection::vec(0u32..60, 0..50),
                                                             y in prop::collection::vec(0u32..60, 0..50)) {
            let (x, y) = (distinct(x), distinct(y));
            let pairs = SequenceIndex::new(&x).lcs_pairs(&y);
            prop_assert_eq!(pairs.len(), lcs_len_dp(&x, &y));
            for &(i, j) in &pairs {
                prop_assert_eq!(x[i as usize], y[j as usize]);
            }
            for w in pairs.windows(2) {
                prop_assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1);
            }
        }
    }
}
