//! The book sections of a segment (version 10 on): what a reader holds
//! for each book of the segment, read in place through a memory map
//! instead of being loaded at open.
//!
//! - **Book data**: a flags byte per book (sketched, paged), the book's
//!   catalog entry ([`BookEntry`], as the catalog stores it) and its page
//!   locator, and the books' positions sorted by key, for lookups by key.
//! - **Words**: the segment's distinct unique words, sorted by hash, and
//!   for each its posting list ([`super::posting_lists`]): the parts
//!   holding it, each with the index of its element there.
//! - **Parts**: each part's unique words in text order (the planner's
//!   unit), as word numbers bit-packed at the fewest bits that number every
//!   word: the sequence is stored once, its hashes in the word table.
//! - **Long words**: the words with the longest lists, longest first, from
//!   which a reader finds the frequent words of the whole index without
//!   reading every list.
//!
//! Layout (all integers little-endian; `storage-format.md`, section 4.5):
//!
//! ```text
//! n × u8 flags, n × u32 entry end, B bytes of entries, n × u32 key order
//! n × u32 part end, P × u32 element end
//! u32 w, w × u32 word hash, u32 Q, ⌈w·q/8⌉ bytes of list ends
//!   (q = bits of Q; formats 10 to 12: no Q, w × u32 list end), Q bytes of lists
//! ⌈N·b/8⌉ bytes of element words (b = bits of w − 1)
//! u32 L, L × u32 long word
//! ```
//!
//! Offsets are checked when a segment is opened; values are not (the
//! checksum, orders and agreement of the sections are checked by
//! [`super::segment::Segment::check`], which `verify` and merges run), so
//! every accessor clamps what it reads: damaged values give wrong answers,
//! never a panic.

use std::path::Path;

use super::catalog::BookEntry;
use super::codec::{Cursor, Decode, Encode};
use super::page_files::PageLocator;
use super::{packed, posting_lists};
use crate::error::{Error, Result};
use crate::repr::sketch::Table;
use crate::repr::{BookSketch, MinHashSig, SimHash128};

const TABLES: usize = Table::ALL.len();

/// Blocks per part in the coarse grid of the exact join's bound: the
/// coarse block of an element is its fine block's quarter
/// ([`super::posting_lists::fine_block_of`]), `index · BLOCKS / len`.
pub const BLOCKS: usize = 16;

/// Words whose list holds at least this many entries are listed among a
/// segment's long words.
pub const LONG_LIST: u32 = 64;

/// Flag bit: the book's sketch and keys are real (a book loaded by a build
/// without sketches has neither).
pub const FLAG_SKETCHED: u8 = 1;
/// Flag bit: a page locator follows the book's entry.
pub const FLAG_PAGED: u8 = 2;

/// The sketch of one book and its band keys, ready for a segment.
#[derive(Debug, Clone)]
pub struct SketchRecord {
    /// The book.
    pub book_id: u32,
    /// Its simhash.
    pub simhash: SimHash128,
    /// Its book min-hash signature.
    pub minhash: MinHashSig,
    /// Its band keys, per table in [`Table::ALL`] order.
    pub keys: [Vec<u64>; TABLES],
}

impl SketchRecord {
    /// The record of `sketch` for `book_id`, with keys from `options`.
    pub fn new(
        book_id: u32,
        sketch: &BookSketch,
        options: &crate::repr::SketchOptions,
    ) -> SketchRecord {
        SketchRecord {
            book_id,
            simhash: sketch.simhash,
            minhash: sketch.book.clone(),
            keys: Table::ALL.map(|table| sketch.keys(table, options)),
        }
    }

    /// Its band keys of `table`.
    pub fn keys_of(&self, table: Table) -> &[u64] {
        self.keys.get(table as usize).map_or(&[], Vec::as_slice)
    }
}

/// One book of a segment: its sketch, and what a reader holds for it.
#[derive(Debug, Clone)]
pub struct SegmentBook {
    /// Its sketch and band keys (ignored when not `sketched`).
    pub sketch: SketchRecord,
    /// Whether the sketch is real.
    pub sketched: bool,
    /// Its catalog entry.
    pub entry: BookEntry,
    /// Where its page signatures are, when it has some.
    pub pages: Option<PageLocator>,
    /// The unique-word hashes of each of its parts, in text order.
    pub parts: Vec<Vec<u32>>,
    /// The unique-word hashes of each of its passages
    /// ([`crate::repr::passages`]), in text order: none when the book was
    /// loaded into an index without a dictionary.
    pub passages: Vec<Vec<u32>>,
}

