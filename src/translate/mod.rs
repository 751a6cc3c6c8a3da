//! Translation: bilingual dictionaries and the translation lexicons built
//! from them.
//!
//! [`dictionary`] reads the dictd dictionaries FreeDict publishes (an
//! `.index` and a `.dict.dz` or `.dict`) into a [`dictionary::Dictionary`]:
//! its languages, a table of normalised words and the translation pairs
//! between them. The index stores such dictionaries (`dictionaries/*.dic`,
//! storage-format.md section 6.7). [`lexicon`] joins the dictionaries of a
//! language pair, in both directions, into a [`lexicon::Lexicon`]: for each
//! source word's hash, the hashes of its translations. [`rta`] aligns a
//! text with its translation through a lexicon.

pub mod dictionary;
pub mod lexicon;
pub mod rta;

/// `n` (1 to 3999) in lower-case Roman numerals, as books number their
/// chapters: translation search leaves the untranslated ones out.
pub fn roman_numeral(mut n: u32) -> String {
    const DIGITS: [(u32, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut out = String::new();
    for (value, digits) in DIGITS {
        while n >= value {
            out.push_str(digits);
            n -= value;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roman_numerals_are_written_as_books_number_chapters() {
        assert_eq!(roman_numeral(1), "i");
        assert_eq!(roman_numeral(4), "iv");
        assert_eq!(roman_numeral(14), "xiv");
        assert_eq!(roman_numeral(1994), "mcmxciv");
        assert_eq!(roman_numeral(3999), "mmmcmxcix");
    }
}
