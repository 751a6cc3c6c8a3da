//! The unique-word join over the postings the segments store.
//!
//! Every segment (one per load batch, merged by compactions: the runs of a
//! log-structured merge) holds the posting lists of its own parts: for each
//! word, the parts whose sequence holds it, in decreasing order, each with
//! the element's fine block ([`crate::storage::posting_lists`]). The join
//! reads them in place, run after run; a word's list in the whole index is
//! the concatenation of its lists in the runs, and parts are numbered run
//! after run, so nothing is merged at query time. Joining a sequence X
//! decodes X's lists once, element after element, counting |X ∩ Y| for
//! every part Y at once; the block grids of the parts whose bound survives
//! are filled from the decoded entries; and each part kept after them is
//! aligned by looking its own sequence's words up in X's, whose longest
//! increasing subsequence is |LCS(X, Y)|.
//!
//! **Frequent words.** A word unique in more parts than a cap (see
//! [`default_frequent_word_cap`]; its lists summed over the runs) is
//! skipped by counting, and such lists are where a join spends most of its
//! time on large collections. The bound stays sound: a pair can share at
//! most min(skipped words of X, skipped words of Y) of them, and that is
//! added to both its counted common words and its LCS bound
//! ([`Candidate`]); parts sharing no counted word still get that bound and
//! are candidates when it can reach the threshold. Each part's frequent
//! words are counted on first use from the segments' long-word lists
//! ([`Frequent`]). Alignment then looks each kept part's words up,
//! frequent ones included, so verified overlaps are exact.
//!
//! **Block bound.** The decoded entries are then counted per cell of a
//! [`BLOCKS`]×[`BLOCKS`] grid (block of X × block of Y, by sequence index)
//! for the candidates the common count leaves within reach. The common
//! words of an increasing subsequence visit cells along a monotone path,
//! so the heaviest monotone path through the grid bounds |LCS| from
//! above. For common words in random order it is about an eighth of
//! |X ∩ Y|; for a copy it equals it. The candidates still within reach,
//! when they hold more elements than X's lists hold entries, get a
//! [`FINE_BLOCKS`]×[`FINE_BLOCKS`] grid too, whose path bounds random order
//! to about a thirty-second. Candidates that share few words each (the
//! word sample's) are bounded instead by a chain: each one's entries
//! gathered apart in X's order, the longest run of them whose fine
//! blocks never decrease, which is tighter than either grid and costs a
//! few bit operations per entry rather than a grid's cells. The planner
//! prunes with them.
//!
//! **The word sample** of approximate mode is the same lists, filtered:
//! only the words of the sample, and none listed in more parts than the
//! sample's cap ([`Vocabulary::Sample`]).

use std::collections::HashMap;
use std::ops::Range;

use nohash_hasher::BuildNoHashHasher;

use super::runs::Runs;
use crate::align::{lis_span, ElementIndex, Overlap, Score};
use crate::batch::in_word_sample;
#[cfg(test)]
use crate::storage::posting_lists::fine_block_of;
pub use crate::storage::posting_lists::FINE_BLOCKS;
use crate::storage::posting_lists::{self, List};
use crate::storage::segment::Segment;
pub use crate::storage::segment_books::BLOCKS;
use crate::storage::segment_books::LONG_LIST;

const NONE: u32 = u32::MAX;

/// The least list length past which a word counts as frequent, whatever the
/// collection's size: shorter lists are cheap to scan, and skipping them
/// would only loosen bounds.
pub const MIN_FREQUENT_WORD_CAP: u32 = 1000;

/// Share of the parts past which a word counts as frequent. Measured on
/// 3,000 generated books (`benches/README.md`): a cap of a third of the
/// books skipped 22% of the entries but loosened the bounds of almost every
/// pair, so the self-join aligned 2,000 times as many pairs and took 8 to 15
/// times as long; from half the books on, nothing was skipped. Only words in most
/// books are skipped by default.
pub const FREQUENT_WORD_SHARE: f64 = 0.5;

/// The default cap for `parts` parts: words unique in more parts than
/// max([`MIN_FREQUENT_WORD_CAP`], half the parts) are skipped by counting.
pub fn default_frequent_word_cap(parts: usize) -> u32 {
    MIN_FREQUENT_WORD_CAP.max((parts as f64 * FREQUENT_WORD_SHARE) as u32)
}

/// Which words a join reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vocabulary {
    /// Every word; words listed in more parts than the cap are frequent:
    /// skipped by counting and bounded.
    All {
        /// The frequent-word cap.
        cap: u32,
    },
    /// The words of approximate mode's word sample; words listed in more
    /// parts than the cap are left out altogether.
    Sample {
        /// The sample's cap.
        cap: u32,
    },
}

impl Vocabulary {
    fn admits(self, hash: u32) -> bool {
        match self {
            Vocabulary::All { .. } => true,
            Vocabulary::Sample { .. } => in_word_sample(hash),
        }
    }

    fn cap(self) -> u32 {
        match self {
            Vocabulary::All { cap } | Vocabulary::Sample { cap } => cap,
        }
    }
}

/// Each part's count of frequent words (words whose lists together hold
/// more entries than the cap), for the parts that have any, ascending.
#[derive(Debug, Default)]
pub struct Frequent {
    skipped: Vec<(u32, u32)>,
}

