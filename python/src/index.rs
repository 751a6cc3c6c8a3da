//! `NativeIndex`: one open index directory — opening and creating it,
//! loading documents, adding scanned books' word images, its reader and
//! word-image search, stats and verification.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use stemmata::{Index, LoadOptions};

use crate::convert::{json, to_python};
use crate::errors::{detached, exception};
use crate::images::{self, NativeWordImages};
use crate::load::{self, Source};
use crate::options;
use crate::progress::Reporter;
use crate::reader::NativeReader;

/// An open index (the package's `stemmata.Index` wraps it).
#[pyclass(frozen, module = "stemmata._stemmata")]
pub struct NativeIndex {
    /// `None` once closed.
    index: Mutex<Option<Index>>,
}

impl NativeIndex {
    fn new(index: Index) -> Self {
        NativeIndex {
            index: Mutex::new(Some(index)),
        }
    }

    /// The index, unless closed (a handle sharing it: the work goes on
    /// even if it is closed meanwhile).
    fn index(&self, py: Python<'_>) -> PyResult<Index> {
        let index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        index
            .clone()
            .ok_or_else(|| exception(py, "StemmataError", "the index is closed"))
    }

    fn open_with(
        py: Python<'_>,
        path: PathBuf,
        open: impl FnOnce(PathBuf) -> stemmata::Result<Index> + Send,
    ) -> PyResult<Self> {
        detached(py, || Ok(open(path)?)).map(NativeIndex::new)
    }

    fn load<'py>(
        &self,
        py: Python<'py>,
        source: Source,
        progress: Option<Py<PyAny>>,
        threads: Option<usize>,
        batch_books: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let index = self.index(py)?;
        let reporter = Reporter::new(progress, source.unit());
        let stats = detached(py, || {
            let options = LoadOptions::default()
                .threads(options::threads(threads)?)
                .batch_books(batch_books);
            let stats = load::run(&index, options, source, reporter)?;
            Ok(json(&stats)?)
        })?;
        to_python(py, &stats)
    }
}

#[pymethods]
impl NativeIndex {
    /// Creates an index in `path`, a missing or empty directory, with the
    /// feature options of the JSON `options` (`docs/batch-format.md`), or
    /// the defaults.
    #[staticmethod]
    #[pyo3(signature = (path, options = None))]
    fn create(py: Python<'_>, path: PathBuf, options: Option<&str>) -> PyResult<Self> {
        let options: stemmata::batch::FeatureOptions = match options {
            None => Default::default(),
            Some(json) => serde_json::from_str(json).map_err(|e| {
                crate::errors::Failure::from(stemmata::Error::InvalidArgument(format!(
                    "feature options: {e}"
                )))
            })?,
        };
        NativeIndex::open_with(py, path, move |dir| {
            Index::builder().feature_options(options).create(dir)
        })
    }

    /// Opens the index in `path`, for reading and writing or read-only.
    #[staticmethod]
    #[pyo3(signature = (path, *, read_only = false))]
    fn open(py: Python<'_>, path: PathBuf, read_only: bool) -> PyResult<Self> {
        if read_only {
            NativeIndex::open_with(py, path, Index::open_read_only)
        } else {
            NativeIndex::open_with(py, path, Index::open)
        }
    }

    /// Opens the index in `path`, creating it when the directory holds none.
    #[staticmethod]
    fn open_or_create(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        NativeIndex::open_with(py, path, Index::open_or_create)
    }

    /// The index directory.
    #[getter]
    fn path(&self, py: Python<'_>) -> PyResult<PathBuf> {
        Ok(self.index(py)?.dir().to_path_buf())
    }

