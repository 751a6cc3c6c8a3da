//! The translated set: word-by-word machine "translations" of corpus books
//! with a bilingual dictionary, labelled `translation`, to check that a
//! translation search generalises beyond the corpus it was developed on,
//! and (with the alignments written beside it) to test cross-language
//! passage alignment.
//!
//! **Translation.** Each whitespace-separated word of the source is split
//! into its leading punctuation, its core and its trailing punctuation. The
//! core is looked up lower-cased, letters only; one of its translations is
//! picked at random (a translation of several words is kept whole) and
//! takes the core's initial capital. A word without translation is kept as
//! it is with probability [`KEEP_UNKNOWN`] (names and cognates survive),
//! else dropped. Then any word is dropped with probability [`DROP`], a
//! function word of the target language is inserted before it with
//! probability [`INSERT`], and adjacent words of a line are swapped with
//! probability [`SWAP`]. Punctuation and line breaks stay where they were,
//! so the result still looks like a text. Last, OCR noise at a rate drawn
//! from 0–8% ([`crate::ocr_noise`]).
//!
//! **Alignments.** Every 50th word of the source ([`PASSAGE_WORDS`]) is
//! followed to where its translation starts in the translated book (after
//! the noise): offsets count whitespace-separated words, as `books.tsv`
//! does.
//!
//! The set does not depend on the engine: it is handed a plain map from
//! normalised word to translations and the languages' ISO 639-1 codes.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use super::sets::{word_count, LabelledSet, SetBook, SetPair, SourceBook};
use super::{compose, ocr_noise, stream_rng, Lexicon};

const TRANSLATED_SOURCES_STREAM: u64 = 30;
const TRANSLATED_PLAN_STREAM: u64 = 31;
const TRANSLATED_WORDS_STREAM: u64 = 32;
const TRANSLATED_NOISE_STREAM: u64 = 33;
const TRANSLATED_FILLER_STREAM: u64 = 34;

/// Probability that a word without translation is kept as it is.
pub const KEEP_UNKNOWN: f64 = 0.7;
/// Probability that two adjacent words of a line are swapped.
pub const SWAP: f64 = 0.15;
/// Probability that a word is dropped.
pub const DROP: f64 = 0.05;
/// Probability that a function word is inserted before a word.
pub const INSERT: f64 = 0.05;
/// Source words per passage of the alignments.
pub const PASSAGE_WORDS: usize = 50;
/// Most words taken from a corpus book.
pub const MAX_SOURCE_WORDS: usize = 30_000;
/// The noise bands, with their ranges of character error rates (percent).
pub const NOISE_BANDS: [(&str, f64, f64); 3] = [
    ("noise 0-2%", 0.0, 2.0),
    ("noise 2-5%", 2.0, 5.0),
    ("noise 5-8%", 5.0, 8.0),
];
/// Range of the share of a partial translation (of the source's words).
const PARTIAL_SHARE: (f64, f64) = (0.2, 0.4);
/// Range of the number of other texts bound with a contained translation.
const VOLUME_OTHERS: (usize, usize) = (3, 6);
/// Range of the length of another text of a volume, in words.
const FILLER_WORDS: (usize, usize) = (2_000, 10_000);

/// ISO 639-3 codes of the languages FreeDict has dictionaries for, with
/// their ISO 639-1 codes.
const ISO_639: &[(&str, &str)] = &[
    ("eng", "en"),
    ("deu", "de"),
    ("fra", "fr"),
    ("spa", "es"),
    ("ita", "it"),
    ("por", "pt"),
    ("nld", "nl"),
    ("swe", "sv"),
    ("dan", "da"),
    ("nor", "no"),
    ("fin", "fi"),
    ("pol", "pl"),
    ("ces", "cs"),
    ("rus", "ru"),
    ("lat", "la"),
    ("ell", "el"),
    ("hun", "hu"),
    ("tur", "tr"),
    ("gle", "ga"),
    ("cym", "cy"),
    ("jpn", "ja"),
];

/// The ISO 639-1 code of an ISO 639-3 code (`deu` → `de`), for the
/// languages FreeDict has dictionaries for.
pub fn iso639_1(code: &str) -> Option<&'static str> {
    ISO_639.iter().find(|(c, _)| *c == code).map(|(_, c)| *c)
}

