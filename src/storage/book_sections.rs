//! Reading a segment's book sections in place ([`super::segment_books`]
//! holds their layout and encoder): the accessors of [`Segment`] that a
//! reader's runs use, each clamping what it reads, and the check that the
//! sections are exactly what the encoder writes.

use super::catalog::BookEntry;
use super::codec::Encode;
use super::packed;
use super::page_files::PageLocator;
use super::posting_lists::{self, fine_block_of, List};
use super::segment::Segment;
use super::segment_books::{
    decode_entry, end_range, BookSpans, PartHashes, PartWords, SegmentBook, U32s, FLAG_PAGED,
    FLAG_SKETCHED, LONG_LIST,
};
use super::sorted::{non_decreasing, strictly_increasing};
use crate::error::{Error, Result};
use crate::repr::sketch::Table;
use std::cmp::Reverse;

/// The spans of a segment without book sections: every section empty.
static NO_SPANS: BookSpans = BookSpans::EMPTY;

/// Bytes of a [`BookEntry`] before its key's length.
const ENTRY_KEY_AT: usize = 36;

impl Segment {
    /// Where the book sections lie (all empty when there are none).
    #[inline]
    fn spans(&self) -> &BookSpans {
        self.book_spans.as_ref().unwrap_or(&NO_SPANS)
    }

