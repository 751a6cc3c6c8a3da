//! `Index`: one index directory. Creating and opening it, the writer lock,
//! deleting books, statistics and `verify`.
//!
//! Layout: `catalog.redb` (the catalog), `barrels/NNNNNN.brl` (the
//! sequences), `segments/NNNNNN.seg` (sketches and band tables) and
//! `pages/NNNNNN.pgs` (page signatures). An index directory is opened by
//! one process at a time; inside it, any number of [`Reader`]s and one
//! [`BulkLoader`] work side by side.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::IoContext;
use crate::load::segments::MAX_DEAD_SHARE;
use crate::load::{BulkLoader, LoadOptions};
use crate::query::{BookInfo, Reader};
use crate::repr::sketch::{value_keys, BandLayout, SketchOptions, Table};
use crate::repr::ExtractOptions;
use crate::repr::MinHashSig;
use crate::storage::barrel::{BarrelReader, Record};
use crate::storage::catalog::{
    Access, BookEntry, Catalog, CatalogBatch, CatalogOptions, CatalogSnapshot, StoredPages,
};
use crate::storage::format::{FileKind, FORMAT_VERSION};
use crate::storage::fs;
use crate::storage::page_files::PageFileReader;
use crate::storage::segment::{Segment, Unreadable};
use crate::{Error, Result};
use std::collections::{HashMap, HashSet};

pub(crate) const CATALOG_FILE: &str = "catalog.redb";
/// The catalog of an index being created, renamed to [`CATALOG_FILE`] once
/// complete: the rename publishes the index.
const NEW_CATALOG_FILE: &str = "catalog.redb.new";
const BARREL_DIR: &str = "barrels";
const SEGMENT_DIR: &str = "segments";
const PAGE_DIR: &str = "pages";

/// Sets the creation options of a new index. Every option here changes what
/// stored data means, so it is stored in the catalog and fixed for the index.
#[derive(Debug, Clone, Default)]
pub struct IndexBuilder {
    options: ExtractOptions,
    sketch: SketchOptions,
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

    /// All sketch options at once (see [`SketchOptions`]).
    pub fn sketch_options(mut self, sketch: SketchOptions) -> Self {
        self.sketch = sketch;
        self
    }

    /// Creates the index in `dir` (made if missing). `Err(AlreadyExists)` if
    /// `dir` already holds one.
    pub fn create(self, dir: impl AsRef<Path>) -> Result<Index> {
        self.sketch.validate()?;
        let o = &self.options;
        if !(1..=16).contains(&o.max_term_freq) {
            return Err(Error::InvalidArgument(format!(
                "max_term_freq {} outside 1..=16",
                o.max_term_freq
            )));
        }
        if o.alpha_window != 0 && !(8..=4096).contains(&o.alpha_window) {
            return Err(Error::InvalidArgument(format!(
                "alpha_window {} must be 0 or in 8..=4096",
                o.alpha_window
            )));
        }
        let dir = dir.as_ref();
        prepare_new_dir(dir)?;
        let new_catalog = dir.join(NEW_CATALOG_FILE);
        Catalog::create(&new_catalog, &self.options, &self.sketch)?;
        fs::WriteFile::open_existing(&new_catalog)?.sync_all()?;
        fs::rename(&new_catalog, &dir.join(CATALOG_FILE))?;
        fs::sync_dir(dir)?;
        Index::open(dir)
    }
}

