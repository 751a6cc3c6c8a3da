//! Unique-word postings in memory and the join over them.
//!
//! Postings map a word hash to the books (reader-local slots, ascending) in
//! whose sequence it occurs, with its index in each sequence. Every element
//! of a stored sequence is resolved once, at build, to its word's posting
//! list ([`WordId`]), so a join never searches for a word. Joining a
//! sequence X against them runs in two passes over X's postings: the first
//! counts |X ∩ Y| for every book Y at once; the second, only for the books
//! whose bound survives, gathers the indexes in Y of the common words in X's
//! order, whose longest increasing subsequence is |LCS(X, Y)|.
//!
//! **Block bound.** The first pass also counts common words per cell of a
//! [`BLOCKS`]×[`BLOCKS`] grid (block of X × block of Y, by sequence index).
//! The common words of an increasing subsequence visit cells along a
//! monotone path, so the heaviest monotone path through the grid bounds
//! |LCS| from above. For common words in random order it is about a quarter
//! of |X ∩ Y|; for a copy it equals it. The planner prunes with it.

use crate::align::{lis_len, Overlap};
use crate::repr::UniqueWordSeq;

/// The posting list of one word: an index into [`Postings`]' word table.
pub type WordId = u32;

/// Compressed-sparse-row postings: entries `starts[i]..starts[i + 1]` of
/// `books` and `indexes` list where word `words[i]` occurs.
#[derive(Debug, Default)]
pub struct Postings {
    words: Vec<u32>,
    starts: Vec<u32>,
    books: Vec<u32>,
    indexes: Vec<u32>,
    /// Block of each entry's element in its book ([`BLOCKS`] per book).
    blocks: Vec<u8>,
    lengths: Vec<u32>,
    /// The word id of every element of every book, book after book.
    element_words: Vec<WordId>,
    /// The entry of every element of every book in its word's posting list.
    element_entries: Vec<u32>,
    book_starts: Vec<u32>,
}

/// What a join probes the postings with.
#[derive(Debug, Clone, Copy)]
pub enum Probe<'a> {
    /// A stored book (by slot), against every book, itself included.
    Book(u32),
    /// A stored book, against the books in later slots only.
    BookAgainstLater(u32),
    /// A sequence resolved with [`Postings::resolve`], against every book.
    Words(&'a [WordId]),
}

impl Postings {
    /// Builds postings over `sequences`, indexed by position in the slice.
    pub fn build(sequences: &[UniqueWordSeq]) -> Self {
        let total: usize = sequences.iter().map(|s| s.len()).sum();
        let mut book_starts = Vec::with_capacity(sequences.len() + 1);
        let mut element_books = Vec::with_capacity(total);
        let mut offset = 0u32;
        for (book, sequence) in sequences.iter().enumerate() {
            book_starts.push(offset);
            offset += sequence.len() as u32;
            element_books.extend(std::iter::repeat_n(book as u32, sequence.len()));
        }
        book_starts.push(offset);
        // Key: word hash above, global element number below. Elements are
        // numbered book after book, so a word's entries sort by book.
        let mut keys: Vec<u64> = Vec::with_capacity(total);
        for (sequence, &start) in sequences.iter().zip(&book_starts) {
            keys.extend(
                sequence
                    .hashes
                    .iter()
                    .enumerate()
                    .map(|(index, &h)| ((h as u64) << 32) | (start as u64 + index as u64)),
            );
        }
        keys.sort_unstable();
        let mut postings = Postings {
            books: Vec::with_capacity(total),
            indexes: Vec::with_capacity(total),
            blocks: Vec::with_capacity(total),
            lengths: sequences.iter().map(|s| s.len() as u32).collect(),
            element_words: vec![0; total],
            element_entries: vec![0; total],
            book_starts,
            ..Postings::default()
        };
        for key in keys {
            let (word, element) = ((key >> 32) as u32, key as u32);
            if postings.words.last() != Some(&word) {
                postings.words.push(word);
                postings.starts.push(postings.books.len() as u32);
            }
            let book = element_books[element as usize];
            let index = element - postings.book_starts[book as usize];
            postings.element_words[element as usize] = (postings.words.len() - 1) as WordId;
            postings.element_entries[element as usize] = postings.books.len() as u32;
            postings.books.push(book);
            postings.indexes.push(index);
            let len = postings.lengths[book as usize];
            postings.blocks.push(block_of(index, len) as u8);
        }
        postings.starts.push(postings.books.len() as u32);
        postings
    }

    /// The word ids of stored book `book`'s sequence, in its order.
    pub fn word_ids_of(&self, book: u32) -> &[WordId] {
        let start = self.book_starts[book as usize] as usize;
        let end = self.book_starts[book as usize + 1] as usize;
        &self.element_words[start..end]
    }

