//! A segment's key tables: each book's keys in the four tables (book
//! min-hash bands, window min-hash bands, simhash bands, min-hash values)
//! and the lookup from a key to the books that have it (`storage-format.md`,
//! sections 4.3 and 4.4; the wide layout in Appendix A.2).
//!
//! From format 14 each key is stored once, in *key order*: a table holds
//! its books' cumulative key counts, its keys sorted by (key, book
//! position), the position of each key's book bit-packed beside them, and
//! each book's *places* (where its keys lie in the key order, increasing),
//! book after book, each book's as a record of its first place and the
//! gaps after it at the bits of its widest gap ([`encode_book_places`]).
//! A lookup searches the contiguous keys and reads their books'
//! positions; a book's keys are read through its places.
//!
//! Format 13 stored each key once too, but book after book, with a
//! bit-packed *key order* of their numbers (a key's place among the
//! books' keys): a lookup's every step read a number, then a key elsewhere
//! in the file (the *numbered* layout). Formats 3 to 12 stored each key
//! twice (the *wide* layout): every book's keys, then each table's
//! distinct keys with the ids of their books. This build reads both, which
//! an upgraded index keeps until a merge rewrites them.

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

/// One table stored once, book after book (format 13).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NumberedTable {
    /// The books' cumulative key counts: one `u32` a book.
    ends_at: usize,
    /// The keys, book after book.
    keys_at: usize,
    entry_count: usize,
    /// The key order, bit-packed at `width` bits.
    order_at: usize,
    width: u8,
}

/// One table in key order (format 14 on).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SortedTable {
    /// The books' cumulative key counts: one `u32` a book.
    ends_at: usize,
    /// The keys in key order, `entry_count` `u64`s.
    keys_at: usize,
    entry_count: usize,
    /// The position of each key's book, bit-packed at `position_width`.
    positions_at: usize,
    position_width: u8,
    /// Each book's cumulative bytes of place records: one `u32` a book.
    place_ends_at: usize,
    /// Each book's place record, book after book; a first place takes
    /// `place_width` bits.
    places_at: usize,
    place_width: u8,
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
    Numbered([NumberedTable; TABLES]),
    Sorted([SortedTable; TABLES]),
}

/// A segment's key tables, their layout checked (every section inside the
/// bytes; [`KeyTables::check`] checks the rest). It holds offsets only:
/// every accessor takes the segment's bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct KeyTables {
    ids: BookIds,
    layout: Layout,
}

/// One entry of a table in key order, as a merge reads it: its key and
/// the position of its book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OrderedEntry {
    pub(super) key: u64,
    pub(super) position: usize,
}

/// The bits of a place in the key order of a table of `entries` keys (a
/// format-13 key order's numbers, a format-14 book's places).
pub(super) fn place_width(entries: usize) -> u8 {
    super::segment_books::word_width(entries)
}

/// The bits of a book position in a segment of `books` books.
pub(super) fn position_width(books: usize) -> u8 {
    super::segment_books::word_width(books)
}

