//! Seeded synthetic book collections with known relations.
//!
//! [`generate`] builds a collection of "works", each of which spawns a family of
//! related books: the original text, editions of it (OCR noise, added prefaces
//! and notes, small word-level edits) and anthologies that contain several
//! originals verbatim, plus unrelated standalone books. Every pair of books that
//! genuinely shares most of the smaller book's text is listed as ground truth in
//! [`SynthCollection::pairs`], so the collection serves demos, benchmarks and
//! recall/precision tests of related-book detection.
//!
//! Texts are made of pseudo-words drawn from a Zipf-distributed vocabulary
//! ([`zipf_vocabulary`]) and laid out like scanned books: lines wrapped at about
//! 70 characters, blank lines between paragraphs, form feeds between pages and
//! occasional page numbers. Generation is pure and deterministic: the same
//! [`SynthOptions`] always yield the same collection.
//!
//! [`stream`] yields a collection of any size one book at a time, with the
//! same families, editions and anthologies, holding only a few books at once;
//! each book carries its ground truth, which [`GroundTruth`] gathers without
//! the texts (module `stream`).
//!
//! [`sets`] writes labelled test collections in the corpus layout: large
//! volumes that bind many works, and pairs of OCR-noisy copies;
//! [`translated`] the word-by-word dictionary translations of corpus books,
//! with the passage alignments of each; [`translated_volumes`] translated
//! works inside volumes of the other language, and [`human_translations`]
//! pieces of the corpus's human translations inside them; [`dictd`] writes
//! dictionaries in the format FreeDict ships.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod dictd;
pub mod human_translations;
pub mod sets;
mod stream;
pub mod translated;
pub mod translated_volumes;

pub use stream::{stream, BookStream, GroundTruth, StreamOptions};

use std::collections::HashSet;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt, SeedableRng};

/// Target width of a text line, in characters.
const LINE_WIDTH: usize = 70;
/// Inclusive range of the number of words on a page.
const PAGE_WORDS: (usize, usize) = (270, 330);
/// Probability that a page starts with its page number.
const PAGE_NUMBER_PROBABILITY: f64 = 0.5;
/// Probability that a word inside a sentence is followed by a comma.
const COMMA_PROBABILITY: f64 = 0.07;
/// Probability of each edition variant (preface, notes, word edits).
const VARIANT_PROBABILITY: f64 = 0.35;
/// Inclusive range of the share of words replaced by a word-level edit.
const EDIT_SHARE: (f64, f64) = (0.01, 0.03);
/// Inclusive range of the length of a preface or notes, relative to the work.
const SUPPLEMENT_SHARE: (f64, f64) = (0.05, 0.15);
/// Inclusive range of the word count of the linking text before an anthology part.
const LINK_WORDS: (usize, usize) = (40, 150);
/// Characters that OCR noise inserts as stray marks.
const STRAY_MARKS: &[u8] = b".,'il1";

const VOCABULARY_STREAM: u64 = 1;
const FAMILY_STREAM: u64 = 2;
const ANTHOLOGY_STREAM: u64 = 3;
const SOLO_STREAM: u64 = 4;
const LAYOUT_STREAM: u64 = 5;
const STREAM_LAYOUT_STREAM: u64 = 6;
const VOLUME_STREAM: u64 = 7;
const STREAM_VOLUME_LAYOUT_STREAM: u64 = 8;

const ONSETS: &[&str] = &[
    "", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
    "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr",
];
const NUCLEI: &[&str] = &["a", "e", "i", "o", "u", "ai", "ea", "ou", "io"];
const CODAS: &[&str] = &["", "", "n", "r", "s", "l", "m", "nd", "st", "th"];

/// Options controlling [`generate`].
#[derive(Debug, Clone, PartialEq)]
pub struct SynthOptions {
    /// Seed of every random choice; the same options always give the same collection.
    pub seed: u64,
    /// Number of works; each work spawns a family of related books.
    pub num_families: usize,
    /// Size of the Zipf vocabulary (at least one word is always used).
    pub vocab_size: usize,
    /// Exponent of the Zipf distribution of word frequencies.
    pub zipf_exponent: f64,
    /// Minimum length of an original work, in words.
    pub min_words: usize,
    /// Maximum length of an original work, in words.
    pub max_words: usize,
    /// Inclusive range of the number of extra editions per work.
    pub editions_per_family: (usize, usize),
    /// Inclusive range of the per-character OCR noise rate of editions and anthologies.
    pub ocr_noise: (f64, f64),
    /// Fraction of families whose original also appears inside an anthology.
    pub anthology_share: f64,
    /// Number of extra standalone books that have no relative.
    pub unrelated_books: usize,
}

impl Default for SynthOptions {
    /// 100 families and the default settings of [`SynthOptions::with_families`], seed 0.
    fn default() -> Self {
        Self::with_families(100, 0)
    }
}

impl SynthOptions {
    /// Options for `num_families` works with the given seed and default settings
    /// otherwise: a 50,000-word vocabulary with Zipf exponent 1.07, works of
    /// 3,000 to 12,000 words, 0 to 2 editions per work, OCR noise rates up to
    /// 5%, 15% of originals in anthologies and `num_families / 2` unrelated books.
    pub fn with_families(num_families: usize, seed: u64) -> Self {
        Self {
            seed,
            num_families,
            vocab_size: 50_000,
            zipf_exponent: 1.07,
            min_words: 3_000,
            max_words: 12_000,
            editions_per_family: (0, 2),
            ocr_noise: (0.0, 0.05),
            anthology_share: 0.15,
            unrelated_books: num_families / 2,
        }
    }
}

