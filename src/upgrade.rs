//! Upgrading an index written by an older build, in place.
//!
//! Formats 1 to 4 kept the catalog in redb's file format 2, which this
//! build's redb does not read. The upgrade works on a copy of the catalog,
//! `catalog.redb.upgrade`: converts it to redb's file format 3 (with the
//! redb release that reads both), moves a format-3 index's page signatures
//! from the catalog's `pages` values into page files (every value decoded
//! first, so a damaged one stops the upgrade before anything changes; the
//! page files synced before the catalog lists them), sets the format
//! version, compacts and syncs the copy, and then renames it over
//! `catalog.redb`. That rename is the one moment the index changes: a crash
//! before it leaves the old index as it was (with an unpublished copy and
//! unlisted page files, which the next upgrade or load replaces), a crash
//! after it leaves the upgraded index. Barrels are kept: the current
//! format writes them with the layouts of formats 3 and 4; segments are
//! rebuilt (below).
//!
//! The old catalog is only ever read: it is locked as older builds lock it
//! (an exclusive `flock`) while the upgrade runs, and the conversion works
//! on the copy, so a damaged old catalog stops the upgrade unchanged.
//!
//! A format-1 or format-2 index gets a converted catalog and keeps its
//! format: this build reads it but cannot load into it (its sketches or
//! page signatures would need the texts).
//!
//! A format-10 to format-22 index is upgraded by one catalog transaction:
//! its sketch options (before format 17 40 bytes, without the shingle
//! hash: its shingles stay joined words, so the books loaded after the
//! upgrade are sketched as its older ones), its segments (from format 14 the current layout; format 13: keys
//! book after book with a key order of numbers; before, each key twice and
//! `u32` list ends, and before format 12 no passages), its barrel records
//! (before format 13 `u32` deltas; before format 11 the hashes too), its
//! page-file records (before format 15 the high 32 bits of each value) and
//! its word-image files (book files before format 18 one box a word, the
//! OCR's; before format 19 no unit, and a vocabulary of descriptors scaled
//! to the box's height, by which later adds describe their pages too;
//! before format 20 every word's box within its OCR box; before format 21
//! every word one the OCR boxed; before format 22 a search file without
//! widths of letters or of images, whose kept model holds none until it is
//! learned again; before format 23 every book's terms from the index's
//! vocabulary, and no book's own widths) are read as they are, and a merge
//! rewrites the segments in the current layout.
//!
//! A format-5 to format-9 index (redb's file format 3 already) is upgraded
//! by writing one segment that holds every live book's book sections in
//! the compact layout of format 10 (entry, page locator, sequences read
//! from the hashes its barrel records hold, sketch from the old segments)
//! and one catalog transaction that
//! lists it in place of the old segments, creates the tables formats 8 and
//! 9 add (their directories made before it), sets the format version and,
//! for format 5, the default part options; the old segment files are
//! removed after it. Formats 3 and 4 get the same segment after their
//! conversion. A damaged listed segment stops the upgrade before anything
//! changes (its sketches would be lost). A format-5 index's books keep
//! their one whole-book record each: cutting a volume into parts needs its
//! text, so a volume loaded before the upgrade is found inside others only
//! as well as format 5 found it, until it is loaded again.

use std::path::Path;

use crate::error::{Error, IoContext, Result};
use crate::repr::MinHashSig;
use crate::storage::catalog::{Access, Catalog, SegmentSwap, StoredPages};
use crate::storage::format::{sync_parent_dir, FormatVersion};
use crate::storage::fs;
use crate::storage::page_files::{PageFileWriter, PageLocator};
use crate::storage::pages;
use crate::storage::segment;
use crate::store::layout::{
    CATALOG_FILE, DEFAULT_MAX_FILE_BYTES, DICTIONARY_DIR, IMAGE_DIR, PAGE_DIR, SEGMENT_DIR,
};
use crate::store::Store;

/// Page-file bytes written between two syncs: bounds what the writer buffers.
const SYNC_BYTES: usize = 64 << 20;

