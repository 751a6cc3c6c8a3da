//! Everything written to disk: the common file header, append-only files,
//! barrels of unique-word sequences, segments of sketches and key tables,
//! page files of page signatures, and the redb catalog; `codec`, the
//! bounds-checked cursor and the encode/decode traits they share; and `fs`,
//! the one seam every write to the index directory passes through.
//! `storage-format.md` at the repository root documents these byte by byte
//! (`docs/algorithms.md` says how the stored values are computed), and
//! `spec_examples` rebuilds its worked examples. Nothing here knows about
//! queries.

// Stored bytes are untrusted: outside tests, no code here may panic on them
// (no unwrap, expect or unchecked indexing). The one exception, `Segment`'s
// lookups, reads offsets that `Segment::decode` checked, and says so, as
// does `image_search`'s for the offsets `SearchFile::open` checked.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub mod append;
pub mod barrel;
mod book_sections;
pub mod catalog;
pub mod codec;
pub mod dictionary_file;
pub mod format;
pub(crate) mod fs;
pub mod image_search;
mod key_tables;
pub mod mapped;
mod overlay;
pub mod packed;
pub mod page_files;
pub mod pages;
pub mod posting_lists;
pub mod segment;
pub mod segment_books;
pub mod segment_merge;
pub(crate) mod sorted;
#[cfg(test)]
mod spec_examples;
pub mod word_images;
