//! Worker-thread counts: the one bound every option that takes a number of
//! threads is checked against, and the spawning of workers that reports a
//! refused thread as an error instead of aborting.

use crate::{Error, Result};

/// The most worker threads an operation accepts. More than any machine
/// this engine runs on has cores; far fewer than the threads an operating
/// system refuses to create, so that a mistyped count is refused clearly
/// instead of starving the machine.
pub const MAX_THREADS: usize = 1024;

/// Checks a number of worker threads given by the caller: 1 to
/// [`MAX_THREADS`].
pub fn check(threads: usize) -> Result<usize> {
    match threads {
        0 => Err(Error::InvalidArgument("threads must be at least 1".into())),
        n if n > MAX_THREADS => Err(Error::InvalidArgument(format!(
            "threads {n}: at most {MAX_THREADS} worker threads"
        ))),
        n => Ok(n),
    }
}

/// The error for a worker thread the operating system would not create.
pub(crate) fn spawn_failed(source: std::io::Error) -> Error {
    Error::InvalidArgument(format!(
        "cannot start a worker thread ({source}); ask for fewer threads"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_one_to_the_bound_pass_and_others_are_refused() {
        assert_eq!(check(1).unwrap(), 1);
        assert_eq!(check(MAX_THREADS).unwrap(), MAX_THREADS);
        for bad in [0, MAX_THREADS + 1, 20_000, usize::MAX] {
            let message = check(bad).unwrap_err().to_string();
            assert!(message.contains("threads"), "{message}");
        }
    }
}