    /// Whether the index is open read-only: opened so, or of an older
    /// format, which opens read-only until upgraded.
    #[getter]
    fn read_only(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.index(py)?.is_read_only())
    }

    /// The storage format version of the index.
    #[getter]
    fn format_version(&self, py: Python<'_>) -> PyResult<u16> {
        Ok(self.index(py)?.format_version())
    }

    /// The options its books' features are computed with, as the JSON of
    /// `docs/batch-format.md` (`stemmata.options`).
    #[getter]
    fn feature_options(&self, py: Python<'_>) -> PyResult<String> {
        let index = self.index(py)?;
        let json = index.feature_options().and_then(|options| {
            serde_json::to_string(&options)
                .map_err(|e| stemmata::Error::InvalidArgument(e.to_string()))
        });
        Ok(json.map_err(crate::errors::Failure::from)?)
    }

    /// Loads the documents of an iterable (`total` of them, when known);
    /// returns the load stats as a dict.
    #[pyo3(signature = (documents, *, total = None, progress = None, threads = None, batch_books = 1000))]
    fn load_documents<'py>(
        &self,
        py: Python<'py>,
        documents: &Bound<'py, PyAny>,
        total: Option<u64>,
        progress: Option<Py<PyAny>>,
        threads: Option<usize>,
        batch_books: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let iterator = documents.try_iter()?.unbind();
        let source = Source::Python { iterator, total };
        self.load(py, source, progress, threads, batch_books)
    }

    /// Loads the text files under a directory; returns the load stats.
    #[pyo3(signature = (path, *, progress = None, threads = None, batch_books = 1000))]
    fn load_dir<'py>(
        &self,
        py: Python<'py>,
        path: PathBuf,
        progress: Option<Py<PyAny>>,
        threads: Option<usize>,
        batch_books: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.load(py, Source::Directory(path), progress, threads, batch_books)
    }

    /// Loads the documents of a JSON Lines file; returns the load stats.
    #[pyo3(signature = (path, *, progress = None, threads = None, batch_books = 1000))]
    fn load_jsonl<'py>(
        &self,
        py: Python<'py>,
        path: PathBuf,
        progress: Option<Py<PyAny>>,
        threads: Option<usize>,
        batch_books: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.load(py, Source::JsonLines(path), progress, threads, batch_books)
    }

    /// Deletes the books stored under `keys`; returns how many existed.
    fn delete(&self, py: Python<'_>, keys: Vec<String>) -> PyResult<u64> {
        let index = self.index(py)?;
        detached(py, || {
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            Ok(index.delete(&keys)?)
        })
    }

    /// A snapshot of the index for queries.
    fn reader(&self, py: Python<'_>) -> PyResult<NativeReader> {
        let index = self.index(py)?;
        detached(py, || Ok(NativeReader::new(index.reader()?)))
    }

    /// Adds a scanned book's pages under `key` (page images, or
    /// directories of them, each with its hOCR or ALTO beside it); the
    /// word-image model is learned again while it was learned from fewer
    /// than `learn_from` word images, else kept; a book of at least
    /// `learn_alone` word images, added beside another, is described by a
    /// vocabulary of its own and scored by a model learned from its own
    /// alone. Returns the book's entry as a dict.
    #[pyo3(signature = (key, pages, *, learning = "intersection", branching = None, learn_from = None, learn_alone = None, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn add_word_images<'py>(
        &self,
        py: Python<'py>,
        key: String,
        pages: Vec<PathBuf>,
        learning: &str,
        branching: Option<usize>,
        learn_from: Option<u64>,
        learn_alone: Option<u64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let index = self.index(py)?;
        let reporter = Reporter::new(progress, "pages");
        let learn = images::Learn {
            learning,
            branching,
            learn_from,
            learn_alone,
        };
        let info = detached(py, || images::add(&index, &key, &pages, &learn, reporter))?;
        to_python(py, &info)
    }

    /// Learns the word-image model again from every book and recomputes
    /// every row, a book of at least `learn_alone` word images (the add's
    /// default when `None`) by a model of its own; returns the model as a
    /// dict.
    #[pyo3(signature = (*, learn_alone = None))]
    fn relearn_word_images<'py>(
        &self,
        py: Python<'py>,
        learn_alone: Option<u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let index = self.index(py)?;
        let model = detached(py, || images::relearn(&index, learn_alone))?;
        to_python(py, &model)
    }

    /// The books of word images, in key order, as dicts.
    fn image_books<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let index = self.index(py)?;
        let books = detached(py, || Ok(json(&index.image_books()?)?))?;
        to_python(py, &books)
    }

    /// The index's word images opened for queries; `None` when it has none.
    fn word_images(&self, py: Python<'_>) -> PyResult<Option<NativeWordImages>> {
        let index = self.index(py)?;
        detached(py, || Ok(index.word_images()?.map(NativeWordImages::new)))
    }

    /// Counts of books, words and bytes, as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let index = self.index(py)?;
        let stats = detached(py, || Ok(json(&index.stats()?)?))?;
        to_python(py, &stats)
    }

    /// Checks every checksum and catalog entry; returns what was checked.
    fn verify<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let index = self.index(py)?;
        let stats = detached(py, || Ok(json(&index.verify()?)?))?;
        to_python(py, &stats)
    }

    /// Closes the index: later calls raise; readers already made go on.
    fn close(&self) {
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        *index = None;
    }
}
