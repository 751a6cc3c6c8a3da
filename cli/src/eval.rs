//! `stemmata eval`: precision, recall and F1 on a labelled corpus.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use stemmata::{LoadEvent, LoadOptions, Mode, PairsOptions, PairsStats, Result, Score};
use stemmata_eval::translations::TranslationLabels;
use stemmata_eval::{
    band_recall, baselines, best_f1, metrics, BandRecall, BookSketch, Corpus, Labels, Metrics,
    PairClass, ScoredPair,
};

use crate::output::{bar, new_index, print_json};

#[derive(Args)]
pub struct EvalArgs {
    /// Corpus directory: books.tsv, pairs.tsv and texts/ID.txt.
    #[arg(long)]
    pub corpus: PathBuf,
    /// Build the index here and keep it [default: a temporary directory].
    #[arg(long)]
    pub index: Option<PathBuf>,
    /// Fail (exit 1) unless the default score at its default threshold
    /// reaches this precision on edition + contains pairs.
    #[arg(long)]
    pub gate_precision: Option<f64>,
    /// Fail (exit 1) unless it reaches this recall.
    #[arg(long)]
    pub gate_recall: Option<f64>,
    /// Fail (exit 1) unless approximate mode's recall on edition + contains
    /// is at least this share of exact mode's (e.g. 0.95).
    #[arg(long)]
    pub gate_approximate_share: Option<f64>,
    /// Fail (exit 1) unless the default score at its default threshold, in
    /// exact mode, reaches this F1 on edition + contains pairs.
    #[arg(long)]
    pub gate_f1: Option<f64>,
    /// Fail (exit 1) unless every band of pairs.tsv's `band` column (but the
    /// excluded ones) reaches this recall, in exact and in approximate mode,
    /// with the default score at its default threshold.
    #[arg(long)]
    pub gate_band_recall: Option<f64>,
    /// Leave the pairs of this band (a label of pairs.tsv's `band` column,
    /// e.g. 'share <0.1%') out of the evaluation: neither positives nor
    /// negatives, as translations are. Repeatable.
    #[arg(long, value_name = "LABEL")]
    pub exclude_band: Vec<String>,
    /// Bilingual dictionaries (FreeDict dictd files: the .index or the
    /// .dict.dz) to add to the index before the translation section, which
    /// runs when the index has any. Repeatable.
    #[arg(long, value_name = "FILE")]
    pub dictionary: Vec<PathBuf>,
    /// Search only the language pairs a dictionary joins, none through
    /// English.
    #[arg(long)]
    pub no_pivot: bool,
    /// Fail (exit 1) unless translation pairs (PARTIAL included, HARD
    /// left out) reach this precision at the default score's translation
    /// threshold.
    #[arg(long)]
    pub gate_translation_precision: Option<f64>,
    /// Fail (exit 1) unless they reach this recall.
    #[arg(long)]
    pub gate_translation_recall: Option<f64>,
    /// Fail (exit 1) unless at least this share of the listed `edition`
    /// pairs (excluded bands left out) is classified as the same text.
    #[arg(long)]
    pub gate_relation_duplicate: Option<f64>,
    /// Fail (exit 1) unless at least this share of the listed `contains`
    /// pairs (excluded bands left out) is classified as a containment with
    /// the labelled container.
    #[arg(long)]
    pub gate_relation_contains: Option<f64>,
    /// List the default score's false negatives and false positives, one
    /// line each (with --json, as the report's "errors").
    #[arg(long)]
    pub list_errors: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Report {
    books: usize,
    text_bytes: u64,
    load_seconds: f64,
    scoring_seconds: f64,
    pruned_pairs_seconds: f64,
    pruned_pairs: PairsStats,
    approximate_pairs: PairsStats,
    approximate_recall_share: f64,
    baseline_seconds: f64,
    rows: Vec<Row>,
    /// Bands left out of the evaluation (--exclude-band).
    excluded_bands: Vec<String>,
    /// Recall per relation and per band, exact and approximate mode, with
    /// the default score at its default threshold.
    recall_by_band: Vec<BandRow>,
    /// The relation classes of the listed pairs, by labelled relation and
    /// band.
    relations: crate::eval_relations::RelationReport,
    /// Translation pairs, when the index has dictionaries.
    #[serde(skip_serializing_if = "Option::is_none")]
    translations: Option<crate::eval_translations::TranslationReport>,
    /// With --list-errors: the default score's false positives and negatives.
    #[serde(skip_serializing_if = "Option::is_none")]
    errors: Option<Vec<ListedError>>,
}

#[derive(serde::Serialize)]
struct Row {
    which: &'static str,
    #[serde(flatten)]
    metrics: Metrics,
}

/// Recall of one relation or band, exact and approximate mode.
#[derive(serde::Serialize)]
struct BandRow {
    relation: String,
    band: String,
    excluded: bool,
    pairs: u64,
    exact_found: u64,
    exact_recall: f64,
    approximate_found: u64,
    approximate_recall: f64,
}

/// The pairs of `pairs` the default score finds at its default threshold,
/// both orders of keys.
fn found_keys(pairs: &[ScoredPair]) -> std::collections::HashSet<(String, String)> {
    let score = Score::default();
    let threshold = score.default_threshold();
    pairs
        .iter()
        .filter(|p| {
            let value = score.value(&p.overlap);
            value > 0.0 && value >= threshold
        })
        .flat_map(|p| {
            let (a, b) = p.keys.clone();
            [(a.clone(), b.clone()), (b, a)]
        })
        .collect()
}

/// Recall per relation and band of exact (`scored`) and approximate mode.
fn band_rows(
    corpus: &Corpus,
    excluded: &[String],
    scored: &[ScoredPair],
    approximate: &[ScoredPair],
) -> Vec<BandRow> {
    let recall = |pairs: &[ScoredPair]| -> Vec<BandRecall> {
        let found = found_keys(pairs);
        band_recall(corpus, excluded, |a, b| {
            found.contains(&(a.to_string(), b.to_string()))
        })
    };
    recall(scored)
        .into_iter()
        .zip(recall(approximate))
        .map(|(exact, approx)| BandRow {
            relation: exact.relation,
            band: exact.band,
            excluded: exact.excluded,
            pairs: exact.pairs,
            exact_found: exact.found,
            exact_recall: exact.recall,
            approximate_found: approx.found,
            approximate_recall: approx.recall,
        })
        .collect()
}

fn print_band_rows(rows: &[BandRow]) -> stemmata::Result<()> {
    let score = Score::default();
    outln!(
        "recall by relation and band ({} ≥ {}):",
        score.name(),
        score.default_threshold()
    )?;
    outln!(
        "{:<12} {:<18} {:>6}  {:>13}  {:>13}",
        "relation",
        "band",
        "pairs",
        "exact",
        "approximate"
    )?;
    for row in rows {
        outln!(
            "{:<12} {:<18} {:>6}  {:>5} {:>7.3}  {:>5} {:>7.3}{}",
            row.relation,
            row.band,
            row.pairs,
            row.exact_found,
            row.exact_recall,
            row.approximate_found,
            row.approximate_recall,
            if row.excluded { "  (excluded)" } else { "" }
        )?;
    }
    Ok(())
}

/// The pairs `options` finds, with their overlaps and classes, and the run's counts.
fn scored_pairs(
    reader: &stemmata::Reader,
    labels: &Labels,
    options: &PairsOptions,
) -> Result<(Vec<ScoredPair>, PairsStats)> {
    let mut scored = Vec::new();
    let stats = reader.for_each_pair(
        options,
        |pair| {
            let (a, b) = (&pair.a.key, &pair.b.key);
            scored.push(ScoredPair {
                class: labels.class(a, b),
                overlap: pair.overlap,
                keys: (a.clone(), b.clone()),
            });
            Ok(())
        },
        |_| {},
    )?;
    Ok((scored, stats))
}

/// Every pair scoring above zero under `score` (exact mode, no
/// threshold). A pair of books stored as parts is represented by its best
/// pair of parts under `score`, so each score's rows come from a run under
/// it: containment's run (every pair sharing a unique word in order) for
/// the scores that have none of their own here, the default score's for its
/// rows, its bands, its errors and the gates.
fn score_all_pairs(
    reader: &stemmata::Reader,
    labels: &Labels,
    score: Score,
) -> Result<Vec<ScoredPair>> {
    let options = PairsOptions::with_score(score).min_score(f64::MIN_POSITIVE);
    Ok(scored_pairs(reader, labels, &options)?.0)
}

/// The pairs approximate mode finds at the default score and threshold.
fn approximate_pairs(
    reader: &stemmata::Reader,
    labels: &Labels,
) -> Result<(Vec<ScoredPair>, PairsStats)> {
    let options = PairsOptions::default().mode(Mode::Approximate);
    scored_pairs(reader, labels, &options)
}

fn rows(scored: &[ScoredPair], by_default: &[ScoredPair], labels: &Labels) -> Vec<Row> {
    let mut rows = Vec::new();
    for score in Score::ALL {
        let scored = if score == Score::default() {
            by_default
        } else {
            scored
        };
        let which = match score {
            Score::Its | Score::Cs => "paper",
            _ => "default",
        };
        rows.push(Row {
            which,
            metrics: metrics(scored, labels, score, score.default_threshold()),
        });
        rows.push(Row {
            which: "best F1",
            metrics: best_f1(scored, labels, score),
        });
    }
    rows
}

fn print_rows(rows: &[Row]) -> stemmata::Result<()> {
    outln!(
        "{:<12} {:<8} {:>9} {:>6} {:>6} {:>6}  {:>7} {:>8} {:>7} {:>11}  {:>4} {:>4}",
        "score",
        "",
        "threshold",
        "P",
        "R",
        "F1",
        "edition",
        "contains",
        "partial",
        "translation",
        "FP",
        "FN"
    )?;
    for row in rows {
        let m = &row.metrics;
        let recall = |class: &str| m.recall_by_class.get(class).copied().unwrap_or(0.0);
        outln!(
            "{:<12} {:<8} {:>9.4} {:>6.3} {:>6.3} {:>6.3}  {:>7.3} {:>8.3} {:>7.3} {:>11.3}  {:>4} {:>4}",
            m.score,
            row.which,
            m.threshold,
            m.precision,
            m.recall,
            m.f1,
            recall("edition"),
            recall("contains"),
            recall("contains (partial)"),
            recall("translation"),
            m.false_positives,
            m.false_negatives
        )?;
    }
    Ok(())
}

/// A pair the default score gets wrong at its default threshold.
#[derive(serde::Serialize)]
struct ListedError {
    /// "false positive" or "false negative".
    kind: &'static str,
    a: String,
    b: String,
    /// The labelled relation ("unlisted" for a pair the labels do not name).
    relation: &'static str,
    /// The score's name.
    score: &'static str,
    /// Its value (0 for a pair never aligned).
    value: f64,
    /// The alignment: |LCS|, common unique words and each book's unique
    /// words; absent for a pair that shares no unique word.
    #[serde(skip_serializing_if = "Option::is_none")]
    lcs: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    common: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    a_unique: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    b_unique: Option<u32>,
}

impl ListedError {
    fn new(
        kind: &'static str,
        (a, b): (&str, &str),
        relation: &'static str,
        value: f64,
        overlap: Option<stemmata::Overlap>,
    ) -> ListedError {
        ListedError {
            kind,
            a: a.to_string(),
            b: b.to_string(),
            relation,
            score: Score::default().name(),
            value,
            lcs: overlap.map(|o| o.lcs),
            common: overlap.map(|o| o.common),
            a_unique: overlap.map(|o| o.len_x),
            b_unique: overlap.map(|o| o.len_y),
        }
    }

