//! The catalog: a redb database holding the format version, the creation
//! options, the books, where the page signatures of paged books are (a
//! [`PageLocator`] into a page file; in format 3, the signatures
//! themselves, [`super::pages`]), the committed length of every barrel and
//! page file and the list of sketch segments. One write transaction
//! publishes a batch of books; a read transaction is a snapshot.

use super::fs;
use super::overlay::MemoryOverlay;
use byteorder::{ByteOrder, LittleEndian};
use redb::backends::FileBackend;
use redb::{
    ConcurrencyMode, Database, ReadOnlyDatabase, ReadableDatabase, ReadableTable,
    ReadableTableMetadata, StorageBackend, TableDefinition,
};
use std::ops::Bound;
use std::path::{Path, PathBuf};

use super::format::FormatVersion;
use super::page_files::PageLocator;
use super::pages;
use crate::error::IoContext;
use crate::error::{Error, Result};
use crate::repr::sketch::{BandLayout, SketchOptions};
use crate::repr::{ExtractOptions, MinHashOptions, MinHashSig, SimHashOptions};
use crate::text::MAX_WORD_BYTES;

const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const BOOKS: TableDefinition<u32, &[u8]> = TableDefinition::new("books");
const KEYS: TableDefinition<&str, u32> = TableDefinition::new("keys");
const BARRELS: TableDefinition<u32, u64> = TableDefinition::new("barrels");
const SEGMENTS: TableDefinition<u32, u64> = TableDefinition::new("segments");
const PAGES: TableDefinition<u32, &[u8]> = TableDefinition::new("pages");
const PAGE_FILES: TableDefinition<u32, u64> = TableDefinition::new("page_files");

const META_FORMAT_VERSION: &str = "format_version";
const META_EXTRACT_OPTIONS: &str = "extract_options";
const META_NEXT_BOOK_ID: &str = "next_book_id";
const META_SKETCH_OPTIONS: &str = "sketch_options";

/// What the catalog knows about one book.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BookEntry {
    /// External key, unique in the index.
    pub key: String,
    /// Title (may be empty).
    pub title: String,
    /// Author (may be empty).
    pub author: String,
    /// Language code (may be empty).
    pub language: String,
    /// Words in the text.
    pub words: u64,
    /// Pages in the text.
    pub pages: u32,
    /// Elements of the unique-word sequence.
    pub unique_words: u32,
    /// Distinct words in the text.
    pub distinct_words: u32,
    /// Barrel number holding the sequence.
    pub barrel: u32,
    /// Byte offset of the record in the barrel.
    pub offset: u64,
    /// Bytes of the record, header included.
    pub record_len: u32,
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    let mut len = [0u8; 4];
    LittleEndian::write_u32(&mut len, s.len() as u32);
    out.extend_from_slice(&len);
    out.extend_from_slice(s.as_bytes());
}

/// A cursor over bytes that fails instead of reading past the end.
struct Cursor<'a> {
    bytes: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Some(head)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(LittleEndian::read_u32)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(LittleEndian::read_u64)
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(LittleEndian::read_u16)
    }
    fn string(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }
}

impl BookEntry {
    /// Appends the entry's bytes to `out` (layout in storage-format.md).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let mut fixed = [0u8; 40];
        LittleEndian::write_u32(&mut fixed[0..4], self.barrel);
        LittleEndian::write_u64(&mut fixed[4..12], self.offset);
        LittleEndian::write_u32(&mut fixed[12..16], self.record_len);
        LittleEndian::write_u64(&mut fixed[16..24], self.words);
        LittleEndian::write_u32(&mut fixed[24..28], self.pages);
        LittleEndian::write_u32(&mut fixed[28..32], self.unique_words);
        LittleEndian::write_u32(&mut fixed[32..36], self.distinct_words);
        out.extend_from_slice(&fixed[..36]);
        for s in [&self.key, &self.title, &self.author, &self.language] {
            put_str(out, s);
        }
    }

    /// Decodes an entry; `None` when the bytes are malformed.
    pub fn decode_from(bytes: &[u8]) -> Option<Self> {
        let mut c = Cursor { bytes };
        let entry = BookEntry {
            barrel: c.u32()?,
            offset: c.u64()?,
            record_len: c.u32()?,
            words: c.u64()?,
            pages: c.u32()?,
            unique_words: c.u32()?,
            distinct_words: c.u32()?,
            key: c.string()?,
            title: c.string()?,
            author: c.string()?,
            language: c.string()?,
        };
        c.bytes.is_empty().then_some(entry)
    }
}

