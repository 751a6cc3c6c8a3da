//! The text-pair subcommands: align (RETAS, with its portion map and the
//! pair's relation) and ocr-accuracy.
//!
//! [`aligned_pair`] aligns two texts and returns everything a report needs,
//! apart from printing; the map and the relation build on it. Texts in two
//! languages are aligned as a translation (module `align_translation`).

use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use stemmata::align::{self, Alignment, RetasOptions, SpanKind, STOP_WORDS};
use stemmata::relate::{
    classify_books, classify_map, MapBook, MapOptions, OwnedPagedBook, PageOptions, PortionMap,
    Relation,
};
use stemmata::Result;

use crate::align_translation::{Pair, Report};
use crate::output::print_json;
use crate::text_pair::{print_map_written, print_regions, read_text, write_map, TextFile};

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
    /// Write the portion map (both books as bars in bins, matched bins
    /// coloured, bands joining matched regions) to this file: SVG, or a
    /// page around it when the name ends in .html.
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    /// Words per bin of the portion map [default: 200; 100 for a
    /// translation, whose bins match when a tenth of their words correspond].
    #[arg(long)]
    pub bin_words: Option<u32>,
    /// Classify the pair: from page signals when both texts have pages (form
    /// feeds), else from the portion map (duplicate, contains, overlap).
    #[arg(long)]
    pub relations: bool,
    /// Also print the table of spans: one line per span, in order of A,
    /// with its word ranges, kind, edit distance and the start of A's text
    /// (tens of thousands of lines for two related books).
    #[arg(long)]
    pub spans: bool,
    /// Print the whole alignment as one line of JSON: the counts, the
    /// stats and every span (with or without --spans).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub translation: crate::align_translation::TranslationArgs,
}

/// Two texts and their alignment.
pub struct AlignedPair {
    pub a: TextFile,
    pub b: TextFile,
    pub alignment: Alignment,
    pub elapsed: Duration,
}

/// Aligns the two texts (the time covers the alignment, tokenising
/// included).
pub fn aligned_pair(a: TextFile, b: TextFile, args: &AlignArgs) -> Result<AlignedPair> {
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
    #[serde(skip_serializing_if = "Option::is_none")]
    relation: Option<&'a Relation>,
    #[serde(flatten)]
    alignment: &'a Alignment,
}

