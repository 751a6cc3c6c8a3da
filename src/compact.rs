//! Compaction of a whole index ([`crate::Index::compact`]): giving back the space
//! of deleted and replaced books.
//!
//! Deletes and replacing loads leave the records of the books they remove
//! in the barrels and page files as dead bytes, and their sketches in the
//! segments. A compaction copies the live records of every barrel and page
//! file that holds dead bytes, unchanged, into new files numbered above
//! every listed one (synced, their directory synced), then publishes them
//! in one catalog transaction that points every moved book's entry and
//! page locator at its new record and replaces the old files by the new
//! ones in `barrels` and `page_files`; only then are the old files
//! removed. Barrels created before format 11 are rewritten too, whatever
//! they hold, and their records that hold the element hashes beside the
//! positions are written with the positions alone (the segments hold the
//! elements; the moved entries take the new record lengths). It then merges
//! the segments without their dead sketches (the segment compaction of
//! [`crate::store::segments`], with no threshold) and compacts the catalog
//! database. Other files without dead bytes are left alone, so compacting a
//! compact index writes nothing but the catalog's own compaction.
//!
//! A crash before the transaction leaves new files that no commit lists:
//! readers never read them, and the next writer (a load or a compaction)
//! removes them (`Store::remove_unlisted_files`). A crash after it leaves old
//! files unlisted, removed the same way.
//!
//! Readers keep working across a compaction: a [`crate::Reader`] holds
//! every barrel and page file of its snapshot open from the moment it
//! opens, and an open file outlives its name, so it reads the records of
//! its snapshot whatever a compaction removes.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, IoContext, Result};
use crate::storage::append::{self, AppendWriter};
use crate::storage::barrel::{BarrelReader, EncodedSequence, Record};
use crate::storage::catalog::{BookEntry, Relocation, StoredPages};
use crate::storage::format::{FileKind, HEADER_LEN};
use crate::storage::page_files::PageLocator;
use crate::storage::pages;
use crate::storage::segment::{Segment, Unreadable};
use crate::storage::segment_merge::{self, Fate};
use crate::store::layout::DEFAULT_MAX_FILE_BYTES;
use crate::store::segments::{merge_chunks, MergeWeight};
use crate::store::Store;

/// Buffered bytes written out (and synced) while a new file grows.
const FLUSH_BYTES: u64 = 64 << 20;

/// Files and bytes of one kind of file before and after a compaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FileSizes {
    /// Listed files before.
    pub files_before: u64,
    /// Listed files after.
    pub files_after: u64,
    /// Their bytes before (committed lengths; the file size for the catalog).
    pub bytes_before: u64,
    /// Their bytes after.
    pub bytes_after: u64,
}

/// What [`crate::Index::compact`] did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CompactStats {
    /// Barrels (`barrels/`).
    pub barrels: FileSizes,
    /// Page files (`pages/`).
    pub page_files: FileSizes,
    /// Sketch segments (`segments/`).
    pub segments: FileSizes,
    /// The catalog (`catalog.redb`); one file, measured while it is still
    /// open: closing it writes the database's allocator state, a few pages
    /// more.
    pub catalog: FileSizes,
    /// Live barrel records copied into new barrels.
    pub records_moved: u64,
    /// Live page-signature records copied into new page files.
    pub page_records_moved: u64,
    /// Segments merged into one without their dead sketches (0 when none
    /// was merged).
    pub segments_merged: u64,
    /// Files removed: barrels, page files and segments replaced by the
    /// compaction, and files a stopped writer had left unlisted.
    pub files_removed: u64,
    /// Whether the catalog database was compacted.
    pub catalog_compacted: bool,
    /// What was left undone, and why (a damaged segment kept, the catalog
    /// not compacted while other handles are open); the rest was done.
    pub warnings: Vec<String>,
}

impl CompactStats {
    /// Bytes of barrels, page files, segments and catalog before.
    pub fn bytes_before(&self) -> u64 {
        [self.barrels, self.page_files, self.segments, self.catalog]
            .iter()
            .map(|s| s.bytes_before)
            .sum()
    }