/// Frequent function words of some target languages (ISO 639-1).
const FUNCTION_WORDS: &[(&str, &[&str])] = &[
    (
        "de",
        &[
            "der", "die", "das", "und", "zu", "den", "von", "mit", "sich", "des", "auf", "ist",
            "im", "dem", "nicht", "ein", "eine", "als", "auch", "es",
        ],
    ),
    (
        "en",
        &[
            "the", "of", "and", "to", "a", "in", "is", "that", "it", "was", "for", "on", "as",
            "with", "his", "he", "be", "at", "by", "had",
        ],
    ),
    (
        "fr",
        &[
            "de", "la", "le", "et", "les", "des", "en", "un", "une", "du", "que", "est", "pour",
            "qui", "dans", "a", "par", "plus", "pas", "au",
        ],
    ),
    (
        "es",
        &[
            "de", "la", "que", "el", "en", "y", "a", "los", "se", "del", "las", "un", "por", "con",
            "no", "una", "su", "para", "es", "al",
        ],
    ),
    (
        "it",
        &[
            "di", "e", "il", "la", "che", "a", "per", "un", "in", "del", "non", "una", "le", "si",
            "con", "da", "i", "lo", "al", "della",
        ],
    ),
];

/// Translates word by word with a dictionary: see the module documentation.
#[derive(Debug, Clone)]
pub struct Translator<'a> {
    map: &'a HashMap<String, Vec<String>>,
    function_words: Vec<String>,
}

impl<'a> Translator<'a> {
    /// A translator into language `to` (ISO 639-1) with `map`, from
    /// normalised word (lower-case letters) to its translations. Its
    /// function words are a fixed list for de, en, fr, es and it, else the
    /// 20 short translations (at most three letters) that translate the
    /// most words.
    pub fn new(map: &'a HashMap<String, Vec<String>>, to: &str) -> Self {
        let function_words = match FUNCTION_WORDS.iter().find(|(lang, _)| *lang == to) {
            Some((_, words)) => words.iter().map(|w| w.to_string()).collect(),
            None => {
                let mut counts: HashMap<&str, usize> = HashMap::new();
                for translations in map.values() {
                    for t in translations {
                        if t.chars().count() <= 3 && !t.contains(' ') {
                            *counts.entry(t.as_str()).or_default() += 1;
                        }
                    }
                }
                let mut ranked: Vec<(&str, usize)> = counts.into_iter().collect();
                ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                ranked.iter().take(20).map(|(w, _)| w.to_string()).collect()
            }
        };
        Self {
            map,
            function_words,
        }
    }

    /// The function words it inserts.
    pub fn function_words(&self) -> &[String] {
        &self.function_words
    }

    /// The translation of `text` (see the module documentation, without
    /// the OCR noise), with the byte offset in it where the translation of
    /// every [`PASSAGE_WORDS`]th source word starts.
    pub fn translate(&self, text: &str, rng: &mut impl Rng) -> Translation {
        let mut out = String::with_capacity(text.len() + text.len() / 8);
        let mut marks = Vec::new();
        let mut source_word = 0usize;
        for (number, line) in text.split('\n').enumerate() {
            if number > 0 {
                out.push('\n');
            }
            let mut slots: Vec<Slot> = Vec::new();
            // (source word, slot) of the passage starts on this line.
            let mut line_marks: Vec<(usize, usize)> = Vec::new();
            let mut pending_prefix = String::new();
            for token in line.split_whitespace() {
                if source_word.is_multiple_of(PASSAGE_WORDS) {
                    line_marks.push((source_word, slots.len()));
                }
                source_word += 1;
                let (prefix, core, suffix) = split_token(token);
                let word = self.word(core, rng);
                let word = word.filter(|_| !rng.random_bool(DROP));
                let Some(word) = word else {
                    // The word is lost, its punctuation is not.
                    pending_prefix.push_str(prefix);
                    match slots.last_mut() {
                        Some(last) => last.suffix.push_str(suffix),
                        None => pending_prefix.push_str(suffix),
                    }
                    continue;
                };
                let mut prefix = std::mem::take(&mut pending_prefix) + prefix;
                if !core.is_empty() && rng.random_bool(INSERT) && !self.function_words.is_empty() {
                    let at = rng.random_range(0..self.function_words.len());
                    slots.push(Slot {
                        prefix: std::mem::take(&mut prefix),
                        word: self.function_words[at].clone(),
                        suffix: String::new(),
                    });
                }
                slots.push(Slot {
                    prefix,
                    word,
                    suffix: suffix.to_string(),
                });
            }
            if !pending_prefix.is_empty() {
                match slots.last_mut() {
                    Some(last) => last.suffix.push_str(&pending_prefix),
                    None => slots.push(Slot {
                        prefix: String::new(),
                        word: pending_prefix,
                        suffix: String::new(),
                    }),
                }
            }
            // Local reordering: the words move, the punctuation stays.
            let mut at = 0;
            while at + 1 < slots.len() {
                if rng.random_bool(SWAP) {
                    let (left, right) = slots.split_at_mut(at + 1);
                    std::mem::swap(&mut left[at].word, &mut right[0].word);
                    at += 2;
                } else {
                    at += 1;
                }
            }
            let mut marks_here = line_marks.into_iter().peekable();
            for (i, slot) in slots.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                while let Some(&(word, _)) = marks_here.peek().filter(|m| m.1 == i) {
                    marks.push((word, out.len()));
                    marks_here.next();
                }
                out.push_str(&slot.prefix);
                out.push_str(&slot.word);
                out.push_str(&slot.suffix);
            }
            // Passages whose words were all lost start after the line.
            for (word, _) in marks_here {
                marks.push((word, out.len()));
            }
        }
        Translation {
            text: out,
            marks,
            source_words: source_word,
        }
    }

    /// The translation of the core of a word, `None` when it is lost.
    fn word(&self, core: &str, rng: &mut impl Rng) -> Option<String> {
        let key: String = core
            .chars()
            .filter(|c| c.is_alphabetic())
            .flat_map(char::to_lowercase)
            .collect();
        if key.is_empty() {
            // Numbers and marks stay.
            return Some(core.to_string());
        }
        match self.map.get(&key).filter(|t| !t.is_empty()) {
            Some(translations) => {
                let pick = &translations[rng.random_range(0..translations.len())];
                Some(if core.chars().next().is_some_and(char::is_uppercase) {
                    capitalised(pick)
                } else {
                    pick.clone()
                })
            }
            None => rng.random_bool(KEEP_UNKNOWN).then(|| core.to_string()),
        }
    }
}

