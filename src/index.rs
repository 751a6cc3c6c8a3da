//! `Index`: the facade over one index directory. Creating and opening it,
//! and the entry points of loads, queries, deletes, statistics and
//! `verify`, each of which lives in its own module over the store.
//!
//! An index directory is opened for writing by one process at a time;
//! inside it, any number of [`Reader`]s and one [`BulkLoader`] work side by
//! side. Opening a directory that this process has open already returns
//! the same index (it shares one catalog handle).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use crate::compact::{CompactProgress, CompactStats};
use crate::delete::DeleteStats;
use crate::error::{Error, IoContext, Result};
use crate::images::learn::LearnOptions;
use crate::images::pages::PageFiles;
use crate::load::{sources, BulkLoader, Document, LoadOptions, LoadStats};
use crate::query::Reader;
use crate::repr::sketch::{BandLayout, SketchOptions};
use crate::repr::{ExtractOptions, PartOptions};
use crate::storage::catalog::Access;
use crate::store::dictionaries::DictionaryInfo;
use crate::store::image_model::ImageModel;
use crate::store::word_image_search::WordImageSearch;
use crate::store::word_images::{ImageBookInfo, ImagesProgress};
use crate::store::Store;
use crate::translate::lexicon::Lexicon;
use crate::upgrade::UpgradeStats;
use crate::verify::VerifyStats;

/// Sets the creation options of a new index. Every option here changes what
/// stored data means, so it is stored in the catalog and fixed for the index.
#[derive(Debug, Clone, Default)]
pub struct IndexBuilder {
    options: ExtractOptions,
    sketch: SketchOptions,
    parts: PartOptions,
}

impl IndexBuilder {
    /// Seed of the 32-bit word hash. Default [`crate::repr::DEFAULT_HASH_SEED`].
    pub fn hash_seed(mut self, seed: u64) -> Self {
        self.options.hash_seed = seed;
        self
    }

    /// M: words occurring at most this often enter the sequence. Default 1, valid 1..=16.
    pub fn max_term_freq(mut self, m: u32) -> Self {
        self.options.max_term_freq = m;
        self
    }

    /// Window of the alphabetical-list guard in unique words; 0 disables it.
    /// Default 64, valid 0 or 8..=4096.
    pub fn alpha_window(mut self, window: u32) -> Self {
        self.options.alpha_window = window;
        self
    }

    /// Band layout of book min-hash signatures. Default 20×5.
    pub fn book_bands(mut self, layout: BandLayout) -> Self {
        self.sketch.book_layout = layout;
        self
    }

    /// Band layout of window min-hash signatures. Default 17×2.
    pub fn window_bands(mut self, layout: BandLayout) -> Self {
        self.sketch.window_layout = layout;
        self
    }

    /// Mean shingles per content-defined window. Default 800, valid 16..=2^20.
    pub fn window_shingles(mut self, shingles: u32) -> Self {
        self.sketch.window_shingles = shingles;
        self
    }

    /// Books with more words than `volume_words` are cut into overlapping
    /// parts of `part_words` words (defaults 131,072 and 32,768; see
    /// [`PartOptions`]).
    pub fn parts(mut self, volume_words: u32, part_words: u32) -> Self {
        self.parts = PartOptions {
            volume_words,
            part_words,
        };
        self
    }

    /// All sketch options at once (see [`SketchOptions`]).
    pub fn sketch_options(mut self, sketch: SketchOptions) -> Self {
        self.sketch = sketch;
        self
    }

    /// Every option at once, as features are computed with them (see
    /// [`crate::batch::FeatureOptions`]): an index that takes features
    /// computed elsewhere.
    pub fn feature_options(mut self, options: crate::batch::FeatureOptions) -> Self {
        self.options = options.extract;
        self.sketch = options.sketch;
        self.parts = options.parts;
        self
    }

    /// Creates the index in `dir` (made if missing). `Err(AlreadyExists)` if
    /// `dir` already holds one.
    pub fn create(self, dir: impl AsRef<Path>) -> Result<Index> {
        self.options.validate()?;
        self.sketch.validate()?;
        self.parts.validate()?;
        let dir = dir.as_ref();
        Store::create(dir, &self.options, &self.sketch, &self.parts)?;
        Index::open(dir)
    }
}

