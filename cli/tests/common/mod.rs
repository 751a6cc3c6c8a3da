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
