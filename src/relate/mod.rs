//! How two related books relate, beyond a pair score: which portions of
//! them match, and what kind of relation that is.
//!
//! - [`map`]: portion maps (thesis 4.3): both books cut into bins of words,
//!   a bin matched when enough of its eligible words are aligned, and the
//!   regions joining matched bins; from a full-text alignment (word range
//!   pairs) or from unique-word sequences. [`svg`] draws one.
//! - [`pages`]: the page signals of Google Books (section IV.B) from page
//!   min-hash signatures.
//! - [`classify`]: the relation of a pair ([`Relation`]) from page signals
//!   (same or different pagination, contiguous subset, overlapping text) or
//!   from a portion map (duplicate, contains, overlap), with a confidence
//!   from φ filters (Google Books IV.C).
//! - [`TranslationShape`]: the shape of a translation pair (whole, contained,
//!   partial) from where its match lies.
//!
//! Everything here is pure computation: no I/O.

pub mod classify;
pub mod map;
pub mod pages;
mod shape;
mod side;
pub mod svg;

pub use classify::{
    classify_books, classify_map, classify_matched, classify_pages, MatchSignals, MatchedBook,
    Relation, RelationClass,
};
pub use map::{Bin, BookMap, Eligible, MapBook, MapOptions, PortionMap, Region};
pub use pages::{OwnedPagedBook, PageOptions, PageSignals, PagedBook};
pub use shape::{Shape, TranslationShape};
pub use side::Side;
