//! The one error type of the crate: what went wrong and where.

use std::fmt;
use std::path::PathBuf;

/// What went wrong reading or writing a features file, and where.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The Parquet or Arrow library refused the bytes (a damaged or
    /// truncated file, or not Parquet at all).
    Parquet {
        /// The file.
        path: PathBuf,
        /// The library's message.
        message: String,
    },
    /// The file's key-value metadata is missing or wrong: not a features
    /// file, or options that do not parse.
    Metadata {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The file was written in a newer layout than this build reads.
    NewerLayout {
        /// The file.
        path: PathBuf,
        /// Its layout version.
        found: u32,
        /// The newest this build reads.
        newest: u32,
    },
    /// The rows read do not give the checksum the file's metadata holds:
    /// the file was damaged after it was written.
    ChecksumMismatch {
        /// The file.
        path: PathBuf,
        /// The checksum in the metadata.
        expected: u64,
        /// The checksum of the rows read.
        found: u64,
    },
    /// A column is missing or of another type than the layout's.
    Schema {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
        /// What is wrong.
        problem: String,
    },
    /// A value of a row is null or out of its range.
    Row {
        /// The file.
        path: PathBuf,
        /// The row, from 0 in the file.
        row: u64,
        /// The column.
        column: String,
        /// What is wrong.
        problem: String,
    },
}

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Parquet { path, message } => {
                write!(
                    f,
                    "{}: not a readable Parquet file: {message}",
                    path.display()
                )
            }
            Error::Metadata { path, problem } => write!(f, "{}: {problem}", path.display()),
            Error::NewerLayout {
                path,
                found,
                newest,
            } => write!(
                f,
                "{}: features layout version {found}; this build reads versions 1 to {newest} \
                 (a newer stemmata wrote it)",
                path.display()
            ),
            Error::ChecksumMismatch {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: damaged: its rows give checksum {found:016x}, its metadata {expected:016x}",
                path.display()
            ),
            Error::Schema {
                path,
                column,
                problem,
            } => write!(
                f,
                "{}: column {column:?}: {problem} (docs/batch-format.md gives the layout)",
                path.display()
            ),
            Error::Row {
                path,
                row,
                column,
                problem,
            } => write!(
                f,
                "{}: row {row}, column {column:?}: {problem}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
