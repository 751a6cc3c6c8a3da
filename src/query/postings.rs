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
//! **Frequent words.** A word unique in more books than a cap (see
//! [`default_frequent_word_cap`]) keeps its word id but no entries: counting
//! skips it, and such lists are where a join spends most of its time on large
//! collections. The bound stays sound: a pair can share at most
//! min(skipped words of X, skipped words of Y) of them, and that is added to
//! both its counted common words and its LCS bound ([`Candidate`]); books
//! sharing no counted word still get that bound and are candidates when it
//! can reach the threshold. Alignment then looks each kept book's words up,
//! frequent ones included, so verified overlaps are exact.
//!
//! **Block bound.** The first pass also counts common words per cell of a
//! [`BLOCKS`]×[`BLOCKS`] grid (block of X × block of Y, by sequence index).
//! The common words of an increasing subsequence visit cells along a
//! monotone path, so the heaviest monotone path through the grid bounds
//! |LCS| from above. For common words in random order it is about an
//! eighth of |X ∩ Y|; for a copy it equals it. The planner prunes with it.

use crate::align::{lis_span, Overlap, Score};

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
    /// Elements of each book whose word is frequent (kept out of the lists).
    skipped: Vec<u32>,
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

/// The least list length past which a word counts as frequent, whatever the
/// collection's size: shorter lists are cheap to scan, and skipping them
/// would only loosen bounds.
pub const MIN_FREQUENT_WORD_CAP: u32 = 1000;

/// Share of the books past which a word counts as frequent. Measured on
/// 3,000 generated books (`benches/README.md`): a cap of a third of the
/// books skipped 22% of the entries but loosened the bounds of almost every
/// pair, so the self-join aligned 2,000 times as many pairs and took 8 to 15
/// times as long; from half the books on, nothing was skipped. Only words in most
/// books are skipped by default.
pub const FREQUENT_WORD_SHARE: f64 = 0.5;

/// The default cap for `books` books: words unique in more books than
/// max([`MIN_FREQUENT_WORD_CAP`], half the books) are skipped by counting.
pub fn default_frequent_word_cap(books: usize) -> u32 {
    MIN_FREQUENT_WORD_CAP.max((books as f64 * FREQUENT_WORD_SHARE) as u32)
}

impl Postings {
    /// Builds postings over `sequences`, indexed by position in the slice;
    /// words unique in more than `frequent_cap` books get no entries.
    pub fn build(sequences: &[Vec<u32>], frequent_cap: u32) -> Self {
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
            skipped: vec![0; sequences.len()],
            element_words: vec![0; total],
            element_entries: vec![0; total],
            book_starts,
            ..Postings::default()
        };
        for run in keys.chunk_by(|a, b| a >> 32 == b >> 32) {
            let id = postings.words.len() as WordId;
            postings.words.push((run[0] >> 32) as u32);
            postings.starts.push(postings.books.len() as u32);
            let frequent = run.len() > frequent_cap as usize;
            for &key in run {
                let element = key as u32;
                let book = element_books[element as usize];
                postings.element_words[element as usize] = id;
                if frequent {
                    postings.element_entries[element as usize] = NOT_KEPT;
                    postings.skipped[book as usize] += 1;
                } else {
                    postings.push_entry(element, book);
                }
            }
        }
        postings.starts.push(postings.books.len() as u32);
        postings
    }

    fn push_entry(&mut self, element: u32, book: u32) {
        let index = element - self.book_starts[book as usize];
        self.element_entries[element as usize] = self.books.len() as u32;
        self.books.push(book);
        self.indexes.push(index);
        self.blocks
            .push(block_of(index, self.lengths[book as usize]) as u8);
    }

    /// True when word `id` is frequent: it has no entries.
    fn is_frequent(&self, id: WordId) -> bool {
        self.starts[id as usize] == self.starts[id as usize + 1]
    }

    /// Elements of the probe's sequence whose word is frequent.
    pub fn skipped_in(&self, probe: &Probe<'_>) -> u32 {
        match *probe {
            Probe::Book(book) | Probe::BookAgainstLater(book) => self.skipped[book as usize],
            Probe::Words(words) => words.iter().filter(|&&id| self.is_frequent(id)).count() as u32,
        }
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
                    let end = self.starts[word as usize + 1] as usize;
                    match entry {
                        NOT_KEPT => f(end..end),
                        entry => f(entry as usize + 1..end),
                    }
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
    #[cfg(test)]
    pub fn books_with(&self, word: u32) -> &[u32] {
        match self.words.binary_search(&word) {
            Ok(id) => &self.books[self.range(id as WordId)],
            Err(_) => &[],
        }
    }
}

const NOT_KEPT: u32 = u32::MAX;

