//! Approximate mode: candidates from two sources, then the same LCS
//! verification as exact mode.
//!
//! - **Key tables** of the sketch segments (book min-hash, window min-hash
//!   and simhash bands, and min-hash values). A band key proposes every
//!   book it lists; value keys are counted, and a book is proposed when it
//!   shares at least [`MIN_SHARED_VALUES`] of them, an estimated Jaccard
//!   similarity of `MIN_SHARED_VALUES / K`. A proposed book's every part is
//!   aligned with every part of the query, unless that makes more than
//!   [`MAX_KEY_TABLE_PART_PAIRS`] pairs (a volume on either side): book
//!   sketches do not say which parts match, the word sample does.
//! - **The word sample**: the unique words of every part whose hash falls in
//!   one residue class of `WORD_SAMPLE_RATE` (`postings.rs`) (`in_word_sample`), kept in
//!   text order, read from the unique-word postings (nothing more is
//!   stored for it). Each part of the
//!   query is joined against it as exact mode joins against the full
//!   postings, and a pair of parts is proposed when their sampled sequences
//!   share at least [`MIN_SAMPLED_LCS`] words in order and their LCS stands
//!   [`SAMPLED_ORDER_EVIDENCE`] spreads above chance ([`sample_in_order`]).
//!   Only that pair of parts is aligned. Because it samples the very words
//!   exact mode aligns, it finds what the sketches miss: a small work inside
//!   a volume (too short to fill a content-defined window, and a tiny share
//!   of the volume's shingles) and two heavily noisy scans (whose 5-word
//!   shingles are almost all broken, while the words both kept are still
//!   in order). A sampled sequence is a quarter of the full one, and a
//!   sampled word listed in more than [`MIN_SAMPLE_WORD_CAP`] parts (on
//!   large collections a share of them, [`SAMPLE_WORD_CAP_DIVISOR`]) is
//!   left out, so a join scans a bounded number of entries per sampled
//!   word, and aligns only the pairs it proposes, with no bound to honour.
//!
//! Nothing here bounds what is missed: a related book whose sketches share
//! no band key with the query's and whose sampled words do not show enough
//! order is not found. `eval` reports the recall this costs.

use roaring::RoaringBitmap;

use super::postings::{Candidate, Join, Postings, Probe};
use super::query_book::QueryBook;
use super::Reader;
use crate::batch::{
    least_sampled_lcs, sample_in_order, KEY_CAP_DIVISOR, MAX_KEY_TABLE_PART_PAIRS, MIN_KEY_CAP,
    MIN_SAMPLE_WORD_CAP, MIN_SHARED_VALUES, SAMPLE_WORD_CAP_DIVISOR,
};
use crate::repr::sketch::{BookSketch, SketchOptions, Sketcher, Table};
use crate::repr::SimHash128;
use crate::text::PAGE_BREAK;

/// Candidates each source proposed for one query (a book may come from
/// several sources).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SourceCounts {
    /// Books sharing a book min-hash band key.
    pub book_minhash: u64,
    /// Books sharing a window min-hash band key.
    pub window_minhash: u64,
    /// Books sharing a simhash band key and within the Hamming distance.
    pub simhash: u64,
    /// Books agreeing with the query on at least 3 of the book min-hash
    /// positions.
    pub minhash_values: u64,
    /// Books with a part whose word sample shares enough words in order
    /// with a part of the query's.
    pub word_sample: u64,
    /// Keys skipped for listing too many books: more than 1% of the books
    /// and more than 64.
    pub skipped_keys: u64,
}

/// "book min-hash 3, window min-hash 9, simhash 1, min-hash values 2, word
/// sample 5; 4 keys skipped as too common".
impl std::fmt::Display for SourceCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "book min-hash {}, window min-hash {}, simhash {}, min-hash values {}, word sample {}; {} keys skipped as too common",
            self.book_minhash,
            self.window_minhash,
            self.simhash,
            self.minhash_values,
            self.word_sample,
            self.skipped_keys
        )
    }
}

impl SourceCounts {
    fn add(&mut self, table: Table, n: u64) {
        match table {
            Table::Book => self.book_minhash += n,
            Table::Window => self.window_minhash += n,
            Table::SimHash => self.simhash += n,
            Table::Value => self.minhash_values += n,
        }
    }

