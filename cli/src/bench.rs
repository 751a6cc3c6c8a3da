//! `stemmata bench`: speed figures, each against a baseline measured in the
//! same run (measured by `stemmata_bench::speed`; this module parses the
//! arguments and prints the figures).

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

use stemmata::Result;
use stemmata_bench::speed::{measure, AllPairs, Figures, SpeedOptions};

use crate::output::print_json;

#[derive(Args)]
pub struct BenchArgs {
    /// Corpus directory (books.tsv, texts/) for verification, all-pairs and ingest.
    #[arg(long, default_value = "../shared/corpus")]
    pub corpus: PathBuf,
    /// Books in the generated collection for all-pairs and query latency.
    #[arg(long, default_value_t = 10_000)]
    pub books: usize,
    /// Queries to time on the generated collection.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// Pairs to run the naive DP LCS on (it is slow: tens of ms per pair).
    #[arg(long, default_value_t = 30)]
    pub dp_pairs: usize,
    /// Measure translation search instead, on this many generated books in
    /// two languages (half of them translated word by word into a made-up
    /// language, with a dictionary of the two): the all-pairs job with
    /// translations against aligning every cross-language pair.
    #[arg(long, value_name = "N")]
    pub translation_books: Option<usize>,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let progress = |what: &str| {
        if !args.json {
            eprintln!("… {what}");
        }
    };
    if let Some(books) = args.translation_books {
        let dir = tempfile::tempdir().map_err(|source| stemmata::Error::Io {
            path: std::env::temp_dir(),
            source,
        })?;
        let figures = stemmata_bench::translations::measure(dir.path(), books, progress)?;
        if args.json {
            print_json(&figures)?;
        } else {
            print_translations(&figures)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let options = SpeedOptions {
        corpus: args.corpus,
        books: args.books,
        queries: args.queries,
        dp_pairs: args.dp_pairs,
    };
    let figures = measure(&options, progress)?;
    if args.json {
        print_json(&figures)?;
    } else {
        print_figures(&figures)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_all_pairs(name: &str, p: &AllPairs) -> stemmata::Result<()> {
    outln!(
        "all pairs, {name}: {} books, {} pairs considered in {:.3} s (median of {} runs, {:.3}–{:.3} s) = {:.0} pairs/s/core; {} aligned, {} found; aligning every pair: {:.0} pairs/s/core ({:.0}× slower)",
        p.books,
        p.pairs_considered,
        p.seconds,
        p.runs,
        p.seconds_min,
        p.seconds_max,
        p.pairs_per_sec_per_core,
        p.aligned,
        p.found,
        p.align_every_pair_per_sec_per_core,
        p.speedup_over_aligning_every_pair
    )?;
    Ok(())
}

fn print_figures(f: &Figures) -> stemmata::Result<()> {
    outln!("threads: {}", f.threads)?;
    outln!(
        "pair verification (corpus sequences): {:.0} pairs/s/core; naive DP LCS {:.1} pairs/s/core; {:.0}× faster",
        f.verify_pairs_per_sec_per_core, f.dp_pairs_per_sec_per_core, f.verify_speedup_over_dp
    )?;
    print_all_pairs("corpus", &f.corpus_all_pairs)?;
    print_all_pairs("generated", &f.generated_all_pairs)?;
    outln!(
        "ingest: feature extraction {:.1} MB/s/core; full load {:.1} MB/s on {} threads ({:.1} MB/s/core)",
        f.ingest_extract_mb_per_sec_per_core,
        f.ingest_load_mb_per_sec,
        f.threads,
        f.ingest_load_mb_per_sec_per_core
    )?;
    outln!(
        "top-10 query over {} generated books ({:.0} MB): median {:.2} ms, p95 {:.2} ms; brute force median {:.2} ms ({:.1}× slower)",
        f.generated_books,
        f.generated_mb,
        f.query_median_ms,
        f.query_p95_ms,
        f.brute_force_median_ms,
        f.query_speedup_over_brute_force
    )?;
    Ok(())
}

fn print_translations(
    f: &stemmata_bench::translations::TranslationFigures,
) -> stemmata::Result<()> {
    outln!(
        "translations: {} books ({} in the made-up language, {} in English), {} cross-language pairs, {} threads",
        f.books, f.books_per_language[0], f.books_per_language[1], f.cross_language_pairs, f.threads
    )?;
    outln!(
        "all pairs: {:.2} s without translations, {:.2} s with ({} translation pairs found): translation search {:.2} CPU-s, {} translated pairs of parts aligned",
        f.same_language_seconds,
        f.with_translations_seconds,
        f.translation_pairs_found,
        f.translation_cpu_seconds,
        f.translation_pairs_verified
    )?;
    outln!(
        "brute force: {:.0} translated pairs verified/s/core; every cross-language pair {:.1} CPU-s ({:.0}× the planner); sample hits agree: {}",
        f.brute_force_pairs_per_sec_per_core,
        f.brute_force_cpu_seconds,
        f.speedup_over_brute_force,
        f.sample_hits_agree
    )?;
    Ok(())
}
