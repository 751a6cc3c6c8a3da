//! Bulk load: documents in, committed books out.
//!
//! The caller's thread feeds documents to worker threads (crossbeam
//! channels) that decode, tokenise once (each token goes to the unique-word
//! extraction and to the sketch: shingles, windows, pages and simhash),
//! extract the unique-word sequence and compress it; the caller's thread then appends the records to a barrel,
//! and the page signatures of books with pages to a page file, in the order
//! the documents were queued (so ids follow input order, and of two
//! documents with one key the later one wins, reported as a
//! [`LoadEvent::DuplicateKey`]: the loader keeps every key it wrote, with
//! its document's source, for that), and, every
//! [`LoadOptions::batch_books`] books, syncs the barrel and the page file,
//! writes the batch's sketches as one segment and commits one catalog
//! transaction that publishes the batch. At the end, the segments the load
//! wrote are merged when they are more than one, so that a bulk load ends
//! as one run (`segments::CompactionCause::fresh`), and segments are
//! compacted when more than 8 are listed (`segments::MAX_SEGMENTS`); a compaction
//! that fails, after every book was committed, is a warning in the stats,
//! not an error. A crash or a
//! dropped loader loses only the uncommitted batch; bytes it wrote past the
//! committed barrel and page-file lengths are ignored and cut off by the
//! next loader; a barrel or page file it started but never committed is
//! removed by the next loader or compaction when it starts.

mod features;
pub mod sources;

use features::book_from_features;
pub use features::{BookFeatures, FeatureOptions};

use crossbeam::channel::{bounded, unbounded, Receiver, Sender};
use std::collections::{BTreeMap, HashMap};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::keys;
use crate::lang;
use crate::repr::parts::parts_of;
use crate::repr::passages::passages_of;
use crate::repr::sketch::Sketcher;
use crate::repr::unique_words::extract_with;
use crate::repr::{ExtractOptions, MinHashSig, PartOptions, SketchOptions, UniqueWordSeq};
use crate::storage::barrel::{BarrelWriter, EncodedSequence, MAX_RECORD_ELEMENTS};
use crate::storage::catalog::{BookEntry, Catalog, CatalogBatch};
use crate::storage::page_files::PageFileWriter;
use crate::storage::pages;
use crate::storage::segment::SketchRecord;
use crate::storage::segment_books::SegmentBook;
use crate::store::segments;
use crate::store::{Store, WriterGuard};
use crate::text::{decode_owned, no_words_reason, unreadable, PAGE_BREAK};

/// One book to load: a key and a text, with an optional title, author and
/// language.
///
/// ```
/// let book = stemmata::Document::new("pg1342", "It is a truth universally acknowledged ...")
///     .with_title("Pride and Prejudice")
///     .with_author("Jane Austen")
///     .with_language("en");
/// assert_eq!(book.title, "Pride and Prejudice");
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Document {
    /// External key; a book already stored under it is replaced.
    ///
    /// A key is 1 to [`MAX_KEY_BYTES`](crate::keys::MAX_KEY_BYTES) (1024)
    /// bytes of UTF-8 with no control character (Unicode Cc: NUL, tab,
    /// newline, carriage return, DEL, the C1 controls) and no white space at
    /// either end ([`crate::keys::check_key`]); a
    /// document whose key breaks this rule is skipped. Of two documents of
    /// one load with the same key the later wins, and the load reports it
    /// ([`LoadEvent::DuplicateKey`], [`LoadStats::duplicate_keys`]).
    pub key: String,
    /// Title (optional).
    pub title: String,
    /// Author (optional).
    pub author: String,
    /// Language (optional): a code (ISO 639-1, 639-3, 639-2/B), a locale
    /// or an English name, stored as its ISO 639-3 code; detected from the
    /// text when empty ([`crate::lang`]).
    pub language: String,
    /// The text as bytes; form feeds separate pages. Invalid UTF-8 is decoded lossily.
    pub text: Vec<u8>,
    /// Where the document came from (a file, or file:line), named in messages.
    pub source_name: String,
}

impl Document {
    /// A document with only a key and a text.
    pub fn new(key: impl Into<String>, text: impl Into<Vec<u8>>) -> Self {
        let key = key.into();
        Document {
            source_name: key.clone(),
            key,
            text: text.into(),
            ..Document::default()
        }
    }

