//! Helpers of the command line's integration tests: the shared helpers of
//! the repository's `tests/common` and the `stemmata` binary.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

pub mod chromium;

#[path = "../../../tests/common/mod.rs"]
mod shared;

#[allow(unused_imports)]
pub use shared::*;

/// The `stemmata` binary, ready for arguments.
pub fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stemmata"))
}

/// Writes `NAME.index` and `NAME.dict.dz` in `dir`; returns the index path.
/// Writes a dictionary `name` in dictd files into `dir` whose headwords
/// are `from(i)` for each i of `words`, each translated by `to(i)`;
/// returns the path of its `.index`.
pub fn write_word_dictionary(
    dir: &Path,
    name: &str,
    words: std::ops::Range<u32>,
    from: impl Fn(u32) -> String,
    to: impl Fn(u32) -> String,
) -> PathBuf {
    let entries: Vec<(String, String)> = words
        .map(|i| (from(i), format!("{}\n{}\n", from(i), to(i))))
        .collect();
    let entries: Vec<(&str, &str)> = entries
        .iter()
        .map(|(h, t)| (h.as_str(), t.as_str()))
        .collect();
    write_dictd(dir, name, &entries)
}

pub fn write_dictd(dir: &Path, name: &str, entries: &[(&str, &str)]) -> PathBuf {
    let (index, dict) = stemmata_synth::dictd::files(entries);
    let path = dir.join(format!("{name}.index"));
    std::fs::write(&path, index).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(dict.as_bytes()).unwrap();
    std::fs::write(dir.join(format!("{name}.dict.dz")), gz.finish().unwrap()).unwrap();
    path
}

/// Runs the `stemmata` binary in `dir` with `args`; panics with its
/// standard error unless it succeeds; returns its standard output.
pub fn run_ok(args: &[&str], dir: &Path) -> String {
    let output = run(cli().args(args).current_dir(dir));
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    String::from_utf8(output.stdout).unwrap()
}
