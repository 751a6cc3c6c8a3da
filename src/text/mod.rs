//! Text to words: decoding bytes, normalising and tokenising (thesis 4.2).
//!
//! Normalisation folds case (Unicode lower-casing), drops punctuation and
//! digits (so page numbers never become words), joins a word hyphenated at a
//! line end with its continuation ("exam-\nple" → "example"), removes soft
//! hyphens and in-word apostrophes ("don't" → "dont"), and keeps form feeds
//! as page breaks. Everything here is pure: no I/O, no global state.

mod tokenise;

pub use tokenise::{
    normalise, tokenise, tokenise_spans, Token, TokenStats, MAX_WORD_BYTES, PAGE_BREAK,
};

use std::borrow::Cow;

/// Bytes decoded as text.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// The decoded text.
    pub text: Cow<'a, str>,
    /// How many byte sequences were invalid in the encoding first tried
    /// (UTF-8, or UTF-16 after its byte-order mark).
    pub invalid_sequences: u64,
    /// The encoding the text was decoded as: `UTF-8`, `UTF-16LE`, `UTF-16BE`
    /// or `windows-1252`.
    pub encoding: &'static str,
}

/// Every encoding [`decode`] decodes as ([`Decoded::encoding`]).
pub const ENCODINGS: [&str; 4] = ["UTF-8", "UTF-16LE", "UTF-16BE", "windows-1252"];

/// Decodes `bytes` as text, never a panic:
/// - UTF-16 LE or BE when they start with its byte-order mark;
/// - else UTF-8 (a UTF-8 byte-order mark is dropped), invalid sequences
///   replaced by U+FFFD;
/// - but when most non-ASCII bytes are invalid UTF-8, the text is in a legacy
///   single-byte encoding (old etexts are often Latin-1): it is decoded as
///   windows-1252, a superset of Latin-1's printable characters, so that its
///   accented words stay whole instead of splitting at every accent.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    match bytes {
        [0xff, 0xfe, rest @ ..] => decode_utf16(rest, u16::from_le_bytes, "UTF-16LE"),
        [0xfe, 0xff, rest @ ..] => decode_utf16(rest, u16::from_be_bytes, "UTF-16BE"),
        [0xef, 0xbb, 0xbf, rest @ ..] => decode_utf8(rest),
        _ => decode_utf8(bytes),
    }
}

fn decode_utf16(
    bytes: &[u8],
    unit: fn([u8; 2]) -> u16,
    encoding: &'static str,
) -> Decoded<'static> {
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
        encoding,
    }
}

fn decode_utf8(bytes: &[u8]) -> Decoded<'_> {
    // Valid UTF-8, the common case, is checked by the fast validator alone.
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded {
            text: Cow::Borrowed(text),
            invalid_sequences: 0,
            encoding: "UTF-8",
        };
    }
    let (mut invalid_sequences, mut invalid_bytes) = (0u64, 0usize);
    for chunk in bytes.utf8_chunks() {
        if !chunk.invalid().is_empty() {
            invalid_sequences += 1;
            invalid_bytes += chunk.invalid().len();
        }
    }
    if invalid_sequences == 0 {
        return Decoded {
            text: String::from_utf8_lossy(bytes),
            invalid_sequences,
            encoding: "UTF-8",
        };
    }
    let non_ascii = bytes.iter().filter(|b| !b.is_ascii()).count();
    if 2 * invalid_bytes > non_ascii {
        return Decoded {
            text: Cow::Owned(decode_windows_1252(bytes)),
            invalid_sequences,
            encoding: "windows-1252",
        };
    }
    Decoded {
        text: String::from_utf8_lossy(bytes),
        invalid_sequences,
        encoding: "UTF-8",
    }
}

/// Bytes decoded a chunk at a time: a decoder asked for a whole text at
/// once reserves its worst case, three bytes out per byte in.
const DECODE_CHUNK_BYTES: usize = 1 << 20;

/// `bytes` decoded as windows-1252, which maps every byte to a character.
fn decode_windows_1252(bytes: &[u8]) -> String {
    let mut decoder = encoding_rs::WINDOWS_1252.new_decoder_without_bom_handling();
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 8);
    let mut chunks = bytes.chunks(DECODE_CHUNK_BYTES).peekable();
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let mut rest = chunk;
        loop {
            let room = decoder
                .max_utf8_buffer_length(rest.len())
                .unwrap_or(3 * rest.len() + 16);
            text.reserve(room);
            let (result, read, _) = decoder.decode_to_string(rest, &mut text, last);
            rest = &rest[read..];
            if matches!(result, encoding_rs::CoderResult::InputEmpty) {
                break;
            }
        }
    }
    text
}

/// Bytes decoded as text ([`decode`]), owned.
#[derive(Debug)]
pub struct DecodedText {
    /// The decoded text.
    pub text: String,
    /// As in [`Decoded::invalid_sequences`].
    pub invalid_sequences: u64,
    /// As in [`Decoded::encoding`].
    pub encoding: &'static str,
}