    /// Adds `other` to these counts.
    pub fn accumulate(&mut self, other: &SourceCounts) {
        self.book_minhash += other.book_minhash;
        self.window_minhash += other.window_minhash;
        self.simhash += other.simhash;
        self.minhash_values += other.minhash_values;
        self.word_sample += other.word_sample;
        self.skipped_keys += other.skipped_keys;
    }
}

/// The sketch side of a reader: its options and key cap. Sketches and key
/// tables are read from the reader's segments in place.
pub(crate) struct Sketches {
    options: SketchOptions,
    key_cap: usize,
}

/// A query's band keys, per table, and where a stored book's lie.
pub(crate) struct QueryKeys {
    keys: [Vec<u64>; Table::ALL.len()],
    /// A stored book's run and position there: that run gives the lists
    /// of the book's own keys from where they lie in its tables, with no
    /// search.
    stored: Option<(usize, usize)>,
}

impl Sketches {
    /// The sketch side of a reader of `books` live books.
    pub(crate) fn new(options: SketchOptions, books: usize) -> Sketches {
        Sketches {
            options,
            key_cap: MIN_KEY_CAP.max(books / KEY_CAP_DIVISOR),
        }
    }

    /// The stored keys of the book in `slot` (none when it has no sketch).
    pub(crate) fn keys_of_slot(&self, reader: &Reader, slot: u32) -> QueryKeys {
        let (r, position) = reader.runs().locate_slot(slot);
        let segment = &reader.runs().segments()[r];
        let sketched = segment.sketched(position);
        QueryKeys {
            keys: Table::ALL.map(|table| match sketched {
                true => segment.book_keys(position, table).collect(),
                false => Vec::new(),
            }),
            stored: sketched.then_some((r, position)),
        }
    }

    /// A sketcher of `text` (its tokens still to come) with the index's
    /// options.
    pub(crate) fn sketcher_of(&self, text: &str) -> Sketcher {
        Sketcher::new(text.contains(PAGE_BREAK), &self.options)
    }

    /// The keys and simhash of a new text, from its sketch.
    pub(crate) fn keys_of_sketch(&self, sketch: &BookSketch) -> (QueryKeys, SimHash128) {
        let keys = QueryKeys {
            keys: Table::ALL.map(|table| sketch.keys(table, &self.options)),
            stored: None,
        };
        (keys, sketch.simhash)
    }

    /// The stored simhash of the book in `slot`.
    pub(crate) fn simhash_of_slot(&self, reader: &Reader, slot: u32) -> SimHash128 {
        let (r, position) = reader.runs().locate_slot(slot);
        reader.runs().segments()[r].simhash(position)
    }

    /// Reader slots proposed by `keys` (simhash ones within the Hamming
    /// distance of `simhash`, value ones sharing enough values; see the
    /// module docs) for which `wanted` holds, sorted.
    pub(crate) fn candidates(
        &self,
        reader: &Reader,
        keys: &QueryKeys,
        simhash: SimHash128,
        wanted: impl Fn(u32) -> bool,
    ) -> (Vec<u32>, SourceCounts) {
        let mut counts = SourceCounts::default();
        let mut all = RoaringBitmap::new();
        let distance = self.options.simhash_distance;
        let near = |slot: u32| self.simhash_of_slot(reader, slot).hamming(&simhash) <= distance;
        let runs = reader.runs();
        let mut lists = Vec::with_capacity(runs.segments().len());
        for table in Table::ALL {
            let keep = |slot: u32| wanted(slot) && (table != Table::SimHash || near(slot));
            let mut hits: Vec<u32> = Vec::new();
            let mut own = keys.stored.and_then(|(r, position)| {
                Some((r, runs.segments()[r].book_key_postings(position, table)?))
            });
            for &key in &keys.keys[table as usize] {
                lists.clear();
                for (r, segment) in runs.segments().iter().enumerate() {
                    let books = match own.as_mut() {
                        Some((own_run, listed)) if *own_run == r => match listed.next() {
                            Some((listed_key, books)) if listed_key == key => books,
                            _ => segment.lookup(table, key),
                        },
                        _ => segment.lookup(table, key),
                    };
                    lists.push(books);
                }
                let listed: usize = lists.iter().map(|books| books.len()).sum();
                if listed > self.key_cap {
                    counts.skipped_keys += 1;
                    continue;
                }
                for (r, books) in lists.drain(..).enumerate() {
                    hits.extend(books.filter_map(|id| runs.live_slot_of_id_in(r, id)));
                }
            }
            let least = if table == Table::Value {
                MIN_SHARED_VALUES as usize
            } else {
                1
            };
            // Each key lists a book once, so a book's run is its shared keys.
            hits.sort_unstable();
            let found: RoaringBitmap = hits
                .chunk_by(|a, b| a == b)
                .filter(|run| run.len() >= least && keep(run[0]))
                .map(|run| run[0])
                .collect();
            counts.add(table, found.len());
            all |= found;
        }
        (all.into_iter().collect(), counts)
    }
}

