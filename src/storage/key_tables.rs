//! A segment's key tables: each book's keys in the four tables (book
//! min-hash bands, window min-hash bands, simhash bands, min-hash values)
//! and the lookup from a key to the books that have it (`storage-format.md`,
//! sections 4.3 and 4.4; the wide layout in Appendix A.2).
//!
//! From format 13 each key is stored once. A table holds its books' keys,
//! each book's sorted, book after book, with the books' cumulative key
//! counts; a key's *number* is its place there (0 for the first book's
//! first key). Its *key order* is the numbers sorted by (key, number),
//! bit-packed at the bits of the largest number: a lookup searches it,
//! reading each key where its book stored it, and a key's books come in
//! number order, which is book order.
//!
//! Formats 3 to 12 stored each key twice (the *wide* layout): every book's
//! keys, then each table's distinct keys with the ids of their books. This
//! build reads such segments, which an upgraded index keeps until a merge
//! rewrites them.

// Every offset read here was checked against the segment's length by
// `KeyTables::decode` before a `KeyTables` exists; values read through
// those offsets (ends, numbers) are clamped where they index further.
#![allow(clippy::indexing_slicing)]

use byteorder::{ByteOrder, LittleEndian};
use std::ops::Range;
use std::path::Path;

use super::codec::Cursor;
use super::format::FormatVersion;
use super::packed::{self, Unpacker};
use super::segment_books::{end_range, SegmentBook, U32s};
use super::sorted::{non_decreasing, strictly_increasing};
use crate::error::{Error, Result};
use crate::repr::sketch::Table;

/// Tables of a segment from format 3 on.
pub(super) const TABLES: usize = Table::ALL.len();
/// Tables of a version-2 segment (no value table).
const TABLES_V2: usize = 3;

/// Where the books' ids lie: in the sketch records, `stride` bytes apart
/// from `at`, strictly increasing.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BookIds {
    pub(super) at: usize,
    pub(super) stride: usize,
    pub(super) count: usize,
}

impl BookIds {
    /// The id of the book at `position` (0 past the last).
    fn id(&self, bytes: &[u8], position: usize) -> u32 {
        match position < self.count {
            true => LittleEndian::read_u32(&bytes[self.at + position * self.stride..]),
            false => 0,
        }
    }

    /// The position of the book `id`, when listed.
    fn position_of(&self, bytes: &[u8], id: u32) -> Option<usize> {
        super::sorted::search(self.count, id.into(), |p| self.id(bytes, p).into()).ok()
    }
}

/// One table of the wide layout (formats 3 to 12).
#[derive(Debug, Clone, Copy, Default)]
struct WideTable {
    key_count: usize,
    entry_count: usize,
    keys_at: usize,
    ends_at: usize,
    books_at: usize,
}

/// One table stored once (format 13 on).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct OnceTable {
    /// The books' cumulative key counts: one `u32` a book.
    ends_at: usize,
    /// The keys, book after book.
    keys_at: usize,
    entry_count: usize,
    /// The key order, bit-packed at `width` bits.
    order_at: usize,
    width: u8,
}

/// How the tables lie.
#[derive(Debug, Clone, Copy)]
enum Layout {
    Wide {
        table_count: usize,
        key_ends_at: usize,
        book_keys_at: usize,
        book_key_count: usize,
        tables: [WideTable; TABLES],
    },
    Once([OnceTable; TABLES]),
}

/// A segment's key tables, their layout checked (every section inside the
/// bytes; [`KeyTables::check`] checks the rest). It holds offsets only:
/// every accessor takes the segment's bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct KeyTables {
    ids: BookIds,
    layout: Layout,
}

/// One entry of a table in key order, as a merge reads it: its key, the
/// position of its book and its place among that book's keys of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OrderedEntry {
    pub(super) key: u64,
    pub(super) position: usize,
    pub(super) offset: usize,
}

/// The bits of the key order's numbers for a table of `entries` keys.
pub(super) fn order_width(entries: usize) -> u8 {
    super::segment_books::word_width(entries)
}

