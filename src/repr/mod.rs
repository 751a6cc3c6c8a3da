//! Book representations: pure functions from normalised words to the
//! features the index stores. No I/O here. `docs/algorithms.md` states
//! every rule here whose result is stored, so that it can be reproduced.

pub mod minhash;
pub mod parts;
pub mod passages;
pub mod simhash;
pub mod sketch;
#[cfg(test)]
mod test_texts;
pub mod unique_words;

pub use minhash::{book_signature, page_signatures, MinHashOptions, MinHashSig, ShingleHash};
pub use parts::{book_parts, PartOptions};
pub use simhash::{simhash, SimHash128, SimHashOptions};
pub use sketch::{BandLayout, BookSketch, SketchOptions, Table};
pub use unique_words::{word_hash, ExtractOptions, Features, UniqueWordSeq, DEFAULT_HASH_SEED};
