//! `stemmata eval`'s translation section: the translation pairs the index's
//! dictionaries find, against the corpus's `translation` labels.

use stemmata::{Mode, PairsOptions, Reader, Result, Score};
use stemmata_eval::translations::{
    best_translation_f1, translation_metrics, FoundPair, TranslationLabels, TranslationMetrics,
};
use stemmata_eval::ScoredPair;

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

/// The translation pairs of `options` (translations on, every score above
/// zero), as found pairs valued by `score`.
fn translation_pairs(
    reader: &Reader,
    mode: Mode,
    score: impl Fn(&stemmata::Overlap) -> f64,
) -> Result<(Vec<FoundPair>, f64)> {
    let options = PairsOptions::default()
        .mode(mode)
        .translations(true)
        .translation_min_score(f64::MIN_POSITIVE);
    let all = reader.pairs(&options)?;
    let found = all
        .pairs
        .iter()
        .filter(|p| p.relation.is_some())
        .map(|p| FoundPair {
            a: p.a.key.clone(),
            b: p.b.key.clone(),
            value: score(&p.overlap),
        })
        .collect();
    Ok((found, all.stats.elapsed.as_secs_f64()))
}

/// Evaluates translation search on `reader` (the corpus loaded, with its
/// dictionaries); `same_language` are the default score's pairs without
/// translation, for the baseline.
pub fn evaluate(
    reader: &Reader,
    labels: &TranslationLabels,
    same_language: &[ScoredPair],
) -> Result<TranslationReport> {
    let score = Score::default();
    let value = |o: &stemmata::Overlap| score.value(o);
    let (exact, exact_seconds) = translation_pairs(reader, Mode::Exact, value)?;
    let (approximate, approximate_seconds) = translation_pairs(reader, Mode::Approximate, value)?;
    let (its, _) = translation_pairs(reader, Mode::Exact, |o| Score::Its.value(o))?;
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
pub fn print(report: &TranslationReport) {
    println!(
        "translations: {} pairs (PARTIAL included, {} HARD left out); every other pair of two languages is a negative",
        report.positives, report.hard_excluded
    );
    println!(
        "{:<12} {:<8} {:>9} {:>6} {:>6} {:>6} {:>6}  {:>4} {:>4}",
        "score", "", "threshold", "P", "R", "F1", "MAP", "FP", "FN"
    );
    for row in &report.rows {
        let m = &row.metrics;
        println!(
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
        );
    }
    println!(
        "translation all-pairs: exact {:.2} s, approximate {:.2} s; baseline = the same-language default score over untranslated shared words",
        report.exact_seconds, report.approximate_seconds
    );
}
