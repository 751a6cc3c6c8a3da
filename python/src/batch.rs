//! The engine-free batch kernels of [`stemmata::batch`] on Arrow columns:
//! each function takes a batch of rows as the bytes of their buffers and
//! gives columns back, so an engine (the package's Spark job) calls Rust
//! once per batch, never once per row. Column names and types are those of
//! `docs/batch-format.md`; `u32` and `u64` values travel by their bits in
//! `int32` and `int64` columns.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use stemmata::batch::{
    self, features, part_pairs, verify, BookFeatures, Caps, Components, FeatureOptions, KeyEntry,
    KeyListing, Location, SampleEntry,
};
use stemmata::load::sources::{parse_json_document, MAX_JSON_LINE_BYTES};
use stemmata::repr::sketch::Table as KeyTable;
use stemmata::repr::{SimHash128, UniqueWordSeq};
use stemmata::Document;
use stemmata::{Error, Overlap, Score};

use crate::columns::{numbers, offsets, Column, ListBuilder, Strings, Table};
use crate::errors::{detached, Outcome};
use crate::options;

/// The names of the key-list columns, in [`KeyTable::ALL`] order.
const KEY_COLUMNS: [&str; 4] = ["book_keys", "window_keys", "simhash_keys", "value_keys"];

/// Lists of numbers handed in: offsets into values.
struct Lists<T> {
    offsets: Vec<usize>,
    values: Vec<T>,
}

impl<T: crate::columns::FromNative> Lists<T> {
    /// The lists of `(offsets, values)` buffers, named `what` in errors.
    fn read((offsets_bytes, values): (&[u8], &[u8]), what: &str) -> Result<Self, Error> {
        let values: Vec<T> = numbers(values, what)?;
        Ok(Lists {
            offsets: offsets(offsets_bytes, values.len(), what)?,
            values,
        })
    }

    /// Rows.
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The list of row `row`.
    fn get(&self, row: usize) -> &[T] {
        &self.values[self.offsets[row]..self.offsets[row + 1]]
    }
}

/// An error unless `columns` all have `rows` rows.
fn same_rows(rows: usize, columns: &[(&str, usize)]) -> Result<(), Error> {
    for &(name, len) in columns {
        if len != rows {
            return Err(Error::InvalidArgument(format!(
                "column {name} has {len} rows, not {rows}"
            )));
        }
    }
    Ok(())
}

/// A book id handed in as `int64`, checked to fit the engine's `u32`.
fn book_id(id: i64) -> Result<u32, Error> {
    u32::try_from(id)
        .map_err(|_| Error::InvalidArgument(format!("book id {id} is out of range 0..2^32")))
}

/// A table's columns for Python, built with the GIL released.
fn table_for_python(
    py: Python<'_>,
    work: impl FnOnce() -> Outcome<Table> + Send,
) -> PyResult<Bound<'_, PyTuple>> {
    let table = detached(py, work)?;
    table.to_python(py)
}

/// The features of a batch of JSON Lines (each line's place, from 0, in
/// `ids`; the lines as Arrow strings) as `stemmata load` reads them from
/// `source`: one row per line that is not blank, with an `error` column
/// holding why a document was refused (its other columns then empty).
/// `options` is the JSON of the options to compute them with (the
/// defaults when `None`). Lines of several files give each line's file in
/// `sources` and its place in that file, from 0, in `line_numbers`: a
/// line is named `source:line` in errors, and a byte-order mark is skipped
/// at the start of a file only.
#[pyfunction]
#[pyo3(signature = (ids, lines, source, options = None, sources = None, line_numbers = None))]
pub fn features_of_json_lines<'py>(
    py: Python<'py>,
    ids: &[u8],
    lines: (&[u8], &[u8]),
    source: &str,
    options: Option<&str>,
    sources: Option<(&[u8], &[u8])>,
    line_numbers: Option<&[u8]>,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let ids: Vec<i64> = numbers(ids, "id")?;
        let lines = StringColumn::read(lines, "line")?;
        same_rows(ids.len(), &[("line", lines.len())])?;
        let places = Places::read(&ids, source, sources, line_numbers)?;
        let options = feature_options(options)?;
        let mut columns = FeatureColumns::default();
        for (row, &id) in ids.iter().enumerate() {
            let (source, line_number) = places.get(row);
            let mut line = lines.get(row);
            if line_number == 0 {
                line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let source_name = format!("{source}:{}", line_number + 1);
            let book = if line.len() > MAX_JSON_LINE_BYTES {
                Err(Error::BadDocument {
                    source_name,
                    reason: format!("line longer than {MAX_JSON_LINE_BYTES} bytes"),
                })
            } else {
                parse_json_document(line, &source_name).and_then(|d| features(d, &options))
            };
            columns.push_outcome(id, book);
        }
        Ok(columns.into_table())
    })
}

