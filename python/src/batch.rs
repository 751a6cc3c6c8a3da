//! The engine-free batch kernels of [`stemmata::batch`] on Arrow columns:
//! each function takes a batch of rows as the bytes of their buffers and
//! gives columns back, so an engine (the package's Spark job) calls Rust
//! once per batch, never once per row. Column names and types are those of
//! `docs/batch-format.md`; `u32` and `u64` values travel by their bits in
//! `int32` and `int64` columns.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use stemmata::batch::{
    self, features, keep_key_pair, key_bucket_pairs, part_pairs, sample_bucket_matches,
    sampled_matches_in_order, verify, BookFeatures, Caps, Components, FeatureOptions, Location,
    SampleEntry,
};
use stemmata::load::sources::{parse_json_document, MAX_JSON_LINE_BYTES};
use stemmata::repr::sketch::Table as KeyTable;
use stemmata::repr::{SimHash128, UniqueWordSeq};
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
#[pyfunction]
pub fn features_of_json_lines<'py>(
    py: Python<'py>,
    ids: &[u8],
    lines: (&[u8], &[u8]),
    source: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let ids: Vec<i64> = numbers(ids, "id")?;
        let line_offsets = offsets(lines.0, lines.1.len(), "line")?;
        same_rows(ids.len(), &[("line", line_offsets.len() - 1)])?;
        let mut columns = FeatureColumns::default();
        let options = FeatureOptions::default();
        for (row, &id) in ids.iter().enumerate() {
            let mut line = &lines.1[line_offsets[row]..line_offsets[row + 1]];
            if id == 0 {
                line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let source_name = format!("{source}:{}", id + 1);
            let book = if line.len() > MAX_JSON_LINE_BYTES {
                Err(Error::BadDocument {
                    source_name,
                    reason: format!("line longer than {MAX_JSON_LINE_BYTES} bytes"),
                })
            } else {
                parse_json_document(line, &source_name).and_then(|d| features(d, &options))
            };
            match book {
                Ok(book) => columns.push(id, &book, ""),
                Err(error) => columns.push(id, &BookFeatures::default(), &error.to_string()),
            }
        }
        Ok(columns.into_table())
    })
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

/// The pairs of books of each band key's bucket (the books listing it, a
/// list of ids per row): columns `bucket` (the row), `a`, `b`, none for a
/// bucket over the key cap.
#[pyfunction]
pub fn key_bucket_pairs_of<'py>(
    py: Python<'py>,
    books: ListBuffers<'_>,
    key_cap: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let books: Lists<i64> = Lists::read(books, "books")?;
        let caps = Caps {
            key: key_cap,
            sample: 0,
        };
        let (mut bucket, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
        for row in 0..books.len() {
            let mut ids = books
                .get(row)
                .iter()
                .map(|&id| book_id(id))
                .collect::<Result<Vec<_>, _>>()?;
            ids.sort_unstable();
            ids.dedup();
            for (x, y) in key_bucket_pairs(&ids, caps) {
                bucket.push(row as i64);
                a.push(i64::from(x));
                b.push(i64::from(y));
            }
        }
        Ok(Table {
            rows: a.len(),
            columns: vec![
                ("bucket", Column::I64(bucket)),
                ("a", Column::I64(a)),
                ("b", Column::I64(b)),
            ],
        })
    })
}

/// The rows to keep of pairs of books that share `shared` keys of table
/// `table` (0 book, 1 window, 2 simhash, 3 value), given each book's
/// simhash (low and high 64 bits): column `row`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn kept_key_pairs<'py>(
    py: Python<'py>,
    table: &[u8],
    shared: &[u8],
    a_simhash_low: &[u8],
    a_simhash_high: &[u8],
    b_simhash_low: &[u8],
    b_simhash_high: &[u8],
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let tables: Vec<i32> = numbers(table, "table")?;
        let shared: Vec<i64> = numbers(shared, "shared")?;
        let simhash = |low: &[u8], high: &[u8], side: &str| -> Result<Vec<SimHash128>, Error> {
            let low: Vec<i64> = numbers(low, &format!("{side}_simhash_low"))?;
            let high: Vec<i64> = numbers(high, &format!("{side}_simhash_high"))?;
            same_rows(low.len(), &[("simhash_high", high.len())])?;
            Ok(low
                .iter()
                .zip(&high)
                .map(|(&l, &h)| SimHash128(u128::from(l as u64) | (u128::from(h as u64) << 64)))
                .collect())
        };
        let a = simhash(a_simhash_low, a_simhash_high, "a")?;
        let b = simhash(b_simhash_low, b_simhash_high, "b")?;
        let rows = tables.len();
        same_rows(
            rows,
            &[
                ("shared", shared.len()),
                ("a simhash", a.len()),
                ("b simhash", b.len()),
            ],
        )?;
        let options = FeatureOptions::default();
        let mut kept = Vec::new();
        for row in 0..rows {
            let table = usize::try_from(tables[row])
                .ok()
                .and_then(|t| KeyTable::ALL.get(t).copied())
                .ok_or_else(|| {
                    Error::InvalidArgument(format!("row {row}: no key table {}", tables[row]))
                })?;
            let count = u32::try_from(shared[row].max(0)).unwrap_or(u32::MAX);
            if keep_key_pair(table, count, a[row], b[row], &options.sketch) {
                kept.push(row as i64);
            }
        }
        Ok(Table {
            rows: kept.len(),
            columns: vec![("row", Column::I64(kept))],
        })
    })
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

