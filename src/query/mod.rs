//! Queries over a snapshot of the index: top-k and threshold queries for a
//! book or new text, and the all-pairs job.
//!
//! A [`Reader`] reads the catalog in one read transaction, keeps every
//! book's unique-word hashes from the barrels (one barrel at a time; word
//! positions are read again, one record at a time, when a relation needs
//! them) and reads the sketch segments; the unique-word postings of exact
//! mode are built in memory on first use. A damaged sketch segment does not
//! stop a reader: exact mode and relations need only the barrels and page
//! files, and approximate mode returns the error naming the segment.
//! Loads that commit later do not change it. [`Reader::relation`] tells how
//! two stored books relate (`relations.rs`).

mod approx;
mod clusters;
mod locate;
mod pairs;
mod planner;
mod postings;
mod query_book;
mod relations;

pub use approx::SourceCounts;
pub use clusters::Clusters;
pub use locate::{Location, WordRange};
pub use pairs::{AllPairs, Pair, PairsOptions, PairsStats};
pub use planner::{Explain, Hit, Mode, OverlapFields, QueryOptions, QueryResult};
pub use relations::RelationInput;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};
use crate::repr::{book_parts, unique_words::extract, UniqueWordSeq};
use crate::storage::barrel::BarrelReader;
use crate::storage::catalog::BookEntry;
use crate::storage::segment::Unreadable;
use crate::store::records::RecordFiles;
use crate::store::{BookRef, RecordPlace, Store};
use crate::text::decode;
use approx::Sketches;
use postings::Postings;
use query_book::QueryBook;

/// What a reader knows about one book.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct BookInfo {
    /// Internal id (stable for the life of the book in the index).
    pub id: u32,
    /// External key.
    pub key: String,
    /// Title.
    pub title: String,
    /// Author.
    pub author: String,
    /// Language code.
    pub language: String,
    /// Words in the text.
    pub words: u64,
    /// Pages in the text.
    pub pages: u32,
    /// Elements of the unique-word sequences of its parts together.
    pub unique_words: u32,
    /// Parts it is stored as: 1, unless it is longer than the index's
    /// volume threshold (see [`crate::PartOptions`]).
    pub parts: u32,
}

/// Aligns pairs of stored books, reusing its scratch between calls.
pub struct PairVerifier<'r> {
    reader: &'r Reader,
    join: postings::Join,
}

impl std::fmt::Debug for PairVerifier<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairVerifier")
            .field("books", &self.reader.len())
            .finish_non_exhaustive()
    }
}

impl PairVerifier<'_> {
    /// The overlap of the books in reader slots `a` and `b` (as in
    /// [`Reader::books`]): of their best pair of parts under the default
    /// score (the first pair when none scores); |X| is `a`'s part.
    pub fn verify_slots(&mut self, a: u32, b: u32) -> crate::align::Overlap {
        let mut best: Option<(f64, crate::align::Overlap)> = None;
        for x in self.reader.part_range(a) {
            for y in self.reader.part_range(b) {
                let overlap = self.join.align_pair(self.reader.postings(), x, y);
                let score = crate::align::Score::default().value(&overlap);
                if best.is_none_or(|(kept, _)| score > kept) {
                    best = Some((score, overlap));
                }
            }
        }
        best.map(|(_, overlap)| overlap).unwrap_or_default()
    }
}

