//! Relations of stored books: the matched word positions of a pair's
//! unique-word LCS, the sparse portion map they give, and its class
//! ([`crate::relate`]).

use super::Reader;
use crate::relate::map::matched_positions;
use crate::relate::{classify_map, MapOptions, PortionMap, Relation};
use crate::repr::UniqueWordSeq;
use crate::{Error, Result};

impl Reader {
    /// The word positions (in `a`, in `b`) of the elements of one LCS of
    /// the stored books `a` and `b`'s unique-word sequences, increasing in
    /// both. `UnknownKey` when either is not stored.
    pub fn matched_positions(&self, a: &str, b: &str) -> Result<Vec<(u32, u32)>> {
        Ok(matched_positions(self.sequence(a)?, self.sequence(b)?))
    }

    /// The sparse portion map of a book given by its unique-word sequence
    /// and word count (a stored book, or a new text extracted with the
    /// index's options) and the stored book `b`.
    pub fn portion_map_with(
        &self,
        sequence: &UniqueWordSeq,
        words: u64,
        b: &str,
        options: &MapOptions,
    ) -> Result<PortionMap> {
        let other = self.book(b)?;
        PortionMap::from_unique_words(
            sequence,
            word_count(words, "the first book")?,
            self.sequence(b)?,
            word_count(other.words, b)?,
            options,
        )
    }

    /// The sparse portion map of the stored books `a` and `b`.
    pub fn portion_map(&self, a: &str, b: &str, options: &MapOptions) -> Result<PortionMap> {
        let words = self.book(a)?.words;
        self.portion_map_with(self.sequence(a)?, words, b, options)
    }

    /// The relation of the stored books `a` and `b` (duplicate, contains or
    /// overlap), from their portion map with the default options.
    pub fn relation(&self, a: &str, b: &str) -> Result<Relation> {
        Ok(classify_map(&self.portion_map(
            a,
            b,
            &MapOptions::default(),
        )?))
    }

    /// The relation of a book given by its unique-word sequence and word
    /// count to the stored book `b`.
    pub fn relation_with(&self, sequence: &UniqueWordSeq, words: u64, b: &str) -> Result<Relation> {
        Ok(classify_map(&self.portion_map_with(
            sequence,
            words,
            b,
            &MapOptions::default(),
        )?))
    }
}

/// `words` as a map's u32 word count.
fn word_count(words: u64, book: &str) -> Result<u32> {
    u32::try_from(words).map_err(|_| {
        Error::InvalidArgument(format!(
            "{book} has {words} words; portion maps take at most {}",
            u32::MAX
        ))
    })
}
