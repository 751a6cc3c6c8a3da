//! The store: one index directory as the layers above see it. It owns the
//! directory layout, the catalog handle, the single-writer lock, and reading
//! a book's records with the checks that they belong to it.
//!
//! [`crate::Index`] is a facade over an `Arc<Store>`; loads, queries,
//! deletes, `verify` and upgrades work on the store, never on the facade.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub(crate) mod dictionaries;
pub(crate) mod image_model;
pub(crate) mod layout;
pub(crate) mod records;
pub(crate) mod segments;
pub(crate) mod unlisted;
pub(crate) mod word_image_search;
pub(crate) mod word_images;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::repr::{ExtractOptions, PartOptions, SketchOptions};
use crate::storage::catalog::{Access, Catalog, CatalogOptions};
use crate::storage::format::{FileKind, FormatVersion};
use crate::storage::fs;
use layout::{CATALOG_FILE, NEW_CATALOG_FILE};

pub(crate) use records::{BookRef, RecordPlace};

/// An open index directory: its catalog, the options it was created with,
/// and whether a writer is active in this process.
pub(crate) struct Store {
    dir: PathBuf,
    catalog: Catalog,
    options: CatalogOptions,
    writer_active: AtomicBool,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("dir", &self.dir)
            .field("access", &self.catalog.access())
            .field("format_version", &self.options.version)
            .finish_non_exhaustive()
    }
}

/// The writer role of a store; released on drop.
pub(crate) struct WriterGuard {
    store: Arc<Store>,
    /// Unlisted files removed when the role was taken.
    pub(crate) unlisted_removed: u64,
}

impl Drop for WriterGuard {
    fn drop(&mut self) {
        self.store.writer_active.store(false, Ordering::Release);
    }
}

impl Store {
    /// Creates a new index in `dir` with these options: prepares the
    /// directory, writes the catalog as `catalog.redb.new`, syncs it and
    /// renames it into place, which publishes the index.
    pub(crate) fn create(
        dir: &Path,
        extract: &ExtractOptions,
        sketch: &SketchOptions,
        parts: &PartOptions,
    ) -> Result<()> {
        layout::prepare_new_dir(dir)?;
        let new_catalog = dir.join(NEW_CATALOG_FILE);
        Catalog::create(&new_catalog, extract, sketch, parts)?;
        fs::WriteFile::open_existing(&new_catalog)?.sync_all()?;
        fs::rename(&new_catalog, &dir.join(CATALOG_FILE))?;
        fs::sync_dir(dir)
    }

    /// Opens the index in `dir`: checks the catalog's format version and
    /// every barrel's and page file's header and committed length. An
    /// index of a format this build only reads is opened for reading
    /// whatever `access` asks, so that a writer refused it
    /// ([`Store::lock_writer`]) has written none of its bytes.
    pub(crate) fn open(dir: &Path, access: Access) -> Result<Store> {
        Store::open_with(dir, access, |path| match access {
            Access::ReadOnly => Catalog::open(path, Access::ReadOnly),
            Access::ReadWrite => Catalog::open_writable_if_current(path),
        })
    }

    /// Opens the index in `dir` for writing whatever its format, for an
    /// upgrade to make it the current one.
    pub(crate) fn open_to_upgrade(dir: &Path) -> Result<Store> {
        Store::open_with(dir, Access::ReadWrite, |path| {
            Catalog::open(path, Access::ReadWrite)
        })
    }

