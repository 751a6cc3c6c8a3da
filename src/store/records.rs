//! Reading a book's stored records, each checked to belong to its book:
//! its barrel records (the word positions of each of its parts' unique-word
//! sequences, one record per part) and its page signatures.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::Store;
use crate::error::{Error, Result};
use crate::repr::MinHashSig;
use crate::storage::barrel::{BarrelFile, BarrelReader, Record};
use crate::storage::catalog::{BookEntry, CatalogSnapshot, StoredPages};
use crate::storage::page_files::{PageFileReader, PageLocator};

/// The identity of a stored book its records must match: its id, its key
/// and the elements of its parts' sequences together.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BookRef<'a> {
    pub id: u32,
    pub key: &'a str,
    pub unique_words: u32,
}

impl Store {
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

    /// The records of book `id` (one a part), checked to belong to it.
    pub(crate) fn book_record(
        &self,
        barrels: &HashMap<u32, BarrelReader>,
        id: u32,
        entry: &BookEntry,
    ) -> Result<Vec<Record>> {
        let reader = barrels
            .get(&entry.barrel)
            .ok_or_else(|| self.unknown_barrel(entry))?;
        self.record_in(reader, id, entry)
    }

    /// The records of book `id` in `barrel`, checked to belong to it.
    pub(crate) fn record_in(
        &self,
        barrel: &BarrelReader,
        id: u32,
        entry: &BookEntry,
    ) -> Result<Vec<Record>> {
        let records = barrel.records_in(entry.offset, entry.record_len)?;
        owned_by(
            records,
            barrel.path(),
            entry.offset,
            id,
            &entry.key,
            entry.unique_words,
        )
    }

    /// The error for a book whose entry names a barrel the catalog does
    /// not list.
    pub(crate) fn unknown_barrel(&self, entry: &BookEntry) -> Error {
        Error::corrupted(
            self.catalog().path().to_path_buf(),
            format!(
                "book {:?} points at unknown barrel {}",
                entry.key, entry.barrel
            ),
        )
    }
}

/// Where a book's barrel records are, for reading them alone later.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordPlace {
    pub barrel: u32,
    pub offset: u64,
    pub len: u32,
}

impl RecordPlace {
    /// The place of `entry`'s record.
    pub(crate) fn of(entry: &BookEntry) -> Self {
        RecordPlace {
            barrel: entry.barrel,
            offset: entry.offset,
            len: entry.record_len,
        }
    }
}

/// The barrels, page files and page locators of one catalog snapshot, all
/// opened when the snapshot is taken: a reader holding them reads the
/// records of its snapshot, never a catalog transaction per read, and
/// keeps reading them after a compaction removed the files (an open file
/// outlives its name).
#[derive(Debug)]
pub(crate) struct RecordFiles {
    barrels: HashMap<u32, Mutex<BarrelFile>>,
    page_files: HashMap<u32, Mutex<PageFileReader>>,
    /// Each paged book's page signatures (format 3) or their locator.
    pages: HashMap<u32, StoredPages>,
    /// The catalog, named in errors about what it points at.
    catalog_path: PathBuf,
}

impl RecordFiles {
    /// Opens every committed barrel and page file of `snapshot` and reads
    /// its page locators.
    /// With `read_locators`, the catalog's page entries are read too (an
    /// index before format 7, whose segments do not hold them).
    pub(crate) fn open(
        store: &Store,
        snapshot: &CatalogSnapshot<'_>,
        read_locators: bool,
    ) -> Result<RecordFiles> {
        let mut barrels = HashMap::new();
        for (barrel, committed) in snapshot.barrels()? {
            let file = BarrelFile::open(&store.barrel_path(barrel), committed)?;
            barrels.insert(barrel, Mutex::new(file));
        }
        let mut page_files = HashMap::new();
        for (file, committed) in snapshot.page_files()? {
            let reader = PageFileReader::open(&store.page_file_path(file), committed)?;
            page_files.insert(file, Mutex::new(reader));
        }
        let mut pages = HashMap::new();
        if read_locators {
            snapshot.each_pages(|id, stored| {
                pages.insert(id, stored);
                Ok(())
            })?;
        }
        Ok(RecordFiles {
            barrels,
            page_files,
            pages,
            catalog_path: store.catalog().path().to_path_buf(),
        })
    }

    /// No files: what a reader that never reads records holds (a reader's
    /// passage view, whose units have no records).
    pub(crate) fn none(store: &Store) -> RecordFiles {
        RecordFiles {
            barrels: HashMap::new(),
            page_files: HashMap::new(),
            pages: HashMap::new(),
            catalog_path: store.catalog().path().to_path_buf(),
        }
    }

