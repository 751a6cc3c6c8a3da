//! stemmata: an embedded search-index engine that finds related books —
//! duplicates, other editions, books contained in other books — in large
//! collections of noisy text, such as the OCR output of scanned books.
//!
//! Each book is represented by its unique-word sequence: the words that
//! occur once in it, in text order. Two books are compared by the longest
//! common subsequence (LCS) of their sequences; OCR errors and editorial
//! changes break few of those words, so editions and copies keep a long
//! common subsequence while unrelated books share only chance words.
//!
//! # The pieces
//!
//! - [`Index`]: one index directory, opened by [`Index::open`],
//!   [`Index::create`] or [`Index::open_or_create`]. It loads
//!   [`Document`]s ([`Index::load`], [`Index::load_dir`], or a
//!   [`BulkLoader`] for progress and options) and deletes books by key.
//! - [`Reader`]: a snapshot of the index for queries, from
//!   [`Index::reader`]. Top-k related books of a stored book
//!   ([`Reader::query_key`]) or of a new text ([`Reader::query_text`]);
//!   every related pair of the collection ([`Reader::pairs`]) and its
//!   clusters; the [`relate::Relation`] of a pair (duplicate, contains,
//!   overlap, ...) and the [`relate::PortionMap`] of which parts match.
//! - [`QueryOptions`] and [`PairsOptions`]: the [`Score`] (default
//!   [`Score::Order`]), its threshold and the [`Mode`]: exact (the same
//!   answers as comparing every pair) or approximate (candidates from
//!   min-hash and simhash band tables, for large collections).
//! - [`align`]: full-text alignment of two texts (RETAS) and OCR accuracy.
//! - [`Error`]: one error type; every variant names the file or key involved.
//!
//! # Example
//!
//! ```
//! use stemmata::{Document, Index, PairsOptions, QueryOptions};
//!
//! # fn story() -> String {
//! #     // 400 made-up words in no alphabetical order.
//! #     (0..400u32)
//! #         .map(|i| {
//! #             let mut n = i.wrapping_mul(2654435761);
//! #             (0..6).map(|_| { let c = (b'a' + (n % 26) as u8) as char; n /= 26; c }).collect::<String>()
//! #         })
//! #         .collect::<Vec<_>>()
//! #         .join(" ")
//! # }
//! fn main() -> stemmata::Result<()> {
//!     let dir = tempfile::tempdir()?;
//!     let index = Index::open_or_create(dir.path().join("index"))?;
//!     let text = story();
//!     let reprint = format!("A preface to the new edition. {text}");
//!     index.load([
//!         Ok(Document::new("first", text.as_bytes()).with_title("The Story")),
//!         Ok(Document::new("reprint", reprint.as_bytes())),
//!     ])?;
//!
//!     let reader = index.reader()?;
//!     let by_key = reader.query_key("first", &QueryOptions::default())?;
//!     assert_eq!(by_key.hits[0].key, "reprint");
//!     let by_text = reader.query_text(text.as_bytes(), &QueryOptions::default())?;
//!     assert_eq!(by_text.hits[0].title, "The Story");
//!
//!     let all = reader.pairs(&PairsOptions::default())?;
//!     assert_eq!(all.pairs.len(), 1);
//!     let relation = reader.relation("first", "reprint")?;
//!     println!("{} and {}: {}", all.pairs[0].a.key, all.pairs[0].b.key, relation.class);
//!     Ok(())
//! }
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::host_endian_bytes, clippy::big_endian_bytes)]

pub mod align;
pub mod batch;
mod compact;
mod delete;
mod duration_serde;
mod error;
#[cfg(test)]
mod fault_tests;
pub mod images;
mod index;
pub mod keys;
pub mod lang;
pub mod load;
mod query;
pub mod relate;
pub mod repr;
/// The storage layer: file codecs, the catalog, the write seam. Not part
/// of the stable API: public only with the `internals` feature, for the
/// fuzz targets, benches and tests.
#[cfg(feature = "internals")]
pub mod storage;
#[cfg(not(feature = "internals"))]
#[allow(dead_code)]
mod storage;
mod store;
pub mod text;
pub mod threads;
pub mod translate;
mod upgrade;
mod verify;
mod version;

pub use align::{Overlap, Score};
pub use compact::{CompactProgress, CompactStats, FileSizes};
pub use delete::DeleteStats;
pub use error::{Error, Result};
pub use index::{Index, IndexBuilder, IndexStats};
pub use load::{BulkLoader, Document, DuplicateKey, LoadEvent, LoadOptions, LoadStats};
pub use query::{
    AllPairs, BookInfo, Clusters, Explain, Hit, Location, Mode, OverlapFields, Pair, PairVerifier,
    PairsOptions, PairsStats, QueryOptions, QueryResult, Reader, RelationInput, Relationship,
    SourceCounts, WordRange,
};
pub use repr::PartOptions;
pub use store::dictionaries::DictionaryInfo;
pub use store::image_model::ImageModel;
pub use store::word_image_search::{SpotHit, WordImageSearch};
pub use store::word_images::{ImageBookInfo, ImagesProgress};
pub use upgrade::UpgradeStats;
pub use verify::VerifyStats;

/// Helpers for the crate's own tests.
#[cfg(test)]
mod testing {
    /// A distinct lower-case pseudo-word for `n` (base-26 letters).
    pub(crate) fn letters(mut n: u32) -> String {
        let mut out = String::new();
        loop {
            out.push((b'a' + (n % 26) as u8) as char);
            n /= 26;
            if n == 0 {
                return out;
            }
        }
    }
}

/// The README's examples, compiled (and run where they can be) as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