impl Frequent {
    /// Counts them over `runs` for `cap`. A word listed more than `cap`
    /// times in all has a list longer than `cap / runs` in some run; the
    /// runs list their words of [`LONG_LIST`] entries or more, longest
    /// first, so only those are read unless the runs are so many that
    /// `cap / runs` falls below it.
    pub fn count(runs: &Runs, cap: u32) -> Frequent {
        let segments = runs.segments();
        let per_run = cap / segments.len().max(1) as u32;
        let mut candidates: Vec<u32> = Vec::new();
        for segment in segments {
            if per_run >= LONG_LIST {
                for word in segment.long_words().iter() {
                    if segment.list_len(word) <= per_run {
                        break;
                    }
                    candidates.push(segment.word_hash(word));
                }
            } else {
                for (word, list) in segment.word_lists().enumerate() {
                    if list.len() > per_run {
                        candidates.push(segment.word_hash(word as u32));
                    }
                }
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        let mut skipped: HashMap<u32, u32, BuildNoHashHasher<u32>> = HashMap::default();
        for hash in candidates {
            let lists: Vec<(usize, List<'_>)> = segments
                .iter()
                .enumerate()
                .filter_map(|(r, s)| s.find_word(hash).map(|w| (r, s.word_list(w))))
                .collect();
            let total: usize = lists.iter().map(|(_, list)| list.len() as usize).sum();
            if total <= cap as usize {
                continue;
            }
            for (r, list) in lists {
                list.for_each(None, |part, _| {
                    if let Some(part) = runs.global_part(r, part) {
                        *skipped.entry(part).or_default() += 1;
                    }
                });
            }
        }
        let mut skipped: Vec<(u32, u32)> = skipped.into_iter().collect();
        skipped.sort_unstable();
        Frequent { skipped }
    }

    /// Frequent words of part `part`.
    fn of(&self, part: u32) -> u32 {
        self.skipped
            .binary_search_by_key(&part, |&(p, _)| p)
            .map_or(0, |i| self.skipped[i].1)
    }
}

/// The postings as one join reads them: the runs, the words it reads and,
/// for [`Vocabulary::All`], each part's frequent words.
#[derive(Debug, Clone, Copy)]
pub struct Postings<'r> {
    runs: &'r Runs,
    vocabulary: Vocabulary,
    frequent: Option<&'r Frequent>,
}

impl<'r> Postings<'r> {
    /// Every word, with the frequent words of `frequent` (counted for
    /// `cap`).
    pub fn all(runs: &'r Runs, cap: u32, frequent: &'r Frequent) -> Self {
        Postings {
            runs,
            vocabulary: Vocabulary::All { cap },
            frequent: Some(frequent),
        }
    }

    /// Every word, none frequent: what alignment reads.
    pub fn every_word(runs: &'r Runs) -> Self {
        Postings {
            runs,
            vocabulary: Vocabulary::All { cap: u32::MAX },
            frequent: None,
        }
    }

    /// The word sample, without the words listed in more than `cap` parts.
    pub fn sample(runs: &'r Runs, cap: u32) -> Self {
        Postings {
            runs,
            vocabulary: Vocabulary::Sample { cap },
            frequent: None,
        }
    }

    fn skipped(&self, part: u32) -> u32 {
        self.frequent.map_or(0, |f| f.of(part))
    }
}

/// What a join probes the postings with.
#[derive(Debug, Clone, Copy)]
pub enum Probe<'a> {
    /// A stored part, against every part, itself included.
    Part(u32),
    /// A stored part, against the parts of the books after its own only
    /// (as the all-pairs join needs: neither earlier books nor the other
    /// parts of its own book, which share its words where they overlap).
    PartAgainstLater(u32),
    /// The unique-word hashes of a sequence not stored.
    Hashes(&'a [u32]),
    /// A sequence translated into another language: each element of X
    /// replaced in place by the hashes of its translations (or kept when it
    /// has none). `groups[e]` is the index in X of element `e` of `hashes`,
    /// non-decreasing. Common words are counted per pair (element of X,
    /// element of Y), and an LCS takes at most one pair per element of X
    /// and one per element of Y.
    Translated {
        /// The translations' hashes, in X's order.
        hashes: &'a [u32],
        /// Each one's element of X.
        groups: &'a [u32],
    },
}

/// A probe's sequence resolved against every run: its admitted elements'
/// hashes and, per run, where the posting list to scan for each element
/// starts, and what bounds a count.
#[derive(Debug, Default)]
struct Resolved {
    /// The admitted elements' hashes, or none until
    /// [`Resolved::find_hashes`] runs: a stored part read with every word
    /// is resolved by the words its own run stores, and needs its hashes
    /// only to find its words in another run (with one run, never). Each
    /// is a lookup in the run's table of hashes, which misses the caches
    /// once the table outgrows them.
    hashes: Vec<u32>,
    /// For a stored part, its run (whose `words` are always found).
    own_run: Option<usize>,
    /// The elements the vocabulary admits, frequent ones included: X's
    /// length for a score.
    admitted: u32,
    /// For a translated probe, each admitted element's index in X.
    groups: Option<Vec<u32>>,
    /// Per run, each element's word there ([`NONE`]: absent), frequent
    /// or not: alignment looks a kept part's words up among them. Found
    /// in a run on first use ([`Resolved::find_words`]) but in the probe's
    /// own run, which stores them.
    words: Vec<Vec<u32>>,
    /// Per run, whether `words` holds the elements' words there.
    words_found: Vec<bool>,
    /// Per run, the bytes of each element's list ([`NO_LIST`]: absent or
    /// frequent), found once per probe.
    lists: Vec<Vec<(u32, u32)>>,
    frequent: u32,
    /// For a probe against later books: the run of its book's last part
    /// and that part in the run, past which entries are read.
    after: Option<(usize, u32)>,
}

/// How many lists (or words) ahead of the one read a loop over scattered
/// lists asks for the next ones' bytes ([`Segment::prefetch_list`]): far
/// enough that they arrive in time, near enough that they are still
/// cached when read.
const PREFETCH_AHEAD: usize = 16;

/// The same while decoding, where each list takes longer to read.
const DECODE_AHEAD: usize = 4;

/// No list to scan.
const NO_LIST: (u32, u32) = (0, 0);

/// The most entries the list whose bytes are `range` can hold.
fn most_entries((start, end): (u32, u32)) -> usize {
    posting_lists::most_entries(end.saturating_sub(start) as usize)
}

impl Resolved {
    /// The probe's elements the vocabulary admits, with their words in
    /// every run and their lists there (left out when frequent).
    fn of(postings: &Postings<'_>, probe: &Probe<'_>) -> Resolved {
        let mut resolved = Resolved::words_of(postings, probe);
        resolved.find_lists(postings);
        resolved
    }

    /// The probe's elements the vocabulary admits and their words in
    /// every run, without their lists: what alignment reads.
    fn words_of(postings: &Postings<'_>, probe: &Probe<'_>) -> Resolved {
        let runs = postings.runs;
        let vocabulary = postings.vocabulary;
        let segments = runs.segments();
        let mut resolved = Resolved {
            words: vec![Vec::new(); segments.len()],
            words_found: vec![false; segments.len()],
            ..Resolved::default()
        };
        match *probe {
            Probe::Part(part) | Probe::PartAgainstLater(part) => {
                let (run, local) = runs.locate_part(part);
                let segment = &segments[run];
                let words = segment.part_words(local as usize);
                let own = match vocabulary {
                    Vocabulary::All { .. } => words.iter().collect(),
                    Vocabulary::Sample { .. } => {
                        let mut own = Vec::new();
                        for (hash, word) in
                            segment.part_hashes(local as usize).iter().zip(words.iter())
                        {
                            if vocabulary.admits(hash) {
                                resolved.hashes.push(hash);
                                own.push(word);
                            }
                        }
                        own
                    }
                };
                resolved.words[run] = own;
                resolved.words_found[run] = true;
                resolved.own_run = Some(run);
                if let Probe::PartAgainstLater(_) = probe {
                    let book = runs.part_range(runs.book_of_part(part));
                    resolved.after = Some(runs.locate_part(book.end.max(part + 1) - 1));
                }
            }
            Probe::Hashes(hashes) => {
                resolved.hashes = (hashes.iter().copied())
                    .filter(|&h| vocabulary.admits(h))
                    .collect();
            }
            Probe::Translated { hashes, groups } => {
                let (hashes, groups): (Vec<u32>, Vec<u32>) = (hashes.iter().zip(groups))
                    .filter(|&(&h, _)| vocabulary.admits(h))
                    .map(|(&h, &g)| (h, g))
                    .unzip();
                resolved.admitted = groups.chunk_by(|a, b| a == b).count() as u32;
                resolved.hashes = hashes;
                resolved.groups = Some(groups);
                return resolved;
            }
        }
        resolved.admitted = resolved.len() as u32;
        resolved
    }

    /// The elements resolved (after the word sample left some out).
    fn len(&self) -> usize {
        match self.own_run {
            Some(run) => self.words[run].len(),
            None => self.hashes.len(),
        }
    }

    /// Reads the elements' hashes from their own run's table unless found
    /// (as many as the elements).
    fn find_hashes(&mut self, segments: &[Segment]) {
        let Some(run) = self.own_run.filter(|_| self.hashes.len() != self.len()) else {
            return;
        };
        let segment = &segments[run];
        self.hashes = self.words[run]
            .iter()
            .map(|&w| segment.word_hash(w))
            .collect();
    }

    /// Finds the list of each element in every run, and leaves out the
    /// frequent ones (the word sample drops them, counting skips their
    /// lists).
    fn find_lists(&mut self, postings: &Postings<'_>) {
        let segments = postings.runs.segments();
        for r in 0..segments.len() {
            self.find_words(segments, r);
        }
        let len = self.len();
        let vocabulary = postings.vocabulary;
        let Resolved {
            hashes,
            groups,
            words,
            lists: found,
            frequent: frequent_found,
            ..
        } = self;
        let list_of = |segment: &Segment, word: u32| match word {
            NONE => NO_LIST,
            word => segment.list_range(word),
        };
        let mut lists: Vec<Vec<(u32, u32)>> = (segments.iter().zip(words.iter()))
            .map(|(segment, words)| {
                (words.iter().enumerate())
                    .map(|(i, &w)| {
                        if let Some(&ahead) = words.get(i + PREFETCH_AHEAD) {
                            segment.prefetch_list_range(ahead);
                        }
                        list_of(segment, w)
                    })
                    .collect()
            })
            .collect();
        let cap = vocabulary.cap() as usize;
        // A list has at most one entry per part: with no more parts than
        // the cap, no word is frequent, and no list need be read here. Nor
        // need lists whose bytes cannot hold more entries than the cap.
        let mut frequent = 0;
        if postings.runs.part_count() > cap {
            let is_frequent: Vec<bool> = (0..len)
                .map(|i| {
                    let most: usize = lists.iter().map(|lists| most_entries(lists[i])).sum();
                    let total = || -> usize {
                        (segments.iter().zip(&lists))
                            .map(|(s, lists)| s.list_at(lists[i]).len() as usize)
                            .sum()
                    };
                    most > cap && total() > cap
                })
                .collect();
            frequent = is_frequent.iter().filter(|&&f| f).count() as u32;
            if matches!(vocabulary, Vocabulary::Sample { .. }) && frequent > 0 {
                let kept: Vec<bool> = (0..len)
                    .map(|i| !is_frequent[i] && words.iter().any(|w| w[i] != NONE))
                    .collect();
                leave_out(&kept, hashes, groups, words, &mut lists);
                frequent = 0;
            } else {
                for lists in &mut lists {
                    for (list, _) in lists.iter_mut().zip(&is_frequent).filter(|(_, &f)| f) {
                        *list = NO_LIST;
                    }
                }
            }
        }
        *found = lists;
        *frequent_found = frequent;
    }

    /// Finds the elements' words in run `r` (of `segments`) unless found.
    fn find_words(&mut self, segments: &[Segment], r: usize) {
        if self.words_found.get(r).copied().unwrap_or(true) {
            return;
        }
        self.find_hashes(segments);
        let segment = &segments[r];
        self.words[r] = (self.hashes.iter())
            .map(|&h| segment.find_word(h).unwrap_or(NONE))
            .collect();
        self.words_found[r] = true;
    }

    /// The index in X of element `e` of the resolved sequence.
    fn group(&self, e: usize) -> u32 {
        self.groups.as_ref().map_or(e as u32, |groups| groups[e])
    }

    /// Element `i`'s list in run `r` (whose segment is `segment`) and
    /// the part its entries must be past: none when the word is not there
    /// (or frequent) or, for a probe against later books, when the run
    /// comes before the run of its book's last part; else its list, past
    /// that part in that run.
    #[inline]
    fn list<'s>(
        &self,
        segment: &'s Segment,
        r: usize,
        i: usize,
    ) -> Option<(List<'s>, Option<u32>)> {
        let at = self.lists[r][i];
        if at == NO_LIST {
            return None;
        }
        let after = match self.after {
            Some((run, _)) if r < run => return None,
            Some((run, local)) if r == run => Some(local),
            _ => None,
        };
        Some((segment.list_at(at), after))
    }
}

/// Keeps, in order, the entries (`parts` and the start of `blocks`) whose
/// part is below `limit`, the run's part count, which only a damaged list
/// passes: how many.
#[inline]
fn keep_parts_below(limit: u32, parts: &mut [u32], blocks: &mut [u8]) -> usize {
    // A fold without an early exit, which compiles to wide compares.
    if parts.iter().fold(true, |all, &part| all & (part < limit)) {
        return parts.len();
    }
    let mut kept = 0;
    for i in 0..parts.len().min(blocks.len()) {
        if parts[i] < limit {
            parts[kept] = parts[i];
            blocks[kept] = blocks[i];
            kept += 1;
        }
    }
    kept
}

/// Leaves out the elements `kept` does not keep, as the word sample does
/// with frequent ones: neither counted nor aligned. (An element absent
/// from every run goes too: it matches nothing.) `words` and `lists` hold,
/// per run, each element's word and list there; `hashes` the elements'
/// hashes, or nothing when not found.
fn leave_out(
    kept: &[bool],
    hashes: &mut Vec<u32>,
    groups: &mut Option<Vec<u32>>,
    words: &mut [Vec<u32>],
    lists: &mut [Vec<(u32, u32)>],
) {
    fn retain<T>(kept: &[bool], values: &mut Vec<T>) {
        let mut i = 0;
        values.retain(|_| {
            i += 1;
            kept.get(i - 1).copied().unwrap_or(false)
        });
    }
    retain(kept, hashes);
    if let Some(groups) = groups {
        retain(kept, groups);
    }
    words.iter_mut().for_each(|words| retain(kept, words));
    lists.iter_mut().for_each(|lists| retain(kept, lists));
}

/// The elements of block `block` of a sequence of `len` elements cut
/// into `blocks` blocks: those `i` with `i · blocks / len == block`
/// ([`fine_block_of`] for [`FINE_BLOCKS`], its quarter for [`BLOCKS`]),
/// without a division per element.
fn block_range(block: usize, len: usize, blocks: usize) -> std::ops::Range<usize> {
    let start = |b: usize| match b >= blocks {
        true => len,
        false => (b * len).div_ceil(blocks),
    };
    start(block)..start(block + 1)
}

/// Extends heaviest monotone paths by one row of the block grid: `paths[by]`
/// is the heaviest path through the rows so far ending in column `by`;
/// `row` holds the next row's cell counts and is left zeroed.
///
/// Paths never decrease along a row, so the row's cells before its first
/// count leave them as they are, and past its last count a path becomes
/// the larger of itself and the path at that count: only the columns
/// between wait on each other, and a row of zeros is skipped.
fn extend_paths<const B: usize>(paths: &mut [u32; B], row: &mut [u16; B]) {
    // Most rows of a sparse grid are empty: found without a branch per cell.
    if row.iter().fold(0, |any, &count| any | count) == 0 {
        return;
    }
    let Some(first) = row.iter().position(|&count| count != 0) else {
        return;
    };
    let last = row.iter().rposition(|&count| count != 0).unwrap_or(first);
    let mut left = 0;
    for (path, count) in (paths.iter_mut().zip(row.iter_mut()))
        .take(last + 1)
        .skip(first)
    {
        let value = u32::from(std::mem::take(count)) + (*path).max(left);
        *path = value;
        left = value;
    }
    for path in paths.iter_mut().skip(last + 1) {
        *path = (*path).max(left);
    }
}

/// [`extend_paths`] for a row whose cells are mostly counted (a dense
/// grid's, see [`DENSE_GRID_FILL`]). The row's path ending in column `j`
/// enters it in some column `i ≤ j` and takes every cell from `i` to `j`:
/// with `S` the row's prefix sums, it is `S[j] + max over i ≤ j of
/// (paths[i] − S[i − 1])`. The sums and the running maximum are each
/// taken in log₂ `B` steps over whole arrays, in vector registers, without
/// the dependency from column to column that the sparse form waits on
/// (the maximum is kept non-negative by adding the row's total first).
#[inline]
fn extend_dense_row<const B: usize>(paths: &mut [u32; B], row: &mut [u16; B]) {
    let mut sums: [u32; B] = std::array::from_fn(|j| u32::from(row[j]));
    *row = [0; B];
    prefix_scan(&mut sums, u32::wrapping_add);
    let total = sums[B - 1];
    // Paths stay below 2^31: one takes at most one entry per element of
    // X, and the grid is skipped for sequences of a million elements.
    // Signed, which the vector units compare.
    let mut entering: [i32; B] =
        std::array::from_fn(|i| (paths[i] + total - if i == 0 { 0 } else { sums[i - 1] }) as i32);
    prefix_scan(&mut entering, i32::max);
    for ((path, &sum), &best) in paths.iter_mut().zip(&sums).zip(&entering) {
        *path = (sum + best as u32).wrapping_sub(total);
    }
}

/// Replaces `values[j]` by `values[0] ⊕ … ⊕ values[j]` for an associative
/// `op`, in log₂ `B` steps over the whole array (`B` at most 64).
#[inline(always)]
fn prefix_scan<T: Copy, const B: usize>(values: &mut [T; B], op: impl Fn(T, T) -> T + Copy) {
    scan_step::<T, B, 1>(values, op);
    scan_step::<T, B, 2>(values, op);
    scan_step::<T, B, 4>(values, op);
    scan_step::<T, B, 8>(values, op);
    scan_step::<T, B, 16>(values, op);
    scan_step::<T, B, 32>(values, op);
}

/// One step of [`prefix_scan`]: each value combined with the one `STEP`
/// before it (a constant, so that the step is a few vector operations),
/// from the last down, so that each reads the value before this step.
#[inline(always)]
fn scan_step<T: Copy, const B: usize, const STEP: usize>(
    values: &mut [T; B],
    op: impl Fn(T, T) -> T,
) {
    for j in (STEP..B).rev() {
        values[j] = op(values[j], values[j - STEP]);
    }
}

/// A grid whose candidates count on average at least `B · B / DENSE_GRID_FILL`
/// common words (a word for every other cell) extends its rows by
/// [`extend_dense_row`], others by [`extend_paths`]. Measured on the
/// corpus's all-pairs: the exact join's coarse grids are dense (a
/// candidate there shares a hundred words or more), and the dense form
/// took 6% off it; the word sample's are sparse, and the dense form added
/// a fifth to it.
const DENSE_GRID_FILL: usize = 2;

/// Kept candidates counting fewer common words than this on average are
/// bounded by chains through their own entries ([`Join::chain_bounds`]),
/// others by the grids. Either takes a pass over X's decoded entries; a
/// chain then costs a few bit operations per entry of its candidate
/// ([`longest_non_decreasing`]), a grid a pass over its 256 cells (and a
/// fine grid's 4,096) whatever its entries. Chains for every candidate
/// took the corpus's exact all-pairs 1.4 times the CPU.
const CHAIN_MOST_WORDS: u64 = 64;

/// The length of the longest subsequence of `values` (fine blocks, below
/// [`FINE_BLOCKS`]) that never decreases. Patience sorting, with the
/// piles' tops kept as a multiset of values: how many of each, and a bit
/// per value present. A value takes the place of the least top above it
/// (found from the bits in one instruction) or starts a new pile.
fn longest_non_decreasing(values: &[u8]) -> u32 {
    const _: () = assert!(FINE_BLOCKS == 64);
    let mut tops = [0u32; FINE_BLOCKS];
    let mut present = 0u64;
    let mut piles = 0;
    for &value in values {
        let value = u32::from(value) % FINE_BLOCKS as u32;
        let above = present & !(2u64 << value).wrapping_sub(1);
        match above {
            0 => piles += 1,
            _ => {
                let top = above.trailing_zeros();
                tops[top as usize] -= 1;
                if tops[top as usize] == 0 {
                    present &= !(1 << top);
                }
            }
        }
        tops[value as usize] += 1;
        present |= 1 << value;
    }
    piles
}

/// The heaviest monotone path through a grid of cell counts, its rows
/// extended by `extend` ([`extend_paths`] or [`extend_dense_row`]).
#[cfg(test)]
fn heaviest_monotone_path(
    cells: &[u16],
    extend: fn(&mut [u32; BLOCKS], &mut [u16; BLOCKS]),
) -> u32 {
    let mut paths = [0u32; BLOCKS];
    for row in cells.as_chunks::<BLOCKS>().0 {
        let mut row = *row;
        extend(&mut paths, &mut row);
        assert_eq!(row, [0; BLOCKS], "a row is left zeroed");
    }
    paths[BLOCKS - 1]
}

/// A part that may share words with the joined sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The part (numbered across the runs).
    pub book: u32,
    /// Common words found by counting: |X ∩ Y| less the frequent words the
    /// two share.
    pub counted: u32,
    /// How many frequent words the two may share: the fewer of X's and Y's.
    /// Zero when X has none, and then `counted` is |X ∩ Y|.
    pub frequent_at_most: u32,
    /// An upper bound on |LCS(X, Y)|: the block grid's, plus `frequent_at_most`.
    pub lcs_at_most: u32,
}

