//! The all-pairs job: every pair of books scoring at or above a threshold,
//! with the planner's pruning, on several threads.
//!
//! Exact mode: each book a counts, over the postings, its common words with
//! every book b > a; a pair whose upper bound misses the threshold is
//! dropped unaligned. Approximate mode: each book a aligns the books b > a
//! that share a band key with it.
//!
//! Worker threads take books a in slot order and may finish them in any
//! order; the caller's thread holds what arrives early and hands the pairs
//! out in slot order of a, then of b, so the output is the same for every
//! number of threads. Workers stay at most [`REORDER_BOOKS_PER_THREAD`] books
//! per thread ahead of the earliest book not yet handed out.

use crossbeam::channel::{bounded, unbounded};
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::approx::SourceCounts;
use super::clusters::Clusters;
use super::planner::{BestPerBook, Explain, QueryOptions, Relationship};
use super::postings::{Candidate, Join, Probe};
use super::query_book::QueryBook;
use super::translations::{searched_from, Languages, LocatedBook, Partners};
use super::{BookInfo, Mode, Reader};
use crate::align::{Overlap, Score};
use crate::batch::Location;
use crate::error::{Error, Result};
use crate::lang::is_known;
use crate::relate::TranslationShape;

/// Settings of an all-pairs run: built from [`PairsOptions::default`] or
/// [`PairsOptions::with_score`] and the setters.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PairsOptions {
    /// Where candidates come from. Default [`Mode::Exact`].
    pub mode: Mode,
    /// The score. Default [`Score::Order`].
    pub score: Score,
    /// Pairs scoring at least this (and above zero) are reported. Default:
    /// the score's threshold.
    pub min_score: f64,
    /// Worker threads. Default: available cores.
    pub threads: usize,
    /// Incremental run: only pairs with at least one book whose internal id
    /// is `from_id` or more — the books loaded since a load reported
    /// `first_id` = `from_id`. The pairs among older books are not redone.
    /// Default `None`: every pair.
    pub from_id: Option<u32>,
    /// Also report translation pairs: books of two languages that a
    /// dictionary of the index joins, one's unique words translated into
    /// the other's language ([`QueryOptions::translations`]). Each pair
    /// is found once, from its book whose language code sorts first, which
    /// is then its `a`. Not with `from_id`. Default false.
    pub translations: bool,
    /// Translation pairs scoring at least this (and above zero) are
    /// reported. Default: the score's translation threshold
    /// ([`Score::translation_threshold`]).
    pub translation_min_score: f64,
}

impl Default for PairsOptions {
    fn default() -> Self {
        PairsOptions::with_score(Score::default())
    }
}

impl PairsOptions {
    /// Defaults for `score`.
    pub fn with_score(score: Score) -> Self {
        PairsOptions {
            mode: Mode::Exact,
            score,
            min_score: score.default_threshold(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            from_id: None,
            translations: false,
            translation_min_score: score.translation_threshold(),
        }
    }

    /// Where candidates come from.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Pairs scoring at least this (and above zero) are reported.
    pub fn min_score(mut self, min_score: f64) -> Self {
        self.min_score = min_score;
        self
    }

    /// Worker threads, at least 1.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Only the pairs with at least one book of internal id `from_id` or
    /// more (see [`PairsOptions::from_id`](#structfield.from_id)).
    pub fn from_id(mut self, from_id: u32) -> Self {
        self.from_id = Some(from_id);
        self
    }

    /// Also report translation pairs (see
    /// [`PairsOptions::translations`](#structfield.translations)).
    pub fn translations(mut self, translations: bool) -> Self {
        self.translations = translations;
        self
    }

    /// Translation pairs scoring at least this (and above zero) are
    /// reported.
    pub fn translation_min_score(mut self, min_score: f64) -> Self {
        self.translation_min_score = min_score;
        self
    }

    /// The query options of one book's search for translations.
    fn for_translations(&self) -> QueryOptions {
        QueryOptions::with_score(self.score)
            .mode(self.mode)
            .top_k(0)
            .min_score(self.translation_min_score)
    }
}

/// A related pair found by a worker, as reader slots. In a full run
/// `a < b`; in an incremental run `a` is a new book and `b` an older book
/// or a later new one.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SlotPair {
    a: u32,
    b: u32,
    score: f64,
    overlap: Overlap,
    location: Location,
    relation: Option<Relationship>,
    /// The pair of passages a translation pair was found by, if any.
    passages: Option<(u32, u32)>,
}

