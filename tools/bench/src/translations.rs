//! Translation search speed (`stemmata bench --translation-books N`): the
//! all-pairs job with translations against aligning every cross-language
//! pair, on a generated collection in two languages.
//!
//! **The collection.** The generated books ([`crate::speed`]'s), every
//! other one "translated" into a made-up second language word by word: a
//! word becomes its letters reversed with `ung` appended. Their families
//! (a work's original and editions) then hold pairs across the languages.
//! The dictionary (written as a dictd file pair, as FreeDict ships them)
//! gives every word of the first language its translation and, for one
//! word in four, a second one that no text uses, so that words have
//! several translations as in a real dictionary.
//!
//! **The measurement.** The translation part of the all-pairs job is the
//! job with translations minus the job without (both exact, all threads,
//! in CPU-seconds of the process, read from `/proc/self/stat`: wall time
//! on a shared machine counts other work too; elsewhere, wall time times
//! the threads). The baseline aligns every pair of a sample of
//! first-language books with every book of the second language (the
//! brute force `query --translations` is tested against, minus the same
//! brute force without translations), one core; the sample is of the
//! second language's books, since the job finds a pair of two languages
//! from the book whose code sorts first (deu before eng); its rate, in translated
//! pairs verified per second, projects the time to align all
//! cross-language pairs.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use stemmata::{Document, Index, LoadOptions, PairsOptions, QueryOptions, Reader, Result};

use crate::speed::generated_documents;

/// Books queried by brute force.
const SAMPLE: usize = 20;

/// The figures of [`measure`].
#[derive(Debug, serde::Serialize, Default)]
pub struct TranslationFigures {
    /// Books in the collection.
    pub books: usize,
    /// Books of the made-up language (deu) and of the first (eng).
    pub books_per_language: [usize; 2],
    /// Cross-language pairs of books.
    pub cross_language_pairs: u64,
    /// Threads the all-pairs job used.
    pub threads: usize,
    /// All pairs without translations, seconds (wall clock).
    pub same_language_seconds: f64,
    /// All pairs with translations, seconds (wall clock).
    pub with_translations_seconds: f64,
    /// Translation pairs found.
    pub translation_pairs_found: u64,
    /// The translation part, CPU-seconds (the difference of the two runs
    /// times the threads).
    pub translation_cpu_seconds: f64,
    /// Pairs of parts the translation part aligned (its LCS runs; the
    /// rest of its time goes to counting candidates).
    pub translation_pairs_verified: u64,
    /// Translated pairs of books the brute force aligned per second on one
    /// core.
    pub brute_force_pairs_per_sec_per_core: f64,
    /// The brute force's time for every cross-language pair, projected
    /// from its rate, CPU-seconds.
    pub brute_force_cpu_seconds: f64,
    /// The ratio of the two.
    pub speedup_over_brute_force: f64,
    /// Of the sample's translation hits, the brute force's found by the
    /// planner too (they must all be).
    pub sample_hits_agree: bool,
}

/// The translation of `word` in the made-up language.
fn translate(word: &str) -> String {
    let mut out: String = word.chars().rev().collect();
    out.push_str("ung");
    out
}

/// `text` translated word by word; white space and punctuation kept.
fn translated_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphabetic() {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push_str(&translate(&word.to_lowercase()));
            word.clear();
        }
        out.push(c);
    }
    if !word.is_empty() {
        out.push_str(&translate(&word.to_lowercase()));
    }
    out
}

/// Writes `freedict-eng-deu.index` and `.dict` in `dir` for `words`
/// (see the module docs); returns the index's path.
fn write_dictionary(dir: &Path, words: &[String]) -> Result<std::path::PathBuf> {
    let entries: Vec<(&str, String)> = words
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let mut entry = format!("{word}\n{}\n", translate(word));
            if i % 4 == 0 {
                let _ = writeln!(entry, "{}keit", translate(word));
            }
            (word.as_str(), entry)
        })
        .collect();
    let entries: Vec<(&str, &str)> = entries.iter().map(|(w, e)| (*w, e.as_str())).collect();
    let (index, dict) = stemmata_synth::dictd::files(&entries);
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| stemmata::Error::Io { path, source })
    };
    write("freedict-eng-deu.dict", &dict)?;
    write("freedict-eng-deu.index", &index)?;
    Ok(dir.join("freedict-eng-deu.index"))
}

/// The collection of `books` books in two languages, and the words of the
/// first (sorted, as a dictionary's headwords are).
fn collection(books: usize) -> (Vec<Document>, Vec<String>) {
    let mut words: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let documents = generated_documents(books)
        .into_iter()
        .enumerate()
        .map(|(i, document)| {
            let text = String::from_utf8_lossy(&document.text).into_owned();
            if i % 2 == 0 {
                words.extend(
                    text.split(|c: char| !c.is_alphabetic())
                        .filter(|w| !w.is_empty())
                        .map(str::to_lowercase),
                );
                Document::new(document.key, text).with_language("en")
            } else {
                Document::new(document.key, translated_text(&text)).with_language("de")
            }
        })
        .collect();
    (documents, words.into_iter().collect())
}