fn encode_options(options: &ExtractOptions) -> Vec<u8> {
    let mut out = vec![0u8; 24];
    LittleEndian::write_u64(&mut out[0..8], options.hash_seed);
    LittleEndian::write_u32(&mut out[8..12], options.max_term_freq);
    LittleEndian::write_u32(&mut out[12..16], options.alpha_window);
    LittleEndian::write_u32(&mut out[16..20], options.alpha_min_share_permille);
    LittleEndian::write_u32(&mut out[20..24], MAX_WORD_BYTES as u32);
    out
}

fn decode_options(bytes: &[u8]) -> Option<ExtractOptions> {
    let mut c = Cursor { bytes };
    let options = ExtractOptions {
        hash_seed: c.u64()?,
        max_term_freq: c.u32()?,
        alpha_window: c.u32()?,
        alpha_min_share_permille: c.u32()?,
    };
    let max_word_bytes = c.u32()?;
    (c.bytes.is_empty() && max_word_bytes as usize == MAX_WORD_BYTES).then_some(options)
}

/// The 40 bytes of sketch options (layout in storage-format.md).
pub fn encode_sketch_options(o: &SketchOptions) -> Vec<u8> {
    let mut out = Vec::with_capacity(40);
    out.extend_from_slice(&(o.book.shingle_len as u16).to_le_bytes());
    out.extend_from_slice(&(o.book.num_hashes as u16).to_le_bytes());
    out.extend_from_slice(&o.book.seed.to_le_bytes());
    out.extend_from_slice(&(o.window_hashes as u16).to_le_bytes());
    out.extend_from_slice(&o.window_shingles.to_le_bytes());
    for layout in [o.book_layout, o.window_layout] {
        let (tag, a, b) = match layout {
            BandLayout::Bands { bands, rows } => (0u8, bands, rows),
            BandLayout::SuperShingles { rows, groups } => (1u8, groups, rows),
        };
        out.push(tag);
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
    }
    out.extend_from_slice(&(o.simhash.ngram_chars as u16).to_le_bytes());
    out.extend_from_slice(&o.simhash.seed.to_le_bytes());
    out.extend_from_slice(&(o.simhash_distance as u16).to_le_bytes());
    out
}

/// Decodes [`encode_sketch_options`]; `None` unless the bytes are exactly
/// a valid set of options.
pub fn decode_sketch_options(bytes: &[u8]) -> Option<SketchOptions> {
    let mut c = Cursor { bytes };
    let shingle_len = c.u16()? as usize;
    let num_hashes = c.u16()? as usize;
    let seed = c.u64()?;
    let window_hashes = c.u16()? as usize;
    let window_shingles = c.u32()?;
    let mut layout = || -> Option<BandLayout> {
        let tag = c.take(1)?[0];
        let (a, b) = (c.u16()?, c.u16()?);
        match tag {
            0 => Some(BandLayout::Bands { bands: a, rows: b }),
            1 => Some(BandLayout::SuperShingles { rows: b, groups: a }),
            _ => None,
        }
    };
    let (book_layout, window_layout) = (layout()?, layout()?);
    let options = SketchOptions {
        book: MinHashOptions {
            shingle_len,
            num_hashes,
            seed,
        },
        window_hashes,
        window_shingles,
        book_layout,
        window_layout,
        simhash: SimHashOptions {
            ngram_chars: c.u16()? as usize,
            seed: c.u64()?,
        },
        simhash_distance: u32::from(c.u16()?),
    };
    (c.bytes.is_empty() && options.validate().is_ok()).then_some(options)
}

/// Changes one write transaction applies together.
#[derive(Debug, Default)]
pub struct CatalogBatch {
    /// Books to record, with their internal ids.
    pub insert: Vec<(u32, BookEntry)>,
    /// Where the page signatures of inserted books that have pages are.
    pub pages: Vec<(u32, PageLocator)>,
    /// Keys of books to remove.
    pub delete_keys: Vec<String>,
    /// New committed lengths of barrels.
    pub barrel_lengths: Vec<(u32, u64)>,
    /// New committed lengths of page files.
    pub page_file_lengths: Vec<(u32, u64)>,
    /// Segments to list, with their lengths.
    pub add_segments: Vec<(u32, u64)>,
    /// Segments to unlist (merged into an added one).
    pub remove_segments: Vec<u32>,
    /// The next internal id to hand out.
    pub next_book_id: u32,
}

