//! Table columns crossing between Rust and pyarrow as buffers, no Python
//! object per row: columns built in Rust and handed over as Arrow buffers
//! (the package's `_arrow.py` wraps them with `pyarrow.Array.from_buffers`),
//! and columns handed in as the bytes of Arrow buffers (numbers in native
//! order, list and string offsets as `int32`), read into vectors.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

/// A column of strings: Arrow's offsets and bytes.
#[derive(Default)]
pub struct Strings {
    offsets: Vec<u64>,
    data: Vec<u8>,
}

impl Strings {
    /// Appends one string.
    pub fn push(&mut self, s: &str) {
        self.push_bytes(s.as_bytes());
    }

    /// Appends one value of bytes (of a [`Column::Binary`]).
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.data.extend_from_slice(bytes);
        self.offsets.push(self.data.len() as u64);
    }

    /// Arrow's `string` type (32-bit offsets), or `large_string` when the
    /// bytes outgrow them.
    fn offsets(&self) -> (&'static str, Vec<u8>) {
        let offsets: &[u64] = if self.offsets.is_empty() {
            &[0]
        } else {
            &self.offsets
        };
        if self.data.len() <= i32::MAX as usize {
            ("string", bytes(offsets.iter().map(|&o| o as i32)))
        } else {
            ("large_string", bytes(offsets.iter().map(|&o| o as i64)))
        }
    }
}

/// Numbers in Arrow's layout: native byte order.
fn bytes<T: NativeBytes>(values: impl Iterator<Item = T>) -> Vec<u8> {
    let mut out = Vec::new();
    for value in values {
        value.append_to(&mut out);
    }
    out
}

/// A number with a fixed-width native-order encoding.
trait NativeBytes {
    fn append_to(self, out: &mut Vec<u8>);
}