/// A consistent snapshot of an index for queries. It holds in memory what
/// every query needs: each book's unique-word hashes (in text order) and
/// the sketch segments. What only relations need is read on demand from the
/// files of its snapshot, which it holds open: word positions from the
/// barrels and page signatures from the page files (from memory, in format
/// 3). Loads, deletes and compactions after it opened do not change what it
/// answers. Cheap to share between threads (`&Reader` is `Sync`).
pub struct Reader {
    books: Vec<BookInfo>,
    /// Each part's unique-word hashes in text order (its sequence without
    /// the positions), book after book: the planner's unit.
    sequences: Vec<Vec<u32>>,
    /// Book slot `s` has parts `part_starts[s]..part_starts[s + 1]`.
    part_starts: Vec<u32>,
    /// The book slot of each part.
    part_books: Vec<u32>,
    /// Where each book's full record is in the barrels.
    places: Vec<RecordPlace>,
    by_key: HashMap<String, u32>,
    postings: OnceLock<Postings>,
    /// Postings of the word sample of approximate mode, built on first use.
    word_sample: OnceLock<Postings>,
    frequent_word_cap: u32,
    sketches: Option<Sketches>,
    /// The first listed segment that could not be read, if any: then
    /// `sketches` is `None` and approximate mode reports it.
    damaged_segment: Option<Unreadable>,
    /// The barrels, page files and page locators of the snapshot.
    files: RecordFiles,
    /// The index: its options and directory.
    store: Arc<Store>,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("dir", &self.store.dir())
            .field("books", &self.books.len())
            .field("sketches", &self.sketches.is_some())
            .field("damaged_segment", &self.damaged_segment())
            .finish()
    }
}

