//! The layout of an index directory: the names of its files and
//! subdirectories, and making a directory ready for a new index.
//!
//! `catalog.redb` (the catalog), `barrels/NNNNNN.brl` (the sequences),
//! `segments/NNNNNN.seg` (sketches and band tables) and `pages/NNNNNN.pgs`
//! (page signatures), `dictionaries/NNNNNN.dic` (bilingual
//! dictionaries) and `images/` (word images: `NNNNNN.wib` books,
//! `NNNNNN.wiv` the vocabulary, `NNNNNN.wis` the search file). An index being created has its catalog written as
//! `catalog.redb.new` and renamed into place once complete.

use std::path::Path;

use crate::error::{Error, IoContext, Result};
use crate::storage::fs;

/// The catalog of an index.
pub(crate) const CATALOG_FILE: &str = "catalog.redb";
/// The catalog of an index being created, renamed to [`CATALOG_FILE`] once
/// complete: the rename publishes the index.
pub(crate) const NEW_CATALOG_FILE: &str = "catalog.redb.new";
pub(crate) const BARREL_DIR: &str = "barrels";
pub(crate) const SEGMENT_DIR: &str = "segments";
pub(crate) const PAGE_DIR: &str = "pages";
/// Bilingual dictionaries (format 8 on).
pub(crate) const DICTIONARY_DIR: &str = "dictionaries";
/// Word images of scanned pages (format 9 on).
pub(crate) const IMAGE_DIR: &str = "images";
/// Size past which a writer starts a new barrel or page file.
pub(crate) const DEFAULT_MAX_FILE_BYTES: u64 = 1 << 30;

/// Makes `dir` ready to receive a new index: created when missing (its
/// parent synced), else it must be empty or hold what an interrupted
/// creation leaves (the five empty subdirectories and an unpublished
/// catalog, which is removed). Then creates the subdirectories. Nothing in
/// it is an index until the catalog is renamed into place.
pub(crate) fn prepare_new_dir(dir: &Path) -> Result<()> {
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
    for sub in [BARREL_DIR, SEGMENT_DIR, PAGE_DIR, DICTIONARY_DIR, IMAGE_DIR] {
        fs::create_dir_all(&dir.join(sub))?;
    }
    fs::sync_dir(dir)
}

/// True when every entry of `dir` is one an interrupted creation leaves:
/// an empty `barrels`, `segments`, `pages`, `dictionaries` or `images` directory, or an unpublished
/// catalog. An empty directory qualifies.
fn holds_only_creation_leftovers(dir: &Path) -> Result<bool> {
    for entry in std::fs::read_dir(dir).at(dir)? {
        let entry = entry.at(dir)?;
        let name = entry.file_name();
        let path = entry.path();
        let kind = entry.file_type().at(&path)?;
        let leftover = if name == NEW_CATALOG_FILE {
            kind.is_file()
        } else if [BARREL_DIR, SEGMENT_DIR, PAGE_DIR, DICTIONARY_DIR, IMAGE_DIR]
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

/// True when `dir` holds no catalog but what an interrupted creation left:
/// an unpublished catalog, or at least one of the directories a creation
/// makes (it makes them one by one) and nothing else.
pub(crate) fn is_incomplete_index(dir: &Path) -> bool {
    dir.join(NEW_CATALOG_FILE).is_file()
        || ([BARREL_DIR, SEGMENT_DIR, PAGE_DIR, DICTIONARY_DIR, IMAGE_DIR]
            .iter()
            .any(|sub| dir.join(sub).is_dir())
            && holds_only_creation_leftovers(dir).unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_creation_stopped_after_any_of_its_directories_is_an_incomplete_index() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("index");
        std::fs::create_dir(&dir).unwrap();
        assert!(!is_incomplete_index(&dir), "an empty directory is no index");
        for sub in [BARREL_DIR, SEGMENT_DIR, PAGE_DIR, DICTIONARY_DIR, IMAGE_DIR] {
            std::fs::create_dir(dir.join(sub)).unwrap();
            assert!(is_incomplete_index(&dir), "after {sub}");
        }
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        assert!(
            !is_incomplete_index(&dir),
            "a directory holding other files"
        );
    }
}
