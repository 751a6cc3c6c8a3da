//! Evaluation against a labelled corpus: the layout of `books.tsv`,
//! `pairs.tsv` and `texts/<id>.txt` (see the corpus README), and precision,
//! recall and F1 of a score at a threshold, per relation and overall.
//!
//! Positives are the `edition` and `contains` pairs. Every other pair —
//! unlisted or `same_author` — is a negative. `translation` pairs are
//! neither: they are reported apart.
//!
//! Columns are found by their header name. `pairs.tsv` may have a `band`
//! column (the generated sets of `stemmata_synth::sets` give a share or noise
//! band): [`band_recall`] reports recall per relation and per band, and
//! pairs in an excluded band ([`Labels::excluding`]) are, like translations,
//! neither positives nor negatives.

#![deny(unsafe_code)]
#![warn(missing_docs)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use stemmata::align::{Overlap, Score};
use stemmata::load::Document;
use stemmata::repr::minhash::{book_signature, MinHashOptions, MinHashSig};
use stemmata::repr::simhash::{simhash, SimHash128, SimHashOptions};
use stemmata::{Error, Result};

pub mod headings;
pub mod images;
pub mod passages;
pub mod translations;

/// The error of reading the corpus file at `path`.
fn io_error(source: std::io::Error, path: &Path) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A book listed in `books.tsv`.
#[derive(Debug, Clone)]
pub struct CorpusBook {
    /// Corpus id, the file stem under `texts/`.
    pub id: String,
    /// Title.
    pub title: String,
    /// Author.
    pub author: String,
    /// Language code.
    pub language: String,
}

/// A labelled pair from `pairs.tsv`.
#[derive(Debug, Clone)]
pub struct LabelledPair {
    /// First book id.
    pub a: String,
    /// Second book id.
    pub b: String,
    /// `edition`, `contains`, `translation` or `same_author`.
    pub relation: String,
    /// True when the note marks the overlap as partial.
    pub partial: bool,
    /// The note (empty when the row has none).
    pub note: String,
    /// The band (empty when the file has no `band` column or the row none).
    pub band: String,
}

/// A corpus directory.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// The directory.
    pub dir: PathBuf,
    /// Its books.
    pub books: Vec<CorpusBook>,
    /// Its labelled pairs.
    pub pairs: Vec<LabelledPair>,
}

/// The header and rows of a TSV file.
fn read_tsv(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let text = std::fs::read_to_string(path).map_err(|e| io_error(e, path))?;
    let mut lines = text.lines();
    let header = lines
        .next()
        .ok_or_else(|| Error::corrupted(path, "empty file: expected a header line"))?
        .split('\t')
        .map(|name| name.trim().to_string())
        .collect();
    let rows = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    Ok((header, rows))
}

/// The position of column `name` in `header`, or an error naming the file.
fn column(header: &[String], name: &str, path: &Path) -> Result<usize> {
    header
        .iter()
        .position(|h| h == name)
        .ok_or_else(|| Error::corrupted(path, format!("header has no `{name}` column")))
}

impl Corpus {
    /// Reads `books.tsv` (columns `id`, `title`, `author`, `language`) and
    /// `pairs.tsv` (`a`, `b`, `relation`, and optionally `note` and `band`)
    /// from `dir`, finding columns by their header name.
    pub fn read(dir: &Path) -> Result<Corpus> {
        let books_path = dir.join("books.tsv");
        let (header, rows) = read_tsv(&books_path)?;
        let [id, title, author, language] =
            ["id", "title", "author", "language"].map(|name| column(&header, name, &books_path));
        let (id, title, author, language) = (id?, title?, author?, language?);
        let cell = |row: &[String], at: usize| row.get(at).cloned().unwrap_or_default();
        let mut books = Vec::new();
        for (i, row) in rows.into_iter().enumerate() {
            if row.get(id).is_none_or(|v| v.is_empty()) {
                return Err(Error::corrupted(
                    &books_path,
                    format!("line {}: no id", i + 2),
                ));
            }
            books.push(CorpusBook {
                id: cell(&row, id),
                title: cell(&row, title),
                author: cell(&row, author),
                language: cell(&row, language),
            });
        }
        let pairs_path = dir.join("pairs.tsv");
        let (header, rows) = read_tsv(&pairs_path)?;
        let [a, b, relation] =
            ["a", "b", "relation"].map(|name| column(&header, name, &pairs_path));
        let (a, b, relation) = (a?, b?, relation?);
        let note = header.iter().position(|h| h == "note");
        let band = header.iter().position(|h| h == "band");
        let optional = |row: &[String], at: Option<usize>| {
            at.and_then(|at| row.get(at)).cloned().unwrap_or_default()
        };
        let mut pairs = Vec::new();
        for (i, row) in rows.into_iter().enumerate() {
            if row.len() <= a.max(b).max(relation) {
                return Err(Error::corrupted(
                    &pairs_path,
                    format!("line {}: expected columns a, b and relation", i + 2),
                ));
            }
            let note = optional(&row, note);
            pairs.push(LabelledPair {
                a: row[a].clone(),
                b: row[b].clone(),
                relation: row[relation].clone(),
                partial: note.starts_with("PARTIAL"),
                note,
                band: optional(&row, band).trim().to_string(),
            });
        }
        Ok(Corpus {
            dir: dir.to_path_buf(),
            books,
            pairs,
        })
    }