    /// The document with this title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// The document with this author.
    pub fn with_author(mut self, author: impl Into<String>) -> Self {
        self.author = author.into();
        self
    }

    /// The document with this language code.
    pub fn with_language(mut self, language: impl Into<String>) -> Self {
        self.language = language.into();
        self
    }

    /// The document named `source_name` in messages (a file, or
    /// file:line), rather than by its key.
    pub fn with_source_name(mut self, source_name: impl Into<String>) -> Self {
        self.source_name = source_name.into();
        self
    }
}

/// Settings of one bulk load: [`LoadOptions::default`] and the setters.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Worker threads for feature extraction. Default: available cores.
    pub threads: usize,
    /// Books per catalog commit. Default 1000, at least 1.
    pub batch_books: usize,
    /// A barrel or page file is closed and a new one started once it
    /// exceeds this size. Default 1 GiB.
    pub max_barrel_bytes: u64,
    /// Whether books are also stored as passages
    /// ([`crate::repr::passages`]), the unit translation search needs to
    /// find a translated work inside a volume. Default `None`: when the
    /// index holds a dictionary ([`crate::Index::add_dictionary`]), so an
    /// index without one is as small as before.
    pub passages: Option<bool>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            batch_books: 1000,
            max_barrel_bytes: crate::store::layout::DEFAULT_MAX_FILE_BYTES,
            passages: None,
        }
    }
}

impl LoadOptions {
    /// Worker threads for feature extraction, at least 1.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Books per catalog commit, at least 1.
    pub fn batch_books(mut self, batch_books: usize) -> Self {
        self.batch_books = batch_books;
        self
    }

    /// Size past which a barrel or page file is closed and a new one started.
    pub fn max_barrel_bytes(mut self, bytes: u64) -> Self {
        self.max_barrel_bytes = bytes;
        self
    }

    /// Stores books as passages too (`true`) or not (`false`), whether
    /// or not the index holds a dictionary (see [`Self::passages`]).
    pub fn passages(mut self, passages: bool) -> Self {
        self.passages = Some(passages);
        self
    }
}

/// Something that happened during a load, for progress reporting.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum LoadEvent<'a> {
    /// A book was written (it becomes visible at the next commit).
    Added {
        /// Its key.
        key: &'a str,
        /// Input bytes of the document.
        bytes: u64,
    },
    /// A document was rejected and skipped; the load goes on.
    Skipped {
        /// Where it came from.
        source_name: &'a str,
        /// Why.
        reason: &'a str,
    },
    /// A document was not valid UTF-8 (or UTF-16); it was loaded, decoded
    /// lossily or, when most of its non-ASCII bytes were invalid, as
    /// windows-1252.
    InvalidUtf8 {
        /// Where it came from.
        source_name: &'a str,
        /// How many invalid byte sequences it held.
        invalid_sequences: u64,
        /// The encoding it was decoded as.
        decoded_as: &'static str,
    },
    /// A document has the key of an earlier document of the same load: it
    /// replaces that one (the later document wins).
    DuplicateKey {
        /// The key.
        key: &'a str,
        /// Where the later document, the one kept, came from.
        source_name: &'a str,
        /// Where the earlier document, now replaced, came from.
        earlier_source_name: &'a str,
    },
    /// A batch was committed: `books` books are now durable and visible.
    Committed {
        /// Books committed by this load so far.
        books: u64,
    },
}

/// A skipped document and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SkippedDocument {
    /// Where it came from.
    pub source_name: String,
    /// Why it was skipped.
    pub reason: String,
}

/// A key given to two documents of one load.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DuplicateKey {
    /// The key.
    pub key: String,
    /// Where the later document, the one kept, came from.
    pub source_name: String,
    /// Where the earlier document, which it replaced, came from.
    pub earlier_source_name: String,
}

