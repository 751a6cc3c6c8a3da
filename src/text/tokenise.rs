//! The tokeniser: one pass over the text, emitting normalised words and page
//! breaks, each with the byte range of the text it came from.

use std::ops::Range;

/// Words longer than this many bytes (after normalisation) are dropped: no
/// real word is that long, and a megabyte-long "word" must not reach the index.
pub const MAX_WORD_BYTES: usize = 64;

/// One item of tokenised text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    /// A normalised word: lower-case letters only.
    Word(&'a str),
    /// A page break (form feed in the input).
    PageBreak,
}

/// Counts from one tokenising pass.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TokenStats {
    /// Words emitted.
    pub words: u64,
    /// Page breaks emitted.
    pub page_breaks: u64,
    /// Tokens dropped for being longer than [`MAX_WORD_BYTES`].
    pub overlong_tokens: u64,
}

/// The page break: a form feed ends a page.
pub const PAGE_BREAK: char = '\x0c';
const SOFT_HYPHEN: char = '\u{ad}';

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}')
}

fn is_line_end_hyphen(c: char) -> bool {
    matches!(c, '-' | SOFT_HYPHEN | '\u{2010}')
}

/// If `rest` (the text after a hyphen) is a line end followed by the next
/// word's first letter, returns how many bytes to skip to reach that letter.
fn hyphenated_line_end(rest: &str) -> Option<usize> {
    let trimmed = rest.trim_start_matches([' ', '\t', '\r']);
    let after_newline = trimmed.strip_prefix('\n')?;
    let next = after_newline.trim_start_matches([' ', '\t']);
    next.chars()
        .next()
        .filter(|c| c.is_alphabetic())
        .map(|_| rest.len() - next.len())
}

/// Accumulates one word's letters and emits it when the word ends.
struct WordBuffer<'s> {
    word: String,
    overlong: bool,
    /// Byte range of the text the word's letters came from.
    source: Range<usize>,
    stats: &'s mut TokenStats,
}

impl<'s> WordBuffer<'s> {
    /// An empty word, counting into `stats`.
    fn new(stats: &'s mut TokenStats) -> Self {
        WordBuffer {
            word: String::with_capacity(MAX_WORD_BYTES + 8),
            overlong: false,
            source: 0..0,
            stats,
        }
    }

    fn push(&mut self, at: usize, c: char) {
        if !self.in_word() {
            self.source.start = at;
        }
        self.source.end = at + c.len_utf8();
        if self.overlong {
            return;
        }
        if c.is_ascii() {
            self.word.push(c.to_ascii_lowercase());
        } else {
            // Keep only letters: lower-casing can yield combining marks
            // (İ → i + U+0307), which a second pass would treat as separators.
            self.word
                .extend(c.to_lowercase().filter(|l| l.is_alphabetic()));
        }
        if self.word.len() > MAX_WORD_BYTES {
            self.overlong = true;
        }
    }

    /// [`WordBuffer::push`] of each of `letters`, ASCII letters that start
    /// at byte `at`, at once.
    #[inline]
    fn push_ascii(&mut self, at: usize, letters: &str) {
        if !self.in_word() {
            self.source.start = at;
        }
        self.source.end = at + letters.len();
        if self.overlong {
            return;
        }
        // Past MAX_WORD_BYTES the word is dropped: its letters beyond one
        // more byte are never read.
        let room = MAX_WORD_BYTES + 1 - self.word.len();
        let start = self.word.len();
        self.word.push_str(&letters[..letters.len().min(room)]);
        self.word[start..].make_ascii_lowercase();
        if self.word.len() > MAX_WORD_BYTES {
            self.overlong = true;
        }
    }

    fn in_word(&self) -> bool {
        !self.word.is_empty() || self.overlong
    }

