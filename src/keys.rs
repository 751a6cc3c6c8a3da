//! What a book's key may be: the one rule, checked when a document is
//! prepared for loading and when a command names a book by key.
//!
//! A key is 1 to [`MAX_KEY_BYTES`] bytes of UTF-8 with no control character
//! (Unicode general category Cc: U+0000..=U+001F, U+007F..=U+009F, so no
//! NUL, tab, newline, carriage return or DEL) and no white space at either
//! end. Such a key fits on one line of TSV, can be given as one
//! command-line argument and reads back as it was written.

use crate::error::Error;

/// Longest key accepted, in bytes of UTF-8.
pub const MAX_KEY_BYTES: usize = 1024;

/// The key rule in words, for messages.
pub const KEY_RULE: &str = "a key is 1 to 1024 bytes of UTF-8 with no control characters \
     (tab, newline, NUL, DEL, ...) and no white space at either end";

/// Checks `key` against the key rule; the `Err` says what is wrong with it
/// (the key itself is not repeated: see [`display_key`]).
pub fn check_key(key: &str) -> Result<(), String> {
    if key.is_empty() {
        return Err("empty key".into());
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(format!(
            "key of {} bytes; at most {MAX_KEY_BYTES}",
            key.len()
        ));
    }
    if let Some((at, c)) = key.char_indices().find(|(_, c)| c.is_control()) {
        return Err(format!(
            "key holds a control character (U+{:04X}) at byte {at}",
            c as u32
        ));
    }
    if key.starts_with(char::is_whitespace) {
        return Err("key begins with white space".into());
    }
    if key.ends_with(char::is_whitespace) {
        return Err("key ends with white space".into());
    }
    Ok(())
}

/// Longest part of a key shown in a message, in characters.
const SHOWN_CHARS: usize = 80;

/// `key` for a message: quoted, control characters escaped, and cut after
/// 80 characters (with its length in bytes) when longer.
pub fn display_key(key: &str) -> String {
    let shown: String = key.chars().take(SHOWN_CHARS).collect();
    if shown.len() == key.len() {
        format!("{shown:?}")
    } else {
        format!("{shown:?}… ({} bytes)", key.len())
    }
}

/// `field` for one TSV or text column: a backslash, tab, newline and
/// carriage return become `\\`, `\t`, `\n`, `\r`, any other control
/// character `\u{..}` (its code point in hex), so a key or title never
/// breaks a line or a column, whatever an index holds.
pub fn tsv_field(field: &str) -> std::borrow::Cow<'_, str> {
    if !field.chars().any(|c| c == '\\' || c.is_control()) {
        return std::borrow::Cow::Borrowed(field);
    }
    let mut out = String::with_capacity(field.len() + 8);
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `name` as it is when it can be shown on one line, else as
/// [`display_key`] shows it: for source names made of a key.
pub(crate) fn display_name(name: &str) -> String {
    if name.chars().any(char::is_control) || name.chars().nth(SHOWN_CHARS).is_some() {
        display_key(name)
    } else {
        name.to_string()
    }
}

/// The error for a key a command named that breaks the key rule (and so
/// names no book that a load could have stored), or `None` for a valid key.
pub(crate) fn invalid_key(key: &str) -> Option<Error> {
    check_key(key).err().map(|reason| {
        Error::InvalidArgument(format!(
            "key {}: {reason}; no book can be stored under it ({KEY_RULE})",
            display_key(key)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked_against_the_rule() {
        let long = "k".repeat(MAX_KEY_BYTES);
        for good in ["a", "pg1342", "a b", "café", "a\u{FFFD}", "a\\b", &long] {
            assert_eq!(check_key(good), Ok(()), "{good:?}");
        }
        let too_long = "k".repeat(MAX_KEY_BYTES + 1);
        // Two-byte characters: 1026 bytes in 513 characters.
        let too_long_utf8 = "é".repeat(MAX_KEY_BYTES / 2 + 1);
        for (bad, reason) in [
            ("", "empty"),
            (too_long.as_str(), "1025 bytes"),
            (too_long_utf8.as_str(), "1026 bytes"),
            ("a\tb", "U+0009"),
            ("a\nb", "U+000A"),
            ("a\rb", "U+000D"),
            ("a\0b", "U+0000"),
            ("a\u{7f}", "U+007F"),
            ("a\u{85}b", "U+0085"),
            ("a\u{9f}", "U+009F"),
            (" a", "begins with white space"),
            ("a ", "ends with white space"),
            ("\u{3000}a", "begins with white space"),
            ("a\u{a0}", "ends with white space"),
        ] {
            let message = check_key(bad).unwrap_err();
            assert!(message.contains(reason), "{bad:?}: {message}");
        }
        assert!(check_key("\tab").unwrap_err().contains("at byte 0"));
    }

    #[test]
    fn keys_in_messages_are_escaped_and_cut() {
        assert_eq!(display_key("a\tb"), r#""a\tb""#);
        let shown = display_key(&"x".repeat(1 << 20));
        assert!(
            shown.len() < 120 && shown.ends_with("… (1048576 bytes)"),
            "{shown}"
        );
        let error = invalid_key("a\nb").unwrap().to_string();
        assert!(
            error.contains(r#"key "a\nb""#) && error.contains("U+000A"),
            "{error}"
        );
        assert!(invalid_key("ok").is_none());
        assert_eq!(display_name("a b"), "a b");
        assert_eq!(display_name(""), "");
        assert_eq!(display_name("a\tb"), r#""a\tb""#);
    }

    #[test]
    fn tsv_fields_escape_backslashes_and_control_characters() {
        assert!(matches!(
            tsv_field("plain key é"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(tsv_field("a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
        assert_eq!(tsv_field("\0\u{7f}\u{85}"), "\\u{0}\\u{7f}\\u{85}");
    }
}