/// What one committed batch did.
#[derive(Debug, Default, Clone, Copy)]
pub struct CommitOutcome {
    /// Books whose key already existed and whose old entry was replaced.
    pub replaced: u64,
    /// Keys deleted.
    pub deleted: u64,
}

/// What the catalog says about the whole index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CatalogOptions {
    /// The format version the index was created with.
    pub version: FormatVersion,
    /// Unique-word extraction options.
    pub extract: ExtractOptions,
    /// Sketch options; `None` in a format-1 index, which has no sketches.
    pub sketch: Option<SketchOptions>,
}

/// A book's entry in the `pages` table, decoded by the catalog's format
/// version.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredPages {
    /// Format 3: the page signatures themselves.
    Signatures(Vec<MinHashSig>),
    /// Format 4: where they are in a page file.
    Locator(PageLocator),
}

/// How the catalog database is open.
enum Db {
    /// For writing: this process is the index's one writer.
    Writer(Database),
    /// For reading only: the file is opened read-only and never written,
    /// beside any number of other readers and one writer, in any process.
    Reader(ReadOnlyDatabase),
    /// For reading only, a catalog whose last writer did not close it
    /// (killed, or crashed): redb's repair on open runs on a
    /// [`MemoryOverlay`], so the file is still never written.
    Recovered(Database),
    /// Closed (while the catalog is dropped or closed).
    Closed,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Db::Writer(_) => "Writer",
            Db::Reader(_) => "Reader",
            Db::Recovered(_) => "Recovered",
            Db::Closed => "Closed",
        })
    }
}

/// How a catalog is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read and write: one process at a time (`Locked` otherwise).
    ReadWrite,
    /// Read only: never writes a byte, needs only read permission, and
    /// shares the file with other readers and a writer.
    ReadOnly,
}

/// redb's settings for every open of a catalog: one writing process and
/// any number of reading processes share the file (byte-range locks), and
/// every commit saves the allocator state, so that the open after a crash
/// needs no repair walk.
fn builder() -> redb::Builder {
    let mut builder = redb::Builder::new();
    builder.set_concurrency_mode(ConcurrencyMode::SingleWriter);
    builder
}

/// The catalog database.
#[derive(Debug)]
pub struct Catalog {
    path: PathBuf,
    db: Db,
    /// Its format version, which decides what `pages` values hold.
    version: FormatVersion,
}

// Transaction bodies return redb's own (large) error type; it is boxed once,
// at the boundary, by `catalog_error`.
#[allow(clippy::result_large_err)]
impl Catalog {
    /// Creates a catalog at `path` (which must not exist) with `options` and
    /// `sketch` options, writes its meta table in one durable commit and
    /// closes it. The caller publishes it by renaming the file.
    pub(crate) fn create(
        path: &Path,
        options: &ExtractOptions,
        sketch: &SketchOptions,
    ) -> Result<()> {
        contain_panics(path, || {
            fs::before(fs::Op::Create, path).at(path)?;
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(path)
                .at(path)?;
            let db = builder()
                .create_with_backend(SeamBackend::new(file, path)?)
                .map_err(|e| catalog_error(path, e))?;
            let catalog = Catalog {
                path: path.to_path_buf(),
                db: Db::Writer(db),
                version: FormatVersion::CURRENT,
            };
            catalog.write(|txn| {
                let mut meta = txn.open_table(META)?;
                meta.insert(
                    META_FORMAT_VERSION,
                    FormatVersion::CURRENT.number().to_le_bytes().as_slice(),
                )?;
                meta.insert(META_EXTRACT_OPTIONS, encode_options(options).as_slice())?;
                meta.insert(META_NEXT_BOOK_ID, 0u32.to_le_bytes().as_slice())?;
                meta.insert(
                    META_SKETCH_OPTIONS,
                    encode_sketch_options(sketch).as_slice(),
                )?;
                txn.open_table(SEGMENTS)?;
                txn.open_table(BOOKS)?;
                txn.open_table(KEYS)?;
                txn.open_table(BARRELS)?;
                txn.open_table(PAGES)?;
                txn.open_table(PAGE_FILES)?;
                Ok(())
            })?;
            catalog.close()
        })
    }

