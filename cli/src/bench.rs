//! `stemmata bench`: speed figures, each against a baseline measured in the
//! same run — pair verification against the naive DP LCS, all-pairs with
//! pruning against aligning every pair, ingest per core, and top-10 query
//! latency against a brute-force scan.

use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use stemmata::align::lcs_len_dp;
use stemmata::repr::unique_words::extract;
use stemmata::text::decode;
use stemmata::{Document, Error, Index, LoadOptions, PairsOptions, QueryOptions, Reader, Result};
use stemmata_eval::Corpus;
use stemmata_synth::{generate, SynthOptions};

use crate::output::{print_json, temp_dir};

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
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize, Default)]
struct Figures {
    threads: usize,
    verify_pairs_per_sec_per_core: f64,
    dp_pairs_per_sec_per_core: f64,
    verify_speedup_over_dp: f64,
    corpus_all_pairs: AllPairs,
    generated_all_pairs: AllPairs,
    ingest_extract_mb_per_sec_per_core: f64,
    ingest_load_mb_per_sec: f64,
    ingest_load_mb_per_sec_per_core: f64,
    generated_books: usize,
    generated_mb: f64,
    query_median_ms: f64,
    query_p95_ms: f64,
    brute_force_median_ms: f64,
    query_speedup_over_brute_force: f64,
}

#[derive(serde::Serialize, Default)]
struct AllPairs {
    books: u64,
    pairs_considered: u64,
    aligned: u64,
    found: u64,
    runs: usize,
    /// Median over the runs.
    seconds: f64,
    seconds_min: f64,
    seconds_max: f64,
    pairs_per_sec_per_core: f64,
    align_every_pair_per_sec_per_core: f64,
    speedup_over_aligning_every_pair: f64,
}

fn seconds(d: Duration) -> f64 {
    d.as_secs_f64().max(1e-9)
}

fn load_documents(dir: &Path, documents: Vec<Document>) -> Result<(Index, f64, u64)> {
    let index = Index::create(dir)?;
    let bytes: u64 = documents.iter().map(|d| d.text.len() as u64).sum();
    let started = Instant::now();
    let mut loader = index.bulk_loader(LoadOptions::default())?;
    loader.extend(documents.into_iter().map(Ok))?;
    loader.finish()?;
    Ok((index, seconds(started.elapsed()), bytes))
}

/// Pairs of corpus books spread over the collection (deterministic).
fn sample_pairs(n: usize, count: usize) -> Vec<(usize, usize)> {
    (0..count)
        .map(|i| {
            let a = (i * 7919) % n;
            let b = (a + 1 + (i * 104_729) % (n - 1)) % n;
            (a, b)
        })
        .collect()
}

/// Verification of stored pairs against the naive DP, on the same pairs.
fn bench_verification(reader: &Reader, dp_pairs: usize, figures: &mut Figures) -> Result<()> {
    let keys: Vec<&str> = reader.books().iter().map(|b| b.key.as_str()).collect();
    let sequences = keys
        .iter()
        .map(|k| reader.hashes(k))
        .collect::<Result<Vec<_>>>()?;
    let pairs = sample_pairs(sequences.len(), 20_000);
    let mut verifier = reader.pair_verifier();
    let mut checksum = 0u64;
    let started = Instant::now();
    for &(a, b) in &pairs {
        checksum += verifier.verify_slots(a as u32, b as u32).lcs as u64;
    }
    let fast = pairs.len() as f64 / seconds(started.elapsed());
    std::hint::black_box(checksum);
    let started = Instant::now();
    let mut dp_lengths = Vec::new();
    for &(a, b) in pairs.iter().take(dp_pairs) {
        dp_lengths.push(lcs_len_dp(sequences[a], sequences[b]));
    }
    let dp = dp_lengths.len() as f64 / seconds(started.elapsed());
    for (&(a, b), &lcs) in pairs.iter().zip(&dp_lengths) {
        let overlap = verifier.verify_slots(a as u32, b as u32);
        if lcs != overlap.lcs as usize {
            return Err(Error::InvalidArgument(format!(
                "DP LCS {lcs} differs from LIS LCS {} on {} {}",
                overlap.lcs, keys[a], keys[b]
            )));
        }
    }
    figures.verify_pairs_per_sec_per_core = fast;
    figures.dp_pairs_per_sec_per_core = dp;
    figures.verify_speedup_over_dp = fast / dp;
    Ok(())
}

/// All pairs at the default threshold, run `runs` times (median reported),
/// against aligning every pair: the
/// baseline's rate is measured on a fixed sample of pairs with the pair
/// verifier (aligning all n²/2 pairs of a large collection takes hours).
fn bench_all_pairs(reader: &Reader, threads: usize, runs: usize) -> Result<AllPairs> {
    let mut timings = Vec::with_capacity(runs);
    let mut pruned = reader.pairs(&PairsOptions::default(), |_| Ok(()), |_| {})?;
    timings.push(seconds(pruned.elapsed));
    for _ in 1..runs {
        pruned = reader.pairs(&PairsOptions::default(), |_| Ok(()), |_| {})?;
        timings.push(seconds(pruned.elapsed));
    }
    let secs = median(&mut timings);
    let pairs_per_sec_per_core = pruned.pairs_considered as f64 / secs / threads as f64;
    let sample = sample_pairs(reader.len(), 20_000);
    let mut verifier = reader.pair_verifier();
    let started = Instant::now();
    let mut checksum = 0u64;
    for &(a, b) in &sample {
        checksum += verifier.verify_slots(a as u32, b as u32).lcs as u64;
    }
    std::hint::black_box(checksum);
    let every_pair_rate = sample.len() as f64 / seconds(started.elapsed());
    Ok(AllPairs {
        books: pruned.books,
        pairs_considered: pruned.pairs_considered,
        aligned: pruned.lcs_runs,
        found: pruned.found,
        runs,
        seconds: secs,
        seconds_min: timings[0],
        seconds_max: timings[timings.len() - 1],
        pairs_per_sec_per_core,
        align_every_pair_per_sec_per_core: every_pair_rate,
        speedup_over_aligning_every_pair: pairs_per_sec_per_core / every_pair_rate,
    })
}

