//! `stemmata._stemmata`, the native half of the Python package `stemmata`:
//! the engine's index, reader, word-image search and text-pair functions
//! and the batch kernels on Arrow columns, each run with the GIL released.
//! It owns the crossing between Rust and Python: reading documents,
//! options and Arrow buffers from Python objects, turning the engine's
//! results into dictionaries and column buffers, and its errors and panics
//! into exceptions. The package's Python half (`python/stemmata/`) wraps it in
//! records, pyarrow tables, progress adapters and the exception classes.

#![deny(unsafe_code)]

mod batch;
mod columns;
mod convert;
mod errors;
mod images;
mod index;
mod load;
mod options;
mod progress;
mod reader;
mod text_pair;

use pyo3::prelude::*;

/// The native module `stemmata._stemmata`; use the package `stemmata`.
#[pymodule]
fn _stemmata(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<index::NativeIndex>()?;
    module.add_class::<reader::NativeReader>()?;
    module.add_class::<images::NativeWordImages>()?;
    module.add_function(wrap_pyfunction!(text_pair::align_pair, module)?)?;
    module.add_function(wrap_pyfunction!(text_pair::ocr_accuracy, module)?)?;
    for kernel in [
        wrap_pyfunction!(batch::features_of_json_lines, module)?,
        wrap_pyfunction!(batch::features_of_documents, module)?,
        wrap_pyfunction!(batch::caps, module)?,
        wrap_pyfunction!(batch::sample_entries_of, module)?,
        wrap_pyfunction!(batch::sample_match_runs_of, module)?,
        wrap_pyfunction!(batch::key_pair_runs_of, module)?,
        wrap_pyfunction!(batch::candidates_of_runs, module)?,
        wrap_pyfunction!(batch::verify_pairs, module)?,
        wrap_pyfunction!(batch::clusters_of, module)?,
        wrap_pyfunction!(batch::key_columns, module)?,
        wrap_pyfunction!(batch::match_columns, module)?,
    ] {
        module.add_function(kernel)?;
    }
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
