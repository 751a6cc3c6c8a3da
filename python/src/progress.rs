//! Progress of a long engine call, reported back to Python: a callback
//! `progress(done, total, what)` called with the GIL re-acquired at most
//! every [`INTERVAL`] and once at the end, and the interpreter's signals
//! (Ctrl-C) checked at the same moments. An exception of either stops the
//! work at its next step and is raised in its place.

use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// Least time between two reports.
const INTERVAL: Duration = Duration::from_millis(100);

/// Counts the work done and reports it now and then.
pub struct Reporter {
    callback: Option<Py<PyAny>>,
    /// The unit of `done` and `total` ("books" or "bytes").
    what: &'static str,
    total: Option<u64>,
    done: u64,
    last: Instant,
    error: Option<PyErr>,
}

impl Reporter {
    /// A reporter counting `what`, calling `callback` when there is one.
    pub fn new(callback: Option<Py<PyAny>>, what: &'static str) -> Self {
        Reporter {
            callback,
            what,
            total: None,
            done: 0,
            last: Instant::now(),
            error: None,
        }
    }

    /// The unit counted.
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// Sets the amount of work in all, when it is known.
    pub fn set_total(&mut self, total: u64) {
        self.total = Some(total);
    }

    /// Counts `amount` more done; reports when the interval has passed.
    pub fn advance(&mut self, amount: u64) {
        self.set_done(self.done + amount);
    }

    /// Sets the amount done; reports when the interval has passed.
    pub fn set_done(&mut self, done: u64) {
        self.done = done;
        if self.last.elapsed() >= INTERVAL {
            self.report();
        }
    }

    /// Reports the end: everything done when the total is known.
    pub fn finish(&mut self) {
        self.done = self.total.unwrap_or(self.done);
        self.report();
    }

    /// Whether the callback or a signal raised: the work should stop.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// The exception raised by the callback or a signal handler, if any.
    pub fn take_error(&mut self) -> Option<PyErr> {
        self.error.take()
    }

    fn report(&mut self) {
        if self.error.is_some() {
            return;
        }
        self.last = Instant::now();
        let (done, total, what) = (self.done, self.total, self.what);
        let result = Python::attach(|py| {
            py.check_signals()?;
            match &self.callback {
                Some(callback) => callback.call1(py, (done, total, what)).map(drop),
                None => Ok(()),
            }
        });
        self.error = result.err();
    }
}