/// How the two books of a [`SynthPair`] are related.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SynthRelation {
    /// Both books are versions of the same work (the original or an edition).
    Edition,
    /// Book `a` contains the text of book `b` (an anthology and one of its works).
    Contains,
}

/// A known relation between two books of a [`SynthCollection`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthPair {
    /// Index of the first book in [`SynthCollection::books`]; the container for
    /// [`SynthRelation::Contains`], the smaller index for [`SynthRelation::Edition`].
    pub a: usize,
    /// Index of the second book in [`SynthCollection::books`]; the contained book
    /// for [`SynthRelation::Contains`].
    pub b: usize,
    /// How the two books are related.
    pub relation: SynthRelation,
}

/// One generated book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthBook {
    /// Unique key: `w00017` (original of work 17), `w00017-e1` (its first
    /// edition), `anth0003` (anthology 3), `vol0002` (volume 2 of the
    /// streaming generator) or `solo00042` (unrelated book 42).
    pub key: String,
    /// Title, shared by a work's original and editions.
    pub title: String,
    /// Author, shared by a work's original and editions; the editor of an anthology.
    pub author: String,
    /// Full text, laid out in lines, paragraphs and form-feed separated pages.
    pub text: String,
    /// The work this book is a version of; `None` for anthologies and unrelated books.
    pub family: Option<usize>,
    /// For an anthology or a volume, the works whose original it contains,
    /// in text order; empty for every other book.
    pub contains: Vec<usize>,
}

/// A generated collection with its ground-truth relations.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SynthCollection {
    /// The books, in a deterministic shuffled order.
    pub books: Vec<SynthBook>,
    /// Every pair of related books, sorted by `(a, b)`.
    pub pairs: Vec<SynthPair>,
}

/// Generates the collection described by `options`.
///
/// Each family has an original and its editions; all of them are pairwise
/// [`SynthRelation::Edition`] pairs. Families chosen for anthologies are grouped
/// two to four at a time (a single chosen family forms an anthology alone); each
/// anthology is a [`SynthRelation::Contains`] container of every book of its
/// families. Originals and unrelated books are free of OCR noise.
pub fn generate(options: &SynthOptions) -> SynthCollection {
    let lexicon = Lexicon::new(options.vocab_size, options.zipf_exponent, options.seed);
    let shape = FamilyShape::of(options);
    let mut layout = stream_rng(options.seed, LAYOUT_STREAM, 0);
    let mut collection = SynthCollection::default();
    let families = add_families(&mut collection, &lexicon, &shape, options.num_families);
    let share = options.anthology_share;
    add_anthologies(
        &mut collection,
        &families,
        &lexicon,
        &shape,
        share,
        &mut layout,
    );
    add_unrelated_books(&mut collection, &lexicon, &shape, options.unrelated_books);
    shuffled(collection, &mut layout)
}

/// The text of one original work of exactly `words` words, without
/// editions, anthologies or noise: a quick text for benchmarks and tests.
pub fn work_text(words: usize, seed: u64) -> String {
    let options = SynthOptions {
        min_words: words,
        max_words: words,
        editions_per_family: (0, 0),
        anthology_share: 0.0,
        unrelated_books: 0,
        ..SynthOptions::with_families(1, seed)
    };
    generate(&options).books.swap_remove(0).text
}