    /// The corpus's books as documents to load, reading `texts/<id>.txt`.
    pub fn documents(&self) -> impl Iterator<Item = Result<Document>> + '_ {
        self.books.iter().map(|book| {
            let path = self.dir.join("texts").join(format!("{}.txt", book.id));
            let text = std::fs::read(&path).map_err(|e| io_error(e, &path))?;
            Ok(Document::new(book.id.clone(), text)
                .with_title(book.title.clone())
                .with_author(book.author.clone())
                .with_language(book.language.clone())
                .with_source_name(path.display().to_string()))
        })
    }

    /// Total bytes of the texts.
    pub fn text_bytes(&self) -> u64 {
        self.books
            .iter()
            .filter_map(|b| {
                std::fs::metadata(self.dir.join("texts").join(format!("{}.txt", b.id))).ok()
            })
            .map(|m| m.len())
            .sum()
    }
}

/// The class of a pair for evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairClass {
    /// A labelled `edition` pair.
    Edition,
    /// A labelled `contains` pair covering the whole smaller book.
    Contains,
    /// A `contains` pair marked PARTIAL.
    ContainsPartial,
    /// A labelled `translation` pair (neither positive nor negative).
    Translation,
    /// A pair in an excluded band (neither positive nor negative).
    Excluded,
    /// A `same_author` pair (a hard negative).
    SameAuthor,
    /// An unlisted pair (a negative).
    Unrelated,
}

impl PairClass {
    /// True for the classes counted as positives.
    pub fn is_positive(self) -> bool {
        matches!(
            self,
            PairClass::Edition | PairClass::Contains | PairClass::ContainsPartial
        )
    }

    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            PairClass::Edition => "edition",
            PairClass::Contains => "contains",
            PairClass::ContainsPartial => "contains (partial)",
            PairClass::Translation => "translation",
            PairClass::Excluded => "excluded band",
            PairClass::SameAuthor => "same_author",
            PairClass::Unrelated => "unlisted",
        }
    }
}

/// Labels looked up by unordered pair of ids.
#[derive(Debug, Default)]
pub struct Labels {
    classes: HashMap<(String, String), PairClass>,
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

impl Labels {
    /// Labels of `corpus`.
    pub fn of(corpus: &Corpus) -> Labels {
        Labels::excluding(corpus, &[])
    }

    /// Labels of `corpus`, where a pair whose band is one of `bands` is
    /// [`PairClass::Excluded`]: neither a positive nor a negative.
    pub fn excluding(corpus: &Corpus, bands: &[String]) -> Labels {
        let mut classes = HashMap::new();
        for pair in &corpus.pairs {
            if !pair.band.is_empty() && bands.contains(&pair.band) {
                classes.insert(ordered(&pair.a, &pair.b), PairClass::Excluded);
                continue;
            }
            let class = match (pair.relation.as_str(), pair.partial) {
                ("edition", _) => PairClass::Edition,
                ("contains", false) => PairClass::Contains,
                ("contains", true) => PairClass::ContainsPartial,
                ("translation", _) => PairClass::Translation,
                _ => PairClass::SameAuthor,
            };
            classes.insert(ordered(&pair.a, &pair.b), class);
        }
        Labels { classes }
    }

    /// The class of the pair (a, b).
    pub fn class(&self, a: &str, b: &str) -> PairClass {
        self.classes
            .get(&ordered(a, b))
            .copied()
            .unwrap_or(PairClass::Unrelated)
    }

