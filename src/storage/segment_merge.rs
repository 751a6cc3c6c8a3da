//! Merging segments in place: the compaction's writer.
//!
//! A merge writes, from its mapped inputs, exactly the bytes that
//! [`super::segment::encode`] writes for the books it keeps (tested against
//! it), streamed section after section to the file, each section from a
//! pass over the inputs: book data and parts input after input (inputs are
//! in book id order and their id ranges do not interleave), each key
//! table's keys book after book, its key order and the postings by a k-way
//! merge of the inputs' tables in key order and their sorted word hashes
//! (`KWay`), so that a word's entries, or a key's books, come input after
//! input, in element (or id) order. Nothing is sorted and no element is
//! held: a merge holds, per input, where each of its books and parts goes,
//! and the merged word table (a hash and a count per distinct word), so its
//! memory does not grow with the elements it copies, and merged segments
//! can be as large as the disk allows.
//!
//! A book dropped by the merge (deleted or replaced) leaves its entries out
//! of every list, and a key or word left without any goes; a relocated
//! book (a compaction of the index moved its barrel record or page
//! signatures) is written with its new entry and page locator.

// Indexes go only into what the merge builds itself (its inputs, their
// maps, the k-way merge's cursors, slices it took with `get`); stored
// bytes are read through the segments' clamping accessors.
#![allow(clippy::indexing_slicing)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

use super::book_sections::key_of_entry;
use super::catalog::BookEntry;
use super::codec::Encode;
use super::format::{FileHeader, FileKind};
use super::key_tables;
use super::page_files::PageLocator;
use super::posting_lists::{self, Entry};
use super::segment::{checksummed, write_streamed, Segment};
use super::segment_books::{
    lists_too_large, put_list_ends, put_u32s, word_width, PackedOut, Sink, FLAG_PAGED,
    FLAG_SKETCHED, LONG_LIST,
};
use crate::error::{Error, Result};
use crate::repr::sketch::Table;

/// What a merge does with one book of its inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// Left out (deleted or replaced).
    Drop,
    /// Copied as stored.
    Keep,
    /// Copied with this entry and page locator in place of the stored ones.
    Relocate(BookEntry, Option<PageLocator>),
}

impl Fate {
    /// [`Fate::Keep`] when `live`, else [`Fate::Drop`].
    pub fn keep_if(live: bool) -> Fate {
        match live {
            true => Fate::Keep,
            false => Fate::Drop,
        }
    }
}

/// Merges `inputs` (in book id order, their ids strictly increasing across
/// them, all with book sections) into a new segment file at `path`, each
/// book as `fate` of its id says; returns the file's length. Memory: a few
/// bytes per book, part and distinct word, whatever the segments' sizes.
/// Fails like [`super::segment::encode`] when the result would exceed the
/// format's `u32` counts, and with `Corrupted` naming an input that has no
/// book sections or whose ids do not follow the previous input's.
///
/// A merge the format cannot hold fails with `InvalidArgument` naming the
/// merge: how many inputs, the first and last input files, and `path`.
pub fn write(path: &Path, inputs: &[&Segment], fate: impl Fn(u32) -> Fate) -> Result<u64> {
    let write = || {
        let views = passage_views(inputs)?;
        let plans = Plans::new(inputs, &views, &fate)?;
        write_streamed(path, |sink| checksummed(sink, |sink| plans.encode(sink)))
    };
    write().map_err(|error| match error {
        Error::InvalidArgument(what) => {
            Error::InvalidArgument(format!("{}: {what}", described(path, inputs)))
        }
        other => other,
    })
}

/// "merging 3 segments (DIR/a.seg to DIR/c.seg) into DIR/d.seg".
fn described(path: &Path, inputs: &[&Segment]) -> String {
    let (Some(first), Some(last)) = (inputs.first(), inputs.last()) else {
        return format!("merging no segment into {}", path.display());
    };
    let inputs = match inputs.len() {
        1 => format!("1 segment ({})", first.path().display()),
        n => format!(
            "{n} segments ({} to {})",
            first.path().display(),
            last.path().display()
        ),
    };
    format!("merging {inputs} into {}", path.display())
}

/// The bytes [`write()`] writes, in memory.
pub fn merge(inputs: &[&Segment], fate: impl Fn(u32) -> Fate) -> Result<Vec<u8>> {
    let views = passage_views(inputs)?;
    let plans = Plans::new(inputs, &views, &fate)?;
    let mut out = Vec::new();
    checksummed(&mut out, |sink| plans.encode(sink))?;
    Ok(out)
}

/// Each input seen through its passages ([`Segment::passage_view`]):
/// `Corrupted` naming an input without book sections.
fn passage_views(inputs: &[&Segment]) -> Result<Vec<Segment>> {
    inputs
        .iter()
        .map(|segment| {
            segment.require_books("merge")?;
            segment
                .passage_view()
                .ok_or_else(|| Error::corrupted(segment.path(), "no book sections to merge"))
        })
        .collect()
}