    fn u32s(&self, at: usize, count: usize) -> U32s<'_> {
        U32s::new(self.bytes.get(at..at + 4 * count).unwrap_or(&[]))
    }

    /// Whether the segment holds book sections (version 7 on).
    pub fn has_books(&self) -> bool {
        self.book_spans.is_some()
    }

    /// The flags byte of the book at `position`.
    pub fn flags(&self, position: usize) -> u8 {
        let spans = self.spans();
        match position < self.book_count() {
            true => self
                .bytes
                .get(spans.flags_at + position)
                .copied()
                .unwrap_or(0),
            false => 0,
        }
    }

    /// Whether the book at `position` has a sketch (every book of a segment
    /// without book sections has).
    pub fn sketched(&self, position: usize) -> bool {
        !self.has_books() || self.flags(position) & FLAG_SKETCHED != 0
    }

    /// The stored bytes of the entry (and page locator) of the book at
    /// `position`, and where they start.
    pub(super) fn entry_bytes(&self, position: usize) -> (&[u8], usize) {
        let spans = self.spans();
        let ends = self.u32s(spans.entry_ends_at, self.book_count());
        let range = end_range(ends, position, spans.entries_len);
        let at = spans.entries_at + range.start;
        (
            self.bytes
                .get(at..spans.entries_at + range.end)
                .unwrap_or(&[]),
            at,
        )
    }

    /// The catalog entry and page locator of the book at `position`.
    pub fn entry(&self, position: usize) -> Result<(BookEntry, Option<PageLocator>)> {
        let (bytes, at) = self.entry_bytes(position);
        decode_entry(bytes, self.flags(position), self.path(), at as u64)
    }

    /// The key bytes of the book at `position` (empty when damaged).
    pub fn key_bytes(&self, position: usize) -> &[u8] {
        key_of_entry(self.entry_bytes(position).0)
    }

    /// The positions of the books whose key is `key`, in id order.
    pub fn positions_of_key(&self, key: &str) -> Vec<usize> {
        let order = self.u32s(self.spans().key_order_at, self.book_count());
        let key = key.as_bytes();
        let first = order.partition_point(|p| self.key_bytes(p as usize) < key);
        order
            .slice(first..order.len())
            .iter()
            .take_while(|&p| self.key_bytes(p as usize) == key)
            .map(|p| p as usize)
            .filter(|&p| p < self.book_count())
            .collect()
    }

    /// Parts of all books together.
    pub fn part_count(&self) -> usize {
        self.spans().parts
    }

    /// The parts of the book at `position`, numbered within the segment.
    pub fn book_parts(&self, position: usize) -> std::ops::Range<usize> {
        let spans = self.spans();
        let ends = self.u32s(spans.part_ends_at, self.book_count());
        end_range(ends, position, spans.parts)
    }

    /// The position of the book holding part `part`.
    pub fn book_of_part(&self, part: usize) -> usize {
        let ends = self.u32s(self.spans().part_ends_at, self.book_count());
        ends.partition_point(|end| end as usize <= part)
            .min(self.book_count().saturating_sub(1))
    }

    fn element_range(&self, part: usize) -> std::ops::Range<usize> {
        let spans = self.spans();
        let ends = self.u32s(spans.element_ends_at, spans.parts);
        end_range(ends, part, spans.elements)
    }

    /// Elements of part `part`.
    pub fn part_len(&self, part: usize) -> u32 {
        self.element_range(part).len() as u32
    }

    /// The unique-word hashes of part `part`, in text order.
    pub fn part_hashes(&self, part: usize) -> PartHashes<'_> {
        let spans = self.spans();
        let word_hashes = self.u32s(spans.word_hashes_at, spans.words);
        PartHashes::new(word_hashes, self.part_words(part))
    }

    /// The word (see [`Self::word_hash`]) of each element of part `part`.
    pub fn part_words(&self, part: usize) -> PartWords<'_> {
        let spans = self.spans();
        let at = spans.element_words_at;
        let len = packed::packed_len(spans.elements, spans.word_width);
        let range = self.element_range(part);
        PartWords::new(
            self.bytes.get(at..at + len).unwrap_or(&[]),
            spans.word_width,
            range.start,
            range.len(),
        )
    }

    /// Distinct words of the segment's parts.
    pub fn word_count(&self) -> usize {
        self.spans().words
    }

    /// The word with hash `hash`, if any part holds it.
    pub fn find_word(&self, hash: u32) -> Option<u32> {
        let spans = self.spans();
        find_sorted(self.u32s(spans.word_hashes_at, spans.words), hash)
    }

    /// The hash of word `word`.
    #[inline]
    pub fn word_hash(&self, word: u32) -> u32 {
        let spans = self.spans();
        self.u32s(spans.word_hashes_at, spans.words)
            .get(word as usize)
    }

    /// The bytes of the posting lists.
    fn list_bytes(&self) -> &[u8] {
        let spans = self.spans();
        self.bytes
            .get(spans.lists_at..spans.lists_at + spans.lists_len)
            .unwrap_or(&[])
    }

    /// The bytes of word `word`'s list: where they start and end in the
    /// lists' bytes (an empty range past the last word).
    pub fn list_range(&self, word: u32) -> (u32, u32) {
        let spans = self.spans();
        let end_of = |word: usize| self.list_end(spans, word).min(spans.lists_len as u32);
        let word = word as usize;
        if word >= spans.words {
            return (0, 0);
        }
        let end = end_of(word);
        let start = match word {
            0 => 0,
            _ => end_of(word - 1).min(end),
        };
        (start, end)
    }

    /// The stored end of word `word`'s list (unclamped; 0 past the bytes).
    #[inline]
    fn list_end(&self, spans: &BookSpans, word: usize) -> u32 {
        packed::get(self.list_ends(spans), word, spans.list_end_width)
    }

    /// The bit-packed ends of the lists, up to the end of the segment.
    fn list_ends(&self, spans: &BookSpans) -> &[u8] {
        self.bytes.get(spans.list_ends_at..).unwrap_or(&[])
    }

    /// The posting list of word `word` (empty past the last word).
    pub fn word_list(&self, word: u32) -> List<'_> {
        self.list_at(self.list_range(word))
    }

    /// The posting list whose bytes are `range` of the lists' bytes
    /// ([`Self::list_range`]). Its decoder is given the bytes up to the
    /// end of the segment: a bit-packed value near the list's end is then
    /// read with one eight-byte load (bits past the list are masked off).
    #[inline]
    pub fn list_at(&self, (start, end): (u32, u32)) -> List<'_> {
        match start < end {
            true => List::read(self.bytes.get(self.list_start(start)..).unwrap_or(&[])),
            false => List::default(),
        }
    }

    /// Where in the segment the list starts whose bytes start at `start`
    /// of the lists' bytes.
    #[inline]
    fn list_start(&self, start: u32) -> usize {
        self.spans().lists_at.saturating_add(start as usize)
    }

    /// Brings closer the first bytes of the list whose bytes are `range`
    /// ([`Self::list_at`] reads them), a few lists before it is read.
    #[inline]
    pub fn prefetch_list(&self, (start, _): (u32, u32)) {
        packed::prefetch(&self.bytes, self.list_start(start));
    }

    /// Brings closer the stored end of word `word`'s list (which
    /// [`Self::list_range`] reads), a few words before it is read.
    #[inline]
    pub fn prefetch_list_range(&self, word: u32) {
        let spans = self.spans();
        packed::prefetch_value(self.list_ends(spans), word as usize, spans.list_end_width);
    }

    /// Every word's posting list, word after word.
    pub fn word_lists(&self) -> impl Iterator<Item = List<'_>> + '_ {
        (0..self.word_count() as u32).map(|word| self.word_list(word))
    }

    /// Entries of word `word`'s posting list.
    pub fn list_len(&self, word: u32) -> u32 {
        self.word_list(word).len()
    }

    /// Words whose lists hold at least [`LONG_LIST`] entries, longest first.
    pub fn long_words(&self) -> U32s<'_> {
        let spans = self.spans();
        self.u32s(spans.long_words_at, spans.long_words)
    }

    /// `Corrupted` unless the segment holds book sections (version 7 on),
    /// naming what `to` would have done with them.
    pub(super) fn require_books(&self, to: &str) -> Result<()> {
        match self.has_books() {
            true => Ok(()),
            false => Err(Error::corrupted(
                self.path(),
                format!(
                    "a version-{} segment holds no book sections to {to}",
                    self.version()
                ),
            )),
        }
    }

    /// The book at `position` as a writer would encode it again.
    pub fn segment_book(&self, position: usize) -> Result<SegmentBook> {
        self.require_books("copy")?;
        let (entry, pages) = self.entry(position)?;
        Ok(SegmentBook {
            sketch: self.sketch_record(position),
            sketched: self.sketched(position),
            entry,
            pages,
            parts: self
                .book_parts(position)
                .map(|part| self.part_hashes(part).to_vec())
                .collect(),
            passages: match self.passage_view() {
                Some(view) => view
                    .book_parts(position)
                    .map(|passage| view.part_hashes(passage).to_vec())
                    .collect(),
                None => Vec::new(),
            },
        })
    }

    /// Checks that the book sections are exactly what the encoder writes
    /// for the stored sequences, without holding them: each book's flags
    /// and entry, the key order, every element's word and its entry in
    /// that word's postings, and the long words. Memory: four bytes per
    /// distinct word, whatever the number of elements.
    pub(super) fn check_books(&self) -> Result<()> {
        let Some(spans) = self.book_spans else {
            return Ok(());
        };
        self.check_book_data(&spans)?;
        self.check_key_order(&spans)?;
        self.check_postings(&spans)?;
        self.check_long_words(&spans)?;
        match self.passage_view() {
            Some(view) if self.stores_passages() => {
                let spans = view.spans();
                view.check_postings(spans)?;
                view.check_long_words(spans)
            }
            _ => Ok(()),
        }
    }

    fn corrupted(&self, what: &str) -> Error {
        Error::corrupted(self.path(), what.to_string())
    }

    /// Flags, entry ends and entries: each entry decodes and encodes again
    /// to its stored bytes.
    fn check_book_data(&self, spans: &BookSpans) -> Result<()> {
        let entry_ends = self.u32s(spans.entry_ends_at, self.book_count());
        if !non_decreasing(entry_ends.iter()) {
            return Err(self.corrupted("book entry ends out of order"));
        }
        let mut again = Vec::new();
        for position in 0..self.book_count() {
            let flags = self.flags(position);
            if flags & !(FLAG_SKETCHED | FLAG_PAGED) != 0 {
                return Err(self.corrupted("unknown book flags"));
            }
            let keyed = Table::ALL
                .into_iter()
                .any(|table| self.book_keys(position, table).next().is_some());
            if flags & FLAG_SKETCHED == 0 && keyed {
                return Err(self.corrupted("a book without a sketch has band keys"));
            }
            let (entry, pages) = self.entry(position)?;
            again.clear();
            entry.encode_into(&mut again);
            if let Some(locator) = &pages {
                locator.encode_into(&mut again);
            }
            if again != self.entry_bytes(position).0 {
                return Err(self.corrupted("a book entry is not as a writer encodes it"));
            }
        }
        Ok(())
    }

    /// The key order: every position once, sorted by (key, id).
    fn check_key_order(&self, spans: &BookSpans) -> Result<()> {
        let order = self.u32s(spans.key_order_at, self.book_count());
        if order.iter().any(|p| p as usize >= self.book_count()) {
            return Err(self.corrupted("a key order position past the last book"));
        }
        // Strictly increasing (key, id) pairs name each position once.
        let keys = order
            .iter()
            .map(|p| (self.key_bytes(p as usize), self.book_id(p as usize)));
        if !strictly_increasing(keys) {
            return Err(self.corrupted("key order out of order"));
        }
        Ok(())
    }

    /// Parts, elements and postings. The word hashes and list ends
    /// strictly increase; every list decodes, with parts strictly
    /// decreasing below the part count, to exactly its stored bytes when
    /// encoded again; the lists hold one entry per element; and the
    /// (word, part, fine block) triples of the lists are those of the
    /// elements, compared as multisets by a sum of two seeded 64-bit
    /// hashes of each triple (so memory does not grow with the segment).
    /// The element words are packed at the width the word count gives,
    /// with zero bits after the last.
    fn check_postings(&self, spans: &BookSpans) -> Result<()> {
        let disagree = || {
            self.corrupted(
                "book sections disagree with the sequences they index (out of order or damaged)",
            )
        };
        let part_ends = self.u32s(spans.part_ends_at, self.book_count());
        let element_ends = self.u32s(spans.element_ends_at, spans.parts);
        if !non_decreasing(part_ends.iter()) || !non_decreasing(element_ends.iter()) {
            return Err(self.corrupted("part or element ends out of order"));
        }
        let hashes = self.u32s(spans.word_hashes_at, spans.words);
        if !strictly_increasing(hashes.iter()) {
            return Err(disagree());
        }
        let ends = (0..spans.words).map(|word| self.list_end(spans, word));
        let last = spans
            .words
            .checked_sub(1)
            .map(|word| self.list_end(spans, word));
        if !strictly_increasing(std::iter::once(0).chain(ends))
            || last.unwrap_or(0) as usize != spans.lists_len
            || !packed::padding_is_zero(
                self.bytes.get(spans.list_ends_at..).unwrap_or(&[]),
                spans.words,
                spans.list_end_width,
            )
        {
            return Err(disagree());
        }
        let mut from_lists = Fingerprint::default();
        let mut entries = 0u64;
        let mut again = Vec::new();
        for word in 0..spans.words as u32 {
            let list = self.word_list(word);
            let decoded = list.to_vec();
            again.clear();
            if !decoded.is_empty() {
                posting_lists::encode(&decoded, &mut again);
            }
            let (start, end) = self.list_range(word);
            let stored = self.list_bytes().get(start as usize..end as usize);
            let parts_in_order = strictly_increasing(decoded.iter().rev().map(|e| e.0));
            let below = decoded
                .first()
                .is_some_and(|e| (e.0 as usize) < spans.parts);
            if stored != Some(again.as_slice()) || !parts_in_order || !below {
                return Err(disagree());
            }
            for &(part, block) in &decoded {
                from_lists.add(word, part, block);
            }
            entries += decoded.len() as u64;
        }
        if entries != spans.elements as u64 {
            return Err(disagree());
        }
        let mut from_elements = Fingerprint::default();
        let mut words = Vec::new();
        for part in 0..spans.parts {
            self.part_words(part).decode_into(&mut words);
            let len = words.len() as u32;
            for (&word, index) in words.iter().zip(0u32..) {
                if word as usize >= spans.words {
                    return Err(disagree());
                }
                from_elements.add(word, part as u32, fine_block_of(index, len));
            }
        }
        let element_words = self.bytes.get(spans.element_words_at..).unwrap_or(&[]);
        let padding_clear =
            packed::padding_is_zero(element_words, spans.elements, spans.word_width);
        if from_lists != from_elements || !padding_clear {
            return Err(disagree());
        }
        Ok(())
    }

    /// The long words: each word of at least [`LONG_LIST`] entries once,
    /// longest first, then by number.
    fn check_long_words(&self, spans: &BookSpans) -> Result<()> {
        let lengths: Vec<u32> = self.word_lists().map(|list| list.len()).collect();
        let count = |w: u32| lengths.get(w as usize).copied().unwrap_or(0);
        let long = (0..spans.words as u32)
            .filter(|&w| count(w) >= LONG_LIST)
            .count();
        let listed = self.long_words();
        let ordered = listed.iter().map(|w| (Reverse(count(w)), w));
        if listed.len() != long
            || listed
                .iter()
                .any(|w| w as usize >= spans.words || count(w) < LONG_LIST)
            || !strictly_increasing(ordered)
        {
            return Err(self.corrupted("long words not as a writer lists them"));
        }
        Ok(())
    }
}

