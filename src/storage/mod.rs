//! Everything written to disk: the common file header, append-only files,
//! barrels of unique-word sequences, segments of sketches and key tables,
//! page files of page signatures, and the redb catalog. `storage-format.md` at the
//! repository root documents these byte by byte. Nothing here knows about
//! queries.

pub mod append;
pub mod barrel;
pub mod catalog;
pub mod format;
mod overlay;
pub mod page_files;
pub mod pages;
pub mod segment;
