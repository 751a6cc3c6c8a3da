//! The heaviest chain of weighted points: the subset increasing in both
//! coordinates with the largest total weight. A Fenwick tree of prefix
//! maxima over the ranks of the second coordinate gives it in O(n log n).

/// Reusable buffers.
#[derive(Debug, Default)]
pub struct ChainFinder {
    rank: Vec<u32>,
    order: Vec<u32>,
    /// Fenwick tree over ranks: (best chain weight, index of its last point).
    tree: Vec<(u64, u32)>,
    previous: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl ChainFinder {
    /// Sets `out` to the heaviest chain of `points` (strictly increasing in
    /// both coordinates), which must be in increasing order of the first
    /// coordinate, the points of one first coordinate in decreasing order
    /// of the second (so that a chain takes one of them at most), and have
    /// distinct second coordinates; `weights[k]` is the weight of
    /// `points[k]`.
    pub fn heaviest(&mut self, points: &[(u32, u32)], weights: &[u32], out: &mut Vec<(u32, u32)>) {
        self.rank_second_coordinates(points);
        self.tree.clear();
        self.tree.resize(points.len() + 1, (0, NONE));
        self.previous.clear();
        let mut best = (0, NONE);
        for (k, &weight) in weights.iter().enumerate() {
            let rank = self.rank[k] as usize;
            let (before, last) = self.best_below(rank);
            let chain = (before + u64::from(weight), k as u32);
            self.previous.push(last);
            self.raise(rank + 1, chain);
            if chain.0 > best.0 {
                best = chain;
            }
        }
        out.clear();
        let mut next = best.1;
        while let Some(&point) = points.get(next as usize) {
            out.push(point);
            next = self.previous[next as usize];
        }
        out.reverse();
    }

    /// `self.rank[k]`: the rank (from 0) of `points[k].1` among all.
    fn rank_second_coordinates(&mut self, points: &[(u32, u32)]) {
        self.order.clear();
        self.order.extend(0..points.len() as u32);
        self.order.sort_unstable_by_key(|&k| points[k as usize].1);
        self.rank.clear();
        self.rank.resize(points.len(), 0);
        for (rank, &k) in self.order.iter().enumerate() {
            self.rank[k as usize] = rank as u32;
        }
    }

    /// The heaviest chain ending at a rank below `rank`.
    fn best_below(&self, rank: usize) -> (u64, u32) {
        let mut best = (0, NONE);
        let mut at = rank;
        while at > 0 {
            if self.tree[at].0 > best.0 {
                best = self.tree[at];
            }
            at &= at - 1;
        }
        best
    }

    /// Records a chain ending at tree position `at` (rank + 1).
    fn raise(&mut self, mut at: usize, chain: (u64, u32)) {
        while at < self.tree.len() {
            if chain.0 > self.tree[at].0 {
                self.tree[at] = chain;
            }
            at += at & at.wrapping_neg();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn heaviest(points: &[(u32, u32)], weights: &[u32]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        ChainFinder::default().heaviest(points, weights, &mut out);
        out
    }

    /// Exhaustive reference: the weight of the heaviest chain.
    fn best_weight(points: &[(u32, u32)], weights: &[u32]) -> u64 {
        let mut best = vec![0u64; points.len()];
        for k in 0..points.len() {
            let before = (0..k)
                .filter(|&p| points[p].1 < points[k].1)
                .map(|p| best[p])
                .max()
                .unwrap_or(0);
            best[k] = before + u64::from(weights[k]);
        }
        best.into_iter().max().unwrap_or(0)
    }

    #[test]
    fn a_heavy_point_outweighs_two_light_ones() {
        let points = [(0, 5), (1, 0), (2, 1)];
        assert_eq!(heaviest(&points, &[1, 1, 1]), [(1, 0), (2, 1)]);
        assert_eq!(heaviest(&points, &[3, 1, 1]), [(0, 5)]);
        assert!(heaviest(&[], &[]).is_empty());
    }

    proptest! {
        #[test]
        fn the_chain_increases_and_has_the_best_weight(
            seconds in Just((0u32..40).collect::<Vec<_>>()).prop_shuffle(),
            weights in prop::collection::vec(1u32..20, 40),
            len in 0usize..40,
        ) {
            let points: Vec<(u32, u32)> = seconds[..len].iter().enumerate()
                .map(|(i, &j)| (i as u32 * 2, j)).collect();
            let weights = &weights[..len];
            let chain = heaviest(&points, weights);
            for w in chain.windows(2) {
                prop_assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1);
            }
            let total: u64 = chain.iter()
                .map(|p| u64::from(weights[points.iter().position(|q| q == p).unwrap()]))
                .sum();
            prop_assert_eq!(total, best_weight(&points, weights));
        }
    }
}
