//! Queries over a snapshot of the index: top-k and threshold queries for a
//! book or new text, and the all-pairs job.
//!
//! A [`Reader`] takes the list of segments, barrels and page files and the
//! dead book ids from the catalog in one read transaction, and maps the
//! segments: each holds its books' entries, unique-word sequences and
//! postings, sketches and key tables ([`runs`]), read in place, so opening
//! costs the same whatever the collection's size and memory grows with
//! what queries touch. Word positions are read from the barrels, one
//! record at a time, when a hit or a relation needs them. An index of a
//! format before 7 has none of this in its segments: its reader builds the
//! same in memory at open, from the barrels and the catalog (and a damaged
//! sketch segment there leaves exact mode working and approximate mode
//! reporting it). Loads that commit later do not change a reader.
//! [`Reader::relation`] tells how two stored books relate (`relations.rs`).

mod approx;
mod clusters;
mod pairs;
mod passage_windows;
mod planner;
mod postings;
mod query_book;
mod relations;
mod runs;
mod translations;

pub use crate::batch::{Location, WordRange};
pub use approx::SourceCounts;
pub use clusters::Clusters;
pub use pairs::{AllPairs, Pair, PairsOptions, PairsStats};
pub use planner::{Explain, Hit, Mode, OverlapFields, QueryOptions, QueryResult, Relationship};
pub use relations::RelationInput;

use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};
use crate::repr::passages::passages_of;
use crate::repr::sketch::BookSketch;
use crate::repr::unique_words::{extract_with, WordHash};
use crate::repr::{parts::parts_of, UniqueWordSeq};
use crate::storage::barrel::Record;
use crate::storage::catalog::CatalogSnapshot;
use crate::storage::segment::{self, Segment, Unreadable};
use crate::store::records::RecordFiles;
use crate::store::{BookRef, RecordPlace, Store};
use crate::text::{decode, Token};
use approx::Sketches;
use postings::{Frequent, Postings};
use query_book::{QueryBook, QueryText};
use runs::Runs;

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
        let runs = self.reader.runs();
        self.verify_pair(runs.slot_of_place(a), runs.slot_of_place(b))
    }

    /// The overlap of the books in slots `a` and `b`, as
    /// [`Self::verify_slots`].
    fn verify_pair(&mut self, a: u32, b: u32) -> crate::align::Overlap {
        let postings = self.reader.postings();
        let mut best: Option<(f64, crate::align::Overlap)> = None;
        for x in self.reader.part_range(a) {
            for y in self.reader.part_range(b) {
                let overlap = self.join.align_pair(&postings, x, y);
                let score = crate::align::Score::default().value(&overlap);
                if best.is_none_or(|(kept, _)| score > kept) {
                    best = Some((score, overlap));
                }
            }
        }
        best.map(|(_, overlap)| overlap).unwrap_or_default()
    }
}

/// A consistent snapshot of an index for queries. Its segments, mapped,
/// hold what every query needs: each book's entry, unique-word hashes (in
/// text order), postings, sketches and key tables. What only hits and
/// relations need is read on demand from the files of its snapshot, which
/// it holds open: word positions from the barrels and page signatures from
/// the page files (from the catalog's copy, in format 3). Loads, deletes
/// and compactions after it opened do not change what it answers. Cheap to
/// share between threads (`&Reader` is `Sync`).
pub struct Reader {
    runs: Runs,
    /// Every live book's [`BookInfo`], built on first use.
    books: OnceLock<Vec<BookInfo>>,
    frequent_word_cap: u32,
    /// Each part's frequent words under `frequent_word_cap`, counted on
    /// first use.
    frequent: OnceLock<Frequent>,
    /// Every book's language, read on the first translation search.
    languages: OnceLock<translations::Languages>,
    /// The translation lexicons built so far, by (from, to) language.
    lexicons: translations::LexiconCache,
    sketches: Option<Sketches>,
    /// The first listed segment that could not be read, if any (an index
    /// before format 7): then `sketches` is `None` and approximate mode
    /// reports it.
    damaged_segment: Option<Unreadable>,
    /// The barrels, page files and page locators of the snapshot.
    files: RecordFiles,
    /// The index: its options and directory.
    store: Arc<Store>,
    /// The same snapshot seen through its books' passages, built on the
    /// first translation search: `None` when no segment stores passages
    /// (and in the view itself).
    passages: OnceLock<Option<Box<Reader>>>,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("dir", &self.store.dir())
            .field("books", &self.len())
            .field("sketches", &self.sketches.is_some())
            .field("damaged_segment", &self.damaged_segment())
            .finish()
    }
}

