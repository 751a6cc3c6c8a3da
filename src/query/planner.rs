//! The query planner. Its unit is a part: a book is one part, or several
//! when it is a volume ([`crate::PartOptions`]), and a book's score is the
//! best score of a pair of parts (the query's, the book's). Exact mode:
//! candidate pairs of parts from postings → upper bounds → prune against
//! the k-th best book score → LCS verification → top-k books; the result
//! equals the brute-force top-k under the chosen score (ties broken by
//! internal id, and within a book by the lower pair of parts). Approximate
//! mode: candidate books from the band tables → LCS verification of their
//! parts → top-k. Each hit says where its match lies ([`WordRange`]).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use super::approx::{QueryKeys, SourceCounts};
use super::postings::{Candidate, Join, Postings, Probe};
use super::query_book::QueryBook;
use super::Reader;
use crate::align::{AlignScratch, Overlap, Score, SequenceIndex, MIN_SPAN_SHARE};
use crate::batch::{locate, Location, WordRange};
use crate::error::Result;
use crate::lang::is_known;
use crate::relate::TranslationShape;
use crate::repr::{SimHash128, UniqueWordSeq};

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
    /// The score to rank by. Default [`Score::Order`].
    pub score: Score,
    /// At most this many hits. Default 10; 0 means no limit.
    pub top_k: usize,
    /// Only hits scoring at least this (and above zero). Default: the
    /// score's documented threshold.
    pub min_score: f64,
    /// Also search the books of other languages for translations of the
    /// query, through the index's dictionaries (see
    /// [`Index::add_dictionary`](crate::Index::add_dictionary)): its unique
    /// words translated into each language a dictionary joins its own to.
    /// Such hits have [`Hit::relation`] `Some(Relationship::Translation)`.
    /// Default false.
    pub translations: bool,
    /// Only translation hits scoring at least this (and above zero).
    /// Default: the score's translation threshold
    /// ([`Score::translation_threshold`]).
    pub translation_min_score: f64,
    /// Only matches spanning at least [`MIN_SPAN_SHARE`] of one of the
    /// two sequences count: set for translation search (see
    /// [`QueryOptions::for_translations`]).
    pub(crate) spanning_only: bool,
    /// Verified pairs need at least this evidence
    /// ([`crate::align::Overlap::evidence`]); 0 admits every pair.
    pub(crate) min_evidence: f64,
    /// The least evidence of a pair found passage to passage by
    /// translation search. Default [`MIN_PASSAGE_EVIDENCE`].
    pub(crate) passage_evidence: f64,
}

/// The least evidence ([`crate::align::Overlap::evidence`]) a pair of
/// passages needs to count in translation search (`translations.rs`): a
/// tiny passage (a book's last few words) matched by a handful of words
/// covers a large share of itself by chance, but cannot reach it.
pub(crate) const MIN_PASSAGE_EVIDENCE: f64 = 4.0;

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
            translations: false,
            translation_min_score: score.translation_threshold(),
            spanning_only: false,
            min_evidence: 0.0,
            passage_evidence: MIN_PASSAGE_EVIDENCE,
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

    /// Also search for translations (see
    /// [`QueryOptions::translations`](#structfield.translations)).
    pub fn translations(mut self, translations: bool) -> Self {
        self.translations = translations;
        self
    }

    /// Only translation hits scoring at least this (and above zero).
    pub fn translation_min_score(mut self, min_score: f64) -> Self {
        self.translation_min_score = min_score;
        self
    }

    /// These options as a search for translations applies them: the
    /// translation threshold, and only matches that span at least
    /// [`MIN_SPAN_SHARE`] of one of the two books. A translated work is
    /// found along a sizeable share of a book (a whole book, a part, a work
    /// in a volume); a shorter shared passage (a series advertisement, a
    /// licence, a quotation translated in both) would otherwise pass by
    /// coverage, whose threshold is low for translations.
    pub(crate) fn for_translations(&self) -> QueryOptions {
        QueryOptions {
            min_score: self.translation_min_score,
            spanning_only: true,
            ..*self
        }
    }

    /// Whether a candidate may still reach the least evidence: its
    /// evidence can be at most (min(L, c) − 2√c) / c^(1/6) at c the common
    /// count clamped to what counting found and `L` the LCS bound (the
    /// expression rises with c up to L and falls after it).
    pub(crate) fn may_admit(&self, candidate: &Candidate) -> bool {
        if self.min_evidence <= 0.0 {
            return true;
        }
        let most = candidate.counted + candidate.frequent_at_most;
        let lcs = candidate.lcs_at_most;
        let common = lcs.clamp(candidate.counted, most).max(1);
        let at_most = Overlap {
            common,
            lcs: lcs.min(common),
            ..Overlap::default()
        };
        at_most.evidence() >= self.min_evidence
    }

    /// Whether a verified pair with this overlap may count (see
    /// [`QueryOptions::for_translations`]).
    pub(crate) fn admits(&self, overlap: &Overlap) -> bool {
        (!self.spanning_only || overlap.span_share() >= MIN_SPAN_SHARE)
            && (self.min_evidence <= 0.0 || overlap.evidence() >= self.min_evidence)
    }
}