macro_rules! native_bytes {
    ($($t:ty),*) => {$(
        impl NativeBytes for $t {
            fn append_to(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}
native_bytes!(i32, i64, f64);

/// One column of a table.
pub enum Column {
    /// Strings.
    Strings(Strings),
    /// Values of bytes, built as strings are.
    Binary(Strings),
    /// 32-bit signed integers (or `u32` bits).
    I32(Vec<i32>),
    /// 64-bit signed integers (or `u64` bits).
    I64(Vec<i64>),
    /// 64-bit floats.
    F64(Vec<f64>),
    /// Lists: Arrow's `int32` offsets (one more than rows, from 0) into
    /// the values.
    List(Vec<i32>, Box<Column>),
}

impl Column {
    /// Its number of values.
    fn len(&self) -> usize {
        match self {
            Column::Strings(strings) | Column::Binary(strings) => {
                strings.offsets.len().saturating_sub(1)
            }
            Column::I32(values) => values.len(),
            Column::I64(values) => values.len(),
            Column::F64(values) => values.len(),
            Column::List(offsets, _) => offsets.len().saturating_sub(1),
        }
    }

    /// `(type, length, [buffers], [children])` for `_arrow.array`.
    fn to_python<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (kind, buffers, children): (&str, Vec<Cow<[u8]>>, Vec<Spec<'py>>) = match self {
            Column::Strings(strings) => {
                let (kind, offsets) = strings.offsets();
                let data = Cow::Borrowed(&strings.data[..]);
                (kind, vec![Cow::Owned(offsets), data], vec![])
            }
            Column::Binary(values) => {
                let (kind, offsets) = values.offsets();
                let kind = if kind == "string" {
                    "binary"
                } else {
                    "large_binary"
                };
                let data = Cow::Borrowed(&values.data[..]);
                (kind, vec![Cow::Owned(offsets), data], vec![])
            }
            Column::I32(values) => (
                "int32",
                vec![Cow::Owned(bytes(values.iter().copied()))],
                vec![],
            ),
            Column::I64(values) => (
                "int64",
                vec![Cow::Owned(bytes(values.iter().copied()))],
                vec![],
            ),
            Column::F64(values) => (
                "float64",
                vec![Cow::Owned(bytes(values.iter().copied()))],
                vec![],
            ),
            Column::List(offsets, values) => {
                let offsets: &[i32] = if offsets.is_empty() { &[0] } else { offsets };
                let buffers = vec![Cow::Owned(bytes(offsets.iter().copied()))];
                ("list", buffers, vec![values.to_python(py)?])
            }
        };
        let buffers: Vec<Bound<'py, PyBytes>> =
            buffers.iter().map(|b| PyBytes::new(py, b)).collect();
        (kind, self.len(), buffers, children).into_pyobject(py)
    }
}

/// A column for `_arrow.array`, as [`Column::to_python`] makes it.
type Spec<'py> = Bound<'py, PyTuple>;

/// A list column under construction: its offsets and values.
pub struct ListBuilder<T> {
    offsets: Vec<i32>,
    values: Vec<T>,
}

impl<T> Default for ListBuilder<T> {
    fn default() -> Self {
        ListBuilder {
            offsets: vec![0],
            values: Vec::new(),
        }
    }
}

impl<T: Copy> ListBuilder<T> {
    /// Appends one list.
    pub fn push(&mut self, values: impl IntoIterator<Item = T>) {
        self.values.extend(values);
        self.offsets.push(self.values.len() as i32);
    }

    /// The column, of values made by `column`.
    pub fn finish(self, column: fn(Vec<T>) -> Column) -> Column {
        Column::List(self.offsets, Box::new(column(self.values)))
    }
}

/// Named columns of equal length, in table order.
pub struct Table {
    /// Rows.
    pub rows: usize,
    /// Name and values of each column.
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    /// The table for `stemmata._arrow.table`: `(rows, [(name, column)])`,
    /// each column `(type, length, [buffers], [children])`, each buffer
    /// `bytes`.
    pub fn to_python<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let columns = PyList::empty(py);
        for (name, column) in &self.columns {
            columns.append((name, column.to_python(py)?))?;
        }
        (self.rows, columns).into_pyobject(py)
    }
}

/// The values of an Arrow buffer of fixed-width numbers handed in as
/// bytes; an error naming `what` when its length is not a multiple.
pub fn numbers<T: FromNative>(buffer: &[u8], what: &str) -> Result<Vec<T>, stemmata::Error> {
    if !buffer.len().is_multiple_of(T::WIDTH) {
        return Err(stemmata::Error::InvalidArgument(format!(
            "{what}: {} bytes is not a whole number of {}-byte values",
            buffer.len(),
            T::WIDTH
        )));
    }
    Ok(buffer.chunks_exact(T::WIDTH).map(T::from_native).collect())
}

/// Arrow offsets handed in (`int32`, one more than rows): checked to
/// ascend within `values` values.
pub fn offsets(buffer: &[u8], values: usize, what: &str) -> Result<Vec<usize>, stemmata::Error> {
    let raw: Vec<i32> = numbers(buffer, what)?;
    let bad = || stemmata::Error::InvalidArgument(format!("{what}: offsets out of order or range"));
    if raw.is_empty() {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(raw.len());
    for &offset in &raw {
        let offset = usize::try_from(offset).map_err(|_| bad())?;
        if offset > values || out.last().is_some_and(|&last| offset < last) {
            return Err(bad());
        }
        out.push(offset);
    }
    Ok(out)
}

/// A fixed-width number read from native-order bytes.
pub trait FromNative: Sized {
    /// Bytes of one value.
    const WIDTH: usize;
    /// The value of `bytes` (exactly `WIDTH` of them).
    fn from_native(bytes: &[u8]) -> Self;
}

macro_rules! from_native {
    ($($t:ty),*) => {$(
        impl FromNative for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            fn from_native(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$t>()];
                raw.copy_from_slice(bytes);
                <$t>::from_ne_bytes(raw)
            }
        }
    )*};
}
from_native!(i8, i32, i64, f64);