/// The copy of the catalog an upgrade works on, renamed over the catalog
/// when it is complete.
const UPGRADE_CATALOG_FILE: &str = "catalog.redb.upgrade";

/// What an upgrade did.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[non_exhaustive]
pub struct UpgradeStats {
    /// The format version the index had.
    pub from_version: u16,
    /// The format version it has now.
    pub to_version: u16,
    /// Whether the catalog was converted to redb's current file format.
    pub catalog_converted: bool,
    /// Books whose page signatures moved into page files.
    pub paged_books: u64,
    /// Page files written.
    pub page_files: u64,
    /// Bytes of those page files.
    pub page_file_bytes: u64,
    /// Catalog file size before the upgrade.
    pub catalog_bytes_before: u64,
    /// Catalog file size after it (the catalog is compacted).
    pub catalog_bytes_after: u64,
    /// What went wrong once the upgrade was committed (a replaced segment
    /// not removed: the next writer removes it).
    pub warnings: Vec<String>,
}

/// Where the page signatures went: each book's locator and each page
/// file's committed length.
#[derive(Default)]
struct Moved {
    locators: Vec<(u32, PageLocator)>,
    lengths: Vec<(u32, u64)>,
}

/// Appends records to page files numbered from 1, starting the next file
/// once one reaches the loader's default size.
struct Mover<'a> {
    store: &'a Store,
    file: Option<PageFileWriter>,
    next_file: u32,
    unsynced: usize,
    moved: Moved,
}

impl Mover<'_> {
    fn append(&mut self, id: u32, signatures: &[MinHashSig]) -> Result<()> {
        let k = signatures.first().map_or(0, |page| page.0.len());
        let record = pages::encode_record(id, signatures, k);
        if self.file.is_none() {
            let number = self.next_file;
            let path = self.store.page_file_path(number);
            self.file = Some(PageFileWriter::create(&path, number)?);
            self.next_file += 1;
        }
        let Some(file) = self.file.as_mut() else {
            unreachable!("page file started above")
        };
        self.moved.locators.push((id, file.append(&record)?));
        self.unsynced += record.len();
        if self.unsynced >= SYNC_BYTES {
            self.unsynced = 0;
            if file.sync()? >= DEFAULT_MAX_FILE_BYTES {
                self.close()?;
            }
        }
        Ok(())
    }

    /// Syncs the current page file and records its length.
    fn close(&mut self) -> Result<()> {
        if let Some(mut file) = self.file.take() {
            let len = file.sync()?;
            self.moved.lengths.push((file.number(), len));
        }
        Ok(())
    }
}

/// Copies the file `from` to a new file `to`, through the seam.
fn copy_file(from: &Path, to: &Path) -> Result<()> {
    let mut source = std::fs::File::open(from).at(from)?;
    let mut copy = fs::WriteFile::create_new(to)?;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = std::io::Read::read(&mut source, &mut buffer).at(from)?;
        if n == 0 {
            return Ok(());
        }
        copy.write_all(&buffer[..n])?;
    }
}

