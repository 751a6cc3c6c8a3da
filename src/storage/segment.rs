//! Sketch segments: immutable files holding the sketches of a set of books
//! (book min-hash and simhash) and the key tables built from them (band or
//! value key → sorted book ids). Page signatures are not here but in page
//! files ([`super::page_files`]): they are read a pair at a time, and a
//! reader holds its segments in memory.
//!
//! Each committed load batch writes one segment; the catalog lists the
//! segments that are part of the index. Deleting or replacing a book does
//! not rewrite segments: a reader drops ids the catalog no longer lists,
//! and a merge (`merge`) rewrites several segments into one without them.
//! A segment is written whole, synced, and only then named in a catalog
//! transaction, so a crash leaves at most an unlisted file that the next
//! writer removes.
//!
//! Layout: the file header, the books' sketches, the key tables
//! (`super::key_tables`), the book sections ([`segment_books`]) and a
//! checksum; `storage-format.md`, section 4, describes every byte.

use byteorder::{ByteOrder, LittleEndian};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::codec::{Cursor, Encode};
use super::format::{checked_body, FileHeader, FileKind, FormatVersion, CHECKSUM_LEN, HEADER_LEN};
pub use super::key_tables::Postings;
use super::key_tables::{self, BookIds, KeyTables, OrderedEntry};
pub use super::mapped::MappedBytes;
pub use super::segment_books::SketchRecord;
use super::segment_books::{self, BookSpans, SegmentBook, Sink};
use super::sorted::strictly_increasing;
use crate::error::{Error, Result};
use crate::repr::minhash::MAX_HASHES;
use crate::repr::sketch::Table;
use crate::repr::{MinHashSig, SimHash128};

/// Encodes `books` (any order; ids distinct) into segment bytes with `k`
/// min-hashes per book (missing values are written as `u64::MAX`): their
/// sketches, key tables and, as every segment from version 7 on, their book
/// sections ([`segment_books`]). `InvalidArgument` when a count would not
/// fit the format's u32 fields (over 2^32 − 1 keys, entries, parts or
/// elements in one segment).
pub fn encode(books: Vec<SegmentBook>, k: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_to(books, k, &mut out)?;
    Ok(out)
}

/// Encodes `books` as [`encode`] does into a new file at `path` (created
/// exclusively, never through a link), streamed, then synced with its
/// directory; returns its length. A file it created but could not finish
/// is removed (best effort: the next writer removes any file the catalog
/// does not list).
pub fn write(path: &Path, books: Vec<SegmentBook>, k: usize) -> Result<u64> {
    write_streamed(path, |sink| encode_to(books, k, sink))
}

/// Creates the file at `path` (exclusively, never through a link), gives
/// `encode` a buffered sink into it, then syncs it and its directory;
/// returns the length `encode` returns. A file it created but could not
/// finish is removed (best effort: the next writer removes any file the
/// catalog does not list).
pub(super) fn write_streamed(
    path: &Path,
    encode: impl FnOnce(&mut dyn Sink) -> Result<u64>,
) -> Result<u64> {
    let mut file = super::fs::WriteFile::create_new(path)?;
    let written = (|| -> Result<u64> {
        let mut sink = FileSink {
            file: &mut file,
            buffer: Vec::with_capacity(1 << 20),
        };
        let len = encode(&mut sink)?;
        sink.flush()?;
        file.sync_all()?;
        Ok(len)
    })();
    drop(file);
    if written.is_err() {
        let _ = super::fs::remove_file(path);
    }
    let len = written?;
    super::format::sync_parent_dir(path)?;
    Ok(len)
}

/// A file written through a buffer.
struct FileSink<'f> {
    file: &'f mut super::fs::WriteFile,
    buffer: Vec<u8>,
}

impl FileSink<'_> {
    fn flush(&mut self) -> Result<()> {
        self.file.write_all(&self.buffer)?;
        self.buffer.clear();
        Ok(())
    }
}

impl Sink for FileSink<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= 1 << 20 {
            self.flush()?;
        }
        Ok(())
    }
}