/// What a load did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LoadStats {
    /// Books committed.
    pub books: u64,
    /// Internal id of the first book this load added; every book it added
    /// has this id or a higher one (see [`crate::PairsOptions::from_id`]).
    pub first_id: Option<u32>,
    /// Books that replaced a book stored by an earlier load under the same
    /// key (a key repeated within this load is in `duplicate_keys` instead).
    pub replaced: u64,
    /// Documents of this load whose key an earlier document of this load
    /// had: each replaced that earlier document.
    pub duplicate_keys: Vec<DuplicateKey>,
    /// Input bytes of committed books.
    pub bytes: u64,
    /// Words in committed books.
    pub words: u64,
    /// Documents that had invalid UTF-8 (decoded lossily).
    pub invalid_utf8_documents: u64,
    /// Documents skipped, with reasons.
    pub skipped: Vec<SkippedDocument>,
    /// Catalog commits.
    pub commits: u64,
    /// Problems met after the books were committed, which the load survived:
    /// a failed compaction of the sketch segments, or a damaged segment
    /// left out of it (each says what to do).
    pub warnings: Vec<String>,
    /// Wall time of the load.
    #[serde(serialize_with = "crate::duration_serde::secs")]
    pub elapsed: Duration,
}

/// A document turned into a record, ready to write.
struct Prepared {
    /// The document, its text given up (see `bytes`).
    document: Document,
    /// Bytes of its text.
    bytes: u64,
    /// Its parts' sequences, compressed (one part unless it is a volume).
    parts: Vec<EncodedSequence>,
    /// Bytes its records take together.
    record_len: u32,
    words: u64,
    pages: u32,
    unique_words: u32,
    distinct_words: u32,
    invalid_utf8_sequences: u64,
    encoding: &'static str,
    sketch: SketchRecord,
    /// Its page signatures; empty when it has one page.
    page_signatures: Vec<MinHashSig>,
    /// Each part's unique-word hashes, for the segment's book sections.
    part_hashes: Vec<Vec<u32>>,
    /// Each passage's unique-word hashes, likewise.
    passages: Vec<Vec<u32>>,
}

/// A document checked, decoded and turned into features, nothing encoded
/// yet: what the loader stores and what [`crate::batch::features`] hands to
/// engines outside an index; or the same made from features
/// ([`book_from_features`]).
pub(crate) struct ExtractedBook {
    /// The document, its text given up (see `bytes`).
    pub document: Document,
    /// Bytes of its text.
    pub bytes: u64,
    /// Its parts' unique-word sequences (one part unless it is a volume).
    pub parts: Vec<UniqueWordSeq>,
    /// Its parts' unique words together.
    pub unique_words: u32,
    /// Its passages' unique-word hashes ([`crate::repr::passages`]): none
    /// unless the load stores passages.
    pub passages: Vec<Vec<u32>>,
    pub words: u64,
    pub pages: u32,
    pub distinct_words: u32,
    pub invalid_utf8_sequences: u64,
    pub encoding: &'static str,
    /// Its simhash, book min-hash and band keys (book id 0 until written).
    pub sketch: SketchRecord,
    /// Its page signatures; empty when it has one page.
    pub page_signatures: Vec<MinHashSig>,
}