impl Reader {
    /// Opens a snapshot. A compaction that commits while the snapshot is
    /// being read may remove a segment it lists; the open is then retried
    /// on a fresh snapshot. A listed segment that cannot be opened is an
    /// error naming it (in an index before format 7, it leaves the reader
    /// without sketches: exact mode works, approximate mode returns the
    /// damage).
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
        let current = store.format_version().has_compact_postings();
        let files = RecordFiles::open(store, &snapshot, !current)?;
        let (runs, damaged_segment) = if current {
            (mapped_runs(store, &snapshot, last_attempt)?, None)
        } else {
            legacy_runs(store, &snapshot, last_attempt)?
        };
        drop(snapshot);
        let sketches = match (store.sketch_options(), &damaged_segment) {
            (Some(options), None) => Some(Sketches::new(*options, runs.live_count())),
            _ => None,
        };
        Ok(Reader::over(runs, files, sketches, damaged_segment, store))
    }

    /// A reader of `runs`, with nothing computed yet.
    fn over(
        runs: Runs,
        files: RecordFiles,
        sketches: Option<Sketches>,
        damaged_segment: Option<Unreadable>,
        store: &Arc<Store>,
    ) -> Reader {
        Reader {
            frequent_word_cap: postings::default_frequent_word_cap(runs.part_count()),
            runs,
            books: OnceLock::new(),
            frequent: OnceLock::new(),
            languages: OnceLock::new(),
            lexicons: translations::LexiconCache::default(),
            sketches,
            damaged_segment,
            files,
            store: store.clone(),
            passages: OnceLock::new(),
        }
    }

    /// The snapshot seen through its books' passages
    /// ([`crate::repr::passages`]): a reader whose units are passages
    /// where this one's are parts, for translation search. It reads no
    /// records (passages have none) and has no sketches. `None` when no
    /// segment stores passages.
    pub(crate) fn passage_reader(&self) -> Option<&Reader> {
        self.passages
            .get_or_init(|| {
                let runs = self.runs.passage_view()?;
                let files = RecordFiles::none(&self.store);
                // A view's own segments store no passages: it has no view.
                Some(Box::new(Reader::over(runs, files, None, None, &self.store)))
            })
            .as_deref()
    }

    /// The unique-word postings, every word read, frequent words counted
    /// on first use.
    pub(crate) fn postings(&self) -> Postings<'_> {
        let frequent = self
            .frequent
            .get_or_init(|| Frequent::count(&self.runs, self.frequent_word_cap));
        Postings::all(&self.runs, self.frequent_word_cap, frequent)
    }

    /// The runs of the snapshot.
    pub(crate) fn runs(&self) -> &Runs {
        &self.runs
    }

    /// Sets the cap past which exact mode's counting skips a word as
    /// frequent: words unique in more than `cap` parts (default: half the
    /// parts, and at least 1000). Answers do not change, only
    /// the work: a lower cap scans shorter lists but loosens bounds, so more
    /// books are aligned.
    pub fn with_frequent_word_cap(mut self, cap: u32) -> Reader {
        self.frequent_word_cap = cap;
        self.frequent = OnceLock::new();
        self
    }

    /// Sets whether translation search joins two languages that no
    /// dictionary of the index joins through English, when dictionaries
    /// join each of them to English (default: on): each word's
    /// translations are then the translations of its English ones.
    pub fn with_pivot_translations(mut self, on: bool) -> Reader {
        self.lexicons = translations::LexiconCache::with_pivot(on);
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

    /// Books that have no sketch, so approximate mode cannot find them.
    pub fn unsketched_books(&self) -> usize {
        match &self.sketches {
            None => self.len(),
            Some(_) => self
                .runs
                .live_slots()
                .filter(|&slot| {
                    let (r, position) = self.runs.locate_slot(slot);
                    !self.runs.segments()[r].sketched(position)
                })
                .count(),
        }
    }

    /// The index's bilingual dictionaries, in name order (see
    /// [`Index::add_dictionary`](crate::Index::add_dictionary)).
    pub fn dictionaries(&self) -> Result<Vec<crate::store::dictionaries::DictionaryInfo>> {
        crate::store::dictionaries::list(&self.store)
    }

    /// Every live book, in internal-id order (built on first call: it
    /// reads every book's entry).
    pub fn books(&self) -> &[BookInfo] {
        self.books.get_or_init(|| {
            self.runs
                .live_slots()
                .map(|slot| self.info(slot).unwrap_or_else(|_| self.damaged_info(slot)))
                .collect()
        })
    }

    /// Every live book's features, in id order, with its id: what
    /// [`crate::batch::features`] gives of its document, read from the
    /// index (sequences, simhash, min-hash signature and band keys from
    /// the segments, word positions from the barrels, page signatures from
    /// the page files, the rest from the book's entry), so that
    /// [`crate::BulkLoader::add_features`] rebuilds the book. But an index
    /// keeps neither a book's bytes, nor its invalid UTF-8 sequences, nor
    /// its encoding: those are 0, 0 and empty; and it keeps each page
    /// min-hash as its high 32 bits (`storage-format.md`, page files). An error
    /// for a book whose records cannot be read, or that has no sketch (an
    /// index of format 1, or a damaged sketch segment in one before 7).
    pub fn book_features(
        &self,
    ) -> impl Iterator<Item = Result<(u32, crate::batch::BookFeatures)>> + '_ {
        self.runs
            .live_slots()
            .map(move |slot| Ok((self.runs.id(slot), self.features_of_slot(slot)?)))
    }

    /// The options the index computes features with (see
    /// [`crate::Index::feature_options`]).
    pub fn feature_options(&self) -> Result<crate::batch::FeatureOptions> {
        Ok(crate::batch::FeatureOptions {
            extract: *self.store.extract_options(),
            sketch: *self.store.require_sketches("export book features")?,
            parts: *self.store.part_options(),
        })
    }

    /// The features of the live book in `slot` (see [`Self::book_features`]).
    fn features_of_slot(&self, slot: u32) -> Result<crate::batch::BookFeatures> {
        self.sketches()?;
        let (entry, _) = self.runs.entry(slot)?;
        let (r, position) = self.runs.locate_slot(slot);
        let segment = &self.runs.segments()[r];
        if !segment.sketched(position) {
            return Err(Error::InvalidArgument(format!(
                "book {:?} has no sketch (it was loaded by a build without sketches): \
                 reload it to export its features",
                entry.key
            )));
        }
        let sketch = segment.sketch_record(position);
        let parts = self.parts_of_slot(slot)?;
        let page_minhashes = self.pages_of_slot(slot)?.unwrap_or_default();
        Ok(crate::batch::BookFeatures {
            key: entry.key,
            title: entry.title,
            author: entry.author,
            language: entry.language,
            words: entry.words,
            pages: entry.pages,
            bytes: 0,
            distinct_words: entry.distinct_words,
            invalid_utf8_sequences: 0,
            encoding: String::new(),
            parts,
            keys: sketch.keys,
            simhash: sketch.simhash,
            minhash: sketch.minhash,
            page_minhashes,
        })
    }

    /// The index in [`Reader::books`] of the live book in `slot`.
    pub(crate) fn place_in_books(&self, slot: u32) -> u32 {
        self.runs.place_of(slot)
    }

    /// What the reader knows about the book in `slot`.
    pub(crate) fn info(&self, slot: u32) -> Result<BookInfo> {
        let (entry, _) = self.runs.entry(slot)?;
        Ok(BookInfo {
            id: self.runs.id(slot),
            key: entry.key,
            title: entry.title,
            author: entry.author,
            language: entry.language,
            words: entry.words,
            pages: entry.pages,
            unique_words: entry.unique_words,
            parts: self.part_range(slot).len() as u32,
        })
    }

    /// The info of a book whose entry cannot be read: its id and parts.
    fn damaged_info(&self, slot: u32) -> BookInfo {
        BookInfo {
            id: self.runs.id(slot),
            key: String::new(),
            title: String::new(),
            author: String::new(),
            language: String::new(),
            words: 0,
            pages: 0,
            unique_words: 0,
            parts: self.part_range(slot).len() as u32,
        }
    }

    /// Number of live books.
    pub fn len(&self) -> usize {
        self.runs.live_count()
    }

    /// True when the snapshot holds no book.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The book stored under `key`.
    pub fn book(&self, key: &str) -> Result<BookInfo> {
        self.info(self.slot_of(key)?)
    }

    /// The unique-word sequences of the parts of the book stored under
    /// `key` (one part unless it is a volume), with their word positions:
    /// read from its barrel records.
    pub fn parts(&self, key: &str) -> Result<Vec<UniqueWordSeq>> {
        self.parts_of_slot(self.slot_of(key)?)
    }

    /// The parts of the book in `slot`: each part's elements from its
    /// segment, its word positions from its barrel record (the hashes a
    /// record written before format 11 holds too are the segment's,
    /// `verify` checks).
    pub(crate) fn parts_of_slot(&self, slot: u32) -> Result<Vec<UniqueWordSeq>> {
        let (key, records) = self.records_of_slot(slot)?;
        (records.into_iter().zip(self.part_range(slot)))
            .map(|(record, part)| self.part_sequence(&key, record, part))
            .collect()
    }

    /// The parts of the book in `slot` whose indexes `named` yields, the
    /// others left empty: [`Self::parts_of_slot`] without reading the
    /// elements of parts no hit needs.
    pub(crate) fn named_parts_of_slot(
        &self,
        slot: u32,
        named: impl Iterator<Item = u32>,
    ) -> Result<Vec<UniqueWordSeq>> {
        let (key, records) = self.records_of_slot(slot)?;
        let mut wanted = vec![false; records.len()];
        for index in named {
            if let Some(wanted) = wanted.get_mut(index as usize) {
                *wanted = true;
            }
        }
        (records.into_iter().zip(self.part_range(slot)).zip(wanted))
            .map(|((record, part), wanted)| match wanted {
                true => self.part_sequence(&key, record, part),
                false => Ok(UniqueWordSeq::default()),
            })
            .collect()
    }

    /// Part `index` of the book in `slot` ([`Self::parts_of_slot`] of that
    /// part alone: the other parts' elements are not read); `None` past
    /// its parts.
    pub(crate) fn part_of_slot(&self, slot: u32, index: u32) -> Result<Option<UniqueWordSeq>> {
        let (key, records) = self.records_of_slot(slot)?;
        let record = records.into_iter().nth(index as usize);
        let part = self.part_range(slot).nth(index as usize);
        match (record, part) {
            (Some(record), Some(part)) => self.part_sequence(&key, record, part).map(Some),
            _ => Ok(None),
        }
    }

    /// The key of the book in `slot` and its barrel records, one a part.
    fn records_of_slot(&self, slot: u32) -> Result<(String, Vec<Record>)> {
        let (entry, _) = self.runs.entry(slot)?;
        let book = BookRef {
            id: self.runs.id(slot),
            key: &entry.key,
            unique_words: entry.unique_words,
        };
        let records = self.files.book_record(book, RecordPlace::of(&entry))?;
        let parts = self.part_range(slot).len();
        if records.len() != parts {
            return Err(self.parts_disagree(&entry.key, records.len(), parts));
        }
        Ok((entry.key.clone(), records))
    }

    /// The sequence of part `part` (of the book stored under `key`): its
    /// elements from its segment, its positions from `record`.
    fn part_sequence(&self, key: &str, record: Record, part: u32) -> Result<UniqueWordSeq> {
        let hashes = self.runs.part_hashes(part).to_vec();
        if hashes.len() != record.positions.len() {
            return Err(self.parts_disagree(key, record.positions.len(), hashes.len()));
        }
        Ok(UniqueWordSeq {
            hashes,
            positions: record.positions,
        })
    }

    /// The error for a book whose barrel records (`in_barrel` parts or
    /// elements) disagree with its segment (`in_segment`).
    fn parts_disagree(&self, key: &str, in_barrel: usize, in_segment: usize) -> Error {
        Error::corrupted(
            self.store.catalog().path().to_path_buf(),
            format!(
                "book {key:?}: its barrel records hold {in_barrel} parts or elements where its segment holds {in_segment}"
            ),
        )
    }

    /// The page signatures of the book in `slot`: `None` when it has none.
    pub(crate) fn pages_of_slot(&self, slot: u32) -> Result<Option<Vec<crate::repr::MinHashSig>>> {
        let (entry, locator) = self.runs.entry(slot)?;
        if entry.pages <= 1 {
            return Ok(None);
        }
        let book = BookRef {
            id: self.runs.id(slot),
            key: &entry.key,
            unique_words: entry.unique_words,
        };
        self.files.pages(book, locator)
    }

    /// The parts (planner units) of the book in `slot`.
    pub(crate) fn part_range(&self, slot: u32) -> std::ops::Range<u32> {
        self.runs.part_range(slot)
    }

    /// The book slot of part `part`.
    pub(crate) fn book_of_part(&self, part: u32) -> u32 {
        self.runs.book_of_part(part)
    }

    /// Parts in the snapshot, all books together (dead books' included,
    /// until a compaction drops them).
    pub fn part_count(&self) -> usize {
        self.runs.part_count()
    }

    /// The unique-word hashes of each part of the book stored under `key`,
    /// in text order (its sequences without the positions).
    pub fn hashes(&self, key: &str) -> Result<Vec<Vec<u32>>> {
        let slot = self.slot_of(key)?;
        Ok(self
            .part_range(slot)
            .map(|part| self.runs.part_hashes(part).to_vec())
            .collect())
    }

    /// The slot of the book stored under `key`: `UnknownKey` when there is
    /// none, `InvalidArgument` when `key` breaks the key rule
    /// ([`crate::keys::check_key`]) and so names no book a load could store.
    fn slot_of(&self, key: &str) -> Result<u32> {
        self.runs.slot_of_key(key).ok_or_else(|| {
            crate::keys::invalid_key(key).unwrap_or_else(|| Error::UnknownKey(key.to_string()))
        })
    }

    /// Aligns two stored books, found by key.
    pub fn align_books(&self, a: &str, b: &str) -> Result<crate::align::Overlap> {
        let (a, b) = (self.slot_of(a)?, self.slot_of(b)?);
        Ok(self.pair_verifier().verify_pair(a, b))
    }

    /// A verifier of stored pairs that keeps its scratch between calls.
    pub fn pair_verifier(&self) -> PairVerifier<'_> {
        PairVerifier {
            reader: self,
            join: postings::Join::new(self.part_count()),
        }
    }

    /// Books related to the stored book `key` (the book itself excluded),
    /// each with its best pair of parts and where the match lies.
    /// `UnknownKey` when no book is stored under `key`, `InvalidArgument`
    /// when `key` breaks the key rule ([`crate::keys::check_key`]).
    pub fn query_key(&self, key: &str, options: &QueryOptions) -> Result<QueryResult> {
        let slot = self.slot_of(key)?;
        let query = QueryBook::Stored(slot);
        let mut result = match options.mode {
            Mode::Exact => self.query_exact(&query, options),
            Mode::Approximate => {
                let sketches = self.sketches()?;
                let keys = sketches.keys_of_slot(self, slot);
                let simhash = sketches.simhash_of_slot(self, slot);
                self.query_bands(&query, &keys, simhash, options)
            }
        }?;
        result.language = self.runs.entry(slot)?.0.language;
        if options.translations {
            self.add_translations(&query, options, &mut result)?;
        }
        Ok(result)
    }

    /// Books related to a new text, extracted (and cut into parts when it
    /// is a volume) with the index's options. Its language is detected
    /// ([`crate::lang::detect`]).
    pub fn query_text(&self, text: &[u8], options: &QueryOptions) -> Result<QueryResult> {
        let decoded = decode(text);
        let (query_text, bands) = match options.mode {
            Mode::Exact => (
                self.query_text_of(&decoded.text, options.translations),
                None,
            ),
            Mode::Approximate => {
                let sketches = self.sketches()?;
                let (query_text, sketch) =
                    self.query_text_sketched(&decoded.text, options.translations, sketches);
                (query_text, Some(sketches.keys_of_sketch(&sketch)))
            }
        };
        let query = QueryBook::Text(&query_text);
        let mut result = match bands {
            None => self.query_exact(&query, options),
            Some((keys, simhash)) => self.query_bands(&query, &keys, simhash, options),
        }?;
        result.language = crate::lang::detect(&decoded.text).to_string();
        if options.translations {
            self.add_translations(&query, options, &mut result)?;
        }
        Ok(result)
    }

    /// The parts of a new text, as a load would store them.
    pub fn text_parts(&self, text: &[u8]) -> Vec<UniqueWordSeq> {
        self.parts_and_words(&decode(text).text).0
    }

    /// A decoded text as a load would store it, its passages cut too when
    /// `with_passages`.
    pub(crate) fn query_text_of(&self, text: &str, with_passages: bool) -> QueryText {
        self.query_text_with(text, with_passages, |_, _| {})
    }

    /// [`Reader::query_text_of`] and the text's sketch with `sketches`'
    /// options ([`BookSketch::compute`]), from the one tokenising pass,
    /// as a load takes them.
    fn query_text_sketched(
        &self,
        text: &str,
        with_passages: bool,
        sketches: &Sketches,
    ) -> (QueryText, BookSketch) {
        let mut sketcher = sketches.sketcher_of(text);
        let query_text = self.query_text_with(text, with_passages, |token, hash| {
            sketcher.hashed_token(token, hash)
        });
        (query_text, sketcher.finish())
    }

    /// [`Reader::query_text_of`], also giving every token of the text to
    /// `also`, from the extraction's one tokenising pass ([`extract_with`]).
    fn query_text_with(
        &self,
        text: &str,
        with_passages: bool,
        also: impl FnMut(Token<'_>, Option<WordHash>),
    ) -> QueryText {
        let options = self.store.extract_options();
        let part_options = self.store.part_options();
        let (features, book_words) = extract_with(text, options, Some(part_options), also);
        let words = features.words;
        let passages = match with_passages {
            true => passages_of(text, book_words.as_ref(), words, options),
            false => Vec::new(),
        };
        let parts = parts_of(
            text,
            book_words.as_ref(),
            features.words,
            features.sequence,
            options,
            part_options,
        );
        QueryText {
            parts,
            passages,
            words,
        }
    }

    /// The parts of a decoded text, as a load would store them, and its
    /// word count.
    fn parts_and_words(&self, text: &str) -> (Vec<UniqueWordSeq>, u64) {
        let query_text = self.query_text_of(text, false);
        (query_text.parts, query_text.words)
    }
}