/// An output word with the punctuation around it.
struct Slot {
    prefix: String,
    word: String,
    suffix: String,
}

/// A token's leading punctuation, core and trailing punctuation (the core
/// starts and ends with a letter or digit; a token of punctuation only is
/// all core).
fn split_token(token: &str) -> (&str, &str, &str) {
    let start = token.find(char::is_alphanumeric);
    let Some(start) = start else {
        return ("", token, "");
    };
    let end = token
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_alphanumeric())
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(token.len());
    (&token[..start], &token[start..end], &token[end..])
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A translated text before noise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    /// The text.
    pub text: String,
    /// (source word, byte offset in `text`) of every [`PASSAGE_WORDS`]th
    /// source word, ascending.
    pub marks: Vec<(usize, usize)>,
    /// Words of the source.
    pub source_words: usize,
}

/// `text` with OCR noise at `rate`, and the word offset in the result of
/// each of `marks` (ascending byte offsets in `text`, at character
/// boundaries): the text is noised piece by piece between the marks, so
/// that where each piece starts is known.
pub fn noise_with_marks(
    text: &str,
    marks: &[usize],
    rate: f64,
    rng: &mut impl Rng,
) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut starts = Vec::with_capacity(marks.len());
    let mut from = 0;
    for &mark in marks {
        let mark = mark.clamp(from, text.len());
        out.push_str(&ocr_noise(&text[from..mark], rate, rng));
        starts.push(out.len());
        from = mark;
    }
    out.push_str(&ocr_noise(&text[from..], rate, rng));
    let words = words_before(&out, &starts);
    (out, words)
}

/// The number of whitespace-separated words that start before each of
/// `offsets` (ascending byte offsets) in `text`.
fn words_before(text: &str, offsets: &[usize]) -> Vec<usize> {
    let mut result = Vec::with_capacity(offsets.len());
    let mut next = offsets.iter().peekable();
    let mut words = 0;
    let mut in_word = false;
    for (at, c) in text.char_indices() {
        while next.peek().is_some_and(|&&o| o <= at) {
            result.push(words);
            next.next();
        }
        if c.is_whitespace() {
            in_word = false;
        } else if !in_word {
            in_word = true;
            words += 1;
        }
    }
    result.extend(next.map(|_| words));
    result
}

/// Options of [`translated_set`].
#[derive(Debug, Clone, PartialEq)]
pub struct TranslatedOptions {
    /// Seed of every random choice.
    pub seed: u64,
    /// Number of source books translated.
    pub books: usize,
    /// Most words taken from a corpus book (its first lines).
    pub max_words: usize,
    /// Language of the sources (ISO 639-1).
    pub from: String,
    /// Language of the translations (ISO 639-1).
    pub to: String,
    /// Name of the dictionary, for the notes.
    pub dictionary: String,
}

impl TranslatedOptions {
    /// `books` sources of at most 30,000 words, from `from` into `to`.
    pub fn new(books: usize, seed: u64, from: &str, to: &str, dictionary: &str) -> Self {
        Self {
            seed,
            books,
            max_words: MAX_SOURCE_WORDS,
            from: from.to_string(),
            to: to.to_string(),
            dictionary: dictionary.to_string(),
        }
    }
}

/// How a source is translated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Whole,
    Partial,
    Contained,
}

/// A labelled set with the passage alignments of its translations.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranslatedSet {
    /// The books and pairs.
    pub set: LabelledSet,
    /// Per translated book (the `b` of a `translation` pair): (source word,
    /// word) of every [`PASSAGE_WORDS`]th word of its source.
    pub alignments: Vec<(String, Vec<(usize, usize)>)>,
}