    /// Opens the catalog at `path` with `access`, checking its format
    /// version; returns it with the options the index was created with. A
    /// catalog in redb's file format 2 (stemmata formats 1 to 4) is
    /// `UpgradeRequired`. Opening for writing reads the catalog read-only
    /// first, so that a catalog refused is never written.
    pub fn open(path: &Path, access: Access) -> Result<(Self, CatalogOptions)> {
        if access == Access::ReadWrite {
            // Read first: a catalog this build must refuse (a newer or
            // older format, damaged options) is refused without a write.
            Catalog::open(path, Access::ReadOnly)?.0.close()?;
        }
        contain_panics(path, || {
            let db = match access {
                Access::ReadWrite => Catalog::open_writer(path).map(Db::Writer),
                Access::ReadOnly => match builder().open_read_only(path) {
                    Err(redb::DatabaseError::RepairAborted) => {
                        Catalog::open_recovered(path).map(Db::Recovered)
                    }
                    other => other.map(Db::Reader),
                },
            }
            .map_err(|e| open_error(path, e))?;
            let mut catalog = Catalog {
                path: path.to_path_buf(),
                db,
                version: FormatVersion::OLDEST,
            };
            let options = catalog.read_options()?;
            catalog.version = options.version;
            Ok((catalog, options))
        })
    }

