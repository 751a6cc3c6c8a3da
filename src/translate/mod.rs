//! Translation: bilingual dictionaries and the translation lexicons built
//! from them.
//!
//! [`dictionary`] reads the dictd dictionaries FreeDict publishes (an
//! `.index` and a `.dict.dz` or `.dict`) into a [`dictionary::Dictionary`]:
//! its languages, a table of normalised words and the translation pairs
//! between them. The index stores such dictionaries (`dictionaries/*.dic`,
//! storage-format.md section 6.7). [`lexicon`] joins the dictionaries of a
//! language pair, in both directions, into a [`lexicon::Lexicon`]: for each
//! source word's hash, the hashes of its translations. [`rta`] aligns a
//! text with its translation through a lexicon.

pub mod dictionary;
pub mod lexicon;
pub mod rta;