/// Makes `dir` ready to receive a new index: created when missing (its
/// parent synced), else it must be empty or hold what an interrupted
/// creation leaves (the three empty subdirectories and an unpublished
/// catalog, which is removed). Then creates the subdirectories. Nothing in
/// it is an index until the catalog is renamed into place.
fn prepare_new_dir(dir: &Path) -> Result<()> {
    if dir.join(CATALOG_FILE).symlink_metadata().is_ok() {
        return Err(Error::AlreadyExists(dir.to_path_buf()));
    }
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => {
            if !holds_only_creation_leftovers(dir)? {
                return Err(Error::InvalidArgument(format!(
                    "{}: the directory is not empty and holds no index; create the index in a new or empty directory",
                    dir.display()
                )));
            }
        }
        Ok(_) => {
            return Err(Error::InvalidArgument(format!(
                "{}: not a directory",
                dir.display()
            )))
        }
        Err(_) => {
            fs::create_dir_all(dir)?;
            if let Some(parent) = dir.parent() {
                fs::sync_dir(parent)?;
            }
        }
    }
    fs::remove_stale(&dir.join(NEW_CATALOG_FILE))?;
    for sub in [BARREL_DIR, SEGMENT_DIR, PAGE_DIR] {
        fs::create_dir_all(&dir.join(sub))?;
    }
    fs::sync_dir(dir)
}

/// True when every entry of `dir` is one an interrupted creation leaves:
/// an empty `barrels`, `segments` or `pages` directory, or an unpublished
/// catalog. An empty directory qualifies.
fn holds_only_creation_leftovers(dir: &Path) -> Result<bool> {
    for entry in std::fs::read_dir(dir).at(dir)? {
        let entry = entry.at(dir)?;
        let name = entry.file_name();
        let path = entry.path();
        let kind = entry.file_type().at(&path)?;
        let leftover = if name == NEW_CATALOG_FILE {
            kind.is_file()
        } else if [BARREL_DIR, SEGMENT_DIR, PAGE_DIR]
            .iter()
            .any(|d| name == *d)
        {
            kind.is_dir() && std::fs::read_dir(&path).at(&path)?.next().is_none()
        } else {
            false
        };
        if !leftover {
            return Ok(false);
        }
    }
    Ok(true)
}

/// True when `dir` holds no catalog but what an interrupted creation left.
fn is_incomplete_index(dir: &Path) -> bool {
    dir.join(NEW_CATALOG_FILE).is_file()
        || ([BARREL_DIR, SEGMENT_DIR, PAGE_DIR]
            .iter()
            .all(|sub| dir.join(sub).is_dir())
            && holds_only_creation_leftovers(dir).unwrap_or(false))
}

pub(crate) struct Shared {
    pub(crate) dir: PathBuf,
    pub(crate) catalog: Catalog,
    pub(crate) options: CatalogOptions,
    writer_active: AtomicBool,
}

/// An open index directory. Cheap to clone; clones share one catalog.
#[derive(Clone)]
pub struct Index {
    pub(crate) shared: Arc<Shared>,
}

/// Counts describing an index.
#[derive(Debug, Clone, Default, serde::Serialize)]
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
}

/// What `verify` checked.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct VerifyStats {
    /// Bytes of the catalog file whose pages and trees redb's integrity
    /// check read.
    pub catalog_bytes: u64,
    /// Books whose record was read and checked.
    pub books: u64,
    /// Records in barrels (live, deleted and replaced), all checksummed.
    pub records: u64,
    /// Barrel bytes read.
    pub bytes: u64,
    /// Sketch segments read and checked (none in a format-1 index).
    pub segments: u64,
    /// Segment bytes read.
    pub segment_bytes: u64,
    /// Books sketched in the segments (every book, in a format-2 index).
    pub sketched_books: u64,
    /// Sketches in the segments of books since deleted or replaced; readers
    /// skip them and a compaction drops them.
    pub dead_sketches: u64,
    /// Books with page signatures, all read, decoded and checked.
    pub paged_books: u64,
    /// Page files whose header and committed length were checked (none
    /// before format 4).
    pub page_files: u64,
    /// Committed page-file bytes, records of deleted and replaced books included.
    pub page_file_bytes: u64,
    /// Records in page files (live, deleted and replaced), all checksummed.
    pub page_records: u64,
}

/// What [`Index::delete_books`] did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct DeleteStats {
    /// Books that existed and were deleted.
    pub deleted: u64,
    /// Problems met after the deletion was committed, which it survived (a
    /// failed compaction, a damaged segment left out of it), each saying
    /// what to do.
    pub warnings: Vec<String>,
}