/// Measures the figures on a collection of `books` generated books in
/// `dir`; `progress` is told each step.
pub fn measure(dir: &Path, books: usize, progress: impl Fn(&str)) -> Result<TranslationFigures> {
    progress(&format!("translations: {books} books in two languages"));
    let (documents, words) = collection(books);
    let index = Index::create(dir.join("index"))?;
    let dictionary = write_dictionary(dir, &words)?;
    index.add_dictionary(&dictionary)?;
    let mut loader = index.bulk_loader(LoadOptions::default())?;
    loader.extend(documents.into_iter().map(Ok))?;
    loader.finish()?;
    let reader = index.reader()?;
    // The job finds a pair of two languages from the book of the language
    // that sorts first (deu), translated into the other: so does the
    // brute force.
    let first: Vec<String> = reader
        .books()
        .iter()
        .filter(|b| b.language == "deu")
        .map(|b| b.key.clone())
        .collect();
    let second = reader.len() - first.len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut figures = TranslationFigures {
        books: reader.len(),
        books_per_language: [first.len(), second],
        cross_language_pairs: first.len() as u64 * second as u64,
        threads,
        ..TranslationFigures::default()
    };
    progress("translations: all pairs, without and with translations");
    let (plain, plain_cpu) = cpu_timed(threads, || reader.pairs(&PairsOptions::default()))?;
    let (translated, translated_cpu) = cpu_timed(threads, || {
        reader.pairs(&PairsOptions::default().translations(true))
    })?;
    figures.same_language_seconds = plain.stats.elapsed.as_secs_f64();
    figures.with_translations_seconds = translated.stats.elapsed.as_secs_f64();
    figures.translation_pairs_found = translated
        .pairs
        .iter()
        .filter(|p| p.relation == Some(stemmata::Relationship::Translation))
        .count() as u64;
    figures.translation_cpu_seconds = (translated_cpu - plain_cpu).max(0.0);
    figures.translation_pairs_verified = translated
        .stats
        .lcs_runs
        .saturating_sub(plain.stats.lcs_runs);
    progress("translations: brute force on a sample");
    brute_force(&reader, &first, &translated.pairs, &mut figures)?;
    Ok(figures)
}

/// Runs `work`, returning its result and the CPU-seconds the process
/// spent on it (wall time times `threads` where `/proc` is missing).
fn cpu_timed<T>(threads: usize, work: impl FnOnce() -> Result<T>) -> Result<(T, f64)> {
    let (cpu, wall) = (crate::process_cpu_seconds(), Instant::now());
    let result = work()?;
    let spent = match (cpu, crate::process_cpu_seconds()) {
        (Some(before), Some(after)) => after - before,
        _ => wall.elapsed().as_secs_f64() * threads as f64,
    };
    Ok((result, spent))
}

/// Times the brute force on [`SAMPLE`] books of `first` (the language
/// that sorts first) and checks its translation hits against the
/// planner's pairs.
fn brute_force(
    reader: &Reader,
    first: &[String],
    found: &[stemmata::Pair],
    figures: &mut TranslationFigures,
) -> Result<()> {
    let sample: Vec<&String> = first
        .iter()
        .step_by((first.len() / SAMPLE).max(1))
        .take(SAMPLE)
        .collect();
    let everything = |translations: bool| {
        QueryOptions::default()
            .top_k(usize::MAX)
            .translations(translations)
    };
    let mut seconds = 0.0;
    let mut agree = true;
    for key in &sample {
        let (with, with_cpu) = cpu_timed(1, || reader.brute_force_key(key, &everything(true)))?;
        let (_, without_cpu) = cpu_timed(1, || reader.brute_force_key(key, &everything(false)))?;
        seconds += with_cpu - without_cpu;
        for hit in with
            .iter()
            .filter(|h| h.relation == Some(stemmata::Relationship::Translation))
        {
            agree &= found.iter().any(|p| {
                (p.a.key == **key && p.b.key == hit.key) || (p.b.key == **key && p.a.key == hit.key)
            });
        }
    }
    let pairs = sample.len() as f64 * figures.books_per_language[1] as f64;
    figures.brute_force_pairs_per_sec_per_core = pairs / seconds.max(1e-9);
    figures.brute_force_cpu_seconds =
        figures.cross_language_pairs as f64 / figures.brute_force_pairs_per_sec_per_core;
    figures.speedup_over_brute_force =
        figures.brute_force_cpu_seconds / figures.translation_cpu_seconds.max(1e-9);
    figures.sample_hits_agree = agree;
    Ok(())
}