/// The features of a batch of documents held as columns (as Parquet files
/// of documents have them): `ids`, `keys`, `texts`, and `titles`,
/// `authors`, `languages` (empty for none), each row named
/// `source:row` in errors (`sources`, and `row_numbers` from 0 in its
/// file): the table of [`features_of_json_lines`].
#[pyfunction]
#[pyo3(signature = (ids, keys, texts, titles, authors, languages, sources, row_numbers, options = None))]
#[allow(clippy::too_many_arguments)]
pub fn features_of_documents<'py>(
    py: Python<'py>,
    ids: &[u8],
    keys: (&[u8], &[u8]),
    texts: (&[u8], &[u8]),
    titles: (&[u8], &[u8]),
    authors: (&[u8], &[u8]),
    languages: (&[u8], &[u8]),
    sources: (&[u8], &[u8]),
    row_numbers: &[u8],
    options: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let ids: Vec<i64> = numbers(ids, "id")?;
        let columns = [
            StringColumn::read(keys, "key")?,
            StringColumn::read(texts, "text")?,
            StringColumn::read(titles, "title")?,
            StringColumn::read(authors, "author")?,
            StringColumn::read(languages, "language")?,
        ];
        let [keys, texts, titles, authors, languages] = &columns;
        same_rows(
            ids.len(),
            &[
                ("key", keys.len()),
                ("text", texts.len()),
                ("title", titles.len()),
                ("author", authors.len()),
                ("language", languages.len()),
            ],
        )?;
        let places = Places::read(&ids, "", Some(sources), Some(row_numbers))?;
        let options = feature_options(options)?;
        let mut out = FeatureColumns::default();
        for (row, &id) in ids.iter().enumerate() {
            let (source, number) = places.get(row);
            let source_name = format!("{source}:{}", number + 1);
            let book = (|| {
                let text = |column: &StringColumn, what: &str| {
                    String::from_utf8(column.get(row).to_vec()).map_err(|_| Error::BadDocument {
                        source_name: source_name.clone(),
                        reason: format!("{what} is not UTF-8"),
                    })
                };
                let document = Document::new(text(keys, "key")?, texts.get(row))
                    .with_title(text(titles, "title")?)
                    .with_author(text(authors, "author")?)
                    .with_language(text(languages, "language")?)
                    .with_source_name(source_name.clone());
                features(document, &options)
            })();
            out.push_outcome(id, book);
        }
        Ok(out.into_table())
    })
}

/// A string (or binary) column handed in: offsets into bytes.
struct StringColumn<'a> {
    offsets: Vec<usize>,
    bytes: &'a [u8],
}

impl<'a> StringColumn<'a> {
    fn read((offsets_bytes, bytes): (&[u8], &'a [u8]), what: &str) -> Result<Self, Error> {
        Ok(StringColumn {
            offsets: offsets(offsets_bytes, bytes.len(), what)?,
            bytes,
        })
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn get(&self, row: usize) -> &'a [u8] {
        &self.bytes[self.offsets[row]..self.offsets[row + 1]]
    }
}

/// Where each row of a batch of documents came from: its file and its
/// place in that file, or one source and the row's id as its place.
struct Places<'a> {
    source: &'a str,
    sources: Option<StringColumn<'a>>,
    numbers: Vec<i64>,
}

