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
//! **Page codes.** A page is only ever compared position by position with
//! other pages (equal or not), so each min-hash value is stored as a
//! 16-bit *code*: 16 bits of a hash of its high 32 bits (b-bit minwise
//! hashing with b = 16 over a rehash, so that codes are uniform although
//! a one-permutation value's high bits say which bin it came from). Two
//! different values share a code with probability 2^-16, so two unrelated
//! pages share one of 34 positions with probability 5·10^-4, far below the
//! 4 positions a matching page needs. The empty value `u64::MAX` (and any
//! value whose high 32 bits are all ones) has the code `0xFFFF`, which no
//! other value gets, and reads back as `u64::MAX`; every other code reads
//! back as itself. Records of formats 4 to 14 hold each value's high 32
//! bits instead: they read back as the codes of those bits, so old and new
//! records compare. [`crate::repr::minhash::page_codes`] gives a new
//! text's signatures the same form.
//!
//! Layout (all integers little-endian; see `storage-format.md`, section 6.5,
//! and Appendix A.3 for the older records and the format-3 catalog value):
//!
//! ```text
//! u32 book_id         the book (a page-file record only; not in a format-3 value)
//! u16 k | 0x8000      min-hashes per page (the index's window_hashes, 34), 16-bit codes
//! u32 page_count      at least 2
//! page_count × k × u16  the codes, in page order
//! u64 XXH3-64 of every byte before it
//! ```
//!
//! (A record with bit 15 of its k clear, written by formats 4 to 14, holds
//! `page_count × k × u32`, each value's high 32 bits.)

use super::codec::{put_u16, put_u32, Cursor, Decode, Encode};
use super::format::{checked_body, checksum, CHECKSUM_LEN};
use byteorder::{ByteOrder, LittleEndian};
use std::path::Path;

use crate::error::{Error, Result};
use crate::repr::minhash::{page_code, page_code_of_high, page_code_value, MAX_HASHES};
use crate::repr::MinHashSig;

const FIXED_LEN: usize = 2 + 4;

/// Bit 15 of a record's k: its values are 16-bit codes (format 15 on).
const CODES_FLAG: u16 = 0x8000;

/// Bytes of a page-file record's book id.
const BOOK_ID_LEN: usize = 4;

/// The width of a record's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Values {
    /// 16-bit codes (format 15 on).
    Codes,
    /// The high 32 bits of each value (formats 3 to 14).
    High32,
}

impl Values {
    /// The width a record's stored k field gives, and its k.
    fn of(stored_k: u16) -> (Values, usize) {
        match stored_k & CODES_FLAG {
            0 => (Values::High32, usize::from(stored_k)),
            _ => (Values::Codes, usize::from(stored_k & !CODES_FLAG)),
        }
    }

    fn len(self) -> usize {
        match self {
            Values::Codes => 2,
            Values::High32 => 4,
        }
    }

    /// The values of one page's bytes, read back.
    fn read(self, page: &[u8]) -> MinHashSig {
        let values = page.chunks_exact(self.len());
        MinHashSig(match self {
            Values::Codes => values
                .map(|v| page_code_value(LittleEndian::read_u16(v)))
                .collect(),
            Values::High32 => values
                .map(|v| page_code_value(page_code_of_high(LittleEndian::read_u32(v))))
                .collect(),
        })
    }
}

