//! Rows of book features to an Arrow record batch and back.
//!
//! Arrow has no unsigned integers: a `u32` hash or position is stored in
//! an `int32` column by its bits, a `u64` hash or key in an `int64` column
//! by its bits, and a count is widened to `int64` (`docs/batch-format.md`).

use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, ListArray, RecordBatch, StringArray};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use stemmata::batch::BookFeatures;
use stemmata::repr::{MinHashSig, SimHash128, UniqueWordSeq};

use crate::error::{Error, Result};

/// The columns, in the layout's order, with their types (a list's items
/// are `int64` or `int32` as given).
pub const COLUMNS: [(&str, Kind); 22] = [
    ("id", Kind::Int64),
    ("key", Kind::String),
    ("title", Kind::String),
    ("author", Kind::String),
    ("language", Kind::String),
    ("words", Kind::Int64),
    ("pages", Kind::Int64),
    ("bytes", Kind::Int64),
    ("distinct_words", Kind::Int64),
    ("invalid_utf8_sequences", Kind::Int64),
    ("encoding", Kind::String),
    ("simhash_low", Kind::Int64),
    ("simhash_high", Kind::Int64),
    ("minhash", Kind::List64),
    ("page_minhashes", Kind::List64),
    ("part_lengths", Kind::List32),
    ("hashes", Kind::List32),
    ("positions", Kind::List32),
    ("book_keys", Kind::List64),
    ("window_keys", Kind::List64),
    ("simhash_keys", Kind::List64),
    ("value_keys", Kind::List64),
];

/// The Arrow type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `int64`.
    Int64,
    /// `string` (UTF-8).
    String,
    /// `list<int64>`.
    List64,
    /// `list<int32>`.
    List32,
}

impl Kind {
    /// The type written.
    fn data_type(self) -> DataType {
        match self {
            Kind::Int64 => DataType::Int64,
            Kind::String => DataType::Utf8,
            Kind::List64 => DataType::List(Arc::new(Field::new("item", DataType::Int64, false))),
            Kind::List32 => DataType::List(Arc::new(Field::new("item", DataType::Int32, false))),
        }
    }

    /// Whether `found` is this type. A list's item field may have any
    /// name and nullability (engines name it `element` or `item`), and so
    /// may a column: nulls are refused where they are, row by row.
    fn accepts(self, found: &DataType) -> bool {
        match (self, found) {
            (Kind::List64, DataType::List(item)) => item.data_type() == &DataType::Int64,
            (Kind::List32, DataType::List(item)) => item.data_type() == &DataType::Int32,
            _ => &self.data_type() == found,
        }
    }
}

/// The Arrow schema of the features table: every column of [`COLUMNS`],
/// in order, none nullable.
pub fn schema() -> SchemaRef {
    let fields: Vec<Field> = COLUMNS
        .iter()
        .map(|&(name, kind)| Field::new(name, kind.data_type(), false))
        .collect();
    Arc::new(Schema::new(fields))
}

/// `Schema` error unless `schema` has every column of the layout with its
/// type (columns may come in any order; others are ignored).
pub(crate) fn check_schema(schema: &Schema, path: &Path) -> Result<()> {
    for &(name, kind) in &COLUMNS {
        let problem = match schema.field_with_name(name) {
            Err(_) => "missing".to_string(),
            Ok(field) if !kind.accepts(field.data_type()) => {
                format!("of type {}, not {}", field.data_type(), kind.data_type())
            }
            Ok(_) => continue,
        };
        return Err(Error::Schema {
            path: path.to_path_buf(),
            column: name.to_string(),
            problem,
        });
    }
    Ok(())
}

/// Values of a list column, row after row, with each row's length.
struct Lists<T> {
    lengths: Vec<usize>,
    values: Vec<T>,
}

impl<T> Lists<T> {
    fn new() -> Self {
        Lists {
            lengths: Vec::new(),
            values: Vec::new(),
        }
    }

    fn push(&mut self, row: impl IntoIterator<Item = T>) {
        let before = self.values.len();
        self.values.extend(row);
        self.lengths.push(self.values.len() - before);
    }
}