impl<'a> Places<'a> {
    fn read(
        ids: &[i64],
        source: &'a str,
        sources: Option<(&[u8], &'a [u8])>,
        numbers_bytes: Option<&[u8]>,
    ) -> Result<Self, Error> {
        let sources = sources
            .map(|s| StringColumn::read(s, "sources"))
            .transpose()?;
        let numbers = match numbers_bytes {
            Some(bytes) => numbers(bytes, "line_numbers")?,
            None => ids.to_vec(),
        };
        let named = sources.as_ref().map_or(ids.len(), StringColumn::len);
        same_rows(
            ids.len(),
            &[("sources", named), ("line_numbers", numbers.len())],
        )?;
        Ok(Places {
            source,
            sources,
            numbers,
        })
    }

    /// The source (lossily as UTF-8) and place of row `row`.
    fn get(&self, row: usize) -> (Cow<'a, str>, i64) {
        let source = match &self.sources {
            Some(sources) => String::from_utf8_lossy(sources.get(row)),
            None => Cow::Borrowed(self.source),
        };
        (source, self.numbers[row])
    }
}

/// The features table under construction.
#[derive(Default)]
struct FeatureColumns {
    rows: usize,
    id: Vec<i64>,
    key: Strings,
    title: Strings,
    author: Strings,
    language: Strings,
    words: Vec<i64>,
    pages: Vec<i64>,
    bytes: Vec<i64>,
    distinct_words: Vec<i64>,
    invalid_utf8_sequences: Vec<i64>,
    encoding: Strings,
    simhash_low: Vec<i64>,
    simhash_high: Vec<i64>,
    minhash: ListBuilder<i64>,
    page_minhashes: ListBuilder<i64>,
    part_lengths: ListBuilder<i32>,
    hashes: ListBuilder<i32>,
    positions: ListBuilder<i32>,
    keys: [ListBuilder<i64>; 4],
    error: Strings,
}

impl FeatureColumns {
    /// Appends the features of the document `id`, or why it was refused.
    fn push_outcome(&mut self, id: i64, book: Result<BookFeatures, Error>) {
        match book {
            Ok(book) => self.push(id, &book, ""),
            Err(error) => self.push(id, &BookFeatures::default(), &error.to_string()),
        }
    }

    fn push(&mut self, id: i64, book: &BookFeatures, error: &str) {
        self.rows += 1;
        self.id.push(id);
        self.key.push(&book.key);
        self.title.push(&book.title);
        self.author.push(&book.author);
        self.language.push(&book.language);
        self.words.push(book.words as i64);
        self.pages.push(i64::from(book.pages));
        self.bytes.push(book.bytes as i64);
        self.distinct_words.push(i64::from(book.distinct_words));
        self.invalid_utf8_sequences
            .push(book.invalid_utf8_sequences as i64);
        self.encoding.push(&book.encoding);
        self.simhash_low.push(book.simhash.0 as u64 as i64);
        self.simhash_high.push((book.simhash.0 >> 64) as u64 as i64);
        self.minhash.push(book.minhash.0.iter().map(|&v| v as i64));
        self.page_minhashes.push(
            book.page_minhashes
                .iter()
                .flat_map(|page| page.0.iter().map(|&v| v as i64)),
        );
        self.part_lengths
            .push(book.parts.iter().map(|part| part.len() as i32));
        self.hashes.push(
            book.parts
                .iter()
                .flat_map(|p| p.hashes.iter().map(|&h| h as i32)),
        );
        self.positions.push(
            book.parts
                .iter()
                .flat_map(|p| p.positions.iter().map(|&w| w as i32)),
        );
        for (column, keys) in self.keys.iter_mut().zip(&book.keys) {
            column.push(keys.iter().map(|&k| k as i64));
        }
        self.error.push(error);
    }