/// A related pair of stored books. In a full run `a` was loaded before `b`;
/// in an incremental run `a` is a new book and `b` an older book or a later
/// new one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair<'r> {
    /// The first book.
    pub a: &'r BookInfo,
    /// The second book.
    pub b: &'r BookInfo,
    /// Its score under the run's [`PairsOptions::score`]: the best over
    /// pairs of parts.
    pub score: f64,
    /// Lengths (x = a, y = b), common count and LCS of the best pair of
    /// parts.
    pub overlap: Overlap,
    /// Where the match lies: `a`'s part and words (x), `b`'s (y).
    pub location: Location,
    /// `Some(Relationship::Translation)` for a translation pair: `a`'s
    /// words translated into `b`'s language. Then `a` is the shorter book
    /// of a work inside a volume (one of at most 15% of the other's
    /// words), else the book whose language code sorts first; it may have
    /// been loaded after `b`.
    pub relation: Option<Relationship>,
    /// The books' places in [`Reader::books`].
    slots: (u32, u32),
}

impl Pair<'_> {
    /// The shape of a translation pair (whole, contained with its
    /// container, or partial) from where its match lies in each book;
    /// `None` for a pair of one language.
    pub fn translation_shape(&self) -> Option<TranslationShape> {
        self.relation?;
        Some(super::translations::shape_of(
            self.a.words,
            self.location.words_x,
            self.b.words,
            self.location.words_y,
        ))
    }
}

/// Every related pair of an all-pairs run, with its counts: what
/// [`Reader::pairs`] returns.
#[derive(Debug, Clone)]
pub struct AllPairs<'r> {
    /// The pairs, by the first book's internal id, then the second's.
    pub pairs: Vec<Pair<'r>>,
    /// What the run did.
    pub stats: PairsStats,
    reader: &'r Reader,
}

impl<'r> AllPairs<'r> {
    /// The clusters the pairs make: groups of two or more books joined by a
    /// chain of pairs (connected components), largest first.
    pub fn clusters(&self) -> Vec<Vec<&'r BookInfo>> {
        let mut clusters = Clusters::new(self.reader);
        for pair in &self.pairs {
            clusters.add(pair);
        }
        clusters.groups()
    }
}

/// Counts of an all-pairs run.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PairsStats {
    /// Books probed: all of them, or the new ones in an incremental run.
    pub books: u64,
    /// Pairs considered: n·(n−1)/2, or in an incremental run the pairs with
    /// at least one new book.
    pub pairs_considered: u64,
    /// The mode the run used.
    pub mode: Mode,
    /// Exact mode: pairs sharing at least one unique word. Approximate mode:
    /// pairs sharing a band key.
    pub candidates: u64,
    /// Approximate mode: candidate pairs proposed by each band table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources: Option<SourceCounts>,
    /// Exact mode: posting entries scanned while counting.
    pub entries_scanned: u64,
    /// Candidates whose bound reached the threshold.
    pub within_bound: u64,
    /// Pairs aligned.
    pub lcs_runs: u64,
    /// Pairs found.
    pub found: u64,
    /// Wall time.
    #[serde(rename = "elapsed_s", serialize_with = "crate::duration_serde::secs")]
    pub elapsed: Duration,
}

/// Books a worker may take beyond the earliest book whose pairs are not yet
/// handed out, per thread: bounds what the reordering holds in memory when
/// one book takes long.
pub const REORDER_BOOKS_PER_THREAD: usize = 1024;

/// The books one book of an all-pairs run is paired with.
#[derive(Clone, Copy)]
struct Reach<'w> {
    /// Join against the parts after the book's own only (a full run's
    /// pairs of one language).
    later_only: bool,
    /// Whether the book in a slot is wanted.
    wanted: &'w dyn Fn(u32) -> bool,
}

/// Pairs found for one book, with its counts.
struct BookPairs {
    /// Slot of the book.
    a: u32,
    /// Its pairs, by slot of the other book.
    pairs: Vec<SlotPair>,
    /// Reading the records that locate the pairs failed.
    error: Option<Error>,
    sources: SourceCounts,
    candidates: u64,
    entries_scanned: u64,
    within_bound: u64,
    lcs_runs: u64,
}

