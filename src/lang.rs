//! Book languages, as ISO 639-3 codes (`eng`, `deu`, `fra`: the codes of
//! FreeDict's file names, which name a dictionary's two languages).
//!
//! A language given with a document (JSON Lines `"language"`, a metadata
//! file, a Project Gutenberg `Language:` line, [`crate::Document::with_language`])
//! is normalised: two- and three-letter codes (ISO 639-1, 639-3 and the
//! bibliographic 639-2/B codes of library records, such as `ger`), locales
//! (`en-US`, `pt_BR`) and English names (`German`) all become the 639-3
//! code. A given value of three letters that names no language the
//! detector knows is kept, lowercased (`grc`, `enm`: ISO 639-3 has more
//! languages than the detector). A document without one, or whose value
//! is not a language (`a<TAB>b`, a paragraph), has its language detected
//! from its text ([`detect`]), and a book whose language cannot be told is
//! [`UNDETERMINED`]: every book's language is three lowercase letters.

use std::borrow::Cow;

use isolang::Language;

/// The code of a book whose language could not be told (ISO 639-3 `und`).
pub const UNDETERMINED: &str = "und";

/// Bytes of text looked at per sample when detecting a language.
const SAMPLE_BYTES: usize = 4096;

/// Where the samples are taken, as shares of the text: away from the front
/// matter and the back matter, where a licence, a publisher's note or an
/// index in another language would mislead.
const SAMPLE_AT: [f64; 3] = [0.3, 0.5, 0.7];

/// The least confidence (whatlang's, 0 to 1) of a detection that is kept.
const MIN_CONFIDENCE: f64 = 0.5;

/// ISO 639-2/B codes (library records) that differ from their 639-3 code.
const BIBLIOGRAPHIC: [(&str, &str); 20] = [
    ("alb", "sqi"),
    ("arm", "hye"),
    ("baq", "eus"),
    ("bur", "mya"),
    ("chi", "zho"),
    ("cze", "ces"),
    ("dut", "nld"),
    ("fre", "fra"),
    ("geo", "kat"),
    ("ger", "deu"),
    ("gre", "ell"),
    ("ice", "isl"),
    ("mac", "mkd"),
    ("mao", "mri"),
    ("may", "msa"),
    ("per", "fas"),
    ("rum", "ron"),
    ("slo", "slk"),
    ("tib", "bod"),
    ("wel", "cym"),
];

/// Whether `language` names a language a dictionary could join: neither
/// empty (a book loaded before languages were recorded) nor undetermined.
pub fn is_known(language: &str) -> bool {
    !language.is_empty() && language != UNDETERMINED
}

/// The ISO 639-3 code of a language given as a code, a locale or an English
/// name; `None` when it names none. Empty input gives `None`.
///
/// ```
/// use stemmata::lang::normalise;
/// assert_eq!(normalise("en").as_deref(), Some("eng"));
/// assert_eq!(normalise("de-AT").as_deref(), Some("deu"));
/// assert_eq!(normalise("ger").as_deref(), Some("deu"));
/// assert_eq!(normalise("French").as_deref(), Some("fra"));
/// assert_eq!(normalise("klingon-ish"), None);
/// ```
pub fn normalise(given: &str) -> Option<String> {
    let given = given.trim().to_lowercase();
    if given.is_empty() {
        return None;
    }
    let primary = given.split(['-', '_']).next().unwrap_or_default();
    let by_code = match primary.len() {
        2 => Language::from_639_1(primary),
        3 => BIBLIOGRAPHIC
            .iter()
            .find(|(b, _)| *b == primary)
            .map_or(primary, |(_, t)| t)
            .parse::<Language>()
            .ok(),
        _ => None,
    };
    by_code
        .or_else(|| Language::from_name_lowercase(&given))
        .map(|language| language.to_639_3().to_string())
}