impl Candidate {
    /// Part `part` as a candidate with nothing counted, to be aligned
    /// ([`Join::align`] reads its part alone).
    pub fn unbounded(part: u32) -> Self {
        Candidate {
            book: part,
            counted: 0,
            frequent_at_most: 0,
            lcs_at_most: 0,
        }
    }

    /// An upper bound on `score` for this candidate, |X| being `len_x` and
    /// |Y| `len_y`. |X ∩ Y| lies in `counted ..= counted + frequent_at_most`
    /// and is at least the LCS; every score is non-decreasing in the LCS,
    /// and the coverage score falls as |X ∩ Y| grows, so the bound takes the
    /// largest LCS with the least common count consistent with it.
    pub fn bound(&self, score: Score, len_x: u32, len_y: u32) -> f64 {
        let lcs = self.lcs_at_most.min(self.counted + self.frequent_at_most);
        score.upper_bound_with_lcs(len_x, len_y, self.counted.max(lcs), lcs)
    }
}

/// Per-thread scratch for joining one sequence against the postings.
#[derive(Debug)]
pub struct Join {
    frequent_in_x: u32,
    resolved: Resolved,
    /// Per run, the probe's (word, index in X) by word and each word's
    /// first entry there (see `index_x`), for the runs `x_indexed` marks.
    x_by_word: Vec<(Vec<(u32, u32)>, ElementIndex)>,
    x_indexed: Vec<bool>,
    /// The entries the count decoded, element of X after element: each
    /// one's part (numbered across the runs) and its fine block, up to
    /// the last of `element_ends` (the buffers may be longer).
    entry_parts: Vec<u32>,
    entry_blocks: Vec<u8>,
    /// Where each element's entries end in `entry_parts`.
    element_ends: Vec<u32>,
    counts: Vec<u32>,
    /// Kept candidates' cell counts in the current row of a block grid.
    row: Vec<u16>,
    /// Kept candidates' heaviest monotone paths through the rows so far.
    paths: Vec<u32>,
    /// The candidates (their places in `candidates`) the fine grid refines.
    refined: Vec<u32>,
    /// The candidates (their places, ascending) that `worth` kept on
    /// their last bound ([`Join::kept`]).
    kept: Vec<u32>,
    /// The parts counted, in the order first counted: the first
    /// `touched_len` (one more than there are parts, for the branchless
    /// count).
    touched: Vec<u32>,
    touched_len: usize,
    candidates: Vec<Candidate>,
    slot: Vec<u32>,
    /// The kept candidates' decoded fine blocks, each one's in X's order
    /// ([`Join::chain_bounds`]).
    chained: Vec<u8>,
    /// A kept part's common elements: X's indexes, in Y's order.
    gathered: Vec<u32>,
    /// Y's index of each gathered element.
    gathered_other: Vec<u32>,
}