/// A list column of `lists`, items of type `item`.
fn list_array<T: Native>(lists: Lists<T>, item: DataType) -> ArrayRef {
    Arc::new(ListArray::new(
        Arc::new(Field::new("item", item, false)),
        OffsetBuffer::from_lengths(lists.lengths),
        T::array(lists.values),
        None,
    ))
}

/// A native value a list column of ours holds.
trait Native: Sized {
    fn array(values: Vec<Self>) -> ArrayRef;
}

impl Native for i64 {
    fn array(values: Vec<Self>) -> ArrayRef {
        Arc::new(Int64Array::new(ScalarBuffer::from(values), None))
    }
}

impl Native for i32 {
    fn array(values: Vec<Self>) -> ArrayRef {
        Arc::new(Int32Array::new(ScalarBuffer::from(values), None))
    }
}

/// Values of one batch's list columns together past which
/// [`to_record_batch`] refuses it (Arrow's list offsets are `i32`).
pub const MAX_LIST_VALUES: usize = i32::MAX as usize;

/// The record batch of `rows` (each a book's id and features), in the
/// schema of [`schema`]. `None` when a list column would hold more than
/// [`MAX_LIST_VALUES`] values: write fewer rows at a time.
pub fn to_record_batch(rows: &[(u64, &BookFeatures)]) -> Option<RecordBatch> {
    let ints = |f: &dyn Fn(&BookFeatures) -> u64| -> ArrayRef {
        Arc::new(Int64Array::from_iter_values(
            rows.iter().map(|(_, b)| f(b) as i64),
        ))
    };
    let strings = |f: &dyn Fn(&BookFeatures) -> &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|(_, b)| f(b)),
        ))
    };
    let (mut minhash, mut pages, mut part_lengths) = (Lists::new(), Lists::new(), Lists::new());
    let (mut hashes, mut positions) = (Lists::new(), Lists::new());
    let mut keys: [Lists<i64>; 4] = std::array::from_fn(|_| Lists::new());
    for (_, book) in rows {
        minhash.push(book.minhash.0.iter().map(|&v| v as i64));
        pages.push(
            book.page_minhashes
                .iter()
                .flat_map(|p| p.0.iter().map(|&v| v as i64)),
        );
        part_lengths.push(book.parts.iter().map(|p| p.hashes.len() as i32));
        hashes.push(
            book.parts
                .iter()
                .flat_map(|p| p.hashes.iter().map(|&h| h as i32)),
        );
        positions.push(
            book.parts
                .iter()
                .flat_map(|p| p.positions.iter().map(|&h| h as i32)),
        );
        for (lists, table) in keys.iter_mut().zip(&book.keys) {
            lists.push(table.iter().map(|&k| k as i64));
        }
    }
    let too_long = [&minhash, &pages]
        .iter()
        .map(|l| l.values.len())
        .chain([hashes.values.len(), positions.values.len()])
        .chain(keys.iter().map(|l| l.values.len()))
        .any(|n| n > MAX_LIST_VALUES);
    if too_long {
        return None;
    }
    let [book_keys, window_keys, simhash_keys, value_keys] = keys;
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(
            rows.iter().map(|&(id, _)| id as i64),
        )),
        strings(&|b| &b.key),
        strings(&|b| &b.title),
        strings(&|b| &b.author),
        strings(&|b| &b.language),
        ints(&|b| b.words),
        ints(&|b| u64::from(b.pages)),
        ints(&|b| b.bytes),
        ints(&|b| u64::from(b.distinct_words)),
        ints(&|b| b.invalid_utf8_sequences),
        strings(&|b| &b.encoding),
        ints(&|b| b.simhash.0 as u64),
        ints(&|b| (b.simhash.0 >> 64) as u64),
        list_array(minhash, DataType::Int64),
        list_array(pages, DataType::Int64),
        list_array(part_lengths, DataType::Int32),
        list_array(hashes, DataType::Int32),
        list_array(positions, DataType::Int32),
        list_array(book_keys, DataType::Int64),
        list_array(window_keys, DataType::Int64),
        list_array(simhash_keys, DataType::Int64),
        list_array(value_keys, DataType::Int64),
    ];
    Some(RecordBatch::try_new(schema(), columns).expect("columns follow the schema"))
}

