//! The query planner. Exact mode: candidates from postings → upper bounds →
//! prune → LCS verification → top-k; the result equals the brute-force
//! top-k under the chosen score (ties broken by internal id). Approximate
//! mode: candidates from the band tables → LCS verification → top-k.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use super::approx::{QueryKeys, SourceCounts};
use super::postings::{Candidate, Join, Probe};
use super::Reader;
use crate::align::{Overlap, Score, SequenceIndex};
use crate::repr::SimHash128;

/// Where candidates come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Unique-word postings with sound upper bounds: the result equals the
    /// brute-force answer.
    #[default]
    Exact,
    /// Band tables only (min-hash of books and windows, simhash): candidates
    /// are verified like in exact mode, but a related book whose signatures
    /// never collide with the query's is missed.
    Approximate,
}

impl Mode {
    /// The mode's name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Exact => "exact",
            Mode::Approximate => "approximate",
        }
    }
}

/// What to ask: built from [`QueryOptions::default`] or
/// [`QueryOptions::with_score`] and the setters.
///
/// ```
/// use stemmata::{Mode, QueryOptions, Score};
///
/// let options = QueryOptions::with_score(Score::Containment)
///     .mode(Mode::Approximate)
///     .top_k(20)
///     .min_score(0.3);
/// assert_eq!(options.top_k, 20);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct QueryOptions {
    /// Where candidates come from. Default [`Mode::Exact`].
    pub mode: Mode,
    /// The score to rank by. Default [`Score::Coverage`].
    pub score: Score,
    /// At most this many hits. Default 10; 0 means no limit.
    pub top_k: usize,
    /// Only hits scoring at least this (and above zero). Default: the
    /// score's documented threshold.
    pub min_score: f64,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions::with_score(Score::default())
    }
}

impl QueryOptions {
    /// Defaults for `score`: top 10 at the score's threshold.
    pub fn with_score(score: Score) -> Self {
        QueryOptions {
            mode: Mode::Exact,
            score,
            top_k: 10,
            min_score: score.default_threshold(),
        }
    }

    /// Where candidates come from.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// At most this many hits; 0 means no limit.
    pub fn top_k(mut self, top_k: usize) -> Self {
        self.top_k = top_k;
        self
    }

    /// Only hits scoring at least this (and above zero).
    pub fn min_score(mut self, min_score: f64) -> Self {
        self.min_score = min_score;
        self
    }
}

/// One related book.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hit {
    /// Internal id of the book.
    pub id: u32,
    /// Its key.
    pub key: String,
    /// Its title (empty when the load gave none).
    pub title: String,
    /// The score under the query's score.
    pub score: f64,
    /// Lengths, common count and LCS.
    #[serde(flatten)]
    pub overlap: OverlapFields,
}

/// [`Overlap`] as output fields.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct OverlapFields {
    /// Unique words of the query.
    pub query_unique: u32,
    /// Unique words of the hit.
    pub hit_unique: u32,
    /// Common unique words.
    pub common: u32,
    /// LCS length.
    pub lcs: u32,
}

impl From<Overlap> for OverlapFields {
    fn from(o: Overlap) -> Self {
        OverlapFields {
            query_unique: o.len_x,
            hit_unique: o.len_y,
            common: o.common,
            lcs: o.lcs,
        }
    }
}

/// How many books each planner stage kept.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Explain {
    /// The mode the query ran in.
    pub mode: Mode,
    /// Books in the snapshot, the query book excluded.
    pub books: u64,
    /// Exact mode: books sharing at least one counted unique word, or
    /// holding frequent words when the query has some (from postings).
    /// Approximate mode: books proposed by any band table.
    pub candidates: u64,
    /// Exact mode: the query's unique words that counting skipped as
    /// frequent (each still counts toward every bound).
    pub frequent_words: u64,
    /// Approximate mode: candidates proposed by each band table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources: Option<SourceCounts>,
    /// Exact mode: posting entries scanned while counting.
    pub entries_scanned: u64,
    /// Candidates whose upper bound reaches the threshold.
    pub within_bound: u64,
    /// Candidates aligned (LCS runs).
    pub lcs_runs: u64,
    /// Books never aligned: `books − lcs_runs`.
    pub lcs_avoided: u64,
    /// Hits returned.
    pub hits: u64,
    /// Wall time.
    #[serde(
        rename = "elapsed_ms",
        serialize_with = "crate::duration_serde::millis"
    )]
    pub elapsed: Duration,
}

