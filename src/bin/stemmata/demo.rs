//! `stemmata demo` (placeholder until the demo lands).
use clap::Args;
use std::process::ExitCode;
#[derive(Args)]
pub struct DemoArgs {}
pub fn run(_args: DemoArgs) -> stemmata::Result<ExitCode> {
    Ok(ExitCode::SUCCESS)
}
