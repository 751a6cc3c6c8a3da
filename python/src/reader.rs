//! `NativeReader`: a snapshot of an index for queries — the top hits of a
//! stored book or a new text, every related pair with its clusters as
//! table columns, and the relation of two stored books.

use std::cell::RefCell;

use pyo3::prelude::*;
use serde_json::Value;
use stemmata::relate::{MapOptions, Relation};
use stemmata::{BookInfo, Hit, Pair, PairsOptions, QueryOptions, Reader};

use crate::batch::MatchColumns;
use crate::columns::{Column, Strings, Table};
use crate::convert::{json, readable_text, text_bytes, to_python};
use crate::errors::{detached, Failure, Outcome};
use crate::options;
use crate::progress::Reporter;

/// A reader (the package's `stemmata.Reader` wraps it).
#[pyclass(frozen, module = "stemmata._stemmata")]
pub struct NativeReader {
    reader: Reader,
}

impl NativeReader {
    /// `reader`, for Python.
    pub fn new(reader: Reader) -> Self {
        NativeReader { reader }
    }

    /// The query's hits as JSON, each with its relation to the query when
    /// `relations`, as `stemmata query --json --relations` gives them.
    fn query_json(&self, query: &Query, options: &QueryOptions, relations: bool) -> Outcome<Value> {
        let result = match query {
            Query::Key(key) => self.reader.query_key(key, options)?,
            Query::Text(text) => self.reader.query_text(text.as_bytes(), options)?,
        };
        let mut hits = json(&result.hits)?;
        if relations {
            let relations = self.relations(query, &result.hits, options.score)?;
            if let Some(hits) = hits.as_array_mut() {
                for (hit, relation) in hits.iter_mut().zip(relations) {
                    if let Some(relation) = relation {
                        hit["relation"] = json(&relation)?;
                    }
                }
            }
        }
        Ok(hits)
    }

    /// The relation of each hit to the query; `None` for a translation hit.
    fn relations(
        &self,
        query: &Query,
        hits: &[Hit],
        score: stemmata::Score,
    ) -> Outcome<Vec<Option<Relation>>> {
        Ok(match query {
            Query::Key(key) => self.reader.hit_relations_of_key(key, hits, score),
            Query::Text(text) => self
                .reader
                .hit_relations_of_text(text.as_bytes(), hits, score),
        }?)
    }

    /// Every related pair as table columns, with the clusters when asked.
    fn pair_tables(
        &self,
        options: &PairsOptions,
        clusters: bool,
        reporter: Reporter,
    ) -> Outcome<(Table, Option<Table>)> {
        let reporter = RefCell::new(reporter);
        reporter.borrow_mut().set_total(self.reader.len() as u64);
        let mut columns = PairColumns::default();
        let mut groups = stemmata::Clusters::new(&self.reader);
        let result = self.reader.for_each_pair(
            options,
            |pair| {
                if reporter.borrow().failed() {
                    // Ends the run; the callback's exception is raised instead.
                    return Err(stemmata::Error::InvalidArgument("stopped".into()));
                }
                columns.push(&pair);
                if clusters {
                    groups.add(&pair);
                }
                Ok(())
            },
            |done| reporter.borrow_mut().set_done(done),
        );
        let mut reporter = reporter.into_inner();
        if let Some(error) = reporter.take_error() {
            return Err(error.into());
        }
        result?;
        reporter.finish();
        if let Some(error) = reporter.take_error() {
            return Err(error.into());
        }
        let clusters = clusters.then(|| cluster_table(groups.groups()));
        Ok((columns.into_table(), clusters))
    }
}

/// What a query asks about.
enum Query {
    /// A stored book.
    Key(String),
    /// A new text, decoded.
    Text(String),
}

/// The columns of `stemmata pairs --json`'s lines: the word ranges, `[start,
/// end]` there, as two columns each.
#[derive(Default)]
struct PairColumns {
    rows: usize,
    a: Strings,
    b: Strings,
    a_language: Strings,
    b_language: Strings,
    matches: MatchColumns,
}

impl PairColumns {
    fn push(&mut self, pair: &Pair<'_>) {
        self.rows += 1;
        self.a.push(&pair.a.key);
        self.b.push(&pair.b.key);
        self.a_language.push(&pair.a.language);
        self.b_language.push(&pair.b.language);
        self.matches.push(pair.score, &pair.overlap, &pair.location);
    }