    fn into_table(self) -> Table {
        let [book_keys, window_keys, simhash_keys, value_keys] = self.keys;
        let mut columns = vec![
            ("id", Column::I64(self.id)),
            ("key", Column::Strings(self.key)),
            ("title", Column::Strings(self.title)),
            ("author", Column::Strings(self.author)),
            ("language", Column::Strings(self.language)),
            ("words", Column::I64(self.words)),
            ("pages", Column::I64(self.pages)),
            ("bytes", Column::I64(self.bytes)),
            ("distinct_words", Column::I64(self.distinct_words)),
            (
                "invalid_utf8_sequences",
                Column::I64(self.invalid_utf8_sequences),
            ),
            ("encoding", Column::Strings(self.encoding)),
            ("simhash_low", Column::I64(self.simhash_low)),
            ("simhash_high", Column::I64(self.simhash_high)),
            ("minhash", self.minhash.finish(Column::I64)),
            ("page_minhashes", self.page_minhashes.finish(Column::I64)),
            ("part_lengths", self.part_lengths.finish(Column::I32)),
            ("hashes", self.hashes.finish(Column::I32)),
            ("positions", self.positions.finish(Column::I32)),
        ];
        for (name, keys) in
            KEY_COLUMNS
                .into_iter()
                .zip([book_keys, window_keys, simhash_keys, value_keys])
        {
            columns.push((name, keys.finish(Column::I64)));
        }
        columns.push(("error", Column::Strings(self.error)));
        Table {
            rows: self.rows,
            columns,
        }
    }
}

/// Each book's parts from its `part_lengths`, `hashes` and (when given)
/// `positions` lists: row `row`'s book, its parts checked to add up.
struct PartColumns {
    lengths: Lists<i32>,
    hashes: Lists<i32>,
    positions: Option<Lists<i32>>,
}

/// Buffers of one list column: offsets and values.
type ListBuffers<'a> = (&'a [u8], &'a [u8]);

impl PartColumns {
    fn read(
        lengths: ListBuffers<'_>,
        hashes: ListBuffers<'_>,
        positions: Option<ListBuffers<'_>>,
        side: &str,
    ) -> Result<Self, Error> {
        let columns = PartColumns {
            lengths: Lists::read(lengths, &format!("{side}part_lengths"))?,
            hashes: Lists::read(hashes, &format!("{side}hashes"))?,
            positions: positions
                .map(|p| Lists::read(p, &format!("{side}positions")))
                .transpose()?,
        };
        let rows = columns.lengths.len();
        same_rows(rows, &[("hashes", columns.hashes.len())])?;
        if let Some(positions) = &columns.positions {
            same_rows(rows, &[("positions", positions.len())])?;
        }
        Ok(columns)
    }

    /// The parts of row `row`, as a book of features with only its parts.
    fn book(&self, row: usize) -> Result<BookFeatures, Error> {
        let hashes = self.hashes.get(row);
        let positions = self.positions.as_ref().map(|p| p.get(row));
        let mut parts = Vec::new();
        let mut at = 0usize;
        for &length in self.lengths.get(row) {
            let end = usize::try_from(length).ok().map(|l| at + l);
            let end = end.filter(|&end| end <= hashes.len()).ok_or_else(|| {
                Error::InvalidArgument(format!("row {row}: part_lengths exceed the hashes"))
            })?;
            parts.push(UniqueWordSeq {
                hashes: hashes[at..end].iter().map(|&h| h as u32).collect(),
                positions: positions
                    .and_then(|p| p.get(at..end))
                    .map(|p| p.iter().map(|&w| w as u32).collect())
                    .unwrap_or_default(),
            });
            at = end;
        }
        let positions_fit = positions.is_none_or(|p| p.len() == hashes.len());
        if at != hashes.len() || !positions_fit {
            return Err(Error::InvalidArgument(format!(
                "row {row}: part_lengths, hashes and positions disagree in length"
            )));
        }
        Ok(BookFeatures {
            parts,
            ..BookFeatures::default()
        })
    }
}

/// The caps of a collection of `books` books of `parts` parts in all: a
/// band key listing more books than the first, or a sampled word in more
/// parts than the second, proposes nothing.
#[pyfunction]
pub fn caps(books: usize, parts: usize) -> (usize, usize) {
    let caps = Caps::for_collection(books, parts);
    (caps.key, caps.sample)
}

/// The sampled unique words of a batch of books (`ids`, and each book's
/// `part_lengths` and `hashes`): columns `word` (its hash's bits), `book`,
/// `part`, `index` (in the part's sequence).
#[pyfunction]
pub fn sample_entries_of<'py>(
    py: Python<'py>,
    ids: &[u8],
    part_lengths: ListBuffers<'_>,
    hashes: ListBuffers<'_>,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let ids: Vec<i64> = numbers(ids, "id")?;
        let parts = PartColumns::read(part_lengths, hashes, None, "")?;
        same_rows(ids.len(), &[("part_lengths", parts.lengths.len())])?;
        let (mut word, mut book, mut part, mut index) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (row, &id) in ids.iter().enumerate() {
            for entry in parts.book(row)?.sample_entries(book_id(id)?) {
                word.push(entry.word as i32);
                book.push(i64::from(entry.book));
                part.push(entry.part as i32);
                index.push(entry.index as i32);
            }
        }
        Ok(Table {
            rows: word.len(),
            columns: vec![
                ("word", Column::I32(word)),
                ("book", Column::I64(book)),
                ("part", Column::I32(part)),
                ("index", Column::I32(index)),
            ],
        })
    })
}