impl Reader {
    /// Opens a snapshot. A compaction that commits while the snapshot is
    /// being read may remove a segment it lists; the open is then retried
    /// on a fresh snapshot. A listed segment that cannot be read (still
    /// missing on the last attempt, or damaged) leaves the reader without
    /// sketches: exact mode works, approximate mode returns the damage.
    pub(crate) fn open(store: &Arc<Store>) -> Result<Reader> {
        let mut attempts = 0;
        loop {
            match Reader::open_snapshot(store, attempts == 3) {
                Err(Error::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound && attempts < 3 =>
                {
                    attempts += 1;
                }
                other => return other,
            }
        }
    }

    fn open_snapshot(store: &Arc<Store>, last_attempt: bool) -> Result<Reader> {
        let snapshot = store.catalog().snapshot()?;
        let entries = snapshot.books()?;
        let barrels = snapshot.barrels()?;
        let segments = snapshot.segments()?;
        let files = RecordFiles::open(store, &snapshot)?;
        drop(snapshot);
        let committed: HashMap<u32, u64> = barrels.into_iter().collect();
        let hashes = read_hashes(store, &committed, &entries)?;
        let places = entries.iter().map(|(_, e)| RecordPlace::of(e)).collect();
        let mut part_starts = Vec::with_capacity(entries.len() + 1);
        let mut part_books = Vec::new();
        let mut sequences = Vec::new();
        let mut books = Vec::with_capacity(entries.len());
        for (slot, ((id, entry), parts)) in entries.into_iter().zip(hashes).enumerate() {
            part_starts.push(sequences.len() as u32);
            let count = parts.len() as u32;
            part_books.extend(std::iter::repeat_n(slot as u32, parts.len()));
            sequences.extend(parts);
            books.push(BookInfo {
                id,
                key: entry.key,
                title: entry.title,
                author: entry.author,
                language: entry.language,
                words: entry.words,
                pages: entry.pages,
                unique_words: entry.unique_words,
                parts: count,
            });
        }
        part_starts.push(sequences.len() as u32);
        let ids: Vec<u32> = books.iter().map(|b| b.id).collect();
        let part_count = sequences.len();
        let mut damaged_segment = None;
        let sketches = match store.sketch_options() {
            None => None,
            Some(options) => {
                match Sketches::open(store, *options, &segments, &ids, last_attempt)? {
                    Ok(sketches) => Some(sketches),
                    Err(damage) => {
                        damaged_segment = Some(damage);
                        None
                    }
                }
            }
        };
        let by_key = books
            .iter()
            .enumerate()
            .map(|(i, b)| (b.key.clone(), i as u32))
            .collect();
        Ok(Reader {
            books,
            sequences,
            part_starts,
            part_books,
            places,
            by_key,
            postings: OnceLock::new(),
            word_sample: OnceLock::new(),
            frequent_word_cap: postings::default_frequent_word_cap(part_count),
            sketches,
            damaged_segment,
            files,
            store: store.clone(),
        })
    }

    /// The unique-word postings, built on first use.
    pub(crate) fn postings(&self) -> &Postings {
        self.postings
            .get_or_init(|| Postings::build(&self.sequences, self.frequent_word_cap))
    }

    /// Sets the cap past which exact mode's counting skips a word as
    /// frequent: words unique in more than `cap` books (default: half the
    /// books, and at least 1000). Answers do not change, only
    /// the work: a lower cap scans shorter lists but loosens bounds, so more
    /// books are aligned.
    pub fn with_frequent_word_cap(mut self, cap: u32) -> Reader {
        self.frequent_word_cap = cap;
        self.postings = OnceLock::new();
        self.word_sample = OnceLock::new();
        self
    }

    /// The sketches; `Corrupted` naming the segment when a listed one could
    /// not be read, `OldFormat` when the index has none.
    pub(crate) fn sketches(&self) -> Result<&Sketches> {
        if let Some(damage) = &self.damaged_segment {
            return Err(damage.error(
                "approximate mode needs every listed sketch segment, so it cannot be used \
                 until the segment is repaired (exact mode and relations still work); \
                 `stemmata verify` names the books to reload",
            ));
        }
        self.sketches.as_ref().ok_or_else(|| Error::OldFormat {
            path: self.store.dir().to_path_buf(),
            found: self.store.format_version().number(),
            needs: "search in approximate mode (it has no sketches)".to_string(),
        })
    }

    /// The first listed sketch segment the reader could not read, if any:
    /// approximate mode fails while it is listed (see
    /// [`Index::verify`](crate::Index::verify) for the way out).
    pub fn damaged_segment(&self) -> Option<&std::path::Path> {
        self.damaged_segment.as_ref().map(|d| d.path.as_path())
    }

    /// The reader slot of the book with internal id `id`.
    pub(crate) fn slot_of_id(&self, id: u32) -> Option<u32> {
        self.books
            .binary_search_by_key(&id, |b| b.id)
            .ok()
            .map(|slot| slot as u32)
    }

    /// Books that have no sketch, so approximate mode cannot find them.
    pub fn unsketched_books(&self) -> usize {
        self.sketches
            .as_ref()
            .map_or(self.len(), |s| s.unsketched())
    }

    /// Books in the snapshot, in internal-id order.
    pub fn books(&self) -> &[BookInfo] {
        &self.books
    }

    /// Number of books.
    pub fn len(&self) -> usize {
        self.books.len()
    }

    /// True when the snapshot holds no book.
    pub fn is_empty(&self) -> bool {
        self.books.is_empty()
    }

    /// The book stored under `key`.
    pub fn book(&self, key: &str) -> Result<&BookInfo> {
        self.slot_of(key).map(|slot| &self.books[slot as usize])
    }

    /// The unique-word sequences of the parts of the book stored under
    /// `key` (one part unless it is a volume), with their word positions:
    /// read from its barrel records.
    pub fn parts(&self, key: &str) -> Result<Vec<UniqueWordSeq>> {
        self.parts_of_slot(self.slot_of(key)? as usize)
    }

    /// The parts of the book in `slot`, read from its barrel records.
    pub(crate) fn parts_of_slot(&self, slot: usize) -> Result<Vec<UniqueWordSeq>> {
        self.files
            .book_record(self.book_ref(slot), self.places[slot])
    }

    /// The parts (planner units) of the book in `slot`.
    pub(crate) fn part_range(&self, slot: u32) -> std::ops::Range<u32> {
        self.part_starts[slot as usize]..self.part_starts[slot as usize + 1]
    }

    /// The book slot of part `part`.
    pub(crate) fn book_of_part(&self, part: u32) -> u32 {
        self.part_books[part as usize]
    }

    /// Parts in the snapshot, all books together.
    pub fn part_count(&self) -> usize {
        self.sequences.len()
    }

    /// The identity of the book in `slot`, which its records must match.
    pub(crate) fn book_ref(&self, slot: usize) -> BookRef<'_> {
        let book = &self.books[slot];
        BookRef {
            id: book.id,
            key: &book.key,
            unique_words: book.unique_words,
        }
    }

    /// The unique-word hashes of each part of the book stored under `key`,
    /// in text order (its sequences without the positions), from memory.
    pub fn hashes(&self, key: &str) -> Result<Vec<&[u32]>> {
        let slot = self.slot_of(key)?;
        Ok(self
            .part_range(slot)
            .map(|part| self.sequences[part as usize].as_slice())
            .collect())
    }

