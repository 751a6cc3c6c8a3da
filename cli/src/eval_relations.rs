//! `stemmata eval`'s relation section: the class `--relations` gives each
//! pair the default search lists, against the corpus's labels. An
//! `edition` is right when its class means the same text (duplicate, or a
//! pagination class for paged books); a `contains` when its class is a
//! containment with the labelled container (pairs.tsv's `a`). Every listed
//! pair called `unrelated` contradicts the list it came from, labelled or
//! not, and is counted apart.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use stemmata::relate::{RelationClass, Side};
use stemmata::{Reader, Result, Score};
use stemmata_eval::{Corpus, ScoredPair};

/// The relation section of the report.
#[derive(serde::Serialize)]
pub struct RelationReport {
    /// Pairs the default search lists.
    pub listed: u64,
    /// Of those, pairs called `unrelated`.
    pub listed_unrelated: u64,
    /// Seconds spent classifying.
    pub seconds: f64,
    /// One row per labelled relation and band, then one per relation
    /// (band `all`); listed pairs without a label are `unlisted`.
    pub rows: Vec<RelationRow>,
}

/// The classes given to the listed pairs of one relation and band.
#[derive(serde::Serialize, Default, Clone)]
pub struct RelationRow {
    /// The labelled relation (`edition`, `contains`, `contains (partial)`:
    /// b only partly inside a, with no right class; `unlisted`).
    pub relation: String,
    /// Its band (`all` for the relation's total).
    pub band: String,
    /// Whether --exclude-band left the band out (classified, not gated).
    pub excluded: bool,
    /// Listed pairs.
    pub pairs: u64,
    /// Of those, classified right (0 where no class is right).
    pub right: u64,
    /// right / pairs.
    pub share_right: f64,
    /// How many were given each class: a class name, or `contains
    /// (container reversed)` when the container is the wrong book.
    pub classes: BTreeMap<String, u64>,
}

/// A label as pairs.tsv writes it, `a` first.
struct Label<'c> {
    a: &'c str,
    relation: &'c str,
    band: &'c str,
    excluded: bool,
}