    fn into_table(self) -> Table {
        let mut columns = vec![
            ("a", Column::Strings(self.a)),
            ("b", Column::Strings(self.b)),
            ("a_language", Column::Strings(self.a_language)),
            ("b_language", Column::Strings(self.b_language)),
        ];
        columns.extend(self.matches.into_columns());
        Table {
            rows: self.rows,
            columns,
        }
    }
}

/// The clusters as the command line's `--clusters` file has them.
fn cluster_table(groups: Vec<Vec<&BookInfo>>) -> Table {
    crate::batch::cluster_table(&stemmata::batch::clusters_by_key(
        groups
            .iter()
            .map(|group| group.iter().map(|book| book.key.as_str()).collect())
            .collect(),
    ))
}

#[pymethods]
impl NativeReader {
    /// The top hits of a stored book (`key`) or a new text, as dicts.
    #[pyo3(signature = (*, key = None, text = None, k = 10, score = "order", mode = "exact", min_score = None, relations = false))]
    #[allow(clippy::too_many_arguments)]
    fn query<'py>(
        &self,
        py: Python<'py>,
        key: Option<String>,
        text: Option<&Bound<'py, PyAny>>,
        k: usize,
        score: &str,
        mode: &str,
        min_score: Option<f64>,
        relations: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let text = text.map(|t| text_bytes(t, "text")).transpose()?;
        let (score, mode) = (score.to_string(), mode.to_string());
        let hits = detached(py, || {
            let query = match (key, text) {
                (Some(key), None) => Query::Key(key),
                (None, Some(text)) => Query::Text(readable_text("query text", &text)?),
                _ => {
                    return Err(stemmata::Error::InvalidArgument(
                        "give exactly one of key and text".into(),
                    )
                    .into())
                }
            };
            let score = options::score(&score)?;
            let options = QueryOptions::with_score(score)
                .mode(options::mode(&mode)?)
                .top_k(k)
                .min_score(options::min_score(score, min_score)?);
            self.query_json(&query, &options, relations)
        })?;
        to_python(py, &hits)
    }

    /// Every related pair as `(rows, columns)` for `stemmata._arrow`, and
    /// the clusters likewise (or `None`).
    #[pyo3(signature = (*, score = "order", mode = "exact", min_score = None, threads = None, clusters = false, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn pairs<'py>(
        &self,
        py: Python<'py>,
        score: &str,
        mode: &str,
        min_score: Option<f64>,
        threads: Option<usize>,
        clusters: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
        let (score, mode) = (score.to_string(), mode.to_string());
        let reporter = Reporter::new(progress, "books");
        let (pairs, clusters) = detached(py, || {
            let score = options::score(&score)?;
            let mut options = PairsOptions::with_score(score).mode(options::mode(&mode)?);
            options.min_score = options::min_score(score, min_score)?;
            options.threads = options::threads(threads)?;
            self.pair_tables(&options, clusters, reporter)
        })?;
        let clusters = clusters.map(|c| c.to_python(py)).transpose()?;
        Ok((
            pairs.to_python(py)?.into_any(),
            clusters.map(Bound::into_any),
        ))
    }

    /// How the stored books `a` and `b` relate, with their portion map's
    /// coverage and matched regions, as a dict.
    fn relate<'py>(&self, py: Python<'py>, a: String, b: String) -> PyResult<Bound<'py, PyAny>> {
        let relation = detached(py, || {
            let relation = self.reader.relation(&a, &b)?;
            let map = self.reader.portion_map(&a, &b, &MapOptions::default())?;
            let mut value = serde_json::json!({ "a": a, "b": b });
            if let (Some(fields), Value::Object(relation)) =
                (value.as_object_mut(), json(&relation)?)
            {
                fields.extend(relation);
            }
            value["portion"] = serde_json::json!({
                "bin_words": map.options.bin_words,
                "a": { "words": map.a.words, "matched_words": map.a.matched_words, "coverage": map.a.coverage },
                "b": { "words": map.b.words, "matched_words": map.b.matched_words, "coverage": map.b.coverage },
                "regions": json(&map.regions)?,
            });
            Ok::<_, Failure>(value)
        })?;
        to_python(py, &relation)
    }

    /// What the reader knows about the book stored under `key`, as a dict.
    fn book<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        let book = self.reader.book(key).map_err(Failure::from)?;
        to_python(py, &json(&book).map_err(Failure::from)?)
    }

    /// The keys of the stored books, in load order.
    fn keys(&self) -> Vec<String> {
        self.reader.books().iter().map(|b| b.key.clone()).collect()
    }

    /// The number of books in the snapshot.
    fn __len__(&self) -> usize {
        self.reader.len()
    }
}