    /// The word ids of a sequence not stored (words no book holds are left out).
    pub fn resolve(&self, hashes: &[u32]) -> Vec<WordId> {
        hashes
            .iter()
            .filter_map(|h| self.words.binary_search(h).ok().map(|i| i as WordId))
            .collect()
    }

    /// Entry range of word `id`.
    fn range(&self, id: WordId) -> std::ops::Range<usize> {
        self.starts[id as usize] as usize..self.starts[id as usize + 1] as usize
    }

    /// The word ids a probe's sequence consists of, in its order.
    pub fn probe_words<'p>(&'p self, probe: &Probe<'p>) -> &'p [WordId] {
        match *probe {
            Probe::Book(book) | Probe::BookAgainstLater(book) => self.word_ids_of(book),
            Probe::Words(words) => words,
        }
    }

    /// Calls `f` with the entry range to scan for each element of the
    /// probe's sequence, in its order. For a book against later books the
    /// range starts just past the book's own entry, as lists are sorted by book.
    fn for_each_range(&self, probe: &Probe<'_>, mut f: impl FnMut(std::ops::Range<usize>)) {
        match *probe {
            Probe::BookAgainstLater(book) => {
                let start = self.book_starts[book as usize] as usize;
                let end = self.book_starts[book as usize + 1] as usize;
                for (&word, &entry) in self.element_words[start..end]
                    .iter()
                    .zip(&self.element_entries[start..end])
                {
                    f(entry as usize + 1..self.starts[word as usize + 1] as usize);
                }
            }
            Probe::Book(_) | Probe::Words(_) => {
                for &word in self.probe_words(probe) {
                    f(self.range(word));
                }
            }
        }
    }

    /// The books holding the word with hash `word`, ascending.
    pub fn books_with(&self, word: u32) -> &[u32] {
        match self.words.binary_search(&word) {
            Ok(id) => &self.books[self.range(id as WordId)],
            Err(_) => &[],
        }
    }
}

const NOT_KEPT: u32 = u32::MAX;

/// Blocks per sequence in the block bound's grid.
pub const BLOCKS: usize = 8;
const CELLS: usize = BLOCKS * BLOCKS;

/// Block of element `index` in a sequence of `len` elements.
fn block_of(index: u32, len: u32) -> usize {
    (index as u64 * BLOCKS as u64 / len.max(1) as u64) as usize
}

/// The blocks of a sequence's elements in order, without a division per
/// element: equal to `block_of(i, len)` for i = 0, 1, 2, …
struct BlockWalk {
    index: usize,
    block: usize,
    next_start: usize,
    len: usize,
}

impl BlockWalk {
    fn new(len: usize) -> Self {
        let mut walk = BlockWalk {
            index: 0,
            block: 0,
            next_start: 0,
            len,
        };
        walk.next_start = walk.start_of(1);
        walk
    }

    /// First index of `block`: the least i with i·BLOCKS/len ≥ block.
    fn start_of(&self, block: usize) -> usize {
        (block * self.len).div_ceil(BLOCKS)
    }

    fn next_block(&mut self) -> usize {
        while self.index >= self.next_start && self.block + 1 < BLOCKS {
            self.block += 1;
            self.next_start = self.start_of(self.block + 1);
        }
        self.index += 1;
        self.block
    }
}

/// The heaviest monotone path through a grid of cell counts.
fn heaviest_monotone_path(cells: &[u16]) -> u32 {
    let mut best = [0u32; BLOCKS];
    for row in cells.chunks_exact(BLOCKS) {
        let mut left = 0;
        for (by, &count) in row.iter().enumerate() {
            let value = count as u32 + best[by].max(left);
            best[by] = value;
            left = value;
        }
    }
    best[BLOCKS - 1]
}

/// A book sharing words with the joined sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The book's slot.
    pub book: u32,
    /// |X ∩ Y|, exact.
    pub common: u32,
    /// An upper bound on |LCS(X, Y)| from the block grid.
    pub lcs_at_most: u32,
}

/// Per-thread scratch for joining one sequence against the postings.
#[derive(Debug)]
pub struct Join {
    entries_scanned: u64,
    index_in_x: Vec<u32>,
    counts: Vec<u32>,
    cells: Vec<u16>,
    touched: Vec<u32>,
    common: Vec<Candidate>,
    slot: Vec<u32>,
    kept: Vec<(u32, u32)>,
    gathered: Vec<u32>,
}

impl Join {
    /// Scratch for postings over `books` books.
    pub fn new(books: usize) -> Self {
        Join {
            entries_scanned: 0,
            index_in_x: Vec::new(),
            counts: vec![0; books],
            cells: Vec::new(),
            touched: Vec::new(),
            common: Vec::new(),
            slot: vec![NOT_KEPT; books],
            kept: Vec::new(),
            gathered: Vec::new(),
        }
    }

