//! Table columns built in Rust and handed to pyarrow as buffers (the
//! package's `_arrow.py` wraps them with `pyarrow.Array.from_buffers`):
//! no Python object per row.

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
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.data.extend_from_slice(s.as_bytes());
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
native_bytes!(i32, i64, u32, f64);

/// One column of a table.
pub enum Column {
    /// Strings.
    Strings(Strings),
    /// 32-bit unsigned integers.
    U32(Vec<u32>),
    /// 64-bit floats.
    F64(Vec<f64>),
}

/// Named columns of equal length, in table order.
pub struct Table {
    /// Rows.
    pub rows: usize,
    /// Name and values of each column.
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    /// The table for `stemmata._arrow.table`: `(rows, [(name, type,
    /// [buffers])])`, each buffer `bytes`.
    pub fn to_python<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let columns = PyList::empty(py);
        for (name, column) in &self.columns {
            let (kind, buffers) = match column {
                Column::Strings(strings) => {
                    let (kind, offsets) = strings.offsets();
                    (
                        kind,
                        vec![Cow::Owned(offsets), Cow::Borrowed(&strings.data[..])],
                    )
                }
                Column::U32(values) => ("uint32", vec![Cow::Owned(bytes(values.iter().copied()))]),
                Column::F64(values) => ("float64", vec![Cow::Owned(bytes(values.iter().copied()))]),
            };
            let buffers: Vec<Bound<'py, PyBytes>> =
                buffers.iter().map(|b| PyBytes::new(py, b)).collect();
            columns.append((name, kind, buffers))?;
        }
        (self.rows, columns).into_pyobject(py)
    }
}
