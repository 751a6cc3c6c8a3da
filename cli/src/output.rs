//! Shared output helpers: progress bars, JSON printing, load summaries,
//! TSV escaping, relation labels and the check that an output file is not
//! inside the index.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::Write;
use std::path::{Path, PathBuf};

use stemmata::relate::{Relation, Side};
use stemmata::{Error, Index};

/// Prints what a load or an import did: its warnings on stderr, then its
/// stats as JSON when `json`, else the line `summary` and, when it added
/// books, the id they start at.
pub fn print_load_outcome(
    stats: &stemmata::LoadStats,
    json: bool,
    summary: &str,
) -> stemmata::Result<()> {
    for warning in &stats.warnings {
        eprintln!("warning: {warning}");
    }
    if json {
        return print_json(stats);
    }
    match stats.first_id {
        Some(id) => outln!(
            "{summary}; first id {id} (`stemmata pairs --from-id {id}` joins them with the rest)"
        )?,
        None => outln!("{summary}")?,
    }
    Ok(())
}

/// A progress bar on stderr, hidden when `quiet` or when stderr is not a terminal.
pub fn bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if quiet {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:>10} [{bar:30}] {pos}/{len} ({rate}, eta {eta}) {wide_msg}",
        )
        .expect("valid template")
        .with_key(
            "rate",
            |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = out.write_str(&crate::messages::rate(state.per_sec()));
            },
        )
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// The error of a failed write to standard output.
pub fn stdout_error(source: std::io::Error) -> Error {
    Error::Io {
        path: "<stdout>".into(),
        source,
    }
}

/// Whether `error` is a failed write to standard output.
pub fn is_stdout_error(error: &Error) -> bool {
    matches!(error, Error::Io { path, .. } if path.as_os_str() == "<stdout>")
}

/// Writes `args` to standard output (the `out!` and `outln!` macros).
pub fn write_stdout(args: std::fmt::Arguments) -> stemmata::Result<()> {
    std::io::stdout()
        .lock()
        .write_fmt(args)
        .map_err(stdout_error)
}

/// Prints `value` as one line of JSON on stdout.
pub fn print_json(value: &impl serde::Serialize) -> stemmata::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)
        .map_err(|e| stemmata::Error::InvalidArgument(format!("cannot write JSON: {e}")))?;
    writeln!(out).map_err(stdout_error)
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

pub use stemmata::keys::tsv_field;

/// Refuses an output file `path` inside the index directory `index`: a
/// command that reads an index must not overwrite it. Compares canonical
/// directories: the nearest existing ancestor of the path's parent (which
/// may not exist yet) with the rest of the path appended, and, when `path`
/// is a symlink, where it points.
pub fn refuse_inside_index(path: &Path, index: &Path) -> stemmata::Result<()> {
    // No directory there, no index to protect: opening it will say so.
    let Ok(index_dir) = index.canonicalize() else {
        return Ok(());
    };
    let resolved = resolve(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if resolved.starts_with(&index_dir) {
        return Err(Error::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "is inside the index {}; write the output elsewhere",
                    index.display()
                ),
            ),
        });
    }
    Ok(())
}

/// Where writing to `path` would write: symlinks followed (a dangling one
/// to where its target would be created), the parent directory made
/// canonical from its nearest existing ancestor.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = std::path::absolute(path)?;
    // Symlinks to symlinks, at most as deep as the kernel follows.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(parent) => parent.join(target),
                    None => target,
                };
            }
            _ => break,
        }
    }
    let mut existing = path.as_path();
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(canonical) => {
                return Ok(rest.iter().rev().fold(canonical, |p, part| p.join(part)));
            }
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    existing = parent;
                }
                // `..` or the root: compare the path as it is.
                _ => return Ok(path.clone()),
            },
        }
    }
}

/// A relation for people: class and confidence, and for a containment
/// which book contains which (`a_name ⊃ b_name`).
pub fn relation_label(relation: &Relation, a_name: &str, b_name: &str) -> String {
    let containment = match relation.container {
        Some(Side::A) => format!(" {a_name} ⊃ {b_name}"),
        Some(Side::B) => format!(" {b_name} ⊃ {a_name}"),
        None => String::new(),
    };
    format!("{} {:.2}{containment}", relation.class, relation.confidence)
}