    /// One line for people: kind, keys, relation, score, alignment.
    fn line(&self) -> String {
        let alignment = match (self.lcs, self.common, self.a_unique, self.b_unique) {
            (Some(lcs), Some(common), Some(a), Some(b)) => format!(
                "LCS {lcs} of {common} common unique words ({a} in {}, {b} in {})",
                self.a, self.b
            ),
            _ => "no common unique word".to_string(),
        };
        format!(
            "{}: {} – {}, labelled {}, {} {:.4}; {alignment}",
            self.kind, self.a, self.b, self.relation, self.score, self.value
        )
    }
}

/// The default score's false positives and false negatives.
fn list_errors(scored: &[ScoredPair], labels: &Labels, corpus: &Corpus) -> Vec<ListedError> {
    let score = Score::default();
    let threshold = score.default_threshold();
    let mut errors = Vec::new();
    let mut found = std::collections::HashSet::new();
    for pair in scored {
        let value = score.value(&pair.overlap);
        let hit = value > 0.0 && value >= threshold;
        if hit {
            found.insert(pair.keys.clone());
        }
        if hit
            && !pair.class.is_positive()
            && !matches!(pair.class, PairClass::Translation | PairClass::Excluded)
        {
            errors.push(ListedError::new(
                "false positive",
                (&pair.keys.0, &pair.keys.1),
                pair.class.name(),
                value,
                Some(pair.overlap),
            ));
        }
    }
    let by_keys: std::collections::HashMap<_, _> =
        scored.iter().map(|p| (p.keys.clone(), p)).collect();
    for labelled in &corpus.pairs {
        let class = labels.class(&labelled.a, &labelled.b);
        if !class.is_positive() {
            continue;
        }
        let keys = [
            (labelled.a.clone(), labelled.b.clone()),
            (labelled.b.clone(), labelled.a.clone()),
        ];
        if keys.iter().any(|k| found.contains(k)) {
            continue;
        }
        let pair = keys.iter().find_map(|k| by_keys.get(k));
        let value = pair.map_or(0.0, |p| score.value(&p.overlap));
        errors.push(ListedError::new(
            "false negative",
            (&labelled.a, &labelled.b),
            class.name(),
            value,
            pair.map(|p| p.overlap),
        ));
    }
    errors
}

pub fn run(args: EvalArgs) -> Result<ExitCode> {
    let corpus = Corpus::read(&args.corpus)?;
    for band in &args.exclude_band {
        if !corpus.pairs.iter().any(|p| &p.band == band) {
            return Err(stemmata::Error::InvalidArgument(format!(
                "--exclude-band {band:?}: no pair of {} has this band",
                args.corpus.join("pairs.tsv").display()
            )));
        }
    }
    let labels = Labels::excluding(&corpus, &args.exclude_band);
    let (index, _dir, _temp) = new_index(args.index.as_deref())?;

    let started = Instant::now();
    // Dictionaries first: a load into an index holding one stores the
    // books' passages, which translation search needs for works inside
    // volumes.
    for path in &args.dictionary {
        index.add_dictionary(path)?;
    }
    let progress = bar(
        corpus.books.len() as u64,
        "loading",
        args.quiet || args.json,
    );
    let mut loader = index.bulk_loader(LoadOptions::default())?;
    let report = progress.clone();
    loader.on_progress(move |event| match event {
        LoadEvent::Added { .. } => report.inc(1),
        LoadEvent::Skipped {
            source_name,
            reason,
        } => report.suspend(|| eprintln!("skipped {source_name}: {reason}")),
        _ => {}
    });
    loader.extend(corpus.documents())?;
    loader.finish()?;
    progress.finish_and_clear();
    let load_seconds = started.elapsed().as_secs_f64();

    let reader = index.reader()?.with_pivot_translations(!args.no_pivot);
    let started = Instant::now();
    let scored = score_all_pairs(&reader, &labels, Score::Containment)?;
    let by_default = score_all_pairs(&reader, &labels, Score::default())?;
    let scoring_seconds = started.elapsed().as_secs_f64();
    let pruned_pairs = reader.for_each_pair(&PairsOptions::default(), |_| Ok(()), |_| {})?;
    let (approximate, approximate_pairs) = approximate_pairs(&reader, &labels)?;
    let started = Instant::now();
    let sketches = corpus
        .documents()
        .map(|document| document.map(|d| BookSketch::of(&d)))
        .collect::<Result<Vec<_>>>()?;
    let mut rows = rows(&scored, &by_default, &labels);
    let score = Score::default();
    let approximate_row = Row {
        which: "approx",
        metrics: metrics(&approximate, &labels, score, score.default_threshold()),
    };
    let approximate_recall_share = approximate_row.metrics.recall / rows[0].metrics.recall;
    let recall_by_band = band_rows(&corpus, &args.exclude_band, &by_default, &approximate);
    rows.insert(1, approximate_row);
    rows.extend(
        baselines(&scored, &sketches, &labels)
            .into_iter()
            .map(|metrics| Row {
                which: "baseline",
                metrics,
            }),
    );
    let baseline_seconds = started.elapsed().as_secs_f64();
    let report = Report {
        books: corpus.books.len(),
        text_bytes: corpus.text_bytes(),
        load_seconds,
        scoring_seconds,
        pruned_pairs_seconds: pruned_pairs.elapsed.as_secs_f64(),
        pruned_pairs,
        approximate_pairs,
        approximate_recall_share,
        baseline_seconds,
        rows,
        excluded_bands: args.exclude_band.clone(),
        recall_by_band,
        relations: crate::eval_relations::evaluate(
            &reader,
            &corpus,
            &args.exclude_band,
            &by_default,
        )?,
        translations: if reader.dictionaries()?.is_empty() {
            None
        } else {
            Some(crate::eval_translations::evaluate(
                &reader,
                &corpus,
                &TranslationLabels::excluding(&corpus, &args.exclude_band),
                &by_default,
            )?)
        },
        errors: args
            .list_errors
            .then(|| list_errors(&by_default, &labels, &corpus)),
    };
    let gate = &report.rows[0].metrics;
    if args.json {
        print_json(&report)?;
    } else {
        outln!(
            "corpus {}: {} books, {:.1} MB; positives = edition + contains; translation reported apart",
            args.corpus.display(),
            report.books,
            report.text_bytes as f64 / 1e6
        )?;
        print_rows(&report.rows)?;
        print_band_rows(&report.recall_by_band)?;
        outln!(
            "load {:.2} s; all {} candidate pairs aligned in {:.3} s; default all-pairs with pruning {:.3} s ({} of {} pairs aligned)",
            report.load_seconds,
            scored.len(),
            report.scoring_seconds,
            report.pruned_pairs_seconds,
            report.pruned_pairs.lcs_runs,
            report.pruned_pairs.pairs_considered
        )?;
        let sources = report.approximate_pairs.sources.unwrap_or_default();
        outln!(
            "approximate all-pairs (key tables and word sample) {:.3} s: {} candidate pairs ({sources}); recall {:.1}% of exact mode's",
            report.approximate_pairs.elapsed.as_secs_f64(),
            report.approximate_pairs.candidates,
            100.0 * report.approximate_recall_share
        )?;
        outln!(
            "baselines (best-F1 thresholds): uwo = unique-word overlap |X∩Y|/|X∪Y|, minhash = Jaccard of 5-word shingles (100 hashes), simhash = 1 − Hamming/128; sketching and scoring {:.2} s",
            report.baseline_seconds
        )?;
    }
    if !args.json {
        crate::eval_relations::print(&report.relations)?;
        if let Some(translations) = &report.translations {
            crate::eval_translations::print(translations)?;
        }
        for error in report.errors.iter().flatten() {
            outln!("{}", error.line())?;
        }
    }
    let mut passed = true;
    if let Some(min) = args.gate_precision {
        if gate.precision < min {
            eprintln!("gate failed: precision {:.3} < {min}", gate.precision);
            passed = false;
        }
    }
    if let Some(min) = args.gate_recall {
        if gate.recall < min {
            eprintln!("gate failed: recall {:.3} < {min}", gate.recall);
            passed = false;
        }
    }
    if let Some(min) = args.gate_approximate_share {
        if report.approximate_recall_share < min {
            eprintln!(
                "gate failed: approximate recall is {:.3} of exact's < {min}",
                report.approximate_recall_share
            );
            passed = false;
        }
    }
    if let Some(min) = args.gate_f1 {
        if gate.f1 < min {
            eprintln!("gate failed: F1 {:.3} < {min}", gate.f1);
            passed = false;
        }
    }
    if let Some(min) = args.gate_band_recall {
        let banded: Vec<&BandRow> = report
            .recall_by_band
            .iter()
            .filter(|row| row.band != "all" && !row.excluded)
            .collect();
        if banded.is_empty() {
            eprintln!(
                "gate failed: --gate-band-recall, but {} has no band to gate",
                args.corpus.join("pairs.tsv").display()
            );
            passed = false;
        }
        for row in banded {
            for (mode, recall) in [
                ("exact", row.exact_recall),
                ("approximate", row.approximate_recall),
            ] {
                if recall < min {
                    eprintln!(
                        "gate failed: {} {}: {mode} recall {recall:.3} < {min}",
                        row.relation, row.band
                    );
                    passed = false;
                }
            }
        }
    }
    for (relation, min) in [
        ("edition", args.gate_relation_duplicate),
        ("contains", args.gate_relation_contains),
    ] {
        let Some(min) = min else { continue };
        match report.relations.share_right(relation) {
            Some(share) if share >= min => {
                eprintln!("gate passed: {relation} pairs classified right {share:.3} ≥ {min}");
            }
            Some(share) => {
                eprintln!("gate failed: {relation} pairs classified right {share:.3} < {min}");
                passed = false;
            }
            None => {
                eprintln!(
                    "gate failed: relation classes of {relation} pairs gated, but none is listed"
                );
                passed = false;
            }
        }
    }
    for (name, min, value) in [
        (
            "precision",
            args.gate_translation_precision,
            report
                .translations
                .as_ref()
                .map(|t| t.rows[0].metrics.precision),
        ),
        (
            "recall",
            args.gate_translation_recall,
            report
                .translations
                .as_ref()
                .map(|t| t.rows[0].metrics.recall),
        ),
    ] {
        match (min, value) {
            (Some(min), Some(value)) if value < min => {
                eprintln!("gate failed: translation {name} {value:.3} < {min}");
                passed = false;
            }
            (Some(_), None) => {
                eprintln!("gate failed: translation {name} gated, but the index has no dictionary (--dictionary)");
                passed = false;
            }
            _ => {}
        }
    }
    let translation_gated =
        args.gate_translation_precision.is_some() || args.gate_translation_recall.is_some();
    if let (true, true, Some(translations)) = (passed, translation_gated, &report.translations) {
        let m = &translations.rows[0].metrics;
        eprintln!(
            "gate passed: translations, {} ≥ {}: precision {:.3}, recall {:.3}",
            m.method, m.threshold, m.precision, m.recall
        );
    }
    let gated = [
        args.gate_precision,
        args.gate_recall,
        args.gate_approximate_share,
        args.gate_f1,
        args.gate_band_recall,
    ];
    if passed && gated.iter().any(Option::is_some) {
        eprintln!(
            "gate passed: {} ≥ {}: precision {:.3}, recall {:.3}, F1 {:.3}; approximate recall {:.3} of exact's",
            gate.score,
            gate.threshold,
            gate.precision,
            gate.recall,
            gate.f1,
            report.approximate_recall_share
        );
    }
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
