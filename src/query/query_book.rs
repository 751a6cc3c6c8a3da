//! The book a query asks about, shared by the planner, approximate mode and
//! the all-pairs job.

use crate::repr::UniqueWordSeq;

/// The book a query asks about: a stored one (by slot), or the parts of a
/// new text.
#[derive(Debug, Clone, Copy)]
pub(crate) enum QueryBook<'q> {
    Stored(u32),
    Text(&'q [UniqueWordSeq]),
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