    /// How many labelled pairs each class has.
    pub fn totals(&self) -> BTreeMap<PairClass, u64> {
        let mut totals = BTreeMap::new();
        for &class in self.classes.values() {
            *totals.entry(class).or_default() += 1;
        }
        totals
    }
}

/// Precision, recall and F1 of one score at one threshold.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Metrics {
    /// The score.
    pub score: String,
    /// The threshold.
    pub threshold: f64,
    /// True positives (edition + contains found).
    pub true_positives: u64,
    /// False positives (negatives found).
    pub false_positives: u64,
    /// False negatives (positives missed).
    pub false_negatives: u64,
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
    /// Recall per class (translation included, for information).
    pub recall_by_class: BTreeMap<String, f64>,
    /// Pairs found per negative class.
    pub found_by_negative_class: BTreeMap<String, u64>,
}

/// One scored pair of the corpus.
#[derive(Debug, Clone)]
pub struct ScoredPair {
    /// Its class.
    pub class: PairClass,
    /// Its alignment.
    pub overlap: Overlap,
    /// Ids, for listing errors.
    pub keys: (String, String),
}

/// A pair's class and its value under some method (higher is more related).
pub type ClassValue = (PairClass, f64);

/// The values of `score` over `pairs`.
pub fn score_values(pairs: &[ScoredPair], score: Score) -> Vec<ClassValue> {
    pairs
        .iter()
        .map(|p| (p.class, score.value(&p.overlap)))
        .collect()
}

/// Metrics of `score` at `threshold` over `pairs` (every pair with a
/// positive overlap; pairs absent from it score 0).
pub fn metrics(pairs: &[ScoredPair], labels: &Labels, score: Score, threshold: f64) -> Metrics {
    metrics_of(score.name(), &score_values(pairs, score), labels, threshold)
}

/// The threshold with the best F1 for `score`, with its metrics.
pub fn best_f1(pairs: &[ScoredPair], labels: &Labels, score: Score) -> Metrics {
    best_f1_of(score.name(), &score_values(pairs, score), labels)
}

/// Metrics of `method` at `threshold`: a pair is found when its value is
/// above 0 and at least `threshold`; labelled pairs absent from `values`
/// count as not found.
pub fn metrics_of(method: &str, values: &[ClassValue], labels: &Labels, threshold: f64) -> Metrics {
    let totals = labels.totals();
    let mut found: BTreeMap<PairClass, u64> = BTreeMap::new();
    for &(class, value) in values {
        if value > 0.0 && value >= threshold {
            *found.entry(class).or_default() += 1;
        }
    }
    let positives: u64 = totals
        .iter()
        .filter(|(c, _)| c.is_positive())
        .map(|(_, n)| n)
        .sum();
    let true_positives: u64 = found
        .iter()
        .filter(|(c, _)| c.is_positive())
        .map(|(_, n)| n)
        .sum();
    let false_positives: u64 = found
        .iter()
        .filter(|(c, _)| matches!(c, PairClass::SameAuthor | PairClass::Unrelated))
        .map(|(_, n)| n)
        .sum();
    let precision = ratio(true_positives, true_positives + false_positives);
    let recall = ratio(true_positives, positives);
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Metrics {
        score: method.to_string(),
        threshold,
        true_positives,
        false_positives,
        false_negatives: positives - true_positives,
        precision,
        recall,
        f1,
        recall_by_class: totals
            .iter()
            .filter(|(c, _)| {
                c.is_positive() || matches!(c, PairClass::Translation | PairClass::Excluded)
            })
            .map(|(c, n)| {
                let hit = found.get(c).copied().unwrap_or(0);
                (c.name().to_string(), ratio(hit, *n))
            })
            .collect(),
        found_by_negative_class: [PairClass::SameAuthor, PairClass::Unrelated]
            .iter()
            .map(|c| (c.name().to_string(), found.get(c).copied().unwrap_or(0)))
            .collect(),
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// The threshold with the best F1 for `method`, with its metrics: a sweep
/// down the pairs' distinct values, best F1 first, then the higher threshold.
pub fn best_f1_of(method: &str, values: &[ClassValue], labels: &Labels) -> Metrics {
    let positives: u64 = labels
        .totals()
        .iter()
        .filter(|(c, _)| c.is_positive())
        .map(|(_, n)| n)
        .sum();
    let mut scored: Vec<(f64, PairClass)> = values
        .iter()
        .map(|&(class, value)| (value, class))
        .filter(|&(v, _)| v > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut true_positives, mut false_positives) = (0u64, 0u64);
    let mut best = (f64::MIN, 1.0);
    let mut i = 0;
    while i < scored.len() {
        let threshold = scored[i].0;
        while i < scored.len() && scored[i].0 == threshold {
            match scored[i].1 {
                c if c.is_positive() => true_positives += 1,
                PairClass::Translation | PairClass::Excluded => {}
                _ => false_positives += 1,
            }
            i += 1;
        }
        let f1 =
            2.0 * true_positives as f64 / (positives + true_positives + false_positives) as f64;
        if f1 > best.0 {
            best = (f1, threshold);
        }
    }
    metrics_of(method, values, labels, best.1)
}

/// Recall of one relation, or of one band of it, for one method.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BandRecall {
    /// The labelled relation (`edition`, `contains`, `translation`).
    pub relation: String,
    /// The band, or `all` for the relation as a whole.
    pub band: String,
    /// True when the band is excluded (neither positive nor negative).
    pub excluded: bool,
    /// Labelled pairs.
    pub pairs: u64,
    /// Of them, found.
    pub found: u64,
    /// found / pairs (1 when there is no pair).
    pub recall: f64,
}

/// The ordering key of a band label, from the numbers in it (in
/// thousandths): `share <0.1%` before `share 0.1-0.5%`, `noise 5%+1%`
/// before `noise 10%+1%`.
fn band_order(band: &str) -> (Vec<u64>, i8, String) {
    let numbers = band
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|n| n.parse::<f64>().ok())
        .map(|n| (n * 1000.0).round() as u64)
        .collect();
    let side = if band.contains('<') {
        -1
    } else if band.contains('>') {
        1
    } else {
        0
    };
    (numbers, side, band.to_string())
}