/// Rows of a run at most: a step's rows for one target are cut into runs
/// of this many, so that no value a shuffle moves outgrows its buffers.
const MAX_RUN_ROWS: usize = 1 << 20;

/// What a run's rows are (column `kind` of the runs).
const KEY_PAIR_RUN: i32 = 0;
/// See [`KEY_PAIR_RUN`].
const MATCH_RUN: i32 = 1;

/// Rows (each row's pair of books first) by the step their pair goes to,
/// of `targets`.
struct ByTarget<const N: usize> {
    rows: Vec<Vec<[u32; N]>>,
}

impl<const N: usize> ByTarget<N> {
    fn new(targets: u32) -> Self {
        ByTarget {
            rows: vec![Vec::new(); targets as usize],
        }
    }

    fn push(&mut self, row: [u32; N]) {
        let target = batch::pair_target(row[0], row[1], self.rows.len() as u32);
        self.rows[target as usize].push(row);
    }
}

/// The runs table of `rows`: columns `target` (the step the pair goes to,
/// 0 to `targets` − 1), `kind` and `run` (the rows as a row run,
/// `batch::runs`), runs of one target at most [`MAX_RUN_ROWS`] rows each.
fn runs_by_target<const N: usize>(by_target: ByTarget<N>, kind: i32) -> Result<Table, Error> {
    let (mut target, mut kinds, mut runs) = (Vec::new(), Vec::new(), Strings::default());
    let mut bytes = Vec::new();
    for (t, mut rows) in by_target.rows.into_iter().enumerate() {
        // Rows are each once by construction; a repeat is refused by
        // `encode`, never merged away (a key row's count would be lost).
        rows.sort_unstable();
        for chunk in rows.chunks(MAX_RUN_ROWS) {
            bytes.clear();
            batch::runs::encode(chunk, &mut bytes)?;
            target.push(t as i32);
            kinds.push(kind);
            runs.push_bytes(&bytes);
        }
    }
    Ok(Table {
        rows: target.len(),
        columns: vec![
            ("target", Column::I32(target)),
            ("kind", Column::I32(kinds)),
            ("run", Column::Binary(runs)),
        ],
    })
}

/// The step count of a runs kernel, checked.
fn targets(targets: i64) -> Result<u32, Error> {
    match u32::try_from(targets) {
        Ok(t) if (1..=1 << 20).contains(&t) => Ok(t),
        _ => Err(Error::InvalidArgument(format!(
            "targets {targets}: expected 1 to {}",
            1 << 20
        ))),
    }
}

/// The matches of the sampled words listed in a batch (columns `word`,
/// `book`, `part`, `index`; every listing of each word it holds, as a
/// shuffle by word gives them), as runs by the pair of books they match:
/// columns `target`, `kind`, `run` (see [`runs_by_target`]); none from a
/// word listed in more than `sample_cap` parts.
#[pyfunction]
pub fn sample_match_runs_of<'py>(
    py: Python<'py>,
    word: &[u8],
    book: &[u8],
    part: &[u8],
    index: &[u8],
    sample_cap: usize,
    targets: i64,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let targets = self::targets(targets)?;
        let words: Vec<i32> = numbers(word, "word")?;
        let books: Vec<i64> = numbers(book, "book")?;
        let parts: Vec<i32> = numbers(part, "part")?;
        let indices: Vec<i32> = numbers(index, "index")?;
        same_rows(
            words.len(),
            &[
                ("book", books.len()),
                ("part", parts.len()),
                ("index", indices.len()),
            ],
        )?;
        let mut entries = Vec::with_capacity(words.len());
        for row in 0..words.len() {
            entries.push(SampleEntry {
                word: words[row] as u32,
                book: book_id(books[row])?,
                part: parts[row] as u32,
                index: indices[row] as u32,
            });
        }
        let caps = Caps {
            key: 0,
            sample: sample_cap,
        };
        let mut rows = ByTarget::new(targets);
        batch::sample_matches(&mut entries, caps, |row| rows.push(row));
        Ok(runs_by_target(rows, MATCH_RUN)?)
    })
}

