//! `stemmata eval`'s translation section: the translation pairs the index's
//! dictionaries find, against the corpus's `translation` labels.

use std::collections::{BTreeMap, HashMap};

use stemmata::relate::{Side, TranslationShape};
use stemmata::{Mode, Overlap, PairsOptions, Reader, Result, Score};
use stemmata_eval::translations::{
    best_translation_f1, translation_metrics, FoundPair, TranslationLabels, TranslationMetrics,
};
use stemmata_eval::{Corpus, ScoredPair};

/// The translation rows of the report.
#[derive(serde::Serialize)]
pub struct TranslationReport {
    /// Translation pairs counted as positives (PARTIAL included).
    pub positives: usize,
    /// HARD pairs left out.
    pub hard_excluded: usize,
    /// Seconds of the exact translation all-pairs run.
    pub exact_seconds: f64,
    /// Seconds of the approximate one.
    pub approximate_seconds: f64,
    /// The shapes the default search gives the labelled pairs it finds at
    /// the translation threshold: by label (`whole`, or `PARTIAL`), how
    /// many of each shape (`contained a` / `contained b`: contained, by
    /// the labelled a or b).
    pub shapes: BTreeMap<String, BTreeMap<String, u64>>,
    /// Recall per band of pairs.tsv's `band` column (HARD left out), exact
    /// and approximate mode, at the translation threshold: (band, pairs,
    /// found exact, found approximate).
    pub recall_by_band: Vec<(String, u64, u64, u64)>,
    /// The rows: the default score at its translation threshold and at its
    /// best F1, approximate mode, the thesis's TRANSNIQ-its at 0.49, and
    /// the baseline without dictionaries (shared untranslated words only).
    pub rows: Vec<TranslationRow>,
}

/// One row: which setting, and its metrics.
#[derive(serde::Serialize)]
pub struct TranslationRow {
    /// The setting.
    pub which: &'static str,
    /// Its metrics.
    #[serde(flatten)]
    pub metrics: TranslationMetrics,
}

/// A translation pair an all-pairs run found: its keys, the overlap of
/// its best pair of parts and its shape.
struct Found {
    a: String,
    b: String,
    overlap: Overlap,
    shape: Option<TranslationShape>,
}

/// The translation pairs of an all-pairs run in `mode` (translations on,
/// every score above zero), with the run's seconds.
fn translation_run(reader: &Reader, mode: Mode) -> Result<(Vec<Found>, f64)> {
    let all = reader.pairs(&all_translations(mode))?;
    let found = all
        .pairs
        .iter()
        .filter(|p| p.relation.is_some())
        .map(|p| Found {
            a: p.a.key.clone(),
            b: p.b.key.clone(),
            overlap: p.overlap,
            shape: p.translation_shape(),
        })
        .collect();
    Ok((found, all.stats.elapsed.as_secs_f64()))
}

/// `found` as pairs valued by `score`.
fn valued(found: &[Found], score: impl Fn(&Overlap) -> f64) -> Vec<FoundPair> {
    found
        .iter()
        .map(|p| FoundPair {
            a: p.a.clone(),
            b: p.b.clone(),
            value: score(&p.overlap),
        })
        .collect()
}

/// Translations on, every score above zero.
fn all_translations(mode: Mode) -> PairsOptions {
    PairsOptions::default()
        .mode(mode)
        .translations(true)
        .translation_min_score(f64::MIN_POSITIVE)
}

/// The shapes of the labelled translation pairs of `corpus` among `found`
/// (an exact run) at the default score's translation threshold (see
/// [`TranslationReport::shapes`]).
fn shapes(found: &[Found], corpus: &Corpus) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut labelled: HashMap<(&str, &str), (&str, bool)> = HashMap::new();
    for pair in corpus.pairs.iter().filter(|p| p.relation == "translation") {
        if pair.note.contains("HARD") {
            continue;
        }
        let kind = if pair.partial { "PARTIAL" } else { "whole" };
        labelled.insert((&pair.a, &pair.b), (kind, false));
        labelled.insert((&pair.b, &pair.a), (kind, true));
    }
    let score = Score::default();
    let threshold = score.translation_threshold();
    let mut shapes: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for pair in found {
        let (Some(shape), Some(&(kind, flipped))) = (
            pair.shape,
            labelled.get(&(pair.a.as_str(), pair.b.as_str())),
        ) else {
            continue;
        };
        if score.value(&pair.overlap) < threshold {
            continue;
        }
        let name = match shape.container {
            Some(side) => {
                let labelled_a = (side == Side::A) != flipped;
                format!("contained {}", if labelled_a { "a" } else { "b" })
            }
            None => shape.shape.name().to_string(),
        };
        *shapes
            .entry(kind.to_string())
            .or_default()
            .entry(name)
            .or_default() += 1;
    }
    shapes
}

