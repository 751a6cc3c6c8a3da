//! Speed figures, each against a baseline measured in the same run — pair
//! verification against the naive DP LCS, all-pairs with pruning against
//! aligning every pair, ingest per core, and top-10 query latency against a
//! brute-force scan (`stemmata bench`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use stemmata::align::lcs_len_dp;
use stemmata::repr::unique_words::extract;
use stemmata::text::decode;
use stemmata::{Document, Error, Index, LoadOptions, PairsOptions, QueryOptions, Reader, Result};
use stemmata_eval::Corpus;
use stemmata_synth::{generate, SynthOptions};

use crate::temp_dir;

/// What [`measure`] runs on.
#[derive(Debug, Clone)]
pub struct SpeedOptions {
    /// Corpus directory (books.tsv, texts/) for verification, all-pairs and ingest.
    pub corpus: PathBuf,
    /// Books in the generated collection for all-pairs and query latency.
    pub books: usize,
    /// Queries to time on the generated collection.
    pub queries: usize,
    /// Pairs to run the naive DP LCS on (it is slow: tens of ms per pair).
    pub dp_pairs: usize,
}

/// The figures of one run of [`measure`].
#[derive(Debug, serde::Serialize, Default)]
pub struct Figures {
    /// Threads available (loads and all-pairs use them all).
    pub threads: usize,
    /// Stored pairs verified per second on one core (LIS LCS).
    pub verify_pairs_per_sec_per_core: f64,
    /// The same pairs per second with the naive DP LCS.
    pub dp_pairs_per_sec_per_core: f64,
    /// The ratio of the two.
    pub verify_speedup_over_dp: f64,
    /// All pairs of the corpus.
    pub corpus_all_pairs: AllPairs,
    /// All pairs of the generated collection.
    pub generated_all_pairs: AllPairs,
    /// Feature extraction of the corpus texts on one core, MB/s.
    pub ingest_extract_mb_per_sec_per_core: f64,
    /// A full load of the corpus, MB/s.
    pub ingest_load_mb_per_sec: f64,
    /// The same per thread.
    pub ingest_load_mb_per_sec_per_core: f64,
    /// Books in the generated collection.
    pub generated_books: usize,
    /// Its text, MB.
    pub generated_mb: f64,
    /// Median top-10 query latency on the generated collection, ms.
    pub query_median_ms: f64,
    /// Its 95th percentile, ms.
    pub query_p95_ms: f64,
    /// Median latency of the same queries by brute force, ms.
    pub brute_force_median_ms: f64,
    /// The ratio of the two medians.
    pub query_speedup_over_brute_force: f64,
}

/// All pairs of one collection at the default threshold.
#[derive(Debug, serde::Serialize, Default)]
pub struct AllPairs {
    /// Books in the collection.
    pub books: u64,
    /// Pairs the join considered.
    pub pairs_considered: u64,
    /// Pairs whose LCS was computed.
    pub aligned: u64,
    /// Pairs reported.
    pub found: u64,
    /// Runs timed.
    pub runs: usize,
    /// Median over the runs.
    pub seconds: f64,
    /// The fastest run.
    pub seconds_min: f64,
    /// The slowest run.
    pub seconds_max: f64,
    /// Pairs considered per second per thread.
    pub pairs_per_sec_per_core: f64,
    /// Pairs aligned per second on one core when every pair is aligned.
    pub align_every_pair_per_sec_per_core: f64,
    /// The ratio of the two rates.
    pub speedup_over_aligning_every_pair: f64,
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
    // Books of one part: the DP baseline aligns whole sequences.
    let pairs: Vec<(usize, usize)> = sample_pairs(sequences.len(), 20_000)
        .into_iter()
        .filter(|&(a, b)| sequences[a].len() == 1 && sequences[b].len() == 1)
        .collect();
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
        dp_lengths.push(lcs_len_dp(&sequences[a][0], &sequences[b][0]));
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
    let mut pruned = reader.for_each_pair(&PairsOptions::default(), |_| Ok(()), |_| {})?;
    timings.push(seconds(pruned.elapsed));
    for _ in 1..runs {
        pruned = reader.for_each_pair(&PairsOptions::default(), |_| Ok(()), |_| {})?;
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
    let options = QueryOptions::default().top_k(10);
    let mut planned = Vec::new();
    let mut brute = Vec::new();
    for i in 0..queries.min(books.len()) {
        let key = &books[(i * 7919) % books.len()].key;
        let started = Instant::now();
        let result = reader.query_key(key, &options)?;
        planned.push(seconds(started.elapsed()) * 1e3);
        if i < 30 {
            let started = Instant::now();
            let hits = reader.brute_force_key(key, &options)?;
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

/// The first `books` books of the generated collection.
pub(crate) fn generated_documents(books: usize) -> Vec<Document> {
    let families = (books * 100 / 255).max(1);
    let collection = generate(&SynthOptions::with_families(families, 42));
    collection
        .books
        .into_iter()
        .take(books)
        .map(|b| Document::new(b.key, b.text))
        .collect()
}

/// Measures every figure on the corpus `options.corpus` and on a generated
/// collection, in a temporary directory; `progress` is told each step.
pub fn measure(options: &SpeedOptions, progress: impl Fn(&str)) -> Result<Figures> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut figures = Figures {
        threads,
        ..Figures::default()
    };
    let temp = temp_dir()?;

    progress("corpus: load");
    let corpus = Corpus::read(&options.corpus)?;
    let documents: Vec<Document> = corpus.documents().collect::<Result<_>>()?;
    let (index, load_secs, bytes) = load_documents(&temp.path().join("corpus"), documents.clone())?;
    figures.ingest_load_mb_per_sec = bytes as f64 / 1e6 / load_secs;
    figures.ingest_load_mb_per_sec_per_core = figures.ingest_load_mb_per_sec / threads as f64;
    progress("corpus: feature extraction on one core");
    figures.ingest_extract_mb_per_sec_per_core = bench_extract(&documents, &index);
    drop(documents);
    let reader = index.reader()?;
    progress("corpus: pair verification against DP");
    bench_verification(&reader, options.dp_pairs, &mut figures)?;
    progress("corpus: all pairs");
    figures.corpus_all_pairs = bench_all_pairs(&reader, threads, 7)?;
    drop(reader);

    progress(&format!("generated: {} books", options.books));
    let documents = generated_documents(options.books);
    figures.generated_books = documents.len();
    figures.generated_mb = documents.iter().map(|d| d.text.len()).sum::<usize>() as f64 / 1e6;
    let (index, _, _) = load_documents(&temp.path().join("generated"), documents)?;
    let reader = index.reader()?;
    progress("generated: top-10 queries");
    bench_queries(&reader, options.queries, &mut figures)?;
    progress("generated: all pairs");
    figures.generated_all_pairs = bench_all_pairs(&reader, threads, 1)?;
    Ok(figures)
}
