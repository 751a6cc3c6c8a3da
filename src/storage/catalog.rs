//! The catalog: a redb database holding the format version, the creation
//! options, the books, where the page signatures of paged books are (a
//! [`PageLocator`] into a page file; in format 3, the signatures
//! themselves, [`super::pages`]), the committed length of every barrel and
//! page file and the list of sketch segments. One write transaction
//! publishes a batch of books; a read transaction is a snapshot.

use super::codec::{put_str, put_u16, put_u32, put_u64, Cursor, Decode, Encode};
use super::fs;
use super::overlay::MemoryOverlay;
use redb::backends::FileBackend;
use redb::{
    ConcurrencyMode, Database, ReadOnlyDatabase, ReadableDatabase, ReadableTable,
    ReadableTableMetadata, StorageBackend, TableDefinition,
};
use std::ops::Bound;
use std::path::{Path, PathBuf};

use super::dictionary_file::DictionaryEntry;
use super::format::FormatVersion;
use super::page_files::PageLocator;
use super::pages;
use super::word_images::{ImageBookEntry, ImageFiles};
use crate::error::IoContext;
use crate::error::{Error, Result};
use crate::repr::sketch::{BandLayout, SketchOptions};
use crate::repr::ShingleHash;
use crate::repr::{ExtractOptions, MinHashOptions, MinHashSig, PartOptions, SimHashOptions};
use crate::text::MAX_WORD_BYTES;

const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const BOOKS: TableDefinition<u32, &[u8]> = TableDefinition::new("books");
const KEYS: TableDefinition<&str, u32> = TableDefinition::new("keys");
const BARRELS: TableDefinition<u32, u64> = TableDefinition::new("barrels");
const SEGMENTS: TableDefinition<u32, u64> = TableDefinition::new("segments");
const PAGES: TableDefinition<u32, &[u8]> = TableDefinition::new("pages");
const PAGE_FILES: TableDefinition<u32, u64> = TableDefinition::new("page_files");
/// Ids of books deleted or replaced while a listed segment still holds
/// them (format 7 on): readers skip them without reading `books`.
const DEAD_BOOKS: TableDefinition<u32, ()> = TableDefinition::new("dead_books");
/// Bilingual dictionaries by name (format 8 on): their files and counts.
const DICTIONARIES: TableDefinition<&str, &[u8]> = TableDefinition::new("dictionaries");
/// Books of word images by key (format 9 on): their files and counts.
const WORD_IMAGES: TableDefinition<&str, &[u8]> = TableDefinition::new("word_images");

const META_FORMAT_VERSION: &str = "format_version";
const META_EXTRACT_OPTIONS: &str = "extract_options";
const META_NEXT_BOOK_ID: &str = "next_book_id";
const META_SKETCH_OPTIONS: &str = "sketch_options";
const META_PART_OPTIONS: &str = "part_options";
/// The vocabulary and search files of the word images (format 9 on; absent
/// until the first book of word images is added).
const META_WORD_IMAGES: &str = "word_images";
/// Times `verify` runs redb's integrity check before it calls the catalog
/// damaged (see `Catalog::check_integrity`).
const INTEGRITY_ATTEMPTS: u32 = 3;

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

impl Encode for BookEntry {
    /// The entry's bytes (layout in storage-format.md, section 6.2).
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u32(out, self.barrel);
        put_u64(out, self.offset);
        put_u32(out, self.record_len);
        put_u64(out, self.words);
        put_u32(out, self.pages);
        put_u32(out, self.unique_words);
        put_u32(out, self.distinct_words);
        for s in [&self.key, &self.title, &self.author, &self.language] {
            put_str(out, s);
        }
    }
}

impl Decode for BookEntry {
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        Ok(BookEntry {
            barrel: c.u32()?,
            offset: c.u64()?,
            record_len: c.u32()?,
            words: c.u64()?,
            pages: c.u32()?,
            unique_words: c.u32()?,
            distinct_words: c.u32()?,
            key: c.string("key")?,
            title: c.string("title")?,
            author: c.string("author")?,
            language: c.string("language")?,
        })
    }
}

