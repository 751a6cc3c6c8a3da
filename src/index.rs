//! `Index`: one index directory. Creating and opening it, the writer lock,
//! deleting books, statistics and `verify`.
//!
//! Layout: `catalog.redb` (the catalog), `barrels/NNNNNN.brl` (the
//! sequences) and `segments/NNNNNN.seg` (sketches and band tables). An index directory is opened by one process at a time; inside
//! it, any number of [`Reader`]s and one [`BulkLoader`] work side by side.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::IoContext;
use crate::load::segments::MAX_DEAD_SHARE;
use crate::load::{BulkLoader, LoadOptions};
use crate::query::Reader;
use crate::repr::sketch::{BandLayout, SketchOptions};
use crate::repr::ExtractOptions;
use crate::storage::barrel::{BarrelReader, Record};
use crate::storage::catalog::{BookEntry, Catalog, CatalogBatch, CatalogOptions, CatalogSnapshot};
use crate::storage::format::FORMAT_VERSION;
use crate::{Error, Result};
use std::collections::HashMap;

const CATALOG_FILE: &str = "catalog.redb";
const BARREL_DIR: &str = "barrels";
const SEGMENT_DIR: &str = "segments";

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
        let catalog_path = dir.join(CATALOG_FILE);
        if catalog_path.exists() {
            return Err(Error::AlreadyExists(dir.to_path_buf()));
        }
        std::fs::create_dir_all(dir.join(BARREL_DIR)).at(dir)?;
        std::fs::create_dir_all(dir.join(SEGMENT_DIR)).at(dir)?;
        let catalog = Catalog::create(&catalog_path, &self.options, &self.sketch)?;
        let options = CatalogOptions {
            version: FORMAT_VERSION,
            extract: self.options,
            sketch: Some(self.sketch),
        };
        Ok(Index::from_parts(dir, catalog, options))
    }
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
}

/// What `verify` checked.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct VerifyStats {
    /// Books whose record was read and checked.
    pub books: u64,
    /// Records in barrels (live, deleted and replaced), all checksummed.
    pub records: u64,
    /// Barrel bytes read.
    pub bytes: u64,
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

    /// Opens the index in `dir`: checks the catalog's format version and
    /// every barrel's header and committed length. Reads nothing else.
    pub fn open(dir: impl AsRef<Path>) -> Result<Index> {
        let dir = dir.as_ref();
        let catalog_path = dir.join(CATALOG_FILE);
        if !catalog_path.is_file() {
            return Err(Error::NotAnIndex(dir.to_path_buf()));
        }
        let (catalog, options) = Catalog::open(&catalog_path)?;
        let index = Index::from_parts(dir, catalog, options);
        index.check_barrels()?;
        Ok(index)
    }

    fn from_parts(dir: &Path, catalog: Catalog, options: CatalogOptions) -> Index {
        Index {
            shared: Arc::new(Shared {
                dir: dir.to_path_buf(),
                catalog,
                options,
                writer_active: AtomicBool::new(false),
            }),
        }
    }

    fn check_barrels(&self) -> Result<()> {
        for (barrel, committed) in self.shared.catalog.snapshot()?.barrels()? {
            crate::storage::barrel::check(&self.barrel_path(barrel), committed)?;
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

    pub(crate) fn catalog(&self) -> &Catalog {
        &self.shared.catalog
    }

    pub(crate) fn segment_dir(&self) -> PathBuf {
        self.shared.dir.join(SEGMENT_DIR)
    }

    pub(crate) fn segment_path(&self, segment: u32) -> PathBuf {
        self.segment_dir().join(format!("{segment:06}.seg"))
    }

    pub(crate) fn barrel_path(&self, barrel: u32) -> PathBuf {
        self.shared
            .dir
            .join(BARREL_DIR)
            .join(format!("{barrel:06}.brl"))
    }

    /// Takes the writer role; `Err(Locked)` while another loader holds it.
    pub(crate) fn lock_writer(&self) -> Result<WriterGuard> {
        self.require_sketches("write (loads and deletes keep sketches)")?;
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
    /// many existed. Their records stay in the barrels as dead bytes.
    pub fn delete(&self, keys: &[&str]) -> Result<u64> {
        let _writer = self.lock_writer()?;
        let snapshot = self.catalog().snapshot()?;
        let batch = CatalogBatch {
            delete_keys: keys.iter().map(|k| k.to_string()).collect(),
            next_book_id: snapshot.next_book_id()?,
            ..CatalogBatch::default()
        };
        drop(snapshot);
        let deleted = self.catalog().commit(&batch)?.deleted;
        if deleted > 0 {
            let next_segment = crate::load::segments::prepare_dir(self)?;
            crate::load::segments::compact(self, next_segment, Some(MAX_DEAD_SHARE))?;
        }
        Ok(deleted)
    }

    /// Counts of books, words and bytes.
    pub fn stats(&self) -> Result<IndexStats> {
        let snapshot = self.catalog().snapshot()?;
        let books = snapshot.books()?;
        let barrels = snapshot.barrels()?;
        let catalog_path = self.catalog().path();
        Ok(IndexStats {
            books: books.len() as u64,
            words: books.iter().map(|(_, b)| b.words).sum(),
            unique_words: books.iter().map(|(_, b)| b.unique_words as u64).sum(),
            barrels: barrels.len() as u64,
            barrel_bytes: barrels.iter().map(|&(_, len)| len).sum(),
            live_record_bytes: books.iter().map(|(_, b)| b.record_len as u64).sum(),
            catalog_bytes: std::fs::metadata(catalog_path).at(catalog_path)?.len(),
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

    /// The record of book `id`, checked to belong to it.
    pub(crate) fn book_record(
        &self,
        barrels: &HashMap<u32, BarrelReader>,
        id: u32,
        entry: &BookEntry,
    ) -> Result<Record> {
        let reader = barrels.get(&entry.barrel).ok_or_else(|| Error::Corrupted {
            path: self.catalog().path().to_path_buf(),
            offset: 0,
            what: format!(
                "book {:?} points at unknown barrel {}",
                entry.key, entry.barrel
            ),
        })?;
        let record = reader.record_at(entry.offset)?;
        if record.book_id != id || record.sequence.len() != entry.unique_words as usize {
            return Err(Error::Corrupted {
                path: reader.path().to_path_buf(),
                offset: entry.offset,
                what: format!(
                    "record of book id {} with {} elements does not belong to book {:?} (id {id})",
                    record.book_id,
                    record.sequence.len(),
                    entry.key
                ),
            });
        }
        Ok(record)
    }

    /// Checks everything: every barrel record's checksum and payload, and that
    /// every book's catalog entry points at a record of that book.
    pub fn verify(&self) -> Result<VerifyStats> {
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
        Ok(stats)
    }
}
