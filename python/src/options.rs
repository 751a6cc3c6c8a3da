//! The scoring options of queries and pairs, from their Python arguments:
//! names as the command line takes them, checked as it checks them.

use stemmata::{Error, Mode, Score};

/// The score named `name` (order, coverage, its, cs, containment).
pub fn score(name: &str) -> Result<Score, Error> {
    name.parse()
}

/// The mode named `name`: exact, or approximate (also `approx`).
pub fn mode(name: &str) -> Result<Mode, Error> {
    match name {
        "exact" => Ok(Mode::Exact),
        "approximate" | "approx" => Ok(Mode::Approximate),
        other => Err(Error::InvalidArgument(format!(
            "unknown mode {other:?} (expected exact or approximate)"
        ))),
    }
}

/// The threshold: `min_score`, between 0 and 1, or the score's default.
pub fn min_score(score: Score, min_score: Option<f64>) -> Result<f64, Error> {
    let Some(min) = min_score else {
        return Ok(score.default_threshold());
    };
    if !(0.0..=1.0).contains(&min) {
        return Err(Error::InvalidArgument(format!(
            "min_score {min}: {score} scores range from 0 to 1"
        )));
    }
    Ok(min)
}

/// Worker threads: `threads`, at least 1, or every core.
pub fn threads(threads: Option<usize>) -> Result<usize, Error> {
    match threads {
        Some(n) => stemmata::threads::check(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}