/// Blocks per sequence in the block bound's grid. 16 rather than 8: the
/// default score's in-order term is judged against the common count, and
/// an 8×8 grid's bound (about a quarter of the common words) left most
/// unrelated pairs of large books above its threshold; on the generated
/// volumes (378 books) 16×16 aligned 1,778 pairs of parts instead of
/// 164,308, at 512 bytes of scratch per part and thread.
pub const BLOCKS: usize = 16;
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

/// A book that may share words with the joined sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The book's slot.
    pub book: u32,
    /// Common words found by counting: |X ∩ Y| less the frequent words the
    /// two share.
    pub counted: u32,
    /// How many frequent words the two may share: the fewer of X's and Y's.
    /// Zero when X has none, and then `counted` is |X ∩ Y|.
    pub frequent_at_most: u32,
    /// An upper bound on |LCS(X, Y)|: the block grid's, plus `frequent_at_most`.
    pub lcs_at_most: u32,
}

impl Candidate {
    /// An upper bound on `score` for this candidate, |X| being `len_x` and
    /// |Y| `len_y`. |X ∩ Y| lies in `counted ..= counted + frequent_at_most`
    /// and is at least the LCS; every score is non-decreasing in the LCS,
    /// and the coverage score falls as |X ∩ Y| grows, so the bound takes the
    /// largest LCS with the least common count consistent with it.
    pub fn bound(&self, score: Score, len_x: u32, len_y: u32) -> f64 {
        let lcs = self.lcs_at_most.min(self.counted + self.frequent_at_most);
        score.upper_bound_with_lcs(len_x, len_y, self.counted.max(lcs), lcs)
    }
}

/// What the last count of one probe left for its alignment: the entries
/// it scanned (which way aligning is cheaper) and its frequent words
/// (which rule out a rescan).
#[derive(Debug, Clone, Copy)]
pub struct ProbeCost {
    entries_scanned: u64,
    frequent_in_x: u32,
}

/// Per-thread scratch for joining one sequence against the postings.
#[derive(Debug)]
pub struct Join {
    entries_scanned: u64,
    frequent_in_x: u32,
    index_in_x: Vec<u32>,
    counts: Vec<u32>,
    cells: Vec<u16>,
    touched: Vec<u32>,
    candidates: Vec<Candidate>,
    slot: Vec<u32>,
    kept: Vec<(u32, u32)>,
    gathered: Vec<u32>,
    /// The other index of each gathered element (X's in a rescan, Y's in a
    /// lookup).
    gathered_other: Vec<u32>,
    /// A kept book's common elements as (index in Y, index in X).
    pairs: Vec<(u32, u32)>,
}

impl Join {
    /// Scratch for postings over `books` books.
    pub fn new(books: usize) -> Self {
        Join {
            entries_scanned: 0,
            frequent_in_x: 0,
            index_in_x: Vec::new(),
            counts: vec![0; books],
            cells: Vec::new(),
            touched: Vec::new(),
            candidates: Vec::new(),
            slot: vec![NOT_KEPT; books],
            kept: Vec::new(),
            gathered: Vec::new(),
            gathered_other: Vec::new(),
            pairs: Vec::new(),
        }
    }

    /// Posting entries the last [`count`](Self::count) scanned: the join's
    /// work, the same on every run.
    pub fn entries_scanned(&self) -> u64 {
        self.entries_scanned
    }

    /// Elements of the last counted probe whose word is frequent (skipped
    /// by counting, counted in every bound).
    pub fn frequent_in_x(&self) -> u32 {
        self.frequent_in_x
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
        let frequent_in_x = postings.skipped_in(probe);
        self.frequent_in_x = frequent_in_x;
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
        self.candidates.clear();
        if frequent_in_x > 0 {
            self.add_uncounted(postings, probe, frequent_in_x);
        }
        let mut grid = [0u16; CELLS];
        for &book in &self.touched {
            let frequent_at_most = frequent_in_x.min(postings.skipped[book as usize]);
            let counted = std::mem::take(&mut self.counts[book as usize]);
            let lcs_at_most = if use_grid {
                for (bx, row) in grid.chunks_exact_mut(BLOCKS).enumerate() {
                    let at = (bx * books + book as usize) * BLOCKS;
                    let cells = &mut self.cells[at..at + BLOCKS];
                    row.copy_from_slice(cells);
                    cells.fill(0);
                }
                heaviest_monotone_path(&grid)
            } else {
                counted
            };
            self.candidates.push(Candidate {
                book,
                counted,
                frequent_at_most,
                lcs_at_most: lcs_at_most + frequent_at_most,
            });
        }
        self.touched.clear();
        &self.candidates
    }

