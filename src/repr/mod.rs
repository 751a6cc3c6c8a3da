//! Book representations: pure functions from normalised words to the
//! features the index stores. No I/O here.

pub mod unique_words;

pub use unique_words::{word_hash, ExtractOptions, Features, UniqueWordSeq, DEFAULT_HASH_SEED};
