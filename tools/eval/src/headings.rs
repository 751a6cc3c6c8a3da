//! Chapter correspondences of real translations, found by their headings:
//! a book and its translation that have as many chapter headings of one
//! kind (chapter, book, part, act, scene, canto, letter, in any of the
//! corpus's languages) correspond chapter by chapter, in order.
//!
//! A heading is a line of at most [`MAX_HEADING_WORDS`] words whose first
//! or second word names the kind (`CHAPTER IV.`, `Chapitre premier`,
//! `Zweites Kapitel`), or a line that is only a number (`XIV.`, `12`), of
//! kind `numbered`: a translation often numbers the chapters its original
//! names, so `chapter` and `numbered` headings may correspond too. A
//! heading followed by fewer than [`MIN_CHAPTER_WORDS`] words before the
//! next of its kind is an entry of a table of contents, and dropped.
//!
//! Headings are a noisy truth: a volume number or a table of contents
//! that passes for a chapter shifts a book's chapters by one against its
//! translation's, which is why the report gives P@1 within one chapter
//! beside P@1.

use std::ops::Range;

use crate::passages::{whitespace_word_starts, Correspondences};

/// Most words of a heading line.
pub const MAX_HEADING_WORDS: usize = 6;
/// Fewest words between two headings of a kind.
pub const MIN_CHAPTER_WORDS: usize = 100;
/// Fewest corresponding headings for a pair to count.
pub const MIN_HEADINGS: usize = 3;

/// Kinds of heading and their names in English, French, German, Spanish,
/// Italian, Dutch and Portuguese.
const KINDS: &[(&str, &[&str])] = &[
    (
        "chapter",
        &[
            "chapter",
            "chapitre",
            "kapitel",
            "capítulo",
            "capitulo",
            "capitolo",
            "hoofdstuk",
        ],
    ),
    ("book", &["book", "livre", "buch", "libro", "boek", "livro"]),
    ("part", &["part", "partie", "teil", "parte", "deel"]),
    (
        "act",
        &[
            "act", "acte", "akt", "aufzug", "atto", "acto", "jornada", "bedrijf",
        ],
    ),
    (
        "scene",
        &["scene", "scène", "szene", "auftritt", "scena", "escena"],
    ),
    ("canto", &["canto", "gesang", "chant"]),
    ("letter", &["letter", "lettre", "brief", "carta", "lettera"]),
];

/// The kind of a heading that is only a number.
pub const NUMBERED: &str = "numbered";

/// Whether `word` (lower-case, punctuation trimmed) is a chapter number:
/// up to three Arabic digits (four are a year) or a Roman numeral.
fn is_number(word: &str) -> bool {
    !word.is_empty()
        && ((word.len() <= 3 && word.bytes().all(|b| b.is_ascii_digit()))
            || word.bytes().all(|b| b"ivxlc".contains(&b)))
}

/// A heading: its kind and the bytes of its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// Its kind (`chapter`, `book`, ...).
    pub kind: &'static str,
    /// The bytes of its line.
    pub line: Range<usize>,
}

/// The headings of `text`, in order (see the module docs).
pub fn headings(text: &str) -> Vec<Heading> {
    let mut found = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let range = at..at + line.len();
        at += line.len();
        let words: Vec<String> = line
            .split_whitespace()
            .take(MAX_HEADING_WORDS + 1)
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .collect();
        if words.is_empty() || words.len() > MAX_HEADING_WORDS {
            continue;
        }
        let named = KINDS.iter().find(|(_, names)| {
            words
                .iter()
                .take(2)
                .any(|word| names.contains(&word.as_str()))
        });
        let kind = match named {
            Some((kind, _)) => Some(*kind),
            None if words.len() == 1 && is_number(&words[0]) => Some(NUMBERED),
            None => None,
        };
        if let Some(kind) = kind {
            found.push(Heading { kind, line: range });
        }
    }
    drop_contents_entries(text, found)
}