/// Reads the columns of one batch, naming the file and the row in errors.
struct Columns<'a> {
    batch: &'a RecordBatch,
    path: &'a Path,
    /// The row in the file of the batch's first row.
    first_row: u64,
}

impl<'a> Columns<'a> {
    fn schema_error(&self, column: &str, problem: String) -> Error {
        Error::Schema {
            path: self.path.to_path_buf(),
            column: column.to_string(),
            problem,
        }
    }

    fn row_error(&self, row: usize, column: &str, problem: impl Into<String>) -> Error {
        Error::Row {
            path: self.path.to_path_buf(),
            row: self.first_row + row as u64,
            column: column.to_string(),
            problem: problem.into(),
        }
    }

    /// Column `name`, of the layout's type, without nulls.
    fn column<T: Array + 'static>(&self, name: &str) -> Result<&'a T> {
        let column = self
            .batch
            .column_by_name(name)
            .ok_or_else(|| self.schema_error(name, "missing".into()))?;
        let typed = column
            .as_any()
            .downcast_ref::<T>()
            .ok_or_else(|| self.schema_error(name, format!("of type {}", column.data_type())))?;
        if let Some(row) = first_null(typed) {
            return Err(self.row_error(row, name, "null"));
        }
        Ok(typed)
    }

    fn ints(&self, name: &str) -> Result<&'a Int64Array> {
        self.column(name)
    }

    fn strings(&self, name: &str) -> Result<&'a StringArray> {
        self.column(name)
    }

    /// List column `name` of `T` items: its offsets and values, no null
    /// list and no null item.
    fn list<T: Array + 'static>(&self, name: &str) -> Result<(&'a [i32], &'a T)> {
        let list: &ListArray = self.column(name)?;
        let values = list
            .values()
            .as_any()
            .downcast_ref::<T>()
            .ok_or_else(|| self.schema_error(name, format!("of type {}", list.data_type())))?;
        if values.null_count() > 0 {
            let offsets = list.value_offsets();
            let row = (0..list.len())
                .find(|&r| (offsets[r]..offsets[r + 1]).any(|i| values.is_null(i as usize)))
                .unwrap_or(0);
            return Err(self.row_error(row, name, "a null item"));
        }
        Ok((list.value_offsets(), values))
    }
}

/// The first null row of `array`, if any.
fn first_null(array: &dyn Array) -> Option<usize> {
    match array.null_count() {
        0 => None,
        _ => (0..array.len()).find(|&i| array.is_null(i)),
    }
}

/// The items of row `row` of a list (offsets, values).
fn items<'v, T: arrow_buffer::ArrowNativeType>(
    (offsets, values): (&[i32], &'v [T]),
    row: usize,
) -> &'v [T] {
    let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
    values.get(start..end).unwrap_or(&[])
}