/// Checks, decodes and extracts one document: its key and text checked,
/// its language found when not given, one tokenising pass for the
/// unique-word extraction and the sketch, the sequence cut into parts
/// (and into passages when `with_passages`). The text is held once:
/// decoded in place when it is UTF-8, and freed before this returns.
pub(crate) fn extract_document(
    mut document: Document,
    options: &ExtractOptions,
    sketch_options: &SketchOptions,
    part_options: &PartOptions,
    with_passages: bool,
) -> Result<ExtractedBook> {
    let source_name = document.source_name.clone();
    let bad = |reason: &str| Error::BadDocument {
        source_name: source_name.clone(),
        reason: reason.to_string(),
    };
    if let Err(reason) = keys::check_key(&document.key) {
        // A document made by `Document::new` is named by its key: a key
        // that cannot be shown on one line is shown escaped and cut.
        let source_name = if document.source_name == document.key {
            keys::display_name(&document.key)
        } else {
            document.source_name.clone()
        };
        return Err(Error::BadDocument {
            source_name,
            reason: format!(
                "bad key {}: {reason} ({})",
                keys::display_key(&document.key),
                keys::KEY_RULE
            ),
        });
    }
    if let Some(reason) = unreadable(&document.text) {
        return Err(bad(reason));
    }
    let bytes = document.text.len() as u64;
    let decoded = decode_owned(std::mem::take(&mut document.text));
    document.language = lang::of_book(&document.language, &decoded.text);
    // One tokenising pass gives the words to the extraction and the sketch.
    let mut sketcher = Sketcher::new(decoded.text.contains(PAGE_BREAK), sketch_options);
    let (mut features, book_words) =
        extract_with(&decoded.text, options, Some(part_options), |token, hash| {
            sketcher.hashed_token(token, hash)
        });
    if features.words == 0 {
        return Err(bad(&no_words_reason(&features.token_stats)));
    }
    // Positions are u32: refuse what could be written but not read back.
    if features.words >= u32::MAX as u64 {
        return Err(bad("too long: over 2^32 words"));
    }
    let passages = match with_passages {
        true => passages_of(&decoded.text, book_words.as_ref(), features.words, options)
            .into_iter()
            .map(|passage| passage.hashes)
            .collect(),
        false => Vec::new(),
    };
    let parts = parts_of(
        &decoded.text,
        book_words.as_ref(),
        features.words,
        std::mem::take(&mut features.sequence),
        options,
        part_options,
    );
    // A part's record holds at most MAX_RECORD_ELEMENTS.
    if parts
        .iter()
        .any(|part| part.len() > MAX_RECORD_ELEMENTS as usize)
    {
        return Err(bad("too long: a part of over 2^26 unique words"));
    }
    let unique_words: u64 = parts.iter().map(|part| part.len() as u64).sum();
    if unique_words > u64::from(u32::MAX) {
        return Err(bad("too long: its parts hold over 2^32 unique words"));
    }
    // A page-file record is at most 4 GiB (its length is a u32).
    let page_bytes = 4 * sketch_options.window_hashes as u64 * u64::from(features.pages);
    if page_bytes >= u64::from(u32::MAX) - 64 {
        return Err(bad("too many pages: their signatures take 4 GiB or more"));
    }
    let sketch = sketcher.finish();
    Ok(ExtractedBook {
        document,
        bytes,
        parts,
        unique_words: unique_words as u32,
        passages,
        words: features.words,
        pages: features.pages,
        distinct_words: features.distinct_words,
        invalid_utf8_sequences: decoded.invalid_sequences,
        encoding: decoded.encoding,
        sketch: SketchRecord::new(0, &sketch, sketch_options),
        page_signatures: sketch.pages,
    })
}

/// The work of a worker thread after [`extract_document`] (or
/// [`book_from_features`]): each part's word positions compressed into
/// its record (its hashes go to the segment).
fn prepare(book: ExtractedBook) -> Result<Prepared> {
    let bad = |reason: &str| Error::BadDocument {
        source_name: book.document.source_name.clone(),
        reason: reason.to_string(),
    };
    // Each part's hashes are kept for the segment; its positions are freed
    // as it is compressed.
    let mut part_hashes = Vec::with_capacity(book.parts.len());
    let mut encoded = Vec::with_capacity(book.parts.len());
    for part in book.parts {
        encoded.push(EncodedSequence::encode(&part.positions)?);
        part_hashes.push(part.hashes);
    }
    // A book's records are read in one piece, whose length is a u32.
    let record_len = u32::try_from(encoded.iter().map(EncodedSequence::record_len).sum::<u64>())
        .map_err(|_| bad("too long: its records take 4 GiB or more"))?;
    Ok(Prepared {
        sketch: book.sketch,
        page_signatures: book.page_signatures,
        part_hashes,
        passages: book.passages,
        unique_words: book.unique_words,
        record_len,
        parts: encoded,
        words: book.words,
        pages: book.pages,
        distinct_words: book.distinct_words,
        invalid_utf8_sequences: book.invalid_utf8_sequences,
        encoding: book.encoding,
        document: book.document,
        bytes: book.bytes,
    })
}

type Progress<'p> = Box<dyn FnMut(&LoadEvent<'_>) + 'p>;

/// What a worker turns into a record: a document, or a book made from
/// features, already checked.
enum Item {
    Document(Document),
    Book(Box<ExtractedBook>),
}

/// A queued item and its place in the input order.
type Work = (u64, Result<Item>);
/// A prepared item and its place in the input order.
type Done = (u64, Result<Prepared>);

/// Prepared documents held while waiting for an earlier one, per worker
/// thread, before queueing more waits for the earliest: bounds the memory a
/// slow document can make the others hold.
const REORDER_PER_THREAD: usize = 16;

