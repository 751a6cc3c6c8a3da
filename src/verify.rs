//! `verify`: reads and checks everything an index stores, without writing.
//!
//! The catalog database itself (redb's integrity check, through an
//! in-memory overlay), every barrel record, every book's record against its
//! entry, every listed segment (length, checksum, layout, min-hashes, band
//! tables, each live book sketched exactly once) and every page signature;
//! it names the files the catalog does not list.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::error::{Error, IoContext, Result};
use crate::repr::sketch::{value_keys, BandLayout, SketchOptions, Table};
use crate::repr::MinHashSig;
use crate::storage::barrel::Record;
use crate::storage::catalog::{BookEntry, Catalog, CatalogSnapshot, StoredPages};
use crate::storage::page_files::PageFileReader;
use crate::storage::segment::{Segment, Unreadable};
use crate::store::Store;

/// What `verify` checked.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[non_exhaustive]
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
    /// Dictionaries whose file was read, checksummed, decoded and found to
    /// match its catalog row (none before format 8).
    pub dictionaries: u64,
    /// Bytes of those dictionary files.
    pub dictionary_bytes: u64,
    /// Books of word images whose file was read, checksummed, decoded and
    /// found to match its catalog row and the search file (none before
    /// format 9).
    pub image_books: u64,
    /// Bytes of the word-image files: books, vocabulary and search file.
    pub image_bytes: u64,
    /// Files of the index's kinds that the catalog does not list, relative
    /// to the index directory, sorted: left by a writer that stopped (or,
    /// while a writer runs, the files it has not listed yet). Readers never
    /// read them; the next writer removes them.
    pub unlisted_files: Vec<PathBuf>,
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
/// record of that book with one signature per page; and every listed
/// dictionary: its file's checksum, that it decodes, and that it matches
/// its catalog row; and the word images: every book file against its
/// catalog row, the vocabulary, and the search file whole against them.
/// A compaction that
/// removes a listed segment while this runs restarts the check on a
/// fresh snapshot.
///
/// A listed segment that cannot be read (damaged, missing) is reported
/// after everything else was checked, as `Corrupted` naming it and the
/// offset of the damage, with the keys of the live books sketched in no
/// readable segment and the way out: reload them under the same keys,
/// after which the next compaction drops the damaged segment.
pub(crate) fn verify(store: &Store) -> Result<VerifyStats> {
    Verifier { store }.run()
}

/// The checks of one index.
struct Verifier<'a> {
    store: &'a Store,
}