    /// The records of `book` (one a part) read alone from its barrel at
    /// `place`, checked to belong to it.
    pub(crate) fn book_record(&self, book: BookRef<'_>, place: RecordPlace) -> Result<Vec<Record>> {
        let barrel = self
            .barrels
            .get(&place.barrel)
            .ok_or_else(|| self.unknown_file("barrel", book.key, place.barrel))?;
        let mut barrel = barrel.lock().unwrap_or_else(|e| e.into_inner());
        let records = barrel.read_records(place.offset, place.len)?;
        owned_by(
            records,
            barrel.path(),
            place.offset,
            book.id,
            book.key,
            book.unique_words,
        )
    }

    /// The page signatures of `book`, found at `locator` (format 7, where
    /// segments hold the locators) or through the catalog's entries read
    /// at open: `None` when it has none stored. From format 4 on, one
    /// record read from its page file.
    pub(crate) fn pages(
        &self,
        book: BookRef<'_>,
        locator: Option<PageLocator>,
    ) -> Result<Option<Vec<MinHashSig>>> {
        let stored = locator
            .map(StoredPages::Locator)
            .or_else(|| self.pages.get(&book.id).cloned());
        match stored {
            None => Ok(None),
            Some(StoredPages::Signatures(pages)) => Ok(Some(pages)),
            Some(StoredPages::Locator(locator)) => {
                let file = self
                    .page_files
                    .get(&locator.file)
                    .ok_or_else(|| self.unknown_file("page file", book.key, locator.file))?;
                let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
                file.read(&locator, book.id).map(Some)
            }
        }
    }

    /// The error for a book whose entry names a file the catalog does not
    /// list.
    fn unknown_file(&self, kind: &str, key: &str, number: u32) -> Error {
        Error::corrupted(
            self.catalog_path.clone(),
            format!("book {key:?} points at unknown {kind} {number}"),
        )
    }
}

/// The unique-word hashes of every part of every book of `entries`, in
/// their order, from records written before format 11 (which held them;
/// an upgrade from formats 3 to 9 builds segments from them), read one
/// barrel at a time (`committed`: each barrel's committed length), so
/// that at most one barrel (up to
/// [`crate::load::LoadOptions::max_barrel_bytes`]) is in memory at once.
// Slots index `entries` and `hashes`, both of its length.
#[allow(clippy::indexing_slicing)]
pub(crate) fn read_hashes(
    store: &Store,
    committed: &HashMap<u32, u64>,
    entries: &[(u32, BookEntry)],
) -> Result<Vec<Vec<Vec<u32>>>> {
    let mut slots_by_barrel: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (slot, (_, entry)) in entries.iter().enumerate() {
        slots_by_barrel.entry(entry.barrel).or_default().push(slot);
    }
    let mut hashes = vec![Vec::new(); entries.len()];
    for (barrel, slots) in slots_by_barrel {
        let Some(&len) = committed.get(&barrel) else {
            return Err(store.unknown_barrel(&entries[slots[0]].1));
        };
        let reader = BarrelReader::open(&store.barrel_path(barrel), len)?;
        for slot in slots {
            let (id, entry) = &entries[slot];
            hashes[slot] = store
                .record_in(&reader, *id, entry)?
                .into_iter()
                .map(|part| hashes_of_old_record(part, reader.path(), entry))
                .collect::<Result<_>>()?;
        }
    }
    Ok(hashes)
}

/// The element hashes of `record`, one of `entry`'s in the barrel at
/// `path`, written before format 11: `Corrupted` when it holds positions
/// only (an index older than format 10 has no such record).
fn hashes_of_old_record(record: Record, path: &Path, entry: &BookEntry) -> Result<Vec<u32>> {
    match record.hashes {
        Some(hashes) => Ok(hashes),
        None if record.positions.is_empty() => Ok(Vec::new()),
        None => Err(Error::corrupted_at(
            path.to_path_buf(),
            entry.offset,
            format!(
                "book {:?} has a record without hashes (format 11's) in an index of an older format",
                entry.key
            ),
        )),
    }
}

/// The parts held by `records`, found at `offset` of `path`, if they are
/// the records of book `id` (key `key`) with `unique_words` elements
/// together.
fn owned_by(
    records: Vec<Record>,
    path: &Path,
    offset: u64,
    id: u32,
    key: &str,
    unique_words: u32,
) -> Result<Vec<Record>> {
    let elements: u64 = records.iter().map(|r| r.elements() as u64).sum();
    let stranger = records.iter().find(|r| r.book_id != id);
    if stranger.is_some() || elements != u64::from(unique_words) {
        let owner = stranger.map_or(id, |r| r.book_id);
        return Err(Error::corrupted_at(
            path.to_path_buf(),
            offset,
            format!(
                "records of book id {owner} with {elements} elements do not belong to book {key:?} (id {id}, {unique_words} elements)",
            ),
        ));
    }
    Ok(records)
}