/// How a hit or a pair relates beyond its score, when the search knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Relationship {
    /// Books of two languages, one a translation of (part of) the other:
    /// found through a dictionary.
    Translation,
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
    /// Its language: an ISO 639-3 code, `und` when it could not be told
    /// ([`crate::lang`]).
    pub language: String,
    /// The score under the query's score: the best over pairs of parts.
    pub score: f64,
    /// Lengths, common count and LCS of the best pair of parts.
    #[serde(flatten)]
    pub overlap: OverlapFields,
    /// The query's part the match lies in (0 unless it is a volume).
    pub query_part: u32,
    /// The hit's part the match lies in (0 unless it is a volume).
    pub hit_part: u32,
    /// Words of the query the match spans (see [`WordRange`]).
    pub query_words: WordRange,
    /// Words of the hit the match spans.
    pub hit_words: WordRange,
    /// `Some(Relationship::Translation)` for a translation hit (its words
    /// are translated words of the query's); `None` for a hit of the
    /// query's own words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<Relationship>,
    /// For a translation hit found through a dictionary, its shape: whole,
    /// or contained (with the book that contains the other: `a` the query,
    /// `b` the hit), or partial.
    #[serde(flatten)]
    pub translation_shape: Option<TranslationShape>,
}

/// [`Overlap`] as output fields.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct OverlapFields {
    /// Unique words of the query's part.
    pub query_unique: u32,
    /// Unique words of the hit's part.
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
    /// Pairs of parts the query could be aligned with: its parts times the
    /// other books' parts (equal to `books` when neither the query nor any
    /// book is a volume).
    pub part_pairs: u64,
    /// Exact mode: pairs of parts sharing at least one counted unique
    /// word, or holding frequent words when the query has some (from
    /// postings). Approximate mode: books proposed by any band table.
    pub candidates: u64,
    /// Exact mode: the query's unique words that counting skipped as
    /// frequent (each still counts toward every bound).
    pub frequent_words: u64,
    /// Approximate mode: candidates proposed by each band table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources: Option<SourceCounts>,
    /// Exact mode: posting entries scanned while counting.
    pub entries_scanned: u64,
    /// Candidates whose upper bound reaches the threshold (approximate
    /// mode: the pairs of parts of the proposed books).
    pub within_bound: u64,
    /// Pairs of parts aligned (LCS runs).
    pub lcs_runs: u64,
    /// Pairs of parts never aligned: `part_pairs − lcs_runs`.
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
    /// The query's language (ISO 639-3; `und` when it cannot be told).
    pub language: String,
    /// Hits by descending score, ties by ascending id.
    pub hits: Vec<Hit>,
    /// What each stage kept.
    pub explain: Explain,
}

/// A book's best pair of parts under the query's score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ranked {
    pub score: f64,
    pub slot: u32,
    pub overlap: Overlap,
    /// The query's part and the book's part (indexes within each book).
    pub parts: (u32, u32),
    /// The query's passage and the book's passage (indexes within each
    /// book) when translation search found the pair passage to passage
    /// (`parts` then holds the parts that contain them).
    pub passages: Option<(u32, u32)>,
}

impl Ranked {
    /// Better than `other`, a pair of parts of the same book: a higher
    /// score, then the lower pair of parts.
    fn beats_in_book(&self, other: &Ranked) -> bool {
        self.score > other.score || (self.score == other.score && self.parts < other.parts)
    }