/// A merge's two plans: the books with their parts, and the same books
/// seen through their passages, whose unit set follows the parts'.
struct Plans<'s> {
    parts: Plan<'s>,
    passages: Plan<'s>,
}

impl<'s> Plans<'s> {
    fn new(
        inputs: &[&'s Segment],
        views: &'s [Segment],
        fate: &impl Fn(u32) -> Fate,
    ) -> Result<Plans<'s>> {
        let views: Vec<&Segment> = views.iter().collect();
        Ok(Plans {
            parts: Plan::new(inputs, fate)?,
            passages: Plan::new(&views, fate)?,
        })
    }

    fn encode(&self, out: &mut dyn Sink) -> Result<()> {
        self.parts.encode_books(out)?;
        self.parts.encode_units(out)?;
        self.passages.encode_units(out)
    }
}

/// Where a dropped book or part goes.
const DROPPED: u32 = u32::MAX;

/// A pass over a key table's kept entries in key order: calls its
/// argument with each one's key and merged book position.
type KeptEntries<'a> = dyn Fn(&mut dyn FnMut(u64, u32) -> Result<()>) -> Result<()> + 'a;

/// The most places of a key table a merge gathers at once (256 MiB): past
/// it, the books' places are gathered in runs, two passes of the k-way
/// merge of every input's table each, so the passes grow with the books
/// and the merge with their square. A run of 4M places left a load of
/// 300,000 books (300 batch segments) writing its merged segment for
/// hours, nearly all of it in those passes; 64M places take a table of a
/// million books in a few. The crate's own tests gather a few at a time,
/// so that every merge they make (each compared with the encoder's bytes)
/// writes its places in runs.
const PLACES_HELD: usize = if cfg!(test) { 5 } else { 1 << 26 };

/// One book of an input as the merge writes it.
enum Kept {
    Dropped,
    Stored,
    /// A new entry (and page locator), encoded.
    Relocated {
        bytes: Vec<u8>,
        paged: bool,
    },
}

/// One input and where each of its books and parts goes.
struct Input<'s> {
    segment: &'s Segment,
    books: Vec<Kept>,
    /// The merged part of each of its parts ([`DROPPED`] with its book).
    parts: Vec<u32>,
    /// Whether it drops a book (its lists are then filtered).
    drops: bool,
}

impl Input<'_> {
    fn kept(&self, position: usize) -> bool {
        !matches!(self.books.get(position), None | Some(Kept::Dropped))
    }

    fn kept_positions(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.books.len()).filter(|&p| self.kept(p))
    }

    fn sketched(&self, position: usize) -> bool {
        self.segment.flags(position) & FLAG_SKETCHED != 0
    }

    fn flags(&self, position: usize) -> u8 {
        let paged = match self.books.get(position) {
            Some(Kept::Relocated { paged, .. }) => *paged,
            _ => self.segment.flags(position) & FLAG_PAGED != 0,
        };
        (self.segment.flags(position) & FLAG_SKETCHED) | if paged { FLAG_PAGED } else { 0 }
    }

    fn entry_bytes(&self, position: usize) -> &[u8] {
        match self.books.get(position) {
            Some(Kept::Relocated { bytes, .. }) => bytes,
            _ => self.segment.entry_bytes(position).0,
        }
    }

    /// The merged part of entry part `part` (its own numbering).
    fn merged_part(&self, part: u32) -> u32 {
        self.parts.get(part as usize).copied().unwrap_or(DROPPED)
    }

    /// Appends the entries of word `word` the merge keeps to `entries`, in
    /// order, each part as its merged number.
    fn kept_list(&self, word: u32, entries: &mut Vec<Entry>) {
        self.segment.word_list(word).for_each(None, |part, block| {
            let part = self.merged_part(part);
            if part != DROPPED {
                entries.push((part, block));
            }
        });
    }

    /// How many of its entries of word `word` the merge keeps.
    fn kept_entries(&self, word: u32) -> u32 {
        let list = self.segment.word_list(word);
        match self.drops {
            false => list.len(),
            true => {
                let mut kept = 0;
                list.for_each(None, |part, _| {
                    kept += u32::from(self.merged_part(part) != DROPPED);
                });
                kept
            }
        }
    }
}

/// A merge planned: its inputs, and the counts its header and sections
/// need before they are written.
struct Plan<'s> {
    inputs: Vec<Input<'s>>,
    /// Min-hashes per book (the first input's).
    k: usize,
    books: u32,
}

