//! Clusters of related books: the connected components of the graph whose
//! edges are the pairs an all-pairs run found (union-find with path halving
//! and union by size).

use super::{BookInfo, Pair, Reader};

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

/// Connected components over reader slots.
#[derive(Debug, Clone)]
struct Components {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl Components {
    /// `books` singletons.
    fn new(books: usize) -> Self {
        Components {
            parent: (0..books as u32).collect(),
            size: vec![1; books],
        }
    }

    /// The representative of `book`'s cluster.
    fn find(&mut self, mut book: u32) -> u32 {
        while self.parent[book as usize] != book {
            let grandparent = self.parent[self.parent[book as usize] as usize];
            self.parent[book as usize] = grandparent;
            book = grandparent;
        }
        book
    }

    /// Puts `a` and `b` in one cluster.
    fn join(&mut self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
    }

    /// Clusters of two or more books, each as its slots in ascending order,
    /// largest first, ties by lowest slot: the same for the same pairs, in
    /// whatever order they were joined.
    fn groups(&mut self) -> Vec<Vec<u32>> {
        let mut by_root: std::collections::HashMap<u32, Vec<u32>> = Default::default();
        for book in 0..self.parent.len() as u32 {
            let root = self.find(book);
            by_root.entry(root).or_default().push(book);
        }
        let mut groups: Vec<Vec<u32>> = by_root.into_values().filter(|g| g.len() > 1).collect();
        groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_deterministic_and_drop_singletons() {
        let mut forward = Components::new(8);
        for (a, b) in [(0, 5), (5, 7), (2, 3), (6, 6)] {
            forward.join(a, b);
        }
        let mut backward = Components::new(8);
        for (a, b) in [(3, 2), (7, 5), (5, 0)] {
            backward.join(a, b);
        }
        let expected = vec![vec![0, 5, 7], vec![2, 3]];
        assert_eq!(forward.groups(), expected);
        assert_eq!(backward.groups(), expected);
        assert_eq!(forward.find(7), forward.find(0));
        assert_ne!(forward.find(1), forward.find(0));
    }
}