    /// Adds the books the probe reaches that counting did not touch but that
    /// hold frequent words, which X may share with them.
    fn add_uncounted(&mut self, postings: &Postings, probe: &Probe<'_>, frequent_in_x: u32) {
        let first = match *probe {
            Probe::BookAgainstLater(book) => book as usize + 1,
            Probe::Book(_) | Probe::Words(_) => 0,
        };
        for (book, &skipped) in postings.skipped.iter().enumerate().skip(first) {
            if skipped > 0 && self.counts[book] == 0 {
                let frequent_at_most = frequent_in_x.min(skipped);
                self.candidates.push(Candidate {
                    book: book as u32,
                    counted: 0,
                    frequent_at_most,
                    lcs_at_most: frequent_at_most,
                });
            }
        }
    }

    /// What the last [`count`](Self::count) left for aligning its probe
    /// later, after other probes were counted ([`Self::align_with_cost`]).
    pub fn cost(&self) -> ProbeCost {
        ProbeCost {
            entries_scanned: self.entries_scanned,
            frequent_in_x: self.frequent_in_x,
        }
    }

    /// [`align`](Self::align) for a probe counted earlier, whose
    /// [`cost`](Self::cost) was kept: `keep` as that count returned them.
    pub fn align_with_cost(
        &mut self,
        postings: &Postings,
        probe: &Probe<'_>,
        cost: ProbeCost,
        len_x: u32,
        keep: &[Candidate],
        found: impl FnMut(u32, Overlap),
    ) {
        let last = self.cost();
        self.entries_scanned = cost.entries_scanned;
        self.frequent_in_x = cost.frequent_in_x;
        self.align(postings, probe, len_x, keep, found);
        self.entries_scanned = last.entries_scanned;
        self.frequent_in_x = last.frequent_in_x;
    }

    /// Second pass: aligns the probe's sequence (of `len_x` elements before
    /// resolving) with each of `keep` (as returned by the last
    /// [`count`](Self::count), for the same probe), calling `found` with each
    /// book and its overlap.
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
        // A rescan sees only counted words, so it serves only probes without
        // frequent words.
        if lookups < self.entries_scanned || self.frequent_in_x > 0 {
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
            total += candidate.counted;
        }
        self.gathered.resize(total as usize, 0);
        self.gathered_other.resize(total as usize, 0);
        let mut in_x = 0u32;
        postings.for_each_range(probe, |range| {
            for (&book, &index) in postings.books[range.clone()]
                .iter()
                .zip(&postings.indexes[range])
            {
                let k = self.slot[book as usize];
                if k != NOT_KEPT {
                    let end = &mut self.kept[k as usize].1;
                    self.gathered[*end as usize] = index;
                    self.gathered_other[*end as usize] = in_x;
                    *end += 1;
                }
            }
            in_x += 1;
        });
        for (candidate, &(start, end)) in keep.iter().zip(&self.kept) {
            self.slot[candidate.book as usize] = NOT_KEPT;
            let (start, end) = (start as usize, end as usize);
            // Into Y's order, as a lookup gathers them: the LCS whose span
            // is measured is then the same whichever way the pair aligned.
            self.pairs.clear();
            self.pairs.extend(
                self.gathered[start..end]
                    .iter()
                    .zip(&self.gathered_other[start..end])
                    .map(|(&y, &x)| (y, x)),
            );
            self.pairs.sort_unstable();
            // Written back in place, X's indexes over Y's, in Y's order.
            let (in_x, in_y) = (
                &mut self.gathered[start..end],
                &mut self.gathered_other[start..end],
            );
            for ((x, y), &(at_y, at_x)) in in_x.iter_mut().zip(in_y.iter_mut()).zip(&self.pairs) {
                (*x, *y) = (at_x, at_y);
            }
            let (lcs, span_x, span_y) = lis_span(in_x, in_y);
            let len_y = postings.lengths[candidate.book as usize];
            found(
                candidate.book,
                Overlap {
                    len_x,
                    len_y,
                    common: candidate.counted,
                    lcs,
                    span_x,
                    span_y,
                },
            );
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
            self.gathered_other.clear();
            for (j, &word) in postings.word_ids_of(candidate.book).iter().enumerate() {
                let i = self.index_in_x[word as usize];
                if i != NOT_KEPT {
                    self.gathered.push(i);
                    self.gathered_other.push(j as u32);
                }
            }
            let (lcs, span_x, span_y) = lis_span(&self.gathered, &self.gathered_other);
            found(
                candidate.book,
                Overlap {
                    len_x,
                    len_y: postings.lengths[candidate.book as usize],
                    common: self.gathered.len() as u32,
                    lcs,
                    span_x,
                    span_y,
                },
            );
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
            counted: 0,
            frequent_at_most: 0,
            lcs_at_most: 0,
        };
        let mut result = Overlap::default();
        self.align_by_lookup(postings, x, x.len() as u32, &[unknown], |_, o| result = o);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::SequenceIndex;

