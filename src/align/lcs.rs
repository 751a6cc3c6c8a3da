//! LCS of sequences whose elements are distinct: the positions in X of Y's
//! common elements, taken in Y's order, form a sequence whose longest
//! increasing subsequence is the LCS. O(|Y| + c log c) for c common elements.
//! [`SequenceIndex::lcs_pairs`] also says which elements the LCS matched.

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
    // tails[k]: the least value ending an increasing run of k + 1, and
    // its index (apart, so that the search reads the values in a row
    // instead of through the indexes).
    let mut tails: Vec<u32> = Vec::with_capacity(64);
    let mut tail_indices: Vec<u32> = Vec::with_capacity(64);
    let mut previous: Vec<u32> = Vec::with_capacity(values.len());
    for (i, &v) in (0u32..).zip(values) {
        let at = tails.partition_point(|&t| t < v);
        previous.push(match at {
            0 => u32::MAX,
            at => tail_indices[at - 1],
        });
        if at == tails.len() {
            tails.push(v);
            tail_indices.push(i);
        } else {
            tails[at] = v;
            tail_indices[at] = i;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tail_indices.last().copied().unwrap_or(u32::MAX);
    while at != u32::MAX {
        out.push(at);
        at = previous[at as usize];
    }
    out.reverse();
    out
}

/// An end element of a chain is a stray when its gap to its neighbour in
/// the chain (in either sequence) exceeds this many times the chain's
/// median gap, and [`MIN_STRAY_GAP`].
pub const STRAY_GAP_FACTOR: u32 = 16;
/// See [`STRAY_GAP_FACTOR`].
pub const MIN_STRAY_GAP: u32 = 64;

/// `chain` (pairs increasing in both coordinates) without the stray
/// elements at its ends: an LCS can open or close with a few words that
/// happen to be unique in both sequences, in the right order, far from the
/// real match (a title, a running head, a chance word). The chain is cut
/// where the gap between two elements (in either sequence) exceeds
/// [`STRAY_GAP_FACTOR`] times its median gap and [`MIN_STRAY_GAP`]; a run
/// at either end holding less than a twentieth of the chain is dropped,
/// again while one is left.
pub fn trim_strays(chain: &[(u32, u32)]) -> &[(u32, u32)] {
    if chain.len() <= 2 {
        return chain;
    }
    let gaps: Vec<u32> = chain
        .windows(2)
        .map(|w| (w[1].0 - w[0].0).max(w[1].1 - w[0].1))
        .collect();
    let mut sorted = gaps.clone();
    let middle = sorted.len() / 2;
    let median = *sorted.select_nth_unstable(middle).1;
    let limit = MIN_STRAY_GAP.max(median.saturating_mul(STRAY_GAP_FACTOR));
    // Runs between wide gaps: run i is chain[cuts[i]..cuts[i + 1]].
    let mut cuts: Vec<usize> = std::iter::once(0)
        .chain(
            gaps.iter()
                .enumerate()
                .filter(|(_, &g)| g > limit)
                .map(|(i, _)| i + 1),
        )
        .chain(std::iter::once(chain.len()))
        .collect();
    let small = |run: &[usize]| (run[1] - run[0]) * 20 < chain.len();
    while cuts.len() > 2 && small(&cuts[..2]) {
        cuts.remove(0);
    }
    while cuts.len() > 2 && small(&cuts[cuts.len() - 2..]) {
        cuts.pop();
    }
    &chain[cuts[0]..cuts[cuts.len() - 1]]
}

/// The length of one longest strictly increasing subsequence of `values`,
/// and how many elements it spans in each sequence once its stray ends
/// are trimmed ([`trim_strays`]): `values[k]` is an element's index in one
/// sequence and `order[k]` its index in the other, increasing in k.
/// Returns (|LIS|, span in `values`' sequence, span in `order`'s).
pub fn lis_span(values: &[u32], order: &[u32]) -> (u32, u32, u32) {
    let chain: Vec<(u32, u32)> = lis_indices(values)
        .into_iter()
        .map(|k| (values[k as usize], order[k as usize]))
        .collect();
    let kept = trim_strays(&chain);
    match (kept.first(), kept.last()) {
        (Some(first), Some(last)) => (
            chain.len() as u32,
            last.0 - first.0 + 1,
            last.1 - first.1 + 1,
        ),
        _ => (0, 0, 0),
    }
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
    /// Elements of X from the first to the last element of one LCS, its
    /// stray ends trimmed ([`trim_strays`]): how much of X the match
    /// spans. 0 without a common element.
    pub span_x: u32,
    /// The same in Y.
    pub span_y: u32,
}

impl Overlap {
    /// The larger of the shares of X and of Y that the match spans, in
    /// [0, 1].
    pub fn span_share(&self) -> f64 {
        let share = |span: u32, len: u32| {
            if len == 0 {
                0.0
            } else {
                f64::from(span.min(len)) / f64::from(len)
            }
        };
        share(self.span_x, self.len_x).max(share(self.span_y, self.len_y))
    }

    /// The evidence of the match: how far its LCS exceeds the longest
    /// increasing run that chance gives so many common elements, over the
    /// scale of that run's spread, z = (|LCS| − 2√c) / c^(1/6) (c the
    /// common count; 2√c and c^(1/6) are the mean and the scale of the
    /// longest increasing subsequence of c random pairs). 0 without common
    /// elements. A pair of small units matched by a few words has little
    /// evidence however large a share of them it covers.
    pub fn evidence(&self) -> f64 {
        if self.common == 0 {
            return 0.0;
        }
        let c = f64::from(self.common);
        (f64::from(self.lcs) - 2.0 * c.sqrt()) / c.powf(1.0 / 6.0)
    }
}

/// Buffers [`SequenceIndex::align`] reuses between calls: the common
/// elements' indexes in X and in Y, in Y's order.
#[derive(Debug, Clone, Default)]
pub struct AlignScratch {
    in_x: Vec<u32>,
    in_y: Vec<u32>,
}

/// One sequence X prepared for aligning against many Y: element → index in X.
#[derive(Debug, Clone)]
pub struct SequenceIndex {
    index_of: ElementIndex,
}

impl SequenceIndex {
    /// Prepares `x` (elements must be distinct).
    pub fn new(x: &[u32]) -> Self {
        SequenceIndex {
            index_of: ElementIndex::new(x),
        }
    }

    /// |X|.
    pub fn len(&self) -> usize {
        self.index_of.len()
    }

    /// True when `element` is in X.
    pub fn contains(&self, element: u32) -> bool {
        self.index_of.get(element).is_some()
    }

    /// True when X is empty.
    pub fn is_empty(&self) -> bool {
        self.index_of.is_empty()
    }

    /// Aligns X with `y` (elements distinct). `scratch` is reused between calls.
    pub fn align(&self, y: &[u32], scratch: &mut AlignScratch) -> Overlap {
        scratch.in_x.clear();
        scratch.in_y.clear();
        for (j, h) in y.iter().enumerate() {
            if let Some(i) = self.index_of.get(*h) {
                scratch.in_x.push(i);
                scratch.in_y.push(j as u32);
            }
        }
        let (lcs, span_x, span_y) = lis_span(&scratch.in_x, &scratch.in_y);
        Overlap {
            len_x: self.len() as u32,
            len_y: y.len() as u32,
            common: scratch.in_x.len() as u32,
            lcs,
            span_x,
            span_y,
        }
    }

    /// The elements of one LCS of X and `y` (elements distinct), as pairs
    /// (index in X, index in `y`), increasing in both.
    pub fn lcs_pairs(&self, y: &[u32]) -> Vec<(u32, u32)> {
        let common: Vec<(u32, u32)> = y
            .iter()
            .enumerate()
            .filter_map(|(j, &h)| self.index_of.get(h).map(|i| (i, j as u32)))
            .collect();
        let x_indices: Vec<u32> = common.iter().map(|&(i, _)| i).collect();
        lis_indices(&x_indices)
            .into_iter()
            .map(|k| common[k as usize])
            .collect()
    }
}

/// Each element of a sequence mapped to its index, looked up once per
/// element of every Y aligned against it, most of which are not there (two
/// unrelated books of 5,000 unique words share a few hundred): a bit
/// filter of 16 bits per element, small enough for the first-level cache,
/// answers most misses with one load, and the rest go to open addressing
/// with linear probing in a table at most half full, usually one cache
/// line. (A `HashMap` with the identity hash of `u32` keys gives every
/// entry the same control tag, since the tag is the top bits of a 64-bit
/// hash, so its probes compare keys one by one.)
#[derive(Debug, Clone)]
pub(crate) struct ElementIndex {
    /// (element, index + 1) per slot; 0 in the second marks an empty slot.
    slots: Vec<(u32, u32)>,
    shift: u32,
    /// One bit per [`ElementIndex::filter_bit`] of an element present.
    filter: Vec<u64>,
    filter_shift: u32,
    len: usize,
}

impl ElementIndex {
    /// The index of each element of `x`; of an element repeated, its first.
    pub(crate) fn new(x: &[u32]) -> Self {
        ElementIndex::of(x.iter().copied())
    }

    /// [`ElementIndex::new`] of the elements `x` yields.
    pub(crate) fn of(x: impl ExactSizeIterator<Item = u32>) -> Self {
        let size = (2 * x.len()).next_power_of_two().max(16);
        let bits = (16 * x.len()).next_power_of_two().max(1024);
        let mut index = ElementIndex {
            slots: vec![(0, 0); size],
            shift: 32 - size.trailing_zeros(),
            filter: vec![0; bits / 64],
            filter_shift: 32 - bits.trailing_zeros(),
            len: 0,
        };
        for (i, element) in x.enumerate() {
            index.insert(element, i as u32);
        }
        index
    }

    fn slot(&self, element: u32) -> usize {
        // Fibonacci hashing: the high bits of the product, so that small
        // or patterned elements spread too.
        (element.wrapping_mul(0x9e37_79b9) >> self.shift) as usize
    }

    /// The filter bit of `element`: another multiplicative hash's high
    /// bits, so that a filter collision says nothing of a slot collision.
    fn filter_bit(&self, element: u32) -> usize {
        (element.wrapping_mul(0x85eb_ca6b) >> self.filter_shift) as usize
    }

    fn insert(&mut self, element: u32, index: u32) {
        let bit = self.filter_bit(element);
        self.filter[bit / 64] |= 1 << (bit % 64);
        let mask = self.slots.len() - 1;
        let mut at = self.slot(element);
        loop {
            let slot = &mut self.slots[at];
            if slot.1 == 0 {
                *slot = (element, index + 1);
                self.len += 1;
                return;
            }
            if slot.0 == element {
                return;
            }
            at = (at + 1) & mask;
        }
    }

    /// The index of `element`, if it is there.
    #[inline]
    pub(crate) fn get(&self, element: u32) -> Option<u32> {
        let bit = self.filter_bit(element);
        if self.filter[bit / 64] >> (bit % 64) & 1 == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut at = self.slot(element);
        loop {
            let (stored, index) = self.slots[at];
            if index == 0 {
                return None;
            }
            if stored == element {
                return Some(index - 1);
            }
            at = (at + 1) & mask;
        }
    }

    /// Distinct elements.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// True when there is none.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
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

    proptest! {
        #[test]
        fn the_element_index_finds_what_a_hash_map_finds(
            x in proptest::collection::vec(prop_oneof![0u32..50, any::<u32>()], 0..300),
            probes in proptest::collection::vec(prop_oneof![0u32..60, any::<u32>()], 0..100),
        ) {
            let index = ElementIndex::new(&x);
            let mut map = std::collections::HashMap::new();
            for (i, &e) in x.iter().enumerate() {
                map.entry(e).or_insert(i as u32);
            }
            prop_assert_eq!(index.len(), map.len());
            for probe in probes.iter().chain(&x) {
                prop_assert_eq!(index.get(*probe), map.get(probe).copied());
            }
        }
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
    fn stray_ends_of_a_chain_are_trimmed() {
        let mut chain = vec![(0, 5)];
        chain.extend((0..40).map(|k| (1_000 + 3 * k, 2_000 + 2 * k)));
        chain.push((90_000, 90_000));
        assert_eq!(trim_strays(&chain), &chain[1..41]);
        // A title of three words at the start of both, the match far on.
        let mut titled = vec![(3, 3), (4, 4), (5, 5)];
        titled.extend((0..300).map(|k| (65_000 + 20 * k, 10 + 20 * k)));
        assert_eq!(trim_strays(&titled), &titled[3..]);
        // Two halves of a match far apart both stay.
        let mut halves: Vec<(u32, u32)> = (0..50).map(|k| (10 * k, 10 * k)).collect();
        halves.extend((0..50).map(|k| (90_000 + 10 * k, 90_000 + 10 * k)));
        assert_eq!(trim_strays(&halves), &halves[..]);
        // A chain of evenly spread elements keeps them all.
        let even: Vec<(u32, u32)> = (0..50).map(|k| (100 * k, 90 * k)).collect();
        assert_eq!(trim_strays(&even), &even[..]);
    }

    #[test]
    fn align_counts_common_and_lcs() {
        let x = SequenceIndex::new(&[10, 20, 30, 40, 50]);
        let overlap = x.align(&[20, 99, 10, 30, 50], &mut AlignScratch::default());
        assert_eq!(
            overlap,
            Overlap {
                len_x: 5,
                len_y: 5,
                common: 4,
                lcs: 3,
                span_x: 5,
                span_y: 3,
            }
        );
    }

    proptest! {
        #[test]
        fn lis_lcs_equals_dp_lcs(x in prop::collection::vec(0u32..60, 0..50),
                                 y in prop::collection::vec(0u32..60, 0..50)) {
            let (x, y) = (distinct(x), distinct(y));
            let overlap = SequenceIndex::new(&x).align(&y, &mut AlignScratch::default());
            prop_assert_eq!(overlap.lcs as usize, lcs_len_dp(&x, &y));
            prop_assert!(overlap.common >= overlap.lcs);
            prop_assert!(overlap.common as usize <= x.len().min(y.len()));
        }

        #[test]
        fn spans_cover_the_trimmed_lcs(x in prop::collection::vec(0u32..60, 0..50),
                                       y in prop::collection::vec(0u32..60, 0..50)) {
            let (x, y) = (distinct(x), distinct(y));
            let overlap = SequenceIndex::new(&x).align(&y, &mut AlignScratch::default());
            let pairs = SequenceIndex::new(&x).lcs_pairs(&y);
            let kept = trim_strays(&pairs);
            match (kept.first(), kept.last()) {
                (Some(a), Some(b)) => {
                    prop_assert_eq!(overlap.span_x, b.0 - a.0 + 1);
                    prop_assert_eq!(overlap.span_y, b.1 - a.1 + 1);
                }
                _ => prop_assert_eq!((overlap.span_x, overlap.span_y), (0, 0)),
            }
            prop_assert!(overlap.span_share() <= 1.0);
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
