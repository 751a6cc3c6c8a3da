//! Barrels: append-only files of word positions, one record per part of a
//! book.
//!
//! A book is one record, or (from format 6) one record per part written
//! one after another, which its catalog entry spans together
//! ([`decode_records`]).
//!
//! A record is a 24-byte header (stored length, raw length, book id, element
//! count, XXH3-64 checksum of the header's first 16 bytes and the frame)
//! followed by a zstd frame of the part's position deltas: the word
//! positions of its unique-word sequence, whose elements (the words) the
//! segments hold ([`super::segment_books`]). From format 13 the deltas are
//! variable-length integers (most take a byte; the raw length's top bit
//! says so), before as `u32`s. Records written before format 11 hold the
//! element hashes too, before the deltas; they are still read (an upgrade
//! from formats 3 to 9 builds segments from them). A barrel is
//! an append-only file ([`super::append`]): a record counts only once a
//! catalog commit records a barrel length covering it.

use byteorder::{ByteOrder, LittleEndian};
use std::fs::File;

use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

use super::append::{self, AppendWriter};
use super::codec::{decompress_claimed, put_u32, put_u64, Cursor, Decode, Encode};
use super::format::{FileKind, FormatVersion, HEADER_LEN};
use super::mapped::MappedBytes;
use crate::error::{Error, Result};

/// Size of a record header.
pub const RECORD_HEADER_LEN: usize = 24;
/// Largest element count a record may hold (2^26): bounds every allocation.
pub const MAX_RECORD_ELEMENTS: u32 = 1 << 26;
/// zstd level for records.
const ZSTD_LEVEL: i32 = 3;
/// The raw length's top bit: the payload is the deltas as variable-length
/// integers (format 13 on). Without it, `u32`s.
pub const VARINT_DELTAS: u32 = 1 << 31;

/// A part's word positions compressed for storage, not yet placed in a
/// barrel.
#[derive(Debug, Clone)]
pub struct EncodedSequence {
    frame: Vec<u8>,
    elements: u32,
    /// The header's raw length: [`VARINT_DELTAS`] with the payload's
    /// bytes, or (a record of an older layout) 4 or 8 bytes an element.
    raw_len: u32,
}

impl EncodedSequence {
    /// Compresses the increasing word `positions` of a part's unique-word
    /// sequence as variable-length deltas. An error only when zstd fails
    /// (out of memory).
    pub fn encode(positions: &[u32]) -> Result<Self> {
        let mut raw = Vec::with_capacity(2 * positions.len());
        let mut previous = 0;
        for &position in positions {
            super::packed::put_varint(&mut raw, u64::from(position.wrapping_sub(previous)));
            previous = position;
        }
        // At most 5 bytes an element, and at most 2^26 elements: the length
        // fits below the flag.
        let raw_len = VARINT_DELTAS | raw.len() as u32;
        Self::compress(&raw, positions.len(), raw_len)
    }

    /// A record of the layout before format 11 (the hashes, then the
    /// position deltas), for tests of the readers that still read it.
    #[cfg(test)]
    pub fn encode_with_hashes(sequence: &crate::repr::UniqueWordSeq) -> Result<Self> {
        let n = sequence.len();
        let mut raw = vec![0u8; 8 * n];
        let (hashes, deltas) = raw.split_at_mut(4 * n);
        LittleEndian::write_u32_into(&sequence.hashes, hashes);
        write_deltas(&sequence.positions, deltas);
        Self::compress(&raw, n, 8 * n as u32)
    }

    /// A record of the layout of formats 11 and 12 (`u32` deltas), for
    /// tests of the readers that still read it.
    #[cfg(test)]
    pub fn encode_fixed(positions: &[u32]) -> Result<Self> {
        let mut raw = vec![0u8; 4 * positions.len()];
        write_deltas(positions, &mut raw);
        Self::compress(&raw, positions.len(), raw.len() as u32)
    }