impl<'s> Plan<'s> {
    fn new(segments: &[&'s Segment], fate: &impl Fn(u32) -> Fate) -> Result<Plan<'s>> {
        let too_large = || {
            Error::InvalidArgument(
                "a segment would hold more than 2^32 - 1 books, parts or elements".into(),
            )
        };
        let mut inputs = Vec::with_capacity(segments.len());
        let (mut books, mut parts, mut elements) = (0u64, 0u64, 0u64);
        let mut last_id = None;
        for &segment in segments {
            segment.require_books("merge")?;
            let mut input = Input {
                segment,
                books: Vec::with_capacity(segment.book_count()),
                parts: vec![DROPPED; segment.part_count()],
                drops: false,
            };
            for position in 0..segment.book_count() {
                let id = segment.book_id(position);
                if last_id.is_some_and(|last| id <= last) {
                    return Err(Error::corrupted(
                        segment.path(),
                        format!("book id {id} does not follow the merge's earlier ids"),
                    ));
                }
                last_id = Some(id);
                let kept = match fate(id) {
                    Fate::Drop => Kept::Dropped,
                    Fate::Keep => Kept::Stored,
                    Fate::Relocate(entry, pages) => {
                        let mut bytes = Vec::new();
                        entry.encode_into(&mut bytes);
                        if let Some(locator) = &pages {
                            locator.encode_into(&mut bytes);
                        }
                        Kept::Relocated {
                            bytes,
                            paged: pages.is_some(),
                        }
                    }
                };
                if matches!(kept, Kept::Dropped) {
                    input.drops = true;
                } else {
                    books += 1;
                    for part in segment.book_parts(position) {
                        if let Some(slot) = input.parts.get_mut(part) {
                            *slot = u32::try_from(parts).map_err(|_| too_large())?;
                        }
                        parts += 1;
                        elements += u64::from(segment.part_len(part));
                    }
                }
                input.books.push(kept);
            }
            inputs.push(input);
        }
        if books > u64::from(u32::MAX) || parts > u64::from(u32::MAX) {
            return Err(too_large());
        }
        if elements > u64::from(u32::MAX) {
            return Err(too_large());
        }
        let k = segments.first().map_or(1, |s| s.hashes_per_book());
        Ok(Plan {
            inputs,
            k,
            books: books as u32,
        })
    }

    /// The sketches, key tables and book data of the kept books.
    fn encode_books(&self, out: &mut dyn Sink) -> Result<()> {
        self.encode_sketches(out)?;
        for table in Table::ALL {
            self.encode_table(table, out)?;
        }
        self.encode_book_data(out)
    }

    /// The unit set of the kept books: unit ends, element ends and their
    /// postings.
    fn encode_units(&self, out: &mut dyn Sink) -> Result<()> {
        self.encode_parts(out)?;
        self.encode_postings(out)
    }

    /// Every kept book as (input, position), in id order.
    fn kept_books(&self) -> impl Iterator<Item = (&Input<'s>, usize)> + '_ {
        self.inputs
            .iter()
            .flat_map(|input| input.kept_positions().map(move |p| (input, p)))
    }

    /// The header and the books' sketches.
    fn encode_sketches(&self, out: &mut dyn Sink) -> Result<()> {
        let mut header = Vec::new();
        FileHeader::new(FileKind::Segment).encode_into(&mut header);
        header.extend_from_slice(&self.books.to_le_bytes());
        header.extend_from_slice(&(self.k as u32).to_le_bytes());
        out.put(&header)?;
        let mut record = Vec::with_capacity(20 + 8 * self.k);
        for (input, position) in self.kept_books() {
            let stored = input.segment.sketch_bytes(position);
            record.clear();
            record.extend_from_slice(stored.get(..20).unwrap_or(&[0; 20]));
            let values = stored.get(20..).unwrap_or(&[]);
            for i in 0..self.k {
                match values.get(8 * i..8 * i + 8) {
                    Some(value) => record.extend_from_slice(value),
                    None => record.extend_from_slice(&u64::MAX.to_le_bytes()),
                }
            }
            out.put(&record)?;
        }
        Ok(())
    }

    /// How many keys of `table` the merge writes for the book at
    /// `position` of `input`: none for a book without a sketch.
    fn kept_key_count(input: &Input<'s>, position: usize, table: Table) -> usize {
        match input.sketched(position) {
            true => input.segment.book_key_count(position, table),
            false => 0,
        }
    }

    /// One key table in key order (`storage-format.md` 4.3): the kept
    /// books' cumulative key counts, then, each from a k-way merge of the
    /// inputs' tables in key order (inputs in id order, so a key's entries
    /// come input after input, in book order), the keys, their books'
    /// merged positions, and each book's place ends and place records.
    /// A book's places are gathered for a run of books at a time, at most
    /// [`PLACES_HELD`] places, each run another pass of the merge (two
    /// rounds of runs: the records' lengths, then the records): a table of
    /// any size is written in bounded memory.
    fn encode_table(&self, table: Table, out: &mut dyn Sink) -> Result<()> {
        let mut merged: Vec<Vec<u32>> = Vec::with_capacity(self.inputs.len());
        let mut end = 0u64;
        let mut ends = Vec::with_capacity(self.books as usize);
        for input in &self.inputs {
            let mut positions = vec![DROPPED; input.books.len()];
            for position in input.kept_positions() {
                positions[position] = ends.len() as u32;
                end += Self::kept_key_count(input, position, table) as u64;
                ends.push(u32::try_from(end).map_err(|_| key_tables::too_many_keys())?);
            }
            merged.push(positions);
        }
        let entries = end as usize;
        // The merged position of each kept entry, in key order.
        let for_each_kept = |f: &mut dyn FnMut(u64, u32) -> Result<()>| -> Result<()> {
            let lens: Vec<usize> = (self.inputs.iter())
                .map(|input| input.segment.table_entries(table))
                .collect();
            let entry = |s: usize, i: usize| self.inputs[s].segment.ordered_entry(table, i);
            KWay::new(&lens).for_each(
                |s, i| entry(s, i).map_or(u64::MAX, |e| e.key),
                |_, group| {
                    for &(s, i) in group {
                        let Some(e) = entry(s, i) else { continue };
                        let position = merged[s].get(e.position).copied().unwrap_or(DROPPED);
                        if position != DROPPED && self.inputs[s].sketched(e.position) {
                            f(e.key, position)?;
                        }
                    }
                    Ok(())
                },
            )
        };
        put_u32s(out, ends.iter().copied())?;
        let mut keys = Buffered::new(out);
        for_each_kept(&mut |key, _| keys.put(&key.to_le_bytes()))?;
        keys.flush()?;
        let width = key_tables::position_width(self.books as usize);
        let mut positions = PackedOut::new(out, width);
        for_each_kept(&mut |_, position| positions.push(position))?;
        positions.finish()?;
        // Each book's place record: their lengths first, for the place
        // ends, then the records, each round gathering the places again.
        let first_width = key_tables::place_width(entries);
        let mut record = Vec::new();
        let mut place_end = 0u64;
        let mut place_ends = Vec::with_capacity(ends.len());
        self.for_each_book_places(&ends, &for_each_kept, |places| {
            record.clear();
            key_tables::encode_book_places(places, first_width, &mut record);
            place_end += record.len() as u64;
            place_ends.push(u32::try_from(place_end).map_err(|_| key_tables::too_many_keys())?);
            Ok(())
        })?;
        put_u32s(out, place_ends.into_iter())?;
        let mut records = Buffered::new(out);
        self.for_each_book_places(&ends, &for_each_kept, |places| {
            record.clear();
            key_tables::encode_book_places(places, first_width, &mut record);
            records.put(&record)
        })?;
        records.flush()
    }

    /// Calls `f` with each kept book's places in the key order that
    /// `for_each_kept` yields (the merged position of each kept entry, in
    /// key order), book after book; `ends` are the books' cumulative key
    /// counts. The places are gathered for a run of books at a time, at
    /// most [`PLACES_HELD`], each run a pass of `for_each_kept`.
    fn for_each_book_places(
        &self,
        ends: &[u32],
        for_each_kept: &KeptEntries<'_>,
        mut f: impl FnMut(&[u32]) -> Result<()>,
    ) -> Result<()> {
        let start_of = |book: usize| book.checked_sub(1).map_or(0, |b| ends[b]);
        let mut first_book = 0;
        while first_book < ends.len() {
            let base = start_of(first_book);
            let last_book = first_book
                + ends[first_book..].partition_point(|&end| (end - base) as usize <= PLACES_HELD);
            let books = first_book..last_book.max(first_book + 1);
            let held = (ends[books.end - 1] - base) as usize;
            // Where each book of the run puts its next place.
            let mut next: Vec<usize> = books
                .clone()
                .map(|b| (start_of(b) - base) as usize)
                .collect();
            let mut gathered = vec![0u32; held];
            let mut place = 0u32;
            for_each_kept(&mut |_, position| {
                if books.contains(&(position as usize)) {
                    let at = &mut next[position as usize - books.start];
                    gathered[*at] = place;
                    *at += 1;
                }
                place += 1;
                Ok(())
            })?;
            for book in books.clone() {
                let range = (start_of(book) - base) as usize..(ends[book] - base) as usize;
                f(&gathered[range])?;
            }
            first_book = books.end;
        }
        Ok(())
    }

    /// Flags, entry ends, entries and the key order.
    fn encode_book_data(&self, out: &mut dyn Sink) -> Result<()> {
        let flags: Vec<u8> = self
            .kept_books()
            .map(|(input, position)| input.flags(position))
            .collect();
        out.put(&flags)?;
        let mut end = 0u64;
        let mut ends = Vec::with_capacity(self.books as usize);
        for (input, position) in self.kept_books() {
            end += input.entry_bytes(position).len() as u64;
            ends.push(u32::try_from(end).map_err(|_| {
                Error::InvalidArgument("a segment's book entries would exceed 4 GiB".into())
            })?);
        }
        put_u32s(out, ends.into_iter())?;
        let mut buffer = Buffered::new(out);
        for (input, position) in self.kept_books() {
            buffer.put(input.entry_bytes(position))?;
        }
        buffer.flush()?;
        put_u32s(out, self.key_order().into_iter())
    }

    /// The merged positions sorted by (key, id), as the encoder sorts them
    /// (a relocated book may have a new key, so the inputs' key orders are
    /// not merged but made again: a few bytes per book).
    fn key_order(&self) -> Vec<u32> {
        let mut books: Vec<(&Input<'s>, usize, u32)> = self
            .kept_books()
            .zip(0u32..)
            .map(|((input, position), merged)| (input, position, merged))
            .collect();
        books.sort_by(|&(a, p, _), &(b, q, _)| {
            key_of_entry(a.entry_bytes(p))
                .cmp(key_of_entry(b.entry_bytes(q)))
                .then(a.segment.book_id(p).cmp(&b.segment.book_id(q)))
        });
        books.into_iter().map(|(_, _, merged)| merged).collect()
    }

    /// Part ends and element ends of the kept books.
    fn encode_parts(&self, out: &mut dyn Sink) -> Result<()> {
        let mut end = 0u32;
        let part_ends = self.kept_books().map(|(input, position)| {
            end += input.segment.book_parts(position).len() as u32;
            end
        });
        put_u32s(out, part_ends)?;
        let mut end = 0u32;
        let element_ends = self.kept_parts().map(|(input, part)| {
            end += input.segment.part_len(part);
            end
        });
        put_u32s(out, element_ends)
    }

    /// Every kept part as (input, its part number there), in order.
    fn kept_parts(&self) -> impl Iterator<Item = (&Input<'s>, usize)> + '_ {
        self.kept_books().flat_map(|(input, position)| {
            input.segment.book_parts(position).map(move |p| (input, p))
        })
    }

    /// The word table, the posting lists, the element words and the long
    /// words. The lists are encoded twice, once to find where each ends
    /// and once to write them, so that no list but the current one is
    /// held.
    fn encode_postings(&self, out: &mut dyn Sink) -> Result<()> {
        let words = self.word_table()?;
        let mut buffer = Buffered::new(out);
        buffer.put(&(words.hashes.len() as u32).to_le_bytes())?;
        for &hash in &words.hashes {
            buffer.put(&hash.to_le_bytes())?;
        }
        buffer.flush()?;
        let mut list = Vec::new();
        let mut end = 0u64;
        let mut ends = Vec::with_capacity(words.hashes.len());
        self.for_each_list(|entries| {
            list.clear();
            posting_lists::encode(entries, &mut list);
            end += list.len() as u64;
            ends.push(u32::try_from(end).map_err(|_| lists_too_large())?);
            Ok(())
        })?;
        put_list_ends(buffer.out, &ends)?;
        drop(ends);
        self.for_each_list(|entries| {
            list.clear();
            posting_lists::encode(entries, &mut list);
            buffer.put(&list)
        })?;
        buffer.flush()?;
        // In `kept_parts` order, each element's word renumbered through
        // its input's table, a part at a time.
        let mut element_words = PackedOut::new(out, word_width(words.hashes.len()));
        let mut part_words = Vec::new();
        for (input, numbers) in self.inputs.iter().zip(&words.of_inputs) {
            for position in input.kept_positions() {
                for part in input.segment.book_parts(position) {
                    input.segment.part_words(part).decode_into(&mut part_words);
                    for &word in &part_words {
                        element_words.push(numbers.get(word as usize).copied().unwrap_or(0))?;
                    }
                }
            }
        }
        element_words.finish()?;
        let long = words.long();
        put_u32s(out, std::iter::once(long.len() as u32))?;
        put_u32s(out, long.into_iter())
    }

    /// Each input's word hashes, as a [`KWay`] reads them.
    fn word_sources(&self) -> (Vec<usize>, impl Fn(usize, usize) -> u64 + '_) {
        let lens = self
            .inputs
            .iter()
            .map(|input| input.segment.word_count())
            .collect();
        let hash = |s: usize, i: usize| u64::from(self.inputs[s].segment.word_hash(i as u32));
        (lens, hash)
    }

    /// The merged word table: each hash with kept entries, and their count.
    fn word_table(&self) -> Result<Words> {
        let (lens, hash) = self.word_sources();
        let mut words = Words {
            of_inputs: lens.iter().map(|&len| vec![0; len]).collect(),
            ..Words::default()
        };
        KWay::new(&lens).for_each(hash, |hash, group| {
            let count: u32 = group
                .iter()
                .map(|&(s, w)| self.inputs[s].kept_entries(w as u32))
                .sum();
            if count > 0 {
                let number = words.hashes.len() as u32;
                for &(s, w) in group {
                    words.of_inputs[s][w] = number;
                }
                words.hashes.push(hash as u32);
                words.counts.push(count);
            }
            Ok(())
        })?;
        Ok(words)
    }

    /// Calls `f` with the kept entries of every word that keeps any, word
    /// after word in hash order, input after input within a word.
    fn for_each_list(&self, mut f: impl FnMut(&[Entry]) -> Result<()>) -> Result<()> {
        let (lens, hash) = self.word_sources();
        let mut entries = Vec::new();
        KWay::new(&lens).for_each(hash, |_, group| {
            entries.clear();
            // Lists hold their parts in decreasing order, and a later
            // input's parts follow an earlier one's: the inputs' lists from
            // the last input to the first are in order, unless damaged.
            for &(s, w) in group.iter().rev() {
                self.inputs[s].kept_list(w as u32, &mut entries);
            }
            if !entries.is_sorted_by(|a, b| a.0 > b.0) {
                entries.sort_unstable_by_key(|&(part, _)| std::cmp::Reverse(part));
            }
            match entries.is_empty() {
                true => Ok(()),
                false => f(&entries),
            }
        })
    }
}

/// The merged word table.
#[derive(Default)]
struct Words {
    /// Distinct hashes with kept entries, ascending: a word's number is
    /// its place here.
    hashes: Vec<u32>,
    /// Each word's kept entries.
    counts: Vec<u32>,
    /// Per input, the number here of each of its words (0 for a word
    /// without kept entries, which no kept element has: a kept element
    /// is one of its word's entries).
    of_inputs: Vec<Vec<u32>>,
}

impl Words {
    /// The words of at least [`LONG_LIST`] entries, longest first, ties by
    /// number.
    fn long(&self) -> Vec<u32> {
        let mut long: Vec<(u32, u32)> = self
            .counts
            .iter()
            .zip(0u32..)
            .filter(|&(&count, _)| count >= LONG_LIST)
            .map(|(&count, word)| (count, word))
            .collect();
        long.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        long.into_iter().map(|(_, word)| word).collect()
    }
}

/// A k-way merge of sorted sources: each distinct value with the places
/// that hold it, `(source, index)` by source, in ascending value order.
struct KWay {
    lens: Vec<usize>,
}

impl KWay {
    fn new(lens: &[usize]) -> KWay {
        KWay {
            lens: lens.to_vec(),
        }
    }

    /// Calls `f` with each value and its places; `value(source, index)`
    /// reads the sources, each sorted ascending; equal values come source
    /// after source, each source's in its order. Up to
    /// [`KWay::LINEAR_SOURCES`] sources, the least head is found by
    /// looking at each (a load's final merge has a few inputs); past them,
    /// through a heap.
    fn for_each(
        self,
        value: impl Fn(usize, usize) -> u64,
        f: impl FnMut(u64, &[(usize, usize)]) -> Result<()>,
    ) -> Result<()> {
        match self.lens.len() <= Self::LINEAR_SOURCES {
            true => self.for_each_by_scan(value, f),
            false => self.for_each_by_heap(value, f),
        }
    }

    /// Sources up to which [`KWay::for_each`] scans the heads.
    const LINEAR_SOURCES: usize = 8;

    /// [`KWay::for_each`] by a scan of every source's head.
    // Sources are numbered below `lens.len()`, the length of each array.
    #[allow(clippy::indexing_slicing)]
    fn for_each_by_scan(
        self,
        value: impl Fn(usize, usize) -> u64,
        mut f: impl FnMut(u64, &[(usize, usize)]) -> Result<()>,
    ) -> Result<()> {
        let sources = self.lens.len();
        let head = |s: usize, index: usize| (index < self.lens[s]).then(|| value(s, index));
        let mut next = vec![0usize; sources];
        let mut heads: Vec<Option<u64>> = (0..sources).map(|s| head(s, 0)).collect();
        let mut group = Vec::with_capacity(sources);
        while let Some(current) = heads.iter().flatten().min().copied() {
            group.clear();
            for s in 0..sources {
                while heads[s] == Some(current) {
                    group.push((s, next[s]));
                    next[s] += 1;
                    heads[s] = head(s, next[s]);
                }
            }
            f(current, &group)?;
        }
        Ok(())
    }

    /// [`KWay::for_each`] through a heap of the sources' heads.
    fn for_each_by_heap(
        self,
        value: impl Fn(usize, usize) -> u64,
        mut f: impl FnMut(u64, &[(usize, usize)]) -> Result<()>,
    ) -> Result<()> {
        let mut heap: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
        let mut next = vec![0usize; self.lens.len()];
        for (s, &len) in self.lens.iter().enumerate() {
            if len > 0 {
                heap.push(Reverse((value(s, 0), s)));
            }
        }
        let mut group = Vec::with_capacity(self.lens.len());
        while let Some(&Reverse((current, _))) = heap.peek() {
            group.clear();
            while let Some(&Reverse((v, s))) = heap.peek() {
                if v != current {
                    break;
                }
                heap.pop();
                group.push((s, next[s]));
                next[s] += 1;
                if next[s] < self.lens[s] {
                    heap.push(Reverse((value(s, next[s]), s)));
                }
            }
            f(current, &group)?;
        }
        Ok(())
    }
}

/// Small writes gathered into large ones.
struct Buffered<'o> {
    out: &'o mut dyn Sink,
    buffer: Vec<u8>,
}

impl<'o> Buffered<'o> {
    fn new(out: &'o mut dyn Sink) -> Self {
        Buffered {
            out,
            buffer: Vec::with_capacity(1 << 16),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.out.put(&self.buffer)?;
        self.buffer.clear();
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::repr::{MinHashSig, SimHash128};
    use crate::storage::segment::{encode, SketchRecord};
    use crate::storage::segment_books::SegmentBook;
    use proptest::prelude::*;

    /// Each value a k-way merge gives, with its places.
    fn merged(sources: &[Vec<u64>], by_heap: bool) -> Vec<(u64, Vec<(usize, usize)>)> {
        let lens: Vec<usize> = sources.iter().map(Vec::len).collect();
        let mut out = Vec::new();
        let value = |s: usize, i: usize| sources[s][i];
        let f = |v: u64, group: &[(usize, usize)]| {
            out.push((v, group.to_vec()));
            Ok(())
        };
        match by_heap {
            true => KWay::new(&lens).for_each_by_heap(value, f),
            false => KWay::new(&lens).for_each_by_scan(value, f),
        }
        .unwrap();
        out
    }

    proptest! {
        #[test]
        fn a_kway_merge_by_scan_gives_what_one_by_heap_gives(
            mut sources in proptest::collection::vec(
                proptest::collection::vec(prop_oneof![0u64..8, Just(u64::MAX)], 0..30),
                0..10,
            ),
        ) {
            for source in &mut sources {
                source.sort_unstable();
            }
            let by_heap = merged(&sources, true);
            prop_assert_eq!(merged(&sources, false), by_heap.clone());
            // Every place once, values ascending, each group by source.
            let places: usize = by_heap.iter().map(|(_, group)| group.len()).sum();
            prop_assert_eq!(places, sources.iter().map(Vec::len).sum::<usize>());
            prop_assert!(by_heap.windows(2).all(|w| w[0].0 < w[1].0));
            for (value, group) in &by_heap {
                prop_assert!(group.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(group.iter().all(|&(s, i)| sources[s][i] == *value));
            }
        }
    }

    fn book(id: u32, parts: Vec<Vec<u32>>, keys: [Vec<u64>; 4], sketched: bool) -> SegmentBook {
        SegmentBook {
            sketch: SketchRecord {
                book_id: id,
                simhash: match sketched {
                    true => SimHash128(u128::from(id) * 0x9e37),
                    false => SimHash128::default(),
                },
                minhash: match sketched {
                    true => MinHashSig(vec![u64::from(id) * 31; 3]),
                    false => MinHashSig(vec![u64::MAX; 3]),
                },
                keys: match sketched {
                    true => keys,
                    false => Default::default(),
                },
            },
            sketched,
            entry: BookEntry {
                key: format!("key{}", id % 5),
                title: format!("t{id}"),
                unique_words: parts.iter().map(|p| p.len() as u32).sum(),
                offset: u64::from(id) * 10,
                ..BookEntry::default()
            },
            pages: id.is_multiple_of(3).then_some(PageLocator {
                file: 1,
                offset: u64::from(id),
                len: 8,
            }),
            // Passages: each part cut in two, the words of one book's
            // passages repeated across its parts as a text's are.
            passages: parts
                .iter()
                .flat_map(|p| p.chunks(p.len().div_ceil(2).max(1)).map(<[u32]>::to_vec))
                .collect(),
            parts,
        }
    }

    /// Books with ids from `first`, hashes and keys drawn from small
    /// ranges so that words and keys repeat across books and segments.
    pub(in crate::storage) fn books_strategy(
        first: u32,
    ) -> impl Strategy<Value = Vec<SegmentBook>> {
        let part = proptest::collection::hash_set(0u32..60, 0..12)
            .prop_map(|set| set.into_iter().collect::<Vec<u32>>());
        let keys = proptest::collection::btree_set(0u64..40, 0..4)
            .prop_map(|set| set.into_iter().collect::<Vec<u64>>());
        let one = (
            proptest::collection::vec(part, 1..4),
            [keys.clone(), keys.clone(), keys.clone(), keys],
            any::<bool>(),
            1u32..3,
        );
        proptest::collection::vec(one, 0..6).prop_map(move |books| {
            let mut id = first;
            books
                .into_iter()
                .map(|(parts, keys, sketched, gap)| {
                    id += gap;
                    book(id, parts, keys, sketched)
                })
                .collect()
        })
    }

    fn segment(books: Vec<SegmentBook>) -> Segment {
        let bytes = encode(books, 3).expect("encodes");
        Segment::decode(bytes, Path::new("test.seg")).expect("valid")
    }

    /// Drops the books whose bit (id mod 64) is set in `dropped`, relocates
    /// those set in `moved`.
    fn fate_of(dropped: u64, moved: u64) -> impl Fn(u32) -> Fate {
        move |id| {
            let bit = |mask: u64| mask >> (id % 64) & 1 == 1;
            if bit(dropped) {
                Fate::Drop
            } else if bit(moved) {
                let entry = BookEntry {
                    key: format!("moved{}", id % 7),
                    barrel: 7,
                    offset: u64::from(id) * 1000,
                    ..BookEntry::default()
                };
                let pages = id.is_multiple_of(2).then_some(PageLocator {
                    file: 9,
                    offset: u64::from(id),
                    len: 4,
                });
                Fate::Relocate(entry, pages)
            } else {
                Fate::Keep
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The merge writes what the encoder writes for the kept books,
        /// with their new entries.
        #[test]
        fn a_merge_is_the_encoding_of_its_kept_books(
            a in books_strategy(0),
            b in books_strategy(100),
            c in books_strategy(200),
            dropped in prop_oneof![Just(0u64), any::<u64>()],
            moved in prop_oneof![Just(0u64), any::<u64>()],
        ) {
            let inputs = [segment(a.clone()), segment(b.clone()), segment(c.clone())];
            let refs: Vec<&Segment> = inputs.iter().collect();
            let fate = fate_of(dropped, moved);
            let merged = merge(&refs, &fate).expect("merges");
            let expected_books: Vec<SegmentBook> = a
                .into_iter()
                .chain(b)
                .chain(c)
                .filter_map(|mut book| match fate(book.id()) {
                    Fate::Drop => None,
                    Fate::Keep => Some(book),
                    Fate::Relocate(entry, pages) => {
                        book.entry = entry;
                        book.pages = pages;
                        Some(book)
                    }
                })
                .collect();
            let expected = encode(expected_books, 3).expect("encodes");
            prop_assert_eq!(merged, expected);
        }
    }

    /// A merge that fails names its inputs and output.
    #[test]
    fn a_merge_is_described_by_its_files() {
        let named = |id: u32, name: &str| {
            let bytes = encode(vec![book(id, vec![vec![id]], Default::default(), true)], 3);
            Segment::decode(bytes.unwrap(), Path::new(name)).unwrap()
        };
        let (a, b, c) = (named(1, "a.seg"), named(2, "b.seg"), named(3, "c.seg"));
        let out = Path::new("d.seg");
        assert_eq!(
            described(out, &[&a, &b, &c]),
            "merging 3 segments (a.seg to c.seg) into d.seg"
        );
        assert_eq!(
            described(out, &[&a]),
            "merging 1 segment (a.seg) into d.seg"
        );
        assert_eq!(described(out, &[]), "merging no segment into d.seg");
    }

    /// Words of 64 entries or more are the long words, longest first.
    #[test]
    fn long_words_are_counted_over_the_kept_entries() {
        let group = |first: u32| -> Vec<SegmentBook> {
            (first..first + 40)
                .map(|id| {
                    let common: Vec<u32> = (1..=4).filter(|w| id % w == 0).collect();
                    let parts = vec![common.into_iter().chain([1000 + id]).collect()];
                    book(id, parts, Default::default(), true)
                })
                .collect()
        };
        let (a, b) = (group(1), group(100));
        let inputs = [segment(a.clone()), segment(b.clone())];
        let refs: Vec<&Segment> = inputs.iter().collect();
        let dropped = |id: u32| id % 7 == 3;
        let merged = merge(&refs, |id| match dropped(id) {
            true => Fate::Drop,
            false => Fate::Keep,
        })
        .unwrap();
        let kept: Vec<SegmentBook> = a
            .into_iter()
            .chain(b)
            .filter(|b| !dropped(b.id()))
            .collect();
        assert_eq!(merged, encode(kept, 3).unwrap());
        let merged = Segment::decode(merged, Path::new("m.seg")).unwrap();
        let long: Vec<u32> = merged
            .long_words()
            .iter()
            .map(|w| merged.word_hash(w))
            .collect();
        assert_eq!(long, [1], "word 1 is in every kept book, word 2 in half");
    }

    #[test]
    fn ids_must_follow_across_inputs() {
        let a = segment(vec![book(5, vec![vec![1, 2]], Default::default(), true)]);
        let b = segment(vec![book(3, vec![vec![2, 3]], Default::default(), true)]);
        let error = merge(&[&a, &b], |_| Fate::Keep).unwrap_err();
        assert!(error.to_string().contains("does not follow"), "{error}");
    }

    #[test]
    fn a_word_left_without_entries_goes() {
        let a = segment(vec![
            book(1, vec![vec![1, 2]], Default::default(), true),
            book(2, vec![vec![2, 3]], Default::default(), true),
        ]);
        let merged = merge(&[&a], |id| match id {
            1 => Fate::Drop,
            _ => Fate::Keep,
        })
        .unwrap();
        let merged = Segment::decode(merged, Path::new("m.seg")).unwrap();
        assert_eq!(merged.word_count(), 2);
        assert_eq!(merged.find_word(1), None);
        assert!(merged.find_word(3).is_some());
    }
}
