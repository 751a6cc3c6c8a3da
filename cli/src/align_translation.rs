//! `align` across languages: RTA ([`stemmata::translate::rta`]) of a text
//! with its translation, its portion map and its passage mapping.
//!
//! [`translation_of`] decides whether a pair is a translation (the texts'
//! languages differ, or a dictionary was named) and finds the lexicon that
//! joins the two languages: the dictionaries named with `--dictionary`,
//! else those of an index (`--index`), else the FreeDict dictionaries
//! installed under [`DICTD_DIR`].

use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use stemmata::align::RetasOptions;
use stemmata::lang;
use stemmata::relate::MapOptions;
use stemmata::translate::dictionary::Dictionary;
use stemmata::translate::lexicon::Lexicon;
use stemmata::translate::rta::{align_translation, PassageMapping, TranslationAlignment};
use stemmata::{Error, Index, Result};

use crate::output::print_json;
use crate::text_pair::{print_map_written, print_regions, write_map, TextFile};

/// Where Debian's `dict-freedict-*` packages install their dictionaries.
pub const DICTD_DIR: &str = "/usr/share/dictd";

/// How `align` finds and uses a dictionary for texts in two languages.
#[derive(Args, Clone, Default)]
pub struct TranslationArgs {
    /// Align as a translation with these bilingual dictionaries (FreeDict
    /// dictd files: the .index or the .dict.dz; repeatable; both
    /// directions of a pair are used). Without it, texts whose languages
    /// differ are aligned with the dictionaries of --index, else with the
    /// FreeDict dictionaries installed in /usr/share/dictd.
    #[arg(long, value_name = "FILE")]
    pub dictionary: Vec<PathBuf>,
    /// Take the dictionaries of this index (read only).
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Language of A (ISO 639 code or English name) [default: detected].
    #[arg(long, value_name = "LANG")]
    pub language_a: Option<String>,
    /// Language of B [default: detected].
    #[arg(long, value_name = "LANG")]
    pub language_b: Option<String>,
    /// Map A, cut into passages of about N words, into B: each passage's
    /// stretch of B and a confidence (the share of its words that
    /// correspond). Translations only.
    #[arg(long, value_name = "N")]
    pub passages: Option<u32>,
    /// Also print every word correspondence: A's word, B's word, their
    /// positions (thousands of lines for two books).
    #[arg(long)]
    pub words: bool,
}

/// A pair of texts to align as a translation, with its lexicon.
pub struct Translation {
    a: TextFile,
    b: TextFile,
    lexicon: Lexicon,
    /// Where the dictionaries came from, for the report.
    source: String,
}

/// Two texts to align, as a translation or in one language.
pub enum Pair {
    Translation(Translation),
    SameLanguage(TextFile, TextFile),
}

/// Texts `a` and `b` as a translation when their languages differ and both
/// are known, or a dictionary was named; else as texts in one language. An
/// error when no dictionary joins the languages.
pub fn translation_of(a: TextFile, b: TextFile, options: &TranslationArgs) -> Result<Pair> {
    let language = |given: &Option<String>, file: &TextFile| match given {
        Some(code) => lang::normalise(code).unwrap_or_else(|| code.to_lowercase()),
        None => lang::detect(&file.text).to_string(),
    };
    let (mut from, mut to) = (
        language(&options.language_a, &a),
        language(&options.language_b, &b),
    );
    let differ = from != to && lang::is_known(&from) && lang::is_known(&to);
    if !differ && options.dictionary.is_empty() {
        if options.passages.is_some() {
            return Err(Error::InvalidArgument(format!(
                "--passages maps a text into its translation, but {} is in {from} and {} in {to} \
                 (und: not told); --language-a and --language-b set the languages, \
                 --dictionary names a dictionary",
                a.path.display(),
                b.path.display()
            )));
        }
        return Ok(Pair::SameLanguage(a, b));
    }
    let dictionaries = read_dictionaries(&options.dictionary)?;
    if !differ {
        (from, to) = languages_of(&dictionaries, &from, &to)?;
    }
    let (lexicon, source) = match (&options.dictionary[..], &options.index) {
        ([], Some(dir)) => {
            let index = Index::open_read_only(dir)?;
            let lexicon = index.lexicon(&from, &to)?;
            (lexicon, format!("the dictionaries of {}", dir.display()))
        }
        ([], None) => {
            let installed = installed_dictionaries(Path::new(DICTD_DIR), &from, &to);
            let read = read_dictionaries(&installed)?;
            let lexicon = joined(&read, &from, &to);
            (lexicon, names(&installed))
        }
        (named, _) => (joined(&dictionaries, &from, &to), names(named)),
    };
    let lexicon = lexicon.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{} is in {from} and {} in {to}, and no dictionary translates between them: \
             name one with --dictionary (FreeDict dictd files, as Debian's \
             dict-freedict-{from}-{to} installs in {DICTD_DIR}), or --index an index that has one",
            a.path.display(),
            b.path.display()
        ))
    })?;
    Ok(Pair::Translation(Translation {
        a,
        b,
        lexicon,
        source,
    }))
}