    /// Bytes of barrels, page files, segments and catalog after.
    pub fn bytes_after(&self) -> u64 {
        [self.barrels, self.page_files, self.segments, self.catalog]
            .iter()
            .map(|s| s.bytes_after)
            .sum()
    }
}

/// Progress of a compaction: bytes of live records copied so far, of all
/// those to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactProgress {
    /// Bytes copied.
    pub copied: u64,
    /// Bytes to copy in all.
    pub total: u64,
}

/// Compacts the barrels, page files and segments of `store` (everything
/// but the catalog database, which needs the store alone: see
/// [`crate::Index::compact`]), holding the writer role meanwhile; returns
/// the sizes before and what was done.
pub(crate) fn compact_files(
    store: &Arc<Store>,
    progress: &mut dyn FnMut(CompactProgress),
) -> Result<CompactStats> {
    let writer = store.lock_writer()?;
    let mut stats = CompactStats::default();
    let catalog_path = store.catalog().path().to_path_buf();
    stats.catalog.files_before = 1;
    stats.catalog.bytes_before = file_len(&catalog_path)?;
    stats.files_removed += writer.unlisted_removed;
    let next_segment = crate::store::segments::prepare_dir(store)?;

    let snapshot = store.catalog().snapshot()?;
    let books = snapshot.books()?;
    let barrels = snapshot.barrels()?;
    let page_files = snapshot.page_files()?;
    let segments = snapshot.segments()?;
    let mut locators = Vec::new();
    snapshot.each_pages(|id, stored| {
        if let StoredPages::Locator(locator) = stored {
            locators.push((id, locator));
        }
        Ok(())
    })?;
    drop(snapshot);
    stats.barrels = sizes_before(&barrels);
    stats.page_files = sizes_before(&page_files);
    stats.segments = sizes_before(&segments);

    // The files holding dead bytes: committed bytes past the header that
    // no live record accounts for.
    let mut live_barrel_bytes: HashMap<u32, u64> = HashMap::new();
    for (_, entry) in &books {
        *live_barrel_bytes.entry(entry.barrel).or_default() += u64::from(entry.record_len);
    }
    let mut live_page_bytes: HashMap<u32, u64> = HashMap::new();
    for (_, locator) in &locators {
        *live_page_bytes.entry(locator.file).or_default() += u64::from(locator.len);
    }
    let mut rewrite_barrels = with_dead_bytes(&barrels, &live_barrel_bytes);
    rewrite_barrels.extend(created_before_positions_only(store, &barrels));
    let rewrite_pages = with_dead_bytes(&page_files, &live_page_bytes);
    let total: u64 = rewrite_barrels
        .keys()
        .map(|n| live_barrel_bytes.get(n).copied().unwrap_or(0))
        .chain(
            rewrite_pages
                .keys()
                .map(|n| live_page_bytes.get(n).copied().unwrap_or(0)),
        )
        .sum();
    let mut copied = Copied {
        done: 0,
        total,
        progress,
    };

    let mut relocation = Relocation::default();
    if !rewrite_barrels.is_empty() {
        let next = barrels.last().map_or(1, |&(n, _)| n + 1);
        let mut out = Output::new(FileKind::Barrel, next, |n| store.barrel_path(n));
        let mut moving: BTreeMap<u32, Vec<&(u32, BookEntry)>> = BTreeMap::new();
        for book in &books {
            if rewrite_barrels.contains_key(&book.1.barrel) {
                moving.entry(book.1.barrel).or_default().push(book);
            }
        }
        for (&number, &committed) in &rewrite_barrels {
            let reader = BarrelReader::open(&store.barrel_path(number), committed)?;
            let mut in_barrel = moving.remove(&number).unwrap_or_default();
            in_barrel.sort_by_key(|(_, entry)| entry.offset);
            for (id, entry) in in_barrel {
                let records = store.record_in(&reader, *id, entry)?;
                let bytes = match positions_only(*id, &records)? {
                    Some(bytes) => std::borrow::Cow::Owned(bytes),
                    None => reader.record_bytes(entry.offset, entry.record_len)?.into(),
                };
                let (barrel, offset) = out.append(&bytes)?;
                let moved = BookEntry {
                    barrel,
                    offset,
                    // No longer than the records it replaces.
                    record_len: bytes.len() as u32,
                    ..entry.clone()
                };
                relocation.books.push((*id, moved));
                copied.add(bytes.len());
            }
        }
        relocation.add_barrels = out.finish()?;
        relocation.remove_barrels = rewrite_barrels.keys().copied().collect();
        stats.records_moved = relocation.books.len() as u64;
    }
    if !rewrite_pages.is_empty() {
        let next = page_files.last().map_or(1, |&(n, _)| n + 1);
        let mut out = Output::new(FileKind::Pages, next, |n| store.page_file_path(n));
        let mut moving: BTreeMap<u32, Vec<(u32, PageLocator)>> = BTreeMap::new();
        for &(id, locator) in &locators {
            if rewrite_pages.contains_key(&locator.file) {
                moving.entry(locator.file).or_default().push((id, locator));
            }
        }
        for (&number, &committed) in &rewrite_pages {
            let path = store.page_file_path(number);
            let mut file = append::open_checked(&path, FileKind::Pages, committed)?;
            let mut in_file = moving.remove(&number).unwrap_or_default();
            in_file.sort_by_key(|(_, locator)| locator.offset);
            for (id, locator) in in_file {
                let bytes = append::read_committed(
                    &mut file,
                    &path,
                    committed,
                    locator.offset,
                    locator.len,
                )?;
                pages::decode_record(&bytes, &path, locator.offset, id)?;
                let (file, offset) = out.append(&bytes)?;
                relocation.pages.push((
                    id,
                    PageLocator {
                        file,
                        offset,
                        len: locator.len,
                    },
                ));
                copied.add(bytes.len());
            }
        }
        relocation.add_page_files = out.finish()?;
        relocation.remove_page_files = rewrite_pages.keys().copied().collect();
        stats.page_records_moved = relocation.pages.len() as u64;
    }
    let rewrote = !relocation.remove_barrels.is_empty() || !relocation.remove_page_files.is_empty();
    if rewrote {
        if store.format_version().has_compact_postings() {
            stats.segments_merged =
                relocate_segments(store, next_segment, &segments, &books, &mut relocation)?;
        }
        store.catalog().relocate(&relocation)?;
        let replaced: Vec<PathBuf> = (relocation.remove_barrels.iter())
            .map(|&n| store.barrel_path(n))
            .chain(
                relocation
                    .remove_page_files
                    .iter()
                    .map(|&n| store.page_file_path(n)),
            )
            .chain(
                relocation
                    .remove_segments
                    .iter()
                    .map(|&n| store.segment_path(n)),
            )
            .collect();
        let count = replaced.len() as u64;
        let not_removed = crate::store::unlisted::remove_after_commit(replaced);
        stats.files_removed += count - not_removed.len() as u64;
        stats.warnings.extend(not_removed);
    }

    let next_segment = next_segment + relocation.add_segments.len() as u32;
    let segment_compaction = crate::store::segments::compact(
        store,
        next_segment,
        &crate::store::segments::CompactionCause {
            dead_share: Some(0.0),
            ..Default::default()
        },
    )?;
    stats.segments_merged += segment_compaction.merged as u64;
    stats.files_removed += (segment_compaction.merged + segment_compaction.dropped) as u64;
    stats.warnings.extend(segment_compaction.warnings);

    Ok(stats)
}