    /// First pass: for every book the probe reaches that shares words with
    /// it, its common count and block bound, in no particular order.
    pub fn count(&mut self, postings: &Postings, probe: &Probe<'_>) -> &[Candidate] {
        self.entries_scanned = 0;
        let x_len = postings.probe_words(probe).len();
        // A cell counts at most one block of X; past u16 the grid is skipped
        // and the bound falls back to the common count.
        let use_grid = x_len.div_ceil(BLOCKS) <= u16::MAX as usize;
        let books = self.counts.len();
        if self.cells.is_empty() {
            self.cells = vec![0; books * CELLS];
        }
        let mut blocks = BlockWalk::new(x_len);
        postings.for_each_range(probe, |range| {
            // Cells are laid out [X block][book][Y block], so one X block's
            // counting touches a strip of books × BLOCKS cells.
            let strip = blocks.next_block() * books * BLOCKS;
            self.entries_scanned += range.len() as u64;
            for (&book, &by) in postings.books[range.clone()]
                .iter()
                .zip(&postings.blocks[range])
            {
                let count = &mut self.counts[book as usize];
                if *count == 0 {
                    self.touched.push(book);
                }
                *count += 1;
                if use_grid {
                    self.cells[strip + book as usize * BLOCKS + by as usize] += 1;
                }
            }
        });
        self.common.clear();
        let mut grid = [0u16; CELLS];
        for &book in &self.touched {
            let common = std::mem::take(&mut self.counts[book as usize]);
            let lcs_at_most = if use_grid {
                for (bx, row) in grid.chunks_exact_mut(BLOCKS).enumerate() {
                    let at = (bx * books + book as usize) * BLOCKS;
                    let cells = &mut self.cells[at..at + BLOCKS];
                    row.copy_from_slice(cells);
                    cells.fill(0);
                }
                heaviest_monotone_path(&grid)
            } else {
                common
            };
            self.common.push(Candidate {
                book,
                common,
                lcs_at_most,
            });
        }
        self.touched.clear();
        &self.common
    }

    /// Second pass: aligns the probe's sequence (of `len_x` elements before
    /// resolving) with each of `keep` (as returned by [`count`](Self::count)
    /// for the same probe), calling `found` with each book and its overlap.
    /// Rescans the postings when that is cheaper than reading every kept
    /// book's sequence, else looks each kept book's words up in the probe's.
    pub fn align(
        &mut self,
        postings: &Postings,
        probe: &Probe<'_>,
        len_x: u32,
        keep: &[Candidate],
        found: impl FnMut(u32, Overlap),
    ) {
        if keep.is_empty() {
            return;
        }
        let lookups: u64 = keep
            .iter()
            .map(|c| postings.lengths[c.book as usize] as u64)
            .sum();
        if lookups < self.entries_scanned {
            self.align_by_lookup(postings, postings.probe_words(probe), len_x, keep, found);
        } else {
            self.align_by_rescan(postings, probe, len_x, keep, found);
        }
    }

    fn align_by_rescan(
        &mut self,
        postings: &Postings,
        probe: &Probe<'_>,
        len_x: u32,
        keep: &[Candidate],
        mut found: impl FnMut(u32, Overlap),
    ) {
        self.kept.clear();
        let mut total = 0u32;
        for (k, candidate) in keep.iter().enumerate() {
            self.slot[candidate.book as usize] = k as u32;
            self.kept.push((total, total));
            total += candidate.common;
        }
        self.gathered.resize(total as usize, 0);
        postings.for_each_range(probe, |range| {
            for (&book, &index) in postings.books[range.clone()]
                .iter()
                .zip(&postings.indexes[range])
            {
                let k = self.slot[book as usize];
                if k != NOT_KEPT {
                    let end = &mut self.kept[k as usize].1;
                    self.gathered[*end as usize] = index;
                    *end += 1;
                }
            }
        });
        for (candidate, &(start, end)) in keep.iter().zip(&self.kept) {
            self.slot[candidate.book as usize] = NOT_KEPT;
            let lcs = lis_len(&self.gathered[start as usize..end as usize]) as u32;
            found(candidate.book, overlap(postings, len_x, candidate, lcs));
        }
    }

    fn align_by_lookup(
        &mut self,
        postings: &Postings,
        x: &[WordId],
        len_x: u32,
        keep: &[Candidate],
        mut found: impl FnMut(u32, Overlap),
    ) {
        if self.index_in_x.len() < postings.words.len() {
            self.index_in_x = vec![NOT_KEPT; postings.words.len()];
        }
        for (i, &word) in x.iter().enumerate() {
            self.index_in_x[word as usize] = i as u32;
        }
        for candidate in keep {
            self.gathered.clear();
            self.gathered.extend(
                postings
                    .word_ids_of(candidate.book)
                    .iter()
                    .map(|&word| self.index_in_x[word as usize])
                    .filter(|&i| i != NOT_KEPT),
            );
            let lcs = lis_len(&self.gathered) as u32;
            found(candidate.book, overlap(postings, len_x, candidate, lcs));
        }
        for &word in x {
            self.index_in_x[word as usize] = NOT_KEPT;
        }
    }
}