/// Loads many documents into an index. Obtain one from [`crate::Index::bulk_loader`].
pub struct BulkLoader<'p> {
    store: Arc<Store>,
    options: LoadOptions,
    _writer: WriterGuard,
    work: Option<Sender<Work>>,
    done: Receiver<Done>,
    workers: Vec<JoinHandle<()>>,
    in_flight: usize,
    /// Place of the next queued item.
    next_queued: u64,
    /// Place of the next item to write.
    next_written: u64,
    /// Prepared items that arrived before an earlier one.
    waiting: BTreeMap<u64, Result<Prepared>>,
    barrel: Option<(u32, BarrelWriter)>,
    next_barrel: u32,
    page_file: Option<PageFileWriter>,
    next_page_file: u32,
    /// Min-hashes per page signature.
    page_hashes: usize,
    /// The index's options, which features loaded must share.
    feature_options: FeatureOptions,
    /// The number of this load's first segment.
    first_segment: u32,
    next_segment: u32,
    /// The books of the current batch, for its segment.
    segment_books: Vec<SegmentBook>,
    batch: CatalogBatch,
    /// Every key written by this load, with the source of its document (an
    /// empty source stands for the key itself, as [`Document::new`] gives).
    keys_written: HashMap<Box<str>, Box<str>>,
    /// Documents of the current batch that repeat a key of this load.
    batch_duplicates: u64,
    stats: LoadStats,
    started: Instant,
    progress: Option<Progress<'p>>,
}

impl std::fmt::Debug for BulkLoader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkLoader")
            .field("dir", &self.store.dir())
            .field("options", &self.options)
            .field("books", &self.stats.books)
            .field("commits", &self.stats.commits)
            .finish_non_exhaustive()
    }
}

