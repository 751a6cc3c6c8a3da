//! Helpers of the command line's integration tests: the shared helpers of
//! the repository's `tests/common` and the `stemmata` binary.
#![allow(dead_code)]

use std::process::Command;

#[path = "../../../tests/common/mod.rs"]
mod shared;

pub use shared::*;

/// The `stemmata` binary, ready for arguments.
pub fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stemmata"))
}