/// The key bytes of an encoded [`BookEntry`] (empty when damaged).
pub(super) fn key_of_entry(bytes: &[u8]) -> &[u8] {
    let len = U32s::new(bytes.get(ENTRY_KEY_AT..ENTRY_KEY_AT + 4).unwrap_or(&[])).get(0);
    bytes
        .get(ENTRY_KEY_AT + 4..ENTRY_KEY_AT + 4 + len as usize)
        .unwrap_or(&[])
}

/// A multiset of (word, part, fine block) triples, as two sums of seeded
/// hashes of its members.
#[derive(Debug, Default, PartialEq, Eq)]
struct Fingerprint(u64, u64);

impl Fingerprint {
    fn add(&mut self, word: u32, part: u32, block: u8) {
        let mut bytes = [0u8; 9];
        bytes[..4].copy_from_slice(&word.to_le_bytes());
        bytes[4..8].copy_from_slice(&part.to_le_bytes());
        bytes[8] = block;
        let hash = |seed| xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, seed);
        self.0 = self.0.wrapping_add(hash(1));
        self.1 = self.1.wrapping_add(hash(2));
    }
}

/// The index of `value` in the sorted `values`, if there: word hashes are
/// spread evenly over the `u32` range ([`super::sorted`]).
fn find_sorted(values: U32s<'_>, value: u32) -> Option<u32> {
    super::sorted::search(values.len(), u64::from(value), |i| u64::from(values.get(i)))
        .ok()
        .map(|i| i as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repr::sketch::Table;
    use crate::repr::{MinHashSig, SimHash128};
    use crate::storage::segment::encode as encode_segment;
    use crate::storage::segment_books::SketchRecord;
    use crate::storage::segment_merge::{merge, Fate};
    use std::path::Path;

    fn book(id: u32, key: &str, parts: &[&[u32]]) -> SegmentBook {
        SegmentBook {
            sketch: SketchRecord {
                book_id: id,
                simhash: SimHash128(u128::from(id)),
                minhash: MinHashSig(vec![u64::from(id); 2]),
                keys: [vec![u64::from(id)], vec![], vec![7], vec![]],
            },
            sketched: id != 5,
            entry: BookEntry {
                key: key.into(),
                title: format!("t{id}"),
                unique_words: parts.iter().map(|p| p.len() as u32).sum(),
                ..BookEntry::default()
            },
            pages: (id == 3).then_some(PageLocator {
                file: 1,
                offset: 9,
                len: 20,
            }),
            parts: parts.iter().map(|p| p.to_vec()).collect(),
            // One passage per book, its words those of its parts in
            // reverse, each once.
            passages: vec![{
                let mut words: Vec<u32> = parts
                    .iter()
                    .rev()
                    .flat_map(|p| p.iter().rev().copied())
                    .collect();
                let mut seen = std::collections::HashSet::new();
                words.retain(|w| seen.insert(*w));
                words
            }],
        }
    }

    fn sample() -> Vec<SegmentBook> {
        vec![
            book(5, "b", &[&[10, 20, 30]]),
            book(3, "c", &[&[30, 40], &[40, 50, 10]]),
            book(4, "a", &[&[]]),
        ]
    }

    fn open(bytes: Vec<u8>) -> Segment {
        Segment::decode(bytes, Path::new("seg")).unwrap()
    }

    #[test]
    fn books_parts_and_postings_round_trip() {
        let segment = open(encode_segment(sample(), 2).unwrap());
        assert!(segment.has_books());
        assert_eq!(segment.positions_of_key("c"), [0]);
        assert_eq!(segment.positions_of_key("a"), [1]);
        assert!(segment.positions_of_key("z").is_empty());
        let (entry, pages) = segment.entry(0).unwrap();
        assert_eq!((entry.key.as_str(), entry.title.as_str()), ("c", "t3"));
        assert_eq!(pages.map(|p| p.offset), Some(9));
        assert!(segment.sketched(0) && !segment.sketched(2));
        assert_eq!(segment.book_parts(0), 0..2);
        assert_eq!(segment.book_parts(2), 3..4);
        assert_eq!(segment.book_of_part(1), 0);
        assert_eq!(segment.book_of_part(3), 2);
        assert_eq!(segment.part_hashes(1).to_vec(), [40, 50, 10]);
        assert_eq!(segment.part_len(2), 0);
        let w = segment.find_word(40).unwrap();
        // Parts in decreasing order: index 0 of 3 lies in fine block 0,
        // index 1 of 2 in block 32 of 64.
        assert_eq!(segment.word_list(w).to_vec(), [(1, 0), (0, 32)]);
        assert_eq!(segment.part_words(1).get(0), w);
        assert!(segment.find_word(41).is_none());
        assert_eq!(segment.word_count(), 5);
        // An unsketched book is in no key table.
        assert_eq!(segment.lookup(Table::Book, 5).count(), 0);
        assert_eq!(
            segment.lookup(Table::SimHash, 7).collect::<Vec<_>>(),
            [3, 4]
        );
        let again = segment.segment_book(1).unwrap();
        assert_eq!(again.parts, [Vec::<u32>::new()]);
        assert_eq!(
            segment.segment_book(0).unwrap().passages,
            [vec![10, 50, 40, 30]]
        );
        // The passage view reads the passages as its parts.
        let passages = segment.passage_view().unwrap();
        assert_eq!(passages.book_parts(0), 0..1);
        assert_eq!(passages.book_parts(2), 2..3);
        assert_eq!(passages.part_hashes(2).to_vec(), [30, 20, 10]);
        let w = passages.find_word(30).unwrap();
        assert_eq!(passages.word_list(w).to_vec().len(), 2);
        assert_eq!(passages.entry(0).unwrap().0.key, "c");
    }

    #[test]
    fn merge_keeps_live_books_with_their_sections() {
        let a = open(encode_segment(sample(), 2).unwrap());
        let b = open(encode_segment(vec![book(9, "a", &[&[10, 99]])], 2).unwrap());
        let merged = open(merge(&[&a, &b], |id| Fate::keep_if(id != 4)).unwrap());
        assert_eq!(merged.book_ids().collect::<Vec<_>>(), [3, 5, 9]);
        assert_eq!(merged.positions_of_key("a"), [2]);
        let w = merged.find_word(10).unwrap();
        assert_eq!(merged.list_len(w), 3);
        assert_eq!(merged.part_hashes(3).to_vec(), [10, 99]);
    }

    #[test]
    fn long_words_are_listed_longest_first() {
        let books: Vec<SegmentBook> = (0..70)
            .map(|i| book(i + 10, &format!("k{i}"), &[&[1, 2 + (i % 2)]]))
            .collect();
        let segment = open(encode_segment(books, 2).unwrap());
        let long: Vec<u32> = segment
            .long_words()
            .iter()
            .map(|w| segment.word_hash(w))
            .collect();
        assert_eq!(long, [1]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// The streamed check accepts a segment exactly when it is the
        /// encoder's bytes for the books it holds: bytes past the sketch
        /// records changed (the checksum made right again) are accepted
        /// only when encoding the segment's books again gives them back.
        #[test]
        fn the_check_accepts_exactly_what_the_encoder_writes(
            books in crate::storage::segment_merge::tests::books_strategy(1),
            flips in proptest::collection::vec(
                (proptest::prelude::any::<proptest::sample::Index>(), 1u8..=255),
                1..3,
            ),
        ) {
            use crate::storage::format::{checksum, CHECKSUM_LEN, HEADER_LEN};
            let k = 3;
            let clean = encode_segment(books.clone(), k).unwrap();
            let sketches_end = HEADER_LEN + 8 + books.len() * (20 + 8 * k);
            let body_end = clean.len() - CHECKSUM_LEN;
            let mut bytes = clean.clone();
            for (at, bits) in &flips {
                bytes[sketches_end + at.index(body_end - sketches_end)] ^= bits;
            }
            let sum = checksum(&bytes[..body_end]);
            bytes[body_end..].copy_from_slice(&sum.to_le_bytes());
            let Ok(segment) = Segment::in_memory(bytes.clone(), Path::new("seg")) else {
                return Ok(());
            };
            let again = (0..segment.book_count())
                .map(|p| segment.segment_book(p))
                .collect::<Result<Vec<_>>>()
                .and_then(|books| encode_segment(books, k));
            let canonical = again.is_ok_and(|again| again == bytes);
            let checked = segment.check();
            proptest::prop_assert_eq!(checked.is_ok(), canonical, "{:?}", checked.err());
        }
    }

    #[test]
    fn disagreeing_sections_are_refused_even_with_a_valid_checksum() {
        let mut bytes = encode_segment(sample(), 2).unwrap();
        let segment = open(bytes.clone());
        let spans = segment.spans();
        // Change one element's word; the postings no longer index it.
        let at = spans.element_words_at;
        bytes[at] ^= 1;
        let body_end = bytes.len() - crate::storage::format::CHECKSUM_LEN;
        let sum = crate::storage::format::checksum(&bytes[..body_end]);
        bytes[body_end..].copy_from_slice(&sum.to_le_bytes());
        let error = Segment::decode(bytes, Path::new("seg")).unwrap_err();
        assert!(error.to_string().contains("disagree"), "{error}");
    }

    #[test]
    fn elements_of_no_bits_past_parts_times_words_are_refused_at_open() {
        // One word: element words take no bits, so only the bound of
        // parts times words keeps a raised element count from claiming
        // elements (and allocations) the bytes do not hold.
        let mut bytes = encode_segment(vec![book(1, "k", &[&[9], &[9]])], 2).unwrap();
        let spans = *open(bytes.clone()).spans();
        assert_eq!((spans.word_width, spans.parts, spans.elements), (0, 2, 2));
        let last_end = spans.element_ends_at + 4;
        bytes[last_end..last_end + 4].copy_from_slice(&200_000_000u32.to_le_bytes());
        let body_end = bytes.len() - crate::storage::format::CHECKSUM_LEN;
        let sum = crate::storage::format::checksum(&bytes[..body_end]);
        bytes[body_end..].copy_from_slice(&sum.to_le_bytes());
        let error = Segment::in_memory(bytes, Path::new("seg")).unwrap_err();
        assert!(error.to_string().contains("200000000 elements"), "{error}");
    }
}