/// A sink that counts and checksums what passes through it.
struct Checksummed<'s> {
    out: &'s mut dyn Sink,
    hash: xxhash_rust::xxh3::Xxh3Default,
    len: u64,
}

impl Sink for Checksummed<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.hash.update(bytes);
        self.len += bytes.len() as u64;
        self.out.put(bytes)
    }
}

/// Encodes `books` into `out`; returns the bytes written.
fn encode_to(mut books: Vec<SegmentBook>, k: usize, out: &mut dyn Sink) -> Result<u64> {
    books.sort_unstable_by_key(SegmentBook::id);
    checksummed(out, |sink| {
        sink.put(&encode_sketches(&books, k)?)?;
        segment_books::encode(books, sink)
    })
}

/// Gives `body` a sink into `out` that counts and checksums what passes,
/// then appends the checksum; returns the bytes written, checksum included.
pub(super) fn checksummed(
    out: &mut dyn Sink,
    body: impl FnOnce(&mut dyn Sink) -> Result<()>,
) -> Result<u64> {
    let mut sink = Checksummed {
        out,
        hash: xxhash_rust::xxh3::Xxh3Default::new(),
        len: 0,
    };
    body(&mut sink)?;
    let sum = sink.hash.digest();
    sink.put(&sum.to_le_bytes())?;
    Ok(sink.len)
}

/// The bytes of the header, the sketches and the key tables.
fn encode_sketches(books: &[SegmentBook], k: usize) -> Result<Vec<u8>> {
    if books.len() > u32::MAX as usize {
        return Err(key_tables::too_many_keys());
    }
    let mut out = Vec::new();
    FileHeader::new(FileKind::Segment).encode_into(&mut out);
    put_u32(&mut out, books.len() as u32);
    put_u32(&mut out, k as u32);
    for b in books {
        put_u32(&mut out, b.id());
        let simhash = if b.sketched { b.sketch.simhash.0 } else { 0 };
        out.extend_from_slice(&simhash.to_le_bytes());
        for i in 0..k {
            let value = match b.sketched {
                true => b.sketch.minhash.0.get(i).copied().unwrap_or(u64::MAX),
                false => u64::MAX,
            };
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
    key_tables::encode(books, &mut out)?;
    Ok(out)
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// Writes `bytes` to a new file at `path` (created exclusively, never
/// through a link) and syncs it and its directory, so that both its
/// contents and its name survive a power loss. A file it created but could
/// not finish is removed (best effort: the next writer removes any file
/// the catalog does not list).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = super::fs::WriteFile::create_new(path)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    if written.is_err() {
        let _ = super::fs::remove_file(path);
    }
    written?;
    super::format::sync_parent_dir(path)
}

/// A listed segment that cannot be read (missing, unreadable, or failing its
/// checks): where, and what is wrong. Exact mode does not need segments, so
/// readers and writers keep working and only approximate mode fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable {
    /// The segment file.
    pub path: PathBuf,
    /// Byte offset of the damage; `None` when the file as a whole is at
    /// fault.
    pub offset: Option<u64>,
    /// What is wrong, without the path.
    pub what: String,
}

impl Unreadable {
    /// The damage `error` reports about the segment at `path`.
    pub fn of(path: &Path, error: &Error) -> Unreadable {
        let (offset, what) = match error {
            Error::Corrupted { offset, what, .. } => (*offset, what.clone()),
            Error::ChecksumMismatch {
                offset,
                expected,
                got,
                ..
            } => (
                Some(*offset),
                format!("checksum mismatch (stored {expected:#018x}, computed {got:#018x})"),
            ),
            Error::Io { source, .. } => (None, format!("cannot be read: {source}")),
            Error::UnsupportedVersion {
                found,
                oldest,
                newest,
                ..
            } => (
                None,
                format!("format version {found} is not supported (this build reads {oldest}..={newest})"),
            ),
            other => (None, other.to_string()),
        };
        Unreadable {
            path: path.to_path_buf(),
            offset,
            what,
        }
    }

