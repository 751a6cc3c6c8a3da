//! Unique-word postings in memory: word hash → the books (reader-local
//! indexes, ascending) in whose sequence it occurs. Built when a reader
//! opens; counting over them gives |X ∩ Y| for every book at once.

use crate::repr::UniqueWordSeq;

/// Compressed-sparse-row postings: `books[starts[i]..starts[i + 1]]` lists the
/// books holding word `words[i]`.
#[derive(Debug, Default)]
pub struct Postings {
    words: Vec<u32>,
    starts: Vec<u32>,
    books: Vec<u32>,
}

impl Postings {
    /// Builds postings over `sequences`, indexed by position in the slice.
    pub fn build(sequences: &[UniqueWordSeq]) -> Self {
        let total: usize = sequences.iter().map(|s| s.len()).sum();
        let mut pairs: Vec<u64> = Vec::with_capacity(total);
        for (book, sequence) in sequences.iter().enumerate() {
            pairs.extend(
                sequence
                    .hashes
                    .iter()
                    .map(|&h| ((h as u64) << 32) | book as u64),
            );
        }
        pairs.sort_unstable();
        let mut postings = Postings {
            books: Vec::with_capacity(total),
            ..Postings::default()
        };
        for pair in pairs {
            let (word, book) = ((pair >> 32) as u32, pair as u32);
            if postings.words.last() != Some(&word) {
                postings.words.push(word);
                postings.starts.push(postings.books.len() as u32);
            }
            postings.books.push(book);
        }
        postings.starts.push(postings.books.len() as u32);
        postings
    }

    /// The books holding `word`, ascending.
    pub fn books_with(&self, word: u32) -> &[u32] {
        match self.words.binary_search(&word) {
            Ok(i) => &self.books[self.starts[i] as usize..self.starts[i + 1] as usize],
            Err(_) => &[],
        }
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        4 * (self.words.len() + self.starts.len() + self.books.len())
    }
}

/// Per-thread scratch for counting common words per book.
#[derive(Debug)]
pub struct CommonCounter {
    counts: Vec<u32>,
    touched: Vec<u32>,
    found: Vec<(u32, u32)>,
}

impl CommonCounter {
    /// A counter for `books` books.
    pub fn new(books: usize) -> Self {
        CommonCounter {
            counts: vec![0; books],
            touched: Vec::new(),
            found: Vec::new(),
        }
    }

    /// Counts, for every book with index above `after` (or every book when
    /// `None`), how many words of `sequence` it holds. Returns (book, count)
    /// for books with a count above zero, in no particular order.
    pub fn count(
        &mut self,
        postings: &Postings,
        sequence: &[u32],
        after: Option<u32>,
    ) -> &[(u32, u32)] {
        for &word in sequence {
            let mut books = postings.books_with(word);
            if let Some(after) = after {
                books = &books[books.partition_point(|&b| b <= after)..];
            }
            for &book in books {
                let count = &mut self.counts[book as usize];
                if *count == 0 {
                    self.touched.push(book);
                }
                *count += 1;
            }
        }
        self.found.clear();
        for &book in &self.touched {
            let count = std::mem::take(&mut self.counts[book as usize]);
            self.found.push((book, count));
        }
        self.touched.clear();
        &self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(hashes: &[u32]) -> UniqueWordSeq {
        UniqueWordSeq {
            hashes: hashes.to_vec(),
            positions: (0..hashes.len() as u32).collect(),
        }
    }

    #[test]
    fn counts_common_words_per_book() {
        let postings = Postings::build(&[seq(&[1, 2, 3]), seq(&[2, 3, 4]), seq(&[9])]);
        assert_eq!(postings.books_with(2), [0, 1]);
        assert!(postings.books_with(7).is_empty());
        let mut counter = CommonCounter::new(3);
        let mut counts = counter.count(&postings, &[2, 3, 9], None).to_vec();
        counts.sort();
        assert_eq!(counts, [(0, 2), (1, 2), (2, 1)]);
        let after = counter.count(&postings, &[2, 3], Some(0)).to_vec();
        assert_eq!(after, [(1, 2)]);
    }
}