impl KeyTables {
    /// Reads where the tables of a segment of `version` lie from `cursor`,
    /// placed after the book sketches: the book keys and four tables (three
    /// before version 3) of the wide layout before version 13, else four
    /// tables stored once.
    pub(super) fn decode(
        cursor: &mut Cursor<'_>,
        bytes: &[u8],
        version: FormatVersion,
        ids: BookIds,
    ) -> Result<KeyTables> {
        let n = ids.count;
        let layout = if version.has_keys_once() {
            let mut tables = [OnceTable::default(); TABLES];
            for table in &mut tables {
                let ends_at = cursor.skip(n, 4, "book key counts")?;
                let entry_count = last_end(bytes, ends_at, n);
                let keys_at = cursor.skip(entry_count, 8, "book keys")?;
                let width = order_width(entry_count);
                let order_len = packed::packed_len(entry_count, width);
                let order_at = cursor.skip(order_len, 1, "key order bytes")?;
                *table = OnceTable {
                    ends_at,
                    keys_at,
                    entry_count,
                    order_at,
                    width,
                };
            }
            Layout::Once(tables)
        } else {
            let table_count = match version.has_value_table() {
                true => TABLES,
                false => TABLES_V2,
            };
            let key_ends_at = cursor.skip(n, 4 * table_count, "book key counts")?;
            let book_key_count = last_end(bytes, key_ends_at, table_count * n);
            let book_keys_at = cursor.skip(book_key_count, 8, "book keys")?;
            let mut tables = [WideTable::default(); TABLES];
            for span in &mut tables[..table_count] {
                let key_count = cursor.u32()? as usize;
                let entry_count = cursor.u32()? as usize;
                *span = WideTable {
                    key_count,
                    entry_count,
                    keys_at: cursor.skip(key_count, 8, "band keys")?,
                    ends_at: cursor.skip(key_count, 4, "posting ends")?,
                    books_at: cursor.skip(entry_count, 4, "posting entries")?,
                };
            }
            Layout::Wide {
                table_count,
                key_ends_at,
                book_keys_at,
                book_key_count,
                tables,
            }
        };
        Ok(KeyTables { ids, layout })
    }

    /// The range of the keys of the book at `position` in `table`, counted
    /// in keys from where the layout keeps that book's keys, and where
    /// that is.
    fn book_key_range(&self, bytes: &[u8], position: usize, table: Table) -> (usize, Range<usize>) {
        let t = table as usize;
        let n = self.ids.count;
        match &self.layout {
            Layout::Once(tables) => {
                let span = &tables[t];
                let ends = U32s::new(&bytes[span.ends_at..span.ends_at + 4 * n]);
                (span.keys_at, end_range(ends, position, span.entry_count))
            }
            Layout::Wide {
                table_count,
                key_ends_at,
                book_keys_at,
                book_key_count,
                ..
            } => {
                if t >= *table_count || position >= n {
                    return (*book_keys_at, 0..0);
                }
                let count = table_count * n;
                let ends = U32s::new(&bytes[*key_ends_at..key_ends_at + 4 * count]);
                let range = end_range(ends, table_count * position + t, *book_key_count);
                (*book_keys_at, range)
            }
        }
    }