/// The pairs of books the band keys listed in a batch propose or count
/// toward (columns `table` (0 book, 1 window, 2 simhash, 3 value), `key`,
/// `id`, `simhash_low`, `simhash_high`: the listing book's; every listing
/// of each key it holds, as a shuffle by table and key gives them), as runs
/// by pair of books: columns `target`, `kind`, `run` (see
/// [`runs_by_target`]); none from a key listed by more than `key_cap`
/// books. `options` is the JSON of the features' options (default options
/// when `None`).
#[pyfunction]
#[pyo3(signature = (table, key, id, simhash_low, simhash_high, key_cap, targets, options = None))]
#[allow(clippy::too_many_arguments)]
pub fn key_pair_runs_of<'py>(
    py: Python<'py>,
    table: &[u8],
    key: &[u8],
    id: &[u8],
    simhash_low: &[u8],
    simhash_high: &[u8],
    key_cap: usize,
    targets: i64,
    options: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let targets = self::targets(targets)?;
        let options = feature_options(options)?;
        let tables: Vec<i32> = numbers(table, "table")?;
        let keys: Vec<i64> = numbers(key, "key")?;
        let ids: Vec<i64> = numbers(id, "id")?;
        let low: Vec<i64> = numbers(simhash_low, "simhash_low")?;
        let high: Vec<i64> = numbers(simhash_high, "simhash_high")?;
        same_rows(
            tables.len(),
            &[
                ("key", keys.len()),
                ("id", ids.len()),
                ("simhash_low", low.len()),
                ("simhash_high", high.len()),
            ],
        )?;
        let mut listings = Vec::with_capacity(tables.len());
        for row in 0..tables.len() {
            let table = usize::try_from(tables[row])
                .ok()
                .and_then(|t| KeyTable::ALL.get(t).copied())
                .ok_or_else(|| {
                    Error::InvalidArgument(format!("row {row}: no key table {}", tables[row]))
                })?;
            listings.push(KeyListing {
                entry: KeyEntry {
                    table,
                    key: keys[row] as u64,
                },
                book: book_id(ids[row])?,
                simhash: SimHash128(
                    u128::from(low[row] as u64) | (u128::from(high[row] as u64) << 64),
                ),
            });
        }
        let caps = Caps {
            key: key_cap,
            sample: 0,
        };
        let mut rows = ByTarget::new(targets);
        for row in batch::key_pair_rows(&mut listings, caps, &options.sketch) {
            rows.push(row);
        }
        Ok(runs_by_target(rows, KEY_PAIR_RUN)?)
    })
}

/// The candidate pairs of the runs of a batch (columns `kind`, `run`, as
/// [`sample_match_runs_of`] and [`key_pair_runs_of`] give them; every run
/// of each pair of books it holds, as a shuffle by target gives them):
/// columns `a`, `b` (ascending), `from_keys` (1 when the key tables
/// propose the pair), and `sampled_a`, `sampled_b` (lists of equal
/// length: the pairs of parts in order, ascending). `options` as for
/// [`key_pair_runs_of`].
#[pyfunction]
#[pyo3(signature = (kind, run, options = None))]
pub fn candidates_of_runs<'py>(
    py: Python<'py>,
    kind: &[u8],
    run: (&[u8], &[u8]),
    options: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let options = feature_options(options)?;
        let kinds: Vec<i32> = numbers(kind, "kind")?;
        let bounds = offsets(run.0, run.1.len(), "run")?;
        same_rows(kinds.len(), &[("run", bounds.len() - 1)])?;
        let (mut key_rows, mut match_rows) = (Vec::new(), Vec::new());
        for (row, &kind) in kinds.iter().enumerate() {
            let bytes = &run.1[bounds[row]..bounds[row + 1]];
            let what = format!("row {row}: run");
            match kind {
                KEY_PAIR_RUN => batch::runs::decode(bytes, &what, &mut key_rows)?,
                MATCH_RUN => batch::runs::decode(bytes, &what, &mut match_rows)?,
                other => {
                    return Err(Error::InvalidArgument(format!(
                        "row {row}: no kind of run {other}"
                    ))
                    .into())
                }
            }
        }
        let (mut a, mut b, mut from_keys) = (Vec::new(), Vec::new(), Vec::new());
        let (mut sampled_a, mut sampled_b) = (ListBuilder::default(), ListBuilder::default());
        for pair in batch::candidate_pairs(key_rows, match_rows, &options.sketch) {
            a.push(i64::from(pair.a));
            b.push(i64::from(pair.b));
            from_keys.push(i32::from(pair.from_keys));
            sampled_a.push(pair.sampled.iter().map(|&(x, _)| x as i32));
            sampled_b.push(pair.sampled.iter().map(|&(_, y)| y as i32));
        }
        Ok(Table {
            rows: a.len(),
            columns: vec![
                ("a", Column::I64(a)),
                ("b", Column::I64(b)),
                ("from_keys", Column::I32(from_keys)),
                ("sampled_a", sampled_a.finish(Column::I32)),
                ("sampled_b", sampled_b.finish(Column::I32)),
            ],
        })
    })
}