impl TranslatedSet {
    /// Writes the set ([`LabelledSet::write`]) and `alignments/ID.tsv`
    /// (columns `source_word`, `target_word`).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        self.set.write(dir)?;
        let alignments = dir.join("alignments");
        std::fs::create_dir_all(&alignments)?;
        for (id, rows) in &self.alignments {
            let mut text = String::from("source_word\ttarget_word\n");
            for (source, target) in rows {
                let _ = writeln!(text, "{source}\t{target}");
            }
            std::fs::write(alignments.join(format!("{id}.tsv")), text)?;
        }
        Ok(())
    }
}

/// A text taken from the corpus (or generated), before translation.
struct Original {
    book: SourceBook,
    text: String,
    source: String,
}

/// The first lines of `text` that hold at least `words` words (all of it
/// when shorter), from line `start`, and the line after them.
fn first_lines(text: &str, start: usize, words: usize) -> (String, usize) {
    let mut out = String::new();
    let mut count = 0;
    let mut at = start;
    for line in text.lines().skip(start) {
        if count >= words {
            break;
        }
        count += word_count(line);
        out.push_str(line);
        out.push('\n');
        at += 1;
    }
    (out, at)
}

/// Where the other texts of the volumes come from: excerpts of corpus
/// books that serve nothing else, then generated texts.
struct Fillers {
    pool: VecDeque<SourceBook>,
    mine: Option<(SourceBook, usize, usize)>,
    lexicon: Option<Lexicon>,
    seed: u64,
    generated: u64,
}

impl Fillers {
    fn next(&mut self, words: usize) -> Original {
        loop {
            if let Some((book, start, number)) = self.mine.as_mut() {
                let (text, end) = first_lines(&book.text, *start, words);
                if word_count(&text) >= words {
                    let source = format!("corpus: {} lines {}-{}", book.id, *start + 1, end);
                    let mut excerpt = book.clone();
                    excerpt.title = format!("{} ({})", book.title, *number + 1);
                    *start = end;
                    *number += 1;
                    return Original {
                        book: excerpt,
                        text,
                        source,
                    };
                }
            }
            match self.pool.pop_front() {
                Some(book) => self.mine = Some((book, 0, 0)),
                None => break,
            }
        }
        let number = self.generated;
        self.generated += 1;
        let seed = self.seed;
        let lexicon = self
            .lexicon
            .get_or_insert_with(|| Lexicon::new(50_000, 1.07, seed));
        let mut rng = stream_rng(seed, TRANSLATED_FILLER_STREAM, number);
        Original {
            book: SourceBook {
                id: String::new(),
                gutenberg_id: String::new(),
                title: lexicon.title(&mut rng),
                author: lexicon.author(&mut rng),
                language: String::new(),
                text: String::new(),
            },
            text: compose(lexicon, words.max(1), &mut rng),
            source: format!("generated: seed {seed} text {number}, {words} words"),
        }
    }
}

/// The books of `sources` in language `from`, shuffled by `rng`; an error
/// (saying what they were wanted `for`) when there is none.
pub(crate) fn source_pool(
    sources: Vec<SourceBook>,
    from: &str,
    purpose: &str,
    mut rng: SmallRng,
) -> Result<VecDeque<SourceBook>, String> {
    let mut pool: Vec<SourceBook> = sources.into_iter().filter(|b| b.language == from).collect();
    if pool.is_empty() {
        return Err(format!(
            "no corpus book in language {from} without a partner to {purpose}"
        ));
    }
    pool.shuffle(&mut rng);
    Ok(pool.into())
}