/// Hits, best first, with the plan's counts.
#[derive(Debug, Clone, serde::Serialize)]
pub struct QueryResult {
    /// Hits by descending score, ties by ascending id.
    pub hits: Vec<Hit>,
    /// What each stage kept.
    pub explain: Explain,
}

/// A scored slot in the top-k heap: the heap's top is the worst kept hit.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ranked {
    score: f64,
    slot: u32,
    overlap: Overlap,
}

impl Eq for Ranked {}

impl Ord for Ranked {
    /// Better = higher score, then lower slot. "Greater" here means worse, so
    /// the max-heap's top is the worst kept hit.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.slot.cmp(&other.slot))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Keeps the best `k` (all when `k` is 0).
struct TopK {
    k: usize,
    heap: BinaryHeap<Ranked>,
}

impl TopK {
    fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::new(),
        }
    }

    fn is_full(&self) -> bool {
        self.k > 0 && self.heap.len() >= self.k
    }

    /// The score a new hit must reach to enter, once full.
    fn floor(&self) -> Option<f64> {
        self.is_full()
            .then(|| self.heap.peek().map(|r| r.score))
            .flatten()
    }

    fn offer(&mut self, ranked: Ranked) {
        if !self.is_full() {
            self.heap.push(ranked);
        } else if self.heap.peek().is_some_and(|worst| ranked < *worst) {
            self.heap.pop();
            self.heap.push(ranked);
        }
    }

    fn into_sorted(self) -> Vec<Ranked> {
        self.heap.into_sorted_vec()
    }
}

impl Reader {
    fn hits_from(&self, ranked: Vec<Ranked>) -> Vec<Hit> {
        ranked
            .into_iter()
            .map(|r| Hit {
                id: self.books[r.slot as usize].id,
                key: self.books[r.slot as usize].key.clone(),
                title: self.books[r.slot as usize].title.clone(),
                score: r.score,
                overlap: r.overlap.into(),
            })
            .collect()
    }

    /// The upper bound on `score` of a candidate from its common count and
    /// block bound.
    pub(crate) fn bound(&self, score: Score, len_x: u32, candidate: &Candidate) -> f64 {
        let len_y = self.sequences[candidate.book as usize].len() as u32;
        candidate.bound(score, len_x, len_y)
    }

    fn qualifies(score: f64, options: &QueryOptions) -> bool {
        score > 0.0 && score >= options.min_score
    }