/// Rewrites the listed segments, consecutive ones in book id order merged
/// into segments of at most `MAX_MERGED_BYTES`, with at most
/// `MAX_MERGED_LIST_BYTES` of posting lists (`store/segments.rs`), numbered
/// from `number`,
/// holding their live books with the entries and page locators
/// `relocation` moved, and adds them to `relocation` in place of the old
/// ones: segments hold each book's entry (format 7), so they change in the
/// transaction that moves the records. Memory stays at one merge's worth.
/// Every listed segment must be readable (`Corrupted` naming the first that
/// is not, before anything is published). Returns the segments rewritten.
fn relocate_segments(
    store: &Store,
    number: u32,
    listed: &[(u32, u64)],
    books: &[(u32, BookEntry)],
    relocation: &mut Relocation,
) -> Result<u64> {
    let live: HashMap<u32, &BookEntry> = books.iter().map(|(id, e)| (*id, e)).collect();
    let moved: HashMap<u32, &BookEntry> = relocation.books.iter().map(|(id, e)| (*id, e)).collect();
    let moved_pages: HashMap<u32, PageLocator> = relocation.pages.iter().copied().collect();
    let mut segments = Vec::with_capacity(listed.len());
    for &(n, len) in listed {
        let path = store.segment_path(n);
        let segment = Segment::open_checked(&path).map_err(|error| {
            Unreadable::of(&path, &error).error(
                "compacting the index rewrites every segment, so it cannot run until the \
                 segment is repaired; `stemmata verify` names the books to reload",
            )
        })?;
        segments.push((n, len, segment));
    }
    segments.sort_by_key(|(_, _, segment)| segment.book_id(0));
    let weights: Vec<MergeWeight> = (segments.iter())
        .map(|(_, len, segment)| MergeWeight::of(*len, segment))
        .collect();
    for (next, chunk) in (number..).zip(merge_chunks(&weights)) {
        let merging = &segments[chunk];
        for (n, _, segment) in merging {
            let dead = segment.book_ids().filter(|id| !live.contains_key(id));
            relocation.forget_dead.extend(dead);
            relocation.remove_segments.push(*n);
        }
        let refs: Vec<&Segment> = merging.iter().map(|(_, _, s)| s).collect();
        let fate = |id: u32| {
            if !live.contains_key(&id) {
                return Fate::Drop;
            }
            let (entry, locator) = (moved.get(&id), moved_pages.get(&id));
            if entry.is_none() && locator.is_none() {
                return Fate::Keep;
            }
            let stored = refs
                .iter()
                .find_map(|s| s.position_of_id(id).map(|p| s.entry(p)));
            match stored {
                Some(Ok((stored_entry, stored_pages))) => Fate::Relocate(
                    entry.map_or(stored_entry, |&e| e.clone()),
                    locator.copied().or(stored_pages),
                ),
                // Every segment was checked whole when opened above, so
                // its entries decode.
                _ => Fate::Keep,
            }
        };
        let len = segment_merge::write(&store.segment_path(next), &refs, fate)?;
        relocation.add_segments.push((next, len));
    }
    Ok(segments.len() as u64)
}

