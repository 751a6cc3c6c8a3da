//! The text-pair subcommands: align (RETAS) and ocr-accuracy.
//!
//! [`aligned_pair`] reads and aligns two files and returns everything a
//! report needs, apart from printing, so that other outputs of `align` can
//! build on it.

use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use stemmata::align::{self, Alignment, RetasOptions, SpanKind, STOP_WORDS};
use stemmata::text::{decode, looks_binary, tokenise};
use stemmata::{Error, Result};

use crate::output::print_json;

/// RETAS parameters shared by the text-pair commands.
#[derive(Args, Clone, Copy)]
pub struct RetasArgs {
    /// K: segment pairs under this many words are aligned word by word,
    /// without looking for anchors inside them.
    #[arg(long, default_value_t = RetasOptions::default().leaf_words)]
    pub leaf_words: u32,
    /// Largest dynamic-programming table, in cells; a stretch that needs a
    /// larger one is left unaligned.
    #[arg(long, default_value_t = RetasOptions::default().max_dp_cells)]
    pub max_dp_cells: u64,
}

impl RetasArgs {
    pub fn options(&self) -> RetasOptions {
        RetasOptions {
            leaf_words: self.leaf_words,
            max_dp_cells: self.max_dp_cells,
            ..RetasOptions::default()
        }
    }
}

#[derive(Args)]
pub struct AlignArgs {
    /// Text A (.txt: UTF-8, UTF-16 with a byte-order mark, or windows-1252).
    pub a: PathBuf,
    /// Text B.
    pub b: PathBuf,
    #[command(flatten)]
    pub retas: RetasArgs,
    /// Print the whole alignment as JSON.
    #[arg(long)]
    pub json: bool,
}

/// A text file read for alignment.
pub struct TextFile {
    pub path: PathBuf,
    pub text: String,
}

/// Two texts and their alignment.
pub struct AlignedPair {
    pub a: TextFile,
    pub b: TextFile,
    pub alignment: Alignment,
    pub elapsed: Duration,
}

/// Reads a text file, refusing what the loader refuses: an empty file,
/// binary data, a text without words.
pub fn read_text(path: &Path) -> Result<TextFile> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |reason: &str| Error::BadDocument {
        source_name: path.display().to_string(),
        reason: reason.to_string(),
    };
    if bytes.is_empty() {
        return Err(bad("empty file"));
    }
    if looks_binary(&bytes) {
        return Err(bad("binary data (NUL or control bytes), not text"));
    }
    let text = decode(&bytes).text.into_owned();
    if tokenise(&text, |_| {}).words == 0 {
        return Err(bad("no words after normalisation"));
    }
    Ok(TextFile {
        path: path.to_path_buf(),
        text,
    })
}

/// Reads and aligns the two files of `args` (the time covers the alignment,
/// tokenising included, not the reading).
pub fn aligned_pair(args: &AlignArgs) -> Result<AlignedPair> {
    let (a, b) = (read_text(&args.a)?, read_text(&args.b)?);
    let started = Instant::now();
    let alignment = align::align_texts(&a.text, &b.text, &args.retas.options())?;
    Ok(AlignedPair {
        a,
        b,
        alignment,
        elapsed: started.elapsed(),
    })
}

#[derive(serde::Serialize)]
struct AlignmentJson<'a> {
    a: &'a Path,
    b: &'a Path,
    seconds: f64,
    #[serde(flatten)]
    alignment: &'a Alignment,
}

pub fn align(args: AlignArgs) -> Result<ExitCode> {
    let pair = aligned_pair(&args)?;
    if args.json {
        print_json(&AlignmentJson {
            a: &pair.a.path,
            b: &pair.b.path,
            seconds: pair.elapsed.as_secs_f64(),
            alignment: &pair.alignment,
        })?;
    } else {
        print_summary(&pair);
        print_spans(&pair);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(pair: &AlignedPair) {
    let al = &pair.alignment;
    let side = |name: &str, file: &TextFile, words: u32, aligned: u32, share: f64| {
        println!(
            "{name}  {}: {words} words, {aligned} aligned ({:.1}%)",
            file.path.display(),
            100.0 * share
        );
    };
    side("A", &pair.a, al.words_a, al.aligned_words_a, al.share_a);
    side("B", &pair.b, al.words_b, al.aligned_words_b, al.share_b);
    let exact = al
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Exact)
        .count();
    let stats = &al.stats;
    println!(
        "{} spans ({exact} exact, {} edited); {} anchors, {} leaves, depth {}; {} stretches over the table cap; {:.3} s",
        al.spans.len(),
        al.spans.len() - exact,
        stats.anchors,
        stats.leaves,
        stats.depth,
        stats.capped_stretches,
        pair.elapsed.as_secs_f64()
    );
}

/// One line per span: word ranges, kind, edit distance, the start of A's text.
fn print_spans(pair: &AlignedPair) {
    println!();
    println!(
        "{:>19}  {:>19}  {:<6}  {:>8}  A text",
        "A words", "B words", "kind", "distance"
    );
    for span in &pair.alignment.spans {
        let (kind, distance) = match span.kind {
            SpanKind::Exact => ("exact", String::new()),
            SpanKind::Edited { distance, .. } => ("edited", distance.to_string()),
        };
        let excerpt: String = pair.a.text[span.a_bytes.clone()]
            .chars()
            .take(48)
            .map(|c| if c.is_whitespace() { ' ' } else { c })
            .collect();
        println!(
            "{:>19}  {:>19}  {kind:<6}  {distance:>8}  {excerpt}",
            format!("{}..{}", span.a_words.start, span.a_words.end),
            format!("{}..{}", span.b_words.start, span.b_words.end),
        );
    }
}

#[derive(Args)]
pub struct OcrAccuracyArgs {
    /// The clean copy (ground truth).
    #[arg(long)]
    pub clean: PathBuf,
    /// The OCR text to measure.
    pub ocr: PathBuf,
    #[command(flatten)]
    pub retas: RetasArgs,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn ocr_accuracy(args: OcrAccuracyArgs) -> Result<ExitCode> {
    let (clean, ocr) = (read_text(&args.clean)?, read_text(&args.ocr)?);
    let started = Instant::now();
    let measured = align::ocr_accuracy(&clean.text, &ocr.text, &args.retas.options())?;
    let elapsed = started.elapsed();
    if args.json {
        print_json(&measured)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "character accuracy  {:.2}%  ({} errors in {} characters)",
        100.0 * measured.char_accuracy,
        measured.char_errors,
        measured.clean_chars
    );
    println!(
        "word accuracy       {:.2}%  ({} of {} words)",
        100.0 * measured.word_accuracy,
        measured.matched_words,
        measured.clean_words
    );
    println!(
        "stop-word accuracy  {:.2}%  ({} of {} occurrences of the clean text's {STOP_WORDS} most frequent words)",
        100.0 * measured.stop_word_accuracy,
        measured.matched_stop_words,
        measured.stop_words
    );
    println!(
        "aligned {:.1}% of the clean text; {} OCR words before or after it not counted; {:.3} s",
        100.0 * measured.aligned_share,
        measured.extra_ocr_words,
        elapsed.as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