    fn compress(raw: &[u8], elements: usize, raw_len: u32) -> Result<Self> {
        let frame = zstd::bulk::compress(raw, ZSTD_LEVEL).map_err(|e| {
            Error::InvalidArgument(format!(
                "zstd could not compress a sequence of {elements} elements: {e}"
            ))
        })?;
        Ok(EncodedSequence {
            frame,
            elements: elements as u32,
            raw_len,
        })
    }

    /// Bytes this sequence takes in a barrel, header included.
    pub fn record_len(&self) -> u64 {
        (RECORD_HEADER_LEN + self.frame.len()) as u64
    }

    /// Appends the full record for `book_id` to `out`.
    pub fn encode_into(&self, book_id: u32, out: &mut Vec<u8>) {
        let mut header = RecordHeader {
            stored_len: self.frame.len() as u32,
            raw_len: self.raw_len,
            book_id,
            elements: self.elements,
            checksum: 0,
        };
        header.checksum = header.checksum_with(&self.frame);
        header.encode_into(out);
        out.extend_from_slice(&self.frame);
    }
}

/// The 24-byte header of a barrel record: u32 stored (frame) length, u32
/// raw length, u32 book id, u32 element count, u64 XXH3-64 of the first 16
/// header bytes and the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    /// Bytes of the zstd frame after the header.
    pub stored_len: u32,
    /// Bytes of the frame once decompressed.
    pub raw_len: u32,
    /// The book the record belongs to.
    pub book_id: u32,
    /// Elements of the sequence.
    pub elements: u32,
    /// The stored checksum.
    pub checksum: u64,
}

impl RecordHeader {
    /// The checksum of this header's first 16 bytes followed by `frame`.
    pub fn checksum_with(&self, frame: &[u8]) -> u64 {
        let mut head = Vec::with_capacity(16);
        for field in [self.stored_len, self.raw_len, self.book_id, self.elements] {
            put_u32(&mut head, field);
        }
        record_checksum(&head, frame)
    }
}

impl Encode for RecordHeader {
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u32(out, self.stored_len);
        put_u32(out, self.raw_len);
        put_u32(out, self.book_id);
        put_u32(out, self.elements);
        put_u64(out, self.checksum);
    }
}

impl Decode for RecordHeader {
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        Ok(RecordHeader {
            stored_len: c.u32()?,
            raw_len: c.u32()?,
            book_id: c.u32()?,
            elements: c.u32()?,
            checksum: c.u64()?,
        })
    }
}

/// Writes the differences of consecutive `positions` (the first from 0) to
/// `out` as u32 LE: the layouts before format 13, which tests write.
#[cfg(test)]
fn write_deltas(positions: &[u32], out: &mut [u8]) {
    let mut previous = 0;
    for (slot, &position) in out.chunks_exact_mut(4).zip(positions) {
        LittleEndian::write_u32(slot, position.wrapping_sub(previous));
        previous = position;
    }
}

fn record_checksum(header: &[u8], frame: &[u8]) -> u64 {
    let mut hasher = Xxh3::new();
    hasher.update(header);
    hasher.update(frame);
    hasher.digest()
}

/// A decoded record: one part of a book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The book the record belongs to.
    pub book_id: u32,
    /// The word positions of the part's unique-word sequence, increasing.
    pub positions: Vec<u32>,
    /// The sequence's element hashes, held by records written before
    /// format 11 only (the segments hold them from format 7 on).
    pub hashes: Option<Vec<u32>>,
    /// Bytes the record takes, header included.
    pub len: u64,
}

impl Record {
    /// Elements of the part's sequence.
    pub fn elements(&self) -> usize {
        self.positions.len()
    }
}

