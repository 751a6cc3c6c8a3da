//! The one public error type. Every variant says what went wrong and where.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::version::CURRENT_FORMAT as FORMAT_VERSION;

/// Everything that can go wrong in stemmata.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system I/O error on `path`.
    Io {
        /// The file or directory involved; empty for an error converted
        /// from a bare [`io::Error`] (`From`).
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Bytes on disk (or given by the caller) do not decode.
    Corrupted {
        /// The file holding the bad bytes.
        path: PathBuf,
        /// Byte offset of the bad record or field; `None` when the problem
        /// is not at one offset (a value without an offset of its own, or
        /// an inconsistency between records).
        offset: Option<u64>,
        /// What failed to decode.
        what: String,
    },
    /// A stored checksum does not match the bytes it covers.
    ChecksumMismatch {
        /// The file holding the damaged bytes.
        path: PathBuf,
        /// Byte offset of the damaged record.
        offset: u64,
        /// Checksum stored with the bytes.
        expected: u64,
        /// Checksum of the bytes as read.
        got: u64,
    },
    /// The index was written by a format version this build cannot read.
    UnsupportedVersion {
        /// The file that carries the version.
        path: PathBuf,
        /// Version found on disk.
        found: u16,
        /// Oldest version this build reads.
        oldest: u16,
        /// Newest version this build reads.
        newest: u16,
    },
    /// The index was written by an older format this build reads but does
    /// not write, or lacks what the request needs (sketches).
    OldFormat {
        /// The index directory.
        path: PathBuf,
        /// Its format version.
        found: u16,
        /// What could not be done.
        needs: String,
    },
    /// `path` is not a stemmata index (no catalog, or not ours).
    NotAnIndex(PathBuf),
    /// The creation of the index in this directory was interrupted before
    /// it finished: creating it again starts afresh.
    IncompleteIndex(PathBuf),
    /// The index was written by an older build whose catalog this build
    /// opens only after an upgrade ([`crate::Index::upgrade`]).
    UpgradeRequired(PathBuf),
    /// A write was asked of an index opened read-only.
    ReadOnly(PathBuf),
    /// `create` was asked for a directory that already holds an index.
    AlreadyExists(PathBuf),
    /// Another process holds the index, or another loader is active in this one.
    Locked(PathBuf),
    /// No book is stored under this key.
    UnknownKey(String),
    /// A document was rejected (empty, binary, no words, bad JSON); the rest of a load goes on.
    BadDocument {
        /// The file (and line, for JSON Lines) the document came from.
        source_name: String,
        /// Why it was rejected.
        reason: String,
    },
    /// A parameter is outside its valid range.
    InvalidArgument(String),
    /// The catalog database reported an error.
    Catalog {
        /// The catalog file.
        path: PathBuf,
        /// What redb said.
        source: Box<redb::Error>,
    },
    /// A load stopped when the catalog failed to commit a batch: exactly
    /// `books` books of it are in the index (each batch is committed whole
    /// or not at all), and the rest was not loaded.
    LoadStopped {
        /// Books of the load committed, the failed batch's among them when
        /// `batch_committed`.
        books: u64,
        /// Whether the batch whose commit reported the error is committed
        /// all the same (the error came once its commit was on disk).
        batch_committed: bool,
        /// The catalog's error.
        source: Box<Error>,
    },
}

impl Error {
    /// `Corrupted`: the bytes of `path` are wrong in a way that is not at
    /// one byte offset.
    pub fn corrupted(path: impl Into<PathBuf>, what: impl Into<String>) -> Error {
        Error::Corrupted {
            path: path.into(),
            offset: None,
            what: what.into(),
        }
    }

    /// `Corrupted`: the bytes at byte `offset` of `path` are wrong.
    pub fn corrupted_at(path: impl Into<PathBuf>, offset: u64, what: impl Into<String>) -> Error {
        Error::Corrupted {
            path: path.into(),
            offset: Some(offset),
            what: what.into(),
        }
    }

    /// Whether [`crate::Index::upgrade`] on the index the error names
    /// removes it: `UpgradeRequired`, or `OldFormat` of a format the upgrade
    /// brings to the current one.
    pub fn needs_upgrade(&self) -> bool {
        match self {
            Error::UpgradeRequired(_) => true,
            Error::OldFormat { found, .. } => upgradable(*found),
            _ => false,
        }
    }

    /// The error with `context` before what a `Corrupted` error says is
    /// wrong ("book entry 7: ..."); other errors unchanged.
    pub(crate) fn context(self, context: impl std::fmt::Display) -> Error {
        match self {
            Error::Corrupted { path, offset, what } => Error::Corrupted {
                path,
                offset,
                what: format!("{context}: {what}"),
            },
            other => other,
        }
    }
}

/// Whether an index of format `found`, which this build reads, is brought to
/// the current format by [`crate::Index::upgrade`] (formats 3 and 4; older
/// ones lack page signatures, which only the texts give).
fn upgradable(found: u16) -> bool {
    (3..FORMAT_VERSION).contains(&found)
}