    /// Runs the planner for `query`; `exclude` is the query's own slot when
    /// it is a stored book, whose stored words are then probed (`query` must
    /// be that book's sequence). Public callers go through
    /// [`Reader::query_key`] and [`Reader::query_text`], which keep the two
    /// consistent.
    pub(crate) fn query_sequence(
        &self,
        query: &[u32],
        exclude: Option<u32>,
        options: &QueryOptions,
    ) -> QueryResult {
        let started = Instant::now();
        let mut explain = Explain {
            books: (self.books.len() - exclude.is_some() as usize) as u64,
            ..Explain::default()
        };
        let len_x = query.len() as u32;
        let resolved;
        let probe = match exclude {
            Some(slot) => Probe::Book(slot),
            None => {
                resolved = self.postings().resolve(query);
                Probe::Words(&resolved)
            }
        };
        let mut join = Join::new(self.books.len());
        let mut bounded: Vec<(f64, Candidate)> = Vec::new();
        for candidate in join.count(self.postings(), &probe) {
            if Some(candidate.book) == exclude {
                continue;
            }
            explain.candidates += 1;
            let bound = self.bound(options.score, len_x, candidate);
            if Self::qualifies(bound, options) {
                bounded.push((bound, *candidate));
            }
        }
        explain.within_bound = bounded.len() as u64;
        explain.entries_scanned = join.entries_scanned();
        explain.frequent_words = join.frequent_in_x() as u64;
        bounded.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.book.cmp(&b.1.book)));
        // Round one aligns the k best bounds; round two only the rest whose
        // bound can still reach the k-th best score found.
        let first_round = match options.top_k {
            0 => bounded.len(),
            k => k.min(bounded.len()),
        };
        let mut top = TopK::new(options.top_k);
        let mut verify = |batch: Vec<Candidate>, top: &mut TopK, explain: &mut Explain| {
            explain.lcs_runs += batch.len() as u64;
            join.align(self.postings(), &probe, len_x, &batch, |slot, overlap| {
                let score = options.score.value(&overlap);
                if Self::qualifies(score, options) {
                    top.offer(Ranked {
                        score,
                        slot,
                        overlap,
                    });
                }
            });
        };
        let (first, rest) = bounded.split_at(first_round);
        verify(
            first.iter().map(|&(_, c)| c).collect(),
            &mut top,
            &mut explain,
        );
        let floor = top.floor();
        let survivors = rest
            .iter()
            .take_while(|&&(bound, _)| floor.is_none_or(|f| bound >= f))
            .map(|&(_, c)| c)
            .collect();
        verify(survivors, &mut top, &mut explain);
        let hits = self.hits_from(top.into_sorted());
        explain.lcs_avoided = explain.books - explain.lcs_runs;
        explain.hits = hits.len() as u64;
        explain.elapsed = started.elapsed();
        QueryResult { hits, explain }
    }

    /// Approximate mode: aligns `query` with the books sharing a band key
    /// with `keys` (see [`super::approx`]).
    pub(crate) fn query_bands(
        &self,
        query: &[u32],
        keys: &QueryKeys,
        simhash: SimHash128,
        exclude: Option<u32>,
        options: &QueryOptions,
    ) -> QueryResult {
        let started = Instant::now();
        let sketches = self.sketches.as_ref().expect("callers check for sketches");
        let (candidates, sources) =
            sketches.candidates(self, keys, simhash, |slot| Some(slot) != exclude);
        let hits = self.align_top(query, candidates.iter().copied(), options);
        let books = (self.books.len() - exclude.is_some() as usize) as u64;
        let aligned = candidates.len() as u64;
        QueryResult {
            explain: Explain {
                mode: Mode::Approximate,
                books,
                candidates: aligned,
                sources: Some(sources),
                within_bound: aligned,
                lcs_runs: aligned,
                lcs_avoided: books - aligned,
                hits: hits.len() as u64,
                elapsed: started.elapsed(),
                ..Explain::default()
            },
            hits,
        }
    }

    /// The same answer as [`Reader::query_key`] (with `exclude` the book's
    /// slot) or [`Reader::query_text`] (with `None`) by aligning `query` with
    /// every book: the baseline the planner is tested and benchmarked against.
    pub fn brute_force(
        &self,
        query: &[u32],
        exclude: Option<u32>,
        options: &QueryOptions,
    ) -> Vec<Hit> {
        let slots = (0..self.sequences.len() as u32).filter(|&slot| Some(slot) != exclude);
        self.align_top(query, slots, options)
    }

    /// Aligns `query` with the books in `slots`, one by one, and keeps the
    /// top-k hits that qualify under `options`.
    fn align_top(
        &self,
        query: &[u32],
        slots: impl Iterator<Item = u32>,
        options: &QueryOptions,
    ) -> Vec<Hit> {
        let x = SequenceIndex::new(query);
        let mut scratch = Vec::new();
        let mut top = TopK::new(options.top_k);
        for slot in slots {
            let overlap = x.align(&self.sequences[slot as usize], &mut scratch);
            let score = options.score.value(&overlap);
            if Self::qualifies(score, options) {
                top.offer(Ranked {
                    score,
                    slot,
                    overlap,
                });
            }
        }
        self.hits_from(top.into_sorted())
    }
}