impl SegmentBook {
    /// The book's id.
    pub fn id(&self) -> u32 {
        self.sketch.book_id
    }
}

/// A little-endian `u32` array read in place.
#[derive(Debug, Clone, Copy, Default)]
pub struct U32s<'a>(&'a [u8]);

impl<'a> U32s<'a> {
    /// The array over `bytes` (a trailing partial value is ignored).
    pub fn new(bytes: &'a [u8]) -> Self {
        U32s(bytes)
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.0.len() / 4
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i`, 0 past the end.
    pub fn get(&self, i: usize) -> u32 {
        match self.0.get(4 * i..4 * i + 4) {
            Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
            _ => 0,
        }
    }

    /// The values in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u32> + 'a {
        self.0
            .chunks_exact(4)
            .map(<byteorder::LittleEndian as byteorder::ByteOrder>::read_u32)
    }

    /// Values `range` (clamped).
    pub fn slice(&self, range: std::ops::Range<usize>) -> U32s<'a> {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        U32s(self.0.get(4 * start..4 * end).unwrap_or(&[]))
    }

    /// The values' little-endian bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The values, copied.
    pub fn to_vec(self) -> Vec<u32> {
        self.iter().collect()
    }

    /// The first index whose value is not below `value` in a sorted array.
    pub fn partition_point(&self, mut below: impl FnMut(u32) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            if below(self.get(mid)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }
}

/// The element words of one part, bit-packed, read in place.
#[derive(Debug, Clone, Copy, Default)]
pub struct PartWords<'a> {
    /// The element words of the whole segment.
    packed: &'a [u8],
    width: u8,
    start: usize,
    len: usize,
}

impl<'a> PartWords<'a> {
    /// Elements `start .. start + len` of the words packed at `width` bits
    /// in `packed`.
    pub(crate) fn new(packed: &'a [u8], width: u8, start: usize, len: usize) -> Self {
        PartWords {
            packed,
            width,
            start,
            len,
        }
    }

    /// Elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the part has none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The word of element `i` (0 past the end).
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match i < self.len {
            true => packed::get(self.packed, self.start + i, self.width),
            false => 0,
        }
    }

    /// The words in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u32> + 'a {
        let words = *self;
        (0..self.len).map(move |i| packed::get(words.packed, words.start + i, words.width))
    }

    /// The words, decoded a block at a time into `out` (cleared first).
    pub fn decode_into(&self, out: &mut Vec<u32>) {
        out.clear();
        out.resize(self.len, 0);
        let bit = self.start as u64 * u64::from(self.width);
        let from = (bit / 8) as usize;
        if bit.is_multiple_of(8) {
            packed::unpack(self.packed.get(from..).unwrap_or(&[]), self.width, out);
        } else {
            out.iter_mut().zip(self.iter()).for_each(|(o, w)| *o = w);
        }
    }
}

/// The unique-word hashes of one part, read in place: its element words
/// looked up in the segment's word table.
#[derive(Debug, Clone, Copy, Default)]
pub struct PartHashes<'s> {
    /// The word table's hashes, by word.
    word_hashes: U32s<'s>,
    words: PartWords<'s>,
}

impl<'s> PartHashes<'s> {
    /// The hashes of `words` in the table `word_hashes`.
    pub(crate) fn new(word_hashes: U32s<'s>, words: PartWords<'s>) -> Self {
        PartHashes { word_hashes, words }
    }

    /// Elements.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when the part has none.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The hashes in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u32> + 's {
        let word_hashes = self.word_hashes;
        self.words
            .iter()
            .map(move |word| word_hashes.get(word as usize))
    }

    /// The hashes, copied.
    pub fn to_vec(self) -> Vec<u32> {
        self.iter().collect()
    }
}

/// Range `j` under cumulative ends (`end[−1] = 0`), clamped to `total`
/// and never reversed.
pub fn end_range(ends: U32s<'_>, j: usize, total: usize) -> std::ops::Range<usize> {
    if j >= ends.len() {
        return 0..0;
    }
    let end = (ends.get(j) as usize).min(total);
    let start = if j == 0 {
        0
    } else {
        (ends.get(j - 1) as usize).min(end)
    };
    start..end
}

/// Where the book sections lie in a segment's bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BookSpans {
    pub(crate) flags_at: usize,
    pub(crate) entry_ends_at: usize,
    pub(crate) entries_at: usize,
    pub(crate) entries_len: usize,
    pub(crate) key_order_at: usize,
    pub(crate) part_ends_at: usize,
    pub(crate) parts: usize,
    pub(crate) element_ends_at: usize,
    pub(crate) elements: usize,
    pub(crate) words: usize,
    pub(crate) word_hashes_at: usize,
    pub(crate) list_ends_at: usize,
    /// Bits of a list end: 32 before format 13 (a `u32` array), then the
    /// bits of the lists' bytes.
    pub(crate) list_end_width: u8,
    pub(crate) lists_at: usize,
    pub(crate) lists_len: usize,
    pub(crate) element_words_at: usize,
    /// Bits of each element word: [`word_width`] of `words`.
    pub(crate) word_width: u8,
    pub(crate) long_words: usize,
    pub(crate) long_words_at: usize,
}

/// Bits of an element word in a segment of `words` distinct words: the
/// fewest that number them all.
pub fn word_width(words: usize) -> u8 {
    packed::bits(u32::try_from(words.saturating_sub(1)).unwrap_or(u32::MAX))
}

/// The last of `count` cumulative ends at `at` (0 when none), read before
/// the ends are known to lie inside `bytes`: out of range reads as
/// `usize::MAX`, which the following size check refuses.
fn last_end(bytes: &[u8], at: usize, count: usize) -> usize {
    match count {
        0 => 0,
        n => bytes
            .get(at + 4 * (n - 1)..at + 4 * n)
            .map_or(usize::MAX, |b| U32s::new(b).get(0) as usize),
    }
}

impl BookSpans {
    /// No book sections: every section empty.
    pub(crate) const EMPTY: BookSpans = BookSpans {
        flags_at: 0,
        entry_ends_at: 0,
        entries_at: 0,
        entries_len: 0,
        key_order_at: 0,
        part_ends_at: 0,
        parts: 0,
        element_ends_at: 0,
        elements: 0,
        words: 0,
        word_hashes_at: 0,
        list_ends_at: 0,
        list_end_width: 0,
        lists_at: 0,
        lists_len: 0,
        element_words_at: 0,
        word_width: 0,
        long_words: 0,
        long_words_at: 0,
    };

    /// Finds the sections of `books` books at the cursor, checking that
    /// each fits in the bytes; leaves the cursor after them.
    /// The book sections at the cursor, of `books` books; `packed_list_ends`
    /// from format 13 on.
    pub(crate) fn decode(
        cursor: &mut Cursor<'_>,
        bytes: &[u8],
        books: usize,
        packed_list_ends: bool,
    ) -> Result<BookSpans> {
        let flags_at = cursor.skip(books, 1, "book flags")?;
        let entry_ends_at = cursor.skip(books, 4, "book entry ends")?;
        let entries_len = last_end(bytes, entry_ends_at, books);
        let entries_at = cursor.skip(entries_len, 1, "book entry bytes")?;
        let key_order_at = cursor.skip(books, 4, "key order positions")?;
        BookSpans {
            flags_at,
            entry_ends_at,
            entries_at,
            entries_len,
            key_order_at,
            ..BookSpans::EMPTY
        }
        .with_units_at(cursor, bytes, books, packed_list_ends)
    }

    /// These spans with the unit set at the cursor (parts, or passages:
    /// unit ends, element ends, words, lists, element words, long words)
    /// in place of theirs, each checked to fit in the bytes; leaves the
    /// cursor after it. The list ends are bit-packed after the lists'
    /// length when `packed_list_ends` (format 13 on), else `u32`s.
    pub(crate) fn with_units_at(
        &self,
        cursor: &mut Cursor<'_>,
        bytes: &[u8],
        books: usize,
        packed_list_ends: bool,
    ) -> Result<BookSpans> {
        let part_ends_at = cursor.skip(books, 4, "part ends")?;
        let parts = last_end(bytes, part_ends_at, books);
        let element_ends_at = cursor.skip(parts, 4, "element ends")?;
        let elements = last_end(bytes, element_ends_at, parts);
        let words = cursor.u32()? as usize;
        // A word is unique within each part: more elements than parts
        // times words is damage, and would let element words of no bits
        // (one word or none) claim elements the bytes do not hold.
        if elements as u64 > parts as u64 * words as u64 {
            return Err(cursor.error(format!(
                "{elements} elements in {parts} units of {words} distinct words"
            )));
        }
        let word_hashes_at = cursor.skip(words, 4, "word hashes")?;
        let (list_ends_at, list_end_width, lists_len) = match packed_list_ends {
            true => {
                let lists_len = cursor.u32()?;
                let width = packed::bits(lists_len);
                let ends_len = packed::packed_len(words, width);
                (
                    cursor.skip(ends_len, 1, "list end bytes")?,
                    width,
                    lists_len as usize,
                )
            }
            false => {
                let at = cursor.skip(words, 4, "list ends")?;
                (at, 32, last_end(bytes, at, words))
            }
        };
        let lists_at = cursor.skip(lists_len, 1, "posting lists")?;
        let word_width = word_width(words);
        let element_words_len = packed::packed_len(elements, word_width);
        let element_words_at = cursor.skip(element_words_len, 1, "element words")?;
        let long_words = cursor.u32()? as usize;
        let long_words_at = cursor.skip(long_words, 4, "long words")?;
        Ok(BookSpans {
            part_ends_at,
            parts,
            element_ends_at,
            elements,
            words,
            word_hashes_at,
            list_ends_at,
            list_end_width,
            lists_at,
            lists_len,
            element_words_at,
            word_width,
            long_words,
            long_words_at,
            ..*self
        })
    }

    /// These spans with an empty unit set: every book without a unit (the
    /// passages of a segment written before version 12).
    pub(crate) fn without_units(&self) -> BookSpans {
        BookSpans {
            flags_at: self.flags_at,
            entry_ends_at: self.entry_ends_at,
            entries_at: self.entries_at,
            entries_len: self.entries_len,
            key_order_at: self.key_order_at,
            ..BookSpans::EMPTY
        }
    }

    /// Skips the book sections of a version-7 to 9 segment (fixed-width
    /// arrays: element hashes and words, posting parts, indexes and
    /// blocks), checking that each fits in the bytes. This build does not
    /// read them: it reads such an index from its catalog and barrels, as
    /// it reads one before format 7, and upgrades it.
    pub(crate) fn skip_version_7(
        cursor: &mut Cursor<'_>,
        bytes: &[u8],
        books: usize,
    ) -> Result<()> {
        cursor.skip(books, 1, "book flags")?;
        let entry_ends_at = cursor.skip(books, 4, "book entry ends")?;
        cursor.skip(last_end(bytes, entry_ends_at, books), 1, "book entry bytes")?;
        cursor.skip(books, 4, "key order positions")?;
        let part_ends_at = cursor.skip(books, 4, "part ends")?;
        let parts = last_end(bytes, part_ends_at, books);
        let element_ends_at = cursor.skip(parts, 4, "element ends")?;
        let elements = last_end(bytes, element_ends_at, parts);
        cursor.skip(elements, 8, "element hashes and words")?;
        let words = cursor.u32()? as usize;
        cursor.skip(words, 8, "word hashes and ends")?;
        cursor.skip(elements, 9, "posting parts, indexes and blocks")?;
        let long_words = cursor.u32()? as usize;
        cursor.skip(long_words, 4, "long words")?;
        Ok(())
    }
}

/// Where a segment's bytes go as they are encoded: a file or memory.
pub trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]) -> Result<()>;
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// Appends `values` as little-endian `u32`s, a buffer at a time.
pub(super) fn put_u32s(out: &mut dyn Sink, values: impl Iterator<Item = u32>) -> Result<()> {
    let mut buffer = Vec::with_capacity(1 << 16);
    for value in values {
        buffer.extend_from_slice(&value.to_le_bytes());
        if buffer.len() >= 1 << 16 {
            out.put(&buffer)?;
            buffer.clear();
        }
    }
    out.put(&buffer)
}

/// Appends the book sections of `books` (in segment order: ids strictly
/// increasing), consuming them: the book data, then the unit set of their
/// parts and the unit set of their passages (`encode_units`).
/// `InvalidArgument` when a count would not fit a `u32`.
pub fn encode(mut books: Vec<SegmentBook>, out: &mut dyn Sink) -> Result<()> {
    let parts: Vec<Vec<Vec<u32>>> = books
        .iter_mut()
        .map(|b| std::mem::take(&mut b.parts))
        .collect();
    let passages: Vec<Vec<Vec<u32>>> = books
        .iter_mut()
        .map(|b| std::mem::take(&mut b.passages))
        .collect();
    encode_book_data(&books, out)?;
    drop(books);
    encode_units(parts, out)?;
    encode_units(passages, out)
}

/// Appends the book data of `books`: flags, entries and key order.
// The encoder indexes only `books` by positions it numbered.
#[allow(clippy::indexing_slicing)]
fn encode_book_data(books: &[SegmentBook], out: &mut dyn Sink) -> Result<()> {
    let too_large =
        || Error::InvalidArgument("a segment's book entries would take 4 GiB or more".into());
    let flags: Vec<u8> = books
        .iter()
        .map(|b| {
            let sketched = if b.sketched { FLAG_SKETCHED } else { 0 };
            sketched | if b.pages.is_some() { FLAG_PAGED } else { 0 }
        })
        .collect();
    out.put(&flags)?;
    let mut entries = Vec::new();
    let mut entry_ends = Vec::with_capacity(books.len());
    for book in books {
        book.entry.encode_into(&mut entries);
        if let Some(locator) = &book.pages {
            locator.encode_into(&mut entries);
        }
        entry_ends.push(u32::try_from(entries.len()).map_err(|_| too_large())?);
    }
    put_u32s(out, entry_ends.into_iter())?;
    out.put(&entries)?;
    drop(entries);
    let mut by_key: Vec<u32> = (0..books.len() as u32).collect();
    by_key.sort_by(|&a, &b| {
        let (a, b) = (&books[a as usize], &books[b as usize]);
        a.entry
            .key
            .as_bytes()
            .cmp(b.entry.key.as_bytes())
            .then(a.id().cmp(&b.id()))
    });
    put_u32s(out, by_key.into_iter())
}

// The encoder indexes only arrays it builds from `units` itself.
#[allow(clippy::indexing_slicing)]
/// Appends one unit set: `units[b]` the units (parts or passages) of book
/// b, each its unique-word hashes in text order. Consumes them: a unit's
/// hashes are overwritten by its words, so that encoding holds the sort
/// keys (8 bytes per element) and the posting lists beyond the units.
/// `InvalidArgument` when a count would not fit a `u32`.
fn encode_units(mut units: Vec<Vec<Vec<u32>>>, out: &mut dyn Sink) -> Result<()> {
    let too_large = || {
        Error::InvalidArgument("a segment would hold more than 2^32 - 1 parts or elements".into())
    };
    // Each part as (book, part in book), and the first element of each.
    let mut part_of: Vec<(u32, u32)> = Vec::new();
    let mut part_starts: Vec<u64> = Vec::new();
    let mut elements = 0u64;
    for (b, book) in units.iter().enumerate() {
        for (p, part) in book.iter().enumerate() {
            part_of.push((b as u32, p as u32));
            part_starts.push(elements);
            elements += part.len() as u64;
        }
    }
    if elements > u64::from(u32::MAX) || part_of.len() > u32::MAX as usize {
        return Err(too_large());
    }
    part_starts.push(elements);
    // Parts.
    put_u32s(
        out,
        units.iter().scan(0u32, |end, book| {
            *end += book.len() as u32;
            Some(*end)
        }),
    )?;
    put_u32s(out, part_starts[1..].iter().map(|&e| e as u32))?;
    // Postings: (hash, place) sorted, a place numbering (part, index)
    // in order, so a word's entries sort by part.
    let places = Places::new(&part_starts);
    let keys = keys_in_word_order(&units, &places, elements as usize);
    let locate = |key: u64| places.locate(key as u32);
    // Each element's word, in place of its hash.
    let mut words = 0u32;
    for run in keys.chunk_by(|a, b| a >> 32 == b >> 32) {
        for &key in run {
            let (p, index) = locate(key);
            let (b, in_book) = part_of[p];
            units[b as usize][in_book as usize][index as usize] = words;
        }
        words += 1;
    }
    let runs = || keys.chunk_by(|a, b| a >> 32 == b >> 32);
    put_u32s(out, std::iter::once(words))?;
    put_u32s(out, runs().map(|run| (run[0] >> 32) as u32))?;
    // Each list is encoded twice, once for where it ends and once to
    // write it, so that no list but the current one is held.
    let mut entries = Vec::new();
    let mut list = Vec::new();
    let mut encode_list = |run: &[u64], list: &mut Vec<u8>| {
        entries.clear();
        entries.extend(run.iter().rev().map(|&key| {
            let (p, index) = locate(key);
            let len = (part_starts[p + 1] - part_starts[p]) as u32;
            (p as u32, posting_lists::fine_block_of(index, len))
        }));
        list.clear();
        posting_lists::encode(&entries, list);
    };
    let mut end = 0u64;
    let mut ends = Vec::with_capacity(words as usize);
    for run in runs() {
        encode_list(run, &mut list);
        end += list.len() as u64;
        ends.push(u32::try_from(end).map_err(|_| lists_too_large())?);
    }
    put_list_ends(out, &ends)?;
    drop(ends);
    let mut lists = Vec::with_capacity(1 << 16);
    for run in runs() {
        encode_list(run, &mut list);
        lists.extend_from_slice(&list);
        if lists.len() >= 1 << 16 {
            out.put(&lists)?;
            lists.clear();
        }
    }
    out.put(&lists)?;
    drop(lists);
    let mut long: Vec<(u32, u32)> = runs()
        .enumerate()
        .map(|(w, run)| (run.len() as u32, w as u32))
        .filter(|&(len, _)| len >= LONG_LIST)
        .collect();
    drop(keys);
    put_packed(
        out,
        units.iter().flatten().flatten().copied(),
        word_width(words as usize),
    )?;
    drop(units);
    long.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    put_u32s(out, std::iter::once(long.len() as u32))?;
    put_u32s(out, long.into_iter().map(|(_, w)| w))
}

/// Bits of a key's hash by which [`keys_in_word_order`] first scatters
/// the keys: the top 11, into 2,048 runs.
const TOP_BITS: u32 = 11;

/// Bits of the rest of the hash each radix pass over a run sorts by: two
/// passes, of 11 and 10 bits.
const RUN_PASS_BITS: u32 = 11;

/// Runs longer than this are sorted in place by comparison instead of by
/// radix through a scratch array (2^16 keys, 512 KiB): with hashes spread
/// evenly a run holds a 2,048th of the keys, so only contrived words make
/// one this long, and the scratch stays small.
const MOST_RADIX_RUN: usize = 1 << 16;

/// The encoder's sort keys, each element's hash over its place, in
/// ascending order (by hash, then place): the keys, made in place order,
/// scattered by their top [`TOP_BITS`] bits into runs (stable, so each run
/// keeps place order), then each run sorted by the rest of its hash by two
/// stable radix passes through a scratch array the size of a run, in
/// cache. Tens of millions of keys for a batch of long books, in three
/// passes instead of a comparison sort's log n, holding nothing beyond the
/// keys but a run's scratch.
// Digits are below their histograms' lengths, slots below the keys'.
#[allow(clippy::indexing_slicing)]
fn keys_in_word_order(units: &[Vec<Vec<u32>>], places: &Places, elements: usize) -> Vec<u64> {
    let top = |hash: u32| (hash >> (32 - TOP_BITS)) as usize;
    let mut starts = vec![0usize; 1 << TOP_BITS];
    for &hash in units.iter().flatten().flatten() {
        starts[top(hash)] += 1;
    }
    counts_to_starts(&mut starts);
    let run_starts = starts.clone();
    let mut keys = vec![0u64; elements];
    for (p, part) in units.iter().flatten().enumerate() {
        for (&hash, index) in part.iter().zip(0u32..) {
            let slot = &mut starts[top(hash)];
            keys[*slot] = u64::from(hash) << 32 | places.place(p, index);
            *slot += 1;
        }
    }
    let mut scratch = Vec::new();
    for (&start, &end) in run_starts.iter().zip(&starts) {
        sort_run(&mut keys[start..end], &mut scratch);
    }
    keys
}

/// Sorts `run`, keys of one top digit in place order, by the rest of
/// their hash, stably ([`keys_in_word_order`]).
// Digits are below their histograms' lengths, slots below the run's.
#[allow(clippy::indexing_slicing)]
fn sort_run(run: &mut [u64], scratch: &mut Vec<u64>) {
    if run.len() < 64 || run.len() > MOST_RADIX_RUN {
        run.sort_unstable();
        return;
    }
    scratch.clear();
    scratch.resize(run.len(), 0);
    let low_bits = 32 - TOP_BITS;
    let passes = [
        (32, RUN_PASS_BITS),
        (32 + RUN_PASS_BITS, low_bits - RUN_PASS_BITS),
    ];
    let mut counts = [0usize; 1 << RUN_PASS_BITS];
    for (pass, (shift, bits)) in passes.into_iter().enumerate() {
        let (from, to): (&[u64], &mut [u64]) = match pass {
            0 => (run, scratch),
            _ => (scratch, run),
        };
        let mask = (1u64 << bits) - 1;
        let digit = |key: u64| (key >> shift & mask) as usize;
        let counts = &mut counts[..1 << bits];
        counts.fill(0);
        for &key in from {
            counts[digit(key)] += 1;
        }
        counts_to_starts(counts);
        for &key in from {
            let slot = &mut counts[digit(key)];
            to[*slot] = key;
            *slot += 1;
        }
    }
}

/// Turns a counting sort's counts by digit into where each digit's keys
/// start: the sums of the counts before it.
fn counts_to_starts(counts: &mut [usize]) {
    let mut next = 0;
    for count in counts {
        let len = *count;
        *count = next;
        next += len;
    }
}

/// The error for a segment whose posting lists would take 4 GiB or more.
pub(super) fn lists_too_large() -> Error {
    Error::InvalidArgument("a segment's posting lists would take 4 GiB or more".into())
}

/// Appends a word table's list ends (`storage-format.md` 4.5): the lists'
/// bytes Q, then each list's end packed at the bits of Q.
pub(super) fn put_list_ends(out: &mut dyn Sink, ends: &[u32]) -> Result<()> {
    let total = ends.last().copied().unwrap_or(0);
    out.put(&total.to_le_bytes())?;
    put_packed(out, ends.iter().copied(), packed::bits(total))
}

/// Appends `values` bit-packed at `width` bits, a buffer at a time.
pub(super) fn put_packed(
    out: &mut dyn Sink,
    values: impl Iterator<Item = u32>,
    width: u8,
) -> Result<()> {
    let mut packed = PackedOut::new(out, width);
    for value in values {
        packed.push(value)?;
    }
    packed.finish()
}

/// Values bit-packed at one width into a sink, a buffer at a time (a
/// buffer holds a multiple of 8 values, so its bytes end on a value
/// boundary); [`PackedOut::finish`] writes the last, padded with zero bits.
pub(super) struct PackedOut<'o> {
    out: &'o mut dyn Sink,
    width: u8,
    chunk: Vec<u32>,
    bytes: Vec<u8>,
}

impl<'o> PackedOut<'o> {
    const CHUNK: usize = 1 << 14;

    pub(super) fn new(out: &'o mut dyn Sink, width: u8) -> Self {
        PackedOut {
            out,
            width,
            chunk: Vec::with_capacity(Self::CHUNK),
            bytes: Vec::with_capacity(Self::CHUNK * 4),
        }
    }

    pub(super) fn push(&mut self, value: u32) -> Result<()> {
        self.chunk.push(value);
        if self.chunk.len() == Self::CHUNK {
            packed::pack(self.chunk.drain(..), self.width, &mut self.bytes);
            self.out.put(&self.bytes)?;
            self.bytes.clear();
        }
        Ok(())
    }

    pub(super) fn finish(mut self) -> Result<()> {
        packed::pack(self.chunk.drain(..), self.width, &mut self.bytes);
        self.out.put(&self.bytes)
    }
}

/// The low half of a postings sort key: an entry's part and its index in
/// the part as one number, in their order. `part << shift | index` when the
/// part count and the longest part fit 32 bits so, found again with a
/// shift: a load's batch of 1,000 books with the default parts does unless
/// its books average about half a million words. Else (large merges among
/// them) the element's number among all elements, found again by a binary
/// search of the parts' first elements.
struct Places<'a> {
    part_starts: &'a [u64],
    shift: Option<u32>,
}

// Places index only the encoder's own part starts.
#[allow(clippy::indexing_slicing)]
impl<'a> Places<'a> {
    /// The places of the parts starting at `part_starts` (then the end).
    fn new(part_starts: &'a [u64]) -> Self {
        let bits = |count: u64| u64::BITS - count.saturating_sub(1).leading_zeros();
        let longest = part_starts
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0);
        let index_bits = bits(longest);
        let part_bits = bits(part_starts.len().saturating_sub(1) as u64);
        Places {
            part_starts,
            shift: (index_bits + part_bits <= 32).then_some(index_bits),
        }
    }

    fn place(&self, part: usize, index: u32) -> u64 {
        match self.shift {
            Some(shift) => (part as u64) << shift | u64::from(index),
            None => self.part_starts[part] + u64::from(index),
        }
    }

    /// The part and index of `place`.
    fn locate(&self, place: u32) -> (usize, u32) {
        match self.shift {
            Some(shift) => {
                let place = u64::from(place);
                (
                    (place >> shift) as usize,
                    (place & ((1 << shift) - 1)) as u32,
                )
            }
            None => {
                let element = u64::from(place);
                let p = self.part_starts.partition_point(|&start| start <= element) - 1;
                (p, (element - self.part_starts[p]) as u32)
            }
        }
    }
}

/// Decodes the entry bytes of one book: its catalog entry and, when
/// `flags` says so, its page locator.
pub fn decode_entry(
    bytes: &[u8],
    flags: u8,
    path: &Path,
    offset: u64,
) -> Result<(BookEntry, Option<PageLocator>)> {
    let mut cursor = Cursor::at(bytes, path, offset);
    let entry = BookEntry::decode(&mut cursor)?;
    let pages = if flags & FLAG_PAGED != 0 {
        Some(PageLocator::decode(&mut cursor)?)
    } else {
        None
    };
    cursor.finish()?;
    Ok((entry, pages))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn places_number_parts_and_indexes_in_order_and_locate_them(
            lengths in proptest::collection::vec(prop_oneof![0u64..40, 0u64..1 << 31], 1..40),
        ) {
            // The parts that fit a segment's 2^32 elements.
            let mut part_starts = vec![0u64];
            for &len in &lengths {
                let end = part_starts[part_starts.len() - 1] + len;
                if end > u64::from(u32::MAX) {
                    break;
                }
                part_starts.push(end);
            }
            let lengths = &lengths[..part_starts.len() - 1];
            let places = Places::new(&part_starts);
            let mut last = None;
            for (p, &len) in lengths.iter().enumerate() {
                for index in [0, 1, len / 2, len.saturating_sub(1)] {
                    if index >= len {
                        continue;
                    }
                    let place = places.place(p, index as u32);
                    prop_assert!(place <= u64::from(u32::MAX));
                    prop_assert_eq!(places.locate(place as u32), (p, index as u32));
                    prop_assert!(last <= Some(place));
                    last = Some(place);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn keys_in_word_order_are_the_keys_sorted(
            // Hashes over all 32 bits, a few small ones, a few of the
            // largest, or all of one top digit (one run: the runs sorted
            // by radix and, past 2^16 keys, in place); parts of one book
            // or of several.
            kind in 0u8..4,
            elements in prop_oneof![0usize..100, 4000usize..4200, 70_000usize..70_100],
            part_len in 1usize..5000,
            seed in any::<u64>(),
        ) {
            let mut state = seed;
            let mut hash = || {
                state = crate::repr::minhash::mix64(state);
                let high = state >> 32;
                (match kind {
                    0 => high,
                    1 => high % 4,
                    2 => u64::from(u32::MAX) - high % 4,
                    _ => (0x5a5 << 21) | (high % (1 << 21)),
                }) as u32
            };
            let hashes: Vec<u32> = (0..elements).map(|_| hash()).collect();
            let parts: Vec<Vec<u32>> = hashes.chunks(part_len).map(<[u32]>::to_vec).collect();
            let units: Vec<Vec<Vec<u32>>> = parts.chunks(3).map(<[Vec<u32>]>::to_vec).collect();
            let mut part_starts = vec![0u64];
            for part in units.iter().flatten() {
                part_starts.push(part_starts[part_starts.len() - 1] + part.len() as u64);
            }
            let places = Places::new(&part_starts);
            let mut expected: Vec<u64> = (units.iter().flatten().enumerate())
                .flat_map(|(p, part)| {
                    let places = &places;
                    (part.iter().zip(0u32..))
                        .map(move |(&hash, index)| u64::from(hash) << 32 | places.place(p, index))
                })
                .collect();
            expected.sort_unstable();
            prop_assert_eq!(keys_in_word_order(&units, &places, elements), expected);
        }
    }

    #[test]
    fn places_pack_when_they_fit_and_fall_back_to_elements_when_not() {
        assert_eq!(Places::new(&[0, 10, 20, 25]).shift, Some(4));
        let wide = [0, 1 << 31, (1 << 31) + 1, (1 << 31) + 2];
        assert_eq!(Places::new(&wide).shift, None);
        assert_eq!(Places::new(&wide).locate((1 << 31) + 1), (2, 0));
    }
}