fn read_dictionaries(paths: &[PathBuf]) -> Result<Vec<Dictionary>> {
    paths.iter().map(|path| Dictionary::read(path)).collect()
}

/// The languages of a pair aligned with named dictionaries when its own
/// languages do not differ (or one is unknown): those of the first
/// dictionary with one of them, in the order that keeps it.
fn languages_of(dictionaries: &[Dictionary], from: &str, to: &str) -> Result<(String, String)> {
    let first = dictionaries
        .first()
        .ok_or_else(|| Error::InvalidArgument("no dictionary was given".to_string()))?;
    let (x, y) = (first.from().to_string(), first.to().to_string());
    let oriented = dictionaries.iter().find_map(|d| match (d.from(), d.to()) {
        (f, t) if f == from || t == to => Some((f.to_string(), t.to_string())),
        (f, t) if t == from || f == to => Some((t.to_string(), f.to_string())),
        _ => None,
    });
    Ok(oriented.unwrap_or((x, y)))
}

/// The lexicon of `dictionaries` from `from` to `to`; `None` when none of
/// them joins the two. Texts have no index, so words hash with seed 0.
fn joined(dictionaries: &[Dictionary], from: &str, to: &str) -> Option<Lexicon> {
    let refs: Vec<&Dictionary> = dictionaries.iter().collect();
    let lexicon = Lexicon::build(&refs, from, to, 0);
    (!lexicon.is_empty()).then_some(lexicon)
}

/// FreeDict dictionaries of the pair in `dir`, both directions.
fn installed_dictionaries(dir: &Path, from: &str, to: &str) -> Vec<PathBuf> {
    [
        format!("freedict-{from}-{to}"),
        format!("freedict-{to}-{from}"),
    ]
    .iter()
    .map(|name| dir.join(format!("{name}.index")))
    .filter(|path| path.is_file())
    .collect()
}

fn names(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

#[derive(serde::Serialize)]
struct TranslationJson<'a> {
    a: &'a Path,
    b: &'a Path,
    relation: &'static str,
    dictionaries: &'a str,
    seconds: f64,
    #[serde(flatten)]
    alignment: &'a TranslationAlignment,
    #[serde(skip_serializing_if = "Option::is_none")]
    passages: Option<&'a [PassageMapping]>,
}

/// What `align` asks of any report.
pub struct Report<'a> {
    /// Write the portion map here.
    pub map: Option<&'a Path>,
    /// Words per bin of the map (a translation's default when `None`).
    pub bin_words: Option<u32>,
    /// Largest dynamic-programming table.
    pub max_dp_cells: u64,
    /// Print JSON.
    pub json: bool,
}

