//! The passage path's second unit beside the passage: a *window* of two
//! consecutive passages of a book (a book of one passage is its own
//! window). A translated work that a passage boundary of its volume cuts
//! in two lies whole in a window, where half of it in each passage may not
//! reach the passage path's evidence; a work inside one passage is still
//! better found by that passage alone, where fewer chance words surround
//! it, so both units are searched (ARCHITECTURE.md, "Translations inside
//! volumes").
//!
//! This module owns the windows of a query's passages, the exact planner
//! over the windows of a passage reader's books and the brute force it
//! equals. Windows are not stored: a window's candidate is the sum of its
//! passages' candidates, since a translated pair's common count, the
//! frequent words it may share and its LCS bound each add up over the two
//! passages of Y (an LCS of X with Y₁Y₂ is at most LCS(X, Y₁) + LCS(X, Y₂)).

use std::borrow::Cow;
use std::ops::Range;

use super::planner::{BestPerBook, Explain, QueryOptions};
use super::postings::{Candidate, Join, Probe};
use super::Reader;
use crate::repr::passages::PASSAGE_WORDS;

/// Passages per window.
pub(crate) const WINDOW_PASSAGES: u32 = 2;

/// Pairs whose shorter book has at most this many words (8 passages) are
/// searched window to window as well as passage to passage. A longer work
/// has many passages, one of which lies mostly inside one passage of its
/// volume: on the human-translations set every piece of 1–5% of its
/// volume (10K–50K words) is found passage to passage, while windows
/// raise the pieces of 0.5–1% from 0.84 to 0.97.
pub(crate) const WINDOWED_WORDS: u64 = 8 * PASSAGE_WORDS as u64;

/// Whether books of `a` and `b` words (a work inside a volume) are also
/// searched window to window.
pub(crate) fn windowed_pair(a: u64, b: u64) -> bool {
    a.min(b) <= WINDOWED_WORDS
}

/// The windows of a book's `passages`, in order: each run of
/// [`WINDOW_PASSAGES`] consecutive passages joined; a book of fewer
/// passages whole.
pub(crate) fn windows_of<'a>(passages: &[Cow<'a, [u32]>]) -> Vec<Cow<'a, [u32]>> {
    let span = WINDOW_PASSAGES;
    match passages.len() {
        0 => Vec::new(),
        n if n <= span as usize => vec![Cow::Owned(passages.concat())],
        _ => passages
            .windows(span as usize)
            .map(|run| Cow::Owned(run.concat()))
            .collect(),
    }
}

impl Reader {
    /// The windows of the book in `slot`, each by its first passage
    /// (numbered across the runs).
    fn window_starts(&self, slot: u32) -> Range<u32> {
        let (passages, span) = (self.part_range(slot), WINDOW_PASSAGES);
        match passages.len() {
            0 => passages,
            n if n <= span as usize => passages.start..passages.start + 1,
            _ => passages.start..passages.end + 1 - span,
        }
    }

    /// The passages of the window that starts at passage `start`.
    fn window_passages(&self, start: u32) -> Range<u32> {
        let end = self.part_range(self.book_of_part(start)).end;
        start..start.saturating_add(WINDOW_PASSAGES).min(end)
    }

    /// The hashes of the window that starts at passage `start`: its
    /// passages' in order.
    fn window_hashes(&self, start: u32) -> Vec<u32> {
        let mut hashes = Vec::with_capacity(self.window_len(start) as usize);
        for passage in self.window_passages(start) {
            hashes.extend_from_slice(&self.runs().part_hashes(passage).to_vec());
        }
        hashes
    }

    /// The elements of the window that starts at passage `start`.
    fn window_len(&self, start: u32) -> u32 {
        self.window_passages(start)
            .map(|passage| self.runs().part_len(passage))
            .sum()
    }

    /// The candidate of the window that starts at passage `start`, from
    /// `counted` (the passages' candidates, by passage): their counts and
    /// bounds added up, a passage that is no candidate sharing nothing.
    fn window_candidate(&self, counted: &[Candidate], start: u32) -> Candidate {
        let mut window = Candidate {
            book: start,
            counted: 0,
            frequent_at_most: 0,
            lcs_at_most: 0,
        };
        for passage in self.window_passages(start) {
            if let Ok(i) = counted.binary_search_by_key(&passage, |c| c.book) {
                let c = &counted[i];
                window.counted += c.counted;
                window.frequent_at_most += c.frequent_at_most;
                window.lcs_at_most += c.lcs_at_most;
            }
        }
        window
    }