impl BookPairs {
    fn new(a: u32) -> Self {
        BookPairs {
            a,
            pairs: Vec::new(),
            error: None,
            sources: SourceCounts::default(),
            candidates: 0,
            entries_scanned: 0,
            within_bound: 0,
            lcs_runs: 0,
        }
    }

    /// Adds the pairs and counts of `other` (pairs of the same book with
    /// other books).
    fn absorb(&mut self, other: BookPairs) {
        self.pairs.extend(other.pairs);
        self.pairs.sort_unstable_by_key(|p| p.b);
        self.sources.accumulate(&other.sources);
        self.candidates += other.candidates;
        self.entries_scanned += other.entries_scanned;
        self.within_bound += other.within_bound;
        self.lcs_runs += other.lcs_runs;
    }

    /// Takes each book's best pair of parts as the book's pair, by slot.
    fn take(&mut self, best: BestPerBook) {
        self.pairs = self.slot_pairs(best, None);
        self.pairs.sort_unstable_by_key(|p| p.b);
    }

    /// Adds the translation pairs of `best`; a book paired both ways keeps
    /// its better pair. Every pair with a book of another language than
    /// `a`'s, `from` (known), is a translation pair, also one found by the
    /// untranslated words alone (names, cognates).
    fn add_translations(&mut self, best: BestPerBook, from: &str, languages: &Languages) {
        for pair in self.slot_pairs(best, Some(Relationship::Translation)) {
            match self.pairs.binary_search_by_key(&pair.b, |p| p.b) {
                Ok(i) if pair.score > self.pairs[i].score => self.pairs[i] = pair,
                Ok(_) => {}
                Err(i) => self.pairs.insert(i, pair),
            }
        }
        for pair in &mut self.pairs {
            let to = languages.of(pair.b);
            if is_known(to) && to != from {
                pair.relation = Some(Relationship::Translation);
            }
        }
    }

    fn slot_pairs(&self, best: BestPerBook, relation: Option<Relationship>) -> Vec<SlotPair> {
        let a = self.a;
        best.into_top(0)
            .into_iter()
            .map(|r| SlotPair {
                a,
                b: r.slot,
                score: r.score,
                overlap: r.overlap,
                location: Location {
                    part_x: r.parts.0,
                    part_y: r.parts.1,
                    ..Location::default()
                },
                relation,
                passages: r.passages,
            })
            .collect()
    }
}

impl Reader {
    /// The pairs of book `a` with later books, or, when `first_new` is the
    /// first new slot of an incremental run, with older books and later ones.
    fn pairs_of(
        &self,
        a: u32,
        options: &PairsOptions,
        first_new: Option<u32>,
        join: &mut Join,
    ) -> BookPairs {
        if self.runs().is_dead(a) {
            return BookPairs::new(a);
        }
        // Later books, or, from the first new book, older and later ones.
        let usual = |b: u32| {
            let after = match first_new {
                None => b > a,
                Some(first) => b < first || b > a,
            };
            after && !self.runs().is_dead(b)
        };
        let later_only = first_new.is_none();
        let languages = options.translations.then(|| self.languages());
        let from = languages.map_or("", |l| l.of(a));
        let mut found = match languages.filter(|_| is_known(from)) {
            None => self.same_words_pairs_of(
                a,
                options,
                Reach {
                    later_only,
                    wanted: &usual,
                },
                join,
            ),
            Some(languages) => {
                // A pair of two known languages is found once, from the
                // book `searched_from` says, by its words and translated.
                let same = |b: u32| {
                    let to = languages.of(b);
                    usual(b) && (!is_known(to) || to == from)
                };
                let across = |b: u32| {
                    let to = languages.of(b);
                    let from_a = match is_known(to) && to != from {
                        true => searched_from(languages, a, b),
                        false => to > from,
                    };
                    b != a && from_a && !self.runs().is_dead(b)
                };
                let mut found = self.same_words_pairs_of(
                    a,
                    options,
                    Reach {
                        later_only,
                        wanted: &same,
                    },
                    join,
                );
                let reach = Reach {
                    later_only: false,
                    wanted: &across,
                };
                found.absorb(self.same_words_pairs_of(a, options, reach, join));
                self.translation_pairs_of(a, from, languages, options, &mut found);
                found
            }
        };
        if let Err(error) = self.locate_pairs(a, &mut found.pairs) {
            found.error = Some(error);
        }
        found
    }