    /// A `Corrupted` error naming the segment, with `advice` after the damage.
    pub fn error(&self, advice: &str) -> Error {
        let what = format!("{}; {advice}", self.what);
        match self.offset {
            Some(offset) => Error::corrupted_at(&self.path, offset, what),
            None => Error::corrupted(&self.path, what),
        }
    }
}

/// Whether segments whose headers carry versions `a` and `b` have one
/// layout: three key tables up to version 2, four from version 3 on, book
/// sections from version 7 on, compact ones from version 10 on. (A
/// segment from version 12 on also stores passages, which one of versions
/// 10 and 11 reads as none.)
pub fn same_layout(a: FormatVersion, b: FormatVersion) -> bool {
    a.has_value_table() == b.has_value_table()
        && a.has_segment_books() == b.has_segment_books()
        && a.has_compact_postings() == b.has_compact_postings()
}

/// A segment whose layout was checked: every section lies inside its bytes
/// ([`Segment::open`]); [`Segment::check`] checks the rest. A clone shares
/// the bytes.
#[derive(Debug, Clone)]
pub struct Segment {
    path: PathBuf,
    pub(super) bytes: Arc<MappedBytes>,
    book_count: usize,
    k: usize,
    /// The format version in its header.
    version: FormatVersion,
    books_at: usize,
    keys: KeyTables,
    /// The book sections (from version 7).
    pub(super) book_spans: Option<BookSpans>,
    /// The book sections with the passages' unit set in place of the
    /// parts' (from version 12; every book without passages in a segment
    /// of version 10 or 11).
    passage_spans: Option<BookSpans>,
    /// Whether the passages' unit set is stored (version 12 on).
    stores_passages: bool,
}

/// Segments shorter than this are read into memory rather than mapped.
const MAP_AT_LEAST: u64 = 64 * 1024;

// Every offset the lookups below read was checked by `Segment::layout`
// (counts, ends and spans against the segment's length) before a
// `Segment` exists; values read through those offsets are clamped where
// they index further.
#[allow(clippy::indexing_slicing)]
impl Segment {
    /// Bytes of its larger posting-list section (the books' or the
    /// passages'): what it adds to the lists of a segment merged from it,
    /// which 32-bit ends address.
    pub fn list_section_bytes(&self) -> u64 {
        [self.book_spans, self.passage_spans]
            .iter()
            .flatten()
            .map(|spans| spans.lists_len as u64)
            .max()
            .unwrap_or(0)
    }

    /// Opens the segment at `path` for reading in place: maps it (or reads
    /// it, when small) and checks its layout, not its checksum or orders,
    /// so that opening costs the same whatever its size.
    pub fn open(path: &Path) -> Result<Segment> {
        let bytes = MappedBytes::open(path, MAP_AT_LEAST)?;
        Segment::layout(Arc::new(bytes), path)
    }

    /// A segment over `bytes` built in memory by [`encode`], named `path` in
    /// errors; its layout is checked.
    pub fn in_memory(bytes: Vec<u8>, path: &Path) -> Result<Segment> {
        Segment::layout(Arc::new(MappedBytes::Owned(bytes)), path)
    }

    /// Opens the segment at `path` and checks it whole ([`Self::check`]).
    pub fn open_checked(path: &Path) -> Result<Segment> {
        let segment = Segment::open(path)?;
        segment.check()?;
        Ok(segment)
    }

    /// Checks `bytes` as a segment read from `path`: layout, checksum,
    /// then every order, so later lookups give the stored answers.
    pub fn decode(bytes: Vec<u8>, path: &Path) -> Result<Segment> {
        let segment = Segment::layout(Arc::new(MappedBytes::Owned(bytes)), path)?;
        segment.check()?;
        Ok(segment)
    }

    /// Checks the checksum, then the orders and bounds of every section.
    pub fn check(&self) -> Result<()> {
        checked_body(&self.bytes, &self.path, 0)?;
        if !strictly_increasing(self.book_ids()) {
            return Err(Error::corrupted(self.path.clone(), "book ids out of order"));
        }
        self.keys.check(&self.bytes, &self.path)?;
        self.check_books()
    }

