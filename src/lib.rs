//! stemmata: an embedded search-index engine that finds related books —
//! duplicates, other editions, books contained in other books — in large
//! collections of noisy text.
//!
//! Each book is represented by its unique-word sequence (the words that occur
//! once in it, in text order). Two books are compared by the longest common
//! subsequence of their sequences, computed as a longest increasing
//! subsequence. An index directory stores the sequences in compressed,
//! checksummed barrels and the books in a transactional catalog.
//!
//! ```
//! use stemmata::{Document, Index, QueryOptions};
//!
//! # fn main() -> stemmata::Result<()> {
//! let dir = tempfile::tempdir().unwrap();
//! let index = Index::create(dir.path())?;
//! // Scrambled so the words are in no alphabetical order (an alphabetical
//! // run would be dropped as a glossary).
//! let word = |i: u32| format!("w{}", stemmata::testing::letters(i.wrapping_mul(2654435761)));
//! let words: Vec<String> = (0..400).map(word).collect();
//! let text = words.join(" ");
//! let preface = format!("A new preface. {text}");
//! index.load([
//!     Ok(Document::new("first", text.as_bytes())),
//!     Ok(Document::new("second", preface.as_bytes())),
//! ])?;
//! let reader = index.reader()?;
//! let result = reader.query_key("first", &QueryOptions::default())?;
//! assert_eq!(result.hits[0].key, "second");
//! # Ok(())
//! # }
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::host_endian_bytes, clippy::big_endian_bytes)]

pub mod align;
pub mod compact;
mod duration_serde;
mod error;
pub mod eval;
#[cfg(test)]
mod fault_tests;
pub mod index;
pub mod load;
pub mod query;
pub mod relate;
pub mod repr;
pub mod storage;
pub mod synth;
pub mod text;
mod upgrade;

pub use align::{Overlap, Score};
pub use compact::CompactStats;
pub use error::{Error, Result};
pub use index::{DeleteStats, Index, IndexBuilder, IndexStats, VerifyStats};
pub use load::{BulkLoader, Document, DuplicateKey, LoadEvent, LoadOptions, LoadStats};
pub use query::{
    BookInfo, Clusters, Hit, Mode, Pair, PairsOptions, PairsStats, QueryOptions, QueryResult,
    Reader, RelationInput,
};
pub use upgrade::UpgradeStats;

/// Small helpers for examples and tests.
pub mod testing {
    /// A distinct lower-case pseudo-word for `n` (base-26 letters).
    pub fn letters(mut n: u32) -> String {
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