/// Aligns a translation and reports it (see [`TranslationArgs`]).
pub fn run(translation: Translation, args: &Report, asked: &TranslationArgs) -> Result<ExitCode> {
    let Translation {
        a,
        b,
        lexicon,
        source,
    } = translation;
    let options = RetasOptions {
        max_dp_cells: args.max_dp_cells,
        ..RetasOptions::translations()
    };
    let started = Instant::now();
    let alignment = align_translation(&a.text, &b.text, &lexicon, &options)?;
    let seconds = started.elapsed().as_secs_f64();
    let map_options = MapOptions {
        bin_words: args
            .bin_words
            .unwrap_or(MapOptions::translations().bin_words),
        ..MapOptions::translations()
    };
    let map = alignment.portion_map(&map_options)?;
    if let Some(path) = args.map {
        write_map(path, &map, &a, &b)?;
    }
    let passages = asked.passages.map(|words| alignment.passages(words));
    if args.json {
        return print_json(&TranslationJson {
            a: &a.path,
            b: &b.path,
            relation: "translation",
            dictionaries: &source,
            seconds,
            alignment: &alignment,
            passages: passages.as_deref(),
        })
        .map(|()| ExitCode::SUCCESS);
    }
    let (from, to) = &alignment.languages;
    outln!("translation from {from} into {to}, with {source}")?;
    let side = |name: &str, file: &TextFile, words: u32, share: f64| {
        outln!(
            "{name}  {}: {words} words, {} corresponding ({:.1}%)",
            file.path.display(),
            alignment.matched_words,
            100.0 * share
        )
    };
    side("A", &a, alignment.words_a, alignment.share_a)?;
    side("B", &b, alignment.words_b, alignment.share_b)?;
    print_regions(&map, alignment.words_a, alignment.words_b)?;
    if let Some(path) = args.map {
        print_map_written(&map, path)?;
    }
    let stats = &alignment.stats;
    outln!(
        "{} anchors, {} leaves, depth {}; {:.3} s",
        stats.anchors,
        stats.leaves,
        stats.depth,
        seconds
    )?;
    if let Some(passages) = &passages {
        print_passages(passages, &a)?;
    }
    if asked.words {
        print_words(&alignment, &a, &b)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per passage: its words in A and B, matches, confidence and
/// the start of A's text.
fn print_passages(passages: &[PassageMapping], a: &TextFile) -> stemmata::Result<()> {
    let mapped = passages.iter().filter(|p| p.b_words.is_some()).count();
    outln!()?;
    outln!("{mapped} of {} passages mapped:", passages.len())?;
    outln!(
        "{:>15}  {:>15}  {:>7}  {:>10}  A text",
        "A words",
        "B words",
        "matches",
        "confidence"
    )?;
    for passage in passages {
        let b = passage
            .b_words
            .as_ref()
            .map_or("-".to_string(), |w| format!("{}..{}", w.start, w.end));
        outln!(
            "{:>15}  {b:>15}  {:>7}  {:>10.2}  {}",
            format!("{}..{}", passage.a_words.start, passage.a_words.end),
            passage.matches,
            passage.confidence,
            excerpt(&a.text[passage.a_bytes.clone()])
        )?;
    }
    Ok(())
}

/// One line per corresponding word pair.
fn print_words(
    alignment: &TranslationAlignment,
    a: &TextFile,
    b: &TextFile,
) -> stemmata::Result<()> {
    outln!()?;
    outln!("{:>9}  {:>9}  {:<20}  B word", "A word", "B word", "A word")?;
    for pair in &alignment.matches {
        let word_a = &a.text[alignment.bytes_a(&(pair.a..pair.a + 1))];
        let word_b = &b.text[alignment.bytes_b(&(pair.b..pair.b + 1))];
        let anchor = if pair.anchor { "  (anchor)" } else { "" };
        outln!(
            "{:>9}  {:>9}  {word_a:<20}  {word_b}{anchor}",
            pair.a,
            pair.b
        )?;
    }
    Ok(())
}

/// The first 48 characters of `text`, white space as spaces.
fn excerpt(text: &str) -> String {
    text.chars()
        .take(48)
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect()
}
