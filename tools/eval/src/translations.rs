//! Evaluation of translation pairs: precision, recall and F1 of the pairs a
//! method finds across languages, and the mean average precision of each
//! book as a query ranking the books of other languages.
//!
//! Positives are the corpus's `translation` pairs, PARTIAL ones included;
//! pairs whose note says HARD (a loose rewrite, an indirect translation)
//! are left out, neither positive nor negative. Every other pair of books
//! of two languages is a negative, labelled (`same_author`) or not.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::Corpus;

/// The translation labels of a corpus.
#[derive(Debug, Default)]
pub struct TranslationLabels {
    positives: HashSet<(String, String)>,
    hard: HashSet<(String, String)>,
    /// Pairs of excluded bands.
    excluded: HashSet<(String, String)>,
    language: HashMap<String, String>,
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// A pair a method found across languages, with its value (higher is more
/// related).
#[derive(Debug, Clone)]
pub struct FoundPair {
    /// One book's id.
    pub a: String,
    /// The other's.
    pub b: String,
    /// The method's value.
    pub value: f64,
}

/// How a pair counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Positive,
    Negative,
    /// HARD, or two books of one language.
    Ignored,
}

impl TranslationLabels {
    /// The labels of `corpus`.
    pub fn of(corpus: &Corpus) -> TranslationLabels {
        TranslationLabels::excluding(corpus, &[])
    }

    /// The labels of `corpus`, where a pair whose band is one of `bands`
    /// is left out (neither a positive nor a negative).
    pub fn excluding(corpus: &Corpus, bands: &[String]) -> TranslationLabels {
        let mut labels = TranslationLabels::default();
        for pair in corpus.pairs.iter().filter(|p| p.relation == "translation") {
            let key = ordered(&pair.a, &pair.b);
            if pair.note.contains("HARD") {
                labels.hard.insert(key);
            } else if !pair.band.is_empty() && bands.contains(&pair.band) {
                labels.excluded.insert(key);
            } else {
                labels.positives.insert(key);
            }
        }
        for book in &corpus.books {
            labels
                .language
                .insert(book.id.clone(), book.language.clone());
        }
        labels
    }

    /// Translation pairs counted as positives.
    pub fn positives(&self) -> usize {
        self.positives.len()
    }

    /// HARD pairs left out.
    pub fn hard(&self) -> usize {
        self.hard.len()
    }

    fn kind(&self, a: &str, b: &str) -> Kind {
        let key = ordered(a, b);
        if self.positives.contains(&key) {
            Kind::Positive
        } else if self.hard.contains(&key)
            || self.excluded.contains(&key)
            || self.language.get(a) == self.language.get(b)
        {
            Kind::Ignored
        } else {
            Kind::Negative
        }
    }
}

/// Precision, recall and F1 of one method at one threshold.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TranslationMetrics {
    /// The method.
    pub method: String,
    /// The threshold.
    pub threshold: f64,
    /// Translation pairs found.
    pub true_positives: u64,
    /// Other pairs of two languages found.
    pub false_positives: u64,
    /// Translation pairs missed.
    pub false_negatives: u64,
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
    /// Mean average precision: each book with a translation, as a query,
    /// ranking the books of other languages by value.
    pub map: f64,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// The metrics of `method` at `threshold` over `found` (pairs absent from
/// it score 0; a pair found above 0 and at or above `threshold` counts).
pub fn translation_metrics(
    method: &str,
    found: &[FoundPair],
    labels: &TranslationLabels,
    threshold: f64,
) -> TranslationMetrics {
    let (mut true_positives, mut false_positives) = (0u64, 0u64);
    let mut seen = HashSet::new();
    for pair in found {
        if pair.value <= 0.0 || pair.value < threshold || !seen.insert(ordered(&pair.a, &pair.b)) {
            continue;
        }
        match labels.kind(&pair.a, &pair.b) {
            Kind::Positive => true_positives += 1,
            Kind::Negative => false_positives += 1,
            Kind::Ignored => {}
        }
    }
    let positives = labels.positives() as u64;
    let precision = ratio(true_positives, true_positives + false_positives);
    let recall = ratio(true_positives, positives);
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    TranslationMetrics {
        method: method.to_string(),
        threshold,
        true_positives,
        false_positives,
        false_negatives: positives - true_positives,
        precision,
        recall,
        f1,
        map: mean_average_precision(found, labels),
    }
}