impl<'p> BulkLoader<'p> {
    pub(crate) fn new(store: Arc<Store>, options: LoadOptions) -> Result<Self> {
        if options.batch_books == 0 {
            return Err(Error::InvalidArgument(
                "batch_books must be at least 1".into(),
            ));
        }
        crate::threads::check(options.threads)?;
        let writer = store.lock_writer()?;
        let sketch_options = *store.require_sketches("load books")?;
        let next_segment = segments::prepare_dir(&store)?;
        let snapshot = store.catalog().snapshot()?;
        let next_book_id = snapshot.next_book_id()?;
        let barrels = snapshot.barrels()?;
        let page_files = snapshot.page_files()?;
        drop(snapshot);
        let next_barrel = barrels.last().map_or(1, |&(n, _)| n + 1);
        let barrel = match barrels.last() {
            Some(&(n, len)) if len < options.max_barrel_bytes => {
                Some((n, BarrelWriter::append_to(&store.barrel_path(n), len)?))
            }
            _ => None,
        };
        let next_page_file = page_files.last().map_or(1, |&(n, _)| n + 1);
        let page_file = match page_files.last() {
            Some(&(n, len)) if len < options.max_barrel_bytes => {
                Some(PageFileWriter::append_to(&store.page_file_path(n), n, len)?)
            }
            _ => None,
        };
        let (work_tx, work_rx) = bounded::<Work>(options.threads * 4);
        let (done_tx, done_rx) = unbounded::<Done>();
        let extract_options = *store.extract_options();
        let part_options = *store.part_options();
        // Passages serve translation search only, which needs a dictionary.
        let with_passages = match options.passages {
            Some(passages) => passages,
            None => !crate::store::dictionaries::list(&store)?.is_empty(),
        };
        let workers = (0..options.threads)
            .map(|_| {
                let (rx, tx) = (work_rx.clone(), done_tx.clone());
                std::thread::Builder::new().spawn(move || {
                    for (place, item) in rx {
                        let result = item
                            .and_then(|item| match item {
                                Item::Document(doc) => extract_document(
                                    doc,
                                    &extract_options,
                                    &sketch_options,
                                    &part_options,
                                    with_passages,
                                ),
                                Item::Book(book) => Ok(*book),
                            })
                            .and_then(prepare);
                        if tx.send((place, result)).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(crate::threads::spawn_failed)?;
        Ok(BulkLoader {
            store,
            options,
            _writer: writer,
            work: Some(work_tx),
            done: done_rx,
            workers,
            in_flight: 0,
            next_queued: 0,
            next_written: 0,
            waiting: BTreeMap::new(),
            barrel,
            next_barrel,
            page_file,
            next_page_file,
            page_hashes: sketch_options.window_hashes,
            feature_options: FeatureOptions {
                extract: extract_options,
                sketch: sketch_options,
                parts: part_options,
            },
            first_segment: next_segment,
            next_segment,
            segment_books: Vec::new(),
            batch: CatalogBatch {
                next_book_id,
                ..CatalogBatch::default()
            },
            keys_written: HashMap::new(),
            batch_duplicates: 0,
            stats: LoadStats::default(),
            started: Instant::now(),
            progress: None,
        })
    }

    /// Calls `f` for every event of the load ([`LoadEvent`]: added,
    /// skipped, invalid UTF-8, duplicate key, committed).
    pub fn on_progress(&mut self, f: impl FnMut(&LoadEvent<'_>) + 'p) {
        self.progress = Some(Box::new(f));
    }

    /// Queues one document.
    pub fn add(&mut self, document: Document) -> Result<()> {
        self.submit(Ok(document))
    }

    /// Queues an item from a document source: an `Err` is recorded as a
    /// skipped document (it names its file) and the load goes on.
    pub fn submit(&mut self, item: Result<Document>) -> Result<()> {
        self.queue(item.map(Item::Document))
    }

    /// Queues a book given by its features (read from a Parquet file of
    /// `docs/batch-format.md`, say), computed with `options`, named
    /// `source_name` in messages: it is stored as its document would be.
    /// The features are checked first ([`BookFeatures::check`]): an error
    /// (`InvalidArgument` when `options` are not the index's, `BadDocument`
    /// naming `source_name` and the problem when the features are not
    /// what a document gives) queues nothing.
    pub fn add_features(
        &mut self,
        features: BookFeatures,
        options: &FeatureOptions,
        source_name: &str,
    ) -> Result<()> {
        let book = book_from_features(features, options, &self.feature_options, source_name)?;
        self.queue(Ok(Item::Book(Box::new(book))))
    }

    /// Queues an item for the workers, in input order.
    fn queue(&mut self, item: Result<Item>) -> Result<()> {
        let work = self.work.as_ref().expect("work channel open until finish");
        work.send((self.next_queued, item))
            .map_err(|_| Error::InvalidArgument("loader workers stopped".into()))?;
        self.next_queued += 1;
        self.in_flight += 1;
        while let Ok(done) = self.done.try_recv() {
            self.arrive(done)?;
        }
        while self.waiting.len() >= REORDER_PER_THREAD * self.options.threads {
            self.receive()?;
        }
        Ok(())
    }

    /// Waits for one prepared item and writes what is then in order.
    fn receive(&mut self) -> Result<()> {
        let done = self
            .done
            .recv()
            .map_err(|_| Error::InvalidArgument("loader workers stopped".into()))?;
        self.arrive(done)
    }

    /// Takes a prepared item and writes every item now in input order.
    fn arrive(&mut self, (place, result): Done) -> Result<()> {
        self.in_flight -= 1;
        self.waiting.insert(place, result);
        while let Some(result) = self.waiting.remove(&self.next_written) {
            self.next_written += 1;
            self.write(result)?;
        }
        Ok(())
    }

    /// Queues every item of `items` (see [`submit`](Self::submit)).
    pub fn extend(&mut self, items: impl IntoIterator<Item = Result<Document>>) -> Result<()> {
        items.into_iter().try_for_each(|item| self.submit(item))
    }

    fn emit(&mut self, event: LoadEvent<'_>) {
        if let Some(progress) = self.progress.as_mut() {
            progress(&event);
        }
    }

    fn skip(&mut self, source_name: String, reason: String) {
        self.emit(LoadEvent::Skipped {
            source_name: &source_name,
            reason: &reason,
        });
        self.stats.skipped.push(SkippedDocument {
            source_name,
            reason,
        });
    }

    fn write(&mut self, result: Result<Prepared>) -> Result<()> {
        let prepared = match result {
            Ok(prepared) => prepared,
            Err(Error::BadDocument {
                source_name,
                reason,
            }) => {
                self.skip(source_name, reason);
                return Ok(());
            }
            Err(other) => {
                let source_name = match &other {
                    Error::Io { path, .. } => path.display().to_string(),
                    _ => String::from("input"),
                };
                self.skip(source_name, other.to_string());
                return Ok(());
            }
        };
        let id = self.batch.next_book_id;
        self.stats.first_id.get_or_insert(id);
        self.batch.next_book_id = id.checked_add(1).ok_or_else(|| {
            Error::InvalidArgument("index holds the maximum of 2^32 book ids".into())
        })?;
        let (barrel_number, barrel) = self.current_barrel()?;
        let offset = barrel.append(id, &prepared.parts[0]);
        for part in &prepared.parts[1..] {
            barrel.append(id, part);
        }
        let mut sketch = prepared.sketch;
        sketch.book_id = id;
        let mut page_locator = None;
        if !prepared.page_signatures.is_empty() {
            let record = pages::encode_record(id, &prepared.page_signatures, self.page_hashes);
            let locator = self.current_page_file()?.append(&record)?;
            self.batch.pages.push((id, locator));
            page_locator = Some(locator);
        }
        let document = prepared.document;
        let bytes = prepared.bytes;
        self.stats.bytes += bytes;
        self.stats.words += prepared.words;
        if prepared.invalid_utf8_sequences > 0 {
            self.stats.invalid_utf8_documents += 1;
            self.emit(LoadEvent::InvalidUtf8 {
                source_name: &document.source_name,
                invalid_sequences: prepared.invalid_utf8_sequences,
                decoded_as: prepared.encoding,
            });
        }
        self.note_key(&document);
        self.emit(LoadEvent::Added {
            key: &document.key,
            bytes,
        });
        let entry = BookEntry {
            key: document.key,
            title: document.title,
            author: document.author,
            language: document.language,
            words: prepared.words,
            pages: prepared.pages,
            unique_words: prepared.unique_words,
            distinct_words: prepared.distinct_words,
            barrel: barrel_number,
            offset,
            record_len: prepared.record_len,
        };
        self.segment_books.push(SegmentBook {
            sketch,
            sketched: true,
            entry: entry.clone(),
            pages: page_locator,
            parts: prepared.part_hashes,
            passages: prepared.passages,
        });
        self.batch.insert.push((id, entry));
        if self.batch.insert.len() >= self.options.batch_books {
            self.commit()?;
        }
        Ok(())
    }

    /// Records the key of a written document; reports it when an earlier
    /// document of this load had it.
    fn note_key(&mut self, document: &Document) {
        let source: Box<str> = if document.source_name == document.key {
            Box::default()
        } else {
            document.source_name.as_str().into()
        };
        let Some(earlier) = self
            .keys_written
            .insert(document.key.as_str().into(), source)
        else {
            return;
        };
        let earlier_source_name = match &*earlier {
            "" => document.key.clone(),
            name => name.to_string(),
        };
        self.batch_duplicates += 1;
        self.emit(LoadEvent::DuplicateKey {
            key: &document.key,
            source_name: &document.source_name,
            earlier_source_name: &earlier_source_name,
        });
        self.stats.duplicate_keys.push(DuplicateKey {
            key: document.key.clone(),
            source_name: document.source_name.clone(),
            earlier_source_name,
        });
    }

    fn current_barrel(&mut self) -> Result<(u32, &mut BarrelWriter)> {
        if self.barrel.is_none() {
            let number = self.next_barrel;
            let writer = BarrelWriter::create(&self.store.barrel_path(number))?;
            self.next_barrel += 1;
            self.barrel = Some((number, writer));
        }
        let (number, writer) = self.barrel.as_mut().expect("barrel opened above");
        Ok((*number, writer))
    }

    fn current_page_file(&mut self) -> Result<&mut PageFileWriter> {
        if self.page_file.is_none() {
            let number = self.next_page_file;
            let writer = PageFileWriter::create(&self.store.page_file_path(number), number)?;
            self.next_page_file += 1;
            self.page_file = Some(writer);
        }
        Ok(self.page_file.as_mut().expect("page file opened above"))
    }

    /// Syncs the barrel and the page file and publishes the batch in one
    /// catalog transaction.
    fn commit(&mut self) -> Result<()> {
        if self.batch.insert.is_empty() {
            return Ok(());
        }
        let (number, barrel) = self.barrel.as_mut().expect("a batch implies a barrel");
        let length = barrel.sync()?;
        self.batch.barrel_lengths = vec![(*number, length)];
        self.batch.page_file_lengths = match self.page_file.as_mut() {
            Some(file) => vec![(file.number(), file.sync()?)],
            None => Vec::new(),
        };
        let segment = self.next_segment;
        let books = std::mem::take(&mut self.segment_books);
        let segment_len = segments::write(&self.store, segment, books)?;
        self.next_segment += 1;
        self.batch.add_segments = vec![(segment, segment_len)];
        let outcome = match self.store.catalog().commit(&self.batch) {
            Ok(outcome) => outcome,
            Err(error) => return Err(self.commit_failed(error, segment)),
        };
        self.stats.books += self.batch.insert.len() as u64;
        // The catalog counts every key it found in place, the keys this load
        // wrote before included: those are duplicates, not replacements.
        self.stats.replaced += outcome.replaced.saturating_sub(self.batch_duplicates);
        self.batch_duplicates = 0;
        self.stats.commits += 1;
        self.batch.insert.clear();
        self.batch.pages.clear();
        if length >= self.options.max_barrel_bytes {
            self.barrel = None;
        }
        if let Some(&(_, len)) = self.batch.page_file_lengths.first() {
            if len >= self.options.max_barrel_bytes {
                self.page_file = None;
            }
        }
        let books = self.stats.books;
        self.emit(LoadEvent::Committed { books });
        Ok(())
    }

    /// Writes every queued document and commits the last batch.
    fn write_the_rest(&mut self) -> Result<()> {
        self.write_queued()?;
        self.commit()
    }

    /// The error of a batch whose catalog commit failed with `error`: says
    /// exactly what the load committed, after finding whether the batch
    /// (its segment `segment`) is on disk all the same, as a process
    /// opening the index now would read it. A batch found committed is
    /// counted and reported (`LoadEvent::Committed`).
    fn commit_failed(&mut self, error: Error, segment: u32) -> Error {
        let listed = Catalog::on_disk(self.store.catalog().path())
            .and_then(|catalog| catalog.snapshot()?.segments());
        let landed = listed.is_ok_and(|listed| listed.iter().any(|&(n, _)| n == segment));
        if landed {
            self.stats.books += self.batch.insert.len() as u64;
            self.stats.commits += 1;
            self.batch.insert.clear();
            self.batch.pages.clear();
            let books = self.stats.books;
            self.emit(LoadEvent::Committed { books });
        }
        Error::LoadStopped {
            books: self.stats.books,
            batch_committed: landed,
            source: Box::new(error),
        }
    }

    /// Waits for every queued document, commits the last batch, compacts the
    /// sketch segments and returns what the load did. Every book is
    /// committed before the compaction, so a failed compaction does not fail
    /// the load: it is listed in [`LoadStats::warnings`].
    pub fn finish(mut self) -> Result<LoadStats> {
        self.work = None;
        match self.write_the_rest() {
            // The last batch is on disk: every book of the load is
            // committed, and the error is a warning, not a failure.
            Err(Error::LoadStopped {
                batch_committed: true,
                source,
                ..
            }) if self.in_flight == 0 && self.waiting.is_empty() => {
                self.stats.warnings.push(format!(
                    "the catalog reported an error while committing the last batch ({source}), \
                     but the batch is on disk: every book of this load is committed; `verify` \
                     checks the index"
                ))
            }
            other => other?,
        }
        Ok(self.wind_up())
    }

    /// Ends a load whose source failed part way: writes every document
    /// queued so far and commits each complete batch of them (as
    /// [`finish`](Self::finish) would), but drops the last batch when it
    /// is incomplete; returns what was committed. A caller that reports its
    /// source's error after this has committed exactly the whole batches of
    /// the documents before it.
    pub fn stop(mut self) -> Result<LoadStats> {
        self.work = None;
        self.write_queued()?;
        Ok(self.wind_up())
    }

    /// Writes every queued document (committing each batch it fills).
    fn write_queued(&mut self) -> Result<()> {
        while self.in_flight > 0 {
            self.receive()?;
        }
        Ok(())
    }

    /// Once every batch to commit is committed: joins the workers,
    /// compacts the segments (a failure is a warning) and returns the
    /// load's stats.
    fn wind_up(&mut self) -> LoadStats {
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
        let cause = segments::CompactionCause {
            fresh: self.first_segment..self.next_segment,
            ..segments::CompactionCause::default()
        };
        let warnings = segments::compact_after_commit(&self.store, self.next_segment, &cause);
        self.stats.warnings.extend(warnings);
        self.stats.elapsed = self.started.elapsed();
        std::mem::take(&mut self.stats)
    }
}

impl Drop for BulkLoader<'_> {
    fn drop(&mut self) {
        self.work = None;
        while self.done.recv().is_ok() {}
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}
