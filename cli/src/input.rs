//! Reading input texts the way the loader would take them.

use std::path::Path;

use stemmata::text::{decode, no_words_reason, tokenise, unreadable};
use stemmata::{Error, Result};

/// The text of `bytes`, read from `path`, decoded; an error when the
/// loader would refuse them: empty, binary data, or no words.
pub fn decode_text(path: &Path, bytes: &[u8]) -> Result<String> {
    let bad = |reason: &str| Error::BadDocument {
        source_name: path.display().to_string(),
        reason: reason.to_string(),
    };
    if let Some(reason) = unreadable(bytes) {
        return Err(bad(reason));
    }
    let text = decode(bytes).text.into_owned();
    let stats = tokenise(&text, |_| {});
    if stats.words == 0 {
        return Err(bad(&no_words_reason(&stats)));
    }
    Ok(text)
}

/// A `--threads` value: 1 to [`stemmata::threads::MAX_THREADS`].
pub fn parse_threads(value: &str) -> std::result::Result<usize, String> {
    let threads = value
        .parse::<usize>()
        .map_err(|e| format!("not a number of threads: {e}"))?;
    stemmata::threads::check(threads).map_err(|e| match e {
        Error::InvalidArgument(message) => message,
        other => other.to_string(),
    })
}