impl Verifier<'_> {
    /// See [`verify`].
    fn run(&self) -> Result<VerifyStats> {
        let catalog_bytes = Catalog::check_integrity(self.store.catalog().path())?;
        let mut attempts = 0;
        loop {
            match self.verify_snapshot(attempts == 3) {
                Ok(stats) => {
                    let unlisted_files = crate::store::unlisted::find(self.store)?
                        .into_iter()
                        .map(|path| {
                            path.strip_prefix(self.store.dir())
                                .map_or_else(|_| path.clone(), PathBuf::from)
                        })
                        .collect();
                    return Ok(VerifyStats {
                        catalog_bytes,
                        unlisted_files,
                        ..stats
                    });
                }
                Err(Error::Io { path, source })
                    if source.kind() == std::io::ErrorKind::NotFound
                        && path.starts_with(self.store.dir())
                        && attempts < 3 =>
                {
                    attempts += 1;
                }
                other => return other,
            }
        }
    }

    /// One pass of [`verify`]; a missing listed segment is an I/O
    /// error (for a retry) unless `last_attempt`, when it is damage.
    fn verify_snapshot(&self, last_attempt: bool) -> Result<VerifyStats> {
        let snapshot = self.store.catalog().snapshot()?;
        let books = snapshot.books()?;
        let mut stats = VerifyStats::default();
        if snapshot.key_count()? != books.len() as u64 {
            return Err(Error::corrupted(
                self.store.catalog().path().to_path_buf(),
                "key table and book table disagree",
            ));
        }
        let barrels = self.store.open_barrels(&snapshot)?;
        for reader in barrels.values() {
            for record in reader.records() {
                record?;
                stats.records += 1;
            }
        }
        stats.bytes = snapshot.barrels()?.iter().map(|&(_, len)| len).sum();
        // Each book's part lengths (and hashes, in records written before
        // format 11), read once here, are kept for the segment check below.
        let mut sequences = HashMap::with_capacity(books.len());
        for (id, entry) in &books {
            let parts = self.store.book_record(&barrels, *id, entry)?;
            sequences.insert(*id, BarrelParts::of(&parts));
            if snapshot.id_of(&entry.key)? != Some(*id) {
                return Err(Error::corrupted(
                    self.store.catalog().path().to_path_buf(),
                    format!("key {:?} does not map to its book", entry.key),
                ));
            }
            stats.books += 1;
        }
        (stats.dictionaries, stats.dictionary_bytes) =
            crate::store::dictionaries::verify(self.store, &snapshot)?;
        (stats.image_books, stats.image_bytes) =
            crate::store::word_images::verify(self.store, &snapshot)?;
        if let Some(sketch) = self.store.sketch_options() {
            let listed = snapshot.segments()?;
            let next_book_id = snapshot.next_book_id()?;
            let mut locators = HashMap::new();
            snapshot.each_pages(|id, stored| {
                if let StoredPages::Locator(locator) = stored {
                    locators.insert(id, locator);
                }
                Ok(())
            })?;
            let segments = SegmentCheck {
                listed: &listed,
                books: &books,
                sketch,
                next_book_id,
                last_attempt,
                dead: snapshot.dead_books()?.into_iter().collect(),
                locators,
                sequences: &sequences,
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
        let corrupted =
            |what: String| Error::corrupted(self.store.catalog().path().to_path_buf(), what);
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
            let path = self.store.page_file_path(file);
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
                        return Err(Error::corrupted_at(self.store.page_file_path(locator.file), locator.offset, format!(
                                "page signatures of book id {id}: the record belongs to book id {owner}"
                            )))
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
        if self.store.format_version().has_page_signatures() && stats.paged_books != paged {
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
        let corrupted = |what: String| Error::corrupted(segment.path().to_path_buf(), what);
        let version = self.store.format_version();
        if !crate::storage::segment::same_layout(segment.version(), version)
            || segment.version().number() > version.number()
        {
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

    /// The segment half of [`verify`]. A segment that cannot be read
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
        let words: HashMap<u32, u64> = books.iter().map(|(id, entry)| (*id, entry.words)).collect();
        let mut sketched = HashSet::new();
        let mut damaged = Vec::new();
        for &(number, listed_len) in check.listed {
            let path = self.store.segment_path(number);
            let corrupted =
                |offset: u64, what: String| Error::corrupted_at(path.clone(), offset, what);
            // Mapped, not read: a merged segment can be larger than memory.
            let read = std::fs::metadata(&path)
                .at(&path)
                .and_then(|meta| Segment::open_checked(&path).map(|segment| (meta.len(), segment)));
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
            // Decoding checked the tables against the books' keys.
            for (slot, (id, _, signature)) in segment.books().enumerate() {
                if id >= next_book_id {
                    return Err(Error::corrupted(
                        path.clone(),
                        format!("sketches book id {id}, which the catalog never handed out (next id {next_book_id})"),
                    ));
                }
                if segment.has_books() {
                    self.check_book_sections(&segment, slot, id, check)?;
                }
                if !live.contains(&id) {
                    stats.dead_sketches += 1;
                } else if !sketched.insert(id) {
                    return Err(Error::corrupted(
                        path.clone(),
                        format!("book id {id} is sketched in another listed segment too"),
                    ));
                } else if segment.sketched(slot) {
                    stats.sketched_books += 1;
                }
                if segment.sketched(slot) {
                    check_value_keys(&segment, slot, id, &signature)?;
                    if let Some(&words) = words.get(&id) {
                        check_window_keys(&segment, slot, id, words, check.sketch)?;
                    }
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
            let advice = crate::store::segments::repair_advice(&damaged, &orphans);
            return Ok(Some(first.error(&advice)));
        }
        if let Some((id, entry)) = books.iter().find(|(id, _)| !sketched.contains(id)) {
            return Err(Error::corrupted(
                self.store.segment_dir(),
                format!(
                    "book {:?} (id {id}) is not sketched in any listed segment",
                    entry.key
                ),
            ));
        }
        Ok(None)
    }
}

impl Verifier<'_> {
    /// Checks the book sections of the book at `slot` of a format-7
    /// `segment` (book id `id`) against the catalog and the barrels: a live
    /// book's entry and page locator are the catalog's and its sequences
    /// its barrel records'; any other book is listed as dead, or readers
    /// would take it for live.
    fn check_book_sections(
        &self,
        segment: &Segment,
        slot: usize,
        id: u32,
        check: &SegmentCheck<'_>,
    ) -> Result<()> {
        let corrupted = |what: String| Error::corrupted(segment.path().to_path_buf(), what);
        let Ok(at) = check.books.binary_search_by_key(&id, |&(id, _)| id) else {
            if check.dead.contains(&id) {
                return Ok(());
            }
            return Err(corrupted(format!(
                "holds book id {id}, which is neither live nor listed in dead_books: readers \
                 would take it for a live book"
            )));
        };
        let entry = &check.books[at].1;
        let (stored, locator) = segment.entry(slot)?;
        if &stored != entry || locator != check.locators.get(&id).copied() {
            return Err(corrupted(format!(
                "the entry of book {:?} (id {id}) disagrees with the catalog's",
                entry.key
            )));
        }
        let parts: Vec<_> = (segment.book_parts(slot))
            .map(|at| segment.part_hashes(at))
            .collect();
        let lengths = lengths_digest(parts.iter().map(|part| part.len()));
        let same = check.sequences.get(&id).is_some_and(|barrel| {
            barrel.lengths == lengths
                && (barrel.hashes).is_none_or(|digest| {
                    digest == hashes_digest(parts.iter().map(|part| part.iter()))
                })
        });
        if !same {
            return Err(corrupted(format!(
                "the sequences of book {:?} (id {id}) disagree with its barrel records",
                entry.key
            )));
        }
        Ok(())
    }
}

/// What a book's barrel records say of its sequences, to check its
/// segment against without holding the records.
struct BarrelParts {
    /// A digest of the elements of each part.
    lengths: u64,
    /// A digest of the parts' hashes, when its records hold them (written
    /// before format 11; from then on the segment alone holds them).
    hashes: Option<u64>,
}

impl BarrelParts {
    fn of(records: &[Record]) -> BarrelParts {
        let hashes = (records.iter().all(|r| r.hashes.is_some()))
            .then(|| hashes_digest((records.iter()).map(|r| r.hashes.iter().flatten().copied())));
        BarrelParts {
            lengths: lengths_digest(records.iter().map(Record::elements)),
            hashes,
        }
    }
}

/// A digest of a book's parts' lengths.
fn lengths_digest(lengths: impl Iterator<Item = usize>) -> u64 {
    let mut digest = xxhash_rust::xxh3::Xxh3Default::new();
    for len in lengths {
        digest.update(&(len as u64).to_le_bytes());
    }
    digest.digest()
}

/// A digest of a book's parts' hashes (each part's length first), to
/// compare two copies without holding either.
fn hashes_digest<P: Iterator<Item = u32>>(parts: impl Iterator<Item = P>) -> u64 {
    let mut digest = xxhash_rust::xxh3::Xxh3Default::new();
    for part in parts {
        let hashes: Vec<u8> = part.flat_map(u32::to_le_bytes).collect();
        digest.update(&(hashes.len() as u64).to_le_bytes());
        digest.update(&hashes);
    }
    digest.digest()
}

/// What the segment half of [`verify`] checks against.
struct SegmentCheck<'a> {
    /// Ids the catalog lists as dead.
    dead: HashSet<u32>,
    /// Each live book's page locator.
    locators: HashMap<u32, crate::storage::page_files::PageLocator>,
    /// What each live book's barrel records say of its sequences.
    sequences: &'a HashMap<u32, BarrelParts>,
    /// The listed segments and their lengths.
    listed: &'a [(u32, u64)],
    /// The live books.
    books: &'a [(u32, BookEntry)],
    sketch: &'a SketchOptions,
    next_book_id: u32,
    /// A missing segment is damage, not a reason to retry.
    last_attempt: bool,
}

/// Checks that the book in `slot` of `segment`, of `words` words, has no
/// more window keys than its words make windows (the windows are not
/// stored: their keys' values cannot be checked, their number can).
fn check_window_keys(
    segment: &Segment,
    slot: usize,
    id: u32,
    words: u64,
    sketch: &SketchOptions,
) -> Result<()> {
    let windows = BandLayout::max_windows(words, sketch.window_shingles);
    let most = windows.saturating_mul(sketch.window_layout.keys_per_signature() as u64);
    let found = segment.book_keys(slot, Table::Window).count() as u64;
    if found <= most {
        return Ok(());
    }
    Err(Error::corrupted(
        segment.path().to_path_buf(),
        format!(
            "book id {id} has {found} window keys; its {words} words make at most {windows} \
             windows, {most} keys"
        ),
    ))
}

/// Checks that the value keys of the book in `slot` of `segment` are those
/// of its stored signature (a version-2 segment has none).
fn check_value_keys(segment: &Segment, slot: usize, id: u32, signature: &MinHashSig) -> Result<()> {
    if !segment.version().has_value_table()
        || segment
            .book_keys(slot, Table::Value)
            .eq(value_keys(signature))
    {
        return Ok(());
    }
    Err(Error::corrupted(
        segment.path().to_path_buf(),
        format!("book id {id}'s value keys do not match its min-hash signature"),
    ))
}

#[cfg(test)]
mod tests {
    use crate::repr::sketch::Table;
    use crate::storage::catalog::CatalogBatch;
    use crate::storage::segment::{self, Segment};
    use crate::{Document, Index};

    #[test]
    fn a_book_with_more_window_keys_than_its_words_make_windows_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        let index = Index::create(dir.path()).unwrap();
        let text: Vec<String> = (0..400).map(crate::testing::letters).collect();
        index
            .load([Ok(Document::new("book", text.join(" ")))])
            .unwrap();
        index.verify().unwrap();
        // The segment written again with a thousand window keys more, and
        // listed with its new length: a layout that decodes, keys that
        // no 400-word text makes.
        let store = &index.store;
        let (number, _) = store.catalog().snapshot().unwrap().segments().unwrap()[0];
        let path = store.segment_path(number);
        let mut book = Segment::open(&path).unwrap().segment_book(0).unwrap();
        book.sketch.keys[Table::Window as usize].extend(1..=1000u64);
        book.sketch.keys[Table::Window as usize].sort_unstable();
        book.sketch.keys[Table::Window as usize].dedup();
        let k = store.require_sketches("test").unwrap().book.num_hashes;
        std::fs::remove_file(&path).unwrap();
        let len = segment::write(&path, vec![book], k).unwrap();
        let next_book_id = store.catalog().snapshot().unwrap().next_book_id().unwrap();
        let batch = CatalogBatch {
            next_book_id,
            add_segments: vec![(number, len)],
            ..CatalogBatch::default()
        };
        store.catalog().commit(&batch).unwrap();
        let error = index.verify().unwrap_err().to_string();
        assert!(
            error.contains("window keys; its 400 words make at most"),
            "{error}"
        );
    }
}
