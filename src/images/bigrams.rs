//! Letter bigrams: the classes a word is decomposed into (thesis 7.3.2),
//! and the normalised q-gram similarity of two words (eq. 7.29) that the
//! OCR side of a search uses.
//!
//! The alphabet is the word boundary (a space), the digits, the ASCII
//! letters in both cases and one class for every other letter: 64
//! symbols, 4,096 bigram classes. A word of n symbols has n + 1 bigrams,
//! the boundary ones included: "the" is ␣t, th, he, e␣. Punctuation is
//! dropped at every stage, as in the thesis. Image search is
//! case-sensitive by default, because the two cases look different; a
//! search that ignores case compares OCR words by their bigrams folded to
//! small letters ([`fold_case`]).

/// Symbols of the alphabet: boundary, 10 digits, 26 + 26 letters, other.
pub const SYMBOLS: usize = 64;
/// Letter-bigram classes: every ordered pair of symbols.
pub const CLASSES: usize = SYMBOLS * SYMBOLS;

/// The word boundary's symbol.
pub const BOUNDARY: u16 = 0;
const OTHER_LETTER: u16 = 63;

/// A letter-bigram class, `first * SYMBOLS + second`.
pub type Bigram = u16;

/// The symbol of a character: `None` for what is dropped (punctuation,
/// marks, spaces inside a word).
fn symbol(c: char) -> Option<u16> {
    match c {
        '0'..='9' => Some(1 + (c as u16 - '0' as u16)),
        'A'..='Z' => Some(11 + (c as u16 - 'A' as u16)),
        'a'..='z' => Some(37 + (c as u16 - 'a' as u16)),
        _ if c.is_alphabetic() => Some(OTHER_LETTER),
        _ => None,
    }
}

/// The symbol of a capital ASCII letter's small letter; any other symbol
/// as it is.
fn fold_symbol(symbol: u16) -> u16 {
    match symbol {
        11..=36 => symbol + 26,
        _ => symbol,
    }
}

/// The bigram with both its letters small: "Fa" and "FA" fold to "fa".
pub fn fold_case(bigram: Bigram) -> Bigram {
    let (a, b) = (bigram / SYMBOLS as u16, bigram % SYMBOLS as u16);
    fold_symbol(a) * SYMBOLS as u16 + fold_symbol(b)
}

/// The character a symbol stands for, for display: `␣` for the boundary,
/// `·` for another letter.
pub fn symbol_char(symbol: u16) -> char {
    match symbol {
        BOUNDARY => '␣',
        1..=10 => (b'0' + (symbol - 1) as u8) as char,
        11..=36 => (b'A' + (symbol - 11) as u8) as char,
        37..=62 => (b'a' + (symbol - 37) as u8) as char,
        _ => '·',
    }
}

/// A bigram class as two characters, for display.
pub fn bigram_text(bigram: Bigram) -> String {
    let (a, b) = (bigram / SYMBOLS as u16, bigram % SYMBOLS as u16);
    [symbol_char(a), symbol_char(b)].iter().collect()
}

/// The word as search sees it: its letters and digits, punctuation
/// dropped, case kept. Empty when nothing is left.
pub fn search_form(word: &str) -> String {
    word.chars().filter(|&c| symbol(c).is_some()).collect()
}

/// The symbols of `word`'s letters and digits, in order (punctuation
/// dropped), boundaries not included.
pub fn symbols(word: &str) -> impl Iterator<Item = u16> + '_ {
    word.chars().filter_map(symbol)
}

/// [`bigrams`] of `word` folded to small letters ([`fold_case`]).
pub fn folded_bigrams(word: &str) -> Vec<Bigram> {
    let mut out = bigrams(word);
    out.iter_mut().for_each(|b| *b = fold_case(*b));
    out
}

/// The letter bigrams of `word` in order, boundaries included; none when
/// the word has no letter or digit.
pub fn bigrams(word: &str) -> Vec<Bigram> {
    let mut out = Vec::with_capacity(word.len() + 1);
    bigrams_into(word, &mut out);
    out
}

