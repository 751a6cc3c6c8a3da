//! Measurements of the engine behind the `stemmata bench` command: what is
//! timed and against which baseline. The command line parses the arguments
//! and prints the figures.
//!
//! [`speed`] measures on a labelled corpus and a generated collection:
//! pair verification against the naive DP LCS, all-pairs with pruning
//! against aligning every pair, ingest per core and top-10 query latency
//! against a brute-force scan. [`translations`] measures translation
//! search on a generated collection in two languages against aligning
//! every cross-language pair.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod speed;
pub mod translations;

use stemmata::{Error, Result};

/// A fresh temporary directory.
fn temp_dir() -> Result<tempfile::TempDir> {
    tempfile::tempdir().map_err(|source| Error::Io {
        path: std::env::temp_dir(),
        source,
    })
}
