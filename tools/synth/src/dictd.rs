//! Dictionaries in the dictd format FreeDict ships (an `.index` of lines
//! `headword TAB offset TAB length`, the numbers in dictd's base64 digits,
//! and a `.dict` of the entries' text), for the tests and benchmarks that
//! need one.

/// `n` in dictd's base64 digits.
pub fn number(mut n: usize) -> String {
    const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[n % 64]);
        n /= 64;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII digits")
}

/// The index and the dict of `entries` (headword, entry text), in order.
pub fn files<S: AsRef<str>>(entries: &[(S, S)]) -> (String, String) {
    let (mut index, mut dict) = (String::new(), String::new());
    for (head, text) in entries {
        let text = text.as_ref();
        index.push_str(&format!(
            "{}\t{}\t{}\n",
            head.as_ref(),
            number(dict.len()),
            number(text.len())
        ));
        dict.push_str(text);
    }
    (index, dict)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_base64_digits_most_significant_first() {
        assert_eq!(number(0), "A");
        assert_eq!(number(63), "/");
        assert_eq!(number(64), "BA");
        let (index, dict) = files(&[("a", "x\n"), ("b", "yz\n")]);
        assert_eq!(index, "a\tA\tC\nb\tC\tD\n");
        assert_eq!(dict, "x\nyz\n");
    }
}