/// Decodes the record at the start of `bytes`, found at byte `offset` of
/// `path`. Checks lengths before allocating, then the checksum, then the
/// payload. Never panics on bad bytes.
pub fn decode_record(bytes: &[u8], offset: u64, path: &Path) -> Result<Record> {
    let corrupted = |what: String| Error::corrupted_at(path.to_path_buf(), offset, what);
    if bytes.len() < RECORD_HEADER_LEN {
        return Err(corrupted("record header cut short".into()));
    }
    let mut cursor = Cursor::at(bytes, path, offset);
    let header = RecordHeader::decode(&mut cursor)?;
    let (stored_len, raw_len) = (header.stored_len as usize, header.raw_len);
    let (book_id, elements, stored_sum) = (header.book_id, header.elements, header.checksum);
    let frame = cursor
        .take(stored_len)
        .map_err(|_| corrupted(format!("record of {stored_len} bytes runs past the end")))?;
    let sum = header.checksum_with(frame);
    if sum != stored_sum {
        return Err(Error::ChecksumMismatch {
            path: path.to_path_buf(),
            offset,
            expected: stored_sum,
            got: sum,
        });
    }
    let payload = Payload::of(raw_len, elements).ok_or_else(|| {
        corrupted(format!(
            "record claims {elements} elements in {} raw bytes{}",
            raw_len & !VARINT_DELTAS,
            match raw_len & VARINT_DELTAS {
                0 => "",
                _ => " of variable-length deltas",
            }
        ))
    })?;
    let with_hashes = payload == Payload::HashesThenU32s;
    let raw_len = raw_len & !VARINT_DELTAS;
    // A frame of distinct 32-bit hashes cannot shrink 64-fold: refuse larger
    // claims at once. Position deltas alone may shrink much further (a run
    // of consecutive positions), so their buffer grows with what the frame
    // yields, never with the claim alone (`decompress_claimed`).
    if with_hashes && raw_len as u64 > 64 * stored_len as u64 + 64 {
        return Err(corrupted(format!(
            "raw length {raw_len} impossible for a {stored_len}-byte frame"
        )));
    }
    let raw = decompress_claimed(frame, raw_len as usize)
        .map_err(|e| corrupted(format!("zstd frame does not decode: {e}")))?;
    if raw.len() != raw_len as usize {
        return Err(corrupted(format!(
            "frame decodes to {} bytes, header says {raw_len}",
            raw.len()
        )));
    }
    let n = elements as usize;
    let (hashes, deltas) = raw.split_at(if with_hashes { 4 * n } else { 0 });
    let positions = match payload {
        Payload::Varints => decode_varint_positions(deltas, n),
        _ => decode_positions(deltas),
    };
    let positions = positions.ok_or_else(|| {
        corrupted("positions do not increase, or their deltas do not fill the payload".into())
    })?;
    let hashes = with_hashes.then(|| {
        let mut out = vec![0u32; n];
        LittleEndian::read_u32_into(hashes, &mut out);
        out
    });
    Ok(Record {
        book_id,
        positions,
        hashes,
        len: (RECORD_HEADER_LEN + stored_len) as u64,
    })
}

/// Decodes the records that exactly fill `bytes`, found at byte `offset` of
/// `path`: a book's parts, one record each, in order.
pub fn decode_records(bytes: &[u8], offset: u64, path: &Path) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    let mut at = 0usize;
    while let Some(rest) = bytes.get(at..).filter(|rest| !rest.is_empty()) {
        let record = decode_record(rest, offset + at as u64, path)?;
        at += record.len as usize;
        records.push(record);
    }
    if records.is_empty() {
        return Err(Error::corrupted_at(
            path.to_path_buf(),
            offset,
            "a book's records take no bytes",
        ));
    }
    Ok(records)
}

/// What a record's payload holds, from its header's raw length and element
/// count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Payload {
    /// Variable-length deltas (format 13 on): 1 to 5 bytes an element.
    Varints,
    /// `u32` deltas (formats 11 and 12): 4 bytes an element.
    U32s,
    /// The hashes, then `u32` deltas (before format 11): 8 bytes an
    /// element, at least one element.
    HashesThenU32s,
}

impl Payload {
    /// The payload a header claims, `None` when its raw length fits no
    /// layout or its element count passes [`MAX_RECORD_ELEMENTS`].
    fn of(raw_len: u32, elements: u32) -> Option<Payload> {
        if elements > MAX_RECORD_ELEMENTS {
            return None;
        }
        let (n, bytes) = (u64::from(elements), u64::from(raw_len & !VARINT_DELTAS));
        if raw_len & VARINT_DELTAS != 0 {
            return (n..=5 * n).contains(&bytes).then_some(Payload::Varints);
        }
        match bytes {
            _ if bytes == 4 * n => Some(Payload::U32s),
            _ if bytes == 8 * n && n > 0 => Some(Payload::HashesThenU32s),
            _ => None,
        }
    }
}

