//! `stemmata eval-alignment`: P@1 of the passage mapping of translations
//! (RTA) against the IBM Model 1 baseline, on a set with known passage
//! correspondences (`stemmata generate translated` writes one: its
//! `alignments/ID.tsv` list, for the translation ID, which word of the
//! source starts where in it), or (`--headings`) on the chapter starts of
//! real translations ([`stemmata_eval::headings`]).

use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stemmata::translate::dictionary::Dictionary;
use stemmata::translate::lexicon::Lexicon;
use stemmata::{lang, Error, Result};
use stemmata_eval::headings::chapter_starts;
use stemmata_eval::passages::{
    score_pair, tiles, whitespace_word_starts, Correspondences, PassageScores, IBM1_LAMBDA,
};
use stemmata_eval::Corpus;

use crate::output::{bar, print_json};

#[derive(Args)]
pub struct EvalAlignmentArgs {
    /// The set: books.tsv, pairs.tsv, texts/ID.txt and alignments/ID.tsv
    /// (columns source_word and target_word: whitespace-separated word
    /// offsets of corresponding points in the pair's a and b).
    #[arg(long)]
    pub set: PathBuf,
    /// Bilingual dictionaries (FreeDict dictd files), used by both methods.
    /// Repeatable.
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    pub dictionary: Vec<PathBuf>,
    /// Take the correspondences from chapter headings instead: every
    /// translation pair (but HARD ones) whose books have as many headings
    /// of a kind, queried with the first --passage-words words of each
    /// chapter.
    #[arg(long)]
    pub headings: bool,
    /// Words of a chapter-start passage (with --headings).
    #[arg(long, default_value_t = 50)]
    pub passage_words: usize,
    /// Fail (exit 1) unless RTA's P@1 over all passages reaches this.
    #[arg(long)]
    pub gate_p1: Option<f64>,
    /// Fail (exit 1) unless RTA's P@1 exceeds the stronger IBM Model 1's
    /// (per word) by this much.
    #[arg(long)]
    pub gate_margin: Option<f64>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The scores of a group of pairs.
#[derive(serde::Serialize)]
struct Row {
    pairs: usize,
    #[serde(flatten)]
    scores: PassageScores,
    rta_p_at_1: f64,
    ibm1_p_at_1: f64,
    ibm1_per_word_p_at_1: f64,
    rta_p_at_1_near: f64,
    ibm1_p_at_1_near: f64,
    ibm1_per_word_p_at_1_near: f64,
}

impl Row {
    fn new(pairs: usize, scores: PassageScores) -> Self {
        let [rta, ibm1, per_word] = scores.p_at_1();
        let [rta_near, ibm1_near, per_word_near] = scores.p_at_1_near();
        Row {
            pairs,
            scores,
            rta_p_at_1: rta,
            ibm1_p_at_1: ibm1,
            ibm1_per_word_p_at_1: per_word,
            rta_p_at_1_near: rta_near,
            ibm1_p_at_1_near: ibm1_near,
            ibm1_per_word_p_at_1_near: per_word_near,
        }
    }
}

#[derive(serde::Serialize)]
struct Report {
    set: PathBuf,
    dictionaries: Vec<PathBuf>,
    ibm1_lambda: f64,
    all: Row,
    bands: BTreeMap<String, Row>,
    /// Each pair scored, with its books.
    pairs: Vec<PairRow>,
}

/// One pair's scores.
#[derive(serde::Serialize)]
struct PairRow {
    a: String,
    b: String,
    #[serde(flatten)]
    row: Row,
}

pub fn run(args: EvalAlignmentArgs) -> Result<ExitCode> {
    let corpus = Corpus::read(&args.set)?;
    let dictionaries: Vec<Dictionary> = args
        .dictionary
        .iter()
        .map(|path| Dictionary::read(path))
        .collect::<Result<_>>()?;
    let language = |id: &str| {
        let book = corpus.books.iter().find(|b| b.id == id);
        book.map(|b| lang::normalise(&b.language).unwrap_or_else(|| b.language.clone()))
    };
    let pairs: Vec<_> = corpus
        .pairs
        .iter()
        .filter(|p| p.relation == "translation" && !p.note.starts_with("HARD"))
        .filter(|p| args.headings || truth_path(&args.set, &p.b).is_file())
        .collect();
    if pairs.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{} has no translation pair with alignments/ID.tsv",
            args.set.display()
        )));
    }
    let mut lexicons: BTreeMap<(String, String), Lexicon> = BTreeMap::new();
    let mut all = PassageScores::default();
    let mut bands: BTreeMap<String, (usize, PassageScores)> = BTreeMap::new();
    let mut used = 0;
    let mut pair_rows = Vec::new();
    let progress = bar(pairs.len() as u64, "pairs", args.quiet || args.json);
    for pair in &pairs {
        let (from, to) = (language(&pair.a), language(&pair.b));
        let (Some(from), Some(to)) = (from, to) else {
            return Err(Error::InvalidArgument(format!(
                "pair {} {}: a book is not in books.tsv",
                pair.a, pair.b
            )));
        };
        let lexicon = lexicons
            .entry((from.clone(), to.clone()))
            .or_insert_with(|| {
                let refs: Vec<&Dictionary> = dictionaries.iter().collect();
                Lexicon::build(&refs, &from, &to, 0)
            });
        progress.inc(1);
        if lexicon.is_empty() {
            continue;
        }
        let (a, b) = (text(&args.set, &pair.a)?, text(&args.set, &pair.b)?);
        let truth = match args.headings {
            true => chapter_starts(&a, &b, args.passage_words),
            false => Some(read_truth(&truth_path(&args.set, &pair.b), &a, &b)?),
        };
        let Some(truth) = truth else {
            continue;
        };
        let scores = score_pair(&a, &b, &truth, lexicon)?;
        all.add(&scores);
        pair_rows.push(PairRow {
            a: pair.a.clone(),
            b: pair.b.clone(),
            row: Row::new(1, scores),
        });
        let band = bands.entry(pair.band.clone()).or_default();
        band.0 += 1;
        band.1.add(&scores);
        used += 1;
    }
    progress.finish_and_clear();
    let report = Report {
        set: args.set.clone(),
        dictionaries: args.dictionary.clone(),
        ibm1_lambda: IBM1_LAMBDA,
        all: Row::new(used, all),
        bands: bands
            .into_iter()
            .map(|(band, (n, scores))| (band, Row::new(n, scores)))
            .collect(),
        pairs: pair_rows,
    };
    if args.json {
        print_json(&report)?;
    } else {
        print_report(&report)?;
    }
    Ok(gate(&args, &report.all))
}