impl Join {
    /// Scratch for postings over `parts` parts.
    pub fn new(parts: usize) -> Self {
        Join {
            frequent_in_x: 0,
            resolved: Resolved::default(),
            x_by_word: Vec::new(),
            x_indexed: Vec::new(),
            entry_parts: Vec::new(),
            entry_blocks: Vec::new(),
            element_ends: Vec::new(),
            counts: vec![0; parts],
            row: Vec::new(),
            paths: Vec::new(),
            refined: Vec::new(),
            kept: Vec::new(),
            touched: vec![0; parts + 1],
            touched_len: 0,
            candidates: Vec::new(),
            slot: vec![NONE; parts],
            chained: Vec::new(),
            gathered: Vec::new(),
            gathered_other: Vec::new(),
        }
    }

    /// Posting entries the last [`count`](Self::count) scanned: the join's
    /// work, the same on every run.
    pub fn entries_scanned(&self) -> u64 {
        self.element_ends.last().map_or(0, |&n| u64::from(n))
    }

    /// The elements of the last probe the vocabulary admits, frequent
    /// ones included: X's length for a score (for a translated probe, the
    /// elements of X with a translation admitted).
    pub fn admitted(&self) -> u32 {
        self.resolved.admitted
    }

    /// Elements of the last counted probe whose word is frequent (skipped
    /// by counting, counted in every bound).
    pub fn frequent_in_x(&self) -> u32 {
        self.frequent_in_x
    }

    /// First pass: for every part the probe reaches that shares words with
    /// it, its common count and block bound, in no particular order.
    #[cfg(test)]
    pub fn count(&mut self, postings: &Postings<'_>, probe: &Probe<'_>) -> &[Candidate] {
        self.count_bounded(postings, probe, |_| true)
    }

    /// [`count`](Self::count), computing the block bound only for the
    /// candidates `worth` keeps when their LCS is bounded by their common
    /// count alone (`lcs_at_most` = `counted + frequent_at_most`); the
    /// others keep that looser bound. A caller whose filter is `worth`
    /// gets the same candidates as with every block bound computed, while
    /// the grid is filled for the few that need it: on large collections
    /// most parts a query reaches share a handful of words, and counting
    /// them into a grid cost a random write per posting entry.
    ///
    /// [`kept`](Self::kept) then gives the candidates `worth` keeps on
    /// their final bounds. `worth` is asked once a candidate on its count,
    /// then again only of those it kept, after each grid: it must not keep
    /// a candidate on a lower bound that it refused on a higher one (every
    /// score's bound is non-decreasing in the LCS bound).
    pub fn count_bounded(
        &mut self,
        postings: &Postings<'_>,
        probe: &Probe<'_>,
        worth: impl Fn(&Candidate) -> bool,
    ) -> &[Candidate] {
        self.resolved = Resolved::of(postings, probe);
        self.count_resolved(postings, worth)
    }

    fn count_resolved(
        &mut self,
        postings: &Postings<'_>,
        worth: impl Fn(&Candidate) -> bool,
    ) -> &[Candidate] {
        self.decode_and_count(postings);
        self.candidates.clear();
        let frequent_in_x = self.frequent_in_x;
        if frequent_in_x > 0 {
            self.add_uncounted(postings, frequent_in_x);
        }
        for &part in &self.touched[..self.touched_len] {
            let frequent_at_most = frequent_in_x.min(postings.skipped(part));
            let counted = std::mem::take(&mut self.counts[part as usize]);
            self.candidates.push(Candidate {
                book: part,
                counted,
                frequent_at_most,
                lcs_at_most: counted + frequent_at_most,
            });
        }
        self.touched_len = 0;
        self.kept.clear();
        self.kept.extend(
            (self.candidates.iter().zip(0..))
                .filter(|(candidate, _)| worth(candidate))
                .map(|(_, at)| at),
        );
        // Kept candidates of few common words on average are bounded by
        // chains through their own entries, others by the grids; a grid's
        // cell counts at most one block of X, and past u16 the grid is
        // skipped and the bound stays the common count.
        let kept = self.kept_counted();
        if self.sparse(&kept) {
            self.bound_by_chains(&kept, &worth);
        } else if self.resolved.len().div_ceil(BLOCKS) <= u16::MAX as usize {
            self.fill_grids(&worth);
            self.refine_grids(postings, &worth);
        }
        &self.candidates
    }