/// An open index directory. Cheap to clone; clones share one catalog.
///
/// ```
/// use stemmata::Index;
///
/// # fn main() -> stemmata::Result<()> {
/// let dir = tempfile::tempdir()?;
/// let index = Index::open_or_create(dir.path().join("books"))?;
/// let again = Index::open(dir.path().join("books"))?; // the same index
/// assert_eq!(index.stats()?.books, again.stats()?.books);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Index {
    pub(crate) store: Arc<Store>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("dir", &self.store.dir())
            .field("format_version", &self.format_version())
            .field("read_only", &self.is_read_only())
            .finish()
    }
}

/// The indexes this process has open, by canonical directory and access,
/// so that opening one again shares its catalog instead of failing on the
/// catalog's lock.
type OpenIndexes = Mutex<HashMap<(PathBuf, Access), Weak<Store>>>;

fn open_indexes() -> &'static OpenIndexes {
    static OPEN: std::sync::OnceLock<OpenIndexes> = std::sync::OnceLock::new();
    OPEN.get_or_init(Default::default)
}

impl Index {
    /// A builder for a new index with non-default options.
    pub fn builder() -> IndexBuilder {
        IndexBuilder::default()
    }

    /// Creates an index with default options in `dir`, which must be
    /// missing or empty (`AlreadyExists` if it holds an index,
    /// `InvalidArgument` if it holds anything else).
    pub fn create(dir: impl AsRef<Path>) -> Result<Index> {
        Index::builder().create(dir)
    }

    /// Opens the index in `dir`, creating it with default options when
    /// `dir` holds none (is missing or empty).
    pub fn open_or_create(dir: impl AsRef<Path>) -> Result<Index> {
        let dir = dir.as_ref();
        match Index::open(dir) {
            Err(Error::NotAnIndex(_) | Error::IncompleteIndex(_)) => Index::create(dir),
            other => other,
        }
    }

    /// Opens the index in `dir` for reading and writing: checks the
    /// catalog's format version and every barrel's and page file's header
    /// and committed length. Reads nothing else. One process at a time opens
    /// an index for writing (`Locked` otherwise); readers in other processes
    /// ([`Index::open_read_only`]) may share it meanwhile. Opening it again
    /// in this process returns the index already open. An index of an older
    /// format opens for reading only: its writes are `OldFormat` until it
    /// is upgraded.
    pub fn open(dir: impl AsRef<Path>) -> Result<Index> {
        Index::open_with(dir.as_ref(), Access::ReadWrite)
    }

    /// Opens the index in `dir` for reading only: never writes a byte, needs
    /// only read permission (a read-only file system will do), and shares
    /// the index with any number of other readers and one writer, in this
    /// process or others. Loads and deletes return `ReadOnly`.
    pub fn open_read_only(dir: impl AsRef<Path>) -> Result<Index> {
        Index::open_with(dir.as_ref(), Access::ReadOnly)
    }

