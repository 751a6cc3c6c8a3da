//! What can fail in a call into the engine, and the exception each failure
//! becomes: an engine [`stemmata::Error`] the exception class of
//! `stemmata._errors` for its kind, with exactly the engine's message; an
//! exception of Python code the engine called back (a document iterator, a
//! progress callback) itself; a panic `InternalError`, never an abort.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use stemmata::Error;

/// A failed call.
pub enum Failure {
    /// The engine returned an error.
    Engine(Error),
    /// Python code called during the work raised.
    Python(PyErr),
    /// The work panicked: the panic's message.
    Panic(String),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Engine(error)
    }
}

impl From<PyErr> for Failure {
    fn from(error: PyErr) -> Self {
        Failure::Python(error)
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        match failure {
            Failure::Python(error) => error,
            Failure::Engine(error) => Python::attach(|py| engine_error(py, &error)),
            Failure::Panic(message) => Python::attach(|py| {
                exception(py, "InternalError", &format!("internal error: {message}"))
            }),
        }
    }
}

/// A result of the bindings' own work.
pub type Outcome<T> = Result<T, Failure>;

/// Runs `work` with the GIL released; a panic in it becomes
/// [`Failure::Panic`].
pub fn detached<T: Send>(py: Python<'_>, work: impl FnOnce() -> Outcome<T> + Send) -> PyResult<T> {
    py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .unwrap_or_else(|payload| Err(Failure::Panic(panic_message(payload.as_ref()))))
    })
    .map_err(PyErr::from)
}

/// The message a panic was raised with.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// The exception class (in `stemmata._errors`) of an engine error's kind.
fn class_name(error: &Error) -> &'static str {
    match error {
        Error::Io { .. } => "StemmataIOError",
        Error::Corrupted { .. } | Error::ChecksumMismatch { .. } => "CorruptedError",
        Error::UnsupportedVersion { .. } | Error::OldFormat { .. } | Error::UpgradeRequired(_) => {
            "VersionError"
        }
        Error::NotAnIndex(_) | Error::IncompleteIndex(_) => "NotAnIndexError",
        Error::AlreadyExists(_) => "IndexExistsError",
        Error::Locked(_) => "LockedError",
        Error::ReadOnly(_) => "ReadOnlyError",
        Error::UnknownKey(_) => "UnknownKeyError",
        Error::BadDocument { .. } => "BadDocumentError",
        Error::InvalidArgument(_) => "InvalidInputError",
        Error::Catalog { .. } => "CatalogError",
        _ => "StemmataError",
    }
}

/// The exception of an engine error; an I/O error also carries `errno`,
/// `strerror` and `filename`, as an `OSError` does.
fn engine_error(py: Python<'_>, error: &Error) -> PyErr {
    let exception = exception(py, class_name(error), &error.to_string());
    if let Error::Io { path, source } = error {
        let value = exception.value(py);
        let set = || -> PyResult<()> {
            value.setattr("errno", source.raw_os_error())?;
            value.setattr("strerror", source.to_string())?;
            value.setattr("filename", path)
        };
        if let Err(failed) = set() {
            return failed;
        }
    }
    exception
}

/// An exception of the class `name` of `stemmata._errors` with `message`
/// (or the error met while making it).
pub fn exception(py: Python<'_>, name: &str, message: &str) -> PyErr {
    let made = py
        .import("stemmata._errors")
        .and_then(|module| module.getattr(name))
        .and_then(|class| class.call1(PyTuple::new(py, [message])?));
    match made {
        Ok(value) => PyErr::from_value(value),
        Err(error) => error,
    }
}