/// Fills in the sizes after the compaction, from the catalog as it is now.
pub(crate) fn measure_after(store: &Store, stats: &mut CompactStats) -> Result<()> {
    let snapshot = store.catalog().snapshot()?;
    let barrels = snapshot.barrels()?;
    let page_files = snapshot.page_files()?;
    let segments = snapshot.segments()?;
    drop(snapshot);
    after(&mut stats.barrels, &barrels);
    after(&mut stats.page_files, &page_files);
    after(&mut stats.segments, &segments);
    stats.catalog.files_after = 1;
    stats.catalog.bytes_after = file_len(store.catalog().path())?;
    Ok(())
}

fn file_len(path: &Path) -> Result<u64> {
    Ok(std::fs::metadata(path).at(path)?.len())
}

fn sizes_before(listed: &[(u32, u64)]) -> FileSizes {
    FileSizes {
        files_before: listed.len() as u64,
        bytes_before: listed.iter().map(|&(_, len)| len).sum(),
        ..FileSizes::default()
    }
}

fn after(sizes: &mut FileSizes, listed: &[(u32, u64)]) {
    sizes.files_after = listed.len() as u64;
    sizes.bytes_after = listed.iter().map(|&(_, len)| len).sum();
}

/// The files of `listed` (number → committed length) whose committed
/// bytes after the header exceed their `live` bytes.
fn with_dead_bytes(listed: &[(u32, u64)], live: &HashMap<u32, u64>) -> BTreeMap<u32, u64> {
    listed
        .iter()
        .filter(|&&(n, len)| len > HEADER_LEN as u64 + live.get(&n).copied().unwrap_or(0))
        .copied()
        .collect()
}