    fn seq(hashes: &[u32]) -> Vec<u32> {
        hashes.to_vec()
    }

    #[test]
    fn counts_common_words_per_book() {
        let postings = Postings::build(&[seq(&[1, 2, 3]), seq(&[2, 3, 4]), seq(&[9])], u32::MAX);
        assert_eq!(postings.books_with(2), [0, 1]);
        assert!(postings.books_with(7).is_empty());
        let mut join = Join::new(3);
        let x = postings.resolve(&[2, 3, 9, 77]);
        assert_eq!(x.len(), 3);
        let mut counts: Vec<_> = join
            .count(&postings, &Probe::Words(&x))
            .iter()
            .map(|c| (c.book, c.counted))
            .collect();
        counts.sort();
        assert_eq!(counts, [(0, 2), (1, 2), (2, 1)]);
        let later: Vec<_> = join
            .count(&postings, &Probe::BookAgainstLater(0))
            .iter()
            .map(|c| (c.book, c.counted))
            .collect();
        assert_eq!(later, [(1, 2)]);
        let all: Vec<_> = join
            .count(&postings, &Probe::Book(1))
            .iter()
            .map(|c| (c.book, c.counted))
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
        let postings = Postings::build(&books, u32::MAX);
        let x = [1, 2, 3, 4, 5];
        assert_eq!(postings.word_ids_of(0), postings.resolve(&books[0]));
        let ids = postings.resolve(&x);
        let mut join = Join::new(books.len());
        let probe = Probe::Words(&ids);
        let keep = join.count(&postings, &probe).to_vec();
        for candidate in &keep {
            assert!(candidate.lcs_at_most >= 1 && candidate.lcs_at_most <= candidate.counted);
        }
        let mut by_rescan = Vec::new();
        join.align_by_rescan(&postings, &probe, 5, &keep, |b, o| by_rescan.push((b, o)));
        let mut by_lookup = Vec::new();
        join.align_by_lookup(&postings, &ids, 5, &keep, |b, o| by_lookup.push((b, o)));
        assert_eq!(by_rescan, by_lookup);
        assert_eq!(by_rescan.len(), 3);
        for (book, overlap) in by_rescan {
            let direct = SequenceIndex::new(&x).align(
                &books[book as usize],
                &mut crate::align::AlignScratch::default(),
            );
            assert_eq!(overlap, direct, "book {book}");
            let bound = keep.iter().find(|c| c.book == book).unwrap().lcs_at_most;
            assert!(bound >= overlap.lcs);
        }
    }

    #[test]
    fn frequent_words_are_skipped_but_bounded_and_aligned_exactly() {
        // Words 1 and 2 are in three books: frequent at cap 2.
        let books = [seq(&[1, 2, 3]), seq(&[2, 1, 4]), seq(&[1, 2, 5]), seq(&[6])];
        let postings = Postings::build(&books, 2);
        assert!(postings.books_with(1).is_empty());
        assert_eq!(postings.books_with(3), [0]);
        let x = postings.resolve(&[1, 2, 4]);
        let probe = Probe::Words(&x);
        assert_eq!(postings.skipped_in(&probe), 2);
        let mut join = Join::new(books.len());
        let mut keep = join.count(&postings, &probe).to_vec();
        keep.sort_by_key(|c| c.book);
        // Books 0 and 2 share only frequent words: counted 0, bounded by 2.
        let bounds: Vec<_> = keep
            .iter()
            .map(|c| (c.book, c.counted, c.frequent_at_most, c.lcs_at_most))
            .collect();
        assert_eq!(bounds, [(0, 0, 2, 2), (1, 1, 2, 3), (2, 0, 2, 2)]);
        let mut aligned = Vec::new();
        join.align(&postings, &probe, 3, &keep, |b, o| aligned.push((b, o)));
        for (book, overlap) in aligned {
            let direct = SequenceIndex::new(&[1, 2, 4]).align(
                &books[book as usize],
                &mut crate::align::AlignScratch::default(),
            );
            assert_eq!(overlap, direct, "book {book}");
            let candidate = keep.iter().find(|c| c.book == book).unwrap();
            for score in Score::ALL {
                assert!(candidate.bound(score, 3, 3) >= score.value(&overlap));
            }
        }
        // Against later books only, book 0 reaches 1 and 2, not itself.
        let later: Vec<_> = join
            .count(&postings, &Probe::BookAgainstLater(0))
            .iter()
            .map(|c| c.book)
            .collect();
        assert_eq!(later.len(), 2);
        assert!(!later.contains(&0) && !later.contains(&3));
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
