//! Helpers of the command line's integration tests: the shared helpers of
//! the repository's `tests/common` and the `stemmata` binary.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../tests/common/mod.rs"]
mod shared;

#[allow(unused_imports)]
pub use shared::*;

/// The `stemmata` binary, ready for arguments.
pub fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stemmata"))
}

/// dictd base64 of `n`.
fn b64(mut n: usize) -> String {
    const D: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = vec![];
    loop {
        out.push(D[n % 64]);
        n /= 64;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap()
}

/// Writes `NAME.index` and `NAME.dict.dz` in `dir`; returns the index path.
pub fn write_dictd(dir: &Path, name: &str, entries: &[(&str, &str)]) -> PathBuf {
    let mut index = String::new();
    let mut dict = String::new();
    for (head, text) in entries {
        index.push_str(&format!(
            "{head}\t{}\t{}\n",
            b64(dict.len()),
            b64(text.len())
        ));
        dict.push_str(text);
    }
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
