//! Shared output helpers: progress bars and JSON printing.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;

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
