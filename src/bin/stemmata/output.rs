//! Shared output helpers: progress bars, JSON printing and TSV escaping.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::path::{Path, PathBuf};

use stemmata::{Error, Index};

/// A progress bar on stderr, hidden when `quiet` or when stderr is not a terminal.
pub fn bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if quiet {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:>10} [{bar:30}] {pos}/{len} ({per_sec}, eta {eta}) {wide_msg}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Prints `value` as one line of JSON on stdout.
pub fn print_json(value: &impl serde::Serialize) -> stemmata::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)
        .map_err(|e| stemmata::Error::InvalidArgument(format!("cannot write JSON: {e}")))?;
    writeln!(out).map_err(|source| stemmata::Error::Io {
        path: "<stdout>".into(),
        source,
    })
}

/// A fresh temporary directory.
pub fn temp_dir() -> stemmata::Result<tempfile::TempDir> {
    tempfile::tempdir().map_err(|source| Error::Io {
        path: std::env::temp_dir(),
        source,
    })
}

/// A new index in `dir`, or in a temporary directory that lives as long as
/// the returned guard.
pub fn new_index(
    dir: Option<&Path>,
) -> stemmata::Result<(Index, PathBuf, Option<tempfile::TempDir>)> {
    let temp = match dir {
        Some(_) => None,
        None => Some(temp_dir()?),
    };
    let path = match (dir, &temp) {
        (Some(dir), _) => dir.to_path_buf(),
        (None, Some(temp)) => temp.path().join("index"),
        (None, None) => unreachable!("a temporary directory was made above"),
    };
    Ok((Index::create(&path)?, path, temp))
}

/// `field` for one TSV or text column: a backslash, tab, newline and
/// carriage return become `\\`, `\t`, `\n`, `\r`, any other control
/// character `\u{..}` (its code point in hex), so a key or title never
/// breaks a line or a column, whatever an index holds.
pub fn tsv_field(field: &str) -> std::borrow::Cow<'_, str> {
    if !field.chars().any(|c| c == '\\' || c.is_control()) {
        return std::borrow::Cow::Borrowed(field);
    }
    let mut out = String::with_capacity(field.len() + 8);
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_fields_escape_backslashes_and_control_characters() {
        assert!(matches!(
            tsv_field("plain key é"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(tsv_field("a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
        assert_eq!(tsv_field("\0\u{7f}\u{85}"), "\\u{0}\\u{7f}\\u{85}");
    }
}
