//! The book a query asks about, shared by the planner, approximate mode and
//! the all-pairs job.

use crate::repr::UniqueWordSeq;

/// The book a query asks about: a stored one (by slot), or a new text.
#[derive(Debug, Clone, Copy)]
pub(crate) enum QueryBook<'q> {
    Stored(u32),
    Text(&'q QueryText),
}

/// A new text as a load would store it: its parts, its passages (when a
/// translation search needs them) and its word count.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueryText {
    pub parts: Vec<UniqueWordSeq>,
    /// Its passages ([`crate::repr::passages`]); empty unless asked for.
    pub passages: Vec<UniqueWordSeq>,
    pub words: u64,
}

impl QueryBook<'_> {
    /// The stored book's slot; `None` for a new text.
    pub(crate) fn slot(&self) -> Option<u32> {
        match *self {
            QueryBook::Stored(slot) => Some(slot),
            QueryBook::Text(_) => None,
        }
    }
}