    /// The candidates of the last [`count_bounded`](Self::count_bounded)
    /// that its `worth` keeps on their final bounds, in the order of the
    /// candidates it returned.
    pub fn kept(&self) -> impl Iterator<Item = &Candidate> + '_ {
        self.kept.iter().map(|&at| &self.candidates[at as usize])
    }

    /// The kept candidates that counting found (those added for their
    /// frequent words alone have no entries to bound them by).
    fn kept_counted(&self) -> Vec<u32> {
        (self.kept.iter().copied())
            .filter(|&at| self.candidates[at as usize].counted > 0)
            .collect()
    }

    /// Whether the candidates at `kept` count fewer than
    /// [`CHAIN_MOST_WORDS`] common words on average (and are not none):
    /// then chains through their own entries ([`Join::chain_bounds`]) cost
    /// less than grids, which spend their cells on every candidate however
    /// few words fill them.
    fn sparse(&self, kept: &[u32]) -> bool {
        let counted: u64 = (kept.iter())
            .map(|&at| u64::from(self.candidates[at as usize].counted))
            .sum();
        !kept.is_empty() && counted < kept.len() as u64 * CHAIN_MOST_WORDS
    }

    /// Drops from `kept` the counted candidates (those a grid just
    /// bounded anew) that `worth` no longer keeps.
    fn keep_worth(&mut self, worth: &impl Fn(&Candidate) -> bool) {
        let candidates = &self.candidates;
        self.kept.retain(|&at| {
            let candidate = &candidates[at as usize];
            candidate.counted == 0 || worth(candidate)
        });
    }

    /// Decodes X's lists once, element after element (each one's entries
    /// in every run), into `entry_parts` and `entry_blocks`, and counts
    /// |X ∩ Y| for every part Y from them: the grids then read the decoded
    /// entries in order instead of decoding again.
    fn decode_and_count(&mut self, postings: &Postings<'_>) {
        self.frequent_in_x = self.resolved.frequent;
        let segments = postings.runs.segments();
        // The buffer holds every list's count, read first: reads that
        // depend on nothing, each list asked for well before it is read,
        // so their misses overlap (reading every line of the lists too
        // measured no faster).
        let mut most = 0usize;
        for (segment, lists) in segments.iter().zip(&self.resolved.lists) {
            for (i, &list) in lists.iter().enumerate() {
                if let Some(&ahead) = lists.get(i + PREFETCH_AHEAD) {
                    segment.prefetch_list(ahead);
                }
                most += segment.list_at(list).len() as usize;
            }
        }
        // Grown, never shrunk: nothing past `element_ends`' last is read.
        if self.entry_parts.len() < most {
            self.entry_parts.resize(most, 0);
            self.entry_blocks.resize(most, 0);
        }
        self.element_ends.clear();
        let (parts, blocks) = (&mut self.entry_parts[..], &mut self.entry_blocks[..]);
        let (counts, touched) = (&mut self.counts[..], &mut self.touched[..]);
        let (mut n, mut new) = (0, 0);
        for i in 0..self.resolved.len() {
            for (r, segment) in segments.iter().enumerate() {
                if let Some(&ahead) = self.resolved.lists[r].get(i + DECODE_AHEAD) {
                    segment.prefetch_list(ahead);
                }
                let Some((list, after)) = self.resolved.list(segment, r, i) else {
                    continue;
                };
                let base = postings.runs.part_base(r);
                let local_parts = segment.part_count() as u32;
                let got = list.decode_into(after, &mut parts[n..], &mut blocks[n..]);
                let got = keep_parts_below(local_parts, &mut parts[n..n + got], &mut blocks[n..]);
                for part in &mut parts[n..n + got] {
                    // Numbered across the runs, then counted without a
                    // branch: every entry writes its part after the
                    // touched ones, which only a first count keeps.
                    *part += base;
                    let count = &mut counts[*part as usize];
                    touched[new] = *part;
                    new += usize::from(*count == 0);
                    *count += 1;
                }
                n += got;
            }
            self.element_ends.push(n as u32);
        }
        self.touched_len = new;
    }

    /// The decoded entries of elements `elements` of X: a range of
    /// `entry_parts` and `entry_blocks`.
    fn entries_of(&self, elements: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let end = |e: usize| match e {
            0 => 0,
            e => self.element_ends[e - 1] as usize,
        };
        end(elements.start)..end(elements.end)
    }

    /// The heaviest monotone path of each candidate at `places` (its place
    /// k in `places` its slot while the grid is filled) through its `B`×`B`
    /// grid (`B` = [`BLOCKS`] or [`FINE_BLOCKS`]), from the decoded
    /// entries: the grid is walked one row (block of X) at a time, so a
    /// kept part holds one row of counts and its paths so far, which keeps
    /// the scattered increments in cache.
    fn grid_paths<const B: usize>(&mut self, places: &[u32]) -> Vec<u32> {
        let slotted = places.len();
        for (k, &at) in places.iter().enumerate() {
            self.slot[self.candidates[at as usize].book as usize] = k as u32;
        }
        // A stored fine block's quarter is its coarse block.
        let shift = (FINE_BLOCKS / B).trailing_zeros();
        let mut paths = std::mem::take(&mut self.paths);
        paths.clear();
        paths.resize(slotted * B, 0);
        // One row more, which the entries of parts without a slot count
        // into and nothing reads: no branch on whether a part has one.
        self.row.clear();
        self.row.resize((slotted + 1) * B, 0);
        let x_len = self.resolved.len();
        let counted: usize = (places.iter())
            .map(|&at| self.candidates[at as usize].counted as usize)
            .sum();
        let dense = counted * DENSE_GRID_FILL >= slotted * B * B;
        for block in 0..B {
            let elements = block_range(block, x_len, B);
            if elements.is_empty() {
                continue;
            }
            let entries = self.entries_of(elements);
            let parts = &self.entry_parts[entries.clone()];
            // Slices held apart from `self`, so the loop keeps their
            // addresses instead of reading them again after each count.
            let (slot, rows) = (&self.slot[..], self.row.as_chunks_mut::<B>().0);
            for (&part, &by) in parts.iter().zip(&self.entry_blocks[entries]) {
                let k = (slot[part as usize] as usize).min(slotted);
                // A cell counts at most one entry per element of the row's
                // block, which the caller keeps within u16 (the spare row
                // may wrap: nothing reads it).
                let cell = &mut rows[k][usize::from(by >> shift) % B];
                *cell = cell.wrapping_add(1);
            }
            let rows = self.row.as_chunks_mut::<B>().0;
            let paths = paths.as_chunks_mut::<B>().0.iter_mut().zip(rows);
            match dense {
                true => paths.for_each(|(paths, row)| extend_dense_row(paths, row)),
                false => paths.for_each(|(paths, row)| extend_paths(paths, row)),
            }
        }
        for &at in places {
            self.slot[self.candidates[at as usize].book as usize] = NONE;
        }
        paths
    }

    /// Second pass, for the candidates `worth` keeps when they are not
    /// sparse ([`Join::sparse`]): their common words counted per cell of
    /// the [`BLOCKS`] grid, and their LCS bound lowered to the heaviest
    /// monotone path through it.
    fn fill_grids(&mut self, worth: &impl Fn(&Candidate) -> bool) {
        let kept = self.kept_counted();
        if kept.is_empty() {
            return;
        }
        let paths = self.grid_paths::<BLOCKS>(&kept);
        for (k, &at) in kept.iter().enumerate() {
            let candidate = &mut self.candidates[at as usize];
            candidate.lcs_at_most = paths[k * BLOCKS + BLOCKS - 1] + candidate.frequent_at_most;
        }
        self.paths = paths;
        self.keep_worth(worth);
    }

    /// Third pass, for the candidates `worth` still keeps with their
    /// [`BLOCKS`] grid bound, when they are many: a [`FINE_BLOCKS`] grid,
    /// and their LCS bound lowered to its heaviest monotone path. A fine
    /// cell lies inside one coarse cell (`⌊16i/n⌋ = ⌊⌊64i/n⌋/4⌋`), so a
    /// fine path is a coarse path over no more words: the bound only
    /// tightens.
    fn refine_grids(&mut self, postings: &Postings<'_>, worth: &impl Fn(&Candidate) -> bool) {
        self.refined = self.kept_counted();
        if self.refined.is_empty() {
            return;
        }
        let lookups: u64 = (self.refined.iter())
            .map(|&at| u64::from(postings.runs.part_len(self.candidates[at as usize].book)))
            .sum();
        // Aligning a few candidates costs about what a fine grid would:
        // refine only when they hold more elements than X's lists hold
        // entries.
        if lookups <= self.entries_scanned() {
            return;
        }
        let refined = std::mem::take(&mut self.refined);
        let paths = self.grid_paths::<FINE_BLOCKS>(&refined);
        for (k, &at) in refined.iter().enumerate() {
            let candidate = &mut self.candidates[at as usize];
            let heaviest = paths[k * FINE_BLOCKS + FINE_BLOCKS - 1] + candidate.frequent_at_most;
            candidate.lcs_at_most = candidate.lcs_at_most.min(heaviest);
        }
        self.paths = paths;
        self.keep_worth(worth);
        self.refined = refined;
    }

    /// The candidates at `kept` bounded by [`Join::chain_bounds`] (their
    /// frequent words added), and those `worth` no longer keeps dropped.
    fn bound_by_chains(&mut self, kept: &[u32], worth: &impl Fn(&Candidate) -> bool) {
        let chains = self.chain_bounds(kept);
        for (&at, chain) in kept.iter().zip(chains) {
            let candidate = &mut self.candidates[at as usize];
            candidate.lcs_at_most = chain + candidate.frequent_at_most;
        }
        self.keep_worth(worth);
    }

    /// For each candidate at `places`, the longest chain of its decoded
    /// entries whose fine blocks do not decrease, taken in X's order. The
    /// common words of an increasing subsequence are such a chain (X's
    /// elements increase, and Y's indexes increase so their blocks never
    /// decrease), so it bounds |LCS(X, Y)| (less the frequent words) from
    /// above, and more tightly than either grid, whose paths cross the
    /// same fine blocks of Y but whole blocks of X. Each candidate's
    /// entries are first gathered apart, in X's order, by a counting sort
    /// on its place (its `counted` entries).
    fn chain_bounds(&mut self, places: &[u32]) -> Vec<u32> {
        let slotted = places.len();
        let mut starts = Vec::with_capacity(slotted + 1);
        let mut end = 0usize;
        for (k, &at) in places.iter().enumerate() {
            let candidate = &self.candidates[at as usize];
            self.slot[candidate.book as usize] = k as u32;
            starts.push(end);
            end += candidate.counted as usize;
        }
        // The entries of parts without a place go past the last one's,
        // where nothing reads them: no branch per entry.
        starts.push(end);
        let entries = self.entries_of(0..self.resolved.len());
        self.chained.clear();
        self.chained.resize(end + entries.len(), 0);
        let mut next = starts.clone();
        for (&part, &block) in
            (self.entry_parts[entries.clone()].iter()).zip(&self.entry_blocks[entries])
        {
            let k = (self.slot[part as usize] as usize).min(slotted);
            self.chained[next[k]] = block;
            next[k] += 1;
        }
        for &at in places {
            self.slot[self.candidates[at as usize].book as usize] = NONE;
        }
        (starts.windows(2))
            .take(slotted)
            .map(|w| longest_non_decreasing(&self.chained[w[0]..w[1]]))
            .collect()
    }

    /// The common elements of each refined candidate (`refined` order),
    /// found by looking its words up in X's: (index in X, fine block in
    /// Y), in X's order. An element of X counts against a part of run r
    /// exactly when the count decoded its list there (not frequent,
    /// present in the run and, for a probe against later parts, with
    /// entries past the probe's part, as every candidate is).
    #[cfg(test)]
    fn common_by_lookup(&mut self, postings: &Postings<'_>) -> Vec<Vec<(u32, u8)>> {
        self.resolved.find_hashes(postings.runs.segments());
        let mut x_by_hash: Vec<(u32, u32)> =
            self.resolved.hashes.iter().copied().zip(0..).collect();
        x_by_hash.sort_unstable();
        let index_in_x = ElementIndex::of(x_by_hash.iter().map(|&(hash, _)| hash));
        let mut common_of = Vec::new();
        for &at in &self.refined {
            let book = self.candidates[at as usize].book;
            let (r, _) = postings.runs.locate_part(book);
            let y = postings.runs.part_hashes(book);
            let len_y = y.len() as u32;
            let mut common = Vec::new();
            for (j, hash) in (0u32..).zip(y.iter()) {
                let Some(first) = index_in_x.get(hash) else {
                    continue;
                };
                let same = x_by_hash[first as usize..].iter();
                for &(_, i) in same.take_while(|&&(h, _)| h == hash) {
                    if self.resolved.lists[r][i as usize] != NO_LIST {
                        common.push((i, fine_block_of(j, len_y)));
                    }
                }
            }
            common.sort_unstable();
            common_of.push(common);
        }
        common_of
    }

    /// The fine grids' heaviest paths of the refined candidates (`paths`,
    /// [`FINE_BLOCKS`] per candidate, in `refined` order) from their
    /// common elements looked up ([`Join::common_by_lookup`]): the
    /// reference the decoded grid is tested against.
    #[cfg(test)]
    fn fine_paths_by_lookup(&mut self, postings: &Postings<'_>) -> Vec<u32> {
        let x_len = self.resolved.len() as u32;
        let common_of = self.common_by_lookup(postings);
        let mut paths = vec![0; common_of.len() * FINE_BLOCKS];
        let mut grid = vec![0u16; FINE_BLOCKS * FINE_BLOCKS];
        for (k, common) in common_of.iter().enumerate() {
            for &(i, by) in common {
                let cell = &mut grid[fine_block_of(i, x_len) as usize * FINE_BLOCKS + by as usize];
                *cell = cell.saturating_add(1);
            }
            let paths = &mut paths.as_chunks_mut::<FINE_BLOCKS>().0[k];
            for row in grid.as_chunks_mut::<FINE_BLOCKS>().0 {
                extend_paths(paths, row);
            }
        }
        paths
    }

    /// Adds the parts the probe reaches that counting did not touch but
    /// that hold frequent words, which X may share with them.
    fn add_uncounted(&mut self, postings: &Postings<'_>, frequent_in_x: u32) {
        let Some(frequent) = postings.frequent else {
            return;
        };
        let first = match self.resolved.after {
            Some((run, local)) => postings.runs.part_base(run) + local + 1,
            None => 0,
        };
        for &(part, skipped) in &frequent.skipped {
            if part >= first && self.counts[part as usize] == 0 {
                let frequent_at_most = frequent_in_x.min(skipped);
                self.candidates.push(Candidate {
                    book: part,
                    counted: 0,
                    frequent_at_most,
                    lcs_at_most: frequent_at_most,
                });
            }
        }
    }

    /// [`align`](Self::align) for a probe counted earlier, other probes
    /// perhaps since: `keep` as that count returned them.
    pub fn align_probe(
        &mut self,
        postings: &Postings<'_>,
        probe: &Probe<'_>,
        len_x: u32,
        keep: &[Candidate],
        found: impl FnMut(u32, Overlap),
    ) {
        self.resolved = Resolved::words_of(postings, probe);
        self.align(postings, len_x, keep, found);
    }

    /// Aligns the last counted probe's sequence (of `len_x` elements) with
    /// each of `keep` (as that [`count`](Self::count) returned them),
    /// calling `found` with each part and its overlap: each kept part's
    /// words are looked up in the probe's, frequent ones included.
    pub fn align(
        &mut self,
        postings: &Postings<'_>,
        len_x: u32,
        keep: &[Candidate],
        mut found: impl FnMut(u32, Overlap),
    ) {
        if keep.is_empty() {
            return;
        }
        self.prepare_alignment(postings);
        for candidate in keep {
            let part = candidate.book;
            found(part, self.align_parts(postings, len_x, part..part + 1));
        }
    }

    /// [`align_probe`](Self::align_probe) for windows of consecutive
    /// parts of one book each: every one of `windows` aligned as the one
    /// sequence its parts make in order, `found` called with its first
    /// part and its overlap.
    pub fn align_probe_windows(
        &mut self,
        postings: &Postings<'_>,
        probe: &Probe<'_>,
        len_x: u32,
        windows: &[Range<u32>],
        mut found: impl FnMut(u32, Overlap),
    ) {
        self.resolved = Resolved::words_of(postings, probe);
        self.prepare_alignment(postings);
        for window in windows {
            found(
                window.start,
                self.align_parts(postings, len_x, window.clone()),
            );
        }
    }

    /// Readies the per-run lookups of the resolved probe, made on first use.
    fn prepare_alignment(&mut self, postings: &Postings<'_>) {
        let runs = postings.runs.segments().len();
        (self.x_by_word).resize_with(runs, || (Vec::new(), ElementIndex::new(&[])));
        self.x_indexed.clear();
        self.x_indexed.resize(runs, false);
    }

    /// The overlap of the resolved probe (of `len_x` elements) with the
    /// sequence `parts` (consecutive parts of one book) make in order:
    /// each part's words looked up in the probe's.
    fn align_parts(&mut self, postings: &Postings<'_>, len_x: u32, parts: Range<u32>) -> Overlap {
        let segments = postings.runs.segments();
        let (r, first_local) = postings.runs.locate_part(parts.start);
        if !self.x_indexed[r] {
            self.resolved.find_words(segments, r);
            self.index_x(r);
            self.x_indexed[r] = true;
        }
        let (x_by_word, index) = &self.x_by_word[r];
        self.gathered.clear();
        self.gathered_other.clear();
        let mut len_y = 0u32;
        for local in first_local..first_local + parts.len() as u32 {
            let y = segments[r].part_words(local as usize);
            for (j, word) in (len_y..).zip(y.iter()) {
                let Some(first) = index.get(word) else {
                    continue;
                };
                let same = x_by_word[first as usize..].iter();
                for &(_, i) in same.take_while(|&&(w, _)| w == word) {
                    self.gathered.push(i);
                    self.gathered_other.push(j);
                }
            }
            len_y += y.len() as u32;
        }
        let (lcs, span_x, span_y) = lis_span(&self.gathered, &self.gathered_other);
        Overlap {
            len_x,
            len_y,
            common: self.gathered.len() as u32,
            lcs,
            span_x,
            span_y,
        }
    }

    /// Indexes the resolved sequence by its words in run `r` for lookups:
    /// (word, index in X) sorted by word and, for one word, by descending
    /// index (a strictly increasing subsequence then takes at most one of
    /// them), and each word's first entry. A sequence of one language
    /// keeps one entry per word, its last (two words of one hash are one
    /// word to the join). Elements absent from the run match nothing there.
    fn index_x(&mut self, r: usize) {
        let resolved = &self.resolved;
        let (x_by_word, index) = &mut self.x_by_word[r];
        x_by_word.clear();
        x_by_word.extend(
            (resolved.words[r].iter().enumerate())
                .filter(|&(_, &word)| word != NONE)
                .map(|(e, &word)| (word, resolved.group(e))),
        );
        x_by_word.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        if resolved.groups.is_none() {
            x_by_word.dedup_by_key(|&mut (word, _)| word);
        } else {
            x_by_word.dedup();
        }
        *index = ElementIndex::of(x_by_word.iter().map(|&(word, _)| word));
    }

    /// Aligns two stored parts directly: X's words are marked in a table
    /// and Y's are looked up in it, O(|X| + |Y| + c log c).
    pub fn align_pair(&mut self, postings: &Postings<'_>, a: u32, b: u32) -> Overlap {
        self.resolved = Resolved::words_of(&Postings::every_word(postings.runs), &Probe::Part(a));
        let len_x = self.resolved.len() as u32;
        let mut result = Overlap::default();
        self.align(postings, len_x, &[Candidate::unbounded(b)], |_, o| {
            result = o
        });
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::SequenceIndex;

    /// Runs of one segment per group of sequences (parts numbered across).
    fn runs(groups: &[&[&[u32]]]) -> Runs {
        Runs::in_memory(groups)
    }

    fn all(runs: &Runs, cap: u32) -> (Frequent, u32) {
        (Frequent::count(runs, cap), cap)
    }

    /// Each sequence with its repeated words left out (a part's words are
    /// unique).
    fn distinct_words(sequences: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
        (sequences.into_iter())
            .map(|s| {
                let mut seen = std::collections::HashSet::new();
                s.into_iter().filter(|h| seen.insert(*h)).collect()
            })
            .collect()
    }

    /// The sequences as two runs, the first half and the rest.
    fn two_runs(refs: &[&[u32]]) -> Runs {
        let half = refs.len() / 2;
        runs(&[&refs[..half], &refs[half..]])
    }

    /// Part `pick` (modulo the parts) and a probe of it of kind `kind`:
    /// against every part, against later parts, or as hashes.
    fn probe_of<'a>(refs: &[&'a [u32]], pick: usize, kind: u8) -> (u32, Probe<'a>) {
        let part = pick % refs.len();
        let probe = match kind {
            0 => Probe::Part(part as u32),
            1 => Probe::PartAgainstLater(part as u32),
            _ => Probe::Hashes(refs[part]),
        };
        (part as u32, probe)
    }

    /// The longest non-decreasing subsequence's length by the quadratic
    /// dynamic program.
    fn longest_non_decreasing_quadratic(values: &[u8]) -> u32 {
        let mut ending = vec![0u32; values.len()];
        for j in 0..values.len() {
            ending[j] = 1
                + (0..j)
                    .filter(|&i| values[i] <= values[j])
                    .map(|i| ending[i])
                    .max()
                    .unwrap_or(0);
        }
        ending.iter().copied().max().unwrap_or(0)
    }

    #[test]
    fn counts_common_words_per_part_across_runs() {
        let runs = runs(&[&[&[1, 2, 3], &[2, 3, 4]], &[&[9]]]);
        let (frequent, cap) = all(&runs, u32::MAX);
        let postings = Postings::all(&runs, cap, &frequent);
        let mut join = Join::new(3);
        let x = [2, 3, 9, 77];
        let mut counts: Vec<_> = join
            .count(&postings, &Probe::Hashes(&x))
            .iter()
            .map(|c| (c.book, c.counted))
            .collect();
        counts.sort();
        assert_eq!(counts, [(0, 2), (1, 2), (2, 1)]);
        let later: Vec<_> = join
            .count(&postings, &Probe::PartAgainstLater(0))
            .iter()
            .map(|c| (c.book, c.counted))
            .collect();
        assert_eq!(later, [(1, 2)]);
        let all: Vec<_> = join
            .count(&postings, &Probe::Part(1))
            .iter()
            .map(|c| (c.book, c.counted))
            .collect();
        assert_eq!(all.len(), 2);
        assert!(join
            .count(&postings, &Probe::PartAgainstLater(2))
            .is_empty());
    }

    #[test]
    fn join_alignment_equals_direct_alignment() {
        let books: [&[u32]; 3] = [&[5, 1, 2, 3, 4], &[4, 3, 2, 1], &[1, 9, 3, 8, 2]];
        let runs = runs(&[&books[..2], &books[2..]]);
        let (frequent, cap) = all(&runs, u32::MAX);
        let postings = Postings::all(&runs, cap, &frequent);
        let x = [1, 2, 3, 4, 5];
        let mut join = Join::new(books.len());
        let probe = Probe::Hashes(&x);
        let keep = join.count(&postings, &probe).to_vec();
        for candidate in &keep {
            assert!(candidate.lcs_at_most >= 1 && candidate.lcs_at_most <= candidate.counted);
        }
        let mut aligned = Vec::new();
        join.align(&postings, 5, &keep, |b, o| aligned.push((b, o)));
        assert_eq!(aligned.len(), 3);
        for (book, overlap) in aligned {
            let direct = SequenceIndex::new(&x).align(
                books[book as usize],
                &mut crate::align::AlignScratch::default(),
            );
            assert_eq!(overlap, direct, "book {book}");
            let bound = keep.iter().find(|c| c.book == book).unwrap().lcs_at_most;
            assert!(bound >= overlap.lcs);
            assert_eq!(join.align_pair(&postings, 0, book), {
                SequenceIndex::new(books[0]).align(
                    books[book as usize],
                    &mut crate::align::AlignScratch::default(),
                )
            });
        }
    }

    #[test]
    fn frequent_words_are_skipped_but_bounded_and_aligned_exactly() {
        // Words 1 and 2 are in three parts: frequent at cap 2, whichever
        // runs hold them.
        let books: [&[u32]; 4] = [&[1, 2, 3], &[2, 1, 4], &[1, 2, 5], &[6]];
        let runs = runs(&[&books[..1], &books[1..3], &books[3..]]);
        let (frequent, cap) = all(&runs, 2);
        assert_eq!(frequent.skipped, [(0, 2), (1, 2), (2, 2)]);
        let postings = Postings::all(&runs, cap, &frequent);
        let x = [1, 2, 4];
        let probe = Probe::Hashes(&x);
        let mut join = Join::new(books.len());
        let mut keep = join.count(&postings, &probe).to_vec();
        assert_eq!(join.frequent_in_x(), 2);
        keep.sort_by_key(|c| c.book);
        // Parts 0 and 2 share only frequent words: counted 0, bounded by 2.
        let bounds: Vec<_> = keep
            .iter()
            .map(|c| (c.book, c.counted, c.frequent_at_most, c.lcs_at_most))
            .collect();
        assert_eq!(bounds, [(0, 0, 2, 2), (1, 1, 2, 3), (2, 0, 2, 2)]);
        let mut aligned = Vec::new();
        join.align(&postings, 3, &keep, |b, o| aligned.push((b, o)));
        for (book, overlap) in aligned {
            let direct = SequenceIndex::new(&x).align(
                books[book as usize],
                &mut crate::align::AlignScratch::default(),
            );
            assert_eq!(overlap, direct, "book {book}");
            let candidate = keep.iter().find(|c| c.book == book).unwrap();
            for score in Score::ALL {
                assert!(candidate.bound(score, 3, 3) >= score.value(&overlap));
            }
        }
        // Against later parts only, part 0 reaches 1 and 2, not itself.
        let later: Vec<_> = join
            .count(&postings, &Probe::PartAgainstLater(0))
            .iter()
            .map(|c| c.book)
            .collect();
        assert_eq!(later.len(), 2);
        assert!(!later.contains(&0) && !later.contains(&3));
    }

    #[test]
    fn frequent_words_are_found_from_long_lists_and_by_scanning() {
        // 80 parts in two runs hold word 7; cap 70 makes it frequent. With
        // two runs, 70 / 2 = 35 is below the long-list length: every word
        // is scanned; with one run, the long list is read.
        let parts: Vec<Vec<u32>> = (0..80).map(|i| vec![7, 100 + i]).collect();
        let refs: Vec<&[u32]> = parts.iter().map(Vec::as_slice).collect();
        for runs in [
            Runs::in_memory(&[&refs]),
            Runs::in_memory(&[&refs[..40], &refs[40..]]),
        ] {
            let frequent = Frequent::count(&runs, 70);
            assert_eq!(frequent.skipped.len(), 80);
            assert!(Frequent::count(&runs, 80).skipped.is_empty());
        }
    }

    #[test]
    fn a_bounded_count_fills_the_grid_of_the_kept_candidates_only() {
        // Part 0 holds X's words in order, part 1 in reverse: the grid
        // bounds part 1's LCS by far less than its common count. Enough
        // common words that the kept candidates take grids, not chains.
        let x: Vec<u32> = (1..=128).collect();
        let reversed: Vec<u32> = x.iter().rev().copied().collect();
        let runs = runs(&[&[&x, &reversed], &[&x[..8]]]);
        let (frequent, cap) = all(&runs, u32::MAX);
        let postings = Postings::all(&runs, cap, &frequent);
        let mut join = Join::new(3);
        let mut every: Vec<Candidate> = join.count(&postings, &Probe::Hashes(&x)).to_vec();
        every.sort_by_key(|c| c.book);
        assert_eq!(every[1].counted, 128);
        assert!(every[1].lcs_at_most < 16, "{:?}", every[1]);
        let mut bounded: Vec<Candidate> = join
            .count_bounded(&postings, &Probe::Hashes(&x), |c| c.counted > 10)
            .to_vec();
        bounded.sort_by_key(|c| c.book);
        // Kept: the same bounds; left out: the common count.
        assert_eq!(bounded[..2], every[..2]);
        assert_eq!((bounded[2].counted, bounded[2].lcs_at_most), (8, 8));
        assert_eq!(every[2].lcs_at_most, 8);
        // Nothing is left marked: a later count starts clean.
        let again: Vec<Candidate> = join.count(&postings, &Probe::Hashes(&x)).to_vec();
        assert_eq!(again.len(), 3);
        // Kept: worth on the final bounds. Part 2 fails on its count,
        // part 1 on its grid.
        let long_in_order = |c: &Candidate| c.lcs_at_most >= 32;
        join.count_bounded(&postings, &Probe::Hashes(&x), long_in_order);
        let kept: Vec<u32> = join.kept().map(|c| c.book).collect();
        assert_eq!(kept, [0]);
        join.count_bounded(&postings, &Probe::Hashes(&x), |c| c.counted > 10);
        let mut kept: Vec<u32> = join.kept().map(|c| c.book).collect();
        kept.sort_unstable();
        assert_eq!(kept, [0, 1]);
    }

    #[test]
    fn dense_grids_bound_as_the_dynamic_program_does() {
        // Candidates sharing 400 words: grids dense enough for the dense
        // rows, in order, reversed and shuffled.
        let x: Vec<u32> = (1..=400).collect();
        let reversed: Vec<u32> = x.iter().rev().copied().collect();
        let mut shuffled = x.clone();
        let mut state = 7u64;
        for i in (1..shuffled.len()).rev() {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            shuffled.swap(i, (state >> 33) as usize % (i + 1));
        }
        let runs = runs(&[&[&x, &reversed, &shuffled]]);
        let (frequent, cap) = all(&runs, u32::MAX);
        let postings = Postings::all(&runs, cap, &frequent);
        let mut join = Join::new(3);
        let mut found: Vec<Candidate> = join.count(&postings, &Probe::Hashes(&x)).to_vec();
        found.sort_by_key(|c| c.book);
        for (candidate, y) in found.iter().zip([&x, &reversed, &shuffled]) {
            let block = |i: usize| fine_block_of(i as u32, 400) as usize / (FINE_BLOCKS / BLOCKS);
            let mut cells = vec![0u16; BLOCKS * BLOCKS];
            for (j, hash) in y.iter().enumerate() {
                cells[block(*hash as usize - 1) * BLOCKS + block(j)] += 1;
            }
            let mut best = [[0u32; BLOCKS + 1]; BLOCKS + 1];
            for i in 1..=BLOCKS {
                for j in 1..=BLOCKS {
                    let cell = u32::from(cells[(i - 1) * BLOCKS + j - 1]);
                    best[i][j] = cell + best[i - 1][j].max(best[i][j - 1]);
                }
            }
            assert_eq!(candidate.counted, 400);
            assert_eq!(candidate.lcs_at_most, best[BLOCKS][BLOCKS], "{candidate:?}");
        }
        assert_eq!(found[0].lcs_at_most, 400);
        assert!(found[1].lcs_at_most < 60, "{:?}", found[1]);
    }

    proptest::proptest! {
        #[test]
        fn heaviest_path_is_the_grids_dynamic_program(
            rows in proptest::collection::vec(
                proptest::option::of(proptest::collection::vec(
                    proptest::prop_oneof![0u16..4, proptest::num::u16::ANY], BLOCKS)), BLOCKS),
        ) {
            // Rows of zeros (None) among others: the extension skips them.
            let cells: Vec<u16> = (rows.iter())
                .flat_map(|row| row.clone().unwrap_or_else(|| vec![0; BLOCKS]))
                .collect();
            let mut best = [[0u32; BLOCKS + 1]; BLOCKS + 1];
            for i in 1..=BLOCKS {
                for j in 1..=BLOCKS {
                    let cell = u32::from(cells[(i - 1) * BLOCKS + j - 1]);
                    best[i][j] = cell + best[i - 1][j].max(best[i][j - 1]);
                }
            }
            let want = best[BLOCKS][BLOCKS];
            proptest::prop_assert_eq!(heaviest_monotone_path(&cells, extend_paths), want);
            proptest::prop_assert_eq!(heaviest_monotone_path(&cells, extend_dense_row), want);
        }

        #[test]
        fn dense_rows_extend_fine_paths_as_sparse_ones_do(
            paths in proptest::collection::vec(0u32..1 << 20, FINE_BLOCKS),
            row in proptest::collection::vec(
                proptest::prop_oneof![proptest::strategy::Just(0u16), 0u16..4, proptest::num::u16::ANY],
                FINE_BLOCKS),
        ) {
            // Paths into a row never decrease along it.
            let mut sparse: [u32; FINE_BLOCKS] = paths.try_into().expect("a row of paths");
            sparse.sort_unstable();
            let mut dense = sparse;
            let row: [u16; FINE_BLOCKS] = row.try_into().expect("a row of cells");
            let (mut sparse_row, mut dense_row) = (row, row);
            extend_paths(&mut sparse, &mut sparse_row);
            extend_dense_row(&mut dense, &mut dense_row);
            proptest::prop_assert_eq!(sparse, dense);
            proptest::prop_assert_eq!(dense_row, [0; FINE_BLOCKS]);
        }

        #[test]
        fn fine_paths_by_lookup_equal_fine_paths_from_decoded_entries(
            sequences in proptest::collection::vec(
                proptest::collection::vec(0u32..40, 0..90), 2..8),
            pick in 0usize..8,
            kind in 0u8..3,
        ) {
            let sequences = distinct_words(sequences);
            let refs: Vec<&[u32]> = sequences.iter().map(Vec::as_slice).collect();
            let runs = two_runs(&refs);
            let (frequent, cap) = all(&runs, u32::MAX);
            let postings = Postings::all(&runs, cap, &frequent);
            let mut join = Join::new(refs.len());
            let (_, probe) = probe_of(&refs, pick, kind);
            join.count_bounded(&postings, &probe, |_| false);
            let everyone = |c: &Candidate| c.counted > 0;
            join.refined = (join.candidates.iter().zip(0..))
                .filter(|(c, _)| everyone(c))
                .map(|(_, at)| at)
                .collect();
            let refined = join.refined.clone();
            let decoded = join.grid_paths::<FINE_BLOCKS>(&refined);
            let by_lookup = join.fine_paths_by_lookup(&postings);
            proptest::prop_assert_eq!(by_lookup, decoded);
        }

        #[test]
        fn longest_non_decreasing_is_the_quadratic_dynamic_program(
            values in proptest::collection::vec(proptest::prop_oneof![0u8..4, 0u8..64], 0..200),
        ) {
            let want = longest_non_decreasing_quadratic(&values);
            proptest::prop_assert_eq!(longest_non_decreasing(&values), want);
        }

        #[test]
        fn chains_bound_the_lcs_below_the_fine_grid_and_follow_the_entries(
            sequences in proptest::collection::vec(
                proptest::collection::vec(0u32..300, 0..200), 2..8),
            pick in 0usize..8,
            kind in 0u8..3,
        ) {
            let sequences = distinct_words(sequences);
            let refs: Vec<&[u32]> = sequences.iter().map(Vec::as_slice).collect();
            let runs = two_runs(&refs);
            let (frequent, cap) = all(&runs, u32::MAX);
            let postings = Postings::all(&runs, cap, &frequent);
            let mut join = Join::new(refs.len());
            let (part, probe) = probe_of(&refs, pick, kind);
            let found = join.count(&postings, &probe).to_vec();
            join.refined = (0..found.len() as u32).filter(|&at| found[at as usize].counted > 0).collect();
            let refined = join.refined.clone();
            let chained = join.sparse(&refined);
            let chains = join.chain_bounds(&refined);
            let fine = join.fine_paths_by_lookup(&postings);
            let common_of = join.common_by_lookup(&postings);
            for (k, &at) in refined.iter().enumerate() {
                let candidate = found[at as usize];
                let blocks: Vec<u8> = common_of[k].iter().map(|&(_, by)| by).collect();
                proptest::prop_assert_eq!(chains[k], longest_non_decreasing_quadratic(&blocks));
                proptest::prop_assert!(chains[k] <= fine[k * FINE_BLOCKS + FINE_BLOCKS - 1]);
                let (x, y) = (refs[part as usize], refs[candidate.book as usize]);
                let mut lcs = vec![vec![0u32; y.len() + 1]; x.len() + 1];
                for i in 1..=x.len() {
                    for j in 1..=y.len() {
                        lcs[i][j] = match x[i - 1] == y[j - 1] {
                            true => lcs[i - 1][j - 1] + 1,
                            false => lcs[i - 1][j].max(lcs[i][j - 1]),
                        };
                    }
                }
                let lcs = lcs[x.len()][y.len()];
                proptest::prop_assert!(lcs <= chains[k], "{} > {}", lcs, chains[k]);
                // A count's bound is the chain's when its candidates are
                // sparse, a grid's (no tighter) else.
                match chained {
                    true => proptest::prop_assert_eq!(candidate.lcs_at_most, chains[k]),
                    false => proptest::prop_assert!(candidate.lcs_at_most >= chains[k]),
                }
            }
        }
    }

    #[test]
    fn block_ranges_match_fine_blocks_and_their_quarters() {
        // The coarse block of the grids is the fine block's quarter.
        let coarse = |i: u32, len: u32| fine_block_of(i, len) >> 2;
        for len in [
            0usize, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 1000, 4097,
        ] {
            for (blocks, block_of) in [
                (BLOCKS, &coarse as &dyn Fn(u32, u32) -> u8),
                (FINE_BLOCKS, &fine_block_of),
            ] {
                let mut next = 0;
                for block in 0..blocks {
                    let range = block_range(block, len, blocks);
                    assert_eq!(range.start, next, "len {len} block {block}");
                    for i in range.clone() {
                        let expected = block_of(i as u32, len as u32) as usize;
                        assert_eq!(expected, block, "len {len} i {i}");
                    }
                    next = range.end;
                }
                assert_eq!(next, len);
            }
        }
    }

    #[test]
    fn heaviest_path_bounds_the_lis_of_a_shuffled_grid() {
        // Diagonal: the path takes every cell on it.
        let mut cells = [0u16; BLOCKS * BLOCKS];
        for b in 0..BLOCKS {
            cells[b * BLOCKS + b] = 10;
        }
        for extend in [extend_paths, extend_dense_row] {
            assert_eq!(heaviest_monotone_path(&cells, extend), 10 * BLOCKS as u32);
        }
        // Anti-diagonal: a monotone path meets only one of its cells.
        let mut cells = [0u16; BLOCKS * BLOCKS];
        for b in 0..BLOCKS {
            cells[b * BLOCKS + (BLOCKS - 1 - b)] = 10;
        }
        for extend in [extend_paths, extend_dense_row] {
            assert_eq!(heaviest_monotone_path(&cells, extend), 10);
        }
    }
}