/// Single-thread feature extraction rate over the corpus texts.
fn bench_extract(documents: &[Document], index: &Index) -> f64 {
    let options = *index.options();
    let bytes: usize = documents.iter().map(|d| d.text.len()).sum();
    let started = Instant::now();
    let mut elements = 0usize;
    for document in documents {
        elements += extract(&decode(&document.text).text, &options)
            .sequence
            .len();
    }
    std::hint::black_box(elements);
    bytes as f64 / 1e6 / seconds(started.elapsed())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// Top-10 latency by key with the planner and by brute force, same queries.
fn bench_queries(reader: &Reader, queries: usize, figures: &mut Figures) -> Result<()> {
    let books = reader.books();
    let options = QueryOptions {
        top_k: 10,
        ..QueryOptions::default()
    };
    let mut planned = Vec::new();
    let mut brute = Vec::new();
    for i in 0..queries.min(books.len()) {
        let key = &books[(i * 7919) % books.len()].key;
        let started = Instant::now();
        let result = reader.query_key(key, &options)?;
        planned.push(seconds(started.elapsed()) * 1e3);
        if i < 30 {
            let sequence = reader.hashes(key)?;
            let slot = ((i * 7919) % books.len()) as u32;
            let started = Instant::now();
            let hits = reader.brute_force(sequence, Some(slot), &options);
            brute.push(seconds(started.elapsed()) * 1e3);
            if hits != result.hits {
                return Err(Error::InvalidArgument(format!(
                    "planner and brute force disagree on {key}"
                )));
            }
        }
    }
    figures.query_median_ms = median(&mut planned);
    figures.query_p95_ms = planned[planned.len() * 95 / 100];
    figures.brute_force_median_ms = median(&mut brute);
    figures.query_speedup_over_brute_force =
        figures.brute_force_median_ms / figures.query_median_ms;
    Ok(())
}

fn generated_documents(books: usize) -> Vec<Document> {
    let families = (books * 100 / 255).max(1);
    let collection = generate(&SynthOptions::with_families(families, 42));
    collection
        .books
        .into_iter()
        .take(books)
        .map(|b| Document::new(b.key, b.text))
        .collect()
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut figures = Figures {
        threads,
        ..Figures::default()
    };
    let temp = temp_dir()?;
    let progress = |what: &str| {
        if !args.json {
            eprintln!("… {what}");
        }
    };

    progress("corpus: load");
    let corpus = Corpus::read(&args.corpus)?;
    let documents: Vec<Document> = corpus.documents().collect::<Result<_>>()?;
    let (index, load_secs, bytes) = load_documents(&temp.path().join("corpus"), documents.clone())?;
    figures.ingest_load_mb_per_sec = bytes as f64 / 1e6 / load_secs;
    figures.ingest_load_mb_per_sec_per_core = figures.ingest_load_mb_per_sec / threads as f64;
    progress("corpus: feature extraction on one core");
    figures.ingest_extract_mb_per_sec_per_core = bench_extract(&documents, &index);
    drop(documents);
    let reader = index.reader()?;
    progress("corpus: pair verification against DP");
    bench_verification(&reader, args.dp_pairs, &mut figures)?;
    progress("corpus: all pairs");
    figures.corpus_all_pairs = bench_all_pairs(&reader, threads, 7)?;
    drop(reader);

    progress(&format!("generated: {} books", args.books));
    let documents = generated_documents(args.books);
    figures.generated_books = documents.len();
    figures.generated_mb = documents.iter().map(|d| d.text.len()).sum::<usize>() as f64 / 1e6;
    let (index, _, _) = load_documents(&temp.path().join("generated"), documents)?;
    let reader = index.reader()?;
    progress("generated: top-10 queries");
    bench_queries(&reader, args.queries, &mut figures)?;
    progress("generated: all pairs");
    figures.generated_all_pairs = bench_all_pairs(&reader, threads, 1)?;

    if args.json {
        print_json(&figures)?;
    } else {
        print_figures(&figures);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_all_pairs(name: &str, p: &AllPairs) {
    println!(
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
    );
}

fn print_figures(f: &Figures) {
    println!("threads: {}", f.threads);
    println!(
        "pair verification (corpus sequences): {:.0} pairs/s/core; naive DP LCS {:.1} pairs/s/core; {:.0}× faster",
        f.verify_pairs_per_sec_per_core, f.dp_pairs_per_sec_per_core, f.verify_speedup_over_dp
    );
    print_all_pairs("corpus", &f.corpus_all_pairs);
    print_all_pairs("generated", &f.generated_all_pairs);
    println!(
        "ingest: feature extraction {:.1} MB/s/core; full load {:.1} MB/s on {} threads ({:.1} MB/s/core)",
        f.ingest_extract_mb_per_sec_per_core,
        f.ingest_load_mb_per_sec,
        f.threads,
        f.ingest_load_mb_per_sec_per_core
    );
    println!(
        "top-10 query over {} generated books ({:.0} MB): median {:.2} ms, p95 {:.2} ms; brute force median {:.2} ms ({:.1}× slower)",
        f.generated_books,
        f.generated_mb,
        f.query_median_ms,
        f.query_p95_ms,
        f.brute_force_median_ms,
        f.query_speedup_over_brute_force
    );
}