impl KeyTables {
    /// Reads where the tables of a segment of `version` lie from `cursor`,
    /// placed after the book sketches: the book keys and four tables (three
    /// before version 3) of the wide layout before version 13, four
    /// numbered tables in version 13, else four tables in key order.
    pub(super) fn decode(
        cursor: &mut Cursor<'_>,
        bytes: &[u8],
        version: FormatVersion,
        ids: BookIds,
    ) -> Result<KeyTables> {
        let n = ids.count;
        let layout = if version.has_sorted_keys() {
            let mut tables = [SortedTable::default(); TABLES];
            for table in &mut tables {
                let ends_at = cursor.skip(n, 4, "book key counts")?;
                let entry_count = last_end(bytes, ends_at, n);
                let keys_at = cursor.skip(entry_count, 8, "keys in key order")?;
                let position_width = position_width(n);
                let positions_len = packed::packed_len(entry_count, position_width);
                let positions_at = cursor.skip(positions_len, 1, "key position bytes")?;
                let place_ends_at = cursor.skip(n, 4, "book place ends")?;
                let places_len = last_end(bytes, place_ends_at, n);
                let places_at = cursor.skip(places_len, 1, "book place records")?;
                *table = SortedTable {
                    ends_at,
                    keys_at,
                    entry_count,
                    positions_at,
                    position_width,
                    place_ends_at,
                    places_at,
                    place_width: place_width(entry_count),
                };
            }
            Layout::Sorted(tables)
        } else if version.has_keys_once() {
            let mut tables = [NumberedTable::default(); TABLES];
            for table in &mut tables {
                let ends_at = cursor.skip(n, 4, "book key counts")?;
                let entry_count = last_end(bytes, ends_at, n);
                let keys_at = cursor.skip(entry_count, 8, "book keys")?;
                let width = place_width(entry_count);
                let order_len = packed::packed_len(entry_count, width);
                let order_at = cursor.skip(order_len, 1, "key order bytes")?;
                *table = NumberedTable {
                    ends_at,
                    keys_at,
                    entry_count,
                    order_at,
                    width,
                };
            }
            Layout::Numbered(tables)
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
    /// in keys from where the layout keeps that book's keys (or, in key
    /// order, its places), and where that is.
    fn book_key_range(&self, bytes: &[u8], position: usize, table: Table) -> (usize, Range<usize>) {
        let t = table as usize;
        let n = self.ids.count;
        match &self.layout {
            Layout::Sorted(tables) => {
                let sorted = Sorted::of(bytes, tables[t], n);
                (0, end_range(sorted.ends(), position, sorted.len()))
            }
            Layout::Numbered(tables) => {
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

    /// The keys of the book at `position` in `table`, 8 bytes each, in a
    /// layout that stores them book after book (none in key order, past
    /// the last book, or for a table the segment lacks).
    fn stored_book_keys<'a>(&self, bytes: &'a [u8], position: usize, table: Table) -> &'a [u8] {
        match &self.layout {
            Layout::Sorted(_) => &[],
            _ => {
                let (at, range) = self.book_key_range(bytes, position, table);
                &bytes[at + 8 * range.start..at + 8 * range.end]
            }
        }
    }

    /// How many keys the book at `position` has in `table`.
    pub(super) fn book_key_count(&self, bytes: &[u8], position: usize, table: Table) -> usize {
        self.book_key_range(bytes, position, table).1.len()
    }

    /// The keys of the book at `position` in `table` (sorted in a checked
    /// segment).
    pub(super) fn book_keys<'a>(
        &self,
        bytes: &'a [u8],
        position: usize,
        table: Table,
    ) -> BookKeys<'a> {
        match &self.layout {
            Layout::Sorted(tables) => {
                let sorted = Sorted::of(bytes, tables[table as usize], self.ids.count);
                let places = sorted.book_places(position);
                BookKeys::Placed { sorted, places }
            }
            _ => BookKeys::Stored(
                self.stored_book_keys(bytes, position, table)
                    .chunks_exact(8),
            ),
        }
    }

    /// The keys of the book at `position` in `table`, each with the books
    /// under it (as [`KeyTables::lookup`] gives them), in key order: read
    /// from the book's places in the key order, with no search. `None` for
    /// a layout without places (before format 14).
    pub(super) fn book_key_postings<'a>(
        &'a self,
        bytes: &'a [u8],
        position: usize,
        table: Table,
    ) -> Option<impl Iterator<Item = (u64, Postings<'a>)> + 'a> {
        let Layout::Sorted(tables) = &self.layout else {
            return None;
        };
        let sorted = Sorted::of(bytes, tables[table as usize], self.ids.count);
        Some(sorted.book_places(position).map(move |place| {
            let key = sorted.key(place);
            let range = equal_run(sorted.len(), place, |j| sorted.key(j));
            (key, self.sorted_postings(bytes, sorted, range))
        }))
    }

    /// The books under `key` in `table` (sorted in a checked segment),
    /// empty when absent: found by interpolation over the uniformly spread
    /// keys ([`super::sorted`]).
    pub(super) fn lookup<'a>(&self, bytes: &'a [u8], table: Table, key: u64) -> Postings<'a> {
        match &self.layout {
            Layout::Sorted(tables) => {
                let sorted = Sorted::of(bytes, tables[table as usize], self.ids.count);
                let found = super::sorted::search(sorted.len(), key, |i| sorted.key(i));
                let range = match found {
                    Ok(i) => equal_run(sorted.len(), i, |j| sorted.key(j)),
                    Err(_) => 0..0,
                };
                self.sorted_postings(bytes, sorted, range)
            }
            Layout::Numbered(tables) => {
                let order = Numbered::of(bytes, tables[table as usize]);
                let found = super::sorted::search(order.len(), key, |i| order.key(i));
                let range = match found {
                    Ok(i) => equal_run(order.len(), i, |j| order.key(j)),
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

    fn sorted_postings<'a>(
        &self,
        bytes: &'a [u8],
        sorted: Sorted<'a>,
        range: Range<usize>,
    ) -> Postings<'a> {
        Postings {
            source: Source::Sorted {
                sorted,
                ids: self.ids,
                bytes,
                next: range.start,
                end: range.end,
            },
        }
    }

    fn ordered_postings<'a>(
        &self,
        bytes: &'a [u8],
        order: Numbered<'a>,
        range: Range<usize>,
    ) -> Postings<'a> {
        Postings {
            source: Source::Numbered {
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
            Layout::Sorted(tables) => {
                let sorted = Sorted::of(bytes, tables[table as usize], self.ids.count);
                Box::new(
                    key_runs(sorted.len(), move |j| sorted.key(j)).map(move |run| {
                        let key = sorted.key(run.start);
                        (key, self.sorted_postings(bytes, sorted, run))
                    }),
                )
            }
            Layout::Numbered(tables) => {
                let order = Numbered::of(bytes, tables[table as usize]);
                Box::new(
                    key_runs(order.len(), move |j| order.key(j)).map(move |run| {
                        let key = order.key(run.start);
                        (key, self.ordered_postings(bytes, order, run))
                    }),
                )
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
            Layout::Sorted(_) | Layout::Numbered(_) => {
                let keys = self.entries(bytes, table).count();
                (keys, self.entry_count(table))
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
            Layout::Sorted(tables) => tables[table as usize].entry_count,
            Layout::Numbered(tables) => tables[table as usize].entry_count,
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
            Layout::Sorted(tables) => {
                let sorted = Sorted::of(bytes, tables[table as usize], self.ids.count);
                (i < sorted.len()).then(|| OrderedEntry {
                    key: sorted.key(i),
                    position: sorted.position(i),
                })
            }
            Layout::Numbered(tables) => {
                let order = Numbered::of(bytes, tables[table as usize]);
                if i >= order.len() {
                    return None;
                }
                Some(OrderedEntry {
                    key: order.key(i),
                    position: order.book_of(order.number(i), self.ids.count),
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
                Some(OrderedEntry { key, position })
            }
        }
    }

    /// Checks the orders of every table: in key order, the book key
    /// counts, the keys' books and each book's places (see
    /// [`Sorted::check`]); else each book's keys strictly increasing and,
    /// numbered, the key order a permutation of the numbers sorted by
    /// (key, number) with zero bits after it; in the wide layout, the book
    /// key counts, the table's keys and postings in order and each table
    /// holding exactly its books' keys.
    pub(super) fn check(&self, bytes: &[u8], path: &Path) -> Result<()> {
        let corrupted = |what: String| Error::corrupted(path, what);
        if let Layout::Sorted(tables) = &self.layout {
            for table in Table::ALL {
                let sorted = Sorted::of(bytes, tables[table as usize], self.ids.count);
                if !non_decreasing(sorted.ends().iter()) {
                    return Err(corrupted(format!(
                        "{} book key counts out of order",
                        table.name()
                    )));
                }
                sorted
                    .check()
                    .map_err(|what| corrupted(format!("{} {what}", table.name())))?;
            }
            return Ok(());
        }
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
            Layout::Sorted(_) => Ok(()),
            Layout::Numbered(tables) => {
                for table in Table::ALL {
                    let order = Numbered::of(bytes, tables[table as usize]);
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
            .map(|position| self.book_key_count(bytes, position, table))
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

/// Appends the four tables of `books` (in segment order) in key order:
/// per table the books' cumulative key counts (none for a book without a
/// sketch), the keys sorted by (key, position), their books' positions and
/// each book's places. `InvalidArgument` when a table would hold 2^32
/// keys or more.
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
        // Every key with its book's position, book after book.
        let mut entries: Vec<(u64, u32)> = Vec::with_capacity(total);
        for (position, b) in (0u32..).zip(books) {
            if b.sketched {
                entries.extend(b.sketch.keys_of(table).iter().map(|&key| (key, position)));
            }
        }
        let mut order: Vec<u32> = (0..total as u32).collect();
        order.sort_unstable_by_key(|&j| (entries[j as usize], j));
        for &j in &order {
            out.extend_from_slice(&entries[j as usize].0.to_le_bytes());
        }
        let positions = order.iter().map(|&j| entries[j as usize].1);
        packed::pack(positions, position_width(books.len()), out);
        let mut places = vec![0u32; total];
        for (place, &j) in (0u32..).zip(&order) {
            places[j as usize] = place;
        }
        let mut records = Vec::new();
        let mut start = 0;
        for b in books {
            let count = keys_of(b);
            encode_book_places(
                &places[start..start + count],
                place_width(total),
                &mut records,
            );
            start += count;
            let end = u32::try_from(records.len()).map_err(|_| too_many_keys())?;
            out.extend_from_slice(&end.to_le_bytes());
        }
        out.extend_from_slice(&records);
    }
    Ok(())
}

/// Appends the place record of a book whose places in a key order are
/// `places` (strictly increasing; no record for none): a byte giving the
/// bits w of its widest gap (a place less the one before it, less one),
/// then its first place at `first_width` bits and each gap at w bits,
/// least significant bit first, zero bits to the end of the last byte.
pub(super) fn encode_book_places(places: &[u32], first_width: u8, out: &mut Vec<u8>) {
    let Some((&first, rest)) = places.split_first() else {
        return;
    };
    // Wrapping: places out of order (from keys out of order) give a
    // record, never a panic, which no check accepts.
    let gaps = places
        .windows(2)
        .map(|w| w[1].wrapping_sub(w[0]).wrapping_sub(1));
    let width = gaps.clone().max().map_or(0, packed::bits);
    out.push(width);
    let values = std::iter::once((first, first_width)).chain(gaps.map(|g| (g, width)));
    packed::pack_each(values.take(1 + rest.len()), out);
}

/// Bytes of the place record of a book of `count` places whose first
/// takes `first_width` bits and each gap `width` (0 for none).
fn book_places_len(count: usize, first_width: u8, width: u8) -> usize {
    match count {
        0 => 0,
        _ => (8 + u64::from(first_width) + (count as u64 - 1) * u64::from(width)).div_ceil(8)
            as usize,
    }
}

/// The error for a segment whose table would hold 2^32 keys or more.
pub(super) fn too_many_keys() -> Error {
    Error::InvalidArgument("a segment would hold more than 2^32 - 1 keys or entries".into())
}

/// One table in key order, read in place.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sorted<'a> {
    bytes: &'a [u8],
    span: SortedTable,
    books: usize,
}

impl<'a> Sorted<'a> {
    fn of(bytes: &'a [u8], span: SortedTable, books: usize) -> Self {
        Sorted { bytes, span, books }
    }

    fn len(&self) -> usize {
        self.span.entry_count
    }

    /// The key at place `i` (0 past the last).
    fn key(&self, i: usize) -> u64 {
        match i < self.len() {
            true => LittleEndian::read_u64(&self.bytes[self.span.keys_at + 8 * i..]),
            false => 0,
        }
    }

    /// The position of the book of the key at place `i`, as stored.
    fn raw_position(&self, i: usize) -> usize {
        let positions = &self.bytes[self.span.positions_at..];
        Unpacker::new(positions, self.span.position_width).get(i) as usize
    }

    /// The position of the book of the key at place `i`, clamped to the
    /// books.
    fn position(&self, i: usize) -> usize {
        self.raw_position(i).min(self.books.saturating_sub(1))
    }

    /// The places of the book at `position`, as stored (as many as its
    /// key ends give it; past its record they read as zero gaps).
    fn book_places(&self, position: usize) -> BookPlaces<'a> {
        let count = end_range(self.ends(), position, self.len()).len();
        let place_ends = U32s::new(
            &self.bytes[self.span.place_ends_at..self.span.place_ends_at + 4 * self.books],
        );
        let records = &self.bytes[self.span.places_at..];
        let range = end_range(place_ends, position, records.len());
        BookPlaces::new(&records[range], self.span.place_width, count)
    }

    fn place_ends(&self) -> U32s<'a> {
        U32s::new(&self.bytes[self.span.place_ends_at..self.span.place_ends_at + 4 * self.books])
    }

    fn ends(&self) -> U32s<'a> {
        U32s::new(&self.bytes[self.span.ends_at..self.span.ends_at + 4 * self.books])
    }

    /// Checks the key order and the places: (key, position) strictly
    /// increasing, every position a book's; each book's places strictly
    /// increasing, each holding a key of that book, as many as the key
    /// order gives it (so the places are the key order's inverse); zero
    /// bits after both packed arrays.
    fn check(&self) -> std::result::Result<(), String> {
        let mut keys_of_book = vec![0u32; self.books];
        let mut previous: Option<(u64, usize)> = None;
        for i in 0..self.len() {
            let current = (self.key(i), self.raw_position(i));
            match keys_of_book.get_mut(current.1) {
                Some(count) => *count += 1,
                None => {
                    return Err(format!(
                        "key {i} names book {} of {}",
                        current.1, self.books
                    ))
                }
            }
            if previous.is_some_and(|p| p >= current) {
                return Err(format!("keys out of order at {i}"));
            }
            previous = Some(current);
        }
        if !non_decreasing(self.place_ends().iter()) {
            return Err("place ends out of order".into());
        }
        let ends = self.ends();
        for (position, &count) in keys_of_book.iter().enumerate() {
            let range = end_range(ends, position, self.len());
            if range.len() != count as usize {
                return Err(format!(
                    "book {position} has {} places for {count} keys",
                    range.len()
                ));
            }
            self.check_book_places(position)?;
        }
        let positions = &self.bytes[self.span.positions_at..];
        match packed::padding_is_zero(positions, self.len(), self.span.position_width) {
            true => Ok(()),
            false => Err("bits after the key positions".into()),
        }
    }

    /// Checks the place record of the book at `position`: each place below
    /// the keys, holding a key of that book (increasing, as gaps are added
    /// to the place before), and the record what the writer writes for
    /// them ([`encode_book_places`]: its width the bits of its widest gap,
    /// its length exactly its bits, zero bits after them).
    fn check_book_places(&self, position: usize) -> std::result::Result<(), String> {
        let wrong = || format!("book {position}'s place record is not its keys' places");
        let places = self.book_places(position);
        let record = places.record;
        let (count, width) = (places.count, places.width);
        let mut widest = None;
        let mut last: Option<usize> = None;
        for place in places {
            if place >= self.len() || self.raw_position(place) != position {
                return Err(wrong());
            }
            if let Some(last) = last {
                let gap = (place - last - 1) as u32;
                widest = Some(widest.map_or(gap, |w: u32| w.max(gap)));
            }
            last = Some(place);
        }
        let len = book_places_len(count, self.span.place_width, width);
        let stored_width = record.first().copied().unwrap_or(0);
        let used = match count {
            0 => 0,
            _ => 8 + u64::from(self.span.place_width) + (count as u64 - 1) * u64::from(width),
        };
        let padding_clear = record
            .last()
            .is_none_or(|&byte| used % 8 == 0 || byte >> (used % 8) == 0);
        match record.len() == len && stored_width == widest.map_or(0, packed::bits) && padding_clear
        {
            true => Ok(()),
            false => Err(wrong()),
        }
    }
}

/// The keys of one book of a table, in order.
#[derive(Debug, Clone)]
pub(super) enum BookKeys<'a> {
    /// Stored book after book, 8 bytes each (formats 3 to 13).
    Stored(std::slice::ChunksExact<'a, u8>),
    /// Read through the book's places in a key order (format 14 on).
    Placed {
        sorted: Sorted<'a>,
        places: BookPlaces<'a>,
    },
}

/// One book's places in a key order, read from its record (see
/// [`encode_book_places`]): `count` of them, whatever the record holds
/// (bits past it read as zero, a width past 32 as 32).
#[derive(Debug, Clone)]
pub(super) struct BookPlaces<'a> {
    /// The record, its width byte first.
    record: &'a [u8],
    first_width: u8,
    width: u8,
    count: usize,
    /// Places read, and the last of them.
    read: usize,
    last: usize,
}

impl<'a> BookPlaces<'a> {
    fn new(record: &'a [u8], first_width: u8, count: usize) -> Self {
        BookPlaces {
            record,
            first_width,
            width: record.first().map_or(0, |&w| w.min(32)),
            count,
            read: 0,
            last: 0,
        }
    }
}

impl Iterator for BookPlaces<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.read >= self.count {
            return None;
        }
        let values = self.record.get(1..).unwrap_or(&[]);
        self.last = match self.read {
            0 => Unpacker::new(values, self.first_width).get(0) as usize,
            i => {
                let bit = usize::from(self.first_width) + (i - 1) * usize::from(self.width);
                let gap = Unpacker::new(values, self.width).at_bit(bit) as usize;
                self.last.saturating_add(gap).saturating_add(1)
            }
        };
        self.read += 1;
        Some(self.last)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.count - self.read;
        (left, Some(left))
    }
}

