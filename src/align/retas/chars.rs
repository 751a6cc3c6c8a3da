//! Character-level alignment of a stretch of words that have no word match:
//! the words of each side joined by single spaces, aligned by the
//! dynamic-programming LCS (edit costs 1, 1, 2), then cut into groups at the
//! spaces matched with spaces. Each group is a run of words of A and a run of
//! words of B with the edit operations between them.

use std::ops::Range;

use super::dp::{fill_table, trace, Step};
use super::words::WordTexts;
use super::CharEdits;

/// Words of A and of B that the character alignment put together, with the
/// edits between their characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Words of A.
    pub a: Range<u32>,
    /// Words of B.
    pub b: Range<u32>,
    /// Characters of the A words, spaces between them included.
    pub chars_a: u32,
    /// Characters of the B words, spaces between them included.
    pub chars_b: u32,
    /// Edit operations turning the A characters into the B characters.
    pub edits: CharEdits,
}

/// Reusable buffers of the character stage.
#[derive(Debug, Default)]
pub struct CharAligner {
    a: Vec<char>,
    b: Vec<char>,
    table: Vec<u32>,
}

impl CharAligner {
    /// Aligns the words `a` of text A with the words `b` of text B (both
    /// non-empty) at character level, appending the groups to `out`.
    /// Returns the cells of the table, or `None` without aligning when they
    /// would exceed `max_cells`.
    pub fn align(
        &mut self,
        texts: &WordTexts,
        a: Range<u32>,
        b: Range<u32>,
        max_cells: u64,
        out: &mut Vec<Group>,
    ) -> Option<u64> {
        let len_a = joined_len(texts, &texts.a.ids, &a);
        let len_b = joined_len(texts, &texts.b.ids, &b);
        let cells = (len_a + 1).checked_mul(len_b + 1)?;
        if cells > max_cells {
            return None;
        }
        join_words(texts, &texts.a.ids, &a, &mut self.a);
        join_words(texts, &texts.b.ids, &b, &mut self.b);
        fill_table(&self.a, &self.b, &mut self.table);
        let mut grouper = Grouper::new(a.start, b.start);
        let (chars_a, chars_b) = (&self.a, &self.b);
        trace(chars_a, chars_b, &self.table, |step| {
            grouper.step(step, chars_a, chars_b, out)
        });
        grouper.close(a.end, b.end, out);
        Some(cells)
    }
}

/// Characters of the words `words` of one text (`ids`) joined by single
/// spaces.
pub fn joined_len(texts: &WordTexts, ids: &[u32], words: &Range<u32>) -> u64 {
    let letters: u64 = ids[words.start as usize..words.end as usize]
        .iter()
        .map(|&id| u64::from(texts.vocabulary.chars(id)))
        .sum();
    letters + u64::from(words.end.saturating_sub(words.start)).saturating_sub(1)
}

/// Sets `out` to the characters of the words `words` of one text (`ids`)
/// joined by single spaces.
pub fn join_words(texts: &WordTexts, ids: &[u32], words: &Range<u32>, out: &mut Vec<char>) {
    out.clear();
    for (k, &id) in ids[words.start as usize..words.end as usize]
        .iter()
        .enumerate()
    {
        if k > 0 {
            out.push(' ');
        }
        out.extend(texts.vocabulary.word(id).chars());
    }
}

/// Follows an alignment's steps and closes a group at every space matched
/// with a space.
struct Grouper {
    /// First word of the open group in A and B.
    start: (u32, u32),
    /// Word of A and B the next character belongs to.
    word: (u32, u32),
    chars: (u32, u32),
    /// Unmatched characters of A and B since the last match.
    pending: (u64, u64),
    edits: CharEdits,
}

impl Grouper {
    fn new(a: u32, b: u32) -> Self {
        Grouper {
            start: (a, b),
            word: (a, b),
            chars: (0, 0),
            pending: (0, 0),
            edits: CharEdits::default(),
        }
    }

    fn step(&mut self, step: Step, a: &[char], b: &[char], out: &mut Vec<Group>) {
        match step {
            Step::Match(i, _) => {
                self.settle_pending();
                if a[i] == ' ' {
                    self.word = (self.word.0 + 1, self.word.1 + 1);
                    self.close(self.word.0, self.word.1, out);
                } else {
                    self.chars = (self.chars.0 + 1, self.chars.1 + 1);
                }
            }
            Step::OnlyA(i) => {
                self.pending.0 += 1;
                self.chars.0 += 1;
                self.word.0 += u32::from(a[i] == ' ');
            }
            Step::OnlyB(j) => {
                self.pending.1 += 1;
                self.chars.1 += 1;
                self.word.1 += u32::from(b[j] == ' ');
            }
        }
    }

    /// Counts the unmatched characters since the last match as edits: as
    /// many substitutions as pair up, the rest deletions or insertions.
    fn settle_pending(&mut self) {
        let (only_a, only_b) = std::mem::take(&mut self.pending);
        let substitutions = only_a.min(only_b);
        self.edits.substitutions += substitutions;
        self.edits.deletions += only_a - substitutions;
        self.edits.insertions += only_b - substitutions;
    }

    /// Ends the open group before word `end_a` of A and `end_b` of B.
    fn close(&mut self, end_a: u32, end_b: u32, out: &mut Vec<Group>) {
        self.settle_pending();
        out.push(Group {
            a: self.start.0..end_a,
            b: self.start.1..end_b,
            chars_a: self.chars.0,
            chars_b: self.chars.1,
            edits: std::mem::take(&mut self.edits),
        });
        self.start = (end_a, end_b);
        self.chars = (0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(a: &str, b: &str) -> Vec<Group> {
        let texts = WordTexts::new(a, b).unwrap();
        let mut out = Vec::new();
        let (a, b) = (0..texts.a.len(), 0..texts.b.len());
        CharAligner::default()
            .align(&texts, a, b, u64::MAX, &mut out)
            .unwrap();
        out
    }

    fn edits(substitutions: u64, insertions: u64, deletions: u64) -> CharEdits {
        CharEdits {
            substitutions,
            insertions,
            deletions,
        }
    }

    #[test]
    fn groups_end_at_spaces_matched_with_spaces() {
        let found = groups("tbe quick hrown", "the quick brown");
        assert_eq!(found.len(), 3);
        assert_eq!((found[0].a.clone(), found[0].b.clone()), (0..1, 0..1));
        assert_eq!(found[0].edits, edits(1, 0, 0));
        assert_eq!(found[1].edits, edits(0, 0, 0));
        assert_eq!((found[2].chars_a, found[2].chars_b), (5, 5));
    }

    #[test]
    fn a_split_word_is_one_group_with_an_insertion() {
        let found = groups("ata mean", "at a mean");
        assert_eq!(found[0].a, 0..1);
        assert_eq!(found[0].b, 0..2);
        assert_eq!(found[0].edits, edits(0, 1, 0));
        assert_eq!((found[0].chars_a, found[0].chars_b), (3, 4));
        assert_eq!((found[1].a.clone(), found[1].b.clone()), (1..2, 2..3));
    }

    #[test]
    fn the_cell_cap_refuses_to_align() {
        let texts = WordTexts::new("abc", "abd").unwrap();
        let mut out = Vec::new();
        let mut aligner = CharAligner::default();
        assert_eq!(aligner.align(&texts, 0..1, 0..1, 15, &mut out), None);
        assert_eq!(aligner.align(&texts, 0..1, 0..1, 16, &mut out), Some(16));
        assert_eq!(out[0].edits, edits(1, 0, 0));
    }
}