    /// Checks the header and that every section lies inside the bytes.
    fn layout(bytes: Arc<MappedBytes>, path: &Path) -> Result<Segment> {
        let header = FileHeader::decode_from(&bytes, FileKind::Segment, path)?;
        if bytes.len() < HEADER_LEN + 8 + CHECKSUM_LEN {
            return Err(Error::corrupted(
                path,
                format!(
                    "segment of {} bytes is shorter than its fixed fields",
                    bytes.len()
                ),
            ));
        }
        let body_end = bytes.len() - CHECKSUM_LEN;
        let mut cursor = Cursor::at(&bytes[..body_end], path, 0);
        cursor.skip(HEADER_LEN, 1, "header bytes")?;
        let book_count = cursor.u32()? as usize;
        let k = cursor.u32()? as usize;
        if !(1..=MAX_HASHES).contains(&k) {
            return Err(cursor.error_at(cursor.position() - 4, format!("{k} min-hashes per book")));
        }
        let books_at = cursor.skip(book_count, 20 + 8 * k, "book sketches")?;
        let ids = BookIds {
            at: books_at,
            stride: 20 + 8 * k,
            count: book_count,
        };
        let keys = KeyTables::decode(&mut cursor, &bytes, header.version, ids)?;
        let stores_passages = header.version.has_passages();
        let (book_spans, passage_spans) = if header.version.has_compact_postings() {
            let packed_ends = header.version.has_keys_once();
            let spans = BookSpans::decode(&mut cursor, &bytes, book_count, packed_ends)?;
            let passages = match stores_passages {
                true => spans.with_units_at(&mut cursor, &bytes, book_count, packed_ends)?,
                false => spans.without_units(),
            };
            (Some(spans), Some(passages))
        } else {
            if header.version.has_segment_books() {
                BookSpans::skip_version_7(&mut cursor, &bytes, book_count)?;
            }
            (None, None)
        };
        if cursor.remaining() != 0 {
            return Err(cursor.error("bytes after the last section"));
        }
        let segment = Segment {
            path: path.to_path_buf(),
            bytes,
            book_count,
            k,
            version: header.version,
            books_at,
            keys,
            book_spans,
            passage_spans,
            stores_passages,
        };
        Ok(segment)
    }

    /// The same segment seen through its passages: every accessor of the
    /// book sections reads the passages' unit set in place of the parts'
    /// (so a book's "parts" are its passages), sharing the bytes. `None`
    /// for a segment without book sections.
    pub fn passage_view(&self) -> Option<Segment> {
        Some(Segment {
            book_spans: Some(self.passage_spans?),
            passage_spans: None,
            stores_passages: false,
            ..self.clone()
        })
    }

    /// Whether the segment stores a passages' unit set (version 12 on; its
    /// books may still have none).
    pub fn stores_passages(&self) -> bool {
        self.stores_passages
    }

    /// The file this segment was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Books sketched in the segment.
    pub fn book_count(&self) -> usize {
        self.book_count
    }

    /// Min-hashes per book signature.
    pub fn hashes_per_book(&self) -> usize {
        self.k
    }

    /// The format version the segment was written with.
    pub fn version(&self) -> FormatVersion {
        self.version
    }

    fn book_stride(&self) -> usize {
        20 + 8 * self.k
    }

    /// The id of the book at `position` (0 past the end).
    pub fn book_id(&self, position: usize) -> u32 {
        match position < self.book_count {
            true => {
                LittleEndian::read_u32(&self.bytes[self.books_at + position * self.book_stride()..])
            }
            false => 0,
        }
    }

    /// The position of the book with id `id`, if the segment holds it: ids
    /// run nearly consecutive, so interpolation finds it at once.
    pub fn position_of_id(&self, id: u32) -> Option<usize> {
        super::sorted::search(self.book_count, id.into(), |i| self.book_id(i).into()).ok()
    }

