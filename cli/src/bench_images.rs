//! `stemmata bench-images`: query latency over an index's word images,
//! the search file's bytes per word image, and pages described per
//! CPU-second ([`stemmata_bench::images`]).

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

use stemmata::Result;

use crate::output::print_json;

#[derive(Args)]
pub struct BenchImagesArgs {
    /// An index with word images (`stemmata images add`); opened read-only.
    pub index: PathBuf,
    /// Queries to time: words taken evenly from the index's OCR words of
    /// at least 3 letters.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// Hits per query.
    #[arg(short, long, default_value_t = 20)]
    pub k: usize,
    /// Also read and describe the page images of this directory (each with
    /// its OCR beside it), for pages per CPU-second.
    #[arg(long, value_name = "DIR")]
    pub pages: Option<PathBuf>,
    /// Also time the queries over a generated collection: the index's word
    /// images repeated this many times (each copy a book of the same
    /// rows), written as one search file in a temporary directory.
    #[arg(long, value_name = "TIMES")]
    pub repeat: Option<usize>,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: BenchImagesArgs) -> Result<ExitCode> {
    let bench =
        stemmata_bench::images::run(&args.index, args.queries, args.k, args.pages.as_deref())?;
    let repeated = match args.repeat {
        Some(times) => {
            let scratch = crate::output::temp_dir()?;
            let (index, queries, k) = (&args.index, args.queries, args.k);
            Some(stemmata_bench::images::run_repeated(
                index,
                times,
                queries,
                k,
                scratch.path(),
            )?)
        }
        None => None,
    };
    if args.json {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            #[serde(flatten)]
            bench: &'a stemmata_bench::images::ImageBench,
            #[serde(skip_serializing_if = "Option::is_none")]
            repeated: Option<&'a stemmata_bench::images::RepeatedBench>,
        }
        print_json(&Report {
            bench: &bench,
            repeated: repeated.as_ref(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "word images   {} in {} books, {} bigram classes modelled; search file {:.0} bytes per image",
        bench.images, bench.books, bench.classes, bench.search_bytes_per_image
    )?;
    outln!(
        "open          {:.1} ms (map the search file, check its layout)",
        bench.open_ms
    )?;
    outln!(
        "queries       {} top-{}: median {:.2} ms, p95 {:.2} ms, mean {:.2} ms",
        bench.queries,
        args.k,
        bench.median_ms,
        bench.p95_ms,
        bench.mean_ms
    )?;
    if let Some(r) = &repeated {
        outln!(
            "repeated      {} word images ({:.0} bytes each): {} top-{} queries, median {:.2} ms, p95 {:.2} ms",
            r.images,
            r.search_bytes_per_image,
            r.queries,
            args.k,
            r.median_ms,
            r.p95_ms
        )?;
    }
    if let Some(rate) = bench.pages_per_cpu_second {
        outln!(
            "description   {} pages: {rate:.2} pages per CPU-second (decode, OCR, descriptors, crops)",
            bench.pages
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