impl Join {
    /// Aligns two stored books directly: X's words are marked in a table
    /// indexed by word id and Y's are looked up in it, O(|X| + |Y| + c log c).
    pub fn align_pair(&mut self, postings: &Postings, a: u32, b: u32) -> Overlap {
        let x = postings.word_ids_of(a);
        let unknown = Candidate {
            book: b,
            common: 0,
            lcs_at_most: 0,
        };
        let mut result = Overlap::default();
        self.align_by_lookup(postings, x, x.len() as u32, &[unknown], |_, o| result = o);
        result.common = self.gathered.len() as u32;
        result
    }
}

fn overlap(postings: &Postings, len_x: u32, candidate: &Candidate, lcs: u32) -> Overlap {
    Overlap {
        len_x,
        len_y: postings.lengths[candidate.book as usize],
        common: candidate.common,
        lcs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::SequenceIndex;

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
        let mut join = Join::new(3);
        let x = postings.resolve(&[2, 3, 9, 77]);
        assert_eq!(x.len(), 3);
        let mut counts: Vec<_> = join
            .count(&postings, &Probe::Words(&x))
            .iter()
            .map(|c| (c.book, c.common))
            .collect();
        counts.sort();
        assert_eq!(counts, [(0, 2), (1, 2), (2, 1)]);
        let later: Vec<_> = join
            .count(&postings, &Probe::BookAgainstLater(0))
            .iter()
            .map(|c| (c.book, c.common))
            .collect();
        assert_eq!(later, [(1, 2)]);
        let all: Vec<_> = join
            .count(&postings, &Probe::Book(1))
            .iter()
            .map(|c| (c.book, c.common))
            .collect();
        assert_eq!(all.len(), 2);
    }

    #[test]
    fn join_alignment_equals_direct_alignment() {
        let books = [
            seq(&[5, 1, 2, 3, 4]),
            seq(&[4, 3, 2, 1]),
            seq(&[1, 9, 3, 8, 2]),
        ];
        let postings = Postings::build(&books);
        let x = [1, 2, 3, 4, 5];
        assert_eq!(postings.word_ids_of(0), postings.resolve(&books[0].hashes));
        let ids = postings.resolve(&x);
        let mut join = Join::new(books.len());
        let probe = Probe::Words(&ids);
        let keep = join.count(&postings, &probe).to_vec();
        for candidate in &keep {
            assert!(candidate.lcs_at_most >= 1 && candidate.lcs_at_most <= candidate.common);
        }
        let mut by_rescan = Vec::new();
        join.align_by_rescan(&postings, &probe, 5, &keep, |b, o| by_rescan.push((b, o)));
        let mut by_lookup = Vec::new();
        join.align_by_lookup(&postings, &ids, 5, &keep, |b, o| by_lookup.push((b, o)));
        assert_eq!(by_rescan, by_lookup);
        assert_eq!(by_rescan.len(), 3);
        for (book, overlap) in by_rescan {
            let direct =
                SequenceIndex::new(&x).align(&books[book as usize].hashes, &mut Vec::new());
            assert_eq!(overlap, direct, "book {book}");
            let bound = keep.iter().find(|c| c.book == book).unwrap().lcs_at_most;
            assert!(bound >= overlap.lcs);
        }
    }

    #[test]
    fn block_walk_matches_block_of() {
        for len in [0usize, 1, 2, 7, 8, 9, 63, 64, 65, 1000, 4097] {
            let mut walk = BlockWalk::new(len);
            for i in 0..len {
                assert_eq!(
                    walk.next_block(),
                    block_of(i as u32, len as u32),
                    "len {len} i {i}"
                );
            }
        }
    }

    #[test]
    fn heaviest_path_bounds_the_lis_of_a_shuffled_grid() {
        // Diagonal: the path takes every cell on it.
        let mut cells = [0u16; CELLS];
        for b in 0..BLOCKS {
            cells[b * BLOCKS + b] = 10;
        }
        assert_eq!(heaviest_monotone_path(&cells), 10 * BLOCKS as u32);
        // Anti-diagonal: a monotone path meets only one of its cells.
        let mut cells = [0u16; CELLS];
        for b in 0..BLOCKS {
            cells[b * BLOCKS + (BLOCKS - 1 - b)] = 10;
        }
        assert_eq!(heaviest_monotone_path(&cells), 10);
    }
}