/// The runs of a format-7 index: its listed segments, mapped, with its dead
/// books. A segment that cannot be opened is `Corrupted` naming it, unless
/// it is missing and this is not the `last_attempt` (then an `Io` error:
/// the caller retries on a fresh snapshot, a compaction removed it).
fn mapped_runs(store: &Store, snapshot: &CatalogSnapshot<'_>, last_attempt: bool) -> Result<Runs> {
    let mut segments = Vec::new();
    for (n, _) in snapshot.segments()? {
        let path = store.segment_path(n);
        let segment = Segment::open(&path).map_err(|error| match error {
            Error::Io { ref source, .. }
                if source.kind() == std::io::ErrorKind::NotFound && !last_attempt =>
            {
                error
            }
            other => Unreadable::of(&path, &other).error(
                "a reader needs every listed segment (it holds its books' sequences); \
                 `stemmata verify` names the books to reload",
            ),
        })?;
        if !segment.has_books() {
            return Err(Error::corrupted(
                &path,
                format!(
                    "a version-{} segment in a format-{} index has no book sections",
                    segment.version(),
                    store.format_version()
                ),
            ));
        }
        segments.push(segment);
    }
    Ok(Runs::new(segments, &snapshot.dead_books()?))
}

/// The runs of an index before format 7, built in memory as one segment
/// from its catalog, barrels and segments
/// ([`crate::store::segments::books_from_catalog`]). A listed segment that
/// cannot be read leaves every book unsketched and is returned, unless it
/// is missing and this is not the last attempt (then an `Io` error, to
/// retry).
fn legacy_runs(
    store: &Store,
    snapshot: &CatalogSnapshot<'_>,
    last_attempt: bool,
) -> Result<(Runs, Option<Unreadable>)> {
    let (books, damaged) =
        crate::store::segments::books_from_catalog(store, snapshot, last_attempt)?;
    let k = store.sketch_options().map_or(1, |o| o.book.num_hashes);
    let bytes = segment::encode(books, k)?;
    let segment = Segment::in_memory(bytes, store.catalog().path())?;
    Ok((Runs::new(vec![segment], &[]), damaged))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Document, Index};

    /// An approximate text query sketches the text in its extraction's
    /// pass: the same parts, passages and sketch as two passes give, for
    /// a book, a volume cut into parts and a text with pages.
    #[test]
    fn a_text_sketched_in_its_extraction_pass_is_sketched_as_alone() {
        let dir = tempfile::tempdir().unwrap();
        let index = Index::builder().parts(64, 32).create(dir.path()).unwrap();
        let stored = (0..300).map(|i| format!("w{}", i % 97)).collect::<Vec<_>>();
        let mut loader = index.bulk_loader(crate::LoadOptions::default()).unwrap();
        loader.add(Document::new("a", stored.join(" "))).unwrap();
        loader.finish().unwrap();
        let reader = index.reader().unwrap();
        let sketches = reader.sketches().unwrap();
        let words = |n: usize| {
            (0..n)
                .map(|i| format!("v{}", i * 7 % 53))
                .collect::<Vec<_>>()
        };
        let texts = [
            words(40).join(" "),
            words(500).join(" "),
            words(120).join(" ").replace("v3 ", "v3\x0c"),
        ];
        for text in &texts {
            let (query_text, sketch) = reader.query_text_sketched(text, true, sketches);
            let alone = reader.query_text_of(text, true);
            assert_eq!(query_text.parts, alone.parts);
            assert_eq!(query_text.passages, alone.passages);
            assert_eq!(query_text.words, alone.words);
            let options = reader.store.sketch_options().unwrap();
            assert_eq!(sketch, BookSketch::compute(text, options));
        }
        assert!(
            reader.query_text_of(&texts[1], false).parts.len() > 1,
            "a volume"
        );
    }
}