/// The translated set: see the module documentation and the command's
/// help. `sources` are the corpus books with no partner; only those in
/// `options.from` are used. `map` maps a normalised word (lower-case
/// letters) to its translations. An error when no source is in
/// `options.from`. `progress` hears a line every 5 sources.
pub fn translated_set(
    options: &TranslatedOptions,
    sources: Vec<SourceBook>,
    map: &HashMap<String, Vec<String>>,
    progress: &mut dyn FnMut(&str),
) -> Result<TranslatedSet, String> {
    let mut pool = source_pool(
        sources,
        &options.from,
        "translate",
        stream_rng(options.seed, TRANSLATED_SOURCES_STREAM, 0),
    )?;
    let translator = Translator::new(map, &options.to);
    let mut plan_rng: SmallRng = stream_rng(options.seed, TRANSLATED_PLAN_STREAM, 0);

    let sources: Vec<SourceBook> = (0..options.books.min(pool.len()))
        .filter_map(|_| pool.pop_front())
        .collect();
    if sources.len() < options.books {
        progress(&format!(
            "only {} corpus books in language {} without a partner: {} sources",
            sources.len(),
            options.from,
            sources.len()
        ));
    }
    let distractors = options.books.div_ceil(3);
    let foreign: Vec<SourceBook> = (0..distractors).filter_map(|_| pool.pop_front()).collect();
    let own: Vec<SourceBook> = (0..distractors).filter_map(|_| pool.pop_front()).collect();
    let mut fillers = Fillers {
        pool,
        mine: None,
        lexicon: None,
        seed: options.seed,
        generated: 0,
    };

    let n = sources.len();
    let partial = (n as f64 * 0.15).round() as usize;
    let contained = (n as f64 * 0.15).round() as usize;
    let mut kinds: Vec<Kind> = (0..n)
        .map(|i| match i {
            i if i < partial => Kind::Partial,
            i if i < partial + contained => Kind::Contained,
            _ => Kind::Whole,
        })
        .collect();
    kinds.shuffle(&mut plan_rng);
    // Noise bands in shuffled rounds, so that each is about as frequent.
    let noisy = n + foreign.len();
    let mut bands = Vec::with_capacity(noisy);
    while bands.len() < noisy {
        let mut round: Vec<usize> = (0..NOISE_BANDS.len()).collect();
        round.shuffle(&mut plan_rng);
        bands.extend(round.into_iter().take(noisy - bands.len()));
    }
    let rates: Vec<(usize, f64)> = bands
        .iter()
        .map(|&band| {
            let (_, low, high) = NOISE_BANDS[band];
            (band, plan_rng.random_range(low..high) / 100.0)
        })
        .collect();

    let mut out = TranslatedSet::default();
    let to = options.to.as_str();
    let dictionary = options.dictionary.as_str();
    let title_of = |title: &str, rng: &mut SmallRng| -> String {
        let t = translator.translate(title, rng).text;
        if t.trim().is_empty() {
            title.to_string()
        } else {
            t
        }
    };
    for (number, (book, kind)) in sources.into_iter().zip(kinds).enumerate() {
        let id = format!("s{:03}", number + 1);
        let target_id = match kind {
            Kind::Contained => format!("v{:03}", number + 1),
            _ => format!("t{:03}", number + 1),
        };
        let mut rng = stream_rng(options.seed, TRANSLATED_WORDS_STREAM, number as u64);
        let mut noise = stream_rng(options.seed, TRANSLATED_NOISE_STREAM, number as u64);
        let (band, rate) = rates[number];
        let (text, _) = first_lines(&book.text, 0, options.max_words);
        let total = word_count(&text);
        let title = title_of(&book.title, &mut rng);
        let (translated, note, target_text, alignment, source_note) = match kind {
            Kind::Whole | Kind::Partial => {
                let (part, share) = if kind == Kind::Partial {
                    let share = rng.random_range(PARTIAL_SHARE.0..=PARTIAL_SHARE.1);
                    let words = (total as f64 * share).round() as usize;
                    (first_lines(&text, 0, words).0, share)
                } else {
                    (text.clone(), 1.0)
                };
                let translation = translator.translate(&part, &mut rng);
                let offsets: Vec<usize> = translation.marks.iter().map(|m| m.1).collect();
                let (noisy, words) =
                    noise_with_marks(&translation.text, &offsets, rate, &mut noise);
                let alignment: Vec<(usize, usize)> =
                    translation.marks.iter().map(|m| m.0).zip(words).collect();
                let source_words = translation.source_words;
                let target_words = word_count(&noisy);
                let note = if kind == Kind::Partial {
                    format!(
                        "PARTIAL: b translates the first {:.0}% of a ({source_words} of {total} words) \
                         word by word with {dictionary}; {} to {to}; words {source_words}/{target_words}; \
                         OCR noise {:.1}%",
                        100.0 * share,
                        options.from,
                        100.0 * rate
                    )
                } else {
                    format!(
                        "b translates a word by word with {dictionary}; {} to {to}; words \
                         {source_words}/{target_words}; OCR noise {:.1}%",
                        options.from,
                        100.0 * rate
                    )
                };
                let source_note = format!(
                    "machine translation of {id} ({}: {} of its words) with {dictionary}; OCR noise {:.1}%",
                    book.id,
                    source_words,
                    100.0 * rate
                );
                (title, note, noisy, alignment, source_note)
            }
            Kind::Contained => {
                let others = rng.random_range(VOLUME_OTHERS.0..=VOLUME_OTHERS.1);
                let place = rng.random_range(0..=others);
                let mut clean = String::new();
                let mut marks = Vec::new();
                let mut source_words = 0;
                let mut parts = Vec::new();
                for part in 0..=others {
                    let (part_title, author, translation) = if part == place {
                        let translation = translator.translate(&text, &mut rng);
                        source_words = translation.source_words;
                        (title.clone(), book.author.clone(), translation)
                    } else {
                        let words = log_uniform(FILLER_WORDS.0, FILLER_WORDS.1, &mut rng);
                        let original = fillers.next(words);
                        parts.push(original.source.clone());
                        let part_title = title_of(&original.book.title, &mut rng);
                        let translation = translator.translate(&original.text, &mut rng);
                        (part_title, original.book.author, translation)
                    };
                    let _ = write!(clean, "\n\n\n{part_title}\n{author}\n\n\n");
                    if part == place {
                        marks = translation
                            .marks
                            .iter()
                            .map(|&(w, at)| (w, at + clean.len()))
                            .collect();
                    }
                    clean.push_str(&translation.text);
                }
                let offsets: Vec<usize> = marks.iter().map(|m| m.1).collect();
                let (noisy, words) = noise_with_marks(&clean, &offsets, rate, &mut noise);
                let alignment = marks.iter().map(|m| m.0).zip(words).collect();
                let volume_words = word_count(&noisy);
                let note = format!(
                    "PARTIAL: b contains the translation of a (text {} of {}; {source_words} source \
                     words in {volume_words}) word by word with {dictionary}; {} to {to}; OCR noise {:.1}%",
                    place + 1,
                    others + 1,
                    options.from,
                    100.0 * rate
                );
                let source_note = format!(
                    "volume of {} machine translations with {dictionary}: {id} ({}) as text {}, and {}; \
                     OCR noise {:.1}%",
                    others + 1,
                    book.id,
                    place + 1,
                    parts.join(", "),
                    100.0 * rate
                );
                (
                    format!("Sammelband {}", number + 1),
                    note,
                    noisy,
                    alignment,
                    source_note,
                )
            }
        };
        out.set.pairs.push(SetPair {
            a: id.clone(),
            b: target_id.clone(),
            relation: "translation".to_string(),
            note,
            band: NOISE_BANDS[band].0.to_string(),
        });
        out.alignments.push((target_id.clone(), alignment));
        out.set.books.push(SetBook {
            id: id.clone(),
            gutenberg_id: book.gutenberg_id.clone(),
            title: book.title.clone(),
            author: book.author.clone(),
            language: options.from.clone(),
            source: format!("corpus: {} (first {total} words)", book.id),
            text,
        });
        out.set.books.push(SetBook {
            id: target_id,
            gutenberg_id: String::new(),
            title: translated,
            author: if kind == Kind::Contained {
                "Various".to_string()
            } else {
                book.author.clone()
            },
            language: to.to_string(),
            text: target_text,
            source: source_note,
        });
        if (number + 1) % 5 == 0 || number + 1 == n {
            progress(&format!("{} of {n} sources translated", number + 1));
        }
    }
    // Negatives in the other language: translations of books not in the set.
    for (number, book) in foreign.into_iter().enumerate() {
        let mut rng = stream_rng(
            options.seed,
            TRANSLATED_WORDS_STREAM,
            (1 << 32) + number as u64,
        );
        let mut noise = stream_rng(
            options.seed,
            TRANSLATED_NOISE_STREAM,
            (1 << 32) + number as u64,
        );
        let rate = rates[n + number].1;
        let (text, _) = first_lines(&book.text, 0, options.max_words);
        let title = title_of(&book.title, &mut rng);
        let translation = translator.translate(&text, &mut rng);
        out.set.books.push(SetBook {
            id: format!("x{:03}", number + 1),
            gutenberg_id: String::new(),
            title,
            author: book.author.clone(),
            language: to.to_string(),
            text: ocr_noise(&translation.text, rate, &mut noise),
            source: format!(
                "machine translation of corpus {} (first {} words, not in the set) with {dictionary}; \
                 OCR noise {:.1}%",
                book.id,
                translation.source_words,
                100.0 * rate
            ),
        });
    }
    // Books in the sources' language, related to nothing.
    for (number, book) in own.into_iter().enumerate() {
        let (text, _) = first_lines(&book.text, 0, options.max_words);
        out.set.books.push(SetBook {
            id: format!("u{:03}", number + 1),
            gutenberg_id: book.gutenberg_id.clone(),
            title: book.title.clone(),
            author: book.author.clone(),
            language: options.from.clone(),
            source: format!("corpus: {} (first {} words)", book.id, word_count(&text)),
            text,
        });
    }
    Ok(out)
}