/// Result with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } if path.as_os_str().is_empty() => write!(f, "{source}"),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Corrupted {
                path,
                offset: Some(offset),
                what,
            } => write!(f, "{}: corrupted at byte {offset}: {what}", path.display()),
            Error::Corrupted {
                path,
                offset: None,
                what,
            } => write!(f, "{}: corrupted: {what}", path.display()),
            Error::ChecksumMismatch {
                path,
                offset,
                expected,
                got,
            } => write!(
                f,
                "{}: checksum mismatch in record at byte {offset} (stored {expected:#018x}, computed {got:#018x})",
                path.display()
            ),
            Error::UnsupportedVersion {
                path,
                found,
                oldest,
                newest,
            } => write!(
                f,
                "{}: format version {found} is not supported (this build reads {oldest}..={newest})",
                path.display()
            ),
            Error::OldFormat { path, found, needs } => {
                let fact = if upgradable(*found) {
                    format!("the index needs an upgrade to format {FORMAT_VERSION}")
                } else {
                    format!(
                        "an index of this format is not upgraded; its collection needs loading into a new index of format {FORMAT_VERSION}"
                    )
                };
                write!(
                    f,
                    "{}: written by format version {found}, which this build reads but cannot use to {needs}: {fact}",
                    path.display(),
                )
            }
            Error::NotAnIndex(path) => write!(f, "{}: not a stemmata index", path.display()),
            Error::IncompleteIndex(path) => write!(
                f,
                "{}: the creation of this index was interrupted before it finished; creating it again starts afresh",
                path.display()
            ),
            Error::UpgradeRequired(path) => write!(
                f,
                "{}: the catalog was written by an older stemmata (format 4 or earlier): the index needs an upgrade to format {FORMAT_VERSION} before this build opens it",
                path.display(),
            ),
            Error::ReadOnly(path) => write!(
                f,
                "{}: the index is open read-only; open it for writing to change it",
                path.display()
            ),
            Error::AlreadyExists(path) => {
                write!(f, "{}: an index already exists here", path.display())
            }
            Error::Locked(path) => write!(
                f,
                "{}: index is locked by another process or loader",
                path.display()
            ),
            Error::UnknownKey(key) => write!(f, "no book with key {key:?}"),
            Error::BadDocument {
                source_name,
                reason,
            } => write!(f, "{source_name}: {reason}"),
            Error::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
            Error::Catalog { path, source } => write!(f, "{}: catalog: {source}", path.display()),
            Error::LoadStopped {
                books,
                batch_committed,
                source,
            } => {
                let batch = if *batch_committed {
                    "the batch whose commit reported it among them: the commit was on disk \
                     all the same"
                } else {
                    "the batch whose commit reported it is not"
                };
                write!(
                    f,
                    "{source}; the load stopped: {books} of its books are committed ({batch}); \
                     the rest was not loaded"
                )
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Catalog { source, .. } => Some(source.as_ref()),
            Error::LoadStopped { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// An I/O error of the caller's own, so that `?` works on it in a function
/// returning [`Result`]. Its path is empty: errors of the engine's own I/O
/// always name their file.
impl From<io::Error> for Error {
    fn from(source: io::Error) -> Self {
        Error::Io {
            path: std::path::PathBuf::new(),
            source,
        }
    }
}

/// Attaches a path to I/O errors: `file.read(..).at(&path)?`.
pub(crate) trait IoContext<T> {
    fn at(self, path: &std::path::Path) -> Result<T>;
}

impl<T> IoContext<T> for std::result::Result<T, io::Error> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupted_names_the_offset_only_when_there_is_one() {
        let at = Error::corrupted_at("seg", 40, "book ids out of order");
        assert_eq!(
            at.to_string(),
            "seg: corrupted at byte 40: book ids out of order"
        );
        let whole = Error::corrupted("catalog.redb", "key table and book table disagree");
        assert_eq!(
            whole.to_string(),
            "catalog.redb: corrupted: key table and book table disagree"
        );
        assert!(matches!(whole, Error::Corrupted { offset: None, .. }));
    }

    #[test]
    fn upgrade_errors_state_the_fact_and_leave_commands_to_the_caller() {
        let errors = [
            Error::UpgradeRequired("ix".into()),
            Error::OldFormat {
                path: "ix".into(),
                found: 3,
                needs: "write".into(),
            },
            Error::OldFormat {
                path: "ix".into(),
                found: 1,
                needs: "write".into(),
            },
            Error::IncompleteIndex("ix".into()),
        ];
        for error in &errors {
            let message = error.to_string();
            assert!(!message.contains("stemmata upgrade"), "{message}");
            assert!(!message.contains('`'), "{message}");
        }
        let needs: Vec<bool> = errors.iter().map(Error::needs_upgrade).collect();
        assert_eq!(needs, [true, true, false, false]);
        assert!(errors[0]
            .to_string()
            .contains(&format!("needs an upgrade to format {FORMAT_VERSION}")));
        assert!(errors[2].to_string().contains("new index"));
    }
}