/// The catalog's 24-byte `extract_options`: the options, then the longest
/// word in bytes the index was built with.
impl Encode for ExtractOptions {
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u64(out, self.hash_seed);
        put_u32(out, self.max_term_freq);
        put_u32(out, self.alpha_window);
        put_u32(out, self.alpha_min_share_permille);
        put_u32(out, MAX_WORD_BYTES as u32);
    }
}

impl Decode for ExtractOptions {
    /// Refuses options written for another longest word than this build's.
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        let options = ExtractOptions {
            hash_seed: c.u64()?,
            max_term_freq: c.u32()?,
            alpha_window: c.u32()?,
            alpha_min_share_permille: c.u32()?,
        };
        let max_word_bytes = c.u32()?;
        if max_word_bytes as usize != MAX_WORD_BYTES {
            return Err(c.error_at(
                c.position() - 4,
                format!(
                    "words of at most {max_word_bytes} bytes; this build cuts words at {MAX_WORD_BYTES}"
                ),
            ));
        }
        Ok(options)
    }
}

/// The catalog's 8-byte `part_options` (format 6): the volume threshold
/// and the part length, in words.
impl Encode for PartOptions {
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u32(out, self.volume_words);
        put_u32(out, self.part_words);
    }
}

impl Decode for PartOptions {
    /// Refuses options [`PartOptions::validate`] refuses.
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        let at = c.position();
        let options = PartOptions {
            volume_words: c.u32()?,
            part_words: c.u32()?,
        };
        options
            .validate()
            .map_err(|e| c.error_at(at, e.to_string()))?;
        Ok(options)
    }
}

/// The catalog's 41 bytes of sketch options (layout in storage-format.md);
/// the 40 bytes formats 2 to 16 wrote, without the shingle hash, read as
/// [`ShingleHash::JoinedWords`].
impl Encode for SketchOptions {
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u16(out, self.book.shingle_len as u16);
        put_u16(out, self.book.num_hashes as u16);
        put_u64(out, self.book.seed);
        put_u16(out, self.window_hashes as u16);
        put_u32(out, self.window_shingles);
        for layout in [self.book_layout, self.window_layout] {
            let (tag, a, b) = match layout {
                BandLayout::Bands { bands, rows } => (0u8, bands, rows),
                BandLayout::SuperShingles { rows, groups } => (1u8, groups, rows),
            };
            out.push(tag);
            put_u16(out, a);
            put_u16(out, b);
        }
        put_u16(out, self.simhash.ngram_chars as u16);
        put_u64(out, self.simhash.seed);
        put_u16(out, self.simhash_distance as u16);
        out.push(match self.book.shingle_hash {
            ShingleHash::JoinedWords => 0,
            ShingleHash::WordHashes => 1,
        });
    }
}

impl Decode for SketchOptions {
    /// Refuses bytes that are not a valid set of options.
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        let start = c.position();
        let shingle_len = c.u16()? as usize;
        let num_hashes = c.u16()? as usize;
        let seed = c.u64()?;
        let window_hashes = c.u16()? as usize;
        let window_shingles = c.u32()?;
        let layout = |c: &mut Cursor<'_>| -> Result<BandLayout> {
            let tag = c.u8()?;
            let (a, b) = (c.u16()?, c.u16()?);
            match tag {
                0 => Ok(BandLayout::Bands { bands: a, rows: b }),
                1 => Ok(BandLayout::SuperShingles { rows: b, groups: a }),
                _ => Err(c.error_at(c.position() - 5, format!("unknown band layout {tag}"))),
            }
        };
        let (book_layout, window_layout) = (layout(c)?, layout(c)?);
        let simhash = SimHashOptions {
            ngram_chars: c.u16()? as usize,
            seed: c.u64()?,
        };
        let simhash_distance = u32::from(c.u16()?);
        let shingle_hash = match c.remaining() {
            0 => ShingleHash::JoinedWords,
            _ => match c.u8()? {
                0 => ShingleHash::JoinedWords,
                1 => ShingleHash::WordHashes,
                tag => {
                    return Err(c.error_at(c.position() - 1, format!("unknown shingle hash {tag}")))
                }
            },
        };
        let options = SketchOptions {
            book: MinHashOptions {
                shingle_len,
                num_hashes,
                seed,
                shingle_hash,
            },
            window_hashes,
            window_shingles,
            book_layout,
            window_layout,
            simhash,
            simhash_distance,
        };
        match options.validate() {
            Ok(()) => Ok(options),
            Err(Error::InvalidArgument(why)) => Err(c.error_at(start, why)),
            Err(other) => Err(c.error_at(start, other.to_string())),
        }
    }
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
    /// Dead book ids no listed segment holds any more (a merge dropped them).
    pub forget_dead: Vec<u32>,
    /// The next internal id to hand out.
    pub next_book_id: u32,
}