    /// The pairs of `a` with the books `reach` wants, by their own words
    /// (no translation), in the run's mode.
    fn same_words_pairs_of(
        &self,
        a: u32,
        options: &PairsOptions,
        reach: Reach<'_>,
        join: &mut Join,
    ) -> BookPairs {
        if options.mode == Mode::Approximate {
            self.band_pairs_of(a, options, reach, join)
        } else {
            self.postings_pairs_of(a, options, reach, join)
        }
    }

    /// Exact mode: each part of `a` joined against the parts of the books
    /// `reach` wants; each book's best pair of parts that reaches the
    /// threshold.
    fn postings_pairs_of(
        &self,
        a: u32,
        options: &PairsOptions,
        reach: Reach<'_>,
        join: &mut Join,
    ) -> BookPairs {
        let wanted = reach.wanted;
        let postings = self.postings();
        let mut found = BookPairs::new(a);
        let mut best = BestPerBook::default();
        for (q, part) in self.part_range(a).enumerate() {
            let probe = if reach.later_only {
                Probe::PartAgainstLater(part)
            } else {
                Probe::Part(part)
            };
            let len_x = self.runs().part_len(part);
            let reaches = |c: &Candidate| {
                wanted(self.book_of_part(c.book))
                    && Self::reaches(self.bound(options.score, len_x, c), options)
            };
            let common = join.count_bounded(&postings, &probe, reaches);
            found.candidates += common
                .iter()
                .filter(|c| wanted(self.book_of_part(c.book)))
                .count() as u64;
            let keep: Vec<Candidate> = join.kept().copied().collect();
            found.entries_scanned += join.entries_scanned();
            found.within_bound += keep.len() as u64;
            found.lcs_runs += keep.len() as u64;
            join.align(&postings, len_x, &keep, |part, overlap| {
                let ranked = self.ranked(q as u32, part, overlap, options.score);
                if Self::reaches(ranked.score, options) {
                    best.offer(ranked);
                }
            });
        }
        found.take(best);
        found
    }

    /// Approximate mode: every part of `a` aligned with every part of the
    /// books `reach` wants that share a band key with it.
    fn band_pairs_of(
        &self,
        a: u32,
        options: &PairsOptions,
        reach: Reach<'_>,
        join: &mut Join,
    ) -> BookPairs {
        let sketches = self.sketches.as_ref().expect("pairs checks for sketches");
        let wanted = reach.wanted;
        let keys = sketches.keys_of_slot(self, a);
        let simhash = sketches.simhash_of_slot(self, a);
        let (books, mut sources) = sketches.candidates(self, &keys, simhash, wanted);
        let query = QueryBook::Stored(a);
        let sampled = self.sampled_part_pairs(&query, reach.later_only, join, wanted);
        let query_parts = self.query_parts(&query);
        let (pairs, candidates) =
            self.approximate_part_pairs(query_parts, &books, sampled, &mut sources);
        let (best, aligned) =
            self.align_part_pairs(&query, &pairs, join, options.score, options.min_score);
        let mut found = BookPairs::new(a);
        found.sources = sources;
        found.candidates = candidates;
        found.within_bound = aligned;
        found.lcs_runs = aligned;
        found.take(best);
        found
    }

    /// The translation pairs of `a`: its unique words translated into each
    /// language a dictionary joins to its own, against every book of that
    /// language whose pair with `a` is searched from `a` ([`searched_from`]).
    fn translation_pairs_of(
        &self,
        a: u32,
        from: &str,
        languages: &Languages,
        options: &PairsOptions,
        found: &mut BookPairs,
    ) {
        let query = QueryBook::Stored(a);
        let hashes = self.query_hashes(&query);
        let for_translations = options.for_translations();
        let mut explain = Explain::default();
        let mut best = BestPerBook::default();
        if let Err(error) = self.offer_translations(
            &query,
            &hashes,
            from,
            Partners::SearchedFrom(a),
            &for_translations,
            &mut explain,
            &mut best,
        ) {
            found.error = Some(error);
        }
        found.candidates += explain.candidates;
        found.entries_scanned += explain.entries_scanned;
        found.within_bound += explain.within_bound;
        found.lcs_runs += explain.lcs_runs;
        found.add_translations(best, from, languages);
    }

