//! Loading documents: from a Python iterable of dicts or objects with
//! `key` and `text` (pulled a chunk at a time with the GIL, loaded without
//! it), or from a directory of text files or a JSON Lines file (read
//! without the GIL throughout), reporting progress as the loader goes.

use std::cell::RefCell;
use std::path::Path;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyIterator, PyString};
use stemmata::load::sources;
use stemmata::{BulkLoader, Document, Error, Index, LoadEvent, LoadOptions, LoadStats};

use crate::convert::text_bytes;
use crate::errors::Outcome;
use crate::progress::Reporter;

/// Documents pulled from Python at a time.
const CHUNK_DOCUMENTS: usize = 64;
/// Text bytes pulled from Python at a time.
const CHUNK_BYTES: usize = 16 << 20;

/// Where the documents of a load come from.
pub enum Source {
    /// A Python iterator, of `total` documents when known; progress counts
    /// books.
    Python {
        iterator: Py<PyIterator>,
        total: Option<u64>,
    },
    /// The text files under a directory; progress counts bytes.
    Directory(std::path::PathBuf),
    /// A JSON Lines file; progress counts bytes.
    JsonLines(std::path::PathBuf),
}

impl Source {
    /// The unit its progress counts.
    pub fn unit(&self) -> &'static str {
        match self {
            Source::Python { .. } => "books",
            Source::Directory(_) | Source::JsonLines(_) => "bytes",
        }
    }
}

/// Loads every document of `source` into `index` (call without the GIL).
/// A document the engine rejects is skipped and listed in the stats; an
/// exception of the iterator or of the progress callback stops the load
/// before its current batch commits.
pub fn run(
    index: &Index,
    options: LoadOptions,
    source: Source,
    mut reporter: Reporter,
) -> Outcome<LoadStats> {
    let input = match source {
        Source::Python { iterator, total } => {
            if let Some(total) = total {
                reporter.set_total(total);
            }
            Input::Python(iterator)
        }
        Source::Directory(dir) => Input::Files(directory(&dir, &mut reporter)?),
        Source::JsonLines(path) => Input::Files(json_lines(&path, &mut reporter)?),
    };
    let reporter = RefCell::new(reporter);
    let mut loader = index.bulk_loader(options)?;
    loader.on_progress(|event| count(&mut reporter.borrow_mut(), event));
    match input {
        Input::Python(iterator) => {
            if let Err(error) = feed_python(&mut loader, &iterator, &reporter) {
                // The whole batches of the documents before the failure
                // are committed, as the docstring promises.
                loader.stop()?;
                return Err(error);
            }
        }
        Input::Files(documents) => {
            loader.extend(documents.take_while(|_| !reporter.borrow().failed()))?
        }
    }
    if let Some(error) = reporter.borrow_mut().take_error() {
        loader.stop()?;
        return Err(error.into());
    }
    let stats = loader.finish()?;
    let mut reporter = reporter.into_inner();
    reporter.finish();
    match reporter.take_error() {
        Some(error) => Err(error.into()),
        None => Ok(stats),
    }
}

/// Documents read from files.
type Documents = Box<dyn Iterator<Item = stemmata::Result<Document>>>;

/// The documents of a source, ready to load.
enum Input {
    Python(Py<PyIterator>),
    Files(Documents),
}

/// The text files under `dir`, their bytes the progress's total;
/// `InvalidArgument` when there are none, as [`Index::load_dir`] says.
fn directory(dir: &Path, reporter: &mut Reporter) -> Outcome<Documents> {
    let paths = sources::text_file_paths(dir)?;
    if paths.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{}: no text file (.txt or .text) in this directory or below it",
            dir.display()
        ))
        .into());
    }
    let bytes = paths
        .iter()
        .filter_map(|path| std::fs::metadata(path).ok())
        .map(|metadata| metadata.len())
        .sum();
    reporter.set_total(bytes);
    Ok(Box::new(
        paths.into_iter().map(|path| sources::read_text_file(&path)),
    ))
}