/// Drops the headings followed by fewer than [`MIN_CHAPTER_WORDS`] words
/// before the next heading of their kind (or the end).
fn drop_contents_entries(text: &str, headings: Vec<Heading>) -> Vec<Heading> {
    let words_between = |from: usize, to: usize| text[from..to].split_whitespace().count();
    let next_of_kind = |k: usize| {
        headings[k + 1..]
            .iter()
            .find(|h| h.kind == headings[k].kind)
            .map_or(text.len(), |h| h.line.start)
    };
    (0..headings.len())
        .filter(|&k| words_between(headings[k].line.end, next_of_kind(k)) >= MIN_CHAPTER_WORDS)
        .map(|k| headings[k].clone())
        .collect()
}

/// Query passages of `a` and candidate passages of `b`, one per
/// corresponding heading: the first `words` words after each heading of
/// the kind both texts have most of, in equal number (at least
/// [`MIN_HEADINGS`]); `None` when no kind qualifies.
pub fn chapter_starts(a: &str, b: &str, words: usize) -> Option<Correspondences> {
    let (of_a, of_b) = (headings(a), headings(b));
    let count = |of: &[Heading], kind: &str| of.iter().filter(|h| h.kind == kind).count();
    let kinds = || KINDS.iter().map(|(kind, _)| *kind).chain([NUMBERED]);
    let corresponding = |x: &str, y: &str| {
        x == y || (x, y) == ("chapter", NUMBERED) || (x, y) == (NUMBERED, "chapter")
    };
    let (kind_a, kind_b) = kinds()
        .flat_map(|x| kinds().map(move |y| (x, y)))
        .filter(|&(x, y)| corresponding(x, y) && count(&of_a, x) == count(&of_b, y))
        .max_by_key(|&(x, _)| count(&of_a, x))
        .filter(|&(x, _)| count(&of_a, x) >= MIN_HEADINGS)?;
    let starts = |text: &str, of: &[Heading], kind: &str| -> Vec<Range<usize>> {
        let word_starts = whitespace_word_starts(text);
        of.iter()
            .filter(|h| h.kind == kind)
            .map(|h| {
                let first = word_starts.partition_point(|&w| w < h.line.end);
                let end = word_starts
                    .get(first + words)
                    .copied()
                    .unwrap_or(text.len());
                word_starts.get(first).copied().unwrap_or(text.len())..end
            })
            .collect()
    };
    Some(Correspondences {
        queries: starts(a, &of_a, kind_a),
        candidates: starts(b, &of_b, kind_b),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chapter(heading: &str, words: usize) -> String {
        format!("{heading}\n\n{}\n\n", "word ".repeat(words))
    }

    #[test]
    fn headings_in_several_languages_are_found_and_contents_dropped() {
        let text = format!(
            "CONTENTS\nChapter I\nChapter II\n\n{}{}{}",
            chapter("CHAPTER I.", 150),
            chapter("Zweites Kapitel", 150),
            chapter("A line that is not a heading about a chapter", 150)
        );
        let found: Vec<&str> = headings(&text)
            .iter()
            .map(|h| text[h.line.clone()].trim())
            .collect();
        assert_eq!(found, ["CHAPTER I.", "Zweites Kapitel"]);
    }

    #[test]
    fn chapters_correspond_only_in_equal_number() {
        let three = |name: &str| {
            (1..=3)
                .map(|n| chapter(&format!("{name} {n}"), 200))
                .collect::<String>()
        };
        let (a, b) = (three("Chapter"), three("Chapitre"));
        let truth = chapter_starts(&a, &b, 50).unwrap();
        assert_eq!(truth.queries.len(), 3);
        assert_eq!(truth.candidates.len(), 3);
        let second = &a[truth.queries[1].clone()];
        assert!(second.starts_with("word"));
        assert_eq!(second.split_whitespace().count(), 50);
        let two = format!("{}{}", chapter("Kapitel 1", 200), chapter("Kapitel 2", 200));
        assert!(chapter_starts(&a, &two, 50).is_none());
        let numbered: String = ["I.", "II.", "III."].map(|n| chapter(n, 200)).concat();
        assert_eq!(
            chapter_starts(&a, &numbered, 50).unwrap().candidates.len(),
            3
        );
    }
}