/// Recall per labelled relation (band `all`) and per band of it (rows only
/// for pairs that have a band), of the pairs `found(a, b)` says are found;
/// the relations are the positive ones and `translation`. Excluded bands
/// are reported, marked, and left out of their relation's `all` row.
pub fn band_recall(
    corpus: &Corpus,
    excluded: &[String],
    found: impl Fn(&str, &str) -> bool,
) -> Vec<BandRecall> {
    type Key = (String, (Vec<u64>, i8, String));
    let mut groups: BTreeMap<Key, (u64, u64, bool)> = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for pair in &corpus.pairs {
        if !matches!(
            pair.relation.as_str(),
            "edition" | "contains" | "translation"
        ) || !seen.insert(ordered(&pair.a, &pair.b))
        {
            continue;
        }
        let hit = u64::from(found(&pair.a, &pair.b));
        let is_excluded = !pair.band.is_empty() && excluded.contains(&pair.band);
        let mut keys = Vec::new();
        if !is_excluded {
            let all = (Vec::new(), -2, "all".to_string());
            keys.push(((pair.relation.clone(), all), false));
        }
        if !pair.band.is_empty() {
            keys.push(((pair.relation.clone(), band_order(&pair.band)), is_excluded));
        }
        for (key, excluded) in keys {
            let entry = groups.entry(key).or_default();
            entry.0 += 1;
            entry.1 += hit;
            entry.2 = excluded;
        }
    }
    groups
        .into_iter()
        .map(
            |((relation, (_, _, band)), (pairs, found, excluded))| BandRecall {
                relation,
                band,
                excluded,
                pairs,
                found,
                recall: ratio(found, pairs),
            },
        )
        .collect()
}

/// What the baselines need of one book: its min-hash signature and simhash.
#[derive(Debug, Clone)]
pub struct BookSketch {
    /// Corpus id.
    pub key: String,
    /// Min-hash of 5-word shingles, 100 values.
    pub minhash: MinHashSig,
    /// Simhash-128 of character 4-grams.
    pub simhash: SimHash128,
}

impl BookSketch {
    /// Sketches a document's text with the default options.
    pub fn of(document: &Document) -> BookSketch {
        let text = stemmata::text::decode(&document.text).text;
        BookSketch {
            key: document.key.clone(),
            minhash: book_signature(&text, &MinHashOptions::default()),
            simhash: simhash(&text, &SimHashOptions::default()),
        }
    }
}

