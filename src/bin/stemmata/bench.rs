//! `stemmata bench` (placeholder until the bench lands).
use clap::Args;
use std::process::ExitCode;
#[derive(Args)]
pub struct BenchArgs {}
pub fn run(_args: BenchArgs) -> stemmata::Result<ExitCode> {
    Ok(ExitCode::SUCCESS)
}