    /// Opens the catalog at `path` for writing, every write through the
    /// file seam ([`SeamBackend`]); a symbolic link there is refused.
    fn open_writer(path: &Path) -> std::result::Result<Database, redb::DatabaseError> {
        let refused = |e: Error| {
            redb::DatabaseError::Storage(redb::StorageError::Io(std::io::Error::other(
                e.to_string(),
            )))
        };
        fs::refuse_link(path).map_err(refused)?;
        fs::before(fs::Op::Open, path)?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)?;
        builder().create_with_backend(SeamBackend::new(file, path).map_err(refused)?)
    }

    /// Opens the catalog at `path`, whose last writer did not close it,
    /// through a [`MemoryOverlay`] of the file opened read-only: redb's
    /// repair reads the file and writes only to memory.
    fn open_recovered(path: &Path) -> std::result::Result<Database, redb::DatabaseError> {
        let file = std::fs::File::open(path)?;
        // Alone with its overlay: no other process shares it.
        redb::Builder::new().create_with_backend(MemoryOverlay::new(file)?)
    }

    /// Reads and checks the format version and the creation options.
    fn read_options(&self) -> Result<CatalogOptions> {
        let snapshot = self.snapshot()?;
        let version = snapshot.meta(META_FORMAT_VERSION)?;
        let version = <[u8; 2]>::try_from(version.as_slice())
            .map(u16::from_le_bytes)
            .map_err(|_| self.corrupted("format_version is not 2 bytes"))?;
        let version = FormatVersion::checked(version, &self.path)?;
        let extract = decode_options(&snapshot.meta(META_EXTRACT_OPTIONS)?)
            .ok_or_else(|| self.corrupted("extract_options do not decode"))?;
        let sketch = if version.has_sketches() {
            let bytes = snapshot.meta(META_SKETCH_OPTIONS)?;
            Some(
                decode_sketch_options(&bytes)
                    .ok_or_else(|| self.corrupted("sketch_options do not decode"))?,
            )
        } else {
            None
        };
        Ok(CatalogOptions {
            version,
            extract,
            sketch,
        })
    }

    /// Closes the database, returning what redb reports on the way (a
    /// dropped database ignores it).
    pub(crate) fn close(mut self) -> Result<()> {
        let db = std::mem::replace(&mut self.db, Db::Closed);
        contain_panics(&self.path, || {
            match db {
                Db::Writer(db) | Db::Recovered(db) => db.close(),
                Db::Reader(db) => db.close(),
                Db::Closed => Ok(()),
            }
            .map_err(|e| catalog_error(&self.path, e))
        })
    }

    /// Checks the whole catalog file as redb knows it (every page's checksum
    /// and every tree), through a [`MemoryOverlay`]: the file itself is
    /// never written. `Corrupted` names the file when anything is damaged.
    pub(crate) fn check_integrity(path: &Path) -> Result<u64> {
        let file = std::fs::File::open(path).at(path)?;
        let len = file.metadata().at(path)?.len();
        let damaged = |detail: String| {
            Error::corrupted(
                path.to_path_buf(),
                format!("the catalog database is damaged ({detail})"),
            )
        };
        contain_panics(path, || {
            let backend = MemoryOverlay::new(file).at(path)?;
            // Alone with its overlay: no other process shares it.
            let mut db = redb::Builder::new()
                .create_with_backend(backend)
                .map_err(|e| damaged(e.to_string()))?;
            match db.check_integrity() {
                Ok(true) => Ok(len),
                Ok(false) => Err(damaged("redb's integrity check had to repair it".into())),
                Err(e) => Err(damaged(e.to_string())),
            }
        })
    }

    /// How the catalog is open.
    pub fn access(&self) -> Access {
        match self.db {
            Db::Writer(_) => Access::ReadWrite,
            Db::Reader(_) | Db::Recovered(_) | Db::Closed => Access::ReadOnly,
        }
    }

    /// The catalog file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn corrupted(&self, what: &str) -> Error {
        Error::corrupted(self.path.clone(), what.to_string())
    }

    /// Decodes the `pages` value of book `id` by the catalog's version.
    fn stored_pages(&self, bytes: &[u8], id: u32) -> Result<StoredPages> {
        if !self.version.has_page_files() {
            pages::decode_value(bytes, &self.path, id).map(StoredPages::Signatures)
        } else {
            PageLocator::decode(bytes, &self.path, id).map(StoredPages::Locator)
        }
    }

    fn write<T>(
        &self,
        f: impl FnOnce(&redb::WriteTransaction) -> std::result::Result<T, redb::Error>,
    ) -> Result<T> {
        let db = self.writer()?;
        let run = || -> std::result::Result<T, redb::Error> {
            let mut txn = db.begin_write()?;
            txn.set_quick_repair(true);
            let value = f(&txn)?;
            txn.commit()?;
            Ok(value)
        };
        run().map_err(|e| catalog_error(&self.path, e))
    }

    /// The database for writing; `ReadOnly` when it was opened read-only.
    fn writer(&self) -> Result<&Database> {
        match &self.db {
            Db::Writer(db) => Ok(db),
            Db::Reader(_) | Db::Recovered(_) | Db::Closed => Err(Error::ReadOnly(
                self.path.parent().unwrap_or(&self.path).to_path_buf(),
            )),
        }
    }

    /// A consistent read-only view of the catalog.
    pub fn snapshot(&self) -> Result<CatalogSnapshot<'_>> {
        contain_panics(&self.path, || {
            let txn = match &self.db {
                Db::Writer(db) | Db::Recovered(db) => db.begin_read(),
                Db::Reader(db) => db.begin_read(),
                Db::Closed => Err(redb::TransactionError::Storage(
                    redb::StorageError::DatabaseClosed,
                )),
            }
            .map_err(|e| catalog_error(&self.path, e))?;
            Ok(CatalogSnapshot { catalog: self, txn })
        })
    }

    /// Applies `batch` in one write transaction: after it returns, all of it is
    /// durable; if it fails, none of it is visible.
    pub fn commit(&self, batch: &CatalogBatch) -> Result<CommitOutcome> {
        contain_panics(&self.path, || {
            self.write(|txn| {
                let mut outcome = CommitOutcome::default();
                let mut books = txn.open_table(BOOKS)?;
                let mut keys = txn.open_table(KEYS)?;
                let mut pages = txn.open_table(PAGES)?;
                for key in &batch.delete_keys {
                    if let Some(old) = keys.remove(key.as_str())? {
                        books.remove(old.value())?;
                        pages.remove(old.value())?;
                        outcome.deleted += 1;
                    }
                }
                // Before the books: replacing a key within the batch then
                // removes the page signatures of the id it replaces.
                for (id, locator) in &batch.pages {
                    pages.insert(*id, locator.encode().as_slice())?;
                }
                let mut bytes = Vec::new();
                for (id, entry) in &batch.insert {
                    if let Some(old) = keys.insert(entry.key.as_str(), *id)? {
                        books.remove(old.value())?;
                        pages.remove(old.value())?;
                        outcome.replaced += 1;
                    }
                    bytes.clear();
                    entry.encode_into(&mut bytes);
                    books.insert(*id, bytes.as_slice())?;
                }
                let mut barrels = txn.open_table(BARRELS)?;
                for &(barrel, len) in &batch.barrel_lengths {
                    barrels.insert(barrel, len)?;
                }
                let mut page_files = txn.open_table(PAGE_FILES)?;
                for &(file, len) in &batch.page_file_lengths {
                    page_files.insert(file, len)?;
                }
                if !batch.add_segments.is_empty() || !batch.remove_segments.is_empty() {
                    let mut segments = txn.open_table(SEGMENTS)?;
                    for &number in &batch.remove_segments {
                        segments.remove(number)?;
                    }
                    for &(number, len) in &batch.add_segments {
                        segments.insert(number, len)?;
                    }
                }
                let mut meta = txn.open_table(META)?;
                meta.insert(
                    META_NEXT_BOOK_ID,
                    batch.next_book_id.to_le_bytes().as_slice(),
                )?;
                Ok(outcome)
            })
        })
    }
}

