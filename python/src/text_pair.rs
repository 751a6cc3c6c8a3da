//! Two texts compared in full, outside any index: their RETAS alignment
//! (`stemmata align --json`) and the OCR accuracy of one against the other
//! (`stemmata ocr-accuracy --json`).

use std::time::Instant;

use pyo3::prelude::*;
use serde_json::Value;
use stemmata::align::{self, Alignment, RetasOptions};
use stemmata::relate::{
    classify_books, classify_map, MapBook, MapOptions, OwnedPagedBook, PageOptions, PortionMap,
    Relation,
};

use crate::convert::{json, readable_text, text_bytes, to_python};
use crate::errors::{detached, Outcome};

/// Aligns text `a` with text `b` (each `str` or `bytes`); returns the
/// alignment's counts and stats as a dict, with its spans when `spans` and
/// the pair's relation when `relations`.
#[pyfunction]
#[pyo3(name = "align", signature = (a, b, *, spans = false, relations = false))]
pub fn align_pair<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    spans: bool,
    relations: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (a, b) = (text_bytes(a, "a")?, text_bytes(b, "b")?);
    let value = detached(py, || {
        let (a, b) = (readable_text("text a", &a)?, readable_text("text b", &b)?);
        let started = Instant::now();
        let alignment = align::align_texts(&a, &b, &RetasOptions::default())?;
        let seconds = started.elapsed().as_secs_f64();
        let relation = relations
            .then(|| relation(&a, &b, &alignment))
            .transpose()?;
        alignment_json(seconds, relation.as_ref(), &alignment, spans)
    })?;
    to_python(py, &value)
}

/// The alignment as `stemmata align --json` prints it (the texts' paths
/// aside), its spans left out unless `spans`.
fn alignment_json(
    seconds: f64,
    relation: Option<&Relation>,
    alignment: &Alignment,
    spans: bool,
) -> Outcome<Value> {
    let mut value = serde_json::json!({ "seconds": seconds });
    if let Some(relation) = relation {
        value["relation"] = json(relation)?;
    }
    if let (Some(fields), Value::Object(mut aligned)) = (value.as_object_mut(), json(alignment)?) {
        if !spans {
            aligned.remove("spans");
        }
        fields.extend(aligned);
    }
    Ok(value)
}

/// The pair's relation: from page signals when both texts have pages
/// (form feeds), else from the portion map of the alignment.
fn relation(a: &str, b: &str, alignment: &Alignment) -> stemmata::Result<Relation> {
    let (a, b) = (OwnedPagedBook::of_text(a), OwnedPagedBook::of_text(b));
    classify_books(&a.view(), &b.view(), &PageOptions::default(), || {
        let map = PortionMap::build(
            MapBook::full_text(alignment.words_a),
            MapBook::full_text(alignment.words_b),
            alignment.word_range_pairs(),
            &MapOptions::default(),
        )?;
        Ok(classify_map(&map))
    })
}

/// Measures the character, word and stop-word accuracy of the text `ocr`
/// against its clean copy `clean` (each `str` or `bytes`); returns a dict.
#[pyfunction]
pub fn ocr_accuracy<'py>(
    py: Python<'py>,
    clean: &Bound<'py, PyAny>,
    ocr: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let (clean, ocr) = (text_bytes(clean, "clean")?, text_bytes(ocr, "ocr")?);
    let value = detached(py, || {
        let clean = readable_text("clean text", &clean)?;
        let ocr = readable_text("ocr text", &ocr)?;
        let measured = align::ocr_accuracy(&clean, &ocr, &RetasOptions::default())?;
        Ok(json(&measured)?)
    })?;
    to_python(py, &value)
}
