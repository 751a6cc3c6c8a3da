//! The byte codec of page signatures, the min-hash of each page of a book
//! that has more than one page: the record of a page file
//! ([`super::page_files`], format 4) and the value of the catalog's `pages`
//! table in format 3.
//!
//! They are kept out of the segments because they are read a pair of books
//! at a time (to classify a relation) and never scanned, while a reader
//! holds its segments in memory; at about 67 pages per 20K-word book they
//! would be the largest part of a segment.
//!
//! **b-bit values.** Each min-hash is stored as its high 32 bits (b-bit
//! minwise hashing, b = 32), half the bytes of the full value. Two values
//! that differ collide with probability 2^-32, so similarity estimates do not
//! move measurably; a value keeps its one-permutation bin, which the high
//! bits fix, so the union of page signatures still works. The empty value
//! `u64::MAX` reads back as itself. [`reduce`] gives a new text's
//! signatures the same form before they are compared with stored ones.
//!
//! Layout (all integers little-endian; see `storage-format.md`, section 6.5,
//! and Appendix A.3 for the format-3 catalog value):
//!
//! ```text
//! u32 book_id         the book (a page-file record only; not in a format-3 value)
//! u16 k               min-hashes per page (the index's window_hashes, 34)
//! u32 page_count      at least 2
//! page_count × k × u32  high 32 bits of the page min-hashes, in page order
//! u64 XXH3-64 of every byte before it
//! ```

use super::codec::{put_u16, put_u32, Cursor, Decode, Encode};
use super::format::{checked_body, checksum, CHECKSUM_LEN};
use byteorder::{ByteOrder, LittleEndian};
use std::path::Path;

use crate::error::{Error, Result};
use crate::repr::minhash::MAX_HASHES;
use crate::repr::MinHashSig;

const FIXED_LEN: usize = 2 + 4;

/// Bytes per stored value.
const VALUE_LEN: usize = 4;

/// The stored form of a min-hash value: its high 32 bits.
fn stored(value: u64) -> u32 {
    (value >> 32) as u32
}

/// The value a stored one reads back as.
fn loaded(stored: u32) -> u64 {
    match stored {
        u32::MAX => u64::MAX,
        high => u64::from(high) << 32,
    }
}

/// `signature` as it reads back from storage.
pub fn reduce(signature: &MinHashSig) -> MinHashSig {
    MinHashSig(signature.0.iter().map(|&v| loaded(stored(v))).collect())
}

/// Bytes of a page-file record's book id.
const BOOK_ID_LEN: usize = 4;

/// The page-file record of book `book_id` holding `pages`, each signature
/// cut or padded (with `u64::MAX`) to `k` values.
pub fn encode_record(book_id: u32, pages: &[MinHashSig], k: usize) -> Vec<u8> {
    let len = BOOK_ID_LEN + FIXED_LEN + VALUE_LEN * k * pages.len() + CHECKSUM_LEN;
    let mut out = Vec::with_capacity(len);
    put_u32(&mut out, book_id);
    PageCounts {
        k: k as u16,
        pages: pages.len() as u32,
    }
    .encode_into(&mut out);
    for page in pages {
        for i in 0..k {
            let value = page.0.get(i).copied().unwrap_or(u64::MAX);
            put_u32(&mut out, stored(value));
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The counts before the values: u16 min-hashes per page, u32 pages.
/// Decoding reads them unchecked: they are checked once the checksum
/// behind them is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PageCounts {
    k: u16,
    pages: u32,
}

impl Encode for PageCounts {
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u16(out, self.k);
        put_u32(out, self.pages);
    }
}

impl Decode for PageCounts {
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        Ok(PageCounts {
            k: c.u16()?,
            pages: c.u32()?,
        })
    }
}

/// Bytes of a page-file record's head: book id, k and page count.
pub const RECORD_HEAD_LEN: usize = BOOK_ID_LEN + FIXED_LEN;