/// The page-file record of book `book_id` holding `pages` (min-hash
/// signatures, or their codes as `page_codes` gives them), each cut or padded
/// (with the empty value) to `k` values (`1..=1024`).
pub fn encode_record(book_id: u32, pages: &[MinHashSig], k: usize) -> Vec<u8> {
    let len = BOOK_ID_LEN + FIXED_LEN + Values::Codes.len() * k * pages.len() + CHECKSUM_LEN;
    let mut out = Vec::with_capacity(len);
    put_u32(&mut out, book_id);
    PageCounts {
        k: k as u16 | CODES_FLAG,
        pages: pages.len() as u32,
    }
    .encode_into(&mut out);
    for page in pages {
        for i in 0..k {
            let value = page.0.get(i).copied().unwrap_or(u64::MAX);
            put_u16(&mut out, page_code(value));
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
    let (values, k) = Values::of(LittleEndian::read_u16(&head[BOOK_ID_LEN..]));
    let count = u64::from(LittleEndian::read_u32(&head[BOOK_ID_LEN + 2..]));
    let len = (RECORD_HEAD_LEN + CHECKSUM_LEN) as u64 + (values.len() * k) as u64 * count;
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
    let pages = decode_sealed(bytes, BOOK_ID_LEN, path, Some(offset), book_id, true)?;
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
    decode_sealed(bytes, 0, path, None, book_id, false)
}

/// Decodes checksummed page signatures that follow `prefix` bytes (checked
/// by the caller) in `bytes`, found at byte `offset` of `path` (`None`: a
/// catalog value, with no offset of its own), of codes only when
/// `codes_allowed` (format 3's values hold the high 32 bits).
fn decode_sealed(
    bytes: &[u8],
    prefix: usize,
    path: &Path,
    offset: Option<u64>,
    book_id: u32,
    codes_allowed: bool,
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
    let (values, k) = Values::of(counts.k);
    let count = counts.pages as usize;
    if !(1..=MAX_HASHES).contains(&k) {
        let error = c.error_at(counts_at, format!("{k} min-hashes per page"));
        return Err(context(error));
    }
    if values == Values::Codes && !codes_allowed {
        let error = c.error_at(counts_at, "16-bit codes in a format-3 value");
        return Err(context(error));
    }
    if count < 2 {
        let error = c.error_at(
            counts_at + 2,
            format!("{count} pages; at least 2 are stored"),
        );
        return Err(context(error));
    }
    if count.checked_mul(values.len() * k) != Some(c.remaining()) {
        let error = c.error(format!(
            "{count} pages of {k} min-hashes do not fill {} bytes",
            c.remaining()
        ));
        return Err(context(error));
    }
    let bytes = c.take(c.remaining()).map_err(context)?;
    Ok(bytes
        .chunks_exact(values.len() * k)
        .map(|page| values.read(page))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repr::minhash::page_codes;

    fn sample() -> Vec<MinHashSig> {
        vec![
            MinHashSig(vec![1 << 32 | 9, 2 << 32, 0xffff_fffe_0000_0001]),
            MinHashSig(vec![u64::MAX; 3]),
        ]
    }

    fn reduced(pages: &[MinHashSig]) -> Vec<MinHashSig> {
        pages.iter().map(page_codes).collect()
    }

    /// A record as formats 4 to 14 wrote it: the high 32 bits of each
    /// value, k without the codes flag.
    fn high32_record(book_id: u32, pages: &[MinHashSig], k: usize) -> Vec<u8> {
        let mut out = Vec::new();
        put_u32(&mut out, book_id);
        put_u16(&mut out, k as u16);
        put_u32(&mut out, pages.len() as u32);
        for page in pages {
            for &value in &page.0 {
                put_u32(&mut out, (value >> 32) as u32);
            }
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The format-3 value holding what `record` holds: the record without
    /// its book id, checksummed again.
    fn value_of(record: &[u8]) -> Vec<u8> {
        let mut value = record[BOOK_ID_LEN..record.len() - CHECKSUM_LEN].to_vec();
        let sum = checksum(&value);
        value.extend_from_slice(&sum.to_le_bytes());
        value
    }

    #[test]
    fn records_and_values_round_trip_as_codes_and_old_records_read_as_their_codes() {
        let codes = reduced(&sample());
        let record = encode_record(7, &codes, 3);
        assert_eq!(record.len(), 4 + 6 + 12 + 8);
        assert_eq!(&record[..6], &[7, 0, 0, 0, 3, 0x80]);
        let decoded = decode_record(&record, Path::new("p"), 100, 7).unwrap();
        assert_eq!(decoded, codes);
        assert!(decoded[1].is_empty());

        let old = high32_record(7, &sample(), 3);
        assert_eq!(old.len(), 4 + 6 + 24 + 8);
        assert_eq!(decode_record(&old, Path::new("p"), 100, 7).unwrap(), codes);
        assert_eq!(
            decode_value(&value_of(&old), Path::new("c"), 7).unwrap(),
            codes
        );
        let error = decode_value(&value_of(&record), Path::new("c"), 7).unwrap_err();
        assert!(error.to_string().contains("format-3"), "{error}");
    }

    #[test]
    fn every_damaged_or_cut_record_or_value_is_an_error() {
        let old = high32_record(7, &sample(), 3);
        for record in [encode_record(7, &reduced(&sample()), 3), old.clone()] {
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
        }
        let value = value_of(&old);
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
    fn the_head_gives_the_length_of_either_width() {
        for record in [
            encode_record(7, &reduced(&sample()), 3),
            high32_record(7, &sample(), 3),
        ] {
            let head: [u8; RECORD_HEAD_LEN] = record[..RECORD_HEAD_LEN].try_into().unwrap();
            assert_eq!(record_head(&head), (7, Some(record.len() as u32)));
        }
    }

    #[test]
    fn errors_name_the_file_the_book_and_the_offset_in_the_file() {
        let mut record = encode_record(7, &reduced(&sample()), 3);
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
                assert_eq!((path.as_path(), offset), (Path::new("000002.pgs"), 522))
            }
            other => panic!("expected ChecksumMismatch, got {other:?}"),
        }
    }

    #[test]
    fn a_single_page_or_a_wrong_count_with_a_valid_checksum_is_refused() {
        let one = encode_record(7, &reduced(&sample()[..1]), 3);
        let error = decode_record(&one, Path::new("p"), 16, 7).unwrap_err();
        assert!(error.to_string().contains("at least 2"), "{error}");
        let mut wrong = encode_record(7, &reduced(&sample()), 3);
        wrong[6] = 3;
        let body_end = wrong.len() - 8;
        let sum = checksum(&wrong[..body_end]);
        wrong[body_end..].copy_from_slice(&sum.to_le_bytes());
        let error = decode_record(&wrong, Path::new("p"), 16, 7).unwrap_err();
        assert!(error.to_string().contains("do not fill"), "{error}");
    }
}
