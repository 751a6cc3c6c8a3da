//! Which book of a pair: the one name both the page signals and the
//! classifier use for "the first" and "the second" book.

use serde::Serialize;

/// One of the two books of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The first book.
    A,
    /// The second book.
    B,
}