    /// The keys of the book at `position` in `table`, 8 bytes each (none
    /// past the last book, or for a table the segment lacks).
    pub(super) fn book_key_bytes<'a>(
        &self,
        bytes: &'a [u8],
        position: usize,
        table: Table,
    ) -> &'a [u8] {
        let (at, range) = self.book_key_range(bytes, position, table);
        &bytes[at + 8 * range.start..at + 8 * range.end]
    }

    /// The keys of the book at `position` in `table`, as stored (sorted in
    /// a checked segment).
    pub(super) fn book_keys<'a>(
        &self,
        bytes: &'a [u8],
        position: usize,
        table: Table,
    ) -> impl Iterator<Item = u64> + 'a {
        self.book_key_bytes(bytes, position, table)
            .chunks_exact(8)
            .map(LittleEndian::read_u64)
    }

    /// The books under `key` in `table` (sorted in a checked segment),
    /// empty when absent: found by interpolation over the uniformly spread
    /// keys ([`super::sorted`]).
    pub(super) fn lookup<'a>(&self, bytes: &'a [u8], table: Table, key: u64) -> Postings<'a> {
        match &self.layout {
            Layout::Once(tables) => {
                let order = Order::of(bytes, tables[table as usize]);
                let found = super::sorted::search(order.len(), key, |i| order.key(i));
                let range = match found {
                    Ok(i) => order.equal_run(i),
                    Err(_) => 0..0,
                };
                self.ordered_postings(bytes, order, range)
            }
            Layout::Wide { tables, .. } => {
                let span = &tables[table as usize];
                match super::sorted::search(span.key_count, key, |i| wide_key(bytes, span, i)) {
                    Ok(i) => wide_postings(bytes, span, i),
                    Err(_) => Postings::ids(&[]),
                }
            }
        }
    }

    fn ordered_postings<'a>(
        &self,
        bytes: &'a [u8],
        order: Order<'a>,
        range: Range<usize>,
    ) -> Postings<'a> {
        Postings {
            source: Source::Order {
                order,
                ids: self.ids,
                bytes,
                next: range.start,
                end: range.end,
            },
        }
    }

    /// Every `(key, books)` of `table`, one per distinct key, in key order.
    pub(super) fn entries<'a>(
        &'a self,
        bytes: &'a [u8],
        table: Table,
    ) -> Box<dyn Iterator<Item = (u64, Postings<'a>)> + 'a> {
        match &self.layout {
            Layout::Once(tables) => {
                let order = Order::of(bytes, tables[table as usize]);
                let mut at = 0;
                Box::new(std::iter::from_fn(move || {
                    if at >= order.len() {
                        return None;
                    }
                    let run = order.equal_run(at);
                    at = run.end.max(at + 1);
                    Some((
                        order.key(run.start),
                        self.ordered_postings(bytes, order, run),
                    ))
                }))
            }
            Layout::Wide { tables, .. } => {
                let span = tables[table as usize];
                Box::new(
                    (0..span.key_count)
                        .map(move |i| (wide_key(bytes, &span, i), wide_postings(bytes, &span, i))),
                )
            }
        }
    }

    /// Distinct keys and entries of `table`.
    pub(super) fn table_len(&self, bytes: &[u8], table: Table) -> (usize, usize) {
        match &self.layout {
            Layout::Once(tables) => {
                let keys = self.entries(bytes, table).count();
                (keys, tables[table as usize].entry_count)
            }
            Layout::Wide { tables, .. } => {
                let span = &tables[table as usize];
                (span.key_count, span.entry_count)
            }
        }
    }

    /// Entries of `table`: its (key, book) pairs.
    pub(super) fn entry_count(&self, table: Table) -> usize {
        match &self.layout {
            Layout::Once(tables) => tables[table as usize].entry_count,
            Layout::Wide { tables, .. } => tables[table as usize].entry_count,
        }
    }

    /// Entry `i` of `table` in key order (ties in book order); `None` past
    /// the last, or for an entry whose book the segment does not list
    /// (never, in a checked segment).
    pub(super) fn ordered_entry(
        &self,
        bytes: &[u8],
        table: Table,
        i: usize,
    ) -> Option<OrderedEntry> {
        match &self.layout {
            Layout::Once(tables) => {
                let order = Order::of(bytes, tables[table as usize]);
                if i >= order.len() {
                    return None;
                }
                let number = order.number(i);
                let position = order.book_of(number, self.ids.count);
                let ends = order.ends(self.ids.count);
                let start = end_range(ends, position, order.len()).start;
                Some(OrderedEntry {
                    key: order.key(i),
                    position,
                    offset: number.saturating_sub(start),
                })
            }
            Layout::Wide { tables, .. } => {
                let span = &tables[table as usize];
                if i >= span.entry_count {
                    return None;
                }
                let ends = U32s::new(&bytes[span.ends_at..span.ends_at + 4 * span.key_count]);
                let key_index = ends.partition_point(|end| end as usize <= i);
                let key = wide_key(bytes, span, key_index.min(span.key_count.saturating_sub(1)));
                let id = LittleEndian::read_u32(&bytes[span.books_at + 4 * i..]);
                let position = self.ids.position_of(bytes, id)?;
                let keys = self.book_key_bytes(bytes, position, table);
                let offset = super::sorted::search(keys.len() / 8, key, |j| {
                    LittleEndian::read_u64(&keys[8 * j..])
                })
                .ok()?;
                Some(OrderedEntry {
                    key,
                    position,
                    offset,
                })
            }
        }
    }

    /// Checks the orders of every table: each book's keys strictly
    /// increasing and, stored once, the key order a permutation of the
    /// numbers sorted by (key, number) with zero bits after it; in the wide
    /// layout, the book key counts, the table's keys and postings in order
    /// and each table holding exactly its books' keys.
    pub(super) fn check(&self, bytes: &[u8], path: &Path) -> Result<()> {
        let corrupted = |what: String| Error::corrupted(path, what);
        for table in Table::ALL {
            for position in 0..self.ids.count {
                if !strictly_increasing(self.book_keys(bytes, position, table)) {
                    return Err(corrupted(format!(
                        "{} book keys out of order",
                        table.name()
                    )));
                }
            }
        }
        match &self.layout {
            Layout::Once(tables) => {
                for table in Table::ALL {
                    let order = Order::of(bytes, tables[table as usize]);
                    if !non_decreasing(order.ends(self.ids.count).iter()) {
                        return Err(corrupted(format!(
                            "{} book key counts out of order",
                            table.name()
                        )));
                    }
                    if !order.is_sorted_permutation() {
                        return Err(corrupted(format!(
                            "{} key order is not its keys' numbers in key order",
                            table.name()
                        )));
                    }
                }
                Ok(())
            }
            Layout::Wide {
                table_count,
                key_ends_at,
                tables,
                ..
            } => {
                let count = table_count * self.ids.count;
                let ends = U32s::new(&bytes[*key_ends_at..key_ends_at + 4 * count]);
                if !non_decreasing(ends.iter()) {
                    return Err(corrupted("book key counts out of order".into()));
                }
                for table in Table::ALL {
                    self.check_wide_table(bytes, &tables[table as usize], table)
                        .map_err(corrupted)?;
                }
                Ok(())
            }
        }
    }

    /// Checks one wide table's order, then that it holds exactly the pairs
    /// (key, book) of its books' keys: every pair of the table (distinct,
    /// as it is sorted) is a key of its book, and there are as many as the
    /// books have keys.
    fn check_wide_table(
        &self,
        bytes: &[u8],
        span: &WideTable,
        table: Table,
    ) -> std::result::Result<(), String> {
        let keys = (0..span.key_count).map(|i| wide_key(bytes, span, i));
        let ends = U32s::new(&bytes[span.ends_at..span.ends_at + 4 * span.key_count]);
        let last_end = ends.iter().last().map_or(0, |end| end as usize);
        if !strictly_increasing(keys)
            || !strictly_increasing(std::iter::once(0).chain(ends.iter()))
            || last_end != span.entry_count
        {
            return Err(format!("{} table out of order", table.name()));
        }
        let mut pairs = 0usize;
        for i in 0..span.key_count {
            if !strictly_increasing(wide_postings(bytes, span, i)) {
                return Err(format!("{} posting list out of order", table.name()));
            }
            let key = wide_key(bytes, span, i);
            for id in wide_postings(bytes, span, i) {
                let listed = self.ids.position_of(bytes, id).is_some_and(|position| {
                    self.book_keys(bytes, position, table).any(|k| k == key)
                });
                if !listed {
                    return Err(tables_disagree(table));
                }
                pairs += 1;
            }
        }
        let keys: usize = (0..self.ids.count)
            .map(|position| self.book_key_bytes(bytes, position, table).len() / 8)
            .sum();
        match pairs == keys {
            true => Ok(()),
            false => Err(tables_disagree(table)),
        }
    }
}