    /// Best first: higher score, then lower slot.
    fn rank_order(a: &Ranked, b: &Ranked) -> Ordering {
        b.score.total_cmp(&a.score).then(a.slot.cmp(&b.slot))
    }
}

/// Each book's best pair of parts found so far.
#[derive(Default)]
pub(crate) struct BestPerBook {
    best: HashMap<u32, Ranked>,
}

impl BestPerBook {
    pub(crate) fn offer(&mut self, ranked: Ranked) {
        match self.best.get_mut(&ranked.slot) {
            Some(kept) if !ranked.beats_in_book(kept) => {}
            Some(kept) => *kept = ranked,
            None => {
                self.best.insert(ranked.slot, ranked);
            }
        }
    }

    /// The best score of the book in `slot` so far.
    fn score_of(&self, slot: u32) -> Option<f64> {
        self.best.get(&slot).map(|r| r.score)
    }

    /// The `k`-th best book score so far, once `k` books are scored (never
    /// for `k` = 0): a book needs at least it to enter the top `k`.
    fn floor(&self, k: usize) -> Option<f64> {
        if k == 0 || self.best.len() < k {
            return None;
        }
        let mut scores: Vec<f64> = self.best.values().map(|r| r.score).collect();
        scores.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
        Some(scores[k - 1])
    }

    /// The best `k` books (all for 0), best first, ties by slot.
    pub(crate) fn into_top(self, k: usize) -> Vec<Ranked> {
        let mut ranked: Vec<Ranked> = self.best.into_values().collect();
        ranked.sort_unstable_by(Ranked::rank_order);
        if k > 0 {
            ranked.truncate(k);
        }
        ranked
    }
}

impl Reader {
    /// The unique-word hashes of each of the query's parts.
    pub(crate) fn query_hashes<'a>(&'a self, query: &QueryBook<'a>) -> Vec<Cow<'a, [u32]>> {
        match *query {
            QueryBook::Stored(slot) => self
                .part_range(slot)
                .map(|part| Cow::Owned(self.runs().part_hashes(part).to_vec()))
                .collect(),
            QueryBook::Text(text) => text
                .parts
                .iter()
                .map(|p| Cow::Borrowed(&p.hashes[..]))
                .collect(),
        }
    }

    /// Books and pairs of parts a query of `query_parts` parts is weighed
    /// against, its own excluded.
    fn reach(&self, query: &QueryBook<'_>, query_parts: usize) -> (u64, u64) {
        let own = query.slot().map_or(0, |slot| self.part_range(slot).len());
        let books = self.len() - query.slot().is_some() as usize;
        let parts = (self.part_count() - own) * query_parts;
        (books as u64, parts as u64)
    }

    /// The hits of `ranked`, each with where its match lies: the query's
    /// and the hit's parts read back with their word positions.
    pub(crate) fn hits_from(&self, query: &QueryBook<'_>, ranked: Vec<Ranked>) -> Result<Vec<Hit>> {
        if ranked.is_empty() {
            return Ok(Vec::new());
        }
        let stored;
        let query_parts = match *query {
            QueryBook::Stored(slot) => {
                let named = ranked.iter().map(|r| r.parts.0);
                stored = self.named_parts_of_slot(slot, named)?;
                stored.as_slice()
            }
            QueryBook::Text(text) => &text.parts,
        };
        ranked
            .into_iter()
            .map(|r| {
                let book = self.info(r.slot)?;
                let location = self.locate_parts(query_parts, r.slot, r.parts)?;
                Ok(Hit {
                    id: book.id,
                    key: book.key,
                    title: book.title,
                    language: book.language,
                    score: r.score,
                    overlap: r.overlap.into(),
                    query_part: location.part_x,
                    hit_part: location.part_y,
                    query_words: location.words_x,
                    hit_words: location.words_y,
                    relation: None,
                    translation_shape: None,
                })
            })
            .collect()
    }

    /// Where the match between part `parts.0` of `x_parts` and part
    /// `parts.1` of the stored book in `slot` lies.
    pub(crate) fn locate_parts(
        &self,
        x_parts: &[UniqueWordSeq],
        slot: u32,
        (part_x, part_y): (u32, u32),
    ) -> Result<Location> {
        let y = self.part_of_slot(slot, part_y)?;
        match (x_parts.get(part_x as usize), y) {
            (Some(x), Some(y)) => Ok(locate(x, part_x, &y, part_y)),
            _ => Ok(Location::default()),
        }
    }

