//! Durations in JSON output: seconds or milliseconds as numbers.

use std::time::Duration;

/// Serialises a duration as seconds (a float).
pub(crate) fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Serialises a duration as milliseconds (a float).
pub(crate) fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1e3)
}