/// Applies OCR-like character noise at `rate`, the expected number of
/// errors per character of `text` (0.05 = one error in twenty characters).
///
/// Errors fall at geometrically distributed gaps; an error that falls on a
/// line feed or form feed moves to the next character, so the rate holds over
/// the whole text. Each error is one of:
/// - a **substitution** with a visually confusable character (e->c, m->rn,
///   l->1, o->0, h->b, i->l ...) or a stray letter;
/// - a **lost** character;
/// - a **doubled** character, or a stray mark (`.,'il1`) after it;
/// - a **split**: a space inserted inside a word ("exam ple");
/// - a **join**: the space between two words lost ("theword"), on a space;
/// - a **broken line**: a line break inserted mid-line, inside a word with a
///   hyphen half of the time ("exam-\nple") — on a space, the space becomes a
///   line break.
///
/// Deterministic for a given rng state.
pub fn ocr_noise(text: &str, rate: f64, rng: &mut impl Rng) -> String {
    if rate.is_nan() || rate <= 0.0 {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut chars = text.char_indices();
    let mut copied = 0;
    let mut gap = noise_gap(rate, rng);
    while let Some((at, c)) = chars.nth(gap) {
        out.push_str(&text[copied..at]);
        copied = at + c.len_utf8();
        if c == '\n' || c == '\x0c' {
            // Layout is kept: the error falls on the next character.
            out.push(c);
            gap = 0;
            continue;
        }
        corrupt(c, &mut out, rng);
        gap = noise_gap(rate, rng);
    }
    out.push_str(&text[copied..]);
    out
}

/// Words for a Zipf vocabulary: pseudo-words built from syllables, deterministic
/// from the seed, all distinct, lowercase ascii letters. Words are ordered by
/// rank, and frequent (low-rank) words are shorter.
pub fn zipf_vocabulary(size: usize, seed: u64) -> Vec<String> {
    let mut rng = stream_rng(seed, VOCABULARY_STREAM, 0);
    let mut seen = HashSet::with_capacity(size);
    let mut words = Vec::with_capacity(size);
    while words.len() < size {
        let word = fresh_word(syllables_for_rank(words.len()), &seen, &mut rng);
        seen.insert(word.clone());
        words.push(word);
    }
    words
}

/// A random generator for one independent stream of choices.
fn stream_rng(seed: u64, stream: u64, index: u64) -> SmallRng {
    SmallRng::seed_from_u64(splitmix64(
        splitmix64(seed ^ stream.rotate_left(32)) ^ index,
    ))
}

/// The SplitMix64 finaliser, a bijective bit mixer.
fn splitmix64(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The pair in ascending order.
fn ordered<T: PartialOrd>((low, high): (T, T)) -> (T, T) {
    if low <= high {
        (low, high)
    } else {
        (high, low)
    }
}

fn syllables_for_rank(rank: usize) -> usize {
    match rank {
        0..=49 => 1,
        50..=1_999 => 2,
        2_000..=39_999 => 3,
        _ => 4,
    }
}

/// A word of about `syllables` syllables that is not in `seen`; lengthens
/// the word after repeated collisions so that it always terminates.
fn fresh_word(syllables: usize, seen: &HashSet<String>, rng: &mut impl Rng) -> String {
    let mut attempt = 0;
    loop {
        let word = pseudo_word(syllables + attempt / 8, rng);
        if !seen.contains(&word) {
            return word;
        }
        attempt += 1;
    }
}

fn pseudo_word(syllables: usize, rng: &mut impl Rng) -> String {
    let mut word = String::with_capacity(syllables * 4);
    for _ in 0..syllables {
        for part in [ONSETS, NUCLEI, CODAS] {
            word.push_str(part[rng.random_range(0..part.len())]);
        }
    }
    word
}

/// A vocabulary with precomputed cumulative Zipf weights and a guide table
/// that narrows the binary search for a sampled weight to a few entries.
struct Lexicon {
    words: Vec<String>,
    cumulative: Vec<f64>,
    /// `guide[k]` is the first rank whose cumulative weight falls in bucket `k` or later.
    guide: Vec<usize>,
}

impl Lexicon {
    fn new(size: usize, exponent: f64, seed: u64) -> Self {
        let words = zipf_vocabulary(size.max(1), seed);
        let mut total = 0.0;
        let cumulative: Vec<f64> = (1..=words.len())
            .map(|rank| {
                total += (rank as f64).powf(-exponent);
                total
            })
            .collect();
        let guide = guide_table(&cumulative);
        Self {
            words,
            cumulative,
            guide,
        }
    }

    /// A word drawn with Zipf probabilities.
    fn zipf_word(&self, rng: &mut impl Rng) -> &str {
        let total = self.cumulative[self.cumulative.len() - 1];
        &self.words[self.rank_of(rng.random_range(0.0..total))]
    }

    /// The first rank whose cumulative weight exceeds `target`, clamped to the last rank.
    fn rank_of(&self, target: f64) -> usize {
        let last = self.cumulative.len() - 1;
        let bucket = guide_bucket(target, self.cumulative[last], last + 1).min(last + 1);
        let start = self.guide[bucket];
        let end = (self.guide[bucket + 1] + 1).min(last + 1);
        let offset = self.cumulative[start..end].partition_point(|&w| w <= target);
        (start + offset).min(last)
    }

    /// A word drawn uniformly, for names and titles.
    fn any_word(&self, rng: &mut impl Rng) -> &str {
        &self.words[rng.random_range(0..self.words.len())]
    }

    fn title(&self, rng: &mut impl Rng) -> String {
        let length = rng.random_range(1..=4);
        self.capitalised_words(length, rng)
    }

    fn author(&self, rng: &mut impl Rng) -> String {
        self.capitalised_words(2, rng)
    }

    fn capitalised_words(&self, count: usize, rng: &mut impl Rng) -> String {
        let mut out = String::new();
        for i in 0..count {
            if i > 0 {
                out.push(' ');
            }
            push_capitalised(&mut out, self.any_word(rng));
        }
        out
    }
}

/// For each guide bucket `k`, the first rank whose cumulative weight lies in
/// bucket `k` or later; one bucket per rank, plus two sentinels.
fn guide_table(cumulative: &[f64]) -> Vec<usize> {
    let total = cumulative[cumulative.len() - 1];
    (0..cumulative.len() + 2)
        .map(|k| cumulative.partition_point(|&w| guide_bucket(w, total, cumulative.len()) < k))
        .collect()
}

/// The guide bucket of a cumulative weight; monotonic in `weight`.
fn guide_bucket(weight: f64, total: f64, buckets: usize) -> usize {
    (weight / total * buckets as f64) as usize
}

fn push_capitalised(out: &mut String, word: &str) {
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
}

/// Lays out words like a scanned book: wrapped lines, paragraphs and pages.
struct PageWriter {
    out: String,
    line_len: usize,
    page_words: usize,
    page_limit: usize,
    page: usize,
}

impl PageWriter {
    fn new(capacity: usize, rng: &mut impl Rng) -> Self {
        Self {
            out: String::with_capacity(capacity),
            line_len: 0,
            page_words: 0,
            page_limit: rng.random_range(PAGE_WORDS.0..=PAGE_WORDS.1),
            page: 1,
        }
    }

    fn word(&mut self, word: &str, capitalise: bool, mark: Option<char>, rng: &mut impl Rng) {
        if self.page_words >= self.page_limit {
            self.page_break(rng);
        }
        let len = word.len() + usize::from(mark.is_some());
        self.separate(len);
        if capitalise {
            push_capitalised(&mut self.out, word);
        } else {
            self.out.push_str(word);
        }
        self.out.extend(mark);
        self.line_len += len;
        self.page_words += 1;
    }

    /// Writes a space, or a line break if a word of `next_len` would overflow the line.
    fn separate(&mut self, next_len: usize) {
        if self.line_len == 0 {
            return;
        }
        if self.line_len + 1 + next_len > LINE_WIDTH {
            self.out.push('\n');
            self.line_len = 0;
        } else {
            self.out.push(' ');
            self.line_len += 1;
        }
    }

    fn end_line(&mut self) {
        if self.line_len > 0 {
            self.out.push('\n');
            self.line_len = 0;
        }
    }

    fn paragraph_break(&mut self) {
        self.end_line();
        if self.page_words > 0 {
            self.out.push('\n');
        }
    }

    fn page_break(&mut self, rng: &mut impl Rng) {
        self.end_line();
        self.out.push('\x0c');
        self.page += 1;
        if rng.random_bool(PAGE_NUMBER_PROBABILITY) {
            self.out.push_str(&self.page.to_string());
            self.out.push('\n');
        }
        self.page_words = 0;
        self.page_limit = rng.random_range(PAGE_WORDS.0..=PAGE_WORDS.1);
    }

    fn finish(mut self) -> String {
        self.end_line();
        self.out
    }
}

/// Random text of exactly `words` Zipf words in sentences, paragraphs and pages.
fn compose(lexicon: &Lexicon, words: usize, rng: &mut impl Rng) -> String {
    let mut writer = PageWriter::new(words * 7, rng);
    let mut written = 0;
    while written < words {
        if written > 0 {
            writer.paragraph_break();
        }
        written += write_paragraph(&mut writer, lexicon, words - written, rng);
    }
    writer.finish()
}

/// Writes a paragraph of at most `max_words` words and returns its word count.
fn write_paragraph(
    writer: &mut PageWriter,
    lexicon: &Lexicon,
    max_words: usize,
    rng: &mut impl Rng,
) -> usize {
    let sentences = rng.random_range(2..=7);
    let mut written = 0;
    for _ in 0..sentences {
        if written == max_words {
            break;
        }
        written += write_sentence(writer, lexicon, max_words - written, rng);
    }
    written
}

/// Writes a sentence of at most `max_words` words and returns its word count.
fn write_sentence(
    writer: &mut PageWriter,
    lexicon: &Lexicon,
    max_words: usize,
    rng: &mut impl Rng,
) -> usize {
    let len = rng.random_range(4..=22).min(max_words);
    for i in 0..len {
        let mark = if i + 1 == len {
            Some('.')
        } else if rng.random_bool(COMMA_PROBABILITY) {
            Some(',')
        } else {
            None
        };
        let word = lexicon.zipf_word(rng);
        writer.word(word, i == 0, mark, rng);
    }
    len
}

/// Number of characters before the next noise event, geometrically distributed.
fn noise_gap(rate: f64, rng: &mut impl Rng) -> usize {
    if rate >= 1.0 {
        return 0;
    }
    let uniform = 1.0 - rng.random_range(0.0..1.0_f64);
    (uniform.ln() / (-rate).ln_1p()).floor() as usize
}

/// Writes `c` with one OCR error: see [`ocr_noise`] for the kinds.
fn corrupt(c: char, out: &mut String, rng: &mut impl Rng) {
    if c == ' ' {
        match rng.random_range(0..4) {
            // Join: the space is lost.
            0 | 1 => {}
            // Broken line: the space becomes a line break.
            2 => out.push('\n'),
            _ => {
                out.push(char::from(
                    STRAY_MARKS[rng.random_range(0..STRAY_MARKS.len())],
                ));
                out.push(c);
            }
        }
        return;
    }
    let in_word = c.is_alphabetic() && out.ends_with(char::is_alphabetic);
    match rng.random_range(0..100) {
        0..=54 => substitute(c, out, rng),
        55..=66 => {}
        67..=74 => {
            out.push(c);
            out.push(c);
        }
        75..=79 => {
            out.push(c);
            out.push(char::from(
                STRAY_MARKS[rng.random_range(0..STRAY_MARKS.len())],
            ));
        }
        80..=91 if in_word => {
            out.push(' ');
            out.push(c);
        }
        92..=99 if in_word => {
            out.push_str(if rng.random_bool(0.5) { "-\n" } else { "\n" });
            out.push(c);
        }
        _ => substitute(c, out, rng),
    }
}

fn substitute(c: char, out: &mut String, rng: &mut impl Rng) {
    match confusable(c) {
        Some(lookalike) => out.push_str(lookalike),
        None if c.is_alphanumeric() => out.push(char::from(rng.random_range(b'a'..=b'z'))),
        None => out.push(char::from(
            STRAY_MARKS[rng.random_range(0..STRAY_MARKS.len())],
        )),
    }
}

/// A visually similar replacement for `c`, as OCR engines confuse them.
fn confusable(c: char) -> Option<&'static str> {
    Some(match c {
        'a' => "o",
        'b' => "h",
        'c' => "e",
        'd' => "cl",
        'e' => "c",
        'f' => "t",
        'g' => "q",
        'h' => "b",
        'i' => "l",
        'k' => "lc",
        'l' => "1",
        'm' => "rn",
        'n' => "u",
        'o' => "0",
        'r' => "n",
        's' => "5",
        't' => "f",
        'u' => "n",
        'v' => "y",
        'w' => "vv",
        'y' => "v",
        'B' => "8",
        'E' => "F",
        'I' => "l",
        'O' => "0",
        'S' => "5",
        '0' => "o",
        '1' => "l",
        '5' => "s",
        ',' => ".",
        '.' => ",",
        _ => return None,
    })
}

/// Replaces each word of `text` with a random Zipf word with probability `share`,
/// keeping the layout and the capitalisation of the first letter.
fn edit_words(text: &str, share: f64, lexicon: &Lexicon, rng: &mut impl Rng) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphabetic()) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(tail.len());
        let word = &tail[..end];
        if rng.random_bool(share) {
            push_replacement(word, lexicon.zipf_word(rng), &mut out);
        } else {
            out.push_str(word);
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

fn push_replacement(word: &str, replacement: &str, out: &mut String) {
    if word.starts_with(|c: char| c.is_ascii_uppercase()) {
        push_capitalised(out, replacement);
    } else {
        out.push_str(replacement);
    }
}

/// What every family looks like, whichever generator lays the families out.
#[derive(Debug, Clone, Copy)]
struct FamilyShape {
    seed: u64,
    /// Inclusive range of the length of an original work, in words.
    words: (usize, usize),
    /// Inclusive range of the number of extra editions per work.
    editions: (usize, usize),
    /// Inclusive range of the per-character OCR noise rate.
    ocr_noise: (f64, f64),
}

impl FamilyShape {
    fn of(options: &SynthOptions) -> Self {
        Self {
            seed: options.seed,
            words: ordered((options.min_words, options.max_words)),
            editions: ordered(options.editions_per_family),
            ocr_noise: options.ocr_noise,
        }
    }
}

/// A noise rate drawn from the shape's range, clamped to `[0, 1]`.
fn noise_rate(shape: &FamilyShape, rng: &mut impl Rng) -> f64 {
    let (low, high) = ordered(shape.ocr_noise);
    let (low, high) = (low.clamp(0.0, 1.0), high.clamp(0.0, 1.0));
    rng.random_range(low..=high)
}

/// Length in words of a preface or notes for a work of `words` words.
fn supplement_words(words: usize, rng: &mut impl Rng) -> usize {
    let share = rng.random_range(SUPPLEMENT_SHARE.0..=SUPPLEMENT_SHARE.1);
    ((words as f64 * share).round() as usize).max(1)
}

/// An edition of `original` (a work of `words` words): optional word edits,
/// preface and notes, then OCR noise.
fn edition_text(
    original: &str,
    words: usize,
    lexicon: &Lexicon,
    shape: &FamilyShape,
    rng: &mut impl Rng,
) -> String {
    let mut text = if rng.random_bool(VARIANT_PROBABILITY) {
        let share = rng.random_range(EDIT_SHARE.0..=EDIT_SHARE.1);
        edit_words(original, share, lexicon, rng)
    } else {
        original.to_owned()
    };
    if rng.random_bool(VARIANT_PROBABILITY) {
        let preface = compose(lexicon, supplement_words(words, rng), rng);
        text = format!("PREFACE\n\n{preface}\n{text}");
    }
    if rng.random_bool(VARIANT_PROBABILITY) {
        let notes = compose(lexicon, supplement_words(words, rng), rng);
        text = format!("{text}\nNOTES\n\n{notes}");
    }
    let rate = noise_rate(shape, rng);
    ocr_noise(&text, rate, rng)
}

/// A noise-free original work with a fresh title and author.
fn original_book(
    key: String,
    family: Option<usize>,
    lexicon: &Lexicon,
    shape: &FamilyShape,
    rng: &mut impl Rng,
) -> (SynthBook, usize) {
    let words = rng.random_range(shape.words.0..=shape.words.1);
    let book = SynthBook {
        key,
        title: lexicon.title(rng),
        author: lexicon.author(rng),
        text: compose(lexicon, words, rng),
        family,
        contains: Vec::new(),
    };
    (book, words)
}

/// The original of work `index` followed by its editions.
fn family_books(index: usize, lexicon: &Lexicon, shape: &FamilyShape) -> Vec<SynthBook> {
    let mut rng = stream_rng(shape.seed, FAMILY_STREAM, index as u64);
    let key = format!("w{index:05}");
    let (original, words) = original_book(key, Some(index), lexicon, shape, &mut rng);
    let editions = rng.random_range(shape.editions.0..=shape.editions.1);
    let mut books = Vec::with_capacity(editions + 1);
    for edition in 1..=editions {
        books.push(SynthBook {
            key: format!("{}-e{edition}", original.key),
            title: original.title.clone(),
            author: original.author.clone(),
            text: edition_text(&original.text, words, lexicon, shape, &mut rng),
            family: original.family,
            contains: Vec::new(),
        });
    }
    books.insert(0, original);
    books
}

/// Adds every family with its edition pairs; returns the book indices of each
/// family, original first.
fn add_families(
    collection: &mut SynthCollection,
    lexicon: &Lexicon,
    shape: &FamilyShape,
    count: usize,
) -> Vec<Vec<usize>> {
    let mut families = Vec::with_capacity(count);
    for index in 0..count {
        let start = collection.books.len();
        collection.books.extend(family_books(index, lexicon, shape));
        let members: Vec<usize> = (start..collection.books.len()).collect();
        add_edition_pairs(collection, &members);
        families.push(members);
    }
    families
}

fn add_edition_pairs(collection: &mut SynthCollection, members: &[usize]) {
    for (i, &a) in members.iter().enumerate() {
        for &b in &members[i + 1..] {
            collection.pairs.push(SynthPair {
                a,
                b,
                relation: SynthRelation::Edition,
            });
        }
    }
}

/// Chooses `anthology_share` of the families and splits them into groups of 2 to 4.
fn anthology_groups(families: usize, share: f64, rng: &mut impl Rng) -> Vec<Vec<usize>> {
    let count = ((families as f64 * share.clamp(0.0, 1.0)).round() as usize).min(families);
    let chosen = rand::seq::index::sample(rng, families, count).into_vec();
    let mut groups = Vec::new();
    let mut rest = chosen.as_slice();
    while !rest.is_empty() {
        let size = if rest.len() <= 4 {
            rest.len()
        } else {
            rng.random_range(2..=(rest.len() - 2).min(4))
        };
        let (group, tail) = rest.split_at(size);
        groups.push(group.to_vec());
        rest = tail;
    }
    groups
}

/// The works `(title, text)` concatenated verbatim, each introduced by linking text.
fn anthology_text(works: &[(&str, &str)], lexicon: &Lexicon, rng: &mut impl Rng) -> String {
    let mut out = String::new();
    for (title, text) in works {
        let link = compose(lexicon, rng.random_range(LINK_WORDS.0..=LINK_WORDS.1), rng);
        out.push_str(&link);
        out.push('\n');
        out.push_str(title);
        out.push_str("\n\n");
        out.push_str(text);
        out.push('\n');
    }
    out
}

/// Anthology `number` of the given originals (at least one), with its own
/// random stream.
fn anthology_book(
    number: usize,
    originals: &[&SynthBook],
    lexicon: &Lexicon,
    shape: &FamilyShape,
) -> SynthBook {
    let mut rng = stream_rng(shape.seed, ANTHOLOGY_STREAM, number as u64);
    bound_book(
        format!("anth{number:04}"),
        "and Other Works",
        originals,
        lexicon,
        shape,
        &mut rng,
    )
}

/// Volume `number` of the streaming generator: the given originals (at
/// least one) bound one after another like an anthology, with a random
/// stream of its own, keyed `vol0003`.
fn volume_book(
    number: usize,
    originals: &[&SynthBook],
    lexicon: &Lexicon,
    shape: &FamilyShape,
) -> SynthBook {
    let mut rng = stream_rng(shape.seed, VOLUME_STREAM, number as u64);
    bound_book(
        format!("vol{number:04}"),
        "and Other Works, Collected",
        originals,
        lexicon,
        shape,
        &mut rng,
    )
}

/// The originals bound in one book, linking text before each, with OCR noise.
fn bound_book(
    key: String,
    title_suffix: &str,
    originals: &[&SynthBook],
    lexicon: &Lexicon,
    shape: &FamilyShape,
    rng: &mut SmallRng,
) -> SynthBook {
    let works: Vec<(&str, &str)> = originals
        .iter()
        .map(|book| (book.title.as_str(), book.text.as_str()))
        .collect();
    let text = anthology_text(&works, lexicon, rng);
    let rate = noise_rate(shape, rng);
    SynthBook {
        key,
        title: format!("{} {title_suffix}", works[0].0),
        author: lexicon.author(rng),
        text: ocr_noise(&text, rate, rng),
        family: None,
        contains: originals.iter().filter_map(|book| book.family).collect(),
    }
}

/// Unrelated book `number`, a noise-free original of no family.
fn unrelated_book(number: usize, lexicon: &Lexicon, shape: &FamilyShape) -> SynthBook {
    let mut rng = stream_rng(shape.seed, SOLO_STREAM, number as u64);
    let key = format!("solo{number:05}");
    original_book(key, None, lexicon, shape, &mut rng).0
}

/// Adds the anthologies and a `Contains` pair from each to every book of its families.
fn add_anthologies(
    collection: &mut SynthCollection,
    families: &[Vec<usize>],
    lexicon: &Lexicon,
    shape: &FamilyShape,
    share: f64,
    layout: &mut impl Rng,
) {
    let groups = anthology_groups(families.len(), share, layout);
    for (number, group) in groups.iter().enumerate() {
        let originals: Vec<&SynthBook> = group
            .iter()
            .map(|&family| &collection.books[families[family][0]])
            .collect();
        let book = anthology_book(number, &originals, lexicon, shape);
        let a = collection.books.len();
        collection.books.push(book);
        for &b in group.iter().flat_map(|&family| &families[family]) {
            collection.pairs.push(SynthPair {
                a,
                b,
                relation: SynthRelation::Contains,
            });
        }
    }
}

fn add_unrelated_books(
    collection: &mut SynthCollection,
    lexicon: &Lexicon,
    shape: &FamilyShape,
    count: usize,
) {
    collection
        .books
        .extend((0..count).map(|number| unrelated_book(number, lexicon, shape)));
}

/// The collection with its books in a random order and its pairs renumbered.
fn shuffled(collection: SynthCollection, rng: &mut impl Rng) -> SynthCollection {
    let mut position: Vec<usize> = (0..collection.books.len()).collect();
    position.shuffle(rng);
    let mut placed: Vec<(usize, SynthBook)> =
        position.iter().copied().zip(collection.books).collect();
    placed.sort_unstable_by_key(|(place, _)| *place);
    let books = placed.into_iter().map(|(_, book)| book).collect();
    let mut pairs: Vec<SynthPair> = collection
        .pairs
        .into_iter()
        .map(|pair| relocated(pair, &position))
        .collect();
    pairs.sort_unstable_by_key(|pair| (pair.a, pair.b));
    SynthCollection { books, pairs }
}

/// `pair` with its indices mapped through `position`; edition pairs keep `a < b`.
fn relocated(pair: SynthPair, position: &[usize]) -> SynthPair {
    let (a, b) = (position[pair.a], position[pair.b]);
    let (a, b) = match pair.relation {
        SynthRelation::Edition => ordered((a, b)),
        SynthRelation::Contains => (a, b),
    };
    SynthPair { a, b, ..pair }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_options(seed: u64) -> SynthOptions {
        SynthOptions {
            min_words: 400,
            max_words: 900,
            vocab_size: 5_000,
            anthology_share: 0.5,
            ..SynthOptions::with_families(12, seed)
        }
    }

    /// Levenshtein distance between the character sequences of `a` and `b`.
    fn edit_distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut previous: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut current = vec![i + 1; b.len() + 1];
            for (j, &cb) in b.iter().enumerate() {
                let substitution = previous[j] + usize::from(ca != cb);
                current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
            }
            previous = current;
        }
        previous[b.len()]
    }

    fn sample_text(words: usize, seed: u64) -> String {
        let lexicon = Lexicon::new(2_000, 1.07, seed);
        compose(&lexicon, words, &mut SmallRng::seed_from_u64(seed))
    }

    #[test]
    fn guided_zipf_search_matches_plain_binary_search() {
        for (size, exponent) in [
            (1, 1.07),
            (2, 1.07),
            (1_000, 1.07),
            (3_000, 2.5),
            (500, 0.0),
        ] {
            let lexicon = Lexicon::new(size, exponent, 1);
            let cumulative = &lexicon.cumulative;
            let total = cumulative[size - 1];
            let steps = (0..20_000).map(|i| total * i as f64 / 20_000.0);
            for target in steps.chain(cumulative.iter().copied()) {
                let plain = cumulative.partition_point(|&w| w <= target).min(size - 1);
                assert_eq!(
                    lexicon.rank_of(target),
                    plain,
                    "size {size} target {target}"
                );
            }
        }
    }

    #[test]
    fn zipf_words_follow_rank_order() {
        let lexicon = Lexicon::new(1_000, 1.07, 2);
        let mut rng = SmallRng::seed_from_u64(3);
        let mut counts = vec![0usize; 1_000];
        for _ in 0..100_000 {
            let word = lexicon.zipf_word(&mut rng);
            counts[lexicon.words.iter().position(|w| w == word).unwrap()] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[10] && counts[10] > counts[500]);
        let expected = 100_000.0 / lexicon.cumulative[999];
        assert!((counts[0] as f64 / expected - 1.0).abs() < 0.05);
    }

    #[test]
    fn same_seed_gives_identical_collection() {
        assert_eq!(generate(&small_options(7)), generate(&small_options(7)));
    }

    #[test]
    fn different_seeds_give_different_collections() {
        let first = generate(&small_options(7));
        let second = generate(&small_options(8));
        assert_ne!(first.books[0].text, second.books[0].text);
        assert_ne!(first, second);
    }

    #[test]
    fn pairs_are_in_range_and_distinct() {
        let collection = generate(&small_options(3));
        assert!(!collection.pairs.is_empty());
        for pair in &collection.pairs {
            assert!(pair.a < collection.books.len() && pair.b < collection.books.len());
            assert_ne!(pair.a, pair.b);
        }
    }

    #[test]
    fn collection_has_expected_books_and_unique_keys() {
        let options = small_options(4);
        let collection = generate(&options);
        let keys: HashSet<&str> = collection.books.iter().map(|b| b.key.as_str()).collect();
        assert_eq!(keys.len(), collection.books.len());
        let count = |prefix: &str| keys.iter().filter(|k| k.starts_with(prefix)).count();
        assert_eq!(count("solo"), options.unrelated_books);
        assert!(count("anth") >= 1);
        let originals = keys
            .iter()
            .filter(|k| k.starts_with('w') && !k.contains('-'));
        assert_eq!(originals.count(), options.num_families);
    }

    #[test]
    fn every_two_books_of_a_family_are_an_edition_pair() {
        let collection = generate(&small_options(5));
        let pairs: HashSet<(usize, usize)> = collection
            .pairs
            .iter()
            .filter(|p| p.relation == SynthRelation::Edition)
            .map(|p| (p.a, p.b))
            .collect();
        let books = &collection.books;
        let mut expected = 0;
        for a in 0..books.len() {
            for b in a + 1..books.len() {
                if books[a].family.is_some() && books[a].family == books[b].family {
                    assert!(pairs.contains(&(a, b)), "{} {}", books[a].key, books[b].key);
                    expected += 1;
                }
            }
        }
        assert_eq!(pairs.len(), expected);
    }

    #[test]
    fn anthologies_contain_originals_verbatim() {
        let options = SynthOptions {
            ocr_noise: (0.0, 0.0),
            ..small_options(9)
        };
        let collection = generate(&options);
        let mut checked = 0;
        for pair in collection.pairs.iter() {
            let (container, part) = (&collection.books[pair.a], &collection.books[pair.b]);
            if pair.relation == SynthRelation::Contains && !part.key.contains('-') {
                assert!(container.text.contains(&part.text), "{}", container.key);
                checked += 1;
            }
        }
        assert!(checked >= 2);
    }

    #[test]
    fn anthology_text_contains_each_work_before_noise() {
        let lexicon = Lexicon::new(1_000, 1.07, 1);
        let works = [("One", sample_text(500, 1)), ("Two", sample_text(700, 2))];
        let parts: Vec<(&str, &str)> = works.iter().map(|(t, s)| (*t, s.as_str())).collect();
        let text = anthology_text(&parts, &lexicon, &mut SmallRng::seed_from_u64(3));
        for (_, work) in &works {
            assert!(text.contains(work.as_str()));
        }
        assert!(text.len() > works[0].1.len() + works[1].1.len());
    }

    #[test]
    fn ocr_noise_at_rate_zero_is_identity() {
        let text = sample_text(800, 11);
        let mut rng = SmallRng::seed_from_u64(1);
        assert_eq!(ocr_noise(&text, 0.0, &mut rng), text);
    }

    #[test]
    fn ocr_noise_changes_about_the_requested_share_of_characters() {
        let text = sample_text(500, 12);
        let mut rng = SmallRng::seed_from_u64(2);
        let noisy = ocr_noise(&text, 0.1, &mut rng);
        let share = edit_distance(&text, &noisy) as f64 / text.chars().count() as f64;
        assert!((0.08..=0.13).contains(&share), "edit share {share}");
    }

    #[test]
    fn ocr_noise_rate_is_errors_per_character() {
        let text = sample_text(1_500, 21);
        let chars = text.chars().count() as f64;
        for (seed, rate) in [(1, 0.01), (2, 0.05), (3, 0.1), (4, 0.2)] {
            let noisy = ocr_noise(&text, rate, &mut SmallRng::seed_from_u64(seed));
            let share = edit_distance(&text, &noisy) as f64 / chars;
            // Multi-character confusables (m->rn) and hyphenated line breaks
            // cost two edits, and neighbouring errors can cancel.
            assert!(
                (0.8 * rate..=1.3 * rate).contains(&share),
                "rate {rate}: edit share {share}"
            );
        }
    }

    #[test]
    fn ocr_noise_splits_joins_doubles_and_breaks_lines() {
        let text = sample_text(3_000, 22);
        let noisy = ocr_noise(&text, 0.1, &mut SmallRng::seed_from_u64(5));
        let words =
            |t: &str| -> HashSet<String> { t.split_whitespace().map(str::to_string).collect() };
        let clean = words(&text);
        let noisy_words = words(&noisy);
        let joined = noisy_words.iter().any(|w| {
            w.bytes().all(|b| b.is_ascii_lowercase())
                && !clean.contains(w)
                && (1..w.len()).any(|i| clean.contains(&w[..i]) && clean.contains(&w[i..]))
        });
        assert!(joined, "no two words joined");
        let split = noisy_words
            .iter()
            .filter(|w| w.len() >= 2 && w.bytes().all(|b| b.is_ascii_lowercase()))
            .any(|w| !clean.contains(w));
        assert!(split, "no fragment of a split word");
        assert!(noisy.contains("-\n"), "no hyphenated line break");
        assert!(
            noisy.lines().count() > text.lines().count() + 10,
            "too few broken lines"
        );
        let doubled = |t: &str| {
            t.as_bytes()
                .windows(3)
                .filter(|w| w[0] == w[1] && w[1] == w[2] && w[0].is_ascii_lowercase())
                .count()
        };
        assert!(doubled(&noisy) > doubled(&text), "no doubled character");
    }

    #[test]
    fn ocr_noise_is_deterministic_for_a_given_rng_state() {
        let text = sample_text(300, 13);
        let first = ocr_noise(&text, 0.05, &mut SmallRng::seed_from_u64(4));
        let second = ocr_noise(&text, 0.05, &mut SmallRng::seed_from_u64(4));
        assert_eq!(first, second);
        assert_ne!(first, text);
    }

    #[test]
    fn vocabulary_words_are_distinct_lowercase_and_deterministic() {
        let words = zipf_vocabulary(20_000, 5);
        let distinct: HashSet<&String> = words.iter().collect();
        assert_eq!(distinct.len(), words.len());
        assert!(words
            .iter()
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())));
        assert_eq!(words, zipf_vocabulary(20_000, 5));
        assert_ne!(words, zipf_vocabulary(20_000, 6));
    }

    #[test]
    fn composed_text_has_pages_wrapped_lines_and_requested_words() {
        let text = sample_text(2_000, 14);
        assert!(text.matches('\x0c').count() >= 5);
        assert!(text.contains("\n\n"));
        assert!(text.lines().all(|line| line.len() <= LINE_WIDTH + 1));
        let words = text.split(|c: char| !c.is_ascii_alphabetic());
        assert_eq!(words.filter(|w| !w.is_empty()).count(), 2_000);
    }

    #[test]
    fn generated_books_contain_form_feeds() {
        let collection = generate(&small_options(15));
        assert!(collection
            .books
            .iter()
            .all(|book| book.text.contains('\x0c')));
    }
}