    /// The upper bound on `score` of a candidate part from its common count
    /// and block bound.
    pub(crate) fn bound(&self, score: Score, len_x: u32, candidate: &Candidate) -> f64 {
        let len_y = self.runs().part_len(candidate.book);
        candidate.bound(score, len_x, len_y)
    }

    fn qualifies(score: f64, options: &QueryOptions) -> bool {
        score > 0.0 && score >= options.min_score
    }

    /// The [`Ranked`] of part `part` (a planner unit) against the query's
    /// part `query_part`, when it qualifies.
    pub(crate) fn ranked(
        &self,
        query_part: u32,
        part: u32,
        overlap: Overlap,
        score: Score,
    ) -> Ranked {
        let slot = self.book_of_part(part);
        Ranked {
            score: score.value(&overlap),
            slot,
            overlap,
            parts: (query_part, part.saturating_sub(self.part_range(slot).start)),
            passages: None,
        }
    }

    /// Exact mode: every part of `query` joined against the postings;
    /// candidates (pairs of parts) taken in bound order, pruned against the
    /// k-th best book score, verified by LCS. Public callers go through
    /// [`Reader::query_key`] and [`Reader::query_text`].
    pub(crate) fn query_exact(
        &self,
        query: &QueryBook<'_>,
        options: &QueryOptions,
    ) -> Result<QueryResult> {
        let started = Instant::now();
        let hashes = self.query_hashes(query);
        let (books, part_pairs) = self.reach(query, hashes.len());
        let mut explain = Explain {
            books,
            part_pairs,
            ..Explain::default()
        };
        let probes: Vec<Probe<'_>> = match *query {
            QueryBook::Stored(slot) => self.part_range(slot).map(Probe::Part).collect(),
            QueryBook::Text(text) => text
                .parts
                .iter()
                .map(|p| Probe::Hashes(&p.hashes))
                .collect(),
        };
        let lens: Vec<u32> = hashes.iter().map(|h| h.len() as u32).collect();
        let exclude = query.slot();
        let mut best = BestPerBook::default();
        self.plan_exact(
            &probes,
            &lens,
            options,
            |slot| Some(slot) != exclude,
            &mut explain,
            &mut best,
        );
        let hits = self.hits_from(query, best.into_top(options.top_k))?;
        explain.lcs_avoided = explain.part_pairs - explain.lcs_runs;
        explain.hits = hits.len() as u64;
        explain.elapsed = started.elapsed();
        Ok(QueryResult {
            language: String::new(),
            hits,
            explain,
        })
    }

    /// The exact planner's stages for the query parts `probes` (of
    /// `lens[q]` elements each) against the live books `wanted` keeps:
    /// candidates from the postings, bounds, pruning against the k-th best
    /// book score in `best` (which may hold books already), verification.
    /// Each qualifying book's best pair of parts is offered to `best`.
    pub(crate) fn plan_exact(
        &self,
        probes: &[Probe<'_>],
        lens: &[u32],
        options: &QueryOptions,
        wanted: impl Fn(u32) -> bool,
        explain: &mut Explain,
        best: &mut BestPerBook,
    ) {
        let postings = self.postings();
        let mut join = Join::new(self.part_count());
        let mut bounded: Vec<(f64, u32, Candidate)> = Vec::new();
        let searched = |part: u32| {
            let slot = self.book_of_part(part);
            !self.runs().is_dead(slot) && wanted(slot)
        };
        for (q, probe) in probes.iter().enumerate() {
            let len_x = lens[q];
            // Bounds are computed only for the candidates that may count,
            // the cheapest test first.
            let qualifies = |c: &Candidate| {
                searched(c.book)
                    && options.may_admit(c)
                    && Self::qualifies(self.bound(options.score, len_x, c), options)
            };
            let candidates = join.count_bounded(&postings, probe, qualifies);
            explain.candidates += candidates.iter().filter(|c| searched(c.book)).count() as u64;
            for candidate in join.kept() {
                let bound = self.bound(options.score, len_x, candidate);
                bounded.push((bound, q as u32, *candidate));
            }
            explain.entries_scanned += join.entries_scanned();
            explain.frequent_words += join.frequent_in_x() as u64;
        }
        let verify = |batch: &[(f64, u32, Candidate)], best: &mut BestPerBook| {
            let mut by_part: BTreeMap<u32, Vec<Candidate>> = BTreeMap::new();
            for &(_, q, candidate) in batch {
                by_part.entry(q).or_default().push(candidate);
            }
            for (q, keep) in by_part {
                let (probe, len_x) = (&probes[q as usize], lens[q as usize]);
                join.align_probe(&postings, probe, len_x, &keep, |part, overlap| {
                    self.offer_if_qualifies(
                        self.ranked(q, part, overlap, options.score),
                        options,
                        best,
                    );
                });
            }
        };
        self.verify_in_bound_order(bounded, options, explain, best, verify);
    }

    /// Offers `ranked` to `best` when it qualifies under `options`.
    pub(crate) fn offer_if_qualifies(
        &self,
        ranked: Ranked,
        options: &QueryOptions,
        best: &mut BestPerBook,
    ) {
        if Self::qualifies(ranked.score, options) && options.admits(&ranked.overlap) {
            best.offer(ranked);
        }
    }

    /// The exact planner's last stages for `bounded` (each candidate with
    /// its bound and its query unit): candidates taken in bound order,
    /// each batch handed to `verify` (which aligns them and offers those
    /// that qualify to `best`), pruning against the k-th best book score
    /// and each book's best score so far.
    pub(crate) fn verify_in_bound_order(
        &self,
        mut bounded: Vec<(f64, u32, Candidate)>,
        options: &QueryOptions,
        explain: &mut Explain,
        best: &mut BestPerBook,
        mut verify: impl FnMut(&[(f64, u32, Candidate)], &mut BestPerBook),
    ) {
        explain.within_bound += bounded.len() as u64;
        bounded.sort_unstable_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(a.2.book.cmp(&b.2.book))
                .then(a.1.cmp(&b.1))
        });
        // Round one aligns the best bounds until k books are covered; round
        // two only the rest whose bound can still reach the k-th best book
        // score found.
        let first_round = round_one_len(&bounded, options.top_k, |part| self.book_of_part(part));
        // Then rounds of growing batches in bound order, each leaving out
        // what can no longer count: a candidate below the k-th best book
        // score, or below its own book's best score so far (a tie may still
        // take the book, by its lower pair of parts).
        let mut at = 0;
        let mut batch_len = if options.top_k > 0 {
            first_round
        } else {
            FIRST_BATCH
        };
        let mut batch = Vec::new();
        while at < bounded.len() {
            let floor = best.floor(options.top_k);
            if floor.is_some_and(|f| bounded[at].0 < f) {
                break;
            }
            let end = (at + batch_len.max(1)).min(bounded.len());
            batch.clear();
            batch.extend(bounded[at..end].iter().filter(|&&(bound, _, c)| {
                floor.is_none_or(|f| bound >= f)
                    && best
                        .score_of(self.book_of_part(c.book))
                        .is_none_or(|kept| bound >= kept)
            }));
            explain.lcs_runs += batch.len() as u64;
            verify(&batch, best);
            at = end;
            batch_len *= 2;
        }
    }

    /// Approximate mode: aligns every part of `query` with every part of
    /// the books sharing a band key with `keys` (see [`super::approx`]).
    pub(crate) fn query_bands(
        &self,
        query: &QueryBook<'_>,
        keys: &QueryKeys,
        simhash: SimHash128,
        options: &QueryOptions,
    ) -> Result<QueryResult> {
        let started = Instant::now();
        let sketches = self.sketches()?;
        let exclude = query.slot();
        let wanted = |slot: u32| Some(slot) != exclude && !self.runs().is_dead(slot);
        let (books, mut sources) = sketches.candidates(self, keys, simhash, wanted);
        let mut join = Join::new(self.part_count());
        let sampled = self.sampled_part_pairs(query, false, &mut join, wanted);
        let query_parts = self.query_parts(query);
        let (pairs, candidates) =
            self.approximate_part_pairs(query_parts, &books, sampled, &mut sources);
        let (best, aligned) =
            self.align_part_pairs(query, &pairs, &mut join, options.score, options.min_score);
        let hits = self.hits_from(query, best.into_top(options.top_k))?;
        let (books, part_pairs) = self.reach(query, query_parts as usize);
        Ok(QueryResult {
            language: String::new(),
            explain: Explain {
                mode: Mode::Approximate,
                books,
                part_pairs,
                candidates,
                sources: Some(sources),
                within_bound: aligned,
                lcs_runs: aligned,
                lcs_avoided: part_pairs - aligned,
                hits: hits.len() as u64,
                elapsed: started.elapsed(),
                ..Explain::default()
            },
            hits,
        })
    }

    /// The same answer as [`Reader::query_key`] in exact mode, by aligning
    /// every part of the book with every part of every other book: the
    /// baseline the planner is tested and benchmarked against.
    pub fn brute_force_key(&self, key: &str, options: &QueryOptions) -> Result<Vec<Hit>> {
        let slot = self.slot_of(key)?;
        let language = self.info(slot)?.language;
        self.brute_force(&QueryBook::Stored(slot), &language, options)
    }

    /// The same answer as [`Reader::query_text`] in exact mode, by brute
    /// force (see [`Reader::brute_force_key`]).
    pub fn brute_force_text(&self, text: &[u8], options: &QueryOptions) -> Result<Vec<Hit>> {
        let decoded = crate::text::decode(text);
        let query_text = self.query_text_of(&decoded.text, options.translations);
        let language = crate::lang::detect(&decoded.text);
        self.brute_force(&QueryBook::Text(&query_text), language, options)
    }

    fn brute_force(
        &self,
        query: &QueryBook<'_>,
        language: &str,
        options: &QueryOptions,
    ) -> Result<Vec<Hit>> {
        let exclude = query.slot();
        let slots = self
            .runs()
            .live_slots()
            .filter(|&slot| Some(slot) != exclude);
        let hashes = self.query_hashes(query);
        let (best, _) = self.align_candidates(&hashes, slots, options.score, options.min_score);
        let mut hits = self.hits_from(query, best.into_top(options.top_k))?;
        if options.translations {
            let translated = self.brute_force_translations(query, language, options)?;
            merge_translations(&mut hits, translated, language, options.top_k);
        }
        Ok(hits)
    }

    /// Aligns each of `pairs` (query part, stored part; sorted by query
    /// part) by the join's alignment ([`Join::align_probe`]): a stored
    /// part's elements are read as the word numbers its run stores, and
    /// not through the run's table of hashes, a lookup an element that
    /// misses the caches once that table outgrows them. Each book's best
    /// pair of parts that qualifies under `score` at `min_score` (and
    /// above zero), and the number of alignments. `join` is scratch for
    /// as many parts as the reader holds.
    pub(crate) fn align_part_pairs(
        &self,
        query: &QueryBook<'_>,
        pairs: &[(u32, u32)],
        join: &mut Join,
        score: Score,
        min_score: f64,
    ) -> (BestPerBook, u64) {
        let postings = Postings::every_word(self.runs());
        let mut best = BestPerBook::default();
        let mut keep = Vec::new();
        for group in pairs.chunk_by(|a, b| a.0 == b.0) {
            let q = group[0].0;
            let (probe, len_x) = match *query {
                QueryBook::Stored(slot) => {
                    let part = self.part_range(slot).start + q;
                    (Probe::Part(part), self.runs().part_len(part))
                }
                QueryBook::Text(text) => {
                    let hashes = &text.parts[q as usize].hashes;
                    (Probe::Hashes(hashes), hashes.len() as u32)
                }
            };
            keep.clear();
            keep.extend(group.iter().map(|&(_, part)| Candidate::unbounded(part)));
            join.align_probe(&postings, &probe, len_x, &keep, |part, overlap| {
                let ranked = self.ranked(q, part, overlap, score);
                if ranked.score > 0.0 && ranked.score >= min_score {
                    best.offer(ranked);
                }
            });
        }
        (best, pairs.len() as u64)
    }

    /// The number of the query's parts.
    pub(crate) fn query_parts(&self, query: &QueryBook<'_>) -> u32 {
        match *query {
            QueryBook::Stored(slot) => self.part_range(slot).len() as u32,
            QueryBook::Text(text) => text.parts.len() as u32,
        }
    }

    /// Aligns every part of the query (`hashes`) with every part of each
    /// book in `slots`; each book's best pair of parts that qualifies under
    /// `score` at `min_score` (and above zero), and the number of
    /// alignments.
    pub(crate) fn align_candidates(
        &self,
        hashes: &[Cow<'_, [u32]>],
        slots: impl Iterator<Item = u32>,
        score: Score,
        min_score: f64,
    ) -> (BestPerBook, u64) {
        let indexes: Vec<SequenceIndex> = hashes.iter().map(|h| SequenceIndex::new(h)).collect();
        let mut scratch = AlignScratch::default();
        let mut best = BestPerBook::default();
        let mut aligned = 0;
        let mut y = Vec::new();
        for slot in slots {
            for part in self.part_range(slot) {
                y.clear();
                y.extend(self.runs().part_hashes(part).iter());
                for (q, x) in indexes.iter().enumerate() {
                    aligned += 1;
                    let overlap = x.align(&y, &mut scratch);
                    let ranked = self.ranked(q as u32, part, overlap, score);
                    if ranked.score > 0.0 && ranked.score >= min_score {
                        best.offer(ranked);
                    }
                }
            }
        }
        (best, aligned)
    }
}