    /// Fills in where each of `pairs` (all of book `a`) matches: `a`'s
    /// parts read once, each other book's on the way.
    fn locate_pairs(&self, a: u32, pairs: &mut [SlotPair]) -> Result<()> {
        if pairs.is_empty() {
            return Ok(());
        }
        let a_parts = self.parts_of_slot(a)?;
        let a_words = self.languages().words(a);
        let a_passages = match pairs.iter().any(|p| p.passages.is_some()) {
            true => self.stored_passages(a, a_words, 0..usize::MAX),
            false => Vec::new(),
        };
        let a_book = LocatedBook {
            parts: &a_parts,
            passages: &a_passages,
            words: a_words,
        };
        for pair in pairs {
            let parts = (pair.location.part_x, pair.location.part_y);
            pair.location = match pair.relation {
                Some(Relationship::Translation) => {
                    let from = self.languages().of(a).to_string();
                    self.locate_translated(&a_book, &from, pair.b, parts, pair.passages)?
                }
                None => self.locate_parts(&a_parts, pair.b, parts)?,
            };
        }
        Ok(())
    }

    fn reaches(score: f64, options: &PairsOptions) -> bool {
        score > 0.0 && score >= options.min_score
    }

    /// Every pair of stored books scoring at least `options.min_score`,
    /// collected, with the counts of the run. For collections whose pairs
    /// do not fit in memory, [`Reader::for_each_pair`] hands them out one
    /// at a time.
    ///
    /// ```
    /// # fn main() -> stemmata::Result<()> {
    /// # let dir = tempfile::tempdir()?;
    /// # let index = stemmata::Index::create(dir.path())?;
    /// # let story: Vec<String> = (0..300u32).map(|i| {
    /// #     let mut n = i.wrapping_mul(2654435761);
    /// #     (0..6).map(|_| { let c = (b'a' + (n % 26) as u8) as char; n /= 26; c }).collect()
    /// # }).collect();
    /// # let story = story.join(" ");
    /// # index.load([
    /// #     Ok(stemmata::Document::new("first", story.as_bytes())),
    /// #     Ok(stemmata::Document::new("reprint", format!("A new preface. {story}").into_bytes())),
    /// # ])?;
    /// let reader = index.reader()?;
    /// let all = reader.pairs(&stemmata::PairsOptions::default())?;
    /// for pair in &all.pairs {
    ///     println!("{} ~ {}: {:.3}", pair.a.key, pair.b.key, pair.score);
    /// }
    /// assert_eq!(all.clusters().len(), 1);
    /// # Ok(())
    /// # }
    /// ```
    pub fn pairs(&self, options: &PairsOptions) -> Result<AllPairs<'_>> {
        let mut pairs = Vec::new();
        let stats = self.for_each_pair(
            options,
            |pair| {
                pairs.push(pair);
                Ok(())
            },
            |_| {},
        )?;
        Ok(AllPairs {
            pairs,
            stats,
            reader: self,
        })
    }

    /// Finds every pair at or above `options.min_score`, calling `sink` for
    /// each in a fixed order, the same for every number of threads: by the
    /// first book's internal id, then by the second's; `progress` gets the
    /// number of books done. An error from `sink` stops the run and is
    /// returned. Returns the counts.
    pub fn for_each_pair<'r>(
        &'r self,
        options: &PairsOptions,
        mut sink: impl FnMut(Pair<'r>) -> Result<()>,
        mut progress: impl FnMut(u64),
    ) -> Result<PairsStats> {
        crate::threads::check(options.threads)?;
        if options.mode == Mode::Approximate {
            self.sketches()?;
        }
        if options.translations {
            if options.from_id.is_some() {
                return Err(Error::InvalidArgument(
                    "translation pairs are found in full runs only, not with from_id".into(),
                ));
            }
            self.build_lexicons()?;
        }
        let started = Instant::now();
        let runs = self.runs();
        let n = runs.slot_count() as usize;
        let first_new = options.from_id.map(|id| runs.first_slot_from_id(id));
        let start = first_new.unwrap_or(0) as usize;
        let old = runs
            .live_slots()
            .take_while(|&s| (s as usize) < start)
            .count() as u64;
        let new = self.len() as u64 - old;
        // Built before the workers start: each pair names its books.
        self.books();
        let mut stats = PairsStats {
            mode: options.mode,
            sources: (options.mode == Mode::Approximate).then(SourceCounts::default),
            books: new,
            pairs_considered: old * new + new * new.saturating_sub(1) / 2,
            ..PairsStats::default()
        };
        let next = AtomicUsize::new(start);
        // One token per book a worker may take: the caller's thread gives a
        // token back for each book it hands out, in order.
        let window = REORDER_BOOKS_PER_THREAD * options.threads;
        let (token_tx, token_rx) = bounded::<()>(window);
        for _ in 0..window.min(n - start) {
            let _ = token_tx.send(());
        }
        // No token sender, no more tokens: workers waiting for one stop.
        let mut token_tx = (start < n).then_some(token_tx);
        // `None`: a worker panicked.
        let (tx, rx) = unbounded::<Option<BookPairs>>();
        let mut sink_result = Ok(());
        let mut worker_panicked = false;
        let mut spawn_result = Ok(());
        crossbeam::scope(|scope| {
            for _ in 0..options.threads {
                let (tx, next, tokens) = (tx.clone(), &next, token_rx.clone());
                let spawned = scope.builder().spawn(move |_| {
                    let mut join = Join::new(self.part_count());
                    while tokens.recv().is_ok() {
                        let a = next.fetch_add(1, Ordering::Relaxed);
                        if a >= n {
                            break;
                        }
                        let found = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            self.pairs_of(a as u32, options, first_new, &mut join)
                        }))
                        .ok();
                        let failed = found.is_none();
                        if tx.send(found).is_err() || failed {
                            break;
                        }
                    }
                });
                if let Err(error) = spawned {
                    spawn_result = Err(crate::threads::spawn_failed(error));
                    next.store(n, Ordering::Relaxed);
                    token_tx = None;
                    break;
                }
            }
            drop(tx);
            drop(token_rx);
            let mut early: BTreeMap<u32, BookPairs> = BTreeMap::new();
            let mut next_out = start as u32;
            for found in rx {
                let Some(mut found) = found else {
                    worker_panicked = true;
                    next.store(n, Ordering::Relaxed);
                    token_tx = None;
                    continue;
                };
                if let Some(error) = found.error.take() {
                    if sink_result.is_ok() {
                        sink_result = Err(error);
                    }
                    next.store(n, Ordering::Relaxed);
                    token_tx = None;
                }
                early.insert(found.a, found);
                while let Some(found) = early.remove(&next_out) {
                    next_out += 1;
                    stats.candidates += found.candidates;
                    if let Some(sources) = stats.sources.as_mut() {
                        sources.accumulate(&found.sources);
                    }
                    stats.entries_scanned += found.entries_scanned;
                    stats.within_bound += found.within_bound;
                    stats.lcs_runs += found.lcs_runs;
                    stats.found += found.pairs.len() as u64;
                    if sink_result.is_ok() {
                        sink_result = found
                            .pairs
                            .iter()
                            .try_for_each(|pair| sink(self.pair_of(pair)));
                        if sink_result.is_err() {
                            next.store(n, Ordering::Relaxed);
                            token_tx = None;
                        }
                    }
                    if next_out as usize == n {
                        token_tx = None;
                    }
                    if let Some(tokens) = &token_tx {
                        let _ = tokens.try_send(());
                    }
                    progress((next_out as usize - start) as u64);
                }
            }
        })
        .map_err(|_| Error::InvalidArgument("an all-pairs worker panicked".into()))?;
        if worker_panicked {
            return Err(Error::InvalidArgument(
                "an all-pairs worker panicked".into(),
            ));
        }
        spawn_result?;
        sink_result?;
        stats.elapsed = started.elapsed();
        Ok(stats)
    }

    /// The public pair of `pair`.
    fn pair_of(&self, pair: &SlotPair) -> Pair<'_> {
        let (a, b) = (self.place_in_books(pair.a), self.place_in_books(pair.b));
        Pair {
            a: &self.books()[a as usize],
            b: &self.books()[b as usize],
            score: pair.score,
            overlap: pair.overlap,
            location: pair.location,
            relation: pair.relation,
            slots: (a, b),
        }
    }
}

impl Pair<'_> {
    /// The books' places in [`Reader::books`].
    pub(crate) fn slots(&self) -> (u32, u32) {
        self.slots
    }
}