/// A guard on the single writer of an index; released on drop.
pub(crate) struct WriterGuard {
    shared: Arc<Shared>,
}

impl Drop for WriterGuard {
    fn drop(&mut self) {
        self.shared.writer_active.store(false, Ordering::Release);
    }
}

impl Index {
    /// A builder for a new index with non-default options.
    pub fn builder() -> IndexBuilder {
        IndexBuilder::default()
    }

    /// Creates an index with default options in `dir`.
    pub fn create(dir: impl AsRef<Path>) -> Result<Index> {
        Index::builder().create(dir)
    }

    /// Opens the index in `dir` for reading and writing: checks the
    /// catalog's format version and every barrel's and page file's header
    /// and committed length. Reads nothing else. One process at a time opens
    /// an index for writing (`Locked` otherwise); readers in other processes
    /// ([`Index::open_read_only`]) may share it meanwhile.
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
        let catalog_path = dir.join(CATALOG_FILE);
        match catalog_path.symlink_metadata() {
            Ok(meta) if meta.is_file() => {}
            Ok(meta) if meta.file_type().is_symlink() && access == Access::ReadWrite => {
                return Err(Error::InvalidArgument(format!(
                    "{}: is a symbolic link; an index's files must be its own",
                    catalog_path.display()
                )))
            }
            Ok(_) if catalog_path.is_file() => {}
            _ if is_incomplete_index(dir) => return Err(Error::IncompleteIndex(dir.to_path_buf())),
            _ => return Err(Error::NotAnIndex(dir.to_path_buf())),
        }
        let (catalog, options) = Catalog::open(&catalog_path, access)?;
        let index = Index::from_parts(dir, catalog, options);
        index.check_files()?;
        Ok(index)
    }

    pub(crate) fn from_parts(dir: &Path, catalog: Catalog, options: CatalogOptions) -> Index {
        Index {
            shared: Arc::new(Shared {
                dir: dir.to_path_buf(),
                catalog,
                options,
                writer_active: AtomicBool::new(false),
            }),
        }
    }

    fn check_files(&self) -> Result<()> {
        let snapshot = self.shared.catalog.snapshot()?;
        for (barrel, committed) in snapshot.barrels()? {
            crate::storage::barrel::check(&self.barrel_path(barrel), committed)?;
        }
        for (file, committed) in snapshot.page_files()? {
            let path = self.page_file_path(file);
            crate::storage::append::check(&path, FileKind::Pages, committed)?;
        }
        Ok(())
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.shared.dir
    }

    /// The extraction options the index was created with.
    pub fn options(&self) -> &ExtractOptions {
        &self.shared.options.extract
    }

    /// The sketch options the index was created with; `None` for a
    /// format-1 index, which holds no sketches.
    pub fn sketch_options(&self) -> Option<&SketchOptions> {
        self.shared.options.sketch.as_ref()
    }

    /// The format version the index was written with.
    pub fn format_version(&self) -> u16 {
        self.shared.options.version
    }

    /// The sketch options, or `OldFormat` naming what needed them.
    pub(crate) fn require_sketches(&self, needs: &str) -> Result<&SketchOptions> {
        self.sketch_options().ok_or_else(|| Error::OldFormat {
            path: self.dir().to_path_buf(),
            found: self.format_version(),
            needs: needs.to_string(),
        })
    }

    /// `OldFormat` unless the index has the format this build writes: a
    /// write must not mix segment layouts, or catalog page signatures and
    /// page files, in one index.
    fn require_current_format(&self) -> Result<()> {
        let needs = match self.format_version() {
            FORMAT_VERSION => return Ok(()),
            3 => "write (format 4 keeps page signatures in page files, not in the catalog)",
            _ => "write (loads and deletes keep its format: its segment layout and where its page signatures are)",
        };
        Err(Error::OldFormat {
            path: self.dir().to_path_buf(),
            found: self.format_version(),
            needs: needs.into(),
        })
    }

    pub(crate) fn catalog(&self) -> &Catalog {
        &self.shared.catalog
    }

    pub(crate) fn segment_dir(&self) -> PathBuf {
        self.shared.dir.join(SEGMENT_DIR)
    }

    pub(crate) fn segment_path(&self, segment: u32) -> PathBuf {
        self.segment_dir().join(format!("{segment:06}.seg"))
    }

    pub(crate) fn page_dir(&self) -> PathBuf {
        self.shared.dir.join(PAGE_DIR)
    }

    pub(crate) fn page_file_path(&self, file: u32) -> PathBuf {
        self.page_dir().join(format!("{file:06}.pgs"))
    }

    pub(crate) fn barrel_path(&self, barrel: u32) -> PathBuf {
        self.shared
            .dir
            .join(BARREL_DIR)
            .join(format!("{barrel:06}.brl"))
    }

    /// Takes the writer role; `Err(Locked)` while another loader holds it,
    /// `Err(ReadOnly)` when the index was opened read-only. Refuses a
    /// symbolic link in place of the barrel, segment or page directory: a
    /// writer never follows a link out of the index.
    pub(crate) fn lock_writer(&self) -> Result<WriterGuard> {
        if self.catalog().access() == Access::ReadOnly {
            return Err(Error::ReadOnly(self.dir().to_path_buf()));
        }
        self.require_current_format()?;
        for sub in [BARREL_DIR, SEGMENT_DIR, PAGE_DIR] {
            crate::storage::fs::refuse_link(&self.shared.dir.join(sub))?;
        }
        if self.shared.writer_active.swap(true, Ordering::AcqRel) {
            return Err(Error::Locked(self.shared.dir.clone()));
        }
        Ok(WriterGuard {
            shared: self.shared.clone(),
        })
    }

    /// Starts a bulk load. One loader at a time: a second gets `Err(Locked)`.
    pub fn bulk_loader<'p>(&self, options: LoadOptions) -> Result<BulkLoader<'p>> {
        BulkLoader::new(self.clone(), options)
    }

    /// A snapshot of the index for queries: books loaded later are not in it.
    pub fn reader(&self) -> Result<Reader> {
        Reader::open(self)
    }

    /// Deletes the books stored under `keys` in one transaction; returns how
    /// many existed. Their records stay in the barrels and page files as
    /// dead bytes until [`Index::compact`]. A key that is not stored and breaks the key rule
    /// ([`crate::load::check_key`]) is an `InvalidArgument`, and nothing is
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
        let _writer = self.lock_writer()?;
        let snapshot = self.catalog().snapshot()?;
        for key in keys {
            if snapshot.id_of(key)?.is_none() {
                if let Some(error) = crate::load::keys::invalid_key(key) {
                    return Err(error);
                }
            }
        }
        let batch = CatalogBatch {
            delete_keys: keys.iter().map(|k| k.to_string()).collect(),
            next_book_id: snapshot.next_book_id()?,
            ..CatalogBatch::default()
        };
        drop(snapshot);
        let deleted = self.catalog().commit(&batch)?.deleted;
        let mut warnings = Vec::new();
        if deleted > 0 {
            use crate::load::segments::{compact_after_commit, prepare_dir};
            match prepare_dir(self) {
                Ok(next) => warnings = compact_after_commit(self, next, Some(MAX_DEAD_SHARE)),
                Err(error) => warnings.push(format!(
                    "the books were deleted, but the segment directory could not be prepared \
                     for compaction: {error}; the next load or delete compacts again"
                )),
            }
        }
        Ok(DeleteStats { deleted, warnings })
    }

    /// Counts of books, words and bytes.
    pub fn stats(&self) -> Result<IndexStats> {
        let snapshot = self.catalog().snapshot()?;
        let books = snapshot.books()?;
        let barrels = snapshot.barrels()?;
        let segments = snapshot.segments()?;
        let page_files = snapshot.page_files()?;
        let catalog_path = self.catalog().path();
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
        })
    }

    /// Every committed barrel of `snapshot`, opened for reading.
    pub(crate) fn open_barrels(
        &self,
        snapshot: &CatalogSnapshot<'_>,
    ) -> Result<HashMap<u32, BarrelReader>> {
        snapshot
            .barrels()?
            .into_iter()
            .map(|(barrel, committed)| {
                BarrelReader::open(&self.barrel_path(barrel), committed).map(|r| (barrel, r))
            })
            .collect()
    }

    /// The page signatures of book `id` in `snapshot`: `None` when it has
    /// none stored. In format 4, one record read from its page file.
    pub(crate) fn stored_pages(
        &self,
        snapshot: &CatalogSnapshot<'_>,
        id: u32,
    ) -> Result<Option<Vec<MinHashSig>>> {
        match snapshot.pages(id)? {
            None => Ok(None),
            Some(StoredPages::Signatures(pages)) => Ok(Some(pages)),
            Some(StoredPages::Locator(locator)) => {
                let files = snapshot.page_files()?;
                let mut reader = self.open_page_file(&files, locator.file, id)?;
                reader.read(&locator, id).map(Some)
            }
        }
    }

    /// Opens page file `file`, one of the committed `files`, for the
    /// locator of book `id`.
    fn open_page_file(&self, files: &[(u32, u64)], file: u32, id: u32) -> Result<PageFileReader> {
        match files.binary_search_by_key(&file, |&(n, _)| n) {
            Ok(i) => PageFileReader::open(&self.page_file_path(file), files[i].1),
            Err(_) => Err(self.unknown_page_file(id, file)),
        }
    }

    fn unknown_page_file(&self, id: u32, file: u32) -> Error {
        Error::Corrupted {
            path: self.catalog().path().to_path_buf(),
            offset: 0,
            what: format!("page locator of book id {id} points at unknown page file {file}"),
        }
    }

    /// The record of book `id`, checked to belong to it.
    pub(crate) fn book_record(
        &self,
        barrels: &HashMap<u32, BarrelReader>,
        id: u32,
        entry: &BookEntry,
    ) -> Result<Record> {
        let reader = barrels
            .get(&entry.barrel)
            .ok_or_else(|| self.unknown_barrel(entry))?;
        self.record_in(reader, id, entry)
    }

    /// The record of book `id` in `barrel`, checked to belong to it.
    pub(crate) fn record_in(
        &self,
        barrel: &BarrelReader,
        id: u32,
        entry: &BookEntry,
    ) -> Result<Record> {
        let record = barrel.record_at(entry.offset)?;
        owned_by(
            record,
            barrel.path(),
            entry.offset,
            id,
            &entry.key,
            entry.unique_words,
        )
    }

    /// The record of `book` read alone from its barrel at `place` (see
    /// [`crate::storage::barrel::read_record`]), checked to belong to it.
    pub(crate) fn read_book_record(&self, book: &BookInfo, place: RecordPlace) -> Result<Record> {
        let path = self.barrel_path(place.barrel);
        let record = crate::storage::barrel::read_record(
            &path,
            place.committed_len,
            place.offset,
            place.len,
        )?;
        owned_by(
            record,
            &path,
            place.offset,
            book.id,
            &book.key,
            book.unique_words,
        )
    }

    /// The error for a book whose entry names a barrel the catalog does
    /// not list.
    pub(crate) fn unknown_barrel(&self, entry: &BookEntry) -> Error {
        Error::Corrupted {
            path: self.catalog().path().to_path_buf(),
            offset: 0,
            what: format!(
                "book {:?} points at unknown barrel {}",
                entry.key, entry.barrel
            ),
        }
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
        let catalog_bytes = Catalog::check_integrity(self.catalog().path())?;
        let mut attempts = 0;
        loop {
            match self.verify_snapshot(attempts == 3) {
                Ok(stats) => {
                    return Ok(VerifyStats {
                        catalog_bytes,
                        ..stats
                    })
                }
                Err(Error::Io { path, source })
                    if source.kind() == std::io::ErrorKind::NotFound
                        && path.starts_with(self.dir())
                        && attempts < 3 =>
                {
                    attempts += 1;
                }
                other => return other,
            }
        }
    }

    /// One pass of [`Index::verify`]; a missing listed segment is an I/O
    /// error (for a retry) unless `last_attempt`, when it is damage.
    fn verify_snapshot(&self, last_attempt: bool) -> Result<VerifyStats> {
        let snapshot = self.catalog().snapshot()?;
        let books = snapshot.books()?;
        let mut stats = VerifyStats::default();
        if snapshot.key_count()? != books.len() as u64 {
            return Err(Error::Corrupted {
                path: self.catalog().path().to_path_buf(),
                offset: 0,
                what: "key table and book table disagree".into(),
            });
        }
        let barrels = self.open_barrels(&snapshot)?;
        for reader in barrels.values() {
            for record in reader.records() {
                record?;
                stats.records += 1;
            }
        }
        stats.bytes = snapshot.barrels()?.iter().map(|&(_, len)| len).sum();
        for (id, entry) in &books {
            self.book_record(&barrels, *id, entry)?;
            if snapshot.id_of(&entry.key)? != Some(*id) {
                return Err(Error::Corrupted {
                    path: self.catalog().path().to_path_buf(),
                    offset: 0,
                    what: format!("key {:?} does not map to its book", entry.key),
                });
            }
            stats.books += 1;
        }
        if let Some(sketch) = self.sketch_options() {
            let listed = snapshot.segments()?;
            let next_book_id = snapshot.next_book_id()?;
            let segments = SegmentCheck {
                listed: &listed,
                books: &books,
                sketch,
                next_book_id,
                last_attempt,
            };
            let damaged = self.verify_segments(&segments, &mut stats)?;
            self.verify_pages(&snapshot, &books, sketch, &mut stats)?;
            if let Some(error) = damaged {
                return Err(error);
            }
        }
        Ok(stats)
    }

    /// Checks the page signatures: every `pages` entry belongs to a live
    /// book, and its signatures (read from the page file its locator points
    /// at, in format 4) decode and hold one signature of `window_hashes`
    /// values per page of the book; from format 3 on, every live book of
    /// more than one page has an entry.
    fn verify_pages(
        &self,
        snapshot: &CatalogSnapshot<'_>,
        books: &[(u32, BookEntry)],
        sketch: &SketchOptions,
        stats: &mut VerifyStats,
    ) -> Result<()> {
        let corrupted = |what: String| Error::Corrupted {
            path: self.catalog().path().to_path_buf(),
            offset: 0,
            what,
        };
        let entry_of = |id: u32| {
            books
                .binary_search_by_key(&id, |&(id, _)| id)
                .ok()
                .map(|i| &books[i].1)
        };
        // Every record of every page file, each read and checked once:
        // locator → (book id, its page signatures).
        let mut records = HashMap::new();
        for (file, committed) in snapshot.page_files()? {
            let path = self.page_file_path(file);
            PageFileReader::open(&path, committed)?.each_record(file, |locator, id, pages| {
                records.insert(locator, (id, pages));
                Ok(())
            })?;
            stats.page_files += 1;
            stats.page_file_bytes += committed;
        }
        stats.page_records = records.len() as u64;
        snapshot.each_pages(|id, stored| {
            let entry = entry_of(id).ok_or_else(|| {
                corrupted(format!(
                    "page signatures of book id {id}, which is not live"
                ))
            })?;
            let pages = match stored {
                StoredPages::Signatures(pages) => pages,
                StoredPages::Locator(locator) => match records.remove(&locator) {
                    Some((owner, pages)) if owner == id => pages,
                    Some((owner, _)) => {
                        return Err(Error::Corrupted {
                            path: self.page_file_path(locator.file),
                            offset: locator.offset,
                            what: format!(
                                "page signatures of book id {id}: the record belongs to book id {owner}"
                            ),
                        })
                    }
                    None => {
                        return Err(corrupted(format!(
                            "the page locator of book id {id} ({locator:?}) is not a record of a listed page file"
                        )))
                    }
                },
            };
            let k = pages.first().map_or(0, |p| p.0.len());
            if pages.len() != entry.pages as usize || k != sketch.window_hashes {
                return Err(corrupted(format!(
                    "book {:?} has {} pages but {} page signatures of {k} min-hashes (expected {})",
                    entry.key,
                    entry.pages,
                    pages.len(),
                    sketch.window_hashes
                )));
            }
            stats.paged_books += 1;
            Ok(())
        })?;
        let paged = books.iter().filter(|(_, e)| e.pages > 1).count() as u64;
        if self.format_version() >= 3 && stats.paged_books != paged {
            return Err(corrupted(format!(
                "{paged} books have pages but {} have page signatures",
                stats.paged_books
            )));
        }
        Ok(())
    }

    /// Checks that `segment` has the layout of the index's format version
    /// (an upgraded format-4 index keeps its version-3 segments) and its
    /// min-hashes per book.
    fn check_segment_shape(&self, segment: &Segment, sketch: &SketchOptions) -> Result<()> {
        let corrupted = |what: String| Error::Corrupted {
            path: segment.path().to_path_buf(),
            offset: 0,
            what,
        };
        let version = self.format_version();
        if !crate::storage::segment::same_layout(segment.version(), version) {
            return Err(corrupted(format!(
                "segment of format version {} in an index of version {version}",
                segment.version()
            )));
        }
        let k = sketch.book.num_hashes;
        if segment.hashes_per_book() != k {
            return Err(corrupted(format!(
                "{} min-hashes per book; the index's sketch options say {k}",
                segment.hashes_per_book()
            )));
        }
        Ok(())
    }

    /// The segment half of [`Index::verify`]. A segment that cannot be read
    /// or decoded does not stop the check of the others; the result is then
    /// the error that names it and the books to reload, for the caller to
    /// return once the rest is checked.
    fn verify_segments(
        &self,
        check: &SegmentCheck<'_>,
        stats: &mut VerifyStats,
    ) -> Result<Option<Error>> {
        let books = check.books;
        let next_book_id = check.next_book_id;
        let live: HashSet<u32> = books.iter().map(|&(id, _)| id).collect();
        let mut sketched = HashSet::new();
        let mut damaged = Vec::new();
        for &(number, listed_len) in check.listed {
            let path = self.segment_path(number);
            let corrupted = |offset: u64, what: String| Error::Corrupted {
                path: path.clone(),
                offset,
                what,
            };
            let read = std::fs::read(&path).at(&path).and_then(|bytes| {
                let len = bytes.len() as u64;
                Segment::decode(bytes, &path).map(|segment| (len, segment))
            });
            let (len, segment) = match read {
                Ok(read) => read,
                Err(Error::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound && !check.last_attempt =>
                {
                    return Err(Error::Io { path, source });
                }
                Err(error) => {
                    damaged.push(Unreadable::of(&path, &error));
                    continue;
                }
            };
            if len != listed_len {
                return Err(corrupted(
                    len,
                    format!("segment is {len} bytes; the catalog lists {listed_len}"),
                ));
            }
            self.check_segment_shape(&segment, check.sketch)?;
            let mut from_books: [Vec<(u64, u32)>; Table::ALL.len()] = Default::default();
            for (slot, (id, _, signature)) in segment.books().enumerate() {
                if id >= next_book_id {
                    return Err(corrupted(
                        0,
                        format!("sketches book id {id}, which the catalog never handed out (next id {next_book_id})"),
                    ));
                }
                if !live.contains(&id) {
                    stats.dead_sketches += 1;
                } else if !sketched.insert(id) {
                    return Err(corrupted(
                        0,
                        format!("book id {id} is sketched in another listed segment too"),
                    ));
                } else {
                    stats.sketched_books += 1;
                }
                check_value_keys(&segment, slot, id, &signature)?;
                for table in Table::ALL {
                    let keys = segment.book_keys(slot, table).map(|key| (key, id));
                    from_books[table as usize].extend(keys);
                }
            }
            for table in Table::ALL {
                let expected = &mut from_books[table as usize];
                expected.sort_unstable();
                let stored = segment
                    .entries(table)
                    .flat_map(|(key, ids)| ids.map(move |id| (key, id)));
                if !stored.eq(expected.iter().copied()) {
                    return Err(corrupted(
                        0,
                        format!(
                            "the {} table does not hold exactly its books' keys",
                            table.name()
                        ),
                    ));
                }
            }
            stats.segments += 1;
            stats.segment_bytes += len;
        }
        if let Some(first) = damaged.first() {
            let orphans: Vec<&str> = books
                .iter()
                .filter(|(id, _)| !sketched.contains(id))
                .map(|(_, entry)| entry.key.as_str())
                .collect();
            let advice = crate::load::segments::repair_advice(&damaged, &orphans);
            return Ok(Some(first.error(&advice)));
        }
        if let Some((id, entry)) = books.iter().find(|(id, _)| !sketched.contains(id)) {
            return Err(Error::Corrupted {
                path: self.segment_dir(),
                offset: 0,
                what: format!(
                    "book {:?} (id {id}) is not sketched in any listed segment",
                    entry.key
                ),
            });
        }
        Ok(None)
    }
}

