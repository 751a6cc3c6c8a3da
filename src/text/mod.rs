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

/// Decodes `bytes` as UTF-8, lossily: invalid sequences are counted and
/// replaced, never a panic.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
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
/// than tab, line feed, carriage return and form feed.
pub fn looks_binary(bytes: &[u8]) -> bool {
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
    fn binary_detection_flags_nul_and_control_bytes_only() {
        assert!(looks_binary(b"abc\0def"));
        assert!(looks_binary(&[1u8, 2, 3, 4, 5, b'a']));
        assert!(!looks_binary(b"plain text\r\n\x0cnext page\t."));
    }
}
