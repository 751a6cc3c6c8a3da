//! The unique-word join over the postings the segments store.
//!
//! Every segment (one per load batch, merged by compactions: the runs of a
//! log-structured merge) holds the posting lists of its own parts: for each
//! word, the parts whose sequence holds it, with its index and block in
//! each ([`crate::storage::segment_books`]). The join reads them in place,
//! run after run; a word's list in the whole index is the concatenation of
//! its lists in the runs, and parts are numbered run after run, so nothing
//! is merged at query time. Joining a sequence X runs in two passes over
//! X's lists: the first counts |X ∩ Y| for every part Y at once; the
//! second, only for the parts whose bound survives, gathers the indexes in
//! Y of the common words in X's order, whose longest increasing
//! subsequence is |LCS(X, Y)|.
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
//! **Block bound.** The first pass also counts common words per cell of a
//! [`BLOCKS`]×[`BLOCKS`] grid (block of X × block of Y, by sequence index).
//! The common words of an increasing subsequence visit cells along a
//! monotone path, so the heaviest monotone path through the grid bounds
//! |LCS| from above. For common words in random order it is about an
//! eighth of |X ∩ Y|; for a copy it equals it. The candidates still within
//! reach, when they hold more elements than X's lists hold entries, get a
//! [`FINE_BLOCKS`]×[`FINE_BLOCKS`] grid too, from one more scan of X's
//! lists, whose path bounds random order to about a thirty-second. The
//! planner prunes with them.
//!
//! **The word sample** of approximate mode is the same lists, filtered:
//! only the words of the sample, and none listed in more parts than the
//! sample's cap ([`Vocabulary::Sample`]).

use std::collections::HashMap;

use nohash_hasher::BuildNoHashHasher;

use super::runs::Runs;
use crate::align::{lis_span, ElementIndex, Overlap, Score};
use crate::batch::in_word_sample;
use crate::storage::segment::Segment;
pub use crate::storage::segment_books::BLOCKS;
use crate::storage::segment_books::{U32s, LONG_LIST};