/// The rows of `batch` (the rows from `first_row` of the file at `path`)
/// as (id, features), page signatures cut every `window_hashes` values.
/// Errors name the file, the row and the column: a column missing or of
/// another type, a null, a count out of range, page signatures not a
/// multiple of `window_hashes`, part lengths that do not add up to the
/// hashes and positions.
pub fn from_record_batch(
    batch: &RecordBatch,
    window_hashes: usize,
    path: &Path,
    first_row: u64,
) -> Result<Vec<(u64, BookFeatures)>> {
    let c = Columns {
        batch,
        path,
        first_row,
    };
    let id = c.ints("id")?;
    let [key, title, author, language, encoding] =
        ["key", "title", "author", "language", "encoding"];
    let strings = [
        c.strings(key)?,
        c.strings(title)?,
        c.strings(author)?,
        c.strings(language)?,
        c.strings(encoding)?,
    ];
    let counts = [
        "words",
        "pages",
        "bytes",
        "distinct_words",
        "invalid_utf8_sequences",
    ];
    let count_columns = [
        c.ints(counts[0])?,
        c.ints(counts[1])?,
        c.ints(counts[2])?,
        c.ints(counts[3])?,
        c.ints(counts[4])?,
    ];
    let simhash = [c.ints("simhash_low")?, c.ints("simhash_high")?];
    let list64 = |name| -> Result<(&[i32], &[i64])> {
        let (offsets, values) = c.list::<Int64Array>(name)?;
        Ok((offsets, values.values().as_ref()))
    };
    let list32 = |name| -> Result<(&[i32], &[i32])> {
        let (offsets, values) = c.list::<Int32Array>(name)?;
        Ok((offsets, values.values().as_ref()))
    };
    let minhash = list64("minhash")?;
    let pages = list64("page_minhashes")?;
    let part_lengths = list32("part_lengths")?;
    let hashes = list32("hashes")?;
    let positions = list32("positions")?;
    let key_names = ["book_keys", "window_keys", "simhash_keys", "value_keys"];
    let keys = [
        list64(key_names[0])?,
        list64(key_names[1])?,
        list64(key_names[2])?,
        list64(key_names[3])?,
    ];
    let mut rows = Vec::with_capacity(batch.num_rows());
    for row in 0..batch.num_rows() {
        let book_id = u64::try_from(id.value(row))
            .map_err(|_| c.row_error(row, "id", format!("{} is negative", id.value(row))))?;
        let mut count = [0u64; 5];
        for (i, column) in count_columns.iter().enumerate() {
            let value = column.value(row);
            count[i] = u64::try_from(value)
                .map_err(|_| c.row_error(row, counts[i], format!("{value} is negative")))?;
        }
        let narrow = |i: usize| {
            u32::try_from(count[i])
                .map_err(|_| c.row_error(row, counts[i], format!("{} is over 2^32 - 1", count[i])))
        };
        let (book_pages, distinct_words) = (narrow(1)?, narrow(3)?);
        let page_values = items(pages, row);
        if window_hashes == 0 || page_values.len() % window_hashes != 0 {
            return Err(c.row_error(
                row,
                "page_minhashes",
                format!(
                    "{} values, not a multiple of the options' window-hash count {window_hashes}",
                    page_values.len()
                ),
            ));
        }
        let lengths = items(part_lengths, row);
        let (row_hashes, row_positions) = (items(hashes, row), items(positions, row));
        let mut sum = 0u64;
        for &length in lengths {
            sum += u64::try_from(length)
                .map_err(|_| c.row_error(row, "part_lengths", format!("{length} is negative")))?;
        }
        if sum != row_hashes.len() as u64 || sum != row_positions.len() as u64 {
            return Err(c.row_error(
                row,
                "part_lengths",
                format!(
                    "they add up to {sum}, but the row has {} hashes and {} positions",
                    row_hashes.len(),
                    row_positions.len()
                ),
            ));
        }
        let mut parts = Vec::with_capacity(lengths.len());
        let mut at = 0;
        for &length in lengths {
            let range = at..at + length as usize;
            at = range.end;
            parts.push(UniqueWordSeq {
                hashes: row_hashes[range.clone()]
                    .iter()
                    .map(|&h| h as u32)
                    .collect(),
                positions: row_positions[range].iter().map(|&p| p as u32).collect(),
            });
        }
        let signature = |values: &[i64]| MinHashSig(values.iter().map(|&v| v as u64).collect());
        let [low, high] = simhash.map(|column| u128::from(column.value(row) as u64));
        let string = |i: usize| strings[i].value(row).to_string();
        rows.push((
            book_id,
            BookFeatures {
                key: string(0),
                title: string(1),
                author: string(2),
                language: string(3),
                words: count[0],
                pages: book_pages,
                bytes: count[2],
                distinct_words,
                invalid_utf8_sequences: count[4],
                encoding: string(4),
                parts,
                keys: keys.map(|k| items(k, row).iter().map(|&v| v as u64).collect()),
                simhash: SimHash128(low | high << 64),
                minhash: signature(items(minhash, row)),
                page_minhashes: page_values.chunks(window_hashes).map(signature).collect(),
            },
        ));
    }
    Ok(rows)
}