    fn open_with(
        dir: &Path,
        access: Access,
        open_catalog: impl FnOnce(&Path) -> Result<(Catalog, CatalogOptions)>,
    ) -> Result<Store> {
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
            _ if layout::is_incomplete_index(dir) => {
                return Err(Error::IncompleteIndex(dir.to_path_buf()))
            }
            _ => return Err(Error::NotAnIndex(dir.to_path_buf())),
        }
        let (catalog, options) = open_catalog(&catalog_path)?;
        let store = Store::from_parts(dir, catalog, options);
        store.check_files()?;
        Ok(store)
    }

    /// A store over an already open catalog.
    pub(crate) fn from_parts(dir: &Path, catalog: Catalog, options: CatalogOptions) -> Store {
        Store {
            dir: dir.to_path_buf(),
            catalog,
            options,
            writer_active: AtomicBool::new(false),
        }
    }

    fn check_files(&self) -> Result<()> {
        let snapshot = self.catalog.snapshot()?;
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
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The extraction options the index was created with.
    pub(crate) fn extract_options(&self) -> &ExtractOptions {
        &self.options.extract
    }

    /// The sketch options; `None` for a format-1 index.
    /// Where the index cuts books into parts ([`PartOptions::NEVER`]
    /// before format 6).
    pub(crate) fn part_options(&self) -> &PartOptions {
        &self.options.parts
    }

    pub(crate) fn sketch_options(&self) -> Option<&SketchOptions> {
        self.options.sketch.as_ref()
    }

    /// The format version the index was written with.
    pub(crate) fn format_version(&self) -> FormatVersion {
        self.options.version
    }

    /// The sketch options, or `OldFormat` naming what needed them.
    pub(crate) fn require_sketches(&self, needs: &str) -> Result<&SketchOptions> {
        self.sketch_options().ok_or_else(|| Error::OldFormat {
            path: self.dir.clone(),
            found: self.format_version().number(),
            needs: needs.to_string(),
        })
    }

    /// `OldFormat` unless the index has the format this build writes: a
    /// write must not mix segment layouts, or catalog page signatures and
    /// page files, in one index.
    fn require_current_format(&self) -> Result<()> {
        let version = self.format_version();
        if version.is_current() {
            return Ok(());
        }
        let needs = if version.has_catalog_pages() {
            "write (the current format keeps page signatures in page files, not in the catalog)"
        } else {
            "write (loads and deletes keep its format: its segment layout and where its page signatures are)"
        };
        Err(Error::OldFormat {
            path: self.dir.clone(),
            found: version.number(),
            needs: needs.into(),
        })
    }

    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Compacts the catalog database; needs the store alone (no reader,
    /// loader or other handle holds it).
    pub(crate) fn compact_catalog(&mut self) -> Result<()> {
        self.catalog.compact()
    }

    pub(crate) fn segment_dir(&self) -> PathBuf {
        self.dir.join(layout::SEGMENT_DIR)
    }

    pub(crate) fn segment_path(&self, segment: u32) -> PathBuf {
        self.segment_dir().join(format!("{segment:06}.seg"))
    }

    pub(crate) fn page_file_path(&self, file: u32) -> PathBuf {
        self.dir
            .join(layout::PAGE_DIR)
            .join(format!("{file:06}.pgs"))
    }

    pub(crate) fn barrel_path(&self, barrel: u32) -> PathBuf {
        self.dir
            .join(layout::BARREL_DIR)
            .join(format!("{barrel:06}.brl"))
    }

    /// Takes the writer role; `Err(Locked)` while another writer of this
    /// process holds it, `Err(ReadOnly)` when the index was opened
    /// read-only, `OldFormat` for an index this build only reads. Refuses a
    /// symbolic link in place of the barrel, segment or page directory: a
    /// writer never follows a link out of the index. Then removes the
    /// files a stopped writer left ([`unlisted`]), so that every writer
    /// starts from a directory holding exactly what the catalog lists.
    pub(crate) fn lock_writer(self: &Arc<Self>) -> Result<WriterGuard> {
        // First: an index of an older format is open for reading only,
        // whatever its opener asked.
        self.require_current_format()?;
        if self.catalog.access() == Access::ReadOnly {
            return Err(Error::ReadOnly(self.dir.clone()));
        }
        for sub in [layout::BARREL_DIR, layout::SEGMENT_DIR, layout::PAGE_DIR] {
            fs::refuse_link(&self.dir.join(sub))?;
        }
        if self.writer_active.swap(true, Ordering::AcqRel) {
            return Err(Error::Locked(self.dir.clone()));
        }
        let mut guard = WriterGuard {
            store: self.clone(),
            unlisted_removed: 0,
        };
        guard.unlisted_removed = unlisted::remove(self)?;
        Ok(guard)
    }
}