/// [`bigrams`] into `out` (cleared first), for callers that reuse a buffer.
pub fn bigrams_into(word: &str, out: &mut Vec<Bigram>) {
    out.clear();
    let mut previous = BOUNDARY;
    for s in word.chars().filter_map(symbol) {
        out.push(previous * SYMBOLS as u16 + s);
        previous = s;
    }
    if !out.is_empty() {
        out.push(previous * SYMBOLS as u16 + BOUNDARY);
    }
}

/// Normalised q-gram similarity (eq. 7.29) of two words over their letter
/// bigrams: `1 − D / (|x| + |y|)`, D the Manhattan distance between their
/// bigram count vectors and |x|, |y| their bigram counts. 1 for equal
/// words, 0 for words sharing no bigram or when either has none.
pub fn qgram_similarity(x: &[Bigram], y: &[Bigram]) -> f64 {
    let (mut a, mut b) = (x.to_vec(), y.to_vec());
    a.sort_unstable();
    b.sort_unstable();
    qgram_similarity_sorted(&a, &b)
}

/// [`qgram_similarity`] of two bigram lists already sorted.
fn qgram_similarity_sorted(a: &[Bigram], b: &[Bigram]) -> f64 {
    let total = a.len() + b.len();
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    // D = |x| + |y| − 2·shared, so 1 − D/(|x|+|y|) = 2·shared/(|x|+|y|).
    2.0 * shared_count(a, b) as f64 / total as f64
}

/// Size of the multiset intersection of two sorted lists.
fn shared_count(a: &[Bigram], b: &[Bigram]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(word: &str) -> Vec<String> {
        bigrams(word).into_iter().map(bigram_text).collect()
    }

    #[test]
    fn a_word_has_its_bigrams_with_both_boundaries() {
        assert_eq!(texts("the"), ["␣t", "th", "he", "e␣"]);
        assert_eq!(texts("I"), ["␣I", "I␣"]);
        assert_eq!(texts("\"Well,"), ["␣W", "We", "el", "ll", "l␣"]);
        assert_eq!(texts("née"), ["␣n", "n·", "·e", "e␣"]);
        assert!(bigrams("—").is_empty());
        assert!(bigrams("").is_empty());
    }

    #[test]
    fn classes_are_distinct_and_in_range() {
        let all: std::collections::HashSet<Bigram> =
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzé"
                .chars()
                .flat_map(|c| bigrams(&c.to_string()))
                .collect();
        assert_eq!(all.len(), 2 * 63);
        assert!(all.iter().all(|&b| (b as usize) < CLASSES));
    }

    #[test]
    fn qgram_similarity_is_one_for_equal_words_and_falls_with_errors() {
        let q = |a: &str, b: &str| qgram_similarity(&bigrams(a), &bigrams(b));
        assert_eq!(q("Heathcliff", "Heathcliff"), 1.0);
        assert_eq!(q("Heathcliff,", "Heathcliff"), 1.0);
        assert!(q("Heathcliff", "Heathclif") > q("Heathcliff", "Hcatbcliff"));
        assert_eq!(q("abc", "xyz"), 0.0);
        assert_eq!(q("", "abc"), 0.0);
        // "the" and "there" share ␣t th he e␣, of 4 and 6 bigrams.
        assert!((q("the", "there") - 0.8).abs() < 1e-12);
        assert_eq!(q("the", "The"), q("the", "Xhe"));
    }

    #[test]
    fn folding_makes_ascii_letters_small() {
        let text = |b: Bigram| bigram_text(b);
        let the = bigrams("The");
        assert_eq!(
            the.iter().map(|&b| text(fold_case(b))).collect::<Vec<_>>(),
            ["␣t", "th", "he", "e␣"]
        );
        assert_eq!(
            bigrams("tHE")
                .into_iter()
                .map(fold_case)
                .collect::<Vec<_>>(),
            bigrams("the")
        );
        assert_eq!(fold_case(bigrams("1")[0]), bigrams("1")[0]);
        assert_eq!(fold_case(bigrams("É")[0]), bigrams("é")[0]);
        for class in 0..CLASSES as Bigram {
            assert_eq!(fold_case(fold_case(class)), fold_case(class));
        }
    }

    #[test]
    fn search_form_keeps_letters_and_digits() {
        assert_eq!(search_form("\"Well,"), "Well");
        assert_eq!(search_form("1847."), "1847");
        assert_eq!(search_form("—"), "");
    }
}