/// How many of `bounded` (sorted by bound) round one aligns: all for
/// `top_k` = 0, else up to and including the first candidates of `top_k`
/// distinct books.
/// Candidates in the first batch verified when every book is wanted (top
/// k = 0); each later batch is twice the one before.
const FIRST_BATCH: usize = 256;

fn round_one_len(
    bounded: &[(f64, u32, Candidate)],
    top_k: usize,
    book_of: impl Fn(u32) -> u32,
) -> usize {
    if top_k == 0 {
        return bounded.len();
    }
    let mut books = std::collections::HashSet::new();
    for (i, (_, _, candidate)) in bounded.iter().enumerate() {
        books.insert(book_of(candidate.book));
        if books.len() == top_k {
            return i + 1;
        }
    }
    bounded.len()
}

/// Merges translation hits into the same-language `hits` of a query in
/// language `from`: by score, ties by id, a book found both ways keeping its
/// better hit, at most `top_k` (0: all). Every hit in another known
/// language is a translation hit, also one found by untranslated words
/// alone (names, cognates).
pub(crate) fn merge_translations(
    hits: &mut Vec<Hit>,
    mut translated: Vec<Hit>,
    from: &str,
    top_k: usize,
) {
    for hit in &mut translated {
        hit.relation = Some(Relationship::Translation);
    }
    for hit in hits.iter_mut() {
        if is_known(from) && is_known(&hit.language) && hit.language != from {
            hit.relation = Some(Relationship::Translation);
        }
    }
    hits.append(&mut translated);
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    let mut seen = std::collections::HashSet::new();
    hits.retain(|hit| seen.insert(hit.id));
    if top_k > 0 {
        hits.truncate(top_k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A candidate whose verified overlap has the least evidence is
        /// never left out by its bound.
        #[test]
        fn the_evidence_bound_keeps_every_pair_that_reaches_it(
            counted in 0u32..300,
            frequent in 0u32..50,
            extra in 0u32..50,
            lcs_share in 0.0f64..=1.0,
            slack in 0u32..40,
            least in 0.0f64..12.0,
        ) {
            let common = counted + extra.min(frequent);
            let lcs = (f64::from(common) * lcs_share) as u32;
            let candidate = Candidate {
                book: 0,
                counted,
                frequent_at_most: frequent,
                lcs_at_most: (lcs + slack).min(counted + frequent),
            };
            let overlap = Overlap { common, lcs, ..Overlap::default() };
            let options = QueryOptions { min_evidence: least, ..QueryOptions::default() };
            if overlap.evidence() >= least {
                prop_assert!(options.may_admit(&candidate), "{overlap:?} {candidate:?}");
            }
        }
    }

    #[test]
    fn the_evidence_bound_leaves_out_pairs_of_few_common_words() {
        let options = QueryOptions {
            min_evidence: 4.0,
            ..QueryOptions::default()
        };
        let candidate = |counted, lcs_at_most| Candidate {
            book: 0,
            counted,
            frequent_at_most: 0,
            lcs_at_most,
        };
        // z = (c − 2√c) / c^(1/6) first reaches 4 at 14 common words.
        assert!(!options.may_admit(&candidate(13, 13)));
        assert!(options.may_admit(&candidate(14, 14)));
        // Many common words but a short run: (10 − 2√14) / 14^(1/6) < 4.
        assert!(!options.may_admit(&candidate(200, 10)));
    }
}
