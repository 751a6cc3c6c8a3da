//! Where a match lies: the word ranges, in each book, of the aligned unique
//! words of the best-scoring pair of parts, so that a user can jump to the
//! passage.
//!
//! The range runs from the first to the last element of one LCS of the two
//! parts' sequences (the LCS whose span the default score measures), after
//! trimming the stray words at either end ([`crate::align::trim_strays`],
//! here on word positions).

use crate::align::{trim_strays, SequenceIndex};
use crate::repr::UniqueWordSeq;

/// A range of word positions in a book: `start` is the first word's
/// position, `end` one past the last's. Serialised as `[start, end]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct WordRange {
    /// Position of the first word.
    pub start: u32,
    /// One past the position of the last word.
    pub end: u32,
}

impl serde::Serialize for WordRange {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.start, self.end].serialize(s)
    }
}

impl std::fmt::Display for WordRange {
    /// "1200–3400".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}–{}", self.start, self.end)
    }
}

/// Where a pair's match lies in each book.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Location {
    /// The first book's part holding the match (0 for a book of one part).
    pub part_x: u32,
    /// The second book's part.
    pub part_y: u32,
    /// Words of the first book the match spans.
    pub words_x: WordRange,
    /// Words of the second book the match spans.
    pub words_y: WordRange,
}

/// The location of the match between part `part_x` of `x` and part
/// `part_y` of `y` (positions in whole-book words); empty ranges when the
/// parts share no word.
pub fn locate(x: &UniqueWordSeq, part_x: u32, y: &UniqueWordSeq, part_y: u32) -> Location {
    let chain = SequenceIndex::new(&x.hashes).lcs_pairs(&y.hashes);
    locate_chain(&chain, x, part_x, y, part_y)
}

/// The location of `chain`, pairs of element indexes (in `x`, in `y`)
/// increasing in both, as [`locate`] gives one LCS's: its first to last
/// word in each book, stray ends trimmed.
pub fn locate_chain(
    chain: &[(u32, u32)],
    x: &UniqueWordSeq,
    part_x: u32,
    y: &UniqueWordSeq,
    part_y: u32,
) -> Location {
    let positions: Vec<(u32, u32)> = chain
        .iter()
        .filter_map(|&(i, j)| Some((*x.positions.get(i as usize)?, *y.positions.get(j as usize)?)))
        .collect();
    let kept = trim_strays(&positions);
    let range = |of: fn(&(u32, u32)) -> u32| match (kept.first(), kept.last()) {
        (Some(first), Some(last)) => WordRange {
            start: of(first),
            end: of(last).saturating_add(1),
        },
        _ => WordRange::default(),
    };
    Location {
        part_x,
        part_y,
        words_x: range(|p| p.0),
        words_y: range(|p| p.1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(pairs: &[(u32, u32)]) -> UniqueWordSeq {
        UniqueWordSeq {
            hashes: pairs.iter().map(|p| p.0).collect(),
            positions: pairs.iter().map(|p| p.1).collect(),
        }
    }

    #[test]
    fn the_range_spans_the_aligned_words_without_stray_ends() {
        // x: a small work of words 1..=40 at positions 0..400 (step 10);
        // y: a volume holding it at 10,000, with word 1 also unique far
        // before it (a chance match) and word 40 far after.
        let x = seq(&(1..=40).map(|w| (w, (w - 1) * 10)).collect::<Vec<_>>());
        let mut y_pairs = vec![(1, 50)];
        y_pairs.extend((2..=39).map(|w| (w, 10_000 + w * 10)));
        y_pairs.push((40, 900_000));
        let y = seq(&y_pairs);
        let location = locate(&x, 0, &y, 3);
        assert_eq!(location.part_y, 3);
        assert_eq!(
            location.words_y,
            WordRange {
                start: 10_020,
                end: 10_391
            }
        );
        assert_eq!(
            location.words_x,
            WordRange {
                start: 10,
                end: 381
            }
        );
    }

    #[test]
    fn no_common_word_gives_empty_ranges() {
        let location = locate(&seq(&[(1, 0)]), 0, &seq(&[(2, 5)]), 0);
        assert_eq!(location.words_x, WordRange::default());
        assert_eq!(location.words_y, WordRange::default());
    }

    #[test]
    fn word_ranges_serialise_as_pairs() {
        let json = serde_json::to_string(&WordRange { start: 3, end: 9 }).unwrap();
        assert_eq!(json, "[3,9]");
    }
}