impl Catalog {
    /// Makes the catalog format `to_version` in one write transaction:
    /// `locators` become the `pages` entries of their books (a format-3
    /// catalog's page signatures moved into page files), `lengths` the
    /// committed lengths of those page files, and `format_version` becomes
    /// `to_version`. After an error, none of it is visible.
    #[allow(clippy::result_large_err)]
    pub(crate) fn upgrade(
        &self,
        to_version: FormatVersion,
        locators: &[(u32, PageLocator)],
        lengths: &[(u32, u64)],
    ) -> Result<()> {
        contain_panics(&self.path, || {
            self.write(|txn| {
                let mut pages = txn.open_table(PAGES)?;
                for (id, locator) in locators {
                    pages.insert(*id, locator.encode().as_slice())?;
                }
                let mut page_files = txn.open_table(PAGE_FILES)?;
                for &(file, len) in lengths {
                    page_files.insert(file, len)?;
                }
                let mut meta = txn.open_table(META)?;
                meta.insert(
                    META_FORMAT_VERSION,
                    to_version.number().to_le_bytes().as_slice(),
                )?;
                Ok(())
            })
        })
    }

    /// Converts the catalog file at `path` from redb's file format 2, which
    /// every stemmata format before 5 wrote, to redb's file format 3 in
    /// place, with the redb release that reads both. The caller runs it on
    /// a copy and publishes the copy by renaming it.
    pub(crate) fn convert_file_format(path: &Path) -> Result<()> {
        let failed = |e: &dyn std::fmt::Display| Error::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(format!(
                "converting the catalog to redb's file format 3 failed: {e}"
            )),
        };
        contain_panics(path, || {
            let mut db = redb2::Database::open(path).map_err(|e| failed(&e))?;
            db.upgrade().map_err(|e| failed(&e))?;
            drop(db);
            Ok(())
        })
    }

    /// Gives the space of removed and replaced values back to the file
    /// system: redb's compaction, repeated while it makes progress.
    pub fn compact(&mut self) -> Result<()> {
        let path = self.path.clone();
        let Db::Writer(db) = &mut self.db else {
            return Err(Error::ReadOnly(
                path.parent().unwrap_or(&path).to_path_buf(),
            ));
        };
        contain_panics(&path, || {
            while db.compact().map_err(|e| catalog_error(&path, e))? {}
            Ok(())
        })
    }
}

impl Drop for Catalog {
    /// Closes the database; a damaged file can make redb panic while it
    /// closes, which is contained here like every other panic of redb.
    fn drop(&mut self) {
        let db = std::mem::replace(&mut self.db, Db::Closed);
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(db)));
    }
}

/// A read transaction over the catalog.
pub struct CatalogSnapshot<'a> {
    catalog: &'a Catalog,
    txn: redb::ReadTransaction,
}