    /// The slot of the book stored under `key`: `UnknownKey` when there is
    /// none, `InvalidArgument` when `key` breaks the key rule
    /// ([`crate::keys::check_key`]) and so names no book a load could store.
    fn slot_of(&self, key: &str) -> Result<u32> {
        self.by_key.get(key).copied().ok_or_else(|| {
            crate::keys::invalid_key(key).unwrap_or_else(|| Error::UnknownKey(key.to_string()))
        })
    }

    /// Aligns two stored books, found by key.
    pub fn align_books(&self, a: &str, b: &str) -> Result<crate::align::Overlap> {
        let (a, b) = (self.slot_of(a)?, self.slot_of(b)?);
        Ok(self.pair_verifier().verify_slots(a, b))
    }

    /// A verifier of stored pairs that keeps its scratch between calls.
    pub fn pair_verifier(&self) -> PairVerifier<'_> {
        PairVerifier {
            reader: self,
            join: postings::Join::new(self.sequences.len()),
        }
    }

    /// Books related to the stored book `key` (the book itself excluded),
    /// each with its best pair of parts and where the match lies.
    /// `UnknownKey` when no book is stored under `key`, `InvalidArgument`
    /// when `key` breaks the key rule ([`crate::keys::check_key`]).
    pub fn query_key(&self, key: &str, options: &QueryOptions) -> Result<QueryResult> {
        let slot = self.slot_of(key)?;
        let query = QueryBook::Stored(slot);
        match options.mode {
            Mode::Exact => self.query_exact(&query, options),
            Mode::Approximate => {
                let sketches = self.sketches()?;
                let keys = sketches.keys_of_slot(slot);
                let simhash = sketches.simhash_of_slot(slot);
                self.query_bands(&query, &keys, simhash, options)
            }
        }
    }

    /// Books related to a new text, extracted (and cut into parts when it
    /// is a volume) with the index's options.
    pub fn query_text(&self, text: &[u8], options: &QueryOptions) -> Result<QueryResult> {
        let parts = self.text_parts(text);
        let query = QueryBook::Text(&parts);
        match options.mode {
            Mode::Exact => self.query_exact(&query, options),
            Mode::Approximate => {
                let (keys, simhash) = self.sketches()?.keys_of_text(&decode(text).text);
                self.query_bands(&query, &keys, simhash, options)
            }
        }
    }

    /// The parts of a new text, as a load would store them.
    pub fn text_parts(&self, text: &[u8]) -> Vec<UniqueWordSeq> {
        let decoded = decode(text);
        let options = self.store.extract_options();
        let features = extract(&decoded.text, options);
        book_parts(
            &decoded.text,
            features.words,
            features.sequence,
            options,
            self.store.part_options(),
        )
    }
}

/// The unique-word hashes of every part of every book of `entries`, in their order, read
/// one barrel at a time (`committed`: each barrel's committed length), so
/// that at most one barrel (up to
/// [`crate::load::LoadOptions::max_barrel_bytes`]) is in memory at once.
fn read_hashes(
    store: &Store,
    committed: &HashMap<u32, u64>,
    entries: &[(u32, BookEntry)],
) -> Result<Vec<Vec<Vec<u32>>>> {
    let mut slots_by_barrel: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (slot, (_, entry)) in entries.iter().enumerate() {
        slots_by_barrel.entry(entry.barrel).or_default().push(slot);
    }
    let mut hashes = vec![Vec::new(); entries.len()];
    for (barrel, slots) in slots_by_barrel {
        let Some(&len) = committed.get(&barrel) else {
            return Err(store.unknown_barrel(&entries[slots[0]].1));
        };
        let reader = BarrelReader::open(&store.barrel_path(barrel), len)?;
        for slot in slots {
            let (id, entry) = &entries[slot];
            hashes[slot] = store
                .record_in(&reader, *id, entry)?
                .into_iter()
                .map(|part| part.hashes)
                .collect();
        }
    }
    Ok(hashes)
}
