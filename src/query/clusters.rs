//! Clusters of related books: the connected components of the graph whose
//! edges are the pairs an all-pairs run found ([`Components`]).

use super::{BookInfo, Pair, Reader};
use crate::batch::Components;

/// Clusters of the books of a reader, grown pair by pair: for runs whose
/// pairs are streamed by [`Reader::for_each_pair`] rather than collected.
#[derive(Debug, Clone)]
pub struct Clusters<'r> {
    reader: &'r Reader,
    components: Components,
}

impl<'r> Clusters<'r> {
    /// Every book of `reader` alone in its cluster.
    pub fn new(reader: &'r Reader) -> Self {
        Clusters {
            reader,
            components: Components::new(reader.len()),
        }
    }

    /// Puts the two books of `pair` in one cluster.
    pub fn add(&mut self, pair: &Pair<'_>) {
        let (a, b) = pair.slots();
        self.components.join(a, b);
    }

    /// Clusters of two or more books, each in internal-id order, largest
    /// first, ties by the lowest id: the same for the same pairs, in
    /// whatever order they were added.
    pub fn groups(&mut self) -> Vec<Vec<&'r BookInfo>> {
        let books = self.reader.books();
        self.components
            .groups()
            .into_iter()
            .map(|group| {
                group
                    .into_iter()
                    .map(|slot| &books[slot as usize])
                    .collect()
            })
            .collect()
    }
}