fn truth_path(set: &Path, b: &str) -> PathBuf {
    set.join("alignments").join(format!("{b}.tsv"))
}

fn text(set: &Path, id: &str) -> Result<String> {
    let path = set.join("texts").join(format!("{id}.txt"));
    std::fs::read_to_string(&path).map_err(|source| Error::Io { path, source })
}

/// The passages between the corresponding points of `path` in `a` and in
/// `b`.
fn read_truth(path: &Path, a: &str, b: &str) -> Result<Correspondences> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let (starts_a, starts_b) = (whitespace_word_starts(a), whitespace_word_starts(b));
    let mut points = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let bad = || Error::corrupted(path, format!("line {}: expected two word offsets", i + 1));
        let mut cells = line.split('\t').map(|c| c.trim().parse::<usize>());
        let (Some(Ok(x)), Some(Ok(y))) = (cells.next(), cells.next()) else {
            return Err(bad());
        };
        if let (Some(&x), Some(&y)) = (starts_a.get(x), starts_b.get(y)) {
            points.push((x, y));
        }
    }
    let (of_a, of_b): (Vec<usize>, Vec<usize>) = points.into_iter().unzip();
    Ok(Correspondences {
        queries: tiles(&of_a, a.len()),
        candidates: tiles(&of_b, b.len()),
    })
}

/// Pairs listed one per line when there are no more than this many (JSON
/// lists them all).
const MAX_PAIR_LINES: usize = 20;

fn print_report(report: &Report) -> stemmata::Result<()> {
    outln!(
        "passage mapping of translations: {} ({} pairs), dictionaries {}",
        report.set.display(),
        report.all.pairs,
        report
            .dictionaries
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    outln!(
        "{:<18} {:>5} {:>8}  {:>7} {:>7} {:>8}  {:>7} {:>7} {:>8}  {:>6}",
        "",
        "pairs",
        "passages",
        "RTA",
        "IBM1",
        "IBM1/w",
        "RTA±1",
        "IBM1±1",
        "IBM1/w±1",
        "RTA ms"
    )?;
    let line = |name: &str, row: &Row| {
        outln!(
            "{name:<18} {:>5} {:>8}  {:>7.3} {:>7.3} {:>8.3}  {:>7.3} {:>7.3} {:>8.3}  {:>6.1}",
            row.pairs,
            row.scores.queries,
            row.rta_p_at_1,
            row.ibm1_p_at_1,
            row.ibm1_per_word_p_at_1,
            row.rta_p_at_1_near,
            row.ibm1_p_at_1_near,
            row.ibm1_per_word_p_at_1_near,
            1000.0 * row.scores.rta_seconds / row.pairs.max(1) as f64
        )
    };
    line("all", &report.all)?;
    for (band, row) in report.bands.iter().filter(|(band, _)| !band.is_empty()) {
        line(band, row)?;
    }
    if report.pairs.len() <= MAX_PAIR_LINES {
        for pair in &report.pairs {
            line(&format!("{} {}", pair.a, pair.b), &pair.row)?;
        }
    }
    outln!(
        "(P@1; IBM1: IBM Model 1 as equation 6.3, IBM1/w: per word of the candidate; \
         ±1: the pick is the true passage or one next to it; λ = {})",
        report.ibm1_lambda
    )?;
    Ok(())
}

fn gate(args: &EvalAlignmentArgs, all: &Row) -> ExitCode {
    let mut failed = false;
    if let Some(min) = args.gate_p1 {
        if all.rta_p_at_1 < min {
            eprintln!("gate: RTA P@1 {:.3} is under {min}", all.rta_p_at_1);
            failed = true;
        }
    }
    if let Some(margin) = args.gate_margin {
        let gained = all.rta_p_at_1 - all.ibm1_p_at_1.max(all.ibm1_per_word_p_at_1);
        if gained < margin {
            eprintln!("gate: RTA P@1 exceeds IBM Model 1's by {gained:.3}, under {margin}");
            failed = true;
        }
    }
    match failed {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    }
}