/// The paper's baselines at their best-F1 thresholds: unique-word overlap
/// (UWO, |X ∩ Y| / |X ∪ Y| of the unique-word sets, from `pairs`), min-hash
/// Jaccard of 5-word shingles (100 values), and simhash-128 similarity
/// (1 − Hamming distance / 128), the last two over every pair of `sketches`.
pub fn baselines(pairs: &[ScoredPair], sketches: &[BookSketch], labels: &Labels) -> Vec<Metrics> {
    let uwo: Vec<ClassValue> = pairs
        .iter()
        .map(|p| {
            let o = &p.overlap;
            let union = o.len_x as f64 + o.len_y as f64 - o.common as f64;
            (
                p.class,
                if union > 0.0 {
                    o.common as f64 / union
                } else {
                    0.0
                },
            )
        })
        .collect();
    let (mut minhash, mut simhash) = (Vec::new(), Vec::new());
    for (i, a) in sketches.iter().enumerate() {
        for b in &sketches[i + 1..] {
            let class = labels.class(&a.key, &b.key);
            minhash.push((class, a.minhash.similarity(&b.minhash)));
            simhash.push((class, 1.0 - a.simhash.hamming(&b.simhash) as f64 / 128.0));
        }
    }
    vec![
        best_f1_of("uwo", &uwo, labels),
        best_f1_of("minhash", &minhash, labels),
        best_f1_of("simhash", &simhash, labels),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(pairs: &str) -> (tempfile::TempDir, Corpus) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("books.tsv"),
            "id\tgutenberg_id\ttitle\tauthor\tlanguage\twords\tsource\n\
             v\t\tV\tX\ten\t1\ts\nx\t\tX\tX\ten\t1\ts\ny\t\tY\tX\ten\t1\ts\nz\t\tZ\tX\ten\t1\ts\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("pairs.tsv"), pairs).unwrap();
        let corpus = Corpus::read(dir.path()).unwrap();
        (dir, corpus)
    }

    const BANDED: &str = "a\tb\trelation\tnote\tband\n\
        v\tx\tcontains\tsmall\tshare <0.1%\n\
        v\ty\tcontains\tmid\tshare 1-5%\n\
        v\tz\tcontains\tbig\tshare 0.1-0.5%\n";

    #[test]
    fn columns_are_read_by_header_name_and_band_is_optional() {
        let (_dir, plain) = corpus("relation\ta\tb\tnote\nedition\tx\ty\tPARTIAL n\n");
        assert_eq!(plain.pairs[0].a, "x");
        assert_eq!(plain.pairs[0].relation, "edition");
        assert!(plain.pairs[0].partial);
        assert_eq!(plain.pairs[0].band, "");
        let (_dir, banded) = corpus(BANDED);
        assert_eq!(banded.pairs[1].band, "share 1-5%");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("books.tsv"), "id\ttitle\tauthor\n").unwrap();
        let error = Corpus::read(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("books.tsv") && error.contains("language"),
            "{error}"
        );
    }

    #[test]
    fn recall_is_reported_per_relation_and_band_in_band_order() {
        let (_dir, corpus) = corpus(BANDED);
        let rows = band_recall(&corpus, &[], |a, b| (a, b) != ("v", "x"));
        let bands: Vec<&str> = rows.iter().map(|r| r.band.as_str()).collect();
        assert_eq!(
            bands,
            ["all", "share <0.1%", "share 0.1-0.5%", "share 1-5%"]
        );
        assert_eq!((rows[0].pairs, rows[0].found), (3, 2));
        assert_eq!(rows[1].recall, 0.0);
        assert_eq!(rows[2].recall, 1.0);
    }

    #[test]
    fn an_excluded_band_is_neither_positive_nor_negative() {
        let (_dir, corpus) = corpus(BANDED);
        let excluded = vec!["share <0.1%".to_string()];
        let rows = band_recall(&corpus, &excluded, |_, _| false);
        assert_eq!(rows[0].pairs, 2, "excluded pairs left out of `all`");
        assert!(rows[1].excluded && !rows[2].excluded);
        let labels = Labels::excluding(&corpus, &excluded);
        assert_eq!(labels.class("x", "v"), PairClass::Excluded);
        assert!(!PairClass::Excluded.is_positive());
        // Finding the excluded pair is no false positive, missing it no false negative.
        let values = [
            (PairClass::Excluded, 1.0),
            (PairClass::Contains, 1.0),
            (PairClass::Contains, 1.0),
        ];
        let m = metrics_of("m", &values, &labels, 0.5);
        assert_eq!((m.false_positives, m.false_negatives), (0, 0));
        assert_eq!(m.precision, 1.0);
    }
}