impl Iterator for BookKeys<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        match self {
            BookKeys::Stored(chunks) => chunks.next().map(LittleEndian::read_u64),
            BookKeys::Placed { sorted, places } => Some(sorted.key(places.next()?)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = match self {
            BookKeys::Stored(chunks) => chunks.len(),
            BookKeys::Placed { places, .. } => places.size_hint().0,
        };
        (left, Some(left))
    }
}

impl ExactSizeIterator for BookKeys<'_> {}

/// One table stored once, book after book, read in place.
#[derive(Debug, Clone, Copy)]
struct Numbered<'a> {
    bytes: &'a [u8],
    span: NumberedTable,
}

impl<'a> Numbered<'a> {
    fn of(bytes: &'a [u8], span: NumberedTable) -> Self {
        Numbered { bytes, span }
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

/// The runs of equal keys of `len` keys in key order (`key(j)` the j-th),
/// in order: each key's places once.
fn key_runs(len: usize, key: impl Fn(usize) -> u64 + Copy) -> impl Iterator<Item = Range<usize>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= len {
            return None;
        }
        let run = equal_run(len, at, key);
        at = run.end.max(at + 1);
        Some(run)
    })
}

/// The places around `i` of a key order of `len` keys read by `key` that
/// hold `i`'s key, found by galloping out from `i` and then bisecting, so
/// that a key of many books costs reads in the log of their count; a key
/// of one book costs two.
fn equal_run(len: usize, i: usize, key: impl Fn(usize) -> u64) -> Range<usize> {
    let wanted = key(i);
    let holds = |j: usize| key(j) == wanted;
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
        if probe >= len {
            break len;
        }
        match holds(probe) {
            true => (inside, step) = (probe, step * 2),
            false => break probe,
        }
    };
    let end = first_where(inside + 1..outside, |j| !holds(j));
    start..end
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
    /// Places `next..end` of a key order with its books' positions.
    Sorted {
        sorted: Sorted<'a>,
        ids: BookIds,
        bytes: &'a [u8],
        next: usize,
        end: usize,
    },
    /// Places `next..end` of a key order of numbers.
    Numbered {
        order: Numbered<'a>,
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
            Source::Sorted { next, end, .. } | Source::Numbered { next, end, .. } => {
                end.saturating_sub(*next)
            }
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
            Source::Sorted {
                sorted,
                ids,
                bytes,
                next,
                end,
            } => {
                if *next >= *end {
                    return None;
                }
                let position = sorted.position(*next);
                *next += 1;
                Some(ids.id(bytes, position))
            }
            Source::Numbered {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 3 of the worked example of `storage-format.md` 4.7, with
    /// `keys`, `positions` and the books' place `records` in place of its
    /// bytes: two books, keys 0xd1 (book 0), 0xd1 and 0xd2 (book 1).
    fn example(keys: [u64; 3], positions: u8, records: [&[u8]; 2]) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&3u32.to_le_bytes());
        keys.iter()
            .for_each(|key| bytes.extend_from_slice(&key.to_le_bytes()));
        bytes.push(positions);
        let mut end = 0u32;
        for record in records {
            end += record.len() as u32;
            bytes.extend_from_slice(&end.to_le_bytes());
        }
        records
            .iter()
            .for_each(|record| bytes.extend_from_slice(record));
        bytes
    }

    fn sorted(bytes: &[u8]) -> Sorted<'_> {
        let span = SortedTable {
            ends_at: 0,
            keys_at: 8,
            entry_count: 3,
            positions_at: 32,
            position_width: position_width(2),
            place_ends_at: 33,
            places_at: 41,
            place_width: place_width(3),
        };
        Sorted::of(bytes, span, 2)
    }

    /// A damaged example's keys, positions and records, and what its
    /// error names.
    type Damaged = ([u64; 3], u8, [&'static [u8]; 2], &'static str);

    /// Book 0's place 0 and book 1's places 1 and 2 (a gap of 0), first
    /// places at 2 bits.
    const RECORDS: [&[u8]; 2] = [&[0, 0], &[0, 1]];

    #[test]
    fn the_examples_table_reads_its_books_and_their_keys() {
        let bytes = example([0xd1, 0xd1, 0xd2], 0b110, RECORDS);
        let table = sorted(&bytes);
        assert_eq!(table.check(), Ok(()));
        assert_eq!(equal_run(3, 1, |i| table.key(i)), 0..2);
        assert_eq!(
            (0..3).map(|i| table.position(i)).collect::<Vec<_>>(),
            [0, 1, 1]
        );
        let keys_of = |position| {
            let places = table.book_places(position);
            BookKeys::Placed {
                sorted: table,
                places,
            }
            .collect::<Vec<u64>>()
        };
        assert_eq!((keys_of(0), keys_of(1)), (vec![0xd1], vec![0xd1, 0xd2]));
        for (position, record) in [(0, RECORDS[0]), (1, RECORDS[1])] {
            let places: Vec<u32> = (table.book_places(position).map(|p| p as u32)).collect();
            let mut encoded = Vec::new();
            encode_book_places(&places, 2, &mut encoded);
            assert_eq!(encoded, record);
        }
    }

    #[test]
    fn a_table_whose_order_books_or_places_disagree_is_refused() {
        let refused: [Damaged; 7] = [
            ([0xd2, 0xd1, 0xd1], 0b110, RECORDS, "out of order"),
            // Equal keys out of book order.
            ([0xd1, 0xd1, 0xd2], 0b101, RECORDS, "out of order"),
            // Two keys of book 0 in the key order, one in its key ends.
            ([0xd1, 0xd2, 0xd3], 0b100, RECORDS, "places for"),
            // Book 0's place names a key of book 1.
            (
                [0xd1, 0xd1, 0xd2],
                0b110,
                [&[0, 1], RECORDS[1]],
                "place record",
            ),
            // Book 1's gaps at 1 bit where 0 hold them.
            (
                [0xd1, 0xd1, 0xd2],
                0b110,
                [RECORDS[0], &[1, 1]],
                "place record",
            ),
            // A bit set after book 0's first place.
            (
                [0xd1, 0xd1, 0xd2],
                0b110,
                [&[0, 0b100], RECORDS[1]],
                "place record",
            ),
            // A bit set after the positions.
            ([0xd1, 0xd1, 0xd2], 0b1110, RECORDS, "bits after"),
        ];
        for (keys, positions, records, what) in refused {
            let bytes = example(keys, positions, records);
            let error = sorted(&bytes).check().unwrap_err();
            assert!(error.contains(what), "{error}, not {what}");
        }
    }
}