fn log_uniform(low: usize, high: usize, rng: &mut impl Rng) -> usize {
    let (low, high) = (low.max(1) as f64, high.max(low.max(1)) as f64);
    if high <= low {
        return low as usize;
    }
    (low * (high / low).powf(rng.random_range(0.0..1.0))).round() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn map(pairs: &[(&str, &[&str])]) -> HashMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(w, t)| (w.to_string(), t.iter().map(|t| t.to_string()).collect()))
            .collect()
    }

    /// A map that translates every other distinct word of `texts` (`w` → `zw`).
    fn map_of(texts: &[&str]) -> HashMap<String, Vec<String>> {
        let mut words: Vec<String> = texts
            .iter()
            .flat_map(|t| t.split_whitespace())
            .map(|w| {
                w.chars()
                    .filter(|c| c.is_alphabetic())
                    .flat_map(char::to_lowercase)
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .collect();
        words.sort_unstable();
        words.dedup();
        words
            .into_iter()
            .step_by(2)
            .map(|w| (w.clone(), vec![format!("z{w}")]))
            .collect()
    }

    fn source(id: &str, words: usize, seed: u64) -> SourceBook {
        SourceBook {
            id: id.to_string(),
            gutenberg_id: String::new(),
            title: format!("Title {id}"),
            author: "Someone".to_string(),
            language: "en".to_string(),
            text: crate::work_text(words, seed),
        }
    }

    #[test]
    fn languages_convert_to_two_letters() {
        assert_eq!(iso639_1("deu"), Some("de"));
        assert_eq!(iso639_1("eng"), Some("en"));
        assert_eq!(iso639_1("xyz"), None);
    }

    #[test]
    fn names_survive_and_known_words_are_translated() {
        let map = map(&[
            ("the", &["das"]),
            ("house", &["haus", "heim"]),
            ("is", &["ist"]),
            ("said", &["sagte zu"]),
        ]);
        let translator = Translator::new(&map, "de");
        let text = "Alice said: the house is Alice's house.\n".repeat(400);
        let mut rng = stream_rng(1, 0, 0);
        let out = translator.translate(&text, &mut rng);
        let alice = out.text.matches("Alice").count();
        // Kept with probability 0.7, then dropped with 0.05: about 530 of 800.
        assert!((450..620).contains(&alice), "{alice}");
        assert!(!out.text.contains("house") && !out.text.contains(" the "));
        assert!(out.text.contains("haus") && out.text.contains("heim"));
        assert!(out.text.contains("ist"));
        // A translation of several words is kept whole.
        assert!(out.text.matches("sagte zu").count() > 300);
        // Line breaks and sentence punctuation stay.
        assert_eq!(out.text.matches('\n').count(), 400);
        assert!(out.text.matches('.').count() >= 390);
        // Function words of the target language are inserted.
        let inserted = out
            .text
            .split_whitespace()
            .filter(|w| translator.function_words().iter().any(|f| f == w))
            .count();
        assert!(inserted > 50, "{inserted}");
    }

    #[test]
    fn words_move_only_locally() {
        // Words made of letters only so that each is its own entry.
        let letters: Vec<String> = (0..2_000u32)
            .map(|i| {
                let mut n = i;
                let mut w = String::from("q");
                for _ in 0..3 {
                    w.push((b'a' + (n % 26) as u8) as char);
                    n /= 26;
                }
                w
            })
            .collect();
        let map: HashMap<String, Vec<String>> = letters
            .iter()
            .map(|w| (w.clone(), vec![format!("t{w}")]))
            .collect();
        let translator = Translator::new(&map, "de");
        let text = letters.join(" ");
        let out = translator.translate(&text, &mut stream_rng(3, 0, 0));
        let positions: HashMap<&str, usize> = out
            .text
            .split_whitespace()
            .enumerate()
            .map(|(i, w)| (w, i))
            .collect();
        let mut moved = 0;
        let mut last = 0;
        for w in &letters {
            if let Some(&at) = positions.get(format!("t{w}").as_str()) {
                // Never more than one place behind the word before it.
                assert!(at + 3 >= last, "{w} at {at} after {last}");
                if at < last {
                    moved += 1;
                }
                last = last.max(at);
            }
        }
        // About 0.15 / 1.15 of the pairs are swapped.
        assert!((150..400).contains(&moved), "{moved}");
        let kept = letters
            .iter()
            .filter(|w| positions.contains_key(format!("t{w}").as_str()))
            .count();
        assert!((1_850..1_950).contains(&kept), "{kept}");
    }

    #[test]
    fn words_before_counts_whitespace_words() {
        let text = "ab cd\n\nef  gh";
        assert_eq!(
            words_before(text, &[0, 3, 4, 7, 10, 13]),
            vec![0, 1, 2, 2, 3, 4]
        );
    }

    fn small_set(seed: u64) -> TranslatedSet {
        let sources: Vec<SourceBook> = (0..30)
            .map(|i| source(&format!("pg{i}"), 3_000 + 200 * i, i as u64))
            .collect();
        let texts: Vec<&str> = sources.iter().map(|s| s.text.as_str()).collect();
        let map = map_of(&texts);
        let options = TranslatedOptions {
            max_words: 2_500,
            ..TranslatedOptions::new(12, seed, "en", "de", "freedict-eng-deu")
        };
        translated_set(&options, sources, &map, &mut |_| {}).unwrap()
    }

    #[test]
    fn translated_set_is_deterministic() {
        assert_eq!(small_set(4), small_set(4));
        assert_ne!(small_set(4), small_set(5));
    }

    #[test]
    fn translated_set_labels_every_kind() {
        let set = small_set(7);
        let books: HashMap<&str, &SetBook> =
            set.set.books.iter().map(|b| (b.id.as_str(), b)).collect();
        assert_eq!(set.set.pairs.len(), 12);
        let mut kinds = HashSet::new();
        for pair in &set.set.pairs {
            assert_eq!(pair.relation, "translation");
            assert!(
                NOISE_BANDS.iter().any(|b| b.0 == pair.band),
                "{}",
                pair.band
            );
            assert_eq!(books[pair.a.as_str()].language, "en");
            assert_eq!(books[pair.b.as_str()].language, "de");
            let kind = if pair.b.starts_with('v') {
                assert!(pair
                    .note
                    .starts_with("PARTIAL: b contains the translation of a"));
                "contained"
            } else if pair.note.starts_with("PARTIAL:") {
                "partial"
            } else {
                "whole"
            };
            kinds.insert(kind);
        }
        assert_eq!(kinds.len(), 3, "{kinds:?}");
        // Distractors in both languages, related to nothing.
        assert_eq!(
            set.set
                .books
                .iter()
                .filter(|b| b.id.starts_with('x'))
                .count(),
            4
        );
        assert_eq!(
            set.set
                .books
                .iter()
                .filter(|b| b.id.starts_with('u'))
                .count(),
            4
        );
        assert!(books
            .values()
            .all(|b| b.language == "en" || b.language == "de"));
        // Every corpus book serves once: as a source, a distractor or the
        // mine of a volume's other texts.
        let mut whole = HashSet::new();
        for book in books.values() {
            if let Some(rest) = book.source.strip_prefix("corpus: ") {
                assert!(whole.insert(rest.split(' ').next().unwrap().to_string()));
            }
        }
        for book in books
            .values()
            .filter(|b| b.id.starts_with('v') || b.id.starts_with('x'))
        {
            for id in &whole {
                assert!(!book.source.contains(&format!("corpus {id} ")), "{id}");
                assert!(!book.source.contains(&format!("corpus: {id} ")), "{id}");
            }
        }
    }

    #[test]
    fn alignments_are_monotone_and_within_the_books() {
        let set = small_set(9);
        let books: HashMap<&str, &SetBook> =
            set.set.books.iter().map(|b| (b.id.as_str(), b)).collect();
        assert_eq!(set.alignments.len(), set.set.pairs.len());
        for (pair, (id, rows)) in set.set.pairs.iter().zip(&set.alignments) {
            assert_eq!(&pair.b, id);
            let source_words = word_count(&books[pair.a.as_str()].text);
            let target_words = word_count(&books[pair.b.as_str()].text);
            assert!(!rows.is_empty());
            assert_eq!(rows[0].0, 0);
            for (i, row) in rows.iter().enumerate() {
                assert_eq!(row.0, i * PASSAGE_WORDS);
                assert!(row.0 < source_words && row.1 < target_words, "{id} {row:?}");
            }
            assert!(rows.windows(2).all(|w| w[0].1 <= w[1].1), "{id}");
            if pair.b.starts_with('t') {
                // A word's place in the translation follows its place in the
                // source: the first row at the start, proportional after.
                assert!(rows[0].1 <= 2, "{id} {:?}", rows[0]);
                let last = rows.last().unwrap();
                let covered = last.0 as f64 / rows.len().max(1) as f64;
                let ratio = last.1 as f64 / last.0.max(1) as f64;
                assert!((0.8..1.3).contains(&ratio), "{id} {last:?} {covered}");
            } else {
                // In a volume the translation starts after a title line.
                assert!(rows[0].1 > 0);
                let span = rows.last().unwrap().1 - rows[0].1;
                let ratio = span as f64 / rows.last().unwrap().0 as f64;
                assert!((0.8..1.3).contains(&ratio), "{id} {ratio}");
            }
        }
    }

    #[test]
    fn the_set_writes_alignments() {
        let set = small_set(2);
        let dir = tempfile::tempdir().unwrap();
        set.write(dir.path()).unwrap();
        let (id, rows) = &set.alignments[0];
        let text =
            std::fs::read_to_string(dir.path().join(format!("alignments/{id}.tsv"))).unwrap();
        assert!(text.starts_with("source_word\ttarget_word\n0\t"));
        assert_eq!(text.lines().count(), rows.len() + 1);
        assert!(dir.path().join("books.tsv").exists());
    }
}