/// What the segment half of [`Index::verify`] checks against.
struct SegmentCheck<'a> {
    /// The listed segments and their lengths.
    listed: &'a [(u32, u64)],
    /// The live books.
    books: &'a [(u32, BookEntry)],
    sketch: &'a SketchOptions,
    next_book_id: u32,
    /// A missing segment is damage, not a reason to retry.
    last_attempt: bool,
}

/// Checks that the value keys of the book in `slot` of `segment` are those
/// of its stored signature (a version-2 segment has none).
fn check_value_keys(segment: &Segment, slot: usize, id: u32, signature: &MinHashSig) -> Result<()> {
    if segment.version() <= 2
        || segment
            .book_keys(slot, Table::Value)
            .eq(value_keys(signature))
    {
        return Ok(());
    }
    Err(Error::Corrupted {
        path: segment.path().to_path_buf(),
        offset: 0,
        what: format!("book id {id}'s value keys do not match its min-hash signature"),
    })
}

/// Where a book's barrel record is, for reading it alone later.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordPlace {
    pub barrel: u32,
    /// The barrel's committed length in the snapshot the place is from.
    pub committed_len: u64,
    pub offset: u64,
    pub len: u32,
}

impl RecordPlace {
    /// The place of `entry`'s record in its barrel, of committed length
    /// `committed_len`.
    pub(crate) fn of(entry: &BookEntry, committed_len: u64) -> Self {
        RecordPlace {
            barrel: entry.barrel,
            committed_len,
            offset: entry.offset,
            len: entry.record_len,
        }
    }
}

/// `record`, found at `offset` of `path`, if it is the record of book `id`
/// (key `key`) with `unique_words` elements.
fn owned_by(
    record: Record,
    path: &Path,
    offset: u64,
    id: u32,
    key: &str,
    unique_words: u32,
) -> Result<Record> {
    if record.book_id != id || record.sequence.len() != unique_words as usize {
        return Err(Error::Corrupted {
            path: path.to_path_buf(),
            offset,
            what: format!(
                "record of book id {} with {} elements does not belong to book {key:?} (id {id})",
                record.book_id,
                record.sequence.len(),
            ),
        });
    }
    Ok(record)
}
