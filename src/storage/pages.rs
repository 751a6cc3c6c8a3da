//! Page signatures in the catalog: the value of the `pages` table, one per
//! book that has more than one page, holding the min-hash of each page.
//!
//! They live in the catalog, not in the segments, because they are read a
//! pair of books at a time (to classify a relation) and never scanned, while
//! a reader holds its segments in memory; at about 67 pages per 20K-word
//! book they would be the largest part of a segment.
//!
//! **b-bit values.** Each min-hash is stored as its high 32 bits (b-bit
//! minwise hashing, b = 32), half the bytes of the full value. Two values
//! that differ collide with probability 2^-32, so similarity estimates do not
//! move measurably; a value keeps its one-permutation bin, which the high
//! bits fix, so the union of page signatures still works. The empty value
//! `u64::MAX` reads back as itself. [`reduce`] gives a new text's
//! signatures the same form before they are compared with stored ones.
//!
//! Layout (all integers little-endian; see `storage-format.md`):
//!
//! ```text
//! u16 k               min-hashes per page (the index's window_hashes, 34)
//! u32 page_count      at least 2
//! page_count × k × u32  high 32 bits of the page min-hashes, in page order
//! u64 XXH3-64 of every byte before it
//! ```

use super::format::{checked_body, checksum, CHECKSUM_LEN};
use byteorder::{ByteOrder, LittleEndian};
use std::path::Path;

use crate::repr::minhash::MAX_HASHES;
use crate::repr::MinHashSig;
use crate::{Error, Result};

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

/// The value bytes of `pages`, each signature cut or padded (with
/// `u64::MAX`) to `k` values.
pub fn encode(pages: &[MinHashSig], k: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(FIXED_LEN + VALUE_LEN * k * pages.len() + CHECKSUM_LEN);
    out.extend_from_slice(&(k as u16).to_le_bytes());
    out.extend_from_slice(&(pages.len() as u32).to_le_bytes());
    for page in pages {
        for i in 0..k {
            let value = page.0.get(i).copied().unwrap_or(u64::MAX);
            out.extend_from_slice(&stored(value).to_le_bytes());
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Decodes the page signatures of book `book_id` stored in the catalog at
/// `path`; `Corrupted` (naming the catalog, the book and the byte offset in
/// the value) or `ChecksumMismatch` on damaged bytes, never a panic.
pub fn decode(bytes: &[u8], path: &Path, book_id: u32) -> Result<Vec<MinHashSig>> {
    let corrupted = |offset: usize, what: String| Error::Corrupted {
        path: path.to_path_buf(),
        offset: offset as u64,
        what: format!("page signatures of book id {book_id}: {what}"),
    };
    if bytes.len() < FIXED_LEN + CHECKSUM_LEN {
        return Err(corrupted(0, format!("{} bytes, too short", bytes.len())));
    }
    let body_end = checked_body(bytes, path)?.len();
    let k = LittleEndian::read_u16(bytes) as usize;
    let count = LittleEndian::read_u32(&bytes[2..]) as usize;
    if !(1..=MAX_HASHES).contains(&k) {
        return Err(corrupted(0, format!("{k} min-hashes per page")));
    }
    if count < 2 {
        return Err(corrupted(
            2,
            format!("{count} pages; at least 2 are stored"),
        ));
    }
    let body = &bytes[FIXED_LEN..body_end];
    if count.checked_mul(VALUE_LEN * k) != Some(body.len()) {
        return Err(corrupted(
            FIXED_LEN,
            format!(
                "{count} pages of {k} min-hashes do not fill {} bytes",
                body.len()
            ),
        ));
    }
    Ok(body
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

    #[test]
    fn round_trip_keeps_the_high_bits_and_empty_pages() {
        let bytes = encode(&sample(), 3);
        assert_eq!(bytes.len(), 6 + 24 + 8);
        let decoded = decode(&bytes, Path::new("c"), 7).unwrap();
        assert_eq!(
            decoded,
            [
                MinHashSig(vec![1 << 32, 2 << 32, 0xffff_fffe_0000_0000]),
                MinHashSig(vec![u64::MAX; 3])
            ]
        );
        assert!(decoded[1].is_empty());
        let reduced: Vec<MinHashSig> = sample().iter().map(reduce).collect();
        assert_eq!(decoded, reduced);
    }

    #[test]
    fn every_damaged_or_cut_value_is_an_error() {
        let bytes = encode(&sample(), 3);
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x10;
            assert!(decode(&damaged, Path::new("c"), 7).is_err(), "byte {i}");
        }
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len], Path::new("c"), 7).is_err(), "{len}");
        }
    }

    #[test]
    fn a_single_page_or_a_wrong_count_with_a_valid_checksum_is_refused() {
        let one = encode(&sample()[..1], 3);
        let error = decode(&one, Path::new("c"), 7).unwrap_err();
        assert!(error.to_string().contains("at least 2"), "{error}");
        let mut wrong = encode(&sample(), 3);
        wrong[2] = 3;
        let body_end = wrong.len() - 8;
        let sum = checksum(&wrong[..body_end]);
        wrong[body_end..].copy_from_slice(&sum.to_le_bytes());
        let error = decode(&wrong, Path::new("c"), 7).unwrap_err();
        assert!(error.to_string().contains("do not fill"), "{error}");
    }
}