/// Recall of the labelled translation pairs of each band (HARD left out)
/// among `exact` and `approximate` at `threshold`.
fn recall_by_band(
    corpus: &Corpus,
    exact: &[FoundPair],
    approximate: &[FoundPair],
    threshold: f64,
) -> Vec<(String, u64, u64, u64)> {
    let found = |pairs: &[FoundPair]| -> std::collections::HashSet<(String, String)> {
        pairs
            .iter()
            .filter(|p| p.value > 0.0 && p.value >= threshold)
            .flat_map(|p| [(p.a.clone(), p.b.clone()), (p.b.clone(), p.a.clone())])
            .collect()
    };
    let (exact, approximate) = (found(exact), found(approximate));
    let mut bands: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for pair in corpus.pairs.iter().filter(|p| p.relation == "translation") {
        if pair.note.contains("HARD") || pair.band.is_empty() {
            continue;
        }
        let key = (pair.a.clone(), pair.b.clone());
        let row = bands.entry(pair.band.clone()).or_default();
        row.0 += 1;
        row.1 += u64::from(exact.contains(&key));
        row.2 += u64::from(approximate.contains(&key));
    }
    bands
        .into_iter()
        .map(|(band, (pairs, e, a))| (band, pairs, e, a))
        .collect()
}

/// Evaluates translation search on `reader` (the corpus loaded, with its
/// dictionaries); `same_language` are the default score's pairs without
/// translation, for the baseline.
pub fn evaluate(
    reader: &Reader,
    corpus: &Corpus,
    labels: &TranslationLabels,
    same_language: &[ScoredPair],
) -> Result<TranslationReport> {
    let score = Score::default();
    let value = |o: &Overlap| score.value(o);
    let (exact_run, exact_seconds) = translation_run(reader, Mode::Exact)?;
    let (approximate_run, approximate_seconds) = translation_run(reader, Mode::Approximate)?;
    let exact = valued(&exact_run, value);
    let approximate = valued(&approximate_run, value);
    let its = valued(&exact_run, |o| Score::Its.value(o));
    let baseline: Vec<FoundPair> = same_language
        .iter()
        .map(|p| FoundPair {
            a: p.keys.0.clone(),
            b: p.keys.1.clone(),
            value: score.value(&p.overlap),
        })
        .collect();
    let threshold = score.translation_threshold();
    let row = |which, metrics| TranslationRow { which, metrics };
    Ok(TranslationReport {
        positives: labels.positives(),
        hard_excluded: labels.hard(),
        exact_seconds,
        approximate_seconds,
        shapes: shapes(&exact_run, corpus),
        recall_by_band: recall_by_band(corpus, &exact, &approximate, threshold),
        rows: vec![
            row(
                "default",
                translation_metrics(score.name(), &exact, labels, threshold),
            ),
            row("best F1", best_translation_f1(score.name(), &exact, labels)),
            row(
                "approx",
                translation_metrics(score.name(), &approximate, labels, threshold),
            ),
            row(
                "paper",
                translation_metrics("its", &its, labels, Score::Its.translation_threshold()),
            ),
            row("best F1", best_translation_f1("its", &its, labels)),
            row(
                "baseline",
                best_translation_f1("untranslated", &baseline, labels),
            ),
        ],
    })
}

/// Prints the section.
pub fn print(report: &TranslationReport) -> stemmata::Result<()> {
    outln!(
        "translations: {} pairs (PARTIAL included, {} HARD left out); every other pair of two languages is a negative",
        report.positives, report.hard_excluded
    )?;
    outln!(
        "{:<12} {:<8} {:>9} {:>6} {:>6} {:>6} {:>6}  {:>4} {:>4}",
        "score",
        "",
        "threshold",
        "P",
        "R",
        "F1",
        "MAP",
        "FP",
        "FN"
    )?;
    for row in &report.rows {
        let m = &row.metrics;
        outln!(
            "{:<12} {:<8} {:>9.4} {:>6.3} {:>6.3} {:>6.3} {:>6.3}  {:>4} {:>4}",
            m.method,
            row.which,
            m.threshold,
            m.precision,
            m.recall,
            m.f1,
            m.map,
            m.false_positives,
            m.false_negatives
        )?;
    }
    for (band, pairs, exact, approximate) in &report.recall_by_band {
        let share = |n: &u64| *n as f64 / (*pairs).max(1) as f64;
        outln!(
            "  {band:<20} {pairs:>5} pairs: exact {exact:>4} {:.3}, approximate {approximate:>4} {:.3}",
            share(exact),
            share(approximate)
        )?;
    }
    for (kind, shapes) in &report.shapes {
        let shapes: Vec<String> = shapes.iter().map(|(s, n)| format!("{s} {n}")).collect();
        outln!(
            "shapes of the {kind} pairs found (exact, at the threshold): {}",
            shapes.join(", ")
        )?;
    }
    outln!(
        "translation all-pairs: exact {:.2} s, approximate {:.2} s; baseline = the same-language default score over untranslated shared words",
        report.exact_seconds, report.approximate_seconds
    )?;
    Ok(())
}