/// From a page-file record's head (its first [`RECORD_HEAD_LEN`] bytes):
/// the book id and the record's whole length, `None` when that length
/// overflows a `u32`.
pub fn record_head(head: &[u8; RECORD_HEAD_LEN]) -> (u32, Option<u32>) {
    let book_id = LittleEndian::read_u32(head);
    let k = u64::from(LittleEndian::read_u16(&head[BOOK_ID_LEN..]));
    let count = u64::from(LittleEndian::read_u32(&head[BOOK_ID_LEN + 2..]));
    let len = (RECORD_HEAD_LEN + CHECKSUM_LEN) as u64 + VALUE_LEN as u64 * k * count;
    (book_id, u32::try_from(len).ok())
}

/// Decodes the page-file record of book `book_id` found at byte `offset`
/// of `path`: `Corrupted` (naming the file, the book and the byte offset in
/// the file) or `ChecksumMismatch` on damaged bytes or a record of another
/// book, never a panic.
pub fn decode_record(
    bytes: &[u8],
    path: &Path,
    offset: u64,
    book_id: u32,
) -> Result<Vec<MinHashSig>> {
    let pages = decode_sealed(bytes, BOOK_ID_LEN, path, Some(offset), book_id)?;
    let stored_id = Cursor::at(bytes, path, offset).u32()?;
    if stored_id != book_id {
        return Err(Error::corrupted_at(
            path,
            offset,
            format!(
                "page signatures of book id {book_id}: the record belongs to book id {stored_id}"
            ),
        ));
    }
    Ok(pages)
}

/// Decodes the format-3 catalog value of book `book_id` stored in the
/// catalog at `path`; errors as [`decode_record`]'s, with offsets in the
/// value.
pub fn decode_value(bytes: &[u8], path: &Path, book_id: u32) -> Result<Vec<MinHashSig>> {
    decode_sealed(bytes, 0, path, None, book_id)
}