/// The `n` positions whose variable-length deltas fill `bytes` exactly:
/// `None` unless each delta takes no more bytes than it needs, and the
/// positions strictly increase without overflowing a u32.
fn decode_varint_positions(bytes: &[u8], n: usize) -> Option<Vec<u32>> {
    let mut positions = Vec::with_capacity(n);
    let (mut at, mut position) = (0usize, 0u32);
    for i in 0..n {
        let start = at;
        let delta = super::packed::read_varint32(bytes, &mut at)?;
        if (at - start > 1 && bytes.get(at - 1) == Some(&0)) || (i > 0 && delta == 0) {
            return None;
        }
        position = position.checked_add(delta)?;
        positions.push(position);
    }
    (at == bytes.len()).then_some(positions)
}

/// The positions whose u32 LE deltas are `bytes`: `None` unless they
/// strictly increase without overflowing a u32.
fn decode_positions(bytes: &[u8]) -> Option<Vec<u32>> {
    let mut positions = Vec::with_capacity(bytes.len() / 4);
    let mut position: u32 = 0;
    for (i, delta) in bytes.chunks_exact(4).enumerate() {
        let delta = LittleEndian::read_u32(delta);
        if i > 0 && delta == 0 {
            return None;
        }
        position = position.checked_add(delta)?;
        positions.push(position);
    }
    Some(positions)
}

/// One barrel opened for reading single records on demand: for readers
/// that keep only part of each record in memory and fetch the rest later.
/// Committed records are never rewritten, and the open file stays readable
/// after the barrel is removed, so its records can be read at any time.
#[derive(Debug)]
pub struct BarrelFile {
    path: PathBuf,
    file: File,
    committed_len: u64,
}

impl BarrelFile {
    /// Opens the barrel at `path`, checking its header and that it holds
    /// its `committed_len` bytes.
    pub fn open(path: &Path, committed_len: u64) -> Result<Self> {
        let file = append::open_checked(path, FileKind::Barrel, committed_len)?;
        Ok(BarrelFile {
            path: path.to_path_buf(),
            file,
            committed_len,
        })
    }

    /// The barrel's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads and decodes the records (a book's parts) that fill the `len`
    /// bytes at `offset`, without reading the rest of the file.
    pub fn read_records(&mut self, offset: u64, len: u32) -> Result<Vec<Record>> {
        let bytes =
            append::read_committed(&mut self.file, &self.path, self.committed_len, offset, len)?;
        decode_records(&bytes, offset, &self.path)
    }
}

/// Checks a committed barrel the way opening an index does: its length and
/// its header, nothing more.
pub fn check(path: &Path, committed_len: u64) -> Result<()> {
    append::check(path, FileKind::Barrel, committed_len)
}

/// Appends records to one barrel file.
#[derive(Debug)]
pub struct BarrelWriter(AppendWriter);

impl BarrelWriter {
    /// Starts a new barrel at `path`, replacing any uncommitted file or link
    /// there (a link is removed, never followed).
    pub fn create(path: &Path) -> Result<Self> {
        AppendWriter::create(path, FileKind::Barrel).map(BarrelWriter)
    }

    /// Reopens a barrel for appending after its last committed record,
    /// cutting off any torn tail beyond `committed_len`.
    pub fn append_to(path: &Path, committed_len: u64) -> Result<Self> {
        AppendWriter::append_to(path, FileKind::Barrel, committed_len).map(BarrelWriter)
    }

    /// Appends a record for `book_id`; returns its offset. Buffered until [`sync`](Self::sync).
    pub fn append(&mut self, book_id: u32, sequence: &EncodedSequence) -> u64 {
        self.0.append(|out| sequence.encode_into(book_id, out)).0
    }

    /// Length the barrel will have once synced.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// True when only the header is written.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Writes buffered records and syncs them to disk; returns the length to commit.
    pub fn sync(&mut self) -> Result<u64> {
        self.0.sync()
    }
}

