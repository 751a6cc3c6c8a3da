//! Verification of one candidate pair of books: the pairs of parts to
//! align, their LCS alignment under a score, the best pair of parts and
//! where its match lies.

use super::locate::{locate, Location};
use super::{BookFeatures, MAX_KEY_TABLE_PART_PAIRS};
use crate::align::{AlignScratch, Overlap, Score, SequenceIndex};

/// A verified pair of books: its score, the overlap of its best pair of
/// parts and where that match lies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verified {
    /// The score of the best pair of parts.
    pub score: f64,
    /// Its overlap.
    pub overlap: Overlap,
    /// Its parts and the word ranges of the match.
    pub location: Location,
}

/// The pairs of parts (part of a, part of b) to align for a pair of books
/// of `parts_a` and `parts_b` parts: `sampled` (proposed by the word
/// sample), and, when the key tables proposed the pair (`from_keys`),
/// every pair of parts unless that makes more than
/// [`MAX_KEY_TABLE_PART_PAIRS`]; sorted, without duplicates.
pub fn part_pairs(
    parts_a: u32,
    parts_b: u32,
    from_keys: bool,
    mut sampled: Vec<(u32, u32)>,
) -> Vec<(u32, u32)> {
    if from_keys && u64::from(parts_a) * u64::from(parts_b) <= MAX_KEY_TABLE_PART_PAIRS {
        sampled.extend((0..parts_a).flat_map(|x| (0..parts_b).map(move |y| (x, y))));
    }
    sampled.sort_unstable();
    sampled.dedup();
    sampled
}

/// Aligns `pairs` of parts of `a` and `b`; the best (highest score, then
/// the lowest pair of parts) that scores above zero and at least
/// `min_score` under `score`, with where its match lies; `None` when none
/// does. Pairs naming a part a book does not have are skipped.
pub fn verify(
    a: &BookFeatures,
    b: &BookFeatures,
    pairs: &[(u32, u32)],
    score: Score,
    min_score: f64,
) -> Option<Verified> {
    let mut scratch = AlignScratch::default();
    let mut index: Option<(u32, SequenceIndex)> = None;
    let mut best: Option<(f64, (u32, u32), Overlap)> = None;
    for &(x, y) in pairs {
        let (Some(part_x), Some(part_y)) = (a.parts.get(x as usize), b.parts.get(y as usize))
        else {
            continue;
        };
        if index.as_ref().is_none_or(|(at, _)| *at != x) {
            index = Some((x, SequenceIndex::new(&part_x.hashes)));
        }
        let overlap = index.as_ref()?.1.align(&part_y.hashes, &mut scratch);
        let value = score.value(&overlap);
        if value <= 0.0 || value < min_score {
            continue;
        }
        let beats =
            best.is_none_or(|(kept, parts, _)| value > kept || (value == kept && (x, y) < parts));
        if beats {
            best = Some((value, (x, y), overlap));
        }
    }
    let (value, (x, y), overlap) = best?;
    Some(Verified {
        score: value,
        overlap,
        location: locate(&a.parts[x as usize], x, &b.parts[y as usize], y),
    })
}