/// The lines of a JSON Lines file, its bytes the progress's total.
fn json_lines(path: &Path, reporter: &mut Reporter) -> Outcome<Documents> {
    let documents = sources::json_lines(path)?;
    if let Ok(metadata) = std::fs::metadata(path) {
        reporter.set_total(metadata.len());
    }
    Ok(Box::new(documents))
}

/// Counts an added book (or its bytes) toward the progress.
fn count(reporter: &mut Reporter, event: &LoadEvent<'_>) {
    if let LoadEvent::Added { bytes, .. } = event {
        let amount = if reporter.what() == "bytes" {
            *bytes
        } else {
            1
        };
        reporter.advance(amount);
    }
}

fn feed_python(
    loader: &mut BulkLoader<'_>,
    iterator: &Py<PyIterator>,
    reporter: &RefCell<Reporter>,
) -> Outcome<()> {
    let mut place = 0;
    loop {
        let (chunk, failed) = Python::attach(|py| pull(iterator.bind(py), &mut place));
        let end = chunk.is_empty();
        for document in chunk {
            loader.add(document)?;
        }
        if let Some(error) = failed {
            return Err(error.into());
        }
        if end || reporter.borrow().failed() {
            return Ok(());
        }
    }
}

/// The next documents of `iterator`, up to [`CHUNK_DOCUMENTS`] or
/// [`CHUNK_BYTES`]; none at its end. `place` counts documents from 0. An
/// exception (of the iterator, or an item that is no document) ends the
/// chunk: the documents before it come with it.
fn pull(iterator: &Bound<'_, PyIterator>, place: &mut u64) -> (Vec<Document>, Option<PyErr>) {
    let mut chunk = Vec::new();
    let mut bytes = 0;
    while chunk.len() < CHUNK_DOCUMENTS && bytes < CHUNK_BYTES {
        let Some(item) = iterator.clone().next() else {
            break;
        };
        match item.and_then(|item| document(&item, *place)) {
            Ok(document) => {
                *place += 1;
                bytes += document.text.len();
                chunk.push(document);
            }
            Err(error) => return (chunk, Some(error)),
        }
    }
    (chunk, None)
}

/// The document of one item: a mapping or an object with `key` and `text`
/// and optional `title`, `author` and `language` (`None` for none).
pub fn document(item: &Bound<'_, PyAny>, place: u64) -> PyResult<Document> {
    let name = |field: &str| format!("document {place}: {field:?}");
    let key = field(item, "key")?
        .ok_or_else(|| PyTypeError::new_err(format!("{} is missing", name("key"))))?;
    let key = string(&key, || name("key"))?;
    let text = field(item, "text")?
        .ok_or_else(|| PyTypeError::new_err(format!("{} is missing", name("text"))))?;
    let text = text_bytes(&text, &name("text"))?;
    let optional = |field_name: &str| -> PyResult<String> {
        match field(item, field_name)? {
            Some(value) => string(&value, || name(field_name)),
            None => Ok(String::new()),
        }
    };
    Ok(Document::new(key, text)
        .with_title(optional("title")?)
        .with_author(optional("author")?)
        .with_language(optional("language")?))
}

/// `value` as a string; a `TypeError` naming it when it is not a `str`.
fn string(value: &Bound<'_, PyAny>, name: impl Fn() -> String) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!("{} must be a str", name()))),
    }
}

/// The field `name` of a mapping (its item) or another object (its
/// attribute); `None` when missing or `None`.
fn field<'py>(item: &Bound<'py, PyAny>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let value = match item.cast::<PyDict>() {
        Ok(dict) => dict.get_item(name)?,
        Err(_) if item.hasattr(name)? => Some(item.getattr(name)?),
        Err(_) => None,
    };
    Ok(value.filter(|v| !v.is_none()))
}