    /// The simhash of the book at `position` (0 past the end).
    pub fn simhash(&self, position: usize) -> SimHash128 {
        match position < self.book_count {
            true => SimHash128(LittleEndian::read_u128(
                &self.bytes[self.books_at + position * self.book_stride() + 4..],
            )),
            false => SimHash128::default(),
        }
    }

    /// The book min-hash signature of the book at `position` (as stored;
    /// a book without a sketch has every value `u64::MAX`).
    pub fn minhash(&self, position: usize) -> MinHashSig {
        let mut values = vec![0u64; self.k];
        if position < self.book_count {
            let at = self.books_at + position * self.book_stride();
            LittleEndian::read_u64_into(&self.bytes[at + 20..at + self.book_stride()], &mut values);
        }
        MinHashSig(values)
    }

    /// The sketch and keys of the book at `position` (as stored; a book
    /// without a sketch has every value `u64::MAX`).
    pub fn sketch_record(&self, position: usize) -> SketchRecord {
        SketchRecord {
            book_id: self.book_id(position),
            simhash: self.simhash(position),
            minhash: self.minhash(position),
            keys: Table::ALL.map(|t| self.book_keys(position, t).collect()),
        }
    }

    /// Every book's id, in id order.
    pub fn book_ids(&self) -> impl Iterator<Item = u32> + '_ {
        let stride = self.book_stride();
        (0..self.book_count)
            .map(move |i| LittleEndian::read_u32(&self.bytes[self.books_at + i * stride..]))
    }

    /// Every book's id, simhash and min-hash signature, in id order.
    pub fn books(&self) -> impl Iterator<Item = (u32, SimHash128, MinHashSig)> + '_ {
        let stride = self.book_stride();
        (0..self.book_count).map(move |i| {
            let at = self.books_at + i * stride;
            let id = LittleEndian::read_u32(&self.bytes[at..]);
            let simhash = SimHash128(LittleEndian::read_u128(&self.bytes[at + 4..]));
            let mut values = vec![0u64; self.k];
            LittleEndian::read_u64_into(&self.bytes[at + 20..at + stride], &mut values);
            (id, simhash, MinHashSig(values))
        })
    }

    /// The band keys of `table` of the book at position `slot` of
    /// [`Segment::books`], sorted; empty for a table the segment lacks.
    pub fn book_keys(&self, slot: usize, table: Table) -> impl Iterator<Item = u64> + '_ {
        self.keys.book_keys(&self.bytes, slot, table)
    }

    /// The stored sketch of the book at `position`: its id, simhash and
    /// min-hashes as [`Segment::books`] reads them (empty past the end).
    pub(super) fn sketch_bytes(&self, position: usize) -> &[u8] {
        let at = self.books_at + position * self.book_stride();
        match position < self.book_count {
            true => &self.bytes[at..at + self.book_stride()],
            false => &[],
        }
    }

    /// How many keys of `table` the book at `position` has.
    pub(super) fn book_key_count(&self, position: usize, table: Table) -> usize {
        self.keys.book_key_count(&self.bytes, position, table)
    }

    /// Entries of `table`: its (key, book) pairs.
    pub(super) fn table_entries(&self, table: Table) -> usize {
        self.keys.entry_count(table)
    }

    /// Entry `i` of `table` in key order, ties in book order (see
    /// [`KeyTables::ordered_entry`]).
    pub(super) fn ordered_entry(&self, table: Table, i: usize) -> Option<OrderedEntry> {
        self.keys.ordered_entry(&self.bytes, table, i)
    }

    /// Distinct keys and entries of `table`.
    pub fn table_len(&self, table: Table) -> (usize, usize) {
        self.keys.table_len(&self.bytes, table)
    }

    /// The band keys of `table` of the book at position `slot`, each with
    /// the books under it as [`Segment::lookup`] gives them, in key order,
    /// read from where the book's keys lie in the table, with no search;
    /// `None` for a segment whose layout does not say (before format 14).
    pub fn book_key_postings(
        &self,
        slot: usize,
        table: Table,
    ) -> Option<impl Iterator<Item = (u64, Postings<'_>)> + '_> {
        self.keys.book_key_postings(&self.bytes, slot, table)
    }

    /// The books under `key` in `table` (sorted), empty when absent: found
    /// by interpolation over the uniformly spread keys (`super::sorted`).
    pub fn lookup(&self, table: Table, key: u64) -> Postings<'_> {
        self.keys.lookup(&self.bytes, table, key)
    }

    /// Every `(key, books)` of `table`, in key order.
    pub fn entries(&self, table: Table) -> impl Iterator<Item = (u64, Postings<'_>)> + '_ {
        self.keys.entries(&self.bytes, table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::format::checksum;
    use crate::storage::segment_merge::{merge, Fate};

    fn record(id: u32, keys: [&[u64]; 4]) -> SketchRecord {
        SketchRecord {
            book_id: id,
            simhash: SimHash128(u128::from(id) << 64 | 7),
            minhash: MinHashSig(vec![u64::from(id); 4]),
            keys: keys.map(|k| k.to_vec()),
        }
    }

    fn sample() -> Vec<SegmentBook> {
        books(vec![
            record(9, [&[1, 5], &[2], &[], &[70]]),
            record(3, [&[5, 8], &[], &[4], &[70, 71]]),
            record(4, [&[5], &[2, 3], &[4], &[]]),
        ])
    }

    fn books(records: Vec<SketchRecord>) -> Vec<SegmentBook> {
        records
            .into_iter()
            .map(|sketch| SegmentBook {
                entry: crate::storage::catalog::BookEntry {
                    key: format!("k{}", sketch.book_id),
                    unique_words: 2,
                    ..Default::default()
                },
                parts: vec![vec![sketch.book_id, 1000]],
                passages: Vec::new(),
                sketch,
                sketched: true,
                pages: None,
            })
            .collect()
    }

    fn decoded(bytes: Vec<u8>) -> Segment {
        Segment::decode(bytes, Path::new("seg")).unwrap()
    }

    #[test]
    fn round_trip_and_lookups() {
        let segment = decoded(encode(sample(), 4).unwrap());
        let ids: Vec<u32> = segment.books().map(|(id, _, _)| id).collect();
        assert_eq!(ids, [3, 4, 9]);
        let (_, simhash, minhash) = segment.books().nth(1).unwrap();
        assert_eq!(simhash, SimHash128(4u128 << 64 | 7));
        assert_eq!(minhash, MinHashSig(vec![4; 4]));
        let look = |t, key| segment.lookup(t, key).collect::<Vec<u32>>();
        assert_eq!(look(Table::Book, 5), [3, 4, 9]);
        assert_eq!(look(Table::Book, 8), [3]);
        assert_eq!(look(Table::Book, 6), Vec::<u32>::new());
        assert_eq!(look(Table::Window, 2), [4, 9]);
        assert_eq!(look(Table::SimHash, 4), [3, 4]);
        assert_eq!(look(Table::Value, 70), [3, 9]);
        assert_eq!(segment.version(), FormatVersion::CURRENT);
        assert_eq!(segment.table_len(Table::Book), (3, 5));
        let keys = |slot, t| segment.book_keys(slot, t).collect::<Vec<u64>>();
        assert_eq!(keys(1, Table::Window), [2, 3]);
        assert_eq!(keys(2, Table::Book), [1, 5]);
        assert_eq!(keys(0, Table::Window), Vec::<u64>::new());
        assert_eq!(keys(9, Table::Book), Vec::<u64>::new());
    }

    #[test]
    fn keys_of_one_book_or_of_hundreds_list_exactly_their_books() {
        // Key 1000 in every book, runs of 1 to 40 books, and keys of one
        // book: a lookup and the table's entries list exactly the books
        // that hold each key, in id order.
        let n: u32 = 300;
        let keys_of = |id: u32| -> Vec<u64> {
            let mut keys = vec![1000, 2000 + u64::from(id % 41) * 7, 5000 + u64::from(id)];
            if id.is_multiple_of(3) {
                keys.push(9000 + u64::from(id / 37));
            }
            keys.sort_unstable();
            keys
        };
        let records = (0..n)
            .map(|id| {
                let keys = keys_of(id);
                record(id * 2 + 1, [&keys, &[], &[], &[]])
            })
            .collect();
        let segment = decoded(encode(books(records), 4).unwrap());
        let mut expected = std::collections::BTreeMap::<u64, Vec<u32>>::new();
        for id in 0..n {
            for key in keys_of(id) {
                expected.entry(key).or_default().push(id * 2 + 1);
            }
        }
        for (key, ids) in &expected {
            let found: Vec<u32> = segment.lookup(Table::Book, *key).collect();
            assert_eq!(&found, ids, "key {key}");
        }
        let entries: Vec<(u64, Vec<u32>)> = segment
            .keys
            .entries(&segment.bytes, Table::Book)
            .map(|(key, books)| (key, books.collect()))
            .collect();
        assert_eq!(entries, expected.into_iter().collect::<Vec<_>>());
        assert_eq!(segment.lookup(Table::Book, 1001).count(), 0);
        // A book's own keys, read from where they lie, list what a lookup
        // of each lists, in the book's key order.
        for position in 0..n as usize {
            let own: Vec<(u64, Vec<u32>)> = (segment.book_key_postings(position, Table::Book))
                .expect("a layout with places")
                .map(|(key, books)| (key, books.collect()))
                .collect();
            let looked_up: Vec<(u64, Vec<u32>)> = (segment.book_keys(position, Table::Book))
                .map(|key| (key, segment.lookup(Table::Book, key).collect()))
                .collect();
            assert_eq!(own, looked_up, "book {position}");
            assert_eq!(own.len(), keys_of(position as u32).len());
        }
    }

    #[test]
    fn merge_drops_dead_books_and_empty_keys() {
        let a = decoded(encode(sample(), 4).unwrap());
        let b = decoded(encode(books(vec![record(12, [&[8, 99], &[], &[], &[]])]), 4).unwrap());
        let merged = decoded(merge(&[&a, &b], |id| Fate::keep_if(id != 3)).unwrap());
        let ids: Vec<u32> = merged.books().map(|(id, _, _)| id).collect();
        assert_eq!(ids, [4, 9, 12]);
        assert_eq!(merged.lookup(Table::Book, 8).collect::<Vec<_>>(), [12]);
        assert_eq!(merged.lookup(Table::Book, 5).collect::<Vec<_>>(), [4, 9]);
        assert_eq!(merged.table_len(Table::SimHash), (1, 1));
        assert_eq!(
            merged.book_keys(2, Table::Book).collect::<Vec<_>>(),
            [8, 99]
        );
        assert_eq!(merged.lookup(Table::Value, 71).count(), 0);
        assert_eq!(merged.lookup(Table::Value, 70).collect::<Vec<_>>(), [9]);
    }

    #[test]
    fn every_damaged_byte_is_reported_not_panicked() {
        let bytes = encode(sample(), 4).unwrap();
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x20;
            assert!(
                Segment::decode(damaged, Path::new("seg")).is_err(),
                "byte {i}"
            );
        }
        for len in 0..bytes.len() {
            assert!(Segment::decode(bytes[..len].to_vec(), Path::new("seg")).is_err());
        }
    }

    #[test]
    fn out_of_order_content_with_a_valid_checksum_is_refused() {
        let mut bytes = encode(sample(), 4).unwrap();
        let body_end = bytes.len() - CHECKSUM_LEN;
        // Swap the first two book ids (3 and 4) and re-checksum.
        let first = HEADER_LEN + 8;
        let second = first + 20 + 8 * 4;
        bytes[first] = 4;
        bytes[second] = 3;
        let sum = checksum(&bytes[..body_end]);
        bytes[body_end..].copy_from_slice(&sum.to_le_bytes());
        let error = Segment::decode(bytes, Path::new("seg")).unwrap_err();
        assert!(error.to_string().contains("out of order"), "{error}");
    }
}
