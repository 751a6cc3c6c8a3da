//! Connected components of the related pairs: union-find with path halving
//! and union by size, over ids from 0, and groups that are the same for
//! the same pairs in any order.

/// Clusters of books by id, grown pair by pair.
#[derive(Debug, Clone, Default)]
pub struct Components {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl Components {
    /// `books` books, each alone; more are added as pairs name them.
    pub fn new(books: usize) -> Self {
        Components {
            parent: (0..books as u32).collect(),
            size: vec![1; books],
        }
    }

    /// Makes room for ids up to `book`.
    fn reach(&mut self, book: u32) {
        let len = self.parent.len() as u32;
        if book >= len {
            self.parent.extend(len..=book);
            self.size.resize(book as usize + 1, 1);
        }
    }

    /// The representative of `book`'s cluster.
    pub fn find(&mut self, mut book: u32) -> u32 {
        self.reach(book);
        while self.parent[book as usize] != book {
            let grandparent = self.parent[self.parent[book as usize] as usize];
            self.parent[book as usize] = grandparent;
            book = grandparent;
        }
        book
    }

    /// Puts `a` and `b` in one cluster.
    pub fn join(&mut self, a: u32, b: u32) {
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

    /// Clusters of two or more books, each as its ids in ascending order,
    /// largest first, ties by lowest id: the same for the same pairs, in
    /// whatever order they were joined.
    pub fn groups(&mut self) -> Vec<Vec<u32>> {
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

/// Clusters of books by key, in the order every output of them has:
/// keys ascending within a cluster, clusters largest first, ties by first
/// key; so the order does not depend on the order books were loaded in.
pub fn clusters_by_key(mut groups: Vec<Vec<&str>>) -> Vec<Vec<&str>> {
    for group in &mut groups {
        group.sort_unstable();
    }
    groups.retain(|group| !group.is_empty());
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(b[0])));
    groups
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

    #[test]
    fn ids_past_the_start_are_added_as_pairs_name_them() {
        let mut grown = Components::default();
        grown.join(9, 4);
        grown.join(4, 2);
        assert_eq!(grown.groups(), vec![vec![2, 4, 9]]);
    }

    #[test]
    fn clusters_by_key_sort_keys_then_clusters_by_size_and_first_key() {
        let groups = vec![vec!["d", "c"], vec!["z", "b", "y"], vec!["a", "e"]];
        assert_eq!(
            clusters_by_key(groups),
            vec![vec!["b", "y", "z"], vec!["a", "e"], vec!["c", "d"]]
        );
    }
}