/// The features' options from their JSON (`docs/batch-format.md`), or the
/// defaults; `InvalidArgument` when they do not parse or are out of range.
fn feature_options(json: Option<&str>) -> Result<FeatureOptions, Error> {
    let Some(json) = json else {
        return Ok(FeatureOptions::default());
    };
    let options: FeatureOptions = serde_json::from_str(json)
        .map_err(|e| Error::InvalidArgument(format!("feature options: {e}")))?;
    options.validate().map_err(|e| match e {
        Error::InvalidArgument(why) => Error::InvalidArgument(format!("feature options: {why}")),
        other => other,
    })?;
    Ok(options)
}

/// One side's parts of the pairs to verify: `part_lengths`, `hashes` and
/// `positions` lists.
type SideBuffers<'a> = (ListBuffers<'a>, ListBuffers<'a>, ListBuffers<'a>);

/// Verifies a batch of candidate pairs of books: each row's `from_keys`
/// (1 when the key tables proposed it), the pairs of parts the word sample
/// proposed (offsets, parts of a, parts of b) and each book's parts.
/// Columns: `row` (of the pairs that score at least `min_score` under
/// `score`), `score`, `lcs`, `common`, `a_unique`, `b_unique`, `a_part`,
/// `b_part`, `a_words_start`, `a_words_end`, `b_words_start`,
/// `b_words_end`.
#[pyfunction]
#[pyo3(signature = (from_keys, sampled, a, b, score, min_score = None))]
pub fn verify_pairs<'py>(
    py: Python<'py>,
    from_keys: &[u8],
    sampled: (&[u8], &[u8], &[u8]),
    a: SideBuffers<'_>,
    b: SideBuffers<'_>,
    score: &str,
    min_score: Option<f64>,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let score: Score = options::score(score)?;
        let min_score = options::min_score(score, min_score)?;
        let from_keys: Vec<i8> = numbers(from_keys, "from_keys")?;
        let part_x: Vec<i32> = numbers(sampled.1, "sampled part_a")?;
        let part_y: Vec<i32> = numbers(sampled.2, "sampled part_b")?;
        same_rows(part_x.len(), &[("sampled part_b", part_y.len())])?;
        let bounds = offsets(sampled.0, part_x.len(), "sampled")?;
        let a = PartColumns::read(a.0, a.1, Some(a.2), "a_")?;
        let b = PartColumns::read(b.0, b.1, Some(b.2), "b_")?;
        let rows = from_keys.len();
        same_rows(
            rows,
            &[
                ("sampled", bounds.len() - 1),
                ("a", a.lengths.len()),
                ("b", b.lengths.len()),
            ],
        )?;
        let mut out = VerifiedColumns::default();
        for row in 0..rows {
            let (x, y) = (a.book(row)?, b.book(row)?);
            let sampled = (bounds[row]..bounds[row + 1])
                .map(|i| (part_x[i] as u32, part_y[i] as u32))
                .collect();
            let pairs = part_pairs(
                x.parts.len() as u32,
                y.parts.len() as u32,
                from_keys[row] != 0,
                sampled,
            );
            if let Some(found) = verify(&x, &y, &pairs, score, min_score) {
                out.push(row, &found);
            }
        }
        Ok(out.into_table())
    })
}

/// The columns of pairs' matches under construction: score, overlap and
/// where the match lies.
#[derive(Default)]
pub struct MatchColumns {
    score: Vec<f64>,
    counts: [Vec<i64>; 10],
}

/// The names of [`MatchColumns::counts`].
const MATCH_COUNTS: [&str; 10] = [
    "lcs",
    "common",
    "a_unique",
    "b_unique",
    "a_part",
    "b_part",
    "a_words_start",
    "a_words_end",
    "b_words_start",
    "b_words_end",
];