/// Decodes checksummed page signatures that follow `prefix` bytes (checked
/// by the caller) in `bytes`, found at byte `offset` of `path` (`None`: a
/// catalog value, with no offset of its own).
fn decode_sealed(
    bytes: &[u8],
    prefix: usize,
    path: &Path,
    offset: Option<u64>,
    book_id: u32,
) -> Result<Vec<MinHashSig>> {
    let context = |e: Error| e.context(format_args!("page signatures of book id {book_id}"));
    let cursor = |bytes| match offset {
        Some(offset) => Cursor::at(bytes, path, offset),
        None => Cursor::value(bytes, path),
    };
    if bytes.len() < prefix + FIXED_LEN + CHECKSUM_LEN {
        let error = cursor(bytes).error(format!("{} bytes, too short", bytes.len()));
        return Err(context(error));
    }
    let body = checked_body(bytes, path, offset.unwrap_or(0))?;
    let mut c = cursor(body);
    c.skip(prefix, 1, "prefix bytes").map_err(context)?;
    let counts_at = c.position();
    let counts = PageCounts::decode(&mut c).map_err(context)?;
    let (k, count) = (usize::from(counts.k), counts.pages as usize);
    if !(1..=MAX_HASHES).contains(&k) {
        let error = c.error_at(counts_at, format!("{k} min-hashes per page"));
        return Err(context(error));
    }
    if count < 2 {
        let error = c.error_at(
            counts_at + 2,
            format!("{count} pages; at least 2 are stored"),
        );
        return Err(context(error));
    }
    if count.checked_mul(VALUE_LEN * k) != Some(c.remaining()) {
        let error = c.error(format!(
            "{count} pages of {k} min-hashes do not fill {} bytes",
            c.remaining()
        ));
        return Err(context(error));
    }
    let values = c.take(c.remaining()).map_err(context)?;
    Ok(values
        .chunks_exact(VALUE_LEN * k)
        .map(|page| {
            let values = page.chunks_exact(VALUE_LEN).map(LittleEndian::read_u32);
            MinHashSig(values.map(loaded).collect())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<MinHashSig> {
        vec![
            MinHashSig(vec![1 << 32 | 9, 2 << 32, 0xffff_fffe_0000_0001]),
            MinHashSig(vec![u64::MAX; 3]),
        ]
    }

    /// The format-3 value holding what the record of `pages` holds: the
    /// record without its book id, checksummed again.
    fn value(pages: &[MinHashSig], k: usize) -> Vec<u8> {
        let record = encode_record(0, pages, k);
        let mut value = record[BOOK_ID_LEN..record.len() - CHECKSUM_LEN].to_vec();
        let sum = checksum(&value);
        value.extend_from_slice(&sum.to_le_bytes());
        value
    }

    #[test]
    fn records_and_values_round_trip_keeping_the_high_bits_and_empty_pages() {
        let expected = [
            MinHashSig(vec![1 << 32, 2 << 32, 0xffff_fffe_0000_0000]),
            MinHashSig(vec![u64::MAX; 3]),
        ];
        let record = encode_record(7, &sample(), 3);
        assert_eq!(record.len(), 4 + 6 + 24 + 8);
        assert_eq!(&record[..4], &[7, 0, 0, 0]);
        let decoded = decode_record(&record, Path::new("p"), 100, 7).unwrap();
        assert_eq!(decoded, expected);
        assert!(decoded[1].is_empty());
        let reduced: Vec<MinHashSig> = sample().iter().map(reduce).collect();
        assert_eq!(decoded, reduced);
        let value = value(&sample(), 3);
        assert_eq!(value.len(), 6 + 24 + 8);
        assert_eq!(decode_value(&value, Path::new("c"), 7).unwrap(), expected);
    }

    #[test]
    fn every_damaged_or_cut_record_or_value_is_an_error() {
        let record = encode_record(7, &sample(), 3);
        let value = value(&sample(), 3);
        for i in 0..record.len() {
            let mut damaged = record.clone();
            damaged[i] ^= 0x10;
            assert!(
                decode_record(&damaged, Path::new("p"), 16, 7).is_err(),
                "byte {i}"
            );
        }
        for len in 0..record.len() {
            assert!(
                decode_record(&record[..len], Path::new("p"), 16, 7).is_err(),
                "{len}"
            );
        }
        for i in 0..value.len() {
            let mut damaged = value.clone();
            damaged[i] ^= 0x10;
            assert!(
                decode_value(&damaged, Path::new("c"), 7).is_err(),
                "byte {i}"
            );
        }
        for len in 0..value.len() {
            assert!(
                decode_value(&value[..len], Path::new("c"), 7).is_err(),
                "{len}"
            );
        }
    }

    #[test]
    fn errors_name_the_file_the_book_and_the_offset_in_the_file() {
        let mut record = encode_record(7, &sample(), 3);
        let error = decode_record(&record, Path::new("000002.pgs"), 500, 8).unwrap_err();
        match &error {
            Error::Corrupted { path, offset, what } => {
                assert_eq!(
                    (path.as_path(), *offset),
                    (Path::new("000002.pgs"), Some(500))
                );
                assert!(
                    what.contains("book id 8") && what.contains("book id 7"),
                    "{what}"
                );
            }
            other => panic!("expected Corrupted, got {other:?}"),
        }
        let last = record.len() - 1;
        record[last] ^= 1;
        match decode_record(&record, Path::new("000002.pgs"), 500, 7).unwrap_err() {
            Error::ChecksumMismatch { path, offset, .. } => {
                assert_eq!((path.as_path(), offset), (Path::new("000002.pgs"), 534))
            }
            other => panic!("expected ChecksumMismatch, got {other:?}"),
        }
    }

    #[test]
    fn a_single_page_or_a_wrong_count_with_a_valid_checksum_is_refused() {
        let one = encode_record(7, &sample()[..1], 3);
        let error = decode_record(&one, Path::new("p"), 16, 7).unwrap_err();
        assert!(error.to_string().contains("at least 2"), "{error}");
        let mut wrong = encode_record(7, &sample(), 3);
        wrong[6] = 3;
        let body_end = wrong.len() - 8;
        let sum = checksum(&wrong[..body_end]);
        wrong[body_end..].copy_from_slice(&sum.to_le_bytes());
        let error = decode_record(&wrong, Path::new("p"), 16, 7).unwrap_err();
        assert!(error.to_string().contains("do not fill"), "{error}");
    }
}