    /// Exact mode over windows: offers to `best` the books `wanted` keeps
    /// that the query windows `probes` (of `lens[q]` elements each, as
    /// [`Reader::plan_exact`] takes them) reach under `options`, each with
    /// its best pair of windows (`parts` holds their first passages). Each
    /// window's candidate is summed from its passages' counts, bounded,
    /// and verified in bound order through the join's lookups.
    pub(crate) fn offer_translated_windows(
        &self,
        (probes, lens): (&[Probe<'_>], &[u32]),
        wanted: impl Fn(u32) -> bool,
        options: &QueryOptions,
        explain: &mut Explain,
        best: &mut BestPerBook,
    ) {
        let postings = self.postings();
        let mut join = Join::new(self.part_count());
        let searched = |passage: u32| {
            let slot = self.book_of_part(passage);
            !self.runs().is_dead(slot) && wanted(slot)
        };
        let mut bounded = Vec::new();
        let (mut counted, mut starts): (Vec<Candidate>, Vec<u32>) = (Vec::new(), Vec::new());
        for (q, probe) in probes.iter().enumerate() {
            counted.clear();
            counted.extend(
                join.count_bounded(&postings, probe, |c| searched(c.book))
                    .iter()
                    .filter(|c| searched(c.book)),
            );
            explain.entries_scanned += join.entries_scanned();
            explain.frequent_words += join.frequent_in_x() as u64;
            counted.sort_unstable_by_key(|c| c.book);
            // The windows holding a candidate passage, in order.
            starts.clear();
            for c in &counted {
                let windows = self.window_starts(self.book_of_part(c.book));
                for start in c.book.saturating_sub(WINDOW_PASSAGES - 1)..=c.book {
                    if windows.contains(&start) && starts.last() < Some(&start) {
                        starts.push(start);
                    }
                }
            }
            for &start in &starts {
                explain.candidates += 1;
                let window = self.window_candidate(&counted, start);
                let bound = window.bound(options.score, lens[q], self.window_len(start));
                if bound > 0.0 && bound >= options.min_score && options.may_admit(&window) {
                    bounded.push((bound, q as u32, window));
                }
            }
        }
        // A batch is aligned query window after query window, each with
        // its candidate windows through the join's lookups.
        let mut by_query: Vec<(u32, u32)> = Vec::new();
        let mut windows: Vec<Range<u32>> = Vec::new();
        let verify = |batch: &[(f64, u32, Candidate)], best: &mut BestPerBook| {
            by_query.clear();
            by_query.extend(batch.iter().map(|&(_, q, window)| (q, window.book)));
            by_query.sort_unstable();
            for same in by_query.chunk_by(|a, b| a.0 == b.0) {
                let q = same[0].0;
                windows.clear();
                windows.extend(same.iter().map(|&(_, start)| self.window_passages(start)));
                join.align_probe_windows(
                    &postings,
                    &probes[q as usize],
                    lens[q as usize],
                    &windows,
                    |start, overlap| {
                        let ranked = self.ranked(q, start, overlap, options.score);
                        self.offer_if_qualifies(ranked, options, best);
                    },
                );
            }
        };
        self.verify_in_bound_order(bounded, options, explain, best, verify);
    }

    /// Offers to `best` every book `wanted` keeps whose best pair of
    /// windows with the `queries` query windows qualifies under `options`,
    /// every pair aligned by `align` (query window, window's hashes): the
    /// reference [`offer_translated_windows`](Self::offer_translated_windows)
    /// equals.
    pub(crate) fn brute_force_windows(
        &self,
        (queries, align): (u32, impl Fn(u32, &[u32]) -> crate::align::Overlap),
        wanted: impl Fn(u32) -> bool,
        options: &QueryOptions,
        best: &mut BestPerBook,
    ) {
        for slot in self.runs().live_slots().filter(|&slot| wanted(slot)) {
            for start in self.window_starts(slot) {
                let y = self.window_hashes(start);
                for q in 0..queries {
                    let ranked = self.ranked(q, start, align(q, &y), options.score);
                    self.offer_if_qualifies(ranked, options, best);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_joins_two_consecutive_passages_and_a_lone_passage_is_its_own() {
        let passages: Vec<Cow<'_, [u32]>> = vec![
            Cow::Owned(vec![1, 2]),
            Cow::Owned(vec![3]),
            Cow::Owned(vec![4, 5]),
        ];
        let windows = windows_of(&passages);
        assert_eq!(windows, vec![vec![1, 2, 3], vec![3, 4, 5]]);
        assert_eq!(windows_of(&passages[..1]), vec![vec![1, 2]]);
        assert!(windows_of(&[]).is_empty());
    }
}