    fn open_with(dir: &Path, access: Access) -> Result<Index> {
        let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let key = (canonical, access);
        let mut open = open_indexes().lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|_, store| store.strong_count() > 0);
        if let Some(store) = open.get(&key).and_then(Weak::upgrade) {
            return Ok(Index { store });
        }
        let store = Arc::new(Store::open(dir, access)?);
        open.insert(key, Arc::downgrade(&store));
        Ok(Index { store })
    }

    /// Upgrades the index in `dir` in place to the current format and
    /// returns it opened, with what was done. An index of the current
    /// format is returned as it is. Formats 3 and 4 become the current
    /// format; formats 1 and 2 get a catalog this build reads and keep
    /// their format (read-only: load their collection into a new index to
    /// write). The index must not be open for writing, here or in another
    /// process (`Locked`).
    pub fn upgrade(dir: impl AsRef<Path>) -> Result<(Index, UpgradeStats)> {
        let dir = dir.as_ref();
        let stats = Index::upgrade_in_place(dir)?;
        Ok((Index::open(dir)?, stats))
    }

    /// Upgrades the index in `dir` as [`Index::upgrade`] does, without
    /// opening it afterwards: an index of the current format is only read
    /// (its files are not written, unless a writer that stopped left files
    /// the catalog does not list, which are removed).
    pub fn upgrade_in_place(dir: impl AsRef<Path>) -> Result<UpgradeStats> {
        let dir = dir.as_ref();
        if Index::is_open_here_for_reading_only(dir) {
            // A handle that asked for writing but holds an older format's
            // catalog for reading does not lock out the upgrade's writer; it
            // would be left reading what the upgrade replaces.
            return Err(Error::Locked(dir.to_path_buf()));
        }
        crate::upgrade::upgrade(dir)
    }

    /// Whether this process holds a handle of the index in `dir` opened
    /// with [`Index::open`] and open for reading only (of an older format).
    fn is_open_here_for_reading_only(dir: &Path) -> bool {
        let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let open = open_indexes().lock().unwrap_or_else(|e| e.into_inner());
        let store = open
            .get(&(canonical, Access::ReadWrite))
            .and_then(Weak::upgrade);
        store.is_some_and(|store| store.catalog().access() == Access::ReadOnly)
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        self.store.dir()
    }

    /// Whether the index is open for reading only: opened with
    /// [`Index::open_read_only`], or of a format this build only reads
    /// (which [`Index::open`] opens for reading, so that it writes none of
    /// its bytes; [`Index::upgrade`] makes it writable).
    pub fn is_read_only(&self) -> bool {
        self.store.catalog().access() == Access::ReadOnly
    }

    /// The extraction options the index was created with.
    pub fn options(&self) -> &ExtractOptions {
        self.store.extract_options()
    }

    /// Where the index cuts books into parts ([`PartOptions::NEVER`] for an
    /// index of a format before 6).
    pub fn part_options(&self) -> &PartOptions {
        self.store.part_options()
    }

    /// The sketch options the index was created with; `None` for a
    /// format-1 index, which holds no sketches.
    pub fn sketch_options(&self) -> Option<&SketchOptions> {
        self.store.sketch_options()
    }

    /// The options the index computes a book's features with
    /// ([`crate::batch::features`]): features computed with others cannot
    /// be loaded into it. `OldFormat` for a format-1 index, which holds no
    /// sketches.
    pub fn feature_options(&self) -> Result<crate::batch::FeatureOptions> {
        Ok(crate::batch::FeatureOptions {
            extract: *self.store.extract_options(),
            sketch: *self
                .store
                .require_sketches("export or import book features")?,
            parts: *self.store.part_options(),
        })
    }

    /// The format version the index was written with.
    pub fn format_version(&self) -> u16 {
        self.store.format_version().number()
    }

    /// Starts a bulk load. One loader at a time: a second gets `Err(Locked)`.
    pub fn bulk_loader<'p>(&self, options: LoadOptions) -> Result<BulkLoader<'p>> {
        BulkLoader::new(self.store.clone(), options)
    }

    /// Loads every item of `items` with default [`LoadOptions`]; skipped
    /// documents are listed in the returned stats.
    pub fn load(&self, items: impl IntoIterator<Item = Result<Document>>) -> Result<LoadStats> {
        let mut loader = self.bulk_loader(LoadOptions::default())?;
        loader.extend(items)?;
        loader.finish()
    }

    /// Loads every text file under `dir` (recursively; `.txt` and `.text`,
    /// any case), each under its file name without the extension as key,
    /// with default [`LoadOptions`]. `InvalidArgument` when `dir` holds no
    /// text file.
    pub fn load_dir(&self, dir: impl AsRef<Path>) -> Result<LoadStats> {
        let dir = dir.as_ref();
        let paths = sources::text_file_paths(dir)?;
        if paths.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{}: no text file (.txt or .text) in this directory or below it",
                dir.display()
            )));
        }
        self.load(paths.iter().map(|path| sources::read_text_file(path)))
    }

    /// A snapshot of the index for queries: books loaded later are not in it.
    pub fn reader(&self) -> Result<Reader> {
        Reader::open(&self.store)
    }

    /// Deletes the books stored under `keys` in one transaction; returns how
    /// many existed. Their records stay in the barrels and page files as
    /// dead bytes until [`Index::compact`]. A key that is not stored and
    /// breaks the key rule
    /// ([`crate::keys::check_key`]) is an `InvalidArgument`, and nothing is
    /// deleted; a book stored under such a key by an older build can still
    /// be deleted.
    /// [`Index::delete_books`] also returns the warnings of the compaction
    /// that follows the commit.
    pub fn delete(&self, keys: &[&str]) -> Result<u64> {
        self.delete_books(keys).map(|stats| stats.deleted)
    }

    /// Deletes the books stored under `keys` in one transaction, then
    /// compacts the sketch segments when more than a quarter of the
    /// sketched books is dead. The books are deleted once the transaction
    /// commits, so a compaction that fails after it is a warning in the
    /// result, not an error.
    pub fn delete_books(&self, keys: &[&str]) -> Result<DeleteStats> {
        crate::delete::delete_books(&self.store, keys)
    }

    /// Reclaims the space of deleted and replaced books: rewrites every
    /// barrel and page file holding dead records without them, merges the
    /// sketch segments without dead sketches, and compacts the catalog.
    /// Takes the writer role (`Locked` while a load runs, `ReadOnly` on an
    /// index opened read-only). Readers, in this process or others, keep
    /// answering meanwhile and afterwards, from their snapshots. The
    /// catalog database is compacted only when no other handle of this
    /// index (a clone, a [`Reader`], another `Index::open` of the
    /// directory) is alive and no other process reads it; otherwise
    /// [`CompactStats::warnings`] says so and the rest is done.
    pub fn compact(&mut self) -> Result<CompactStats> {
        self.compact_with_progress(|_| {})
    }

    /// [`Index::compact`], calling `progress` as live records are copied.
    pub fn compact_with_progress(
        &mut self,
        mut progress: impl FnMut(CompactProgress),
    ) -> Result<CompactStats> {
        let mut stats = crate::compact::compact_files(&self.store, &mut progress)?;
        match self.compact_catalog() {
            Some(Ok(())) => stats.catalog_compacted = true,
            Some(Err(error)) => stats.warnings.push(format!(
                "the barrels, page files and segments were compacted, but the catalog could not \
                 be: {error}; the index is valid as it is; compact again when no other process \
                 has the index open"
            )),
            None => stats.warnings.push(
                "the catalog was not compacted: other handles of this index (readers, clones, \
                 other opens of the directory) are alive in this process; compact again once \
                 they are dropped"
                    .to_string(),
            ),
        }
        crate::compact::measure_after(&self.store, &mut stats)?;
        Ok(stats)
    }

    /// Compacts the catalog database when this is the only handle of the
    /// store; `None` otherwise. The store leaves the table of open indexes
    /// meanwhile (its entry would count as a handle), under that table's
    /// lock, so no other open can take it in between.
    fn compact_catalog(&mut self) -> Option<Result<()>> {
        let mut open = open_indexes().lock().unwrap_or_else(|e| e.into_inner());
        let me = Arc::downgrade(&self.store);
        let keys: Vec<_> = open
            .iter()
            .filter(|(_, store)| store.ptr_eq(&me))
            .map(|(key, _)| key.clone())
            .collect();
        for key in &keys {
            open.remove(key);
        }
        drop(me);
        let result = Arc::get_mut(&mut self.store).map(Store::compact_catalog);
        for key in keys {
            open.insert(key, Arc::downgrade(&self.store));
        }
        result
    }

    /// Counts of books, words and bytes.
    pub fn stats(&self) -> Result<IndexStats> {
        let snapshot = self.store.catalog().snapshot()?;
        let books = snapshot.books()?;
        let barrels = snapshot.barrels()?;
        let segments = snapshot.segments()?;
        let page_files = snapshot.page_files()?;
        let dictionaries = snapshot.dictionaries()?;
        let image_books = snapshot.word_images()?;
        let catalog_path = self.store.catalog().path();
        Ok(IndexStats {
            books: books.len() as u64,
            words: books.iter().map(|(_, b)| b.words).sum(),
            unique_words: books.iter().map(|(_, b)| b.unique_words as u64).sum(),
            barrels: barrels.len() as u64,
            barrel_bytes: barrels.iter().map(|&(_, len)| len).sum(),
            live_record_bytes: books.iter().map(|(_, b)| b.record_len as u64).sum(),
            catalog_bytes: std::fs::metadata(catalog_path).at(catalog_path)?.len(),
            segments: segments.len() as u64,
            segment_bytes: segments.iter().map(|&(_, len)| len).sum(),
            page_files: page_files.len() as u64,
            page_file_bytes: page_files.iter().map(|&(_, len)| len).sum(),
            languages: books_per_language(books.iter().map(|(_, b)| b.language.as_str())),
            dictionaries: dictionaries.len() as u64,
            dictionary_bytes: dictionaries.iter().map(|(_, d)| d.bytes).sum(),
            image_books: image_books.len() as u64,
            word_images: image_books.iter().map(|(_, b)| b.words).sum(),
            image_book_bytes: image_books.iter().map(|(_, b)| b.bytes).sum(),
        })
    }

    /// Checks everything: the catalog database itself (every page and tree,
    /// by redb's integrity check on a copy in memory: the file is not
    /// written), every barrel record's checksum and payload, that
    /// every book's catalog entry points at a record of that book, and every
    /// listed segment: its length, checksum and order (as readers do), its
    /// min-hashes per book against the index's sketch options, its band
    /// tables against its books' keys, and that every book is sketched in
    /// exactly one listed segment; and the page signatures: every listed
    /// page file's header and committed length, and that exactly the live
    /// books of more than one page have a locator pointing at a valid
    /// record of that book with one signature per page. A compaction that
    /// removes a listed file while this runs restarts the check on a
    /// fresh snapshot.
    ///
    /// A listed segment that cannot be read (damaged, missing) is reported
    /// after everything else was checked, as `Corrupted` naming it and the
    /// offset of the damage, with the keys of the live books sketched in no
    /// readable segment and the way out: reload them under the same keys,
    /// after which the next compaction drops the damaged segment.
    pub fn verify(&self) -> Result<VerifyStats> {
        crate::verify::verify(&self.store)
    }

    /// Imports the bilingual dictd dictionary of which `path` is a file
    /// (its `.index`, or its `.dict.dz` or `.dict`; see
    /// [`crate::translate::dictionary`]) under its name, the files' stem.
    /// A dictionary of that name already in the index is replaced (import
    /// a dictionary again to update it). The dictionary is read whole
    /// before anything is written: an error (a missing or damaged file,
    /// languages that cannot be told) leaves the index as it was. Takes
    /// the writer role, like a load.
    pub fn add_dictionary(&self, path: &Path) -> Result<DictionaryInfo> {
        crate::store::dictionaries::add(&self.store, path)
    }

    /// Imports `dictionary`, already read from its dictd files
    /// ([`crate::translate::dictionary::Dictionary::read`]), as
    /// [`Index::add_dictionary`] does: so that a caller can check the files
    /// before it opens the index for writing.
    pub fn add_read_dictionary(
        &self,
        dictionary: &crate::translate::dictionary::Dictionary,
    ) -> Result<DictionaryInfo> {
        crate::store::dictionaries::add_read(&self.store, dictionary)
    }

    /// Removes the dictionary `name`: `Ok(None)` when the index has none
    /// of that name, else `Some` of the warnings of what went wrong once
    /// the removal was committed (its file not deleted: the next writer
    /// deletes it).
    pub fn remove_dictionary(&self, name: &str) -> Result<Option<Vec<String>>> {
        crate::store::dictionaries::remove(&self.store, name)
    }

    /// The index's dictionaries, in name order (none before format 8).
    pub fn dictionaries(&self) -> Result<Vec<DictionaryInfo>> {
        crate::store::dictionaries::list(&self.store)
    }

    /// The translation lexicon from language `from` to `to` (ISO 639-3)
    /// of every dictionary of the index joining the two, in either
    /// direction, with the index's word hash; `None` when none joins them.
    /// Each dictionary's file is read and checked (as `verify` does).
    pub fn lexicon(&self, from: &str, to: &str) -> Result<Option<Lexicon>> {
        crate::store::dictionaries::lexicon(&self.store, from, to, false)
    }

    /// Adds the scanned book `key` from its page images, each with its
    /// OCR ([`PageFiles`]; [`PageFiles::beside`] finds the OCR file next to
    /// an image): every word box becomes a word image, described by visual
    /// terms and stored with its OCR word and a crop. The first book
    /// learns the index's visual vocabulary (`options`' branching and
    /// sample). The letter-bigram model is learned again from every book
    /// while it was learned from fewer than `options.learn_from` word
    /// images, and the add rewrites every row; after that an add keeps it
    /// and computes only the new book's rows, so that it costs the same
    /// however large the collection (see [`Index::relearn_word_images`]).
    /// A book of at least `options.learn_alone` word images, added to an
    /// index that holds another, is described by a vocabulary learned from
    /// its own pages (of the index's branching) and scored by a model
    /// learned from its own word images alone; its add always keeps the
    /// model, which cannot learn from its terms (storage-format.md,
    /// section 6.8).
    /// The model's options are those of the first add. Every page is read and checked
    /// before anything is written: a bad or mismatched file leaves the
    /// index as it was. A book of that key is replaced. Takes the writer
    /// role, like a load; `progress` is told where it is.
    pub fn add_word_images(
        &self,
        key: &str,
        pages: &[PageFiles],
        options: &LearnOptions,
        progress: &(dyn Fn(ImagesProgress) + Sync),
    ) -> Result<ImageBookInfo> {
        crate::store::word_images::add(&self.store, key, pages, options, progress)
    }

    /// Refuses what [`Index::add_word_images`] would refuse of `key`,
    /// `pages` pages and `options` before reading any page: a bad key, no
    /// page, a vocabulary branching outside 1..=256.
    pub fn check_word_images(key: &str, pages: usize, options: &LearnOptions) -> Result<()> {
        crate::store::word_images::check_add(key, pages, options)
    }

    /// How the pages of the next [`Index::add_read_word_images`] must be
    /// read ([`crate::images::pages::read_pages`]): under the
    /// normalisation of the index's vocabulary, or the default when it has
    /// none yet.
    pub fn word_image_normalisation(&self) -> Result<crate::images::descriptor::Normalisation> {
        crate::store::word_images::normalisation(&self.store)
    }

    /// Adds the book `key` of pages already read
    /// ([`crate::images::pages::read_pages`] under
    /// [`Index::word_image_normalisation`]), as
    /// [`Index::add_word_images`] does: so that a caller can read and check
    /// every page before it opens the index for writing.
    pub fn add_read_word_images(
        &self,
        key: &str,
        pages: Vec<crate::images::pages::Page>,
        options: &LearnOptions,
        progress: &(dyn Fn(ImagesProgress) + Sync),
    ) -> Result<ImageBookInfo> {
        crate::store::word_images::add_read(&self.store, key, pages, options, progress)
    }

    /// Learns the letter-bigram model again from every book of word images
    /// of the index's vocabulary (every book when none is) and recomputes
    /// every row, a book of its own vocabulary, or of at least
    /// `learn_alone` word images beside another book, by a model learned
    /// from its own alone (pass the `learn_alone` the books were added with,
    /// [`LearnOptions::default`]'s unless told otherwise). Takes the writer
    /// role; `InvalidArgument` when the index has no word images. Returns
    /// the model and what could not be removed after the commit.
    pub fn relearn_word_images(
        &self,
        learn_alone: u64,
        progress: &(dyn Fn(ImagesProgress) + Sync),
    ) -> Result<(ImageModel, Vec<String>)> {
        crate::store::word_images::relearn(&self.store, learn_alone, progress)
    }

    /// The index's books of word images, in key order (none before
    /// format 9).
    pub fn image_books(&self) -> Result<Vec<ImageBookInfo>> {
        crate::store::word_images::list(&self.store)
    }

    /// The index's word images opened for text queries; `None` when it has
    /// none. Opening maps the search file and checks its layout.
    pub fn word_images(&self) -> Result<Option<WordImageSearch>> {
        WordImageSearch::open(&self.store)
    }
}