    fn end(&mut self, emit: &mut impl FnMut(Token<'_>, Range<usize>)) {
        if self.overlong {
            self.stats.overlong_tokens += 1;
        } else if !self.word.is_empty() {
            self.stats.words += 1;
            emit(Token::Word(&self.word), self.source.clone());
        }
        self.word.clear();
        self.overlong = false;
    }
}

/// Tokenises `text`, calling `emit` for each normalised word and page break
/// in order. Never panics, whatever the input.
pub fn tokenise(text: &str, mut emit: impl FnMut(Token<'_>)) -> TokenStats {
    tokenise_spans(text, |token, _| emit(token))
}

/// Tokenises `text` as [`tokenise`] does, also giving each token the byte
/// range of `text` it came from: for a word, from its first letter to the end
/// of its last (a hyphenated line end, soft hyphen or apostrophe inside the
/// word is part of the range); for a page break, the form feed. Ranges
/// are increasing, do not overlap and lie on character boundaries.
pub fn tokenise_spans(text: &str, mut emit: impl FnMut(Token<'_>, Range<usize>)) -> TokenStats {
    let mut stats = TokenStats::default();
    let mut buffer = WordBuffer::new(&mut stats);
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte.is_ascii_alphabetic() {
            // A run of ASCII letters: what pushing them one by one does.
            // Whether it has a capital is learnt in the same pass.
            let (run, capitals) = ascii_letter_run(&bytes[at..]);
            let word = &text[at..at + run];
            // A whole word already lower-case, ended by what cannot join it
            // to more letters (not an apostrophe or hyphen, not a non-ASCII
            // character): given as it is in the text, without a copy.
            let ends = bytes
                .get(at + run)
                .is_none_or(|&next| next.is_ascii() && next != b'\'' && next != b'-');
            if ends && !capitals && !buffer.in_word() && run <= MAX_WORD_BYTES {
                buffer.stats.words += 1;
                emit(Token::Word(word), at..at + run);
            } else {
                buffer.push_ascii(at, word);
            }
            at += run;
            continue;
        }
        let c = if byte.is_ascii() {
            char::from(byte)
        } else {
            match text[at..].chars().next() {
                Some(c) => c,
                None => break,
            }
        };
        let width = c.len_utf8();
        if c.is_alphabetic() {
            buffer.push(at, c);
            at += width;
            continue;
        }
        if buffer.in_word() {
            let next_is_letter = || {
                text[at + width..]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphabetic)
            };
            if c == SOFT_HYPHEN || (is_apostrophe(c) && next_is_letter()) {
                at += width;
                continue;
            }
            if is_line_end_hyphen(c) {
                if let Some(skip) = hyphenated_line_end(&text[at + width..]) {
                    at += width + skip;
                    continue;
                }
            }
        }
        buffer.end(&mut emit);
        if c == PAGE_BREAK {
            buffer.stats.page_breaks += 1;
            emit(Token::PageBreak, at..at + 1);
        }
        at += width;
    }
    buffer.end(&mut emit);
    stats
}

/// The length of the run of ASCII letters that starts `bytes`, and
/// whether it holds a capital.
#[inline]
fn ascii_letter_run(bytes: &[u8]) -> (usize, bool) {
    let mut capitals = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'a'..=b'z' => {}
            b'A'..=b'Z' => capitals = true,
            _ => return (i, capitals),
        }
    }
    (bytes.len(), capitals)
}