fn tables_disagree(table: Table) -> String {
    format!(
        "the {} table does not hold exactly its books' keys",
        table.name()
    )
}

/// Appends the four tables of `books` (in segment order) stored once:
/// per table the books' cumulative key counts, their keys (none for a book
/// without a sketch) and the key order. `InvalidArgument` when a table
/// would hold 2^32 keys or more.
pub(super) fn encode(books: &[SegmentBook], out: &mut Vec<u8>) -> Result<()> {
    for table in Table::ALL {
        let keys_of = |b: &'_ SegmentBook| -> usize {
            match b.sketched {
                true => b.sketch.keys_of(table).len(),
                false => 0,
            }
        };
        let total: usize = books.iter().map(keys_of).sum();
        if total > u32::MAX as usize {
            return Err(too_many_keys());
        }
        let mut end = 0u32;
        for b in books {
            end += keys_of(b) as u32;
            out.extend_from_slice(&end.to_le_bytes());
        }
        let mut keys = Vec::with_capacity(total);
        for b in books.iter().filter(|b| b.sketched) {
            keys.extend_from_slice(b.sketch.keys_of(table));
        }
        keys.iter()
            .for_each(|key| out.extend_from_slice(&key.to_le_bytes()));
        let mut order: Vec<u32> = (0..total as u32).collect();
        order.sort_unstable_by_key(|&number| (keys[number as usize], number));
        packed::pack(order, order_width(total), out);
    }
    Ok(())
}