/// The language of a book, always an ISO 639-3 code: `given` normalised
/// when it names a language; kept, lowercased, when it is three ASCII
/// letters (a code of a language the detector does not know, `grc`,
/// `enm`); else (empty, or anything else) detected from `text`.
///
/// ```
/// use stemmata::lang::of_book;
/// let text = "It was the best of times, it was the worst of times, it was the age of \
///     wisdom, it was the age of foolishness, it was the epoch of belief, it was the \
///     epoch of incredulity, it was the season of Light, it was the season of Darkness.";
/// assert_eq!(of_book("English", text), "eng");
/// assert_eq!(of_book("GRC", text), "grc");
/// assert_eq!(of_book("a\tb", text), "eng");
/// assert_eq!(of_book(&"x".repeat(5000), text), "eng");
/// ```
pub fn of_book(given: &str, text: &str) -> String {
    if let Some(code) = normalise(given) {
        return code;
    }
    let code = given.trim().to_ascii_lowercase();
    if is_code(&code) {
        return code;
    }
    detect(text).to_string()
}

/// Whether `language` has the form of an ISO 639-3 code, the form every
/// book's language has: three lowercase ASCII letters.
pub fn is_code(language: &str) -> bool {
    language.len() == 3 && language.bytes().all(|b| b.is_ascii_lowercase())
}

/// The language of `text`, detected from three samples of
/// 4 KiB at 30%, 50% and 70% of it (the whole text
/// when it is shorter), or [`UNDETERMINED`] when whatlang is not confident
/// enough (short texts, texts of several languages, OCR junk).
pub fn detect(text: &str) -> &'static str {
    let sample = sample(text);
    match whatlang::detect(&sample) {
        Some(info) if info.confidence() >= MIN_CONFIDENCE => info.lang().code(),
        _ => UNDETERMINED,
    }
}

/// The text the detector reads: the samples, joined by newlines.
fn sample(text: &str) -> Cow<'_, str> {
    let len = text.len();
    if len <= SAMPLE_BYTES * SAMPLE_AT.len() {
        return Cow::Borrowed(text);
    }
    let mut sample = String::with_capacity(SAMPLE_BYTES * SAMPLE_AT.len() + SAMPLE_AT.len());
    for at in SAMPLE_AT {
        let start = char_boundary_at(text, (len as f64 * at) as usize - SAMPLE_BYTES / 2);
        let end = char_boundary_at(text, start + SAMPLE_BYTES);
        sample.push_str(&text[start..end]);
        sample.push('\n');
    }
    Cow::Owned(sample)
}

/// The last character boundary of `text` at or before byte `at`.
fn char_boundary_at(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_locales_and_names_become_iso_639_3() {
        for (given, code) in [
            ("en", "eng"),
            ("EN", "eng"),
            ("eng", "eng"),
            ("en-US", "eng"),
            ("pt_BR", "por"),
            ("de", "deu"),
            ("ger", "deu"),
            ("deu", "deu"),
            ("fre", "fra"),
            ("German", "deu"),
            ("spanish", "spa"),
            (" it ", "ita"),
        ] {
            assert_eq!(normalise(given).as_deref(), Some(code), "{given}");
        }
        for given in ["", "  ", "xx", "zzz-custom", "not a language"] {
            assert_eq!(normalise(given), None, "{given}");
        }
    }

    #[test]
    fn a_given_language_wins_over_the_text() {
        let english = "It was the best of times, it was the worst of times.";
        assert_eq!(of_book("de", english), "deu");
        assert_eq!(of_book("ZZZ", english), "zzz");
        // A value that is no language and no code is not kept: the text
        // decides.
        assert_eq!(of_book("Collection-Code", english), detect(english));
        assert_eq!(of_book("a\tb", english), detect(english));
    }

    #[test]
    fn languages_are_detected_from_the_middle_of_the_text() {
        let german = "Es war einmal ein König, der hatte drei Töchter, und die jüngste \
                      war so schön, dass die Sonne selber sich verwunderte, so oft sie \
                      ihr ins Gesicht schien. ";
        let licence = "This eBook is for the use of anyone anywhere at no cost. ".repeat(40);
        // An English licence at both ends of a German book.
        let book = format!("{licence}{}{licence}", german.repeat(200));
        assert_eq!(of_book("", &book), "deu");
        assert_eq!(detect(&german.repeat(3)), "deu");
    }

    #[test]
    fn junk_and_tiny_texts_are_undetermined() {
        assert_eq!(detect(""), UNDETERMINED);
        assert_eq!(detect("x7 q9 zz 41 k"), UNDETERMINED);
    }
}