/// The class of every pair of `by_default` the default score lists at
/// its threshold, tabulated against `corpus`'s labels (the bands of
/// `excluded` classified, but marked).
pub fn evaluate(
    reader: &Reader,
    corpus: &Corpus,
    excluded: &[String],
    by_default: &[ScoredPair],
) -> Result<RelationReport> {
    let started = Instant::now();
    let mut labels: HashMap<(&str, &str), Label<'_>> = HashMap::new();
    for pair in &corpus.pairs {
        let relation = match (pair.relation.as_str(), pair.partial) {
            ("contains", true) => "contains (partial)",
            (relation, _) => relation,
        };
        let label = |a| Label {
            a,
            relation,
            band: &pair.band,
            excluded: excluded.contains(&pair.band),
        };
        labels.insert((&pair.a, &pair.b), label(&pair.a));
        labels.insert((&pair.b, &pair.a), label(&pair.a));
    }
    let score = Score::default();
    let threshold = score.default_threshold();
    let mut rows: BTreeMap<(String, String), RelationRow> = BTreeMap::new();
    let mut report = RelationReport {
        listed: 0,
        listed_unrelated: 0,
        seconds: 0.0,
        rows: Vec::new(),
    };
    for pair in by_default {
        let value = score.value(&pair.overlap);
        if !(value > 0.0 && value >= threshold) {
            continue;
        }
        let (a, b) = (pair.keys.0.as_str(), pair.keys.1.as_str());
        let label = labels.get(&(a, b));
        let (first, second) = match label {
            Some(label) if label.a == b => (b, a),
            _ => (a, b),
        };
        let relation = reader.relation(first, second)?;
        report.listed += 1;
        if relation.class == RelationClass::Unrelated {
            report.listed_unrelated += 1;
        }
        let (name, band, excluded) = label.map_or(("unlisted", "", false), |l| {
            (l.relation, l.band, l.excluded)
        });
        if name == "translation" {
            continue;
        }
        let right = match name {
            "edition" => relation.class.is_same_text(),
            "contains" => {
                matches!(
                    relation.class,
                    RelationClass::Contains | RelationClass::ContiguousSubset
                ) && relation.container == Some(Side::A)
            }
            _ => false,
        };
        let class = match relation.container {
            Some(Side::B) if name == "contains" => {
                format!("{} (container reversed)", relation.class)
            }
            _ => relation.class.to_string(),
        };
        for band in [band, "all"] {
            let row = rows
                .entry((name.to_string(), band.to_string()))
                .or_insert_with(|| RelationRow {
                    relation: name.to_string(),
                    band: band.to_string(),
                    excluded: excluded && band != "all",
                    ..RelationRow::default()
                });
            row.pairs += 1;
            row.right += u64::from(right);
            *row.classes.entry(class.clone()).or_default() += 1;
        }
    }
    report.rows = rows
        .into_values()
        .filter(|row| !row.band.is_empty())
        .map(|mut row| {
            row.share_right = row.right as f64 / row.pairs.max(1) as f64;
            row
        })
        .collect();
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

impl RelationReport {
    /// The share of the listed pairs of `relation` classified right, the
    /// excluded bands left out (`None` when none is listed).
    pub fn share_right(&self, relation: &str) -> Option<f64> {
        let rows: Vec<&RelationRow> = self
            .rows
            .iter()
            .filter(|r| r.relation == relation)
            .collect();
        // A corpus without bands has only the relation's `all` row.
        let banded = rows.iter().any(|r| r.band != "all");
        let (right, pairs) = rows
            .iter()
            .filter(|r| !r.excluded && (r.band != "all" || !banded))
            .fold((0, 0), |(right, pairs), r| {
                (right + r.right, pairs + r.pairs)
            });
        (pairs > 0).then(|| right as f64 / pairs as f64)
    }
}

/// Prints the section for people: a confusion table, one row per relation
/// and band.
pub fn print(report: &RelationReport) -> stemmata::Result<()> {
    outln!(
        "relation classes of the {} listed pairs ({:.2} s; right: edition = same text, contains = containment with the labelled container); {} listed pairs called unrelated:",
        report.listed, report.seconds, report.listed_unrelated
    )?;
    let mut classes: Vec<&str> = report
        .rows
        .iter()
        .flat_map(|r| r.classes.keys().map(String::as_str))
        .collect();
    classes.sort_unstable();
    classes.dedup();
    out!(
        "  {:<18} {:<26} {:>6} {:>7}",
        "relation",
        "band",
        "pairs",
        "right"
    )?;
    for class in &classes {
        out!(" {:>w$}", class, w = class.len().max(5))?;
    }
    outln!()?;
    for row in &report.rows {
        let band = match row.excluded {
            true => format!("{} (excl.)", row.band),
            false => row.band.clone(),
        };
        out!(
            "  {:<18} {:<26} {:>6} {:>7.3}",
            row.relation,
            band,
            row.pairs,
            row.share_right
        )?;
        for class in &classes {
            let count = row.classes.get(*class).copied().unwrap_or(0);
            out!(" {:>w$}", count, w = class.len().max(5))?;
        }
        outln!()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(relation: &str, band: &str, excluded: bool, right: u64, pairs: u64) -> RelationRow {
        RelationRow {
            relation: relation.to_string(),
            band: band.to_string(),
            excluded,
            pairs,
            right,
            ..RelationRow::default()
        }
    }

    fn report(rows: Vec<RelationRow>) -> RelationReport {
        RelationReport {
            listed: 0,
            listed_unrelated: 0,
            seconds: 0.0,
            rows,
        }
    }

    #[test]
    fn the_gated_share_leaves_excluded_bands_out() {
        let banded = report(vec![
            row("contains", "all", false, 12, 20),
            row("contains", "share 1-5%", false, 9, 10),
            row("contains", "share <0.1%", true, 3, 10),
        ]);
        assert_eq!(banded.share_right("contains"), Some(0.9));
        assert_eq!(banded.share_right("edition"), None);
    }

    #[test]
    fn a_corpus_without_bands_is_gated_on_its_totals() {
        let unbanded = report(vec![row("edition", "all", false, 38, 40)]);
        assert_eq!(unbanded.share_right("edition"), Some(0.95));
    }
}