impl CatalogSnapshot<'_> {
    fn err(&self, e: impl Into<redb::Error>) -> Error {
        catalog_error(&self.catalog.path, e)
    }

    fn meta(&self, name: &str) -> Result<Vec<u8>> {
        contain_panics(&self.catalog.path, || {
            let table = self.txn.open_table(META).map_err(|e| self.err(e))?;
            let value = table.get(name).map_err(|e| self.err(e))?;
            value.map(|v| v.value().to_vec()).ok_or_else(|| {
                self.catalog
                    .corrupted(&format!("meta entry {name} missing"))
            })
        })
    }

    /// The next internal book id to hand out.
    pub fn next_book_id(&self) -> Result<u32> {
        let bytes = self.meta(META_NEXT_BOOK_ID)?;
        <[u8; 4]>::try_from(bytes.as_slice())
            .map(u32::from_le_bytes)
            .map_err(|_| self.catalog.corrupted("next_book_id is not 4 bytes"))
    }

    /// Every book with its internal id, in id order.
    pub fn books(&self) -> Result<Vec<(u32, BookEntry)>> {
        contain_panics(&self.catalog.path, || {
            let table = self.txn.open_table(BOOKS).map_err(|e| self.err(e))?;
            let mut out = Vec::new();
            for item in table.iter().map_err(|e| self.err(e))? {
                let (id, bytes) = item.map_err(|e| self.err(e))?;
                let entry = BookEntry::decode_from(bytes.value()).ok_or_else(|| {
                    self.catalog
                        .corrupted(&format!("book entry {} does not decode", id.value()))
                })?;
                out.push((id.value(), entry));
            }
            Ok(out)
        })
    }

    /// The internal id of the book stored under `key`.
    pub fn id_of(&self, key: &str) -> Result<Option<u32>> {
        contain_panics(&self.catalog.path, || {
            let table = self.txn.open_table(KEYS).map_err(|e| self.err(e))?;
            let value = table.get(key).map_err(|e| self.err(e))?;
            Ok(value.map(|v| v.value()))
        })
    }

    /// Number of key entries (must equal the number of books).
    pub fn key_count(&self) -> Result<u64> {
        contain_panics(&self.catalog.path, || {
            let table = self.txn.open_table(KEYS).map_err(|e| self.err(e))?;
            table.len().map_err(|e| self.err(e))
        })
    }

    /// Every listed segment with its length, in number order; none in a
    /// format-1 catalog.
    pub fn segments(&self) -> Result<Vec<(u32, u64)>> {
        self.lengths(SEGMENTS)
    }

    /// The `pages` entry of book `id`; `None` when it has none (one page,
    /// or a catalog older than format 3).
    pub fn pages(&self, id: u32) -> Result<Option<StoredPages>> {
        contain_panics(&self.catalog.path, || {
            let table = match self.txn.open_table(PAGES) {
                Ok(table) => table,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
                Err(e) => return Err(self.err(e)),
            };
            let value = table.get(id).map_err(|e| self.err(e))?;
            value
                .map(|bytes| self.catalog.stored_pages(bytes.value(), id))
                .transpose()
        })
    }

    /// Calls `f` with every book id that has a `pages` entry and that
    /// entry, in id order; stops at the first error.
    pub fn each_pages(&self, mut f: impl FnMut(u32, StoredPages) -> Result<()>) -> Result<()> {
        contain_panics(&self.catalog.path, || {
            let table = match self.txn.open_table(PAGES) {
                Ok(table) => table,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(()),
                Err(e) => return Err(self.err(e)),
            };
            for item in table.iter().map_err(|e| self.err(e))? {
                let (id, bytes) = item.map_err(|e| self.err(e))?;
                let id = id.value();
                f(id, self.catalog.stored_pages(bytes.value(), id)?)?;
            }
            Ok(())
        })
    }

    /// Every page file with its committed length, in number order; none
    /// before format 4.
    pub fn page_files(&self) -> Result<Vec<(u32, u64)>> {
        self.lengths(PAGE_FILES)
    }

    /// Every barrel with its committed length, in barrel order.
    pub fn barrels(&self) -> Result<Vec<(u32, u64)>> {
        self.lengths(BARRELS)
    }

    /// Every entry of a table of file numbers and lengths, in number order;
    /// none when the table does not exist.
    fn lengths(&self, definition: TableDefinition<u32, u64>) -> Result<Vec<(u32, u64)>> {
        contain_panics(&self.catalog.path, || {
            let table = match self.txn.open_table(definition) {
                Ok(table) => table,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(e) => return Err(self.err(e)),
            };
            let mut out = Vec::new();
            for item in table.iter().map_err(|e| self.err(e))? {
                let (number, len) = item.map_err(|e| self.err(e))?;
                out.push((number.value(), len.value()));
            }
            Ok(out)
        })
    }
}