/// Counts describing an index.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[non_exhaustive]
pub struct IndexStats {
    /// Books stored.
    pub books: u64,
    /// Words in all books.
    pub words: u64,
    /// Unique-word sequence elements in all books.
    pub unique_words: u64,
    /// Barrel files.
    pub barrels: u64,
    /// Committed barrel bytes.
    pub barrel_bytes: u64,
    /// Barrel bytes held by live records (the rest belongs to deleted or replaced books).
    pub live_record_bytes: u64,
    /// Catalog file size in bytes.
    pub catalog_bytes: u64,
    /// Sketch segments listed in the catalog (none in a format-1 index).
    pub segments: u64,
    /// Bytes of the listed segments, as the catalog records them.
    pub segment_bytes: u64,
    /// Page files (none before format 4).
    pub page_files: u64,
    /// Committed page-file bytes, records of deleted and replaced books included.
    pub page_file_bytes: u64,
    /// Books per language (ISO 639-3 codes, [`crate::lang`]); books whose
    /// language could not be told, or was never recorded, under `und`.
    pub languages: BTreeMap<String, u64>,
    /// Bilingual dictionaries (none before format 8).
    pub dictionaries: u64,
    /// Bytes of their files.
    pub dictionary_bytes: u64,
    /// Books of word images (none before format 9).
    pub image_books: u64,
    /// Word images in them.
    pub word_images: u64,
    /// Bytes of their book files.
    pub image_book_bytes: u64,
}

/// Counts books per language, an empty language counted as undetermined.
fn books_per_language<'a>(languages: impl Iterator<Item = &'a str>) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for language in languages {
        let language = if language.is_empty() {
            crate::lang::UNDETERMINED
        } else {
            language
        };
        *counts.entry(language.to_string()).or_default() += 1;
    }
    counts
}