/// The threshold with the best F1 for `method` (the higher one on ties),
/// with its metrics.
pub fn best_translation_f1(
    method: &str,
    found: &[FoundPair],
    labels: &TranslationLabels,
) -> TranslationMetrics {
    let mut values: Vec<f64> = found.iter().map(|p| p.value).filter(|&v| v > 0.0).collect();
    values.sort_by(|a, b| b.total_cmp(a));
    values.dedup();
    let mut best: Option<TranslationMetrics> = None;
    for threshold in values {
        let metrics = translation_metrics(method, found, labels, threshold);
        if best.as_ref().is_none_or(|b| metrics.f1 > b.f1) {
            best = Some(metrics);
        }
    }
    best.unwrap_or_else(|| translation_metrics(method, found, labels, 1.0))
}

/// Each book that has a translation partner, as a query: the books of
/// other languages ranked by value (ties by id; unfound ones last, never
/// retrieved), and the average of the precision at each partner's rank; the
/// mean over the queries. HARD partners are left out of the ranking.
pub fn mean_average_precision(found: &[FoundPair], labels: &TranslationLabels) -> f64 {
    let mut ranked: BTreeMap<&str, Vec<(f64, &str)>> = BTreeMap::new();
    for pair in found.iter().filter(|p| p.value > 0.0) {
        if labels.kind(&pair.a, &pair.b) == Kind::Ignored {
            continue;
        }
        ranked
            .entry(&pair.a)
            .or_default()
            .push((pair.value, &pair.b));
        ranked
            .entry(&pair.b)
            .or_default()
            .push((pair.value, &pair.a));
    }
    let mut partners: BTreeMap<&str, usize> = BTreeMap::new();
    for (a, b) in &labels.positives {
        *partners.entry(a).or_default() += 1;
        *partners.entry(b).or_default() += 1;
    }
    if partners.is_empty() {
        return 1.0;
    }
    let mut total = 0.0;
    for (&query, &relevant) in &partners {
        let mut list = ranked.remove(query).unwrap_or_default();
        list.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)));
        list.dedup_by(|x, y| x.1 == y.1);
        let (mut hits, mut sum) = (0usize, 0.0);
        for (rank, (_, other)) in list.iter().enumerate() {
            if labels.kind(query, other) == Kind::Positive {
                hits += 1;
                sum += hits as f64 / (rank + 1) as f64;
            }
        }
        total += sum / relevant as f64;
    }
    total / partners.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> TranslationLabels {
        let mut labels = TranslationLabels::default();
        for (id, language) in [
            ("e1", "en"),
            ("e2", "en"),
            ("d1", "de"),
            ("d2", "de"),
            ("f1", "fr"),
        ] {
            labels.language.insert(id.into(), language.into());
        }
        labels.positives.insert(ordered("e1", "d1"));
        labels.positives.insert(ordered("e2", "d2"));
        labels.hard.insert(ordered("e1", "f1"));
        labels
    }

    fn pair(a: &str, b: &str, value: f64) -> FoundPair {
        FoundPair {
            a: a.into(),
            b: b.into(),
            value,
        }
    }

    #[test]
    fn hard_and_same_language_pairs_count_neither_way() {
        let found = [
            pair("e1", "d1", 0.3),
            pair("e1", "f1", 0.9),
            pair("e1", "e2", 0.9),
            pair("d2", "e1", 0.02),
        ];
        let m = translation_metrics("t", &found, &labels(), 0.01);
        assert_eq!(
            (m.true_positives, m.false_positives, m.false_negatives),
            (1, 1, 1)
        );
        assert_eq!((m.precision, m.recall), (0.5, 0.5));
        let strict = translation_metrics("t", &found, &labels(), 0.1);
        assert_eq!((strict.precision, strict.recall), (1.0, 0.5));
        assert_eq!(best_translation_f1("t", &found, &labels()).threshold, 0.3);
    }

    #[test]
    fn map_ranks_each_books_partners_among_the_other_languages() {
        // e1: d1 first (AP 1); d1: e1 first (AP 1); e2: d2 unfound (AP 0);
        // d2: e1 ranked above... d2 found none of its partner (AP 0).
        let found = [pair("e1", "d1", 0.3), pair("d2", "e1", 0.02)];
        let map = mean_average_precision(&found, &labels());
        assert!((map - 0.5).abs() < 1e-12, "{map}");
        // e2 finds d2 second, after d1: AP 1/2.
        let found = [
            pair("e1", "d1", 0.3),
            pair("e2", "d1", 0.2),
            pair("e2", "d2", 0.1),
        ];
        let map = mean_average_precision(&found, &labels());
        // e1 1, d1 1, e2 1/2, d2 1 (e2 is its only found book).
        assert!((map - 3.5 / 4.0).abs() < 1e-12, "{map}");
    }
}
