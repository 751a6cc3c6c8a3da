//! `stemmata compact`: reclaim the space of deleted and replaced books.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

use stemmata::FileSizes;
use stemmata::{Index, Result};

use crate::messages::{count, no_index};
use crate::output::{bar, print_json};

pub const ABOUT: &str = "\
Reclaim the space of deleted and replaced books.

Deleting books, and loading books again under keys already stored, leaves \
the old records in the barrels and page files and the old sketches in the \
segments. `compact` copies the live records of every barrel and page file \
that holds dead ones into new files, publishes them in one catalog commit, \
removes the old files, merges the segments without the dead sketches and \
compacts the catalog. An index without dead records is left as it is. \
Interrupted at any point, the index stays whole: the next load or compact \
removes what the interrupted run left. Readers in other processes keep \
working; the catalog itself is compacted only when no other process has the \
index open.";

#[derive(Args)]
pub struct CompactArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Print what was done as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn compact(args: CompactArgs) -> Result<ExitCode> {
    // The catalog's file as the user sees it: before the command opens it,
    // and once closed (closing writes the database's allocator state).
    let catalog = args.index.join("catalog.redb");
    let catalog_len = || std::fs::metadata(&catalog).map(|m| m.len());
    let catalog_before = catalog_len();
    let mut index = Index::open(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let progress = bar(0, "compact", args.quiet);
    let mut stats = index.compact_with_progress(|p| {
        progress.set_length(p.total);
        progress.set_position(p.copied);
    })?;
    progress.finish_and_clear();
    drop(index);
    if let (Ok(before), Ok(after)) = (catalog_before, catalog_len()) {
        stats.catalog.bytes_before = before;
        stats.catalog.bytes_after = after;
    }
    for warning in &stats.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        print_json(&stats)?;
        return Ok(ExitCode::SUCCESS);
    }
    let line = |name: &str, sizes: &FileSizes| {
        outln!(
            "{name:<12} {} -> {}, {} -> {}",
            count(sizes.files_before, "file"),
            sizes.files_after,
            count(sizes.bytes_before, "byte"),
            sizes.bytes_after
        )
    };
    line("barrels", &stats.barrels)?;
    line("page files", &stats.page_files)?;
    line("segments", &stats.segments)?;
    outln!(
        "{:<12} {} -> {}{}",
        "catalog",
        count(stats.catalog.bytes_before, "byte"),
        stats.catalog.bytes_after,
        if stats.catalog_compacted {
            ""
        } else {
            " (not compacted)"
        }
    )?;
    outln!(
        "moved {} and {}, merged {}, removed {}",
        count(stats.records_moved, "record"),
        count(stats.page_records_moved, "page record"),
        count(stats.segments_merged, "segment"),
        count(stats.files_removed, "file")
    )?;
    let (before, after) = (stats.bytes_before(), stats.bytes_after());
    outln!(
        "{:<12} {} -> {} ({} reclaimed)",
        "total",
        count(before, "byte"),
        after,
        before.saturating_sub(after)
    )?;
    Ok(ExitCode::SUCCESS)
}
