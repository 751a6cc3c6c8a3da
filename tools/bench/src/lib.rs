//! Measurements of the engine behind the `stemmata bench` command: what is
//! timed and against which baseline. The command line parses the arguments
//! and prints the figures.
//!
//! [`speed`] measures on a labelled corpus and a generated collection:
//! pair verification against the naive DP LCS, all-pairs with pruning
//! against aligning every pair, ingest per core and top-10 query latency
//! against a brute-force scan. [`translations`] measures translation
//! search on a generated collection in two languages against aligning
//! every cross-language pair. [`images`] measures word-image search: query
//! latency over an index's word images and page description per core.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod images;
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

/// User and system CPU time of this process so far, from
/// `/proc/self/stat` (fields 14 and 15, in Linux's fixed 100 ticks a
/// second); `None` where it cannot be read.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let after_name = &stat[stat.rfind(')')? + 2..];
    let mut fields = after_name.split(' ').skip(11);
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    Some((user + system) / 100.0)
}
