//! The engine's results as Python values: anything the engine serialises
//! (its JSON output, as the command line prints it) becomes the same
//! structure of dicts, lists, strings and numbers; and the text arguments,
//! `str` or `bytes`, become bytes.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use serde_json::Value;

/// `value` as its JSON value, made without the GIL.
pub fn json(value: &impl serde::Serialize) -> Result<Value, stemmata::Error> {
    serde_json::to_value(value)
        .map_err(|e| stemmata::Error::InvalidArgument(format!("cannot convert a result: {e}")))
}

/// A JSON value as a Python value: objects become dicts (in the JSON's
/// field order), arrays lists, integers ints and other numbers floats.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            (None, None) => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(fields) => {
            let dict = PyDict::new(py);
            for (name, field) in fields {
                dict.set_item(name, to_python(py, field)?)?;
            }
            dict.into_any()
        }
    })
}

/// A text given as `str` (stored as UTF-8) or `bytes` (any encoding the
/// engine reads: UTF-8, UTF-16 with a byte-order mark, windows-1252).
pub fn text_bytes(text: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(s) = text.cast::<PyString>() {
        Ok(s.to_cow()?.as_bytes().to_vec())
    } else if let Ok(b) = text.cast::<PyBytes>() {
        Ok(b.as_bytes().to_vec())
    } else {
        Err(PyTypeError::new_err(format!(
            "{what} must be str or bytes, not {}",
            text.get_type().name()?
        )))
    }
}

/// The decoded text of `bytes`, named `name` in errors; `BadDocument`
/// when the loader would refuse it: empty, binary data, or no words.
pub fn readable_text(name: &str, bytes: &[u8]) -> Result<String, stemmata::Error> {
    use stemmata::text::{decode, no_words_reason, tokenise, unreadable};
    let bad = |reason: String| stemmata::Error::BadDocument {
        source_name: name.to_string(),
        reason,
    };
    if let Some(reason) = unreadable(bytes) {
        return Err(bad(reason.to_string()));
    }
    let text = decode(bytes).text.into_owned();
    let stats = tokenise(&text, |_| {});
    if stats.words == 0 {
        return Err(bad(no_words_reason(&stats)));
    }
    Ok(text)
}