impl Reader {
    /// The word sample's postings: the unique-word postings, read for the
    /// sampled words only, without those listed in more parts than the
    /// sample's cap.
    pub(crate) fn word_sample(&self) -> Postings<'_> {
        let cap = MIN_SAMPLE_WORD_CAP.max(self.part_count() / SAMPLE_WORD_CAP_DIVISOR);
        Postings::sample(self.runs(), cap as u32)
    }

    /// The pairs (query part, stored part) whose word samples share enough
    /// words in order ([`sample_in_order`]), of the stored books for which
    /// `wanted` holds, sorted. With `later_only`, a stored query is joined
    /// only against the parts after its own (as the all-pairs job needs).
    /// `join` is scratch for as many parts as the reader holds.
    pub(crate) fn sampled_part_pairs(
        &self,
        query: &QueryBook<'_>,
        later_only: bool,
        join: &mut Join,
        wanted: impl Fn(u32) -> bool,
    ) -> Vec<(u32, u32)> {
        let probes: Vec<Probe<'_>> = match *query {
            QueryBook::Stored(slot) if later_only => {
                self.part_range(slot).map(Probe::PartAgainstLater).collect()
            }
            QueryBook::Stored(slot) => self.part_range(slot).map(Probe::Part).collect(),
            QueryBook::Text(text) => text
                .parts
                .iter()
                .map(|p| Probe::Hashes(&p.hashes))
                .collect(),
        };
        self.sampled_pairs_of(&probes, join, wanted)
    }

    /// [`Reader::sampled_part_pairs`] for the query parts `probes`.
    pub(crate) fn sampled_pairs_of(
        &self,
        probes: &[Probe<'_>],
        join: &mut Join,
        wanted: impl Fn(u32) -> bool,
    ) -> Vec<(u32, u32)> {
        let sample = self.word_sample();
        let mut pairs = Vec::new();
        for (q, probe) in probes.iter().enumerate() {
            // The grid bound on the LCS must reach what the fewest common
            // words possible would ask for.
            let worth = |c: &Candidate| {
                f64::from(c.lcs_at_most - c.frequent_at_most) >= least_sampled_lcs(c.counted)
                    && wanted(self.book_of_part(c.book))
            };
            join.count_bounded(&sample, probe, worth);
            let keep: Vec<Candidate> = join.kept().copied().collect();
            join.align(&sample, join.admitted(), &keep, |part, overlap| {
                if sample_in_order(&overlap) {
                    pairs.push((q as u32, part));
                }
            });
        }
        pairs.sort_unstable();
        pairs
    }

    /// The pairs of parts approximate mode aligns: `sampled`, and every
    /// part of the query with every part of each of `books` (from the key
    /// tables) when that makes at most [`MAX_KEY_TABLE_PART_PAIRS`] pairs;
    /// sorted, without duplicates. Adds the books `sampled` proposes to
    /// `counts`, and returns the number of books aligned.
    pub(crate) fn approximate_part_pairs(
        &self,
        query_parts: u32,
        books: &[u32],
        mut sampled: Vec<(u32, u32)>,
        counts: &mut SourceCounts,
    ) -> (Vec<(u32, u32)>, u64) {
        let mut all: RoaringBitmap = sampled
            .iter()
            .map(|&(_, part)| self.book_of_part(part))
            .collect();
        counts.word_sample += all.len();
        for &slot in books {
            let parts = self.part_range(slot);
            if parts.len() as u64 * u64::from(query_parts) > MAX_KEY_TABLE_PART_PAIRS {
                continue;
            }
            all.insert(slot);
            for part in parts {
                sampled.extend((0..query_parts).map(|q| (q, part)));
            }
        }
        sampled.sort_unstable();
        sampled.dedup();
        (sampled, all.len())
    }
}