/// The catalog side of a compaction (`Catalog::relocate`): the books
/// whose records moved to new barrels, the page locators that moved to new
/// page files, and the barrels and page files replaced. Applied in one
/// transaction under the writer lock, so the entries are those read before.
#[derive(Debug, Default)]
pub struct Relocation {
    /// Books with their entries pointing at their new records.
    pub books: Vec<(u32, BookEntry)>,
    /// New page locators of books whose page records moved.
    pub pages: Vec<(u32, PageLocator)>,
    /// Barrels to unlist (their live records moved).
    pub remove_barrels: Vec<u32>,
    /// Page files to unlist.
    pub remove_page_files: Vec<u32>,
    /// New barrels to list, with their committed lengths.
    pub add_barrels: Vec<(u32, u64)>,
    /// New page files to list, with their committed lengths.
    pub add_page_files: Vec<(u32, u64)>,
    /// The segments that replace the listed ones (format 7 on: segments
    /// hold the entries that moved), with their lengths.
    pub add_segments: Vec<(u32, u64)>,
    /// Segments to unlist.
    pub remove_segments: Vec<u32>,
    /// Dead book ids the replaced segments held.
    pub forget_dead: Vec<u32>,
}

/// The listed segments an upgrade replaces, and the one it lists instead.
#[derive(Debug, Default)]
pub struct SegmentSwap {
    /// The new segment and its length.
    pub add: Option<(u32, u64)>,
    /// The segments it replaces.
    pub remove: Vec<u32>,
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
    /// Where books are cut into parts; [`PartOptions::NEVER`] before
    /// format 6.
    pub parts: PartOptions,
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
        parts: &PartOptions,
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
                meta.insert(META_EXTRACT_OPTIONS, options.encode().as_slice())?;
                meta.insert(META_NEXT_BOOK_ID, 0u32.to_le_bytes().as_slice())?;
                meta.insert(META_SKETCH_OPTIONS, sketch.encode().as_slice())?;
                meta.insert(META_PART_OPTIONS, parts.encode().as_slice())?;
                txn.open_table(SEGMENTS)?;
                txn.open_table(BOOKS)?;
                txn.open_table(KEYS)?;
                txn.open_table(BARRELS)?;
                txn.open_table(PAGES)?;
                txn.open_table(PAGE_FILES)?;
                txn.open_table(DICTIONARIES)?;
                txn.open_table(WORD_IMAGES)?;
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
            Catalog::open_as(path, Access::ReadOnly)?.0.close()?;
        }
        Catalog::open_as(path, access)
    }

    /// Opens the catalog at `path` with `access` and reads its options,
    /// with no check before a write.
    fn open_as(path: &Path, access: Access) -> Result<(Self, CatalogOptions)> {
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

    /// Opens the catalog at `path` for writing when its index has the
    /// format this build writes, else for reading only: this build only
    /// reads an older format, and opening a redb database for writing
    /// writes to its file even when nothing is committed, so a writer is
    /// refused such an index (`OldFormat`) without a byte of it written.
    pub fn open_writable_if_current(path: &Path) -> Result<(Self, CatalogOptions)> {
        let (reader, options) = Catalog::open_as(path, Access::ReadOnly)?;
        if !options.version.is_current() {
            return Ok((reader, options));
        }
        // The read above is the check `open` makes before a write.
        reader.close()?;
        Catalog::open_as(path, Access::ReadWrite)
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

    /// The catalog file at `path` as a process opening it now would read
    /// it (redb's repair, if it needs one, on a [`MemoryOverlay`]: the file
    /// is never written), beside this process's own handle. A writer that
    /// saw its commit fail asks it whether the commit landed all the same.
    pub(crate) fn on_disk(path: &Path) -> Result<Catalog> {
        let db = contain_panics(path, || {
            Catalog::open_recovered(path).map_err(|e| open_error(path, e))
        })?;
        Ok(Catalog {
            path: path.to_path_buf(),
            db: Db::Recovered(db),
            version: FormatVersion::CURRENT,
        })
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
        let extract = ExtractOptions::decode_all(&snapshot.meta(META_EXTRACT_OPTIONS)?, &self.path)
            .map_err(|e| e.context("meta entry extract_options"))?;
        let sketch = if version.has_sketches() {
            let bytes = snapshot.meta(META_SKETCH_OPTIONS)?;
            Some(
                SketchOptions::decode_all(&bytes, &self.path)
                    .map_err(|e| e.context("meta entry sketch_options"))?,
            )
        } else {
            None
        };
        let parts = if version.has_parts() {
            PartOptions::decode_all(&snapshot.meta(META_PART_OPTIONS)?, &self.path)
                .map_err(|e| e.context("meta entry part_options"))?
        } else {
            PartOptions::NEVER
        };
        Ok(CatalogOptions {
            version,
            extract,
            sketch,
            parts,
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
        // The overlay reads the live file page by page: a commit of a
        // writer in this or another process while it reads can show it a
        // torn file. A damaged catalog fails every attempt; a race, rarely
        // more than one.
        let mut attempt = 0;
        loop {
            match Catalog::check_integrity_once(path) {
                Err(Error::Corrupted { .. }) if attempt < INTEGRITY_ATTEMPTS - 1 => {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20 << attempt));
                }
                other => return other,
            }
        }
    }

    fn check_integrity_once(path: &Path) -> Result<u64> {
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
            PageLocator::decode_all(bytes, &self.path)
                .map(StoredPages::Locator)
                .map_err(|e| e.context(format_args!("page locator of book id {id}")))
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
                let mut dead = txn.open_table(DEAD_BOOKS)?;
                for key in &batch.delete_keys {
                    if let Some(old) = keys.remove(key.as_str())? {
                        books.remove(old.value())?;
                        pages.remove(old.value())?;
                        dead.insert(old.value(), ())?;
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
                        dead.insert(old.value(), ())?;
                        outcome.replaced += 1;
                    }
                    bytes.clear();
                    entry.encode_into(&mut bytes);
                    books.insert(*id, bytes.as_slice())?;
                    dead.remove(*id)?;
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
                for id in &batch.forget_dead {
                    dead.remove(id)?;
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
    /// Applies a compaction's `relocation` in one write transaction: after
    /// it returns, every moved book and page locator points at its new
    /// record and only the new files are listed; after an error, none of
    /// it is visible.
    #[allow(clippy::result_large_err)]
    pub(crate) fn relocate(&self, relocation: &Relocation) -> Result<()> {
        contain_panics(&self.path, || {
            self.write(|txn| {
                let mut books = txn.open_table(BOOKS)?;
                let mut bytes = Vec::new();
                for (id, entry) in &relocation.books {
                    bytes.clear();
                    entry.encode_into(&mut bytes);
                    books.insert(*id, bytes.as_slice())?;
                }
                let mut pages = txn.open_table(PAGES)?;
                for (id, locator) in &relocation.pages {
                    pages.insert(*id, locator.encode().as_slice())?;
                }
                let mut barrels = txn.open_table(BARRELS)?;
                for &number in &relocation.remove_barrels {
                    barrels.remove(number)?;
                }
                for &(number, len) in &relocation.add_barrels {
                    barrels.insert(number, len)?;
                }
                let mut page_files = txn.open_table(PAGE_FILES)?;
                for &number in &relocation.remove_page_files {
                    page_files.remove(number)?;
                }
                for &(number, len) in &relocation.add_page_files {
                    page_files.insert(number, len)?;
                }
                if !relocation.add_segments.is_empty() || !relocation.remove_segments.is_empty() {
                    let mut segments = txn.open_table(SEGMENTS)?;
                    for &number in &relocation.remove_segments {
                        segments.remove(number)?;
                    }
                    for &(number, len) in &relocation.add_segments {
                        segments.insert(number, len)?;
                    }
                }
                if !relocation.forget_dead.is_empty() {
                    let mut dead = txn.open_table(DEAD_BOOKS)?;
                    for id in &relocation.forget_dead {
                        dead.remove(id)?;
                    }
                }
                Ok(())
            })
        })
    }
}

impl Catalog {
    /// Makes the catalog format `to_version` in one write transaction:
    /// `locators` become the `pages` entries of their books (a format-3
    /// catalog's page signatures moved into page files), `lengths` the
    /// committed lengths of those page files, `segments` replaces the
    /// listed segments (by one holding every book's sections, format 7),
    /// the default part options are set where there are none, and
    /// `format_version` becomes `to_version`. After an error, none of it is
    /// visible.
    #[allow(clippy::result_large_err)]
    pub(crate) fn upgrade(
        &self,
        to_version: FormatVersion,
        locators: &[(u32, PageLocator)],
        lengths: &[(u32, u64)],
        segments: &SegmentSwap,
    ) -> Result<()> {
        contain_panics(&self.path, || {
            self.write(|txn| {
                let mut listed = txn.open_table(SEGMENTS)?;
                for &number in &segments.remove {
                    listed.remove(number)?;
                }
                if let Some((number, len)) = segments.add {
                    listed.insert(number, len)?;
                }
                let mut pages = txn.open_table(PAGES)?;
                for (id, locator) in locators {
                    pages.insert(*id, locator.encode().as_slice())?;
                }
                let mut page_files = txn.open_table(PAGE_FILES)?;
                for &(file, len) in lengths {
                    page_files.insert(file, len)?;
                }
                if to_version.has_dictionaries() {
                    txn.open_table(DICTIONARIES)?;
                }
                if to_version.has_word_images() {
                    txn.open_table(WORD_IMAGES)?;
                }
                let mut meta = txn.open_table(META)?;
                meta.insert(
                    META_FORMAT_VERSION,
                    to_version.number().to_le_bytes().as_slice(),
                )?;
                if to_version.has_parts() && meta.get(META_PART_OPTIONS)?.is_none() {
                    meta.insert(
                        META_PART_OPTIONS,
                        PartOptions::default().encode().as_slice(),
                    )?;
                }
                Ok(())
            })
        })
    }

    /// Lists `entry` under `name` in the `dictionaries` table in one write
    /// transaction, in place of what it listed under that name, which it
    /// returns.
    #[allow(clippy::result_large_err)]
    pub(crate) fn put_dictionary(
        &self,
        name: &str,
        entry: &DictionaryEntry,
    ) -> Result<Option<DictionaryEntry>> {
        contain_panics(&self.path, || {
            let old = self.write(|txn| {
                let mut table = txn.open_table(DICTIONARIES)?;
                let old = table
                    .insert(name, entry.encode().as_slice())?
                    .map(|v| v.value().to_vec());
                Ok(old)
            })?;
            old.map(|bytes| {
                DictionaryEntry::decode_all(&bytes, &self.path)
                    .map_err(|e| e.context(format_args!("dictionaries entry {name:?}")))
            })
            .transpose()
        })
    }

    /// Lists `book`'s entry under its key in the `word_images` table (when
    /// given) and `files` as the `meta` entry `word_images`, in one write
    /// transaction, in place of what they listed, which it returns.
    #[allow(clippy::result_large_err)]
    pub(crate) fn put_word_images(
        &self,
        book: Option<(&str, &ImageBookEntry)>,
        files: &ImageFiles,
    ) -> Result<(Option<ImageBookEntry>, Option<ImageFiles>)> {
        contain_panics(&self.path, || {
            let (old_entry, old_files) = self.write(|txn| {
                let old_entry = match book {
                    Some((key, entry)) => txn
                        .open_table(WORD_IMAGES)?
                        .insert(key, entry.encode().as_slice())?
                        .map(|v| v.value().to_vec()),
                    None => None,
                };
                let mut meta = txn.open_table(META)?;
                let old_files = meta
                    .insert(META_WORD_IMAGES, files.encode().as_slice())?
                    .map(|v| v.value().to_vec());
                Ok((old_entry, old_files))
            })?;
            let old_entry = old_entry
                .map(|bytes| {
                    let key = book.map_or("", |(key, _)| key);
                    ImageBookEntry::decode_all(&bytes, &self.path)
                        .map_err(|e| e.context(format_args!("word_images entry {key:?}")))
                })
                .transpose()?;
            let old_files = old_files
                .map(|bytes| ImageFiles::decode_all(&bytes, &self.path))
                .transpose()?;
            Ok((old_entry, old_files))
        })
    }

    /// Unlists the dictionary `name` in one write transaction; returns its
    /// entry, `None` when none was listed under that name.
    #[allow(clippy::result_large_err)]
    pub(crate) fn remove_dictionary(&self, name: &str) -> Result<Option<DictionaryEntry>> {
        contain_panics(&self.path, || {
            let old = self.write(|txn| {
                let mut table = txn.open_table(DICTIONARIES)?;
                let old = table.remove(name)?.map(|v| v.value().to_vec());
                Ok(old)
            })?;
            old.map(|bytes| {
                DictionaryEntry::decode_all(&bytes, &self.path)
                    .map_err(|e| e.context(format_args!("dictionaries entry {name:?}")))
            })
            .transpose()
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
                let entry = BookEntry::decode_all(bytes.value(), &self.catalog.path)
                    .map_err(|e| e.context(format_args!("book entry {}", id.value())))?;
                out.push((id.value(), entry));
            }
            Ok(out)
        })
    }

    /// The entry of the book with internal id `id`, if it is stored.
    pub fn book(&self, id: u32) -> Result<Option<BookEntry>> {
        contain_panics(&self.catalog.path, || {
            let table = self.txn.open_table(BOOKS).map_err(|e| self.err(e))?;
            let Some(bytes) = table.get(id).map_err(|e| self.err(e))? else {
                return Ok(None);
            };
            BookEntry::decode_all(bytes.value(), &self.catalog.path)
                .map(Some)
                .map_err(|e| e.context(format_args!("book entry {id}")))
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

    /// Ids of books deleted or replaced that a listed segment may still
    /// hold, ascending; none before format 7.
    pub fn dead_books(&self) -> Result<Vec<u32>> {
        contain_panics(&self.catalog.path, || {
            let table = match self.txn.open_table(DEAD_BOOKS) {
                Ok(table) => table,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(e) => return Err(self.err(e)),
            };
            let mut out = Vec::new();
            for item in table.iter().map_err(|e| self.err(e))? {
                out.push(item.map_err(|e| self.err(e))?.0.value());
            }
            Ok(out)
        })
    }

    /// Every listed dictionary by name, in name order; none before format 8.
    pub fn dictionaries(&self) -> Result<Vec<(String, DictionaryEntry)>> {
        contain_panics(&self.catalog.path, || {
            let table = match self.txn.open_table(DICTIONARIES) {
                Ok(table) => table,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(e) => return Err(self.err(e)),
            };
            let mut out = Vec::new();
            for item in table.iter().map_err(|e| self.err(e))? {
                let (name, bytes) = item.map_err(|e| self.err(e))?;
                let name = name.value().to_string();
                let entry = DictionaryEntry::decode_all(bytes.value(), &self.catalog.path)
                    .map_err(|e| e.context(format_args!("dictionaries entry {name:?}")))?;
                out.push((name, entry));
            }
            Ok(out)
        })
    }

    /// Every listed book of word images by key, in key order; none before
    /// format 9.
    pub fn word_images(&self) -> Result<Vec<(String, ImageBookEntry)>> {
        contain_panics(&self.catalog.path, || {
            let table = match self.txn.open_table(WORD_IMAGES) {
                Ok(table) => table,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(e) => return Err(self.err(e)),
            };
            let mut out = Vec::new();
            for item in table.iter().map_err(|e| self.err(e))? {
                let (key, bytes) = item.map_err(|e| self.err(e))?;
                let key = key.value().to_string();
                let entry = ImageBookEntry::decode_all(bytes.value(), &self.catalog.path)
                    .map_err(|e| e.context(format_args!("word_images entry {key:?}")))?;
                out.push((key, entry));
            }
            Ok(out)
        })
    }

    /// The vocabulary and search files of the word images; `None` before
    /// the first book of word images.
    pub fn image_files(&self) -> Result<Option<ImageFiles>> {
        contain_panics(&self.catalog.path, || {
            let table = self.txn.open_table(META).map_err(|e| self.err(e))?;
            let value = table.get(META_WORD_IMAGES).map_err(|e| self.err(e))?;
            value
                .map(|v| {
                    ImageFiles::decode_all(v.value(), &self.catalog.path)
                        .map_err(|e| e.context("meta entry word_images"))
                })
                .transpose()
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
            let bytes = entry.encode();
            let path = Path::new("catalog.redb");
            prop_assert_eq!(BookEntry::decode_all(&bytes, path).unwrap(), entry);
            prop_assert!(BookEntry::decode_all(&bytes[..bytes.len() - 1], path).is_err());
            let mut longer = bytes.clone();
            longer.push(0);
            prop_assert!(BookEntry::decode_all(&longer, path).is_err());
        }

        #[test]
        fn book_entry_decoder_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
            let _ = BookEntry::decode_all(&bytes, Path::new("c"));
        }
    }

    #[test]
    fn sketch_options_round_trip_and_reject_bad_bytes() {
        let options = SketchOptions {
            window_layout: BandLayout::SuperShingles { rows: 3, groups: 6 },
            ..SketchOptions::default()
        };
        let bytes = options.encode();
        let path = Path::new("catalog.redb");
        assert_eq!(bytes.len(), 41);
        assert_eq!(SketchOptions::decode_all(&bytes, path).unwrap(), options);
        assert!(SketchOptions::decode_all(&bytes[..39], path).is_err());
        // Formats 2 to 16 wrote 40 bytes: their shingles are joined words.
        let old = SketchOptions::decode_all(&bytes[..40], path).unwrap();
        assert_eq!(old.book.shingle_hash, ShingleHash::JoinedWords);
        assert_eq!(old.encode(), [&bytes[..40], &[0]].concat());
        let mut bad_hash = bytes.clone();
        bad_hash[40] = 2;
        let error = SketchOptions::decode_all(&bad_hash, path).unwrap_err();
        assert!(
            error.to_string().contains("unknown shingle hash 2"),
            "{error}"
        );
        let mut long = bytes.clone();
        long.push(0);
        assert!(SketchOptions::decode_all(&long, path).is_err());
        let mut bad_tag = bytes.clone();
        bad_tag[18] = 9;
        let error = SketchOptions::decode_all(&bad_tag, path).unwrap_err();
        assert!(
            error.to_string().contains("unknown band layout 9"),
            "{error}"
        );
        let mut invalid = bytes.clone();
        invalid[38] = 64;
        let error = SketchOptions::decode_all(&invalid, path).unwrap_err();
        assert!(error.to_string().contains("simhash distance 64"), "{error}");
    }

    #[test]
    fn options_round_trip() {
        let options = ExtractOptions {
            max_term_freq: 3,
            ..ExtractOptions::default()
        };
        let path = Path::new("catalog.redb");
        let bytes = options.encode();
        assert_eq!(bytes.len(), 24);
        assert_eq!(ExtractOptions::decode_all(&bytes, path).unwrap(), options);
        let mut other_words = bytes.clone();
        other_words[20] ^= 1;
        let error = ExtractOptions::decode_all(&other_words, path).unwrap_err();
        assert!(
            error.to_string().contains("this build cuts words"),
            "{error}"
        );
    }
}