impl MatchColumns {
    /// Appends one pair's match.
    pub fn push(&mut self, score: f64, overlap: &Overlap, location: &Location) {
        self.score.push(score);
        let (o, l) = (overlap, location);
        let counts = [
            o.lcs,
            o.common,
            o.len_x,
            o.len_y,
            l.part_x,
            l.part_y,
            l.words_x.start,
            l.words_x.end,
            l.words_y.start,
            l.words_y.end,
        ];
        for (column, value) in self.counts.iter_mut().zip(counts) {
            column.push(i64::from(value));
        }
    }

    /// Its columns, `score` first.
    pub fn into_columns(self) -> Vec<(&'static str, Column)> {
        let mut columns = vec![("score", Column::F64(self.score))];
        for (name, values) in MATCH_COUNTS.into_iter().zip(self.counts) {
            columns.push((name, Column::I64(values)));
        }
        columns
    }
}

/// Verified pairs under construction: the row of each and its match.
#[derive(Default)]
struct VerifiedColumns {
    row: Vec<i64>,
    matches: MatchColumns,
}

impl VerifiedColumns {
    fn push(&mut self, row: usize, found: &batch::Verified) {
        self.row.push(row as i64);
        self.matches
            .push(found.score, &found.overlap, &found.location);
    }

    fn into_table(self) -> Table {
        let rows = self.row.len();
        let mut columns = vec![("row", Column::I64(self.row))];
        columns.extend(self.matches.into_columns());
        Table { rows, columns }
    }
}

/// The clusters of related pairs of books (their ids and keys): columns
/// `cluster` (from 1, largest first, ties by first key), `size`, `key`
/// (ascending within a cluster), as `stemmata pairs --clusters` has them.
#[pyfunction]
pub fn clusters_of<'py>(
    py: Python<'py>,
    a: &[u8],
    b: &[u8],
    a_keys: (&[u8], &[u8]),
    b_keys: (&[u8], &[u8]),
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let a: Vec<i64> = numbers(a, "a")?;
        let b: Vec<i64> = numbers(b, "b")?;
        let a_offsets = offsets(a_keys.0, a_keys.1.len(), "a keys")?;
        let b_offsets = offsets(b_keys.0, b_keys.1.len(), "b keys")?;
        same_rows(
            a.len(),
            &[
                ("b", b.len()),
                ("a keys", a_offsets.len() - 1),
                ("b keys", b_offsets.len() - 1),
            ],
        )?;
        let key = |bytes: &[u8], at: &[usize], row: usize| -> Result<String, Error> {
            std::str::from_utf8(&bytes[at[row]..at[row + 1]])
                .map(str::to_string)
                .map_err(|_| Error::InvalidArgument(format!("row {row}: a key is not UTF-8")))
        };
        let mut keys = std::collections::HashMap::new();
        let mut components = Components::default();
        for row in 0..a.len() {
            let (x, y) = (book_id(a[row])?, book_id(b[row])?);
            keys.entry(x).or_insert(key(a_keys.1, &a_offsets, row)?);
            keys.entry(y).or_insert(key(b_keys.1, &b_offsets, row)?);
            components.join(x, y);
        }
        let groups = batch::clusters_by_key(
            components
                .groups()
                .iter()
                .map(|group| group.iter().map(|id| keys[id].as_str()).collect())
                .collect(),
        );
        Ok(cluster_table(&groups))
    })
}

/// The clusters table of `docs/batch-format.md`: `cluster` (from 1),
/// `size`, `key`, of clusters in [`batch::clusters_by_key`]'s order.
pub fn cluster_table(groups: &[Vec<&str>]) -> Table {
    let (mut cluster, mut size, mut key) = (Vec::new(), Vec::new(), Strings::default());
    for (number, group) in groups.iter().enumerate() {
        for k in group {
            cluster.push(number as i64 + 1);
            size.push(group.len() as i64);
            key.push(k);
        }
    }
    Table {
        rows: cluster.len(),
        columns: vec![
            ("cluster", Column::I64(cluster)),
            ("size", Column::I64(size)),
            ("key", Column::Strings(key)),
        ],
    }
}

/// The key-list column names, in the key tables' order.
#[pyfunction]
pub fn key_columns() -> [&'static str; 4] {
    KEY_COLUMNS
}

/// The names of a match's count columns, in the order the pairs have them
/// after `score`.
#[pyfunction]
pub fn match_columns() -> [&'static str; 10] {
    MATCH_COUNTS
}