/// Opens the old catalog at `path` read-only and takes the exclusive
/// `flock` that redb 2 takes on it while open, so that no older build
/// opens it during the upgrade; `Locked` when one has it open.
fn lock_old_catalog(path: &Path, dir: &Path) -> Result<std::fs::File> {
    let file = std::fs::File::open(path).at(path)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::Locked(dir.to_path_buf())),
        Err(std::fs::TryLockError::Error(source)) => Err(Error::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn file_len(path: &Path) -> Result<u64> {
    Ok(std::fs::metadata(path).at(path)?.len())
}

/// Upgrades the index in `dir` in place to the current format (see the
/// module docs); an index of the current format is left as it is.
pub(crate) fn upgrade(dir: &Path) -> Result<UpgradeStats> {
    match Store::open(dir, Access::ReadOnly) {
        Ok(store) => {
            let from = store.format_version();
            let bytes = file_len(store.catalog().path())?;
            // Format 5 differs from 6 only by what it may store (books cut
            // into parts) and the part options: one transaction.
            let upgraded = !from.is_current() && from.has_page_files();
            let leftovers = from.is_current() && !crate::store::unlisted::find(&store)?.is_empty();
            if !upgraded && !leftovers {
                // Nothing to do, and nothing written: the catalog is only read.
                return Ok(UpgradeStats {
                    from_version: from.number(),
                    to_version: from.number(),
                    catalog_bytes_before: bytes,
                    catalog_bytes_after: bytes,
                    ..UpgradeStats::default()
                });
            }
            drop(store);
            let store = std::sync::Arc::new(Store::open_to_upgrade(dir)?);
            if leftovers {
                // An upgrade stopped after its commit: what it replaced is
                // removed, as by any writer.
                drop(store.lock_writer()?);
            }
            let mut warnings = Vec::new();
            if upgraded {
                prepare_new_dirs(store.dir())?;
                // Segments before format 10 are rewritten: format 10 stores
                // sequences and postings compactly. A format-10 to 14 index
                // keeps its segments, barrels and page files, read as they are.
                let swap = if from.has_compact_postings() {
                    SegmentSwap::default()
                } else {
                    rebuild_segments(&store)?
                };
                store
                    .catalog()
                    .upgrade(FormatVersion::CURRENT, &[], &[], &swap)?;
                warnings = remove_replaced(&store, &swap);
            }
            let to = if upgraded {
                FormatVersion::CURRENT
            } else {
                from
            };
            // Measured after the commit: a failure is a warning, not an
            // error of an upgrade that happened.
            let catalog_bytes_after = file_len(store.catalog().path()).unwrap_or_else(|error| {
                warnings.push(format!("the upgrade is committed, but: {error}"));
                0
            });
            Ok(UpgradeStats {
                from_version: from.number(),
                to_version: to.number(),
                catalog_bytes_before: bytes,
                catalog_bytes_after,
                warnings,
                ..UpgradeStats::default()
            })
        }
        Err(Error::UpgradeRequired(_)) => convert(dir),
        Err(other) => Err(other),
    }
}

/// Upgrades the index in `dir`, whose catalog is in redb's file format 2,
/// through a converted copy of its catalog (see the module docs).
fn convert(dir: &Path) -> Result<UpgradeStats> {
    let catalog_path = dir.join(CATALOG_FILE);
    let copy = dir.join(UPGRADE_CATALOG_FILE);
    // Locked until the copy replaces it, as older builds lock it: they wait
    // or fail meanwhile. The old catalog itself is only read.
    let original = lock_old_catalog(&catalog_path, dir)?;
    let mut stats = UpgradeStats {
        catalog_converted: true,
        catalog_bytes_before: file_len(&catalog_path)?,
        ..UpgradeStats::default()
    };
    fs::remove_stale(&copy)?;
    copy_file(&catalog_path, &copy)?;
    Catalog::convert_file_format(&copy)?;
    let (catalog, options) = Catalog::open(&copy, Access::ReadWrite)?;
    let from = options.version;
    stats.from_version = from.number();
    let store = Store::from_parts(dir, catalog, options);
    let mut replaced = SegmentSwap::default();
    if from.has_page_signatures() {
        prepare_new_dirs(dir)?;
    }
    if from.has_catalog_pages() {
        let Moved { locators, lengths } = move_pages(&store)?;
        store.catalog().upgrade(
            FormatVersion::CURRENT,
            &locators,
            &lengths,
            &SegmentSwap::default(),
        )?;
        stats.paged_books = locators.len() as u64;
        stats.page_files = lengths.len() as u64;
        stats.page_file_bytes = lengths.iter().map(|&(_, len)| len).sum();
    }
    drop(store);
    if from.has_page_signatures() {
        // The segments are rebuilt from the catalog as it now is, reopened:
        // every book's page locator in place.
        let (catalog, options) = Catalog::open(&copy, Access::ReadWrite)?;
        let store = Store::from_parts(dir, catalog, options);
        replaced = rebuild_segments(&store)?;
        let version = FormatVersion::CURRENT;
        store.catalog().upgrade(version, &[], &[], &replaced)?;
    }
    let (mut catalog, options) = Catalog::open(&copy, Access::ReadWrite)?;
    stats.to_version = options.version.number();
    catalog.compact()?;
    catalog.close()?;
    fs::WriteFile::open_existing(&copy)?.sync_all()?;
    fs::rename(&copy, &catalog_path)?;
    fs::sync_dir(dir)?;
    drop(original);
    for &n in &replaced.remove {
        let _ = fs::remove_file(&dir.join(SEGMENT_DIR).join(format!("{n:06}.seg")));
    }
    stats.catalog_bytes_after = file_len(&catalog_path)?;
    Ok(stats)
}

/// Writes one segment holding every live book of `store` with its book
/// sections (entry, page locator, sequences read from the barrels, and its
/// sketch from the listed segments), numbered above every file of the
/// segment directory, synced; returns it with the segments it replaces,
/// for the upgrade's catalog transaction. A listed segment that cannot be
/// read stops the upgrade before anything changes: its sketches would be
/// lost.
fn rebuild_segments(store: &Store) -> Result<SegmentSwap> {
    let number = crate::store::segments::prepare_dir(store)?;
    let snapshot = store.catalog().snapshot()?;
    let listed: Vec<u32> = snapshot.segments()?.into_iter().map(|(n, _)| n).collect();
    let (books, damaged) = crate::store::segments::books_from_catalog(store, &snapshot, true)?;
    drop(snapshot);
    if let Some(damage) = damaged {
        return Err(damage.error(
            "upgrading rewrites every segment with its books' sequences, so it cannot run \
             while a listed segment is damaged (its sketches would be lost); `stemmata verify` \
             names the books to reload with the build that wrote the index",
        ));
    }
    let k = store.sketch_options().map_or(1, |o| o.book.num_hashes);
    let len = segment::write(&store.segment_path(number), books, k)?;
    Ok(SegmentSwap {
        add: Some((number, len)),
        remove: listed,
    })
}

/// Makes the directories of the index in `dir` that format 8 and 9 add
/// (dictionaries, word images), synced, before the catalog transaction
/// that makes the index current.
fn prepare_new_dirs(dir: &Path) -> Result<()> {
    for name in [DICTIONARY_DIR, IMAGE_DIR] {
        let sub = dir.join(name);
        fs::create_dir_all(&sub)?;
        sync_parent_dir(&sub)?;
    }
    Ok(())
}

/// Removes the segment files an upgrade unlisted; returns the warnings of
/// those not removed (the next writer removes them).
fn remove_replaced(store: &Store, swap: &SegmentSwap) -> Vec<String> {
    let paths = swap.remove.iter().map(|&n| store.segment_path(n));
    crate::store::unlisted::remove_after_commit(paths)
}

/// Writes every `pages` value of the format-3 `index` as a page-file
/// record and syncs the files; returns the locators and the files'
/// committed lengths.
fn move_pages(store: &Store) -> Result<Moved> {
    let dir = store.dir().join(PAGE_DIR);
    fs::create_dir_all(&dir)?;
    sync_parent_dir(&dir)?;
    let mut mover = Mover {
        store,
        file: None,
        next_file: 1,
        unsynced: 0,
        moved: Moved::default(),
    };
    let snapshot = store.catalog().snapshot()?;
    snapshot.each_pages(|id, stored| match stored {
        StoredPages::Signatures(signatures) => mover.append(id, &signatures),
        StoredPages::Locator(_) => Err(Error::corrupted(
            store.catalog().path().to_path_buf(),
            format!("book id {id} has a page locator in a format-3 catalog"),
        )),
    })?;
    mover.close()?;
    Ok(mover.moved)
}