/// The normalised form of `text`: its words separated by single spaces, pages
/// separated by form feeds. Normalising twice gives the same string.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at_page_start = true;
    tokenise(text, |token| match token {
        Token::Word(word) => {
            if !at_page_start {
                out.push(' ');
            }
            out.push_str(word);
            at_page_start = false;
        }
        Token::PageBreak => {
            out.push(PAGE_BREAK);
            at_page_start = true;
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokenise(text, |t| {
            if let Token::Word(w) = t {
                out.push(w.to_string())
            }
        });
        out
    }

    #[test]
    fn folds_case_and_drops_punctuation_and_digits() {
        assert_eq!(
            words("The CAT, sat; on 42 mats. Page 17"),
            ["the", "cat", "sat", "on", "mats", "page"]
        );
        assert_eq!(words("ÉCOLE Straße ΣΟΦΙΑ"), ["école", "straße", "σοφια"]);
    }

    #[test]
    fn joins_words_hyphenated_at_line_end_but_not_inside_lines() {
        assert_eq!(words("an exam-\nple here"), ["an", "example", "here"]);
        assert_eq!(words("an exam-  \r\n   ple"), ["an", "example"]);
        assert_eq!(words("well-known"), ["well", "known"]);
        assert_eq!(words("end -\nnext"), ["end", "next"]);
        assert_eq!(words("trailing-\n\n"), ["trailing"]);
    }

    #[test]
    fn removes_soft_hyphens_and_in_word_apostrophes() {
        assert_eq!(words("don't co\u{ad}operate"), ["dont", "cooperate"]);
        assert_eq!(words("dogs' 'quoted'"), ["dogs", "quoted"]);
        assert_eq!(words("it\u{2019}s"), ["its"]);
    }

    #[test]
    fn form_feed_is_a_page_break() {
        let mut tokens = Vec::new();
        tokenise("one\x0ctwo", |t| tokens.push(format!("{t:?}")));
        assert_eq!(tokens, ["Word(\"one\")", "PageBreak", "Word(\"two\")"]);
    }

    #[test]
    fn overlong_tokens_are_dropped_and_counted() {
        let long = "x".repeat(10 * 1024 * 1024);
        let text = format!("before {long} after");
        let mut seen = Vec::new();
        let stats = tokenise(&text, |t| {
            if let Token::Word(w) = t {
                seen.push(w.len())
            }
        });
        assert_eq!(seen, [6, 5]);
        assert_eq!(stats.overlong_tokens, 1);
        assert_eq!(stats.words, 2);
    }

    fn spans(text: &str) -> Vec<(String, &str)> {
        let mut out = Vec::new();
        tokenise_spans(text, |t, range| {
            let word = match t {
                Token::Word(w) => w.to_string(),
                Token::PageBreak => "<page>".to_string(),
            };
            out.push((word, &text[range]));
        });
        out
    }

    #[test]
    fn spans_cover_each_word_in_the_original_text() {
        let text = "The  exam-\nple, don't\x0cÉCOLE co\u{ad}op!";
        let expected = [
            ("the", "The"),
            ("example", "exam-\nple"),
            ("dont", "don't"),
            ("<page>", "\x0c"),
            ("école", "ÉCOLE"),
            ("coop", "co\u{ad}op"),
        ];
        let found = spans(text);
        let found: Vec<(&str, &str)> = found.iter().map(|(w, s)| (w.as_str(), *s)).collect();
        assert_eq!(found, expected);
        assert!(spans(&format!("a {} b", "x".repeat(100)))
            .iter()
            .all(|(_, s)| s.len() == 1));
    }

    #[test]
    fn normalise_output_is_words_and_page_breaks() {
        assert_eq!(normalise("A b.\n\nC\x0cD, e!"), "a b c\x0cd e");
    }

    /// The tokeniser one character at a time, as first written: the
    /// reference the ASCII runs of [`tokenise_spans`] must match.
    fn reference_spans(text: &str, mut emit: impl FnMut(Token<'_>, Range<usize>)) -> TokenStats {
        let mut stats = TokenStats::default();
        let mut buffer = WordBuffer::new(&mut stats);
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if c.is_alphabetic() {
                buffer.push(at, c);
                continue;
            }
            let next_is_letter = chars.peek().is_some_and(|&(_, n)| n.is_alphabetic());
            if buffer.in_word() && (c == SOFT_HYPHEN || (is_apostrophe(c) && next_is_letter)) {
                continue;
            }
            if buffer.in_word() && is_line_end_hyphen(c) {
                let rest = &text[at + c.len_utf8()..];
                if let Some(skip) = hyphenated_line_end(rest) {
                    let resume = at + c.len_utf8() + skip;
                    while chars.peek().is_some_and(|&(i, _)| i < resume) {
                        chars.next();
                    }
                    continue;
                }
            }
            buffer.end(&mut emit);
            if c == PAGE_BREAK {
                buffer.stats.page_breaks += 1;
                emit(Token::PageBreak, at..at + 1);
            }
        }
        buffer.end(&mut emit);
        stats
    }

    type Emit<'e> = &'e mut dyn FnMut(Token<'_>, Range<usize>);

    fn all_spans(
        text: &str,
        tokeniser: fn(&str, Emit<'_>) -> TokenStats,
    ) -> (Vec<(String, Range<usize>)>, TokenStats) {
        let mut out = Vec::new();
        let stats = tokeniser(text, &mut |token, range| {
            out.push((format!("{token:?}"), range));
        });
        (out, stats)
    }

    #[test]
    fn ascii_runs_tokenise_as_characters_one_by_one() {
        let long = format!(
            "{} {}É{} z",
            "Ab".repeat(40),
            "c".repeat(60),
            "d".repeat(10)
        );
        let edges = format!(
            "{} {}.{}'s {}-\nx {}é {}",
            "a".repeat(64),
            "b".repeat(65),
            "c".repeat(63),
            "d".repeat(64),
            "e".repeat(64),
            "f".repeat(65)
        );
        for text in [
            edges.as_str(),
            "The CAT's exam-\n  ple co\u{ad}op İstanbul ΣΟΦΙΑ-\nΩ don\u{2019}t",
            long.as_str(),
            "x'\x0c'y -\n\n a-\r\n\tb é-\nE",
        ] {
            assert_eq!(
                all_spans(text, |t, e| tokenise_spans(t, e)),
                all_spans(text, |t, e| reference_spans(t, e)),
                "{text:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn tokenise_equals_the_reference(
            text in "[a-zA-Z'\u{2019}\u{ad}\u{2010}\\- \t\r\n\x0c.,0-9éÉİßσΣǅ\u{301}]{0,120}"
        ) {
            prop_assert_eq!(
                all_spans(&text, |t, e| tokenise_spans(t, e)),
                all_spans(&text, |t, e| reference_spans(t, e))
            );
        }

        #[test]
        fn tokenise_equals_the_reference_on_any_text(text in any::<String>()) {
            prop_assert_eq!(
                all_spans(&text, |t, e| tokenise_spans(t, e)),
                all_spans(&text, |t, e| reference_spans(t, e))
            );
        }

        #[test]
        fn normalising_twice_changes_nothing(text in "\\PC{0,200}") {
            let once = normalise(&text);
            prop_assert_eq!(normalise(&once), once);
        }

        #[test]
        fn spans_are_increasing_char_boundary_ranges_and_tokens_match_tokenise(
            text in any::<String>()
        ) {
            let mut plain = Vec::new();
            tokenise(&text, |t| plain.push(format!("{t:?}")));
            let mut spanned = Vec::new();
            let mut last_end = 0;
            tokenise_spans(&text, |t, range| {
                assert!(last_end <= range.start && range.start < range.end);
                assert!(text.get(range.clone()).is_some());
                last_end = range.end;
                spanned.push(format!("{t:?}"));
            });
            prop_assert_eq!(plain, spanned);
        }

        #[test]
        fn tokenise_never_panics_and_words_are_short_letters(text in any::<String>()) {
            tokenise(&text, |t| if let Token::Word(w) = t {
                assert!(!w.is_empty() && w.len() <= MAX_WORD_BYTES);
                assert!(w.chars().all(|c| !c.is_whitespace() && !c.is_ascii_digit()));
            });
        }
    }
}
