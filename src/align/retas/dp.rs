//! The dynamic-programming LCS used at the leaves, for words and for
//! characters alike. An LCS is the alignment of least edit distance when an
//! insertion and a deletion cost 1 and a substitution 2 (a substitution is
//! never cheaper than deleting and inserting), the costs of the thesis.
//! And the unit-cost edit distance, which counts edit operations.

/// One step of an alignment, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `a[i]` matches `b[j]`.
    Match(usize, usize),
    /// `a[i]` has no counterpart (a deletion).
    OnlyA(usize),
    /// `b[j]` has no counterpart (an insertion).
    OnlyB(usize),
}

/// Fills `table` with the LCS lengths of every pair of suffixes of `a` and
/// `b`: `table[i * (b.len() + 1) + j]` = |LCS(a[i..], b[j..])|. The caller
/// bounds the table's size.
pub fn fill_table<T: PartialEq>(a: &[T], b: &[T], table: &mut Vec<u32>) {
    fill_table_by(a, b, |x, y| x == y, table);
}

/// [`fill_table`] with `same(x, y)` telling which elements match.
pub fn fill_table_by<T, U>(a: &[T], b: &[U], same: impl Fn(&T, &U) -> bool, table: &mut Vec<u32>) {
    let width = b.len() + 1;
    table.clear();
    table.resize((a.len() + 1) * width, 0);
    for (i, x) in a.iter().enumerate().rev() {
        let (row, below) = table[i * width..].split_at_mut(width);
        for (j, y) in b.iter().enumerate().rev() {
            row[j] = if same(x, y) {
                below[j + 1] + 1
            } else {
                below[j].max(row[j + 1])
            };
        }
    }
}

/// Walks one LCS alignment of `a` and `b` through a table from
/// [`fill_table`], calling `step` for every element of both in order. Where
/// two ways are equally good, the element of `a` is passed over first.
pub fn trace<T: PartialEq>(a: &[T], b: &[T], table: &[u32], step: impl FnMut(Step)) {
    trace_by(a, b, |x, y| x == y, table, step);
}

/// [`trace`] through a table from [`fill_table_by`] with the same `same`.
pub fn trace_by<T, U>(
    a: &[T],
    b: &[U],
    same: impl Fn(&T, &U) -> bool,
    table: &[u32],
    mut step: impl FnMut(Step),
) {
    let width = b.len() + 1;
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if same(&a[i], &b[j]) {
            step(Step::Match(i, j));
            i += 1;
            j += 1;
        } else if table[(i + 1) * width + j] >= table[i * width + j + 1] {
            step(Step::OnlyA(i));
            i += 1;
        } else {
            step(Step::OnlyB(j));
            j += 1;
        }
    }
    (i..a.len()).for_each(|i| step(Step::OnlyA(i)));
    (j..b.len()).for_each(|j| step(Step::OnlyB(j)));
}

/// The least number of single-element substitutions, insertions and
/// deletions turning `a` into `b` (Levenshtein), in O(|a|·|b|) time and
/// O(|b|) space. The caller bounds the size.
pub fn edit_operations<T: PartialEq>(a: &[T], b: &[T], row: &mut Vec<u64>) -> u64 {
    row.clear();
    row.extend(0..=b.len() as u64);
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i as u64 + 1;
        for (j, y) in b.iter().enumerate() {
            let substituted = diagonal + u64::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::lcs_len_dp;
    use proptest::prelude::*;

    fn steps(a: &str, b: &str) -> Vec<Step> {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut table = Vec::new();
        fill_table(&a, &b, &mut table);
        let mut out = Vec::new();
        trace(&a, &b, &table, |s| out.push(s));
        out
    }

    #[test]
    fn trace_gives_matches_and_both_kinds_of_gap_in_order() {
        use Step::*;
        assert_eq!(
            steps("cat", "cut"),
            [Match(0, 0), OnlyA(1), OnlyB(1), Match(2, 2)]
        );
        assert_eq!(steps("", "ab"), [OnlyB(0), OnlyB(1)]);
        assert_eq!(steps("ab", ""), [OnlyA(0), OnlyA(1)]);
    }

    #[test]
    fn edit_operations_count_substitutions_once() {
        let ops = |a: &str, b: &str| {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            edit_operations(&a, &b, &mut Vec::new())
        };
        assert_eq!(ops("kitten", "sitting"), 3);
        assert_eq!(ops("abc", "cxx"), 3);
        assert_eq!(ops("", "ab"), 2);
        assert_eq!(ops("ab", ""), 2);
    }

    proptest! {
        #[test]
        fn edit_operations_lie_between_the_lcs_bounds(
            a in prop::collection::vec(0u32..4, 0..30),
            b in prop::collection::vec(0u32..4, 0..30),
        ) {
            let lcs = lcs_len_dp(&a, &b) as u64;
            let ops = edit_operations(&a, &b, &mut Vec::new());
            let (n, m) = (a.len() as u64, b.len() as u64);
            prop_assert!(ops >= n.max(m) - lcs);
            prop_assert!(ops <= n + m - 2 * lcs);
        }

        #[test]
        fn traced_matches_are_an_lcs_and_every_element_is_stepped_once(
            a in prop::collection::vec(0u32..5, 0..30),
            b in prop::collection::vec(0u32..5, 0..30),
        ) {
            let mut table = Vec::new();
            fill_table(&a, &b, &mut table);
            prop_assert_eq!(table[0] as usize, lcs_len_dp(&a, &b));
            let (mut next_a, mut next_b, mut matches) = (0, 0, 0);
            trace(&a, &b, &table, |s| match s {
                Step::Match(i, j) => {
                    assert_eq!((i, j), (next_a, next_b));
                    assert_eq!(a[i], b[j]);
                    (next_a, next_b, matches) = (i + 1, j + 1, matches + 1);
                }
                Step::OnlyA(i) => { assert_eq!(i, next_a); next_a += 1; }
                Step::OnlyB(j) => { assert_eq!(j, next_b); next_b += 1; }
            });
            prop_assert_eq!((next_a, next_b), (a.len(), b.len()));
            prop_assert_eq!(matches, table[0]);
        }
    }
}