/// The matches of each sampled word's bucket (its listings: lists of
/// `book`, `part` and `index` per row): columns `a`, `b`, `part_a`,
/// `part_b`, `index_a`, `index_b`; none for a bucket over the cap.
#[pyfunction]
pub fn sample_bucket_matches_of<'py>(
    py: Python<'py>,
    book: ListBuffers<'_>,
    part: ListBuffers<'_>,
    index: ListBuffers<'_>,
    sample_cap: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let books: Lists<i64> = Lists::read(book, "book")?;
        let parts: Lists<i32> = Lists::read(part, "part")?;
        let indices: Lists<i32> = Lists::read(index, "index")?;
        same_rows(
            books.len(),
            &[("part", parts.len()), ("index", indices.len())],
        )?;
        let caps = Caps {
            key: 0,
            sample: sample_cap,
        };
        let mut out: [Vec<i64>; 2] = Default::default();
        let mut small: [Vec<i32>; 4] = Default::default();
        for row in 0..books.len() {
            let (b, p, i) = (books.get(row), parts.get(row), indices.get(row));
            if p.len() != b.len() || i.len() != b.len() {
                return Err(Error::InvalidArgument(format!(
                    "row {row}: book, part and index lists differ in length"
                ))
                .into());
            }
            let mut entries = Vec::with_capacity(b.len());
            for ((&book, &part), &index) in b.iter().zip(p).zip(i) {
                entries.push(SampleEntry {
                    book: book_id(book)?,
                    part: part as u32,
                    index: index as u32,
                    word: 0,
                });
            }
            entries.sort_unstable();
            for (x, y) in sample_bucket_matches(&entries, caps) {
                out[0].push(i64::from(x.book));
                out[1].push(i64::from(y.book));
                small[0].push(x.part as i32);
                small[1].push(y.part as i32);
                small[2].push(x.index as i32);
                small[3].push(y.index as i32);
            }
        }
        let [a, b] = out;
        let [part_a, part_b, index_a, index_b] = small;
        Ok(Table {
            rows: a.len(),
            columns: vec![
                ("a", Column::I64(a)),
                ("b", Column::I64(b)),
                ("part_a", Column::I32(part_a)),
                ("part_b", Column::I32(part_b)),
                ("index_a", Column::I32(index_a)),
                ("index_b", Column::I32(index_b)),
            ],
        })
    })
}

/// The rows to keep of pairs of parts, each with the indices of the
/// sampled words they share (a list of (index in a, index in b) per row):
/// column `row`, the pairs whose matches stand enough in order.
#[pyfunction]
pub fn in_order_matches<'py>(
    py: Python<'py>,
    offsets_bytes: &[u8],
    index_a: &[u8],
    index_b: &[u8],
) -> PyResult<Bound<'py, PyTuple>> {
    table_for_python(py, || {
        let x: Vec<i32> = numbers(index_a, "index_a")?;
        let y: Vec<i32> = numbers(index_b, "index_b")?;
        same_rows(x.len(), &[("index_b", y.len())])?;
        let bounds = offsets(offsets_bytes, x.len(), "matches")?;
        let mut kept = Vec::new();
        for row in 0..bounds.len() - 1 {
            let matches: Vec<(u32, u32)> = (bounds[row]..bounds[row + 1])
                .map(|i| (x[i] as u32, y[i] as u32))
                .collect();
            if sampled_matches_in_order(&matches) {
                kept.push(row as i64);
            }
        }
        Ok(Table {
            rows: kept.len(),
            columns: vec![("row", Column::I64(kept))],
        })
    })
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