/// Reads records from the committed prefix of one barrel, mapped: a
/// barrel is appended to past that prefix, never changed within it.
#[derive(Debug)]
pub struct BarrelReader {
    path: PathBuf,
    file: MappedBytes,
    committed: usize,
    /// The format version of the writer that created the barrel.
    created_by: FormatVersion,
}

/// Barrels smaller than this are read, larger ones mapped.
const MAP_AT_LEAST: u64 = 64 * 1024;

impl BarrelReader {
    /// Opens the first `committed_len` bytes of the barrel at `path` and
    /// checks its header.
    pub fn open(path: &Path, committed_len: u64) -> Result<Self> {
        let (file, header) = append::open_with_header(path, FileKind::Barrel, committed_len)?;
        drop(file);
        let file = MappedBytes::open(path, MAP_AT_LEAST)?;
        let committed = usize::try_from(committed_len)
            .ok()
            .filter(|&len| len <= file.len())
            .ok_or_else(|| {
                Error::corrupted(
                    path,
                    format!("barrel is shorter than its committed {committed_len} bytes"),
                )
            })?;
        Ok(BarrelReader {
            path: path.to_path_buf(),
            file,
            committed,
            created_by: header.version,
        })
    }

    /// The format version of the writer that created the barrel: one
    /// created before format 11 may hold records with hashes (later loads
    /// append records of positions alone to it).
    pub fn created_by(&self) -> FormatVersion {
        self.created_by
    }

    /// The committed bytes.
    fn bytes(&self) -> &[u8] {
        self.file.get(..self.committed).unwrap_or(&[])
    }

    /// The barrel's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Decodes the record at `offset`.
    pub fn record_at(&self, offset: u64) -> Result<Record> {
        let bytes = usize::try_from(offset)
            .ok()
            .filter(|&start| start >= HEADER_LEN)
            .and_then(|start| self.bytes().get(start..))
            .ok_or_else(|| {
                Error::corrupted_at(
                    self.path.clone(),
                    offset,
                    "record offset outside the committed barrel",
                )
            })?;
        decode_record(bytes, offset, &self.path)
    }

    /// Decodes the records (a book's parts) that fill the `len` bytes at
    /// `offset`.
    pub fn records_in(&self, offset: u64, len: u32) -> Result<Vec<Record>> {
        decode_records(self.record_bytes(offset, len)?, offset, &self.path)
    }

    /// The `len` bytes of the record at `offset`, as stored: for copying a
    /// record (checked with [`record_at`](Self::record_at) first) unchanged
    /// into another barrel. `Corrupted` unless they lie in the committed
    /// prefix after the header.
    pub fn record_bytes(&self, offset: u64, len: u32) -> Result<&[u8]> {
        usize::try_from(offset)
            .ok()
            .filter(|&start| start >= HEADER_LEN)
            .and_then(|start| Some(start..start.checked_add(len as usize)?))
            .and_then(|range| self.bytes().get(range))
            .ok_or_else(|| {
                Error::corrupted_at(
                    &self.path,
                    offset,
                    format!(
                        "a record of {len} bytes at {offset} lies outside the committed barrel"
                    ),
                )
            })
    }

