//! Wording shared by the commands' human output: counts with the noun in
//! the right number, rates, what to say when there is no index, and the
//! commands to run about an error, which the library's messages leave out.

use std::path::Path;

use stemmata::Error;

/// `error`, from opening the index in `dir`, told more precisely when there
/// is no index: the directory does not exist, or is a file; for `load`
/// (`create_hint`), how to create the index.
pub fn no_index(error: Error, dir: &Path, create_hint: bool) -> Error {
    if !matches!(error, Error::NotAnIndex(_)) {
        return error;
    }
    let what = if !dir.exists() {
        "the directory does not exist"
    } else if !dir.is_dir() {
        "is a file, not an index directory"
    } else {
        "not a stemmata index"
    };
    let hint = if create_hint {
        "; `stemmata load --create` creates the index (or run `stemmata create` first)"
    } else {
        ""
    };
    Error::Io {
        path: dir.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::NotFound, format!("{what}{hint}")),
    }
}

/// What to run about `error`, after the library's statement of it: the
/// command that upgrades an index, starts an interrupted creation afresh,
/// or reloads a collection; empty for other errors.
pub fn advice(error: &Error) -> String {
    match error {
        Error::UpgradeRequired(dir) => format!(
            "; `stemmata upgrade {}` converts it in place",
            dir.display()
        ),
        Error::OldFormat { path, .. } if error.needs_upgrade() => format!(
            "; `stemmata upgrade {}` makes it the current format in place",
            path.display()
        ),
        Error::OldFormat { .. } => {
            "; load the collection into a new index (`stemmata load --create NEW_DIR FILES`)".into()
        }
        Error::IncompleteIndex(dir) => format!(
            "; `stemmata create {}` (or `stemmata load --create`) starts it afresh",
            dir.display()
        ),
        _ => String::new(),
    }
}

/// `n` and `noun`, the noun plural unless `n` is 1: `count(1, "book")` is
/// "1 book", `count(2, "page file")` "2 page files", `count(3, "sketch")`
/// "3 sketches".
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{n} {noun}es")
    } else {
        format!("{n} {noun}s")
    }
}

/// A rate per second, to one decimal below 100 and to the unit from 100 on:
/// "11.0/s", "0.5/s", "1235/s".
pub fn rate(per_sec: f64) -> String {
    let decimals = if per_sec.abs() >= 100.0 || !per_sec.is_finite() {
        0
    } else {
        1
    };
    format!("{per_sec:.decimals$}/s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_put_the_noun_in_the_right_number() {
        assert_eq!(count(1, "book"), "1 book");
        assert_eq!(count(0, "book"), "0 books");
        assert_eq!(count(2, "page file"), "2 page files");
        assert_eq!(count(3, "dead sketch"), "3 dead sketches");
        assert_eq!(count(1, "byte"), "1 byte");
    }

    #[test]
    fn rates_have_at_most_one_decimal() {
        assert_eq!(rate(11.0434), "11.0/s");
        assert_eq!(rate(0.46), "0.5/s");
        assert_eq!(rate(1234.56), "1235/s");
        assert_eq!(rate(0.0), "0.0/s");
    }
}
