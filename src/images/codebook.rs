//! The visual vocabulary: descriptors quantised into visual terms by a
//! two-level hierarchical k-means tree (thesis 7.1 and 7.3.4.2: two
//! levels of 64 branches, 4,096 terms), learned from the collection's own
//! descriptors. A descriptor's term is found by descending the tree: its
//! nearest centre at the first level, then its nearest among that
//! centre's children, so quantising costs 2·B distances, not B².
//!
//! A vocabulary knows the [`Normalisation`] of the descriptors it was
//! learned from: the words it quantises must be described the same way.
//!
//! Training is deterministic: centres start from k-means++ seeding driven
//! by a fixed-seed generator over the sample, and Lloyd iterations run a
//! fixed number of times. It runs on every core (the first level's
//! assignments, then the second level's trees one per root), each result
//! the one a single core computes.

use super::descriptor::{Normalisation, DIMENSIONS};
use super::parallel::par_map;

/// A descriptor as the tree sees it.
pub type Vector = [u8; DIMENSIONS];

/// Lloyd iterations per k-means.
const ITERATIONS: usize = 12;

/// A two-level vocabulary tree: `branching` first-level centres, each with
/// up to `branching` children; term = first · branching + child.
#[derive(Debug, Clone, PartialEq)]
pub struct Codebook {
    branching: usize,
    /// First-level centres.
    roots: Vec<[f32; DIMENSIONS]>,
    /// Children of each root (fewer than `branching` when its cluster was
    /// small).
    leaves: Vec<Vec<[f32; DIMENSIONS]>>,
    /// How the descriptors it quantises are normalised.
    normalisation: Normalisation,
}

impl Codebook {
    /// Learns a tree of `branching` × `branching` terms from `sample`,
    /// descriptors normalised by `normalisation`. A sample smaller than
    /// the tree gives fewer, still distinct, terms.
    pub fn train(sample: &[Vector], branching: usize, normalisation: Normalisation) -> Codebook {
        let branching = branching.clamp(1, 256);
        let points: Vec<[f32; DIMENSIONS]> = sample.iter().map(to_floats).collect();
        let all: Vec<usize> = (0..points.len()).collect();
        let (roots, members) = kmeans(&points, &all, branching, 0x5eed, Assign::OnEveryCore);
        let numbered: Vec<(u64, &Vec<usize>)> = (0..).zip(&members).collect();
        let leaves = par_map(&numbered, |&(i, ids)| {
            kmeans(&points, ids, branching, 0x5eed + i + 1, Assign::OnOneCore).0
        });
        Codebook {
            branching,
            roots,
            leaves,
            normalisation,
        }
    }

    /// How the descriptors it quantises are normalised.
    pub fn normalisation(&self) -> Normalisation {
        self.normalisation
    }

    /// Number of terms the tree can give: branching².
    pub fn terms(&self) -> usize {
        self.branching * self.branching
    }

    /// Branching factor of each level.
    pub fn branching(&self) -> usize {
        self.branching
    }

    /// The visual term of a descriptor.
    pub fn quantise(&self, vector: &Vector) -> u32 {
        let point = to_floats(vector);
        let root = nearest(&self.roots, &point);
        let leaf = nearest(&self.leaves[root], &point);
        (root * self.branching + leaf) as u32
    }

    /// The tree as its centres, for storing: branching, then per root its
    /// centre and its children.
    pub fn centres(&self) -> (&[[f32; DIMENSIONS]], &[Vec<[f32; DIMENSIONS]>]) {
        (&self.roots, &self.leaves)
    }

    /// A tree from stored centres; `None` when they do not form one (no
    /// root, more children or roots than the branching, a root without
    /// children).
    pub fn from_centres(
        branching: usize,
        roots: Vec<[f32; DIMENSIONS]>,
        leaves: Vec<Vec<[f32; DIMENSIONS]>>,
        normalisation: Normalisation,
    ) -> Option<Codebook> {
        let fits = !roots.is_empty()
            && roots.len() <= branching
            && roots.len() == leaves.len()
            && leaves.iter().all(|l| !l.is_empty() && l.len() <= branching);
        fits.then_some(Codebook {
            branching,
            roots,
            leaves,
            normalisation,
        })
    }
}

fn to_floats(vector: &Vector) -> [f32; DIMENSIONS] {
    let mut out = [0f32; DIMENSIONS];
    for (o, &v) in out.iter_mut().zip(vector.iter()) {
        *o = v as f32;
    }
    out
}

