//! Dictionary files (`dictionaries/NNNNNN.dic`, format 8): one bilingual
//! dictionary as the index stores it: its languages, its name, its table
//! of normalised words and its translation pairs, with one checksum over
//! the file (layout in storage-format.md, section 6.7).

use std::path::Path;

use super::codec::{put_str, put_u32, put_u64, Cursor, Decode, Encode};
use super::format::{checked_body, checksum, FileHeader, FileKind, CHECKSUM_LEN, HEADER_LEN};
use crate::error::{Error, Result};
use crate::text::MAX_WORD_BYTES;
use crate::translate::dictionary::Dictionary;

/// The bytes of the dictionary file holding `dictionary`.
pub fn encode(dictionary: &Dictionary) -> Vec<u8> {
    let words_bytes: usize = dictionary.words().iter().map(|w| w.len() + 1).sum();
    let mut out = Vec::with_capacity(
        HEADER_LEN + 64 + words_bytes + 8 * dictionary.pairs().len() + CHECKSUM_LEN,
    );
    FileHeader::new(FileKind::Dictionary).encode_into(&mut out);
    put_str(&mut out, dictionary.from());
    put_str(&mut out, dictionary.to());
    put_str(&mut out, dictionary.name());
    put_u32(&mut out, dictionary.words().len() as u32);
    for word in dictionary.words() {
        // Words are at most MAX_WORD_BYTES (64) bytes: one length byte.
        out.push(word.len() as u8);
        out.extend_from_slice(word.as_bytes());
    }
    put_u32(&mut out, dictionary.pairs().len() as u32);
    for &(a, b) in dictionary.pairs() {
        put_u32(&mut out, a);
        put_u32(&mut out, b);
    }
    let sum = checksum(&out);
    put_u64(&mut out, sum);
    out
}

/// The stored checksum of a dictionary file's bytes (its last 8 bytes).
pub fn stored_checksum(bytes: &[u8]) -> Option<u64> {
    let tail = bytes.len().checked_sub(CHECKSUM_LEN)?;
    let array: [u8; 8] = bytes.get(tail..)?.try_into().ok()?;
    Some(u64::from_le_bytes(array))
}

/// Decodes the dictionary file `bytes` read from `path`: header, checksum,
/// then every field; `Corrupted` or `ChecksumMismatch` naming the file.
pub fn decode(bytes: &[u8], path: &Path) -> Result<Dictionary> {
    FileHeader::decode_from(bytes, FileKind::Dictionary, path)?;
    if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(Error::corrupted_at(
            path,
            0,
            format!(
                "dictionary file of {} bytes is shorter than its header and checksum",
                bytes.len()
            ),
        ));
    }
    let body = checked_body(bytes, path, 0)?;
    let mut c = Cursor::at(
        body.get(HEADER_LEN..).unwrap_or_default(),
        path,
        HEADER_LEN as u64,
    );
    let from = c.string("source language")?;
    let to = c.string("target language")?;
    let name = c.string("name")?;
    let count = c.u32()? as usize;
    // At least 2 bytes a word: the count is checked before allocating.
    if count > c.remaining() / 2 {
        return Err(c.error(format!("{count} words run past the end")));
    }
    let mut words = Vec::with_capacity(count);
    for _ in 0..count {
        let at = c.position();
        let len = c.u8()? as usize;
        if len == 0 || len > MAX_WORD_BYTES {
            return Err(c.error_at(at, format!("word of {len} bytes (1 to {MAX_WORD_BYTES})")));
        }
        let word =
            std::str::from_utf8(c.take(len)?).map_err(|_| c.error_at(at, "word is not UTF-8"))?;
        if words
            .last()
            .is_some_and(|last: &String| last.as_str() >= word)
        {
            return Err(c.error_at(at, "words not in strictly ascending order"));
        }
        words.push(word.to_string());
    }
    let pairs_count = c.u32()? as usize;
    let start = c.skip(pairs_count, 8, "pairs")?;
    c.finish()?;
    let mut pairs = Vec::with_capacity(pairs_count);
    let mut p = Cursor::at(
        body.get(HEADER_LEN + start..).unwrap_or_default(),
        path,
        (HEADER_LEN + start) as u64,
    );
    for _ in 0..pairs_count {
        pairs.push((p.u32()?, p.u32()?));
    }
    Dictionary::from_parts(path, name, from, to, words, pairs)
}

/// What the catalog's `dictionaries` table holds about one dictionary,
/// under its name (storage-format.md, section 6.7).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DictionaryEntry {
    /// Number of its file in `dictionaries/`.
    pub file: u32,
    /// Language of its headwords (ISO 639-3).
    pub from: String,
    /// Language of its translations (ISO 639-3).
    pub to: String,
    /// Distinct headwords with a translation.
    pub headwords: u64,
    /// Translation pairs.
    pub pairs: u64,
    /// Bytes of its file.
    pub bytes: u64,
    /// The checksum stored at the end of its file.
    pub checksum: u64,
}

impl Encode for DictionaryEntry {
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u32(out, self.file);
        put_str(out, &self.from);
        put_str(out, &self.to);
        for n in [self.headwords, self.pairs, self.bytes, self.checksum] {
            put_u64(out, n);
        }
    }
}

impl Decode for DictionaryEntry {
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        Ok(DictionaryEntry {
            file: c.u32()?,
            from: c.string("source language")?,
            to: c.string("target language")?,
            headwords: c.u64()?,
            pairs: c.u64()?,
            bytes: c.u64()?,
            checksum: c.u64()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Dictionary {
        Dictionary::from_parts(
            Path::new("x"),
            "freedict-eng-deu".into(),
            "eng".into(),
            "deu".into(),
            ["gehen", "go", "haus", "house"].map(String::from).to_vec(),
            vec![(1, 0), (3, 2)],
        )
        .unwrap()
    }

    #[test]
    fn round_trips_and_refuses_every_flipped_byte() {
        let d = sample();
        let bytes = encode(&d);
        let path = Path::new("000001.dic");
        assert_eq!(decode(&bytes, path).unwrap(), d);
        assert_eq!(
            stored_checksum(&bytes),
            Some(checksum(&bytes[..bytes.len() - 8]))
        );
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x20;
            let error = decode(&damaged, path).unwrap_err().to_string();
            assert!(error.contains("000001.dic"), "{error}");
        }
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len], path).is_err());
        }
    }

    #[test]
    fn a_flipped_body_byte_is_a_checksum_mismatch() {
        let mut bytes = encode(&sample());
        bytes[HEADER_LEN + 5] ^= 1;
        assert!(matches!(
            decode(&bytes, Path::new("000002.dic")),
            Err(Error::ChecksumMismatch { path, .. }) if path == Path::new("000002.dic")
        ));
    }

    #[test]
    fn entries_round_trip() {
        let entry = DictionaryEntry {
            file: 3,
            from: "fra".into(),
            to: "eng".into(),
            headwords: 7,
            pairs: 9,
            bytes: 100,
            checksum: u64::MAX,
        };
        let bytes = entry.encode();
        assert_eq!(
            DictionaryEntry::decode_all(&bytes, Path::new("c")).unwrap(),
            entry
        );
        assert!(DictionaryEntry::decode_all(&bytes[..bytes.len() - 1], Path::new("c")).is_err());
    }
}
