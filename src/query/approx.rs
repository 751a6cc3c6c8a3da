//! Approximate mode: candidates from the key tables of the sketch segments
//! (book min-hash, window min-hash and simhash bands, and min-hash values),
//! then the same LCS verification as exact mode. A band key proposes every
//! book it lists; value keys are counted, and a book is proposed when it
//! shares at least [`MIN_SHARED_VALUES`] of them, an estimated Jaccard
//! similarity of `MIN_SHARED_VALUES / K`. Nothing here bounds what is missed: a
//! related book whose sketches share no band key with the query's is not
//! found. `eval` reports the recall this costs.

use roaring::RoaringBitmap;

use super::Reader;
use crate::error::{Error, Result};
use crate::repr::sketch::{BookSketch, SketchOptions, Table};
use crate::repr::SimHash128;
use crate::storage::segment::{Segment, Unreadable};
use crate::store::Store;

/// A key listing more than `max(MIN_KEY_CAP, books / KEY_CAP_DIVISOR)`
/// books is skipped as uninformative: shared boilerplate such as licence
/// text, or simhash bands on which every book of one language agrees. Each
/// skipped key is counted in [`SourceCounts::skipped_keys`]. The cap keeps
/// the candidates of one key, and so the verification work, bounded.
pub const MIN_KEY_CAP: usize = 64;
/// See [`MIN_KEY_CAP`]: keys shared by more than 1% of the books are skipped.
pub const KEY_CAP_DIVISOR: usize = 100;
/// Least number of book min-hash positions on which a book must agree with
/// the query to be proposed by the value table.
pub const MIN_SHARED_VALUES: u32 = 3;

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
    /// Keys skipped for listing too many books: more than 1% of the books
    /// and more than 64.
    pub skipped_keys: u64,
}

/// "book min-hash 3, window min-hash 9, simhash 1, min-hash values 2; 4
/// keys skipped as too common".
impl std::fmt::Display for SourceCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "book min-hash {}, window min-hash {}, simhash {}, min-hash values {}; {} keys skipped as too common",
            self.book_minhash, self.window_minhash, self.simhash, self.minhash_values, self.skipped_keys
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
        self.skipped_keys += other.skipped_keys;
    }
}

/// The sketch side of a reader: segments, and each slot's simhash and keys.
pub(crate) struct Sketches {
    options: SketchOptions,
    segments: Vec<Segment>,
    /// Per reader slot: (segment, position in it), when sketched.
    place: Vec<Option<(u32, u32)>>,
    simhash: Vec<SimHash128>,
    key_cap: usize,
}

/// A query's keys, per table.
pub(crate) type QueryKeys = [Vec<u64>; Table::ALL.len()];

impl Sketches {
    /// Reads the segments listed in `listed` for the books of `reader_ids`
    /// (reader slot order, ascending ids). The first listed segment that
    /// cannot be read is the inner error; a missing one is an outer
    /// `Io` error (for the caller to retry on a fresh snapshot) unless
    /// `last_attempt`.
    pub(crate) fn open(
        store: &Store,
        options: SketchOptions,
        listed: &[(u32, u64)],
        reader_ids: &[u32],
        last_attempt: bool,
    ) -> Result<std::result::Result<Sketches, Unreadable>> {
        let mut segments = Vec::with_capacity(listed.len());
        for &(n, _) in listed {
            let path = store.segment_path(n);
            match Segment::open(&path) {
                Ok(segment) => segments.push(segment),
                Err(Error::Io { path, source })
                    if source.kind() == std::io::ErrorKind::NotFound && !last_attempt =>
                {
                    return Err(Error::Io { path, source });
                }
                Err(error) => return Ok(Err(Unreadable::of(&path, &error))),
            }
        }
        let mut place = vec![None; reader_ids.len()];
        let mut simhash = vec![SimHash128::default(); reader_ids.len()];
        for (s, segment) in segments.iter().enumerate() {
            for (position, (id, hash, _)) in segment.books().enumerate() {
                if let Ok(slot) = reader_ids.binary_search(&id) {
                    place[slot] = Some((s as u32, position as u32));
                    simhash[slot] = hash;
                }
            }
        }
        Ok(Ok(Sketches {
            options,
            segments,
            place,
            simhash,
            key_cap: MIN_KEY_CAP.max(reader_ids.len() / KEY_CAP_DIVISOR),
        }))
    }

    /// Books without a sketch (none in an index written by one build).
    pub(crate) fn unsketched(&self) -> usize {
        self.place.iter().filter(|p| p.is_none()).count()
    }

    /// The stored keys of the book in `slot`.
    pub(crate) fn keys_of_slot(&self, slot: u32) -> QueryKeys {
        Table::ALL.map(|table| match self.place[slot as usize] {
            Some((s, position)) => self.segments[s as usize]
                .book_keys(position as usize, table)
                .collect(),
            None => Vec::new(),
        })
    }

    /// The keys and simhash of a new text.
    pub(crate) fn keys_of_text(&self, text: &str) -> (QueryKeys, SimHash128) {
        let sketch = BookSketch::compute(text, &self.options);
        (
            Table::ALL.map(|table| sketch.keys(table, &self.options)),
            sketch.simhash,
        )
    }

    pub(crate) fn simhash_of_slot(&self, slot: u32) -> SimHash128 {
        self.simhash[slot as usize]
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
        let near = |slot: u32| self.simhash[slot as usize].hamming(&simhash) <= distance;
        for table in Table::ALL {
            let keep = |slot: u32| wanted(slot) && (table != Table::SimHash || near(slot));
            let mut hits: Vec<u32> = Vec::new();
            for &key in &keys[table as usize] {
                let listed: Vec<u32> = self
                    .segments
                    .iter()
                    .flat_map(|s| s.lookup(table, key))
                    .collect();
                if listed.len() > self.key_cap {
                    counts.skipped_keys += 1;
                    continue;
                }
                hits.extend(listed.into_iter().filter_map(|id| reader.slot_of_id(id)));
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