fn distance(a: &[f32; DIMENSIONS], b: &[f32; DIMENSIONS]) -> f32 {
    a.iter().zip(b.iter()).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// Index of the centre nearest `point` (the first of equals).
fn nearest(centres: &[[f32; DIMENSIONS]], point: &[f32; DIMENSIONS]) -> usize {
    let mut best = (0, f32::INFINITY);
    for (i, c) in centres.iter().enumerate() {
        let d = distance(c, point);
        if d < best.1 {
            best = (i, d);
        }
    }
    best.0
}

/// A small deterministic generator (splitmix64) for seeding.
struct Seeder(u64);

impl Seeder {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..1.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// k-means of the points `ids` into at most `k` clusters: the centres, and
/// the ids of each centre's members, its points assigned as `assign` says
/// (the same either way). Fewer distinct points than `k` give one centre
/// per distinct point.
fn kmeans(
    points: &[[f32; DIMENSIONS]],
    ids: &[usize],
    k: usize,
    seed: u64,
    assign: Assign,
) -> (Vec<[f32; DIMENSIONS]>, Vec<Vec<usize>>) {
    if ids.is_empty() {
        return (vec![[0f32; DIMENSIONS]], vec![Vec::new()]);
    }
    let mut centres = seed_centres(points, ids, k, seed);
    for _ in 0..ITERATIONS {
        let nearest_of = |&id: &usize| nearest(&centres, &points[id]);
        let assignment = match assign {
            Assign::OnEveryCore => par_map(ids, nearest_of),
            Assign::OnOneCore => ids.iter().map(nearest_of).collect(),
        };
        update_centres(points, ids, &assignment, &mut centres);
    }
    let mut members = vec![Vec::new(); centres.len()];
    for &id in ids {
        members[nearest(&centres, &points[id])].push(id);
    }
    (centres, members)
}

/// Where a k-means assigns its points to their nearest centres.
#[derive(Debug, Clone, Copy)]
enum Assign {
    /// On every core: one k-means at a time.
    OnEveryCore,
    /// On this thread: k-means run side by side.
    OnOneCore,
}

/// k-means++ seeding: each next centre drawn with probability in
/// proportion to the squared distance to the nearest one so far; stops
/// early when every point sits on a centre.
fn seed_centres(
    points: &[[f32; DIMENSIONS]],
    ids: &[usize],
    k: usize,
    seed: u64,
) -> Vec<[f32; DIMENSIONS]> {
    let mut rng = Seeder(seed);
    let mut centres = vec![points[ids[(rng.next() % ids.len() as u64) as usize]]];
    let mut nearest_d: Vec<f32> = ids
        .iter()
        .map(|&id| distance(&points[id], &centres[0]))
        .collect();
    while centres.len() < k {
        let total: f64 = nearest_d.iter().map(|&d| d as f64).sum();
        if total <= 0.0 {
            break;
        }
        let mut target = rng.unit() * total;
        let mut chosen = ids.len() - 1;
        for (i, &d) in nearest_d.iter().enumerate() {
            target -= d as f64;
            if target < 0.0 {
                chosen = i;
                break;
            }
        }
        let centre = points[ids[chosen]];
        for (d, &id) in nearest_d.iter_mut().zip(ids) {
            *d = d.min(distance(&points[id], &centre));
        }
        centres.push(centre);
    }
    centres
}

/// Moves each centre to the mean of its members; a centre without members
/// stays where it is.
fn update_centres(
    points: &[[f32; DIMENSIONS]],
    ids: &[usize],
    assignment: &[usize],
    centres: &mut [[f32; DIMENSIONS]],
) {
    let mut sums = vec![[0f64; DIMENSIONS]; centres.len()];
    let mut counts = vec![0usize; centres.len()];
    for (&id, &c) in ids.iter().zip(assignment) {
        counts[c] += 1;
        for (s, &v) in sums[c].iter_mut().zip(points[id].iter()) {
            *s += v as f64;
        }
    }
    for ((centre, sum), &count) in centres.iter_mut().zip(&sums).zip(&counts) {
        if count > 0 {
            for (c, &s) in centre.iter_mut().zip(sum.iter()) {
                *c = (s / count as f64) as f32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(centre: u8, jitter: u64) -> Vector {
        let mut rng = Seeder(jitter);
        let mut v = [centre; DIMENSIONS];
        for x in v.iter_mut().take(8) {
            *x = x.saturating_add((rng.next() % 5) as u8);
        }
        v
    }

    #[test]
    fn separated_blobs_get_separate_terms_and_members_share_theirs() {
        let centres = [10u8, 60, 120, 200];
        let sample: Vec<Vector> = (0..400).map(|i| blob(centres[i % 4], i as u64)).collect();
        let book = Codebook::train(&sample, 4, Normalisation::DEFAULT);
        let terms: Vec<u32> = centres
            .iter()
            .map(|&c| book.quantise(&blob(c, 9999)))
            .collect();
        let roots: std::collections::HashSet<u32> = terms.iter().map(|t| t / 4).collect();
        assert_eq!(roots.len(), 4, "each blob under its own root: {terms:?}");
        for (i, v) in sample.iter().enumerate() {
            assert_eq!(book.quantise(v) / 4, terms[i % 4] / 4);
        }
    }

    #[test]
    fn training_is_deterministic_and_a_tiny_sample_still_works() {
        let sample: Vec<Vector> = (0..50).map(|i| blob((i * 5) as u8, i as u64)).collect();
        assert_eq!(
            Codebook::train(&sample, 8, Normalisation::DEFAULT),
            Codebook::train(&sample, 8, Normalisation::DEFAULT)
        );
        let one = Codebook::train(&sample[..1], 8, Normalisation::DEFAULT);
        assert_eq!(one.quantise(&sample[0]), 0);
        let none = Codebook::train(&[], 8, Normalisation::DEFAULT);
        assert_eq!(none.quantise(&sample[3]), 0);
        let (roots, leaves) = book_parts(&Codebook::train(&sample, 8, Normalisation::DEFAULT));
        let again = Codebook::from_centres(8, roots, leaves, Normalisation::DEFAULT).unwrap();
        assert_eq!(again, Codebook::train(&sample, 8, Normalisation::DEFAULT));
    }

    fn book_parts(book: &Codebook) -> (Vec<[f32; DIMENSIONS]>, Vec<Vec<[f32; DIMENSIONS]>>) {
        let (roots, leaves) = book.centres();
        (roots.to_vec(), leaves.to_vec())
    }
}
