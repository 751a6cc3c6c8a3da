//! Word images of scanned books from Python: adding a book's page images
//! with their OCR ([`add`]), and `NativeWordImages`, the open search over
//! every book's word images that `spot` ranks for a text word.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use stemmata::images::learn::LearnOptions;
use stemmata::images::model::Learning;
use stemmata::images::pages::PageFiles;
use stemmata::images::spot::SpotOptions;
use stemmata::{Error, ImagesProgress, Index, WordImageSearch};

use crate::convert::{json, to_python};
use crate::errors::{detached, Failure, Outcome};
use crate::progress::Reporter;

/// How the index's word-image model and vocabulary are learnt (both set by
/// its first book).
pub struct Learn<'a> {
    /// "union" or "intersection".
    pub learning: &'a str,
    /// Branching of the vocabulary's two levels; `None` for the default.
    pub branching: Option<usize>,
    /// The add learns the model again while it was learned from fewer word
    /// images; `None` for the default.
    pub learn_from: Option<u64>,
    /// A book of at least this many word images is scored by a model
    /// learned from its own alone; `None` for the default.
    pub learn_alone: Option<u64>,
}

/// Adds the pages `paths` (page images, or directories of them, each with
/// its hOCR or ALTO beside it) as the book `key`; returns the book's entry
/// as JSON. The reporter counts pages read; the steps after them
/// (vocabulary, model, writing) report no amount.
pub fn add(
    index: &Index,
    key: &str,
    paths: &[PathBuf],
    learn: &Learn<'_>,
    reporter: Reporter,
) -> Outcome<serde_json::Value> {
    let mut options = LearnOptions::default();
    if let Some(branching) = learn.branching {
        options.branching = branching;
    }
    if let Some(learn_from) = learn.learn_from {
        options.learn_from = learn_from;
    }
    if let Some(learn_alone) = learn.learn_alone {
        options.learn_alone = learn_alone;
    }
    options.model.learning = match learn.learning {
        "union" => Learning::Union,
        "intersection" => Learning::Intersection,
        other => {
            return Err(Error::InvalidArgument(format!(
                "learning {other:?}: use \"union\" or \"intersection\""
            ))
            .into())
        }
    };
    let pages = PageFiles::of_paths(paths)?;
    let reporter = Mutex::new(reporter);
    reporter
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .set_total(pages.len() as u64);
    let added = index.add_word_images(key, &pages, &options, &|event| {
        if let ImagesProgress::Pages { done, .. } = event {
            let mut reporter = reporter.lock().unwrap_or_else(|e| e.into_inner());
            reporter.set_done(done as u64);
        }
    });
    let mut reporter = reporter.into_inner().unwrap_or_else(|e| e.into_inner());
    let info = added?;
    reporter.finish();
    if let Some(error) = reporter.take_error() {
        return Err(error.into());
    }
    Ok(json(&info)?)
}

/// Learns the index's word-image model again from every book and
/// recomputes every row, a book of at least `learn_alone` word images (an
/// add's default when `None`) by a model of its own; returns the model as
/// JSON.
pub fn relearn(index: &Index, learn_alone: Option<u64>) -> Outcome<serde_json::Value> {
    let learn_alone = learn_alone.unwrap_or(LearnOptions::default().learn_alone);
    let (model, _warnings) = index.relearn_word_images(learn_alone, &|_| {})?;
    Ok(json(&model)?)
}

/// The word images of an index, open for queries (the package's
/// `stemmata.WordImages` wraps it).
#[pyclass(frozen, module = "stemmata._stemmata")]
pub struct NativeWordImages {
    search: WordImageSearch,
}

impl NativeWordImages {
    /// The search `search` of an index's word images.
    pub fn new(search: WordImageSearch) -> Self {
        NativeWordImages { search }
    }
}

#[pymethods]
impl NativeWordImages {
    /// The `k` word images that best match the text `word` (all when `k`
    /// is 0), best first, as dicts: book key, page, page file, box, OCR
    /// word (empty for a word found from the ink alone, where the OCR
    /// boxed none) and scores. `ocr_weight` (0 to 1) is the share of the OCR
    /// word's similarity in the score; the rest is the images'.
    /// `width_weight` (0 or more) weighs how far an image's width lies
    /// from the word's expected width. With `ignore_case`, the word
    /// matches whatever the case of its letters.
    #[pyo3(signature = (word, *, k = 20, ocr_weight = None, width_weight = None, ignore_case = false))]
    fn spot<'py>(
        &self,
        py: Python<'py>,
        word: String,
        k: usize,
        ocr_weight: Option<f64>,
        width_weight: Option<f64>,
        ignore_case: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let invalid = |error: String| PyErr::from(Failure::from(Error::InvalidArgument(error)));
        let options = match ocr_weight {
            None => SpotOptions::default(),
            Some(weight) => SpotOptions::with_ocr_weight(weight)
                .ok_or_else(|| invalid(format!("ocr_weight {weight} outside 0..=1")))?,
        };
        let options = match width_weight {
            None => options,
            Some(weight) => options.with_width_weight(weight).ok_or_else(|| {
                invalid(format!(
                    "width_weight {weight} is not a number of 0 or more"
                ))
            })?,
        };
        let options = SpotOptions {
            ignore_case,
            ..options
        };
        let hits = detached(py, || Ok(json(&self.search.spot(&word, &options, k)?)?))?;
        to_python(py, &hits)
    }

    /// Word images searched.
    fn __len__(&self) -> usize {
        self.search.images()
    }

    /// Books of word images searched.
    #[getter]
    fn books(&self) -> usize {
        self.search.books()
    }
}