    /// Every record in the committed prefix, in file order, with its offset.
    pub fn records(&self) -> impl Iterator<Item = Result<(u64, Record)>> + '_ {
        let mut offset = HEADER_LEN as u64;
        let end = self.bytes().len() as u64;
        std::iter::from_fn(move || {
            if offset >= end {
                return None;
            }
            let at = offset;
            match self.record_at(at) {
                Ok(record) => {
                    offset += record.len;
                    Some(Ok((at, record)))
                }
                Err(e) => {
                    offset = end;
                    Some(Err(e))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repr::UniqueWordSeq;
    use proptest::prelude::*;

    fn positions(n: u32) -> Vec<u32> {
        (0..n).map(|i| i * 3 + 1).collect()
    }

    fn encode(n: u32) -> EncodedSequence {
        EncodedSequence::encode(&positions(n)).unwrap()
    }

    #[test]
    fn written_records_read_back_and_torn_tail_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.brl");
        let mut writer = BarrelWriter::create(&path).unwrap();
        let first = writer.append(7, &encode(100));
        let committed = writer.sync().unwrap();
        writer.append(8, &encode(50));
        writer.sync().unwrap();
        drop(writer);

        let reader = BarrelReader::open(&path, committed).unwrap();
        let record = reader.record_at(first).unwrap();
        assert_eq!((record.book_id, &record.positions), (7, &positions(100)));
        assert_eq!(record.hashes, None);
        assert_eq!(reader.records().count(), 1);

        let mut writer = BarrelWriter::append_to(&path, committed).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), committed);
        let second = writer.append(9, &encode(5));
        let committed = writer.sync().unwrap();
        let reader = BarrelReader::open(&path, committed).unwrap();
        assert_eq!(reader.record_at(second).unwrap().book_id, 9);
    }

    #[test]
    fn a_stale_file_at_a_new_barrel_path_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.brl");
        std::fs::write(&path, vec![0xAB; 100]).unwrap();
        let mut writer = BarrelWriter::create(&path).unwrap();
        let offset = writer.append(3, &encode(10));
        let committed = writer.sync().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), committed);
        let reader = BarrelReader::open(&path, committed).unwrap();
        assert_eq!(reader.record_at(offset).unwrap().book_id, 3);
    }

    #[test]
    fn one_record_reads_alone_and_a_wrong_place_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.brl");
        let mut writer = BarrelWriter::create(&path).unwrap();
        let (first, second) = (encode(5), encode(9));
        writer.append(1, &first);
        let offset = writer.append(2, &second);
        let committed = writer.sync().unwrap();
        let len = second.record_len() as u32;
        let records = BarrelFile::open(&path, committed)
            .unwrap()
            .read_records(offset, len)
            .unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(
            (records[0].book_id, &records[0].positions),
            (2, &positions(9))
        );
        for (offset, len) in [
            (offset, len - 1),
            (offset, len + 1),
            (offset - 4, len),
            (0, len),
        ] {
            assert!(
                BarrelFile::open(&path, committed)
                    .and_then(|mut file| file.read_records(offset, len))
                    .is_err(),
                "{offset} {len}"
            );
        }
    }

    #[test]
    fn a_book_of_several_parts_reads_back_as_its_records_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.brl");
        let mut writer = BarrelWriter::create(&path).unwrap();
        let parts: Vec<_> = [4, 7, 2].map(encode).into();
        writer.append(1, &encode(3));
        let offset = writer.append(2, &parts[0]);
        for part in &parts[1..] {
            writer.append(2, part);
        }
        let committed = writer.sync().unwrap();
        let len: u64 = parts.iter().map(EncodedSequence::record_len).sum();
        let mut file = BarrelFile::open(&path, committed).unwrap();
        let records = file.read_records(offset, len as u32).unwrap();
        let lengths: Vec<usize> = records.iter().map(Record::elements).collect();
        assert_eq!(lengths, [4, 7, 2]);
        assert!(records.iter().all(|r| r.book_id == 2));
        let reader = BarrelReader::open(&path, committed).unwrap();
        assert_eq!(reader.records_in(offset, len as u32).unwrap(), records);
        // A span that cuts the last part, or takes no bytes, is refused.
        assert!(file.read_records(offset, len as u32 - 1).is_err());
        assert!(reader.records_in(offset, 0).is_err());
    }

    #[test]
    fn a_run_of_consecutive_positions_shrinks_past_the_hash_records_limit() {
        let run: Vec<u32> = (0..100_000).collect();
        let mut bytes = Vec::new();
        EncodedSequence::encode(&run)
            .unwrap()
            .encode_into(4, &mut bytes);
        assert!(bytes.len() * 64 < 4 * run.len(), "{} bytes", bytes.len());
        let record = decode_record(&bytes, 16, Path::new("b")).unwrap();
        assert_eq!(record.positions, run);
    }

    /// `sequence`'s record for book 1 with its element count set to
    /// `elements` and the checksum made again.
    fn with_elements(sequence: &EncodedSequence, elements: u8) -> Vec<u8> {
        let mut bytes = Vec::new();
        sequence.encode_into(1, &mut bytes);
        bytes[12] = elements;
        let mut header = RecordHeader::decode(&mut Cursor::at(&bytes, Path::new("b"), 0)).unwrap();
        header.checksum = header.checksum_with(&bytes[RECORD_HEADER_LEN..]);
        bytes[16..24].copy_from_slice(&header.checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn an_element_count_that_fits_neither_layout_is_refused() {
        // u32 deltas: elements 5 against raw_len 24, neither 4 nor 8 bytes
        // an element.
        let fixed = EncodedSequence::encode_fixed(&positions(6)).unwrap();
        let error = decode_record(&with_elements(&fixed, 5), 16, Path::new("b")).unwrap_err();
        assert!(
            error.to_string().contains("5 elements in 24 raw bytes"),
            "{error}"
        );
        // Variable-length deltas: 6 one-byte deltas cannot hold 7 elements
        // (nor 1, five bytes at most an element).
        let varint = encode(6);
        for elements in [7, 1] {
            let bytes = with_elements(&varint, elements);
            let error = decode_record(&bytes, 16, Path::new("b")).unwrap_err();
            let claim = format!("{elements} elements in 6 raw bytes of variable-length deltas");
            assert!(error.to_string().contains(&claim), "{error}");
        }
        // 5 elements in 6 bytes fits the layout but not the deltas.
        let error = decode_record(&with_elements(&varint, 5), 16, Path::new("b")).unwrap_err();
        assert!(
            error.to_string().contains("do not fill the payload"),
            "{error}"
        );
    }

    #[test]
    fn records_of_u32_deltas_read_as_before() {
        let run = positions(300);
        let mut bytes = Vec::new();
        EncodedSequence::encode_fixed(&run)
            .unwrap()
            .encode_into(2, &mut bytes);
        let record = decode_record(&bytes, 16, Path::new("b")).unwrap();
        assert_eq!((record.book_id, record.positions), (2, run));
    }

    #[test]
    fn flipped_byte_is_a_checksum_mismatch() {
        let mut bytes = Vec::new();
        encode(20).encode_into(1, &mut bytes);
        for at in [8, 12, RECORD_HEADER_LEN + 3] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            assert!(matches!(
                decode_record(&damaged, 16, Path::new("b")),
                Err(Error::ChecksumMismatch { .. })
            ));
        }
        assert!(decode_record(&bytes[..bytes.len() - 1], 16, Path::new("b")).is_err());
    }

    proptest! {
        #[test]
        fn records_round_trip(hashes in prop::collection::hash_set(any::<u32>(), 0..300),
                              gaps in prop::collection::vec(1u32..1000, 300), id in any::<u32>()) {
            let hashes: Vec<u32> = hashes.into_iter().collect();
            let mut position = 0;
            let positions = gaps[..hashes.len()].iter().map(|g| { position += g; position }).collect();
            let seq = UniqueWordSeq { hashes, positions };
            let mut bytes = Vec::new();
            EncodedSequence::encode(&seq.positions).unwrap().encode_into(id, &mut bytes);
            let record = decode_record(&bytes, 16, Path::new("b")).unwrap();
            prop_assert_eq!(record.len as usize, bytes.len());
            prop_assert_eq!((record.book_id, &record.positions, &record.hashes), (id, &seq.positions, &None));
            // A record of the layout before format 11 reads back with its
            // hashes.
            bytes.clear();
            EncodedSequence::encode_with_hashes(&seq).unwrap().encode_into(id, &mut bytes);
            let record = decode_record(&bytes, 16, Path::new("b")).unwrap();
            prop_assert_eq!(record.len as usize, bytes.len());
            let hashes = (!seq.is_empty()).then(|| seq.hashes.clone());
            prop_assert_eq!((record.book_id, record.positions, record.hashes), (id, seq.positions, hashes));
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_record(&bytes, 16, Path::new("b"));
        }
    }
}