/// Blocks per sequence in the fine grid that refines the LCS bound of the
/// candidates the [`BLOCKS`] grid leaves within reach: common words in
/// random order fill a monotone path of about 2 / `FINE_BLOCKS` of them,
/// so the fine grid bounds unrelated pairs four times as tightly, while a
/// copy still fills its diagonal. Measured on 300 generated books of
/// 100,000 words: 32,920 of 44,850 pairs stayed within the 16-block bound
/// and were aligned, for 184 found; 521 stay within the fine one.
pub const FINE_BLOCKS: usize = 64;

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
                    if segment.word_entries(word).len() as u32 <= per_run {
                        break;
                    }
                    candidates.push(segment.word_hash(word));
                }
            } else {
                for word in 0..segment.word_count() as u32 {
                    if segment.word_entries(word).len() as u32 > per_run {
                        candidates.push(segment.word_hash(word));
                    }
                }
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        let mut skipped: HashMap<u32, u32, BuildNoHashHasher<u32>> = HashMap::default();
        for hash in candidates {
            let lists: Vec<(usize, std::ops::Range<usize>)> = segments
                .iter()
                .enumerate()
                .filter_map(|(r, s)| s.find_word(hash).map(|w| (r, s.word_entries(w))))
                .collect();
            let total: usize = lists.iter().map(|(_, range)| range.len()).sum();
            if total <= cap as usize {
                continue;
            }
            for (r, range) in lists {
                for part in segments[r].entry_parts().slice(range).iter() {
                    if let Some(part) = runs.global_part(r, part) {
                        *skipped.entry(part).or_default() += 1;
                    }
                }
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

    /// The elements of a probe's sequence the vocabulary admits.
    pub fn probe_len(&self, probe: &Probe<'_>) -> u32 {
        match *probe {
            Probe::Part(part) | Probe::PartAgainstLater(part) => self
                .runs
                .part_hashes(part)
                .iter()
                .filter(|&h| self.vocabulary.admits(h))
                .count() as u32,
            Probe::Hashes(hashes) => hashes
                .iter()
                .filter(|&&h| self.vocabulary.admits(h))
                .count() as u32,
            Probe::Translated { hashes, groups } => {
                let mut admitted = hashes
                    .iter()
                    .zip(groups)
                    .filter(|&(&h, _)| self.vocabulary.admits(h))
                    .map(|(_, &g)| g)
                    .collect::<Vec<u32>>();
                admitted.dedup();
                admitted.len() as u32
            }
        }
    }
}

/// What a join probes the postings with.
#[derive(Debug, Clone, Copy)]
pub enum Probe<'a> {
    /// A stored part, against every part, itself included.
    Part(u32),
    /// A stored part, against the parts after it only.
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
/// hashes and, per run, the posting entries to scan for each element, and
/// what bounds a count.
#[derive(Debug, Default)]
struct Resolved {
    hashes: Vec<u32>,
    /// For a translated probe, each admitted element's index in X.
    groups: Option<Vec<u32>>,
    /// Per run, the entries to scan for each element (see [`Resolved::range`]),
    /// found once per probe: a probe against later parts searches each list
    /// for its own part, and both passes of a count and an alignment read
    /// the same ranges.
    ranges: Vec<Vec<(u32, u32)>>,
    frequent: u32,
    /// For a probe against later parts: its run and part in that run.
    after: Option<(usize, u32)>,
}

impl Resolved {
    fn of(postings: &Postings<'_>, probe: &Probe<'_>) -> Resolved {
        let runs = postings.runs;
        let vocabulary = postings.vocabulary;
        let segments = runs.segments();
        let (hashes, own, after) = match *probe {
            Probe::Part(part) | Probe::PartAgainstLater(part) => {
                let (run, local) = runs.locate_part(part);
                let segment = &segments[run];
                let mut hashes = Vec::new();
                let mut own = Vec::new();
                for (hash, word) in segment
                    .part_hashes(local as usize)
                    .iter()
                    .zip(segment.part_words(local as usize).iter())
                {
                    if vocabulary.admits(hash) {
                        hashes.push(hash);
                        own.push(word);
                    }
                }
                let after = matches!(probe, Probe::PartAgainstLater(_)).then_some((run, local));
                (hashes, Some((run, own)), after)
            }
            Probe::Hashes(hashes) => (
                hashes
                    .iter()
                    .copied()
                    .filter(|&h| vocabulary.admits(h))
                    .collect(),
                None,
                None,
            ),
            Probe::Translated { .. } => (Vec::new(), None, None),
        };
        let (mut hashes, mut groups) = match *probe {
            Probe::Translated { hashes, groups } => {
                let (hashes, groups) = hashes
                    .iter()
                    .zip(groups)
                    .filter(|&(&h, _)| vocabulary.admits(h))
                    .map(|(&h, &g)| (h, g))
                    .unzip();
                (hashes, Some(groups))
            }
            _ => (hashes, None),
        };
        let mut words: Vec<Vec<u32>> = segments
            .iter()
            .enumerate()
            .map(|(r, segment)| match &own {
                Some((run, own)) if *run == r => own.clone(),
                _ => hashes
                    .iter()
                    .map(|&h| segment.find_word(h).unwrap_or(NONE))
                    .collect(),
            })
            .collect();
        let cap = vocabulary.cap() as usize;
        let mut frequent = 0;
        for i in 0..hashes.len() {
            let total: usize = segments
                .iter()
                .zip(&words)
                .filter(|(_, w)| w[i] != NONE)
                .map(|(s, w)| s.word_entries(w[i]).len())
                .sum();
            if total > cap {
                frequent += 1;
                words.iter_mut().for_each(|w| w[i] = NONE);
            }
        }
        if matches!(vocabulary, Vocabulary::Sample { .. }) && frequent > 0 {
            leave_out_frequent(&mut hashes, &mut groups, &mut words);
            frequent = 0;
        }
        let ranges = segments
            .iter()
            .zip(&words)
            .enumerate()
            .map(|(r, (segment, words))| {
                words
                    .iter()
                    .map(|&word| {
                        let range = entries_to_scan(segment, r, word, after);
                        (range.start as u32, range.end as u32)
                    })
                    .collect()
            })
            .collect();
        Resolved {
            hashes,
            groups,
            ranges,
            frequent,
            after,
        }
    }

    /// The index in X of element `e` of the resolved sequence.
    fn group(&self, e: usize) -> u32 {
        self.groups.as_ref().map_or(e as u32, |groups| groups[e])
    }

    /// The entries of run `r` to scan for element `i`: none when the word
    /// is not there (or frequent), else its list, past the probe's own
    /// part for a probe against later parts.
    fn range(&self, r: usize, i: usize) -> std::ops::Range<usize> {
        let (start, end) = self.ranges[r][i];
        start as usize..end as usize
    }
}

/// Leaves the frequent elements out altogether, as the word sample does:
/// neither counted nor aligned, by a rescan or by lookups alike. An
/// element absent from every run goes too: it matches nothing. `words`
/// holds, per run, each element's word there ([`NONE`]: absent or
/// frequent).
fn leave_out_frequent(
    hashes: &mut Vec<u32>,
    groups: &mut Option<Vec<u32>>,
    words: &mut [Vec<u32>],
) {
    let kept: Vec<bool> = (0..hashes.len())
        .map(|i| words.iter().any(|w| w[i] != NONE))
        .collect();
    let retain = |values: &mut Vec<u32>| {
        let mut i = 0;
        values.retain(|_| {
            i += 1;
            kept[i - 1]
        });
    };
    retain(hashes);
    if let Some(groups) = groups {
        retain(groups);
    }
    words.iter_mut().for_each(retain);
}

/// The entries of `word` (or none: [`NONE`]) in `segment`, run `r`, that a
/// probe scans: its whole list, or for a probe against the parts after
/// `after` (its run and part) the entries past that part.
fn entries_to_scan(
    segment: &Segment,
    r: usize,
    word: u32,
    after: Option<(usize, u32)>,
) -> std::ops::Range<usize> {
    if word == NONE {
        return 0..0;
    }
    let range = segment.word_entries(word);
    match after {
        Some((run, _)) if r < run => 0..0,
        Some((run, local)) if r == run => {
            let parts = segment.entry_parts().slice(range.clone());
            range.start + first_past(parts, local, segment.part_count() as u32)..range.end
        }
        _ => range,
    }
}

/// The first entry of a word's list (`parts`, ascending) past part
/// `local`, of `part_count` parts: the list's `partition_point(p <= local)`.
/// A list's parts spread over the segment's, so the search starts where
/// `local` would lie if they spread evenly and gallops from there: a few
/// reads near the answer instead of a binary search's scattered ones over
/// a long list (in an exact all-pairs run of the corpus, a third of the
/// join's time went to those searches, done twice per element).
fn first_past(parts: U32s<'_>, local: u32, part_count: u32) -> usize {
    let n = parts.len();
    let below = |i: usize| parts.get(i) <= local;
    if n == 0 {
        return 0;
    }
    let guess = ((u64::from(local) + 1) * n as u64 / u64::from(part_count.max(1))) as usize;
    let guess = guess.min(n - 1);
    // Bracket the answer in lo..=hi: every entry before lo is below, hi is
    // the list's end or an entry not below.
    let (lo, hi) = if below(guess) {
        gallop_forward(guess + 1, n, below)
    } else {
        gallop_back(guess, below)
    };
    lo + parts.slice(lo..hi).partition_point(|p| p <= local)
}

/// From `lo` (every entry before it below), steps of 1, 2, 4, … forward
/// until an entry is not below or the list of `n` ends: the bracket.
fn gallop_forward(mut lo: usize, n: usize, below: impl Fn(usize) -> bool) -> (usize, usize) {
    let mut step = 1;
    loop {
        let probe = lo + step - 1;
        if probe >= n {
            return (lo, n);
        }
        if !below(probe) {
            return (lo, probe);
        }
        lo = probe + 1;
        step *= 2;
    }
}

/// From `hi` (an entry not below), steps of 1, 2, 4, … back until an
/// entry is below or the list starts: the bracket.
fn gallop_back(mut hi: usize, below: impl Fn(usize) -> bool) -> (usize, usize) {
    let mut step = 1;
    loop {
        if hi < step {
            return (0, hi);
        }
        let probe = hi - step;
        if below(probe) {
            return (probe + 1, hi);
        }
        hi = probe;
        step *= 2;
    }
}

/// The elements of block `block` of a sequence of `len` elements cut
/// into `blocks` blocks: those `i` with `i · blocks / len == block`
/// ([`block_of`](crate::storage::segment_books::block_of) for [`BLOCKS`],
/// [`fine_block`] for [`FINE_BLOCKS`]), without a division per element.
fn block_range(block: usize, len: usize, blocks: usize) -> std::ops::Range<usize> {
    let start = |b: usize| match b >= blocks {
        true => len,
        false => (b * len).div_ceil(blocks),
    };
    start(block)..start(block + 1)
}

/// The fine block of element `index` of a sequence of `len` elements:
/// `index · FINE_BLOCKS / len`, at most `FINE_BLOCKS − 1`.
#[inline]
fn fine_block(index: u32, len: u32) -> usize {
    (u64::from(index) * FINE_BLOCKS as u64 / u64::from(len.max(1))).min(FINE_BLOCKS as u64 - 1)
        as usize
}

/// Extends heaviest monotone paths by one row of the block grid: `paths[by]`
/// is the heaviest path through the rows so far ending in column `by`;
/// `row` holds the next row's cell counts and is left zeroed.
fn extend_paths(paths: &mut [u32], row: &mut [u16]) {
    let mut left = 0;
    for (path, count) in paths.iter_mut().zip(row.iter_mut()) {
        let value = u32::from(std::mem::take(count)) + (*path).max(left);
        *path = value;
        left = value;
    }
}

/// The heaviest monotone path through a grid of cell counts.
#[cfg(test)]
fn heaviest_monotone_path(cells: &[u16]) -> u32 {
    let mut paths = [0u32; BLOCKS];
    for row in cells.chunks_exact(BLOCKS) {
        extend_paths(&mut paths, &mut row.to_vec());
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

/// What the last count of one probe left for its alignment: the entries
/// it scanned (which way aligning is cheaper) and its frequent words
/// (which rule out a rescan).
#[derive(Debug, Clone, Copy)]
pub struct ProbeCost {
    entries_scanned: u64,
    frequent_in_x: u32,
}

/// Per-thread scratch for joining one sequence against the postings.
#[derive(Debug)]
pub struct Join {
    entries_scanned: u64,
    frequent_in_x: u32,
    resolved: Resolved,
    /// Each hash's first entry in `x_by_hash`.
    index_in_x: ElementIndex,
    /// The probe's (hash, index in X), by hash (see `index_x`).
    x_by_hash: Vec<(u32, u32)>,
    counts: Vec<u32>,
    /// Kept candidates' cell counts in the current row of the block grid.
    row: Vec<u16>,
    /// Kept candidates' heaviest monotone paths through the rows so far.
    paths: Vec<u32>,
    /// The candidates (their places in `candidates`) the fine grid refines.
    refined: Vec<u32>,
    touched: Vec<u32>,
    candidates: Vec<Candidate>,
    slot: Vec<u32>,
    kept: Vec<(u32, u32)>,
    gathered: Vec<u32>,
    /// The other index of each gathered element (X's in a rescan, Y's in a
    /// lookup).
    gathered_other: Vec<u32>,
    /// A kept part's common elements as (index in Y, index in X).
    pairs: Vec<(u32, u32)>,
}

impl Join {
    /// Scratch for postings over `parts` parts.
    pub fn new(parts: usize) -> Self {
        Join {
            entries_scanned: 0,
            frequent_in_x: 0,
            resolved: Resolved::default(),
            index_in_x: ElementIndex::new(&[]),
            x_by_hash: Vec::new(),
            counts: vec![0; parts],
            row: Vec::new(),
            paths: Vec::new(),
            refined: Vec::new(),
            touched: Vec::new(),
            candidates: Vec::new(),
            slot: vec![NONE; parts],
            kept: Vec::new(),
            gathered: Vec::new(),
            gathered_other: Vec::new(),
            pairs: Vec::new(),
        }
    }

    /// Posting entries the last [`count`](Self::count) scanned: the join's
    /// work, the same on every run.
    pub fn entries_scanned(&self) -> u64 {
        self.entries_scanned
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
        self.entries_scanned = 0;
        let x_len = self.resolved.hashes.len();
        self.frequent_in_x = self.resolved.frequent;
        for (r, segment) in postings.runs.segments().iter().enumerate() {
            let base = postings.runs.part_base(r);
            let local_parts = segment.part_count() as u32;
            let entry_parts = segment.entry_parts();
            for i in 0..x_len {
                let range = self.resolved.range(r, i);
                self.entries_scanned += range.len() as u64;
                for local in entry_parts.slice(range).iter() {
                    if local >= local_parts {
                        continue;
                    }
                    let count = &mut self.counts[(base + local) as usize];
                    if *count == 0 {
                        self.touched.push(base + local);
                    }
                    *count += 1;
                }
            }
        }
        self.candidates.clear();
        let frequent_in_x = self.frequent_in_x;
        if frequent_in_x > 0 {
            self.add_uncounted(postings, frequent_in_x);
        }
        for &part in &self.touched {
            let frequent_at_most = frequent_in_x.min(postings.skipped(part));
            let counted = std::mem::take(&mut self.counts[part as usize]);
            self.candidates.push(Candidate {
                book: part,
                counted,
                frequent_at_most,
                lcs_at_most: counted + frequent_at_most,
            });
        }
        self.touched.clear();
        // A cell counts at most one block of X; past u16 the grid is skipped
        // and the bound stays the common count.
        if x_len.div_ceil(BLOCKS) <= u16::MAX as usize {
            self.fill_grids(postings, &worth);
            self.refine_grids(postings, &worth);
        }
        &self.candidates
    }

    /// Second pass, for the candidates `worth` keeps: their common words
    /// counted per cell of the block grid, and their LCS bound lowered to
    /// the heaviest monotone path through it. The grid is walked one row
    /// (block of X) at a time, every run's entries for that block, so a
    /// kept part holds one row of counts and its paths so far: 96 bytes,
    /// not a whole grid, which keeps the scattered increments in cache.
    fn fill_grids(&mut self, postings: &Postings<'_>, worth: &impl Fn(&Candidate) -> bool) {
        let mut kept = 0u32;
        for candidate in &self.candidates {
            if candidate.counted > 0 && worth(candidate) {
                self.slot[candidate.book as usize] = kept;
                kept += 1;
            }
        }
        if kept == 0 {
            return;
        }
        self.row.clear();
        self.row.resize(kept as usize * BLOCKS, 0);
        self.paths.clear();
        self.paths.resize(kept as usize * BLOCKS, 0);
        let x_len = self.resolved.hashes.len();
        for block in 0..BLOCKS {
            let elements = block_range(block, x_len, BLOCKS);
            if elements.is_empty() {
                continue;
            }
            for (r, segment) in postings.runs.segments().iter().enumerate() {
                let base = postings.runs.part_base(r);
                let local_parts = segment.part_count() as u32;
                let (entry_parts, blocks) = (segment.entry_parts(), segment.entry_blocks());
                for i in elements.clone() {
                    let range = self.resolved.range(r, i);
                    let in_blocks = blocks.get(range.clone()).unwrap_or(&[]);
                    for (local, &by) in entry_parts.slice(range).iter().zip(in_blocks) {
                        if local >= local_parts {
                            continue;
                        }
                        let k = self.slot[(base + local) as usize];
                        if k != NONE {
                            self.row[k as usize * BLOCKS + by as usize % BLOCKS] += 1;
                        }
                    }
                }
            }
            for (paths, row) in self
                .paths
                .chunks_exact_mut(BLOCKS)
                .zip(self.row.chunks_exact_mut(BLOCKS))
            {
                extend_paths(paths, row);
            }
        }
        for candidate in &mut self.candidates {
            let k = std::mem::replace(&mut self.slot[candidate.book as usize], NONE);
            if k != NONE && candidate.counted > 0 {
                let heaviest = self.paths[k as usize * BLOCKS + BLOCKS - 1];
                candidate.lcs_at_most = heaviest + candidate.frequent_at_most;
            }
        }
    }

    /// Third pass, for the candidates `worth` still keeps with their
    /// [`BLOCKS`] grid bound, when they are many: a [`FINE_BLOCKS`] grid
    /// from one more scan of X's lists, and their LCS bound lowered to its
    /// heaviest monotone path. A fine cell lies inside one coarse cell
    /// (`⌊16i/n⌋ = ⌊⌊64i/n⌋/4⌋`), so a fine path is a coarse path over no
    /// more words: the bound only tightens.
    fn refine_grids(&mut self, postings: &Postings<'_>, worth: &impl Fn(&Candidate) -> bool) {
        self.refined.clear();
        self.refined.extend(
            (self.candidates.iter().enumerate())
                .filter(|(_, c)| c.counted > 0 && worth(c))
                .map(|(at, _)| at as u32),
        );
        if self.refined.is_empty() {
            return;
        }
        let lookups: u64 = (self.refined.iter())
            .map(|&at| u64::from(postings.runs.part_len(self.candidates[at as usize].book)))
            .sum();
        // Aligning a few candidates costs about what a fine grid by
        // lookup would: refine only when they hold more elements than X's
        // lists hold entries, and then by one scan of the lists.
        if lookups <= self.entries_scanned {
            return;
        }
        let mut paths = std::mem::take(&mut self.paths);
        paths.clear();
        paths.resize(self.refined.len() * FINE_BLOCKS, 0);
        self.fine_grids_by_scan(postings, &mut paths);
        for (k, &at) in self.refined.iter().enumerate() {
            let candidate = &mut self.candidates[at as usize];
            let heaviest = paths[k * FINE_BLOCKS + FINE_BLOCKS - 1] + candidate.frequent_at_most;
            candidate.lcs_at_most = candidate.lcs_at_most.min(heaviest);
        }
        self.paths = paths;
    }

    /// The fine grids' heaviest paths of the refined candidates (`paths`,
    /// [`FINE_BLOCKS`] per candidate, in `refined` order) by looking each
    /// one's words up in X's: the reference the scan is tested against. An
    /// element of X counts against a part of run r exactly when the scan
    /// reads its list there (its range is not empty: not frequent, present
    /// in the run and, for a probe against later parts, with entries past
    /// the probe's part, as every candidate is).
    #[cfg(test)]
    fn fine_grids_by_lookup(&mut self, postings: &Postings<'_>, paths: &mut [u32]) {
        let x_len = self.resolved.hashes.len() as u32;
        self.x_by_hash.clear();
        (self.x_by_hash).extend(self.resolved.hashes.iter().copied().zip(0u32..));
        self.x_by_hash.sort_unstable();
        self.index_in_x = ElementIndex::of(self.x_by_hash.iter().map(|&(hash, _)| hash));
        let mut grid = vec![0u16; FINE_BLOCKS * FINE_BLOCKS];
        for (k, &at) in self.refined.iter().enumerate() {
            let book = self.candidates[at as usize].book;
            let (r, _) = postings.runs.locate_part(book);
            let y = postings.runs.part_hashes(book);
            let len_y = y.len() as u32;
            for (j, hash) in (0u32..).zip(y.iter()) {
                let Some(first) = self.index_in_x.get(hash) else {
                    continue;
                };
                let by = fine_block(j, len_y);
                let same = self.x_by_hash[first as usize..].iter();
                for &(_, i) in same.take_while(|&&(h, _)| h == hash) {
                    if !self.resolved.range(r, i as usize).is_empty() {
                        let cell = &mut grid[fine_block(i, x_len) * FINE_BLOCKS + by];
                        *cell = cell.saturating_add(1);
                    }
                }
            }
            let paths = &mut paths[k * FINE_BLOCKS..(k + 1) * FINE_BLOCKS];
            for row in grid.chunks_exact_mut(FINE_BLOCKS) {
                extend_paths(paths, row);
            }
        }
    }

    /// The fine grids' heaviest paths of the refined candidates (`paths`,
    /// [`FINE_BLOCKS`] per candidate, in `refined` order) by a scan of X's
    /// lists, one row at a time as [`Self::fill_grids`] does, each entry's
    /// fine block found from its index.
    fn fine_grids_by_scan(&mut self, postings: &Postings<'_>, paths: &mut [u32]) {
        let refined = self.refined.len();
        let mut lens = Vec::with_capacity(refined);
        for (k, &at) in self.refined.iter().enumerate() {
            let book = self.candidates[at as usize].book;
            self.slot[book as usize] = k as u32;
            lens.push(postings.runs.part_len(book));
        }
        self.row.clear();
        self.row.resize(refined * FINE_BLOCKS, 0);
        let x_len = self.resolved.hashes.len();
        for block in 0..FINE_BLOCKS {
            let elements = block_range(block, x_len, FINE_BLOCKS);
            if elements.is_empty() {
                continue;
            }
            for (r, segment) in postings.runs.segments().iter().enumerate() {
                let base = postings.runs.part_base(r);
                let local_parts = segment.part_count() as u32;
                let (entry_parts, indexes) = (segment.entry_parts(), segment.entry_indexes());
                for i in elements.clone() {
                    let range = self.resolved.range(r, i);
                    let in_part = indexes.slice(range.clone());
                    for (local, index) in entry_parts.slice(range).iter().zip(in_part.iter()) {
                        if local >= local_parts {
                            continue;
                        }
                        let k = self.slot[(base + local) as usize];
                        if k != NONE {
                            let by = fine_block(index, lens[k as usize]);
                            let cell = &mut self.row[k as usize * FINE_BLOCKS + by];
                            *cell = cell.saturating_add(1);
                        }
                    }
                }
            }
            for (paths, row) in paths
                .chunks_exact_mut(FINE_BLOCKS)
                .zip(self.row.chunks_exact_mut(FINE_BLOCKS))
            {
                extend_paths(paths, row);
            }
        }
        for &at in &self.refined {
            self.slot[self.candidates[at as usize].book as usize] = NONE;
        }
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

    /// What the last [`count`](Self::count) left for aligning its probe
    /// later, after other probes were counted ([`Self::align_with_cost`]).
    pub fn cost(&self) -> ProbeCost {
        ProbeCost {
            entries_scanned: self.entries_scanned,
            frequent_in_x: self.frequent_in_x,
        }
    }

    /// [`align`](Self::align) for a probe counted earlier, whose
    /// [`cost`](Self::cost) was kept: `keep` as that count returned them.
    pub fn align_with_cost(
        &mut self,
        postings: &Postings<'_>,
        probe: &Probe<'_>,
        cost: ProbeCost,
        len_x: u32,
        keep: &[Candidate],
        found: impl FnMut(u32, Overlap),
    ) {
        let last = self.cost();
        self.resolved = Resolved::of(postings, probe);
        self.entries_scanned = cost.entries_scanned;
        self.frequent_in_x = cost.frequent_in_x;
        self.align_resolved(postings, len_x, keep, found);
        self.entries_scanned = last.entries_scanned;
        self.frequent_in_x = last.frequent_in_x;
    }

    /// Second pass: aligns the last counted probe's sequence (of `len_x`
    /// elements) with each of `keep` (as that [`count`](Self::count)
    /// returned them), calling `found` with each part and its overlap.
    /// Rescans the postings when that is cheaper than reading every kept
    /// part's sequence, else looks each kept part's words up in the probe's.
    pub fn align(
        &mut self,
        postings: &Postings<'_>,
        len_x: u32,
        keep: &[Candidate],
        found: impl FnMut(u32, Overlap),
    ) {
        self.align_resolved(postings, len_x, keep, found);
    }

    fn align_resolved(
        &mut self,
        postings: &Postings<'_>,
        len_x: u32,
        keep: &[Candidate],
        found: impl FnMut(u32, Overlap),
    ) {
        if keep.is_empty() {
            return;
        }
        let lookups: u64 = keep
            .iter()
            .map(|c| u64::from(postings.runs.part_len(c.book)))
            .sum();
        // A rescan sees only counted words, so it serves only probes without
        // frequent words.
        if lookups < self.entries_scanned || self.frequent_in_x > 0 {
            self.align_by_lookup(postings, len_x, keep, found);
        } else {
            self.align_by_rescan(postings, len_x, keep, found);
        }
    }

    fn align_by_rescan(
        &mut self,
        postings: &Postings<'_>,
        len_x: u32,
        keep: &[Candidate],
        mut found: impl FnMut(u32, Overlap),
    ) {
        self.kept.clear();
        let mut total = 0u32;
        for (k, candidate) in keep.iter().enumerate() {
            self.slot[candidate.book as usize] = k as u32;
            self.kept.push((total, total));
            total += candidate.counted;
        }
        self.gathered.resize(total as usize, 0);
        self.gathered_other.resize(total as usize, 0);
        for (r, segment) in postings.runs.segments().iter().enumerate() {
            let base = postings.runs.part_base(r);
            let local_parts = segment.part_count() as u32;
            let (entry_parts, indexes) = (segment.entry_parts(), segment.entry_indexes());
            for in_x in 0..self.resolved.hashes.len() {
                let range = self.resolved.range(r, in_x);
                for (local, index) in entry_parts
                    .slice(range.clone())
                    .iter()
                    .zip(indexes.slice(range).iter())
                {
                    if local >= local_parts {
                        continue;
                    }
                    let k = self.slot[(base + local) as usize];
                    if k != NONE {
                        let (start, end) = &mut self.kept[k as usize];
                        // A damaged list could hold more entries than counted.
                        if *end < start.saturating_add(keep[k as usize].counted) {
                            self.gathered[*end as usize] = index;
                            self.gathered_other[*end as usize] = self.resolved.group(in_x);
                            *end += 1;
                        }
                    }
                }
            }
        }
        for (candidate, &(start, end)) in keep.iter().zip(&self.kept) {
            self.slot[candidate.book as usize] = NONE;
            let (start, end) = (start as usize, end as usize);
            // Into Y's order, as a lookup gathers them: the LCS whose span
            // is measured is then the same whichever way the pair aligned.
            self.pairs.clear();
            self.pairs.extend(
                self.gathered[start..end]
                    .iter()
                    .zip(&self.gathered_other[start..end])
                    .map(|(&y, &x)| (y, x)),
            );
            // An element of Y paired with several of X (a translated probe)
            // takes them in descending order: a strictly increasing
            // subsequence then holds at most one pair per element of Y.
            self.pairs
                .sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
            // Written back in place, X's indexes over Y's, in Y's order.
            let (in_x, in_y) = (
                &mut self.gathered[start..end],
                &mut self.gathered_other[start..end],
            );
            for ((x, y), &(at_y, at_x)) in in_x.iter_mut().zip(in_y.iter_mut()).zip(&self.pairs) {
                (*x, *y) = (at_x, at_y);
            }
            let (lcs, span_x, span_y) = lis_span(in_x, in_y);
            found(
                candidate.book,
                Overlap {
                    len_x,
                    len_y: postings.runs.part_len(candidate.book),
                    common: (end - start) as u32,
                    lcs,
                    span_x,
                    span_y,
                },
            );
        }
    }

    fn align_by_lookup(
        &mut self,
        postings: &Postings<'_>,
        len_x: u32,
        keep: &[Candidate],
        mut found: impl FnMut(u32, Overlap),
    ) {
        self.index_x();
        for candidate in keep {
            self.gathered.clear();
            self.gathered_other.clear();
            for (j, hash) in postings.runs.part_hashes(candidate.book).iter().enumerate() {
                let Some(first) = self.index_in_x.get(hash) else {
                    continue;
                };
                for &(_, i) in self.x_by_hash[first as usize..]
                    .iter()
                    .take_while(|&&(h, _)| h == hash)
                {
                    self.gathered.push(i);
                    self.gathered_other.push(j as u32);
                }
            }
            let (lcs, span_x, span_y) = lis_span(&self.gathered, &self.gathered_other);
            found(
                candidate.book,
                Overlap {
                    len_x,
                    len_y: postings.runs.part_len(candidate.book),
                    common: self.gathered.len() as u32,
                    lcs,
                    span_x,
                    span_y,
                },
            );
        }
    }

    /// Indexes the resolved sequence by hash for lookups: `x_by_hash`
    /// holds (hash, index in X) sorted by hash and, for one hash, by
    /// descending index (a strictly increasing subsequence then takes at
    /// most one of them), and `index_in_x` each hash's first entry. A
    /// sequence of one language keeps one entry per hash, its last (two
    /// words of one hash are one word to the join).
    fn index_x(&mut self) {
        self.x_by_hash.clear();
        let resolved = &self.resolved;
        self.x_by_hash
            .extend((0..resolved.hashes.len()).map(|e| (resolved.hashes[e], resolved.group(e))));
        self.x_by_hash
            .sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        if resolved.groups.is_none() {
            self.x_by_hash.dedup_by_key(|&mut (hash, _)| hash);
        } else {
            self.x_by_hash.dedup();
        }
        self.index_in_x = ElementIndex::of(self.x_by_hash.iter().map(|&(hash, _)| hash));
    }

    /// Aligns two stored parts directly: X's words are marked in a table
    /// and Y's are looked up in it, O(|X| + |Y| + c log c).
    pub fn align_pair(&mut self, postings: &Postings<'_>, a: u32, b: u32) -> Overlap {
        self.resolved = Resolved {
            hashes: postings.runs.part_hashes(a).to_vec(),
            ..Resolved::default()
        };
        let unknown = Candidate {
            book: b,
            counted: 0,
            frequent_at_most: 0,
            lcs_at_most: 0,
        };
        let len_x = self.resolved.hashes.len() as u32;
        let mut result = Overlap::default();
        self.align_by_lookup(postings, len_x, &[unknown], |_, o| result = o);
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
        let mut by_rescan = Vec::new();
        join.align_by_rescan(&postings, 5, &keep, |b, o| by_rescan.push((b, o)));
        let mut by_lookup = Vec::new();
        join.align_by_lookup(&postings, 5, &keep, |b, o| by_lookup.push((b, o)));
        assert_eq!(by_rescan, by_lookup);
        assert_eq!(by_rescan.len(), 3);
        for (book, overlap) in by_rescan {
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
        // bounds part 1's LCS by far less than its common count.
        let x: Vec<u32> = (1..=64).collect();
        let reversed: Vec<u32> = x.iter().rev().copied().collect();
        let runs = runs(&[&[&x, &reversed], &[&x[..8]]]);
        let (frequent, cap) = all(&runs, u32::MAX);
        let postings = Postings::all(&runs, cap, &frequent);
        let mut join = Join::new(3);
        let mut every: Vec<Candidate> = join.count(&postings, &Probe::Hashes(&x)).to_vec();
        every.sort_by_key(|c| c.book);
        assert_eq!(every[1].counted, 64);
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
    }

    proptest::proptest! {
        #[test]
        fn first_past_is_the_lists_partition_point(
            mut parts in proptest::collection::vec(0u32..300, 0..400),
            local in 0u32..320,
            part_count in 0u32..400,
        ) {
            parts.sort_unstable();
            let bytes: Vec<u8> = parts.iter().flat_map(|p| p.to_le_bytes()).collect();
            let expected = parts.partition_point(|&p| p <= local);
            proptest::prop_assert_eq!(first_past(U32s::new(&bytes), local, part_count), expected);
        }
    }

    proptest::proptest! {
        /// The fine grids are the same whether the kept parts' words are
        /// looked up in X's or X's lists are scanned, for every kind of
        /// probe, across runs.
        #[test]
        fn fine_grids_by_lookup_equal_fine_grids_by_scan(
            sequences in proptest::collection::vec(
                proptest::collection::vec(0u32..40, 0..90), 2..8),
            pick in 0usize..8,
            kind in 0u8..3,
        ) {
            let sequences: Vec<Vec<u32>> = sequences
                .into_iter()
                .map(|s| {
                    let mut seen = std::collections::HashSet::new();
                    s.into_iter().filter(|h| seen.insert(*h)).collect()
                })
                .collect();
            let refs: Vec<&[u32]> = sequences.iter().map(Vec::as_slice).collect();
            let half = refs.len() / 2;
            let runs = runs(&[&refs[..half], &refs[half..]]);
            let (frequent, cap) = all(&runs, u32::MAX);
            let postings = Postings::all(&runs, cap, &frequent);
            let mut join = Join::new(refs.len());
            let part = (pick % refs.len()) as u32;
            let probe = match kind {
                0 => Probe::Part(part),
                1 => Probe::PartAgainstLater(part),
                _ => Probe::Hashes(refs[pick % refs.len()]),
            };
            join.count_bounded(&postings, &probe, |_| false);
            join.refined = (join.candidates.iter().enumerate())
                .filter(|(_, c)| c.counted > 0)
                .map(|(at, _)| at as u32)
                .collect();
            let mut by_lookup = vec![0; join.refined.len() * FINE_BLOCKS];
            join.fine_grids_by_lookup(&postings, &mut by_lookup);
            let mut by_scan = vec![0; join.refined.len() * FINE_BLOCKS];
            join.fine_grids_by_scan(&postings, &mut by_scan);
            proptest::prop_assert_eq!(by_lookup, by_scan);
        }
    }

    #[test]
    fn fine_ranges_match_fine_blocks() {
        for len in [0usize, 1, 2, 63, 64, 65, 127, 128, 1000, 4097] {
            let mut next = 0;
            for block in 0..FINE_BLOCKS {
                let range = block_range(block, len, FINE_BLOCKS);
                assert_eq!(range.start, next, "len {len} block {block}");
                for i in range.clone() {
                    assert_eq!(fine_block(i as u32, len as u32), block, "len {len} i {i}");
                }
                next = range.end;
            }
            assert_eq!(next, len);
        }
    }

    #[test]
    fn block_ranges_match_block_of() {
        use crate::storage::segment_books::block_of;
        for len in [0usize, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4097] {
            let mut next = 0;
            for block in 0..BLOCKS {
                let range = block_range(block, len, BLOCKS);
                assert_eq!(range.start, next, "len {len} block {block}");
                for i in range.clone() {
                    assert_eq!(
                        block_of(i as u32, len as u32) as usize,
                        block,
                        "len {len} i {i}"
                    );
                }
                next = range.end;
            }
            assert_eq!(next, len);
        }
    }

    #[test]
    fn heaviest_path_bounds_the_lis_of_a_shuffled_grid() {
        // Diagonal: the path takes every cell on it.
        let mut cells = [0u16; BLOCKS * BLOCKS];
        for b in 0..BLOCKS {
            cells[b * BLOCKS + b] = 10;
        }
        assert_eq!(heaviest_monotone_path(&cells), 10 * BLOCKS as u32);
        // Anti-diagonal: a monotone path meets only one of its cells.
        let mut cells = [0u16; BLOCKS * BLOCKS];
        for b in 0..BLOCKS {
            cells[b * BLOCKS + (BLOCKS - 1 - b)] = 10;
        }
        assert_eq!(heaviest_monotone_path(&cells), 10);
    }
}