/// The error for a segment whose table would hold 2^32 keys or more.
pub(super) fn too_many_keys() -> Error {
    Error::InvalidArgument("a segment would hold more than 2^32 - 1 keys or entries".into())
}

/// One table stored once, read in place.
#[derive(Debug, Clone, Copy)]
struct Order<'a> {
    bytes: &'a [u8],
    span: OnceTable,
}

impl<'a> Order<'a> {
    fn of(bytes: &'a [u8], span: OnceTable) -> Self {
        Order { bytes, span }
    }

    fn len(&self) -> usize {
        self.span.entry_count
    }

    /// The number at place `i` of the key order as stored.
    fn raw_number(&self, i: usize) -> usize {
        let order = &self.bytes[self.span.order_at..];
        Unpacker::new(order, self.span.width).get(i) as usize
    }

    /// The number at place `i`, clamped to the keys.
    fn number(&self, i: usize) -> usize {
        self.raw_number(i).min(self.len().saturating_sub(1))
    }

    /// The key numbered `number` (0 past the last).
    fn key_numbered(&self, number: usize) -> u64 {
        match number < self.len() {
            true => LittleEndian::read_u64(&self.bytes[self.span.keys_at + 8 * number..]),
            false => 0,
        }
    }

    /// The key at place `i` of the key order.
    fn key(&self, i: usize) -> u64 {
        self.key_numbered(self.number(i))
    }

    /// The places around `i` whose key is `i`'s, found by galloping out
    /// from `i` and then bisecting, so that a key of many books costs reads
    /// in the log of their count (each read is a number, then a key
    /// elsewhere in the file); a key of one book costs two.
    fn equal_run(&self, i: usize) -> Range<usize> {
        let key = self.key(i);
        let holds = |j: usize| self.key(j) == key;
        // Left: `inside` holds the key, `outside` (when any) does not.
        let (mut inside, mut step, mut outside) = (i, 1, None);
        while inside > 0 {
            let probe = inside.saturating_sub(step);
            match holds(probe) {
                true => (inside, step) = (probe, step * 2),
                false => {
                    outside = Some(probe);
                    break;
                }
            }
        }
        let start = outside.map_or(0, |o| first_where(o + 1..inside, holds));
        // Right, likewise: `outside` is past the run, or the end.
        let (mut inside, mut step) = (i, 1);
        let outside = loop {
            let probe = inside.saturating_add(step);
            if probe >= self.len() {
                break self.len();
            }
            match holds(probe) {
                true => (inside, step) = (probe, step * 2),
                false => break probe,
            }
        };
        let end = first_where(inside + 1..outside, |j| !holds(j));
        start..end
    }