/// redb's file backend with every write, sync and length change passing
/// through the file seam ([`fs::before`]) first, so that the catalog's
/// operations are counted and can fail like those of the other files.
#[derive(Debug)]
struct SeamBackend {
    inner: FileBackend,
    path: PathBuf,
}

impl SeamBackend {
    fn new(file: std::fs::File, path: &Path) -> Result<Self> {
        Ok(SeamBackend {
            inner: FileBackend::new(file).map_err(|e| catalog_error(path, e))?,
            path: path.to_path_buf(),
        })
    }
}

impl StorageBackend for SeamBackend {
    fn len(&self) -> std::io::Result<u64> {
        self.inner.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        self.inner.read(offset, out)
    }

    fn set_len(&self, len: u64) -> std::io::Result<()> {
        fs::before(fs::Op::Truncate, &self.path)?;
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> std::io::Result<()> {
        fs::before(fs::Op::Sync, &self.path)?;
        self.inner.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        fs::before(fs::Op::Write, &self.path)?;
        self.inner.write(offset, data)
    }

    fn close(&self) -> std::io::Result<()> {
        self.inner.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> LockResult<bool> {
        self.inner.try_lock_range(start, end)
    }

    fn try_lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> LockResult<bool> {
        self.inner.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> LockResult<()> {
        self.inner.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> LockResult<()> {
        self.inner.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> LockResult<()> {
        self.inner.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> LockResult<bool> {
        self.inner.query_lock_range(start, end)
    }
}

type LockResult<T> = std::result::Result<T, redb::BackendError>;

/// Runs `f`, turning a panic inside redb into `Corrupted`. redb does not
/// checksum pages on ordinary reads, and some damaged files make it panic;
/// a damaged catalog must be an error, never a crash.
fn contain_panics<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let detail = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(Error::corrupted(
            path.to_path_buf(),
            format!("catalog is damaged (the database engine failed: {detail})"),
        ))
    })
}

/// The error of opening the catalog at `path`: `Locked` while another
/// process writes, `UpgradeRequired` for redb's file format 2.
fn open_error(path: &Path, e: redb::DatabaseError) -> Error {
    let dir = path.parent().unwrap_or(path).to_path_buf();
    match e {
        redb::DatabaseError::DatabaseAlreadyOpen => Error::Locked(dir),
        redb::DatabaseError::UpgradeRequired(_) => Error::UpgradeRequired(dir),
        redb::DatabaseError::Storage(redb::StorageError::Io(source)) => Error::Io {
            path: path.to_path_buf(),
            source,
        },
        other => catalog_error(path, other),
    }
}

fn catalog_error(path: &Path, e: impl Into<redb::Error>) -> Error {
    Error::Catalog {
        path: path.to_path_buf(),
        source: Box::new(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn book_entries_round_trip(key in ".{0,40}", title in ".{0,40}", words in any::<u64>(),
                                   offset in any::<u64>(), barrel in any::<u32>()) {
            let entry = BookEntry { key, title, words, offset, barrel, language: "en".into(), ..Default::default() };
            let mut bytes = Vec::new();
            entry.encode_into(&mut bytes);
            prop_assert_eq!(BookEntry::decode_from(&bytes), Some(entry));
            prop_assert_eq!(BookEntry::decode_from(&bytes[..bytes.len() - 1]), None);
        }

        #[test]
        fn book_entry_decoder_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
            let _ = BookEntry::decode_from(&bytes);
        }
    }

    #[test]
    fn sketch_options_round_trip_and_reject_bad_bytes() {
        let options = SketchOptions {
            window_layout: BandLayout::SuperShingles { rows: 3, groups: 6 },
            ..SketchOptions::default()
        };
        let bytes = encode_sketch_options(&options);
        assert_eq!(bytes.len(), 40);
        assert_eq!(decode_sketch_options(&bytes), Some(options));
        assert_eq!(decode_sketch_options(&bytes[..39]), None);
        let mut bad_tag = bytes.clone();
        bad_tag[18] = 9;
        assert_eq!(decode_sketch_options(&bad_tag), None);
    }

    #[test]
    fn options_round_trip() {
        let options = ExtractOptions {
            max_term_freq: 3,
            ..ExtractOptions::default()
        };
        assert_eq!(decode_options(&encode_options(&options)), Some(options));
    }
}
