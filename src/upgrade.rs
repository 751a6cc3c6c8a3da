//! Upgrading a format-3 index to format 4 in place: its page signatures
//! move from the values of the catalog's `pages` table into page files.
//!
//! Every value is decoded (so a damaged one stops the upgrade before
//! anything changes) and appended as a page-file record; the page files
//! are synced; then one catalog transaction replaces every value with its
//! record's locator, records the page files' committed lengths and sets
//! the format version to 4. A crash before that transaction leaves the
//! format-3 index as it was, with unlisted page files that a format-3
//! reader never looks at and that the next upgrade or load overwrites.
//! Barrels and segments are kept: format 4 writes them with the layouts of
//! format 3.

use std::path::Path;

use crate::error::IoContext;
use crate::load::LoadOptions;
use crate::repr::MinHashSig;
use crate::storage::catalog::{Catalog, StoredPages};
use crate::storage::format::sync_parent_dir;
use crate::storage::page_files::{PageFileWriter, PageLocator};
use crate::storage::pages;
use crate::{Error, Index, Result};

/// Page-file bytes written between two syncs: bounds what the writer buffers.
const SYNC_BYTES: usize = 64 << 20;

/// What an upgrade did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct UpgradeStats {
    /// The format version the index had.
    pub from_version: u16,
    /// The format version it has now.
    pub to_version: u16,
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
    index: &'a Index,
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
            let path = self.index.page_file_path(number);
            self.file = Some(PageFileWriter::create(&path, number)?);
            self.next_file += 1;
        }
        let file = self.file.as_mut().expect("page file started above");
        self.moved.locators.push((id, file.append(&record)?));
        self.unsynced += record.len();
        if self.unsynced >= SYNC_BYTES {
            self.unsynced = 0;
            if file.sync()? >= LoadOptions::default().max_barrel_bytes {
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

fn file_len(path: &Path) -> Result<u64> {
    Ok(std::fs::metadata(path).at(path)?.len())
}

impl Index {
    /// Upgrades the index in `dir` in place to format 4 and returns it
    /// opened, with what was done. A format-4 index is returned as it is.
    /// Only a format-3 index upgrades: a format-1 or format-2 one is
    /// `OldFormat` and is left untouched (load its collection into a new
    /// index). The index must not be open elsewhere (`Locked`).
    pub fn upgrade(dir: impl AsRef<Path>) -> Result<(Index, UpgradeStats)> {
        let dir = dir.as_ref();
        let index = Index::open(dir)?;
        let catalog_path = index.catalog().path().to_path_buf();
        let mut stats = UpgradeStats {
            from_version: index.format_version(),
            to_version: 4,
            catalog_bytes_before: file_len(&catalog_path)?,
            ..UpgradeStats::default()
        };
        match stats.from_version {
            4 => {
                stats.catalog_bytes_after = stats.catalog_bytes_before;
                return Ok((index, stats));
            }
            3 => {}
            found => {
                return Err(Error::OldFormat {
                    path: dir.to_path_buf(),
                    found,
                    needs: "upgrade in place (only a format-3 index upgrades)".into(),
                })
            }
        }
        let Moved { locators, lengths } = move_pages(&index)?;
        index.catalog().upgrade_pages(&locators, &lengths)?;
        drop(index);
        let (mut catalog, _) = Catalog::open(&catalog_path)?;
        catalog.compact()?;
        drop(catalog);
        stats.paged_books = locators.len() as u64;
        stats.page_files = lengths.len() as u64;
        stats.page_file_bytes = lengths.iter().map(|&(_, len)| len).sum();
        stats.catalog_bytes_after = file_len(&catalog_path)?;
        Ok((Index::open(dir)?, stats))
    }
}

/// Writes every `pages` value of the format-3 `index` as a page-file
/// record and syncs the files; returns the locators and the files'
/// committed lengths.
fn move_pages(index: &Index) -> Result<Moved> {
    let dir = index.page_dir();
    crate::storage::fs::create_dir_all(&dir)?;
    sync_parent_dir(&dir)?;
    let mut mover = Mover {
        index,
        file: None,
        next_file: 1,
        unsynced: 0,
        moved: Moved::default(),
    };
    let snapshot = index.catalog().snapshot()?;
    snapshot.each_pages(|id, stored| match stored {
        StoredPages::Signatures(signatures) => mover.append(id, &signatures),
        StoredPages::Locator(_) => Err(Error::Corrupted {
            path: index.catalog().path().to_path_buf(),
            offset: 0,
            what: format!("book id {id} has a page locator in a format-3 catalog"),
        }),
    })?;
    mover.close()?;
    Ok(mover.moved)
}