pub fn align(args: AlignArgs) -> Result<ExitCode> {
    let (a, b) = (read_text(&args.a)?, read_text(&args.b)?);
    let (a, b) = match crate::align_translation::translation_of(a, b, &args.translation)? {
        Pair::Translation(translation) => {
            let report = Report {
                map: args.map.as_deref(),
                bin_words: args.bin_words,
                max_dp_cells: args.retas.max_dp_cells,
                json: args.json,
            };
            return crate::align_translation::run(translation, &report, &args.translation);
        }
        Pair::SameLanguage(a, b) => (a, b),
    };
    let pair = aligned_pair(a, b, &args)?;
    let options = MapOptions {
        bin_words: args.bin_words.unwrap_or(MapOptions::default().bin_words),
        ..MapOptions::default()
    };
    let map = portion_map(&pair.alignment, &options)?;
    if let Some(path) = &args.map {
        write_map(path, &map, &pair.a, &pair.b)?;
    }
    let relation = args.relations.then(|| relation(&pair, &map)).transpose()?;
    if args.json {
        print_json(&AlignmentJson {
            a: &pair.a.path,
            b: &pair.b.path,
            seconds: pair.elapsed.as_secs_f64(),
            relation: relation.as_ref(),
            alignment: &pair.alignment,
        })?;
    } else {
        print_summary(&pair, &map)?;
        if let Some(relation) = &relation {
            let name = |file: &TextFile| file.path.display().to_string();
            outln!(
                "relation: {}",
                crate::output::relation_label(relation, &name(&pair.a), &name(&pair.b))
            )?;
        }
        if let Some(path) = &args.map {
            print_map_written(&map, path)?;
        }
        print_run(&pair)?;
        if args.spans {
            print_spans(&pair)?;
        } else if !pair.alignment.spans.is_empty() {
            outln!(
                "{} spans not printed: --spans prints them, --json gives them all",
                pair.alignment.spans.len()
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The portion map of a full-text alignment: every word is eligible.
fn portion_map(alignment: &Alignment, options: &MapOptions) -> Result<PortionMap> {
    PortionMap::build(
        MapBook::full_text(alignment.words_a),
        MapBook::full_text(alignment.words_b),
        alignment.word_range_pairs(),
        options,
    )
}

/// The pair's relation: from page signals when both texts have more than one
/// page, else from the portion map.
fn relation(pair: &AlignedPair, map: &PortionMap) -> Result<Relation> {
    let (a, b) = (
        OwnedPagedBook::of_text(&pair.a.text),
        OwnedPagedBook::of_text(&pair.b.text),
    );
    classify_books(&a.view(), &b.view(), &PageOptions::default(), || {
        Ok(classify_map(map))
    })
}

/// The summary: words and share aligned in each text, exact and edited
/// spans, moved passages and the largest matched regions of the map.
fn print_summary(pair: &AlignedPair, map: &PortionMap) -> stemmata::Result<()> {
    let al = &pair.alignment;
    let side = |name: &str, file: &TextFile, words: u32, aligned: u32, share: f64| {
        outln!(
            "{name}  {}: {words} words, {aligned} aligned ({:.1}%)",
            file.path.display(),
            100.0 * share
        )
    };
    side("A", &pair.a, al.words_a, al.aligned_words_a, al.share_a)?;
    side("B", &pair.b, al.words_b, al.aligned_words_b, al.share_b)?;
    let words = |span: &align::AlignedSpan| span.a_words.end - span.a_words.start;
    let (exact, edited): (Vec<_>, Vec<_>) =
        al.spans.iter().partition(|s| s.kind == SpanKind::Exact);
    let sum =
        |spans: &[&align::AlignedSpan]| spans.iter().map(|s| u64::from(words(s))).sum::<u64>();
    outln!(
        "{} spans: {} exact ({} words of A), {} edited ({} words of A)",
        al.spans.len(),
        exact.len(),
        sum(&exact),
        edited.len(),
        sum(&edited)
    )?;
    // A passage: consecutive moved spans (in order of A).
    let passages = al
        .spans
        .iter()
        .enumerate()
        .filter(|(i, s)| s.moved && (*i == 0 || !al.spans[i - 1].moved))
        .count();
    if passages == 0 {
        outln!("moved passages: none")?;
    } else {
        outln!(
            "moved passages: {passages} ({} spans, {} words of A, {} of B)",
            al.stats.moved_spans,
            al.stats.moved_words_a,
            al.stats.moved_words_b
        )?;
    }
    print_regions(map, al.words_a, al.words_b)?;
    Ok(())
}

/// How the alignment went: anchors, recursion, capped stretches, time.
fn print_run(pair: &AlignedPair) -> stemmata::Result<()> {
    let stats = &pair.alignment.stats;
    outln!(
        "{} anchors, {} leaves, depth {}; {} stretches over the table cap; {:.3} s",
        stats.anchors,
        stats.leaves,
        stats.depth,
        stats.capped_stretches,
        pair.elapsed.as_secs_f64()
    )?;
    Ok(())
}

/// One line per span: word ranges, kind (`moved` marks a passage out of
/// the order of B), edit distance, the start of A's text.
fn print_spans(pair: &AlignedPair) -> stemmata::Result<()> {
    outln!()?;
    outln!(
        "{:>19}  {:>19}  {:<12}  {:>8}  A text",
        "A words",
        "B words",
        "kind",
        "distance"
    )?;
    for span in &pair.alignment.spans {
        let (kind, distance) = match span.kind {
            SpanKind::Exact => ("exact", String::new()),
            SpanKind::Edited { distance, .. } => ("edited", distance.to_string()),
        };
        let kind = if span.moved {
            format!("{kind} moved")
        } else {
            kind.to_string()
        };
        let excerpt: String = pair.a.text[span.a_bytes.clone()]
            .chars()
            .take(48)
            .map(|c| if c.is_whitespace() { ' ' } else { c })
            .collect();
        outln!(
            "{:>19}  {:>19}  {kind:<12}  {distance:>8}  {excerpt}",
            format!("{}..{}", span.a_words.start, span.a_words.end),
            format!("{}..{}", span.b_words.start, span.b_words.end),
        )?;
    }
    Ok(())
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
    outln!(
        "character accuracy  {:.2}%  ({} errors in {} characters)",
        100.0 * measured.char_accuracy,
        measured.char_errors,
        measured.clean_chars
    )?;
    outln!(
        "word accuracy       {:.2}%  ({} of {} words)",
        100.0 * measured.word_accuracy,
        measured.matched_words,
        measured.clean_words
    )?;
    outln!(
        "stop-word accuracy  {:.2}%  ({} of {} occurrences of the clean text's {STOP_WORDS} most frequent words)",
        100.0 * measured.stop_word_accuracy,
        measured.matched_stop_words,
        measured.stop_words
    )?;
    outln!(
        "aligned {:.1}% of the clean text; {} OCR words before or after it not counted; {:.3} s",
        100.0 * measured.aligned_share,
        measured.extra_ocr_words,
        elapsed.as_secs_f64()
    )?;
    Ok(ExitCode::SUCCESS)
}