/// [`decode`] of bytes the caller gives up: valid UTF-8 becomes the text in
/// place, without a copy and validated once (a UTF-8 byte-order mark
/// dropped); other bytes are decoded into a new text and freed once it is
/// made, so a large text is held about once.
pub fn decode_owned(bytes: Vec<u8>) -> DecodedText {
    let bytes = match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..'\u{feff}'.len_utf8());
            }
            return DecodedText {
                text,
                invalid_sequences: 0,
                encoding: "UTF-8",
            };
        }
        Err(invalid) => invalid.into_bytes(),
    };
    // Neither UTF-16 nor invalid UTF-8 decodes to a text borrowed from
    // `bytes`, so the text is already owned and this does not copy it.
    let decoded = decode(&bytes);
    let mut text = decoded.text.into_owned();
    // A decoder reserves room for its worst case (three bytes per byte from
    // windows-1252): give back what the text does not use.
    text.shrink_to_fit();
    DecodedText {
        text,
        invalid_sequences: decoded.invalid_sequences,
        encoding: decoded.encoding,
    }
}

/// Why `bytes` cannot be taken as a text, if they cannot: they are empty,
/// or [binary](looks_binary). The loader and the alignment commands give
/// these reasons in the same words.
pub fn unreadable(bytes: &[u8]) -> Option<&'static str> {
    if bytes.is_empty() {
        Some("empty text")
    } else if looks_binary(bytes) {
        Some("binary data (NUL or control bytes), not text")
    } else {
        None
    }
}

/// The reason given for a text in which tokenising (with `stats`) found no
/// word; it says how many overlong tokens were dropped, if any.
pub fn no_words_reason(stats: &TokenStats) -> String {
    match stats.overlong_tokens {
        0 => "no words after normalisation".to_string(),
        overlong => format!(
            "no words after normalisation ({overlong} tokens over {MAX_WORD_BYTES} bytes dropped)"
        ),
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
    fn windows_1252_in_chunks_decodes_as_at_once() {
        let mut bytes: Vec<u8> = (0..=255u8)
            .cycle()
            .take(3 * DECODE_CHUNK_BYTES + 77)
            .collect();
        bytes[DECODE_CHUNK_BYTES - 1] = 0xe9;
        let (whole, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&bytes);
        assert_eq!(decode_windows_1252(&bytes), whole);
        assert_eq!(decode_windows_1252(b"caf\xe9 \x80"), "café €");
    }

    #[test]
    fn decode_owned_gives_the_text_decode_gives() {
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain("père".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let inputs: [&[u8]; 9] = [
            b"",
            b"plain text",
            "d\u{e9}j\u{e0} vu".as_bytes(),
            b"\xef\xbb\xbfwith a byte-order mark",
            b"\xef\xbb\xbf\xef\xbb\xbftwo of them",
            b"\xef\xbb\xbf",
            b"caf\xe9 cr\xe8me br\xfbl\xe9e",
            b"mostly valid \xc3\xa9\xc3\xa9\xc3\xa9 but \xff",
            &utf16,
        ];
        for bytes in inputs {
            let decoded = decode(bytes);
            let owned = decode_owned(bytes.to_vec());
            assert_eq!(owned.text, decoded.text, "{bytes:?}");
            assert_eq!(
                (owned.invalid_sequences, owned.encoding),
                (decoded.invalid_sequences, decoded.encoding)
            );
        }
    }

    #[test]
    fn decode_counts_invalid_sequences_without_panicking() {
        let decoded = decode(b"ok \xff\xfe then \xc3 end");
        assert_eq!(decoded.invalid_sequences, 3);
        assert!(decoded.text.contains("then"));
        let clean = decode("clean é".as_bytes());
        assert_eq!((clean.invalid_sequences, clean.encoding), (0, "UTF-8"));
    }

    #[test]
    fn latin1_text_is_decoded_as_windows_1252_but_damaged_utf8_stays_utf8() {
        // "Œuvres complètes, café, naïve" in windows-1252.
        let latin1 = b"\x8cuvres compl\xe8tes, caf\xe9, na\xefve";
        let decoded = decode(latin1);
        assert_eq!(decoded.encoding, "windows-1252");
        assert_eq!(decoded.text, "Œuvres complètes, café, naïve");
        assert_eq!(decoded.invalid_sequences, 4);
        // Mostly valid UTF-8 with one stray byte: still UTF-8.
        let mut damaged = "Œuvres complètes, café, naïve".as_bytes().to_vec();
        damaged.push(0xff);
        let decoded = decode(&damaged);
        assert_eq!(decoded.encoding, "UTF-8");
        assert!(decoded.text.starts_with("Œuvres complètes, café, naïve"));
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
    fn a_utf16_mark_before_invalid_utf8_is_decoded_as_utf16() {
        // Found by the tokenise fuzz target: the bytes are not UTF-8, and the
        // byte-order mark makes them UTF-16 BE (U+FFFF units and all).
        let mut bytes = vec![0xfe, 0xff];
        bytes.extend_from_slice(&[0xff; 41]);
        bytes.extend_from_slice(&[0x40, 0xbc, 0x69]);
        let decoded = decode(&bytes);
        assert_eq!(decoded.encoding, "UTF-16BE");
        assert_eq!(decoded.invalid_sequences, 0); // 44 bytes: 22 whole units
        assert!(std::str::from_utf8(&bytes).is_err());
    }

    #[test]
    fn binary_detection_flags_nul_and_control_bytes_only() {
        assert!(looks_binary(b"abc\0def"));
        assert!(looks_binary(&[1u8, 2, 3, 4, 5, b'a']));
        assert!(!looks_binary(b"plain text\r\n\x0cnext page\t."));
    }
}
