//! Text to words: decoding bytes, normalising and tokenising (thesis 4.2).
//!
//! Normalisation folds case (Unicode lower-casing), drops punctuation and
//! digits (so page numbers never become words), joins a word hyphenated at a
//! line end with its continuation ("exam-\nple" → "example"), removes soft
//! hyphens and in-word apostrophes ("don't" → "dont"), and keeps form feeds
//! as page breaks. Everything here is pure: no I/O, no global state.

mod tokenise;

pub use tokenise::{normalise, tokenise, Token, TokenStats, MAX_WORD_BYTES};

use std::borrow::Cow;

/// Bytes decoded as UTF-8, with invalid sequences replaced by U+FFFD.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// The decoded text.
    pub text: Cow<'a, str>,
    /// How many invalid byte sequences were replaced.
    pub invalid_sequences: u64,
}

/// Decodes `bytes` as text, lossily: UTF-16 when they start with a UTF-16
/// byte-order mark, else UTF-8 (a UTF-8 byte-order mark is dropped).
/// Invalid sequences are counted and replaced, never a panic.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    match bytes {
        [0xff, 0xfe, rest @ ..] => decode_utf16(rest, u16::from_le_bytes),
        [0xfe, 0xff, rest @ ..] => decode_utf16(rest, u16::from_be_bytes),
        [0xef, 0xbb, 0xbf, rest @ ..] => decode_utf8(rest),
        _ => decode_utf8(bytes),
    }
}

fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Decoded<'static> {
    let units = bytes.chunks_exact(2).map(|pair| unit([pair[0], pair[1]]));
    let mut invalid_sequences = (bytes.len() % 2) as u64;
    let text = char::decode_utf16(units)
        .map(|c| {
            c.unwrap_or_else(|_| {
                invalid_sequences += 1;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    Decoded {
        text: Cow::Owned(text),
        invalid_sequences,
    }
}

fn decode_utf8(bytes: &[u8]) -> Decoded<'_> {
    let invalid_sequences = bytes
        .utf8_chunks()
        .filter(|chunk| !chunk.invalid().is_empty())
        .count() as u64;
    Decoded {
        text: String::from_utf8_lossy(bytes),
        invalid_sequences,
    }
}

/// True when `bytes` looks like a binary file rather than text: it holds NUL
/// bytes, or more than 10% of its first 64 KiB are control characters other
/// than tab, line feed, carriage return and form feed. Text with a UTF-16
/// byte-order mark is never binary.
pub fn looks_binary(bytes: &[u8]) -> bool {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return false;
    }
    let head = &bytes[..bytes.len().min(64 * 1024)];
    if head.contains(&0) {
        return true;
    }
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
        .count();
    controls * 10 > head.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_counts_invalid_sequences_without_panicking() {
        let decoded = decode(b"ok \xff\xfe then \xc3 end");
        assert_eq!(decoded.invalid_sequences, 3);
        assert!(decoded.text.contains("then"));
        assert_eq!(decode("clean é".as_bytes()).invalid_sequences, 0);
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_decoded_and_utf8_bom_dropped() {
        let text = "Œuvres complètes\x0cpage";
        let le: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xfe, 0xff]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [&le, &be] {
            assert!(!looks_binary(bytes));
            let decoded = decode(bytes);
            assert_eq!(
                (decoded.text.as_ref(), decoded.invalid_sequences),
                (text, 0)
            );
        }
        let mut damaged = le.clone();
        damaged.extend_from_slice(&[0x00, 0xd8]); // a lone surrogate (0xD800)
        damaged.push(0x41); // a dangling odd byte
        assert_eq!(decode(&damaged).invalid_sequences, 2);
        assert_eq!(decode("\u{feff}abc".as_bytes()).text, "abc");
    }

    #[test]
    fn binary_detection_flags_nul_and_control_bytes_only() {
        assert!(looks_binary(b"abc\0def"));
        assert!(looks_binary(&[1u8, 2, 3, 4, 5, b'a']));
        assert!(!looks_binary(b"plain text\r\n\x0cnext page\t."));
    }
}