/// The listed `barrels` created before format 11, whose records may hold
/// the element hashes beside the positions: a compaction rewrites them
/// without the hashes (the segments hold the elements).
fn created_before_positions_only(store: &Store, barrels: &[(u32, u64)]) -> Vec<(u32, u64)> {
    // A barrel that cannot be opened is left alone, as before: `verify`
    // names it, and a rewrite would stop at its first record.
    barrels
        .iter()
        .copied()
        .filter(|&(number, committed)| {
            let path = store.barrel_path(number);
            append::open_with_header(&path, FileKind::Barrel, committed)
                .is_ok_and(|(_, header)| !header.version.has_positions_only_records())
        })
        .collect()
}

/// A book's `records` (those of book `id`) encoded again with their
/// positions alone, when any holds hashes (written before format 11);
/// `None` when they hold positions alone already and are copied as they
/// are.
fn positions_only(id: u32, records: &[Record]) -> Result<Option<Vec<u8>>> {
    if records.iter().all(|r| r.hashes.is_none()) {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    for record in records {
        EncodedSequence::encode(&record.positions)?.encode_into(id, &mut bytes);
    }
    Ok(Some(bytes))
}

/// Reports copied bytes.
struct Copied<'a> {
    done: u64,
    total: u64,
    progress: &'a mut dyn FnMut(CompactProgress),
}

impl Copied<'_> {
    fn add(&mut self, bytes: usize) {
        self.done += bytes as u64;
        (self.progress)(CompactProgress {
            copied: self.done,
            total: self.total,
        });
    }
}

/// New files of one kind, numbered from `next` on, that records are
/// copied into; a file is closed once it reaches [`DEFAULT_MAX_FILE_BYTES`].
struct Output<F: Fn(u32) -> PathBuf> {
    kind: FileKind,
    next: u32,
    path_of: F,
    current: Option<(u32, AppendWriter, u64)>,
    /// Closed files: number and synced length.
    written: Vec<(u32, u64)>,
}

impl<F: Fn(u32) -> PathBuf> Output<F> {
    fn new(kind: FileKind, next: u32, path_of: F) -> Self {
        Output {
            kind,
            next,
            path_of,
            current: None,
            written: Vec::new(),
        }
    }

    /// Copies `record`; returns the number of its file and its offset.
    fn append(&mut self, record: &[u8]) -> Result<(u32, u64)> {
        if let Some((_, writer, _)) = &self.current {
            if writer.len() >= DEFAULT_MAX_FILE_BYTES {
                self.close()?;
            }
        }
        if self.current.is_none() {
            self.open()?;
        }
        let (number, writer, synced) = self.current.as_mut().expect("opened above");
        let (offset, _) = writer.append(|out| out.extend_from_slice(record));
        if writer.len() - *synced >= FLUSH_BYTES {
            *synced = writer.sync()?;
        }
        Ok((*number, offset))
    }

    fn open(&mut self) -> Result<()> {
        let number = self.next;
        self.next = number
            .checked_add(1)
            .ok_or_else(|| Error::InvalidArgument("file numbers exhausted (2^32 files)".into()))?;
        let writer = AppendWriter::create(&(self.path_of)(number), self.kind)?;
        let len = writer.len();
        self.current = Some((number, writer, len));
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        if let Some((number, mut writer, _)) = self.current.take() {
            let len = writer.sync()?;
            self.written.push((number, len));
        }
        Ok(())
    }

    /// Syncs the last file; returns every file written with its length. At
    /// least one file is written, empty when no record was copied, so that
    /// the highest listed number never goes down: a file number is never
    /// used again for other bytes while an older reader may still look.
    fn finish(mut self) -> Result<Vec<(u32, u64)>> {
        if self.current.is_none() && self.written.is_empty() {
            self.open()?;
        }
        self.close()?;
        Ok(self.written)
    }
}