    fn ends(&self, books: usize) -> U32s<'a> {
        U32s::new(&self.bytes[self.span.ends_at..self.span.ends_at + 4 * books])
    }

    /// The position of the book whose keys hold `number`: the first whose
    /// cumulative count passes it.
    fn book_of(&self, number: usize, books: usize) -> usize {
        let ends = self.ends(books);
        ends.partition_point(|end| end as usize <= number)
            .min(books.saturating_sub(1))
    }

    /// Whether the key order holds every number once, sorted by (key,
    /// number), with zero bits after the last.
    fn is_sorted_permutation(&self) -> bool {
        let mut seen = vec![false; self.len()];
        let mut previous: Option<(u64, usize)> = None;
        for i in 0..self.len() {
            let number = self.raw_number(i);
            match seen.get_mut(number) {
                Some(slot) if !*slot => *slot = true,
                _ => return false,
            }
            let current = (self.key_numbered(number), number);
            if previous.is_some_and(|p| p >= current) {
                return false;
            }
            previous = Some(current);
        }
        let order = &self.bytes[self.span.order_at..];
        packed::padding_is_zero(order, self.len(), self.span.width)
    }
}

/// The first place of `range` where `found` holds (its end when none),
/// `found` holding from some place to the end of the range.
fn first_where(range: Range<usize>, found: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (range.start, range.end.max(range.start));
    while low < high {
        let mid = low + (high - low) / 2;
        match found(mid) {
            true => high = mid,
            false => low = mid + 1,
        }
    }
    low
}

/// The sorted book ids under one key of one segment.
#[derive(Debug, Clone)]
pub struct Postings<'a> {
    source: Source<'a>,
}

#[derive(Debug, Clone)]
enum Source<'a> {
    /// Ids stored under the key (the wide layout).
    Ids(&'a [u8]),
    /// Places `next..end` of a key order.
    Order {
        order: Order<'a>,
        ids: BookIds,
        bytes: &'a [u8],
        next: usize,
        end: usize,
    },
}

impl<'a> Postings<'a> {
    fn ids(bytes: &'a [u8]) -> Self {
        Postings {
            source: Source::Ids(bytes),
        }
    }

    /// Number of books.
    pub fn len(&self) -> usize {
        match &self.source {
            Source::Ids(bytes) => bytes.len() / 4,
            Source::Order { next, end, .. } => end.saturating_sub(*next),
        }
    }

    /// True when no book is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Iterator for Postings<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match &mut self.source {
            Source::Ids(bytes) => {
                let (head, tail) = bytes.split_at_checked(4)?;
                *bytes = tail;
                Some(LittleEndian::read_u32(head))
            }
            Source::Order {
                order,
                ids,
                bytes,
                next,
                end,
            } => {
                if *next >= *end {
                    return None;
                }
                let position = order.book_of(order.number(*next), ids.count);
                *next += 1;
                Some(ids.id(bytes, position))
            }
        }
    }
}

fn wide_key(bytes: &[u8], span: &WideTable, i: usize) -> u64 {
    LittleEndian::read_u64(&bytes[span.keys_at + 8 * i..])
}

fn wide_postings<'a>(bytes: &'a [u8], span: &WideTable, i: usize) -> Postings<'a> {
    let ends = U32s::new(&bytes[span.ends_at..span.ends_at + 4 * span.key_count]);
    let range = end_range(ends, i, span.entry_count);
    Postings::ids(&bytes[span.books_at + 4 * range.start..span.books_at + 4 * range.end])
}

/// The last of `count` cumulative `u32` ends at `at` (0 when `count` is 0),
/// read before the ends are known to lie inside `bytes`: out of range reads
/// as `usize::MAX`, which the following size check refuses.
fn last_end(bytes: &[u8], at: usize, count: usize) -> usize {
    match count {
        0 => 0,
        n => bytes
            .get(at + 4 * (n - 1)..at + 4 * n)
            .map_or(usize::MAX, |b| LittleEndian::read_u32(b) as usize),
    }
}
