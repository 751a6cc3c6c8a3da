//! `stemmata bench-scale`: the engine at collection scale. Streams a generated
//! collection into a new index (ingest per core, with and without the
//! generator's own CPU), measures the index on disk, runs the all-pairs
//! self-join as a child `stemmata pairs` process (wall time, peak memory,
//! recall against the generated ground truth), then measures the reader and
//! queries in fresh processes (see [`crate::scale_probe`]): open time and
//! memory, first and steady-state top-10 latency in both modes, and
//! `stemmata query` end to end; each figure printed next to its target.

use clap::Args;
use crossbeam::channel::{bounded, Sender};
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use stemmata::{Document, Error, Index, LoadEvent, LoadOptions, LoadStats, Mode, Result};
use stemmata_synth::{stream, GroundTruth, StreamOptions, SynthRelation};

use crate::output::{bar, new_index, print_json, temp_dir};
use crate::scale_probe::{
    fresh_queries, run_child, run_probe, FreshQueries, ModeArg, PeakSampler, Probe,
    TARGET_FRESH_QUERY_MS, TARGET_OPEN_MS, TARGET_QUERY_P95_MS,
};

/// Targets the figures are printed next to.
const TARGET_INGEST_BOOKS_PER_CORE: f64 = 80.0;
const TARGET_SELF_JOIN_SECS_AT_100K: f64 = 15.0 * 60.0;
const TARGET_SELF_JOIN_GIB_AT_100K: f64 = 8.0;
const TARGET_RSS_SHARE_OF_MAIN: f64 = 0.1;

/// The long help of `stemmata bench-scale`.
pub const ABOUT: &str = "\
Measure the engine at collection scale on generated books.

Generates --books books of about --words words on the fly (works with 0-2 \
OCR-noisy editions, anthologies of neighbouring works, unrelated books, and \
with --volume-share volumes binding 25-50 consecutive works; deterministic \
from --seed) and bulk-loads them into a new index, then:

  ingest     books and MB per second per core, where per core means per \
CPU-second (user + system) of this process: excluding generation (the \
generator thread's CPU time subtracted) and including it; target >= 80 \
books/s/core at 100K words, excluding generation
  index      bytes on disk per book, next to text bytes per book, and the \
index's largest size during the load (sampled every second: a merge writes \
beside the segments it replaces)
  self-join  `stemmata pairs --mode MODE` run as a child process: wall time, \
peak RSS and peak anonymous RSS (heap and stacks; the rest is the index's \
memory-mapped pages, which the kernel drops and reads again under memory \
pressure), pairs found, recall of the generated edition and contains pairs, \
found pairs not in the ground truth, and with volumes the recall of the \
contains pairs of a volume; target at 100K books <= 15 min and <= 8 GiB \
(left out with --skip-self-join)
  reader     a fresh process opens a reader: open time, RSS before and \
after the open (anonymous and file-backed); target <= 100 ms, and RSS \
after open <= 10% of today's main
  queries    in a fresh process per mode, exact and approximate whatever \
--mode: the first top-10 query after the open, then --queries more by key: \
median and p95; target p95 <= 20 ms in both modes
  fresh      `stemmata query DIR --key KEY -k 10` as a new process, \
--fresh-queries keys per mode: median and p95 wall time, end to end; \
target <= 200 ms

The operating system's page cache is not dropped: a first query is the \
first of its process, on files the cache may hold. With --index DIR an \
existing index is measured instead (no generation or ingest).

The index is built in a temporary directory removed at the end, or kept in \
--dir. With --write-texts DIR nothing is loaded: the collection is written as \
DIR/texts/KEY.txt with its ground truth DIR/truth.tsv (columns a, b, \
relation, volume: one related pair a line, volume 1 when the container of a \
contains pair is a volume), so that other builds can be measured on the same \
books.";

#[derive(Args)]
pub struct ScaleArgs {
    /// Books to generate and load.
    #[arg(long, default_value = "10000")]
    pub books: NonZeroUsize,
    /// Mean words per original work; lengths are uniform in 0.75-1.25 times this.
    #[arg(long, default_value = "20000")]
    pub words: NonZeroUsize,
    /// Build the index in this directory and keep it [default: a temporary
    /// directory, removed at the end].
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Worker threads for ingest and the self-join [default: all cores].
    #[arg(long)]
    pub threads: Option<NonZeroUsize>,
    /// Top-10 queries to time in each mode, after the first one.
    #[arg(long, default_value = "200")]
    pub queries: NonZeroUsize,
    /// `stemmata query` processes to time in each mode.
    #[arg(long, value_name = "N", default_value = "20")]
    pub fresh_queries: usize,
    /// Measure the existing index in this directory: no generation or
    /// ingest; the self-join is scored against the collection of --books,
    /// --words, --seed and --volume-share, generated again (the index must
    /// hold --books books), unless --skip-self-join.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["dir", "write_texts"])]
    pub index: Option<PathBuf>,
    /// Leave out the self-join (for the open and query figures of a large
    /// collection).
    #[arg(long)]
    pub skip_self_join: bool,
    /// Candidates of the self-join: approximate (band tables) or exact
    /// (unique-word postings); queries are timed in both modes.
    #[arg(long, value_enum, default_value = "approximate")]
    pub mode: ModeArg,
    /// Exact mode: the cap past which counting skips a word as frequent
    /// (see `pairs --help`) [default: the reader's].
    #[arg(long, value_name = "BOOKS")]
    pub frequent_word_cap: Option<u32>,
    /// Seed of the generated collection.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Share of the generated books that are volumes binding 25-50
    /// consecutive works (500K-1M words at 20K words a work), labelled
    /// `contains` with every version of each work; shares above about 0.01
    /// give volumes back to back.
    #[arg(long, value_name = "P", default_value_t = 0.0, value_parser = share)]
    pub volume_share: f64,
    /// Write the collection's texts and ground truth to this directory
    /// (DIR/texts/KEY.txt, DIR/truth.tsv) instead of loading and measuring.
    #[arg(long, value_name = "DIR")]
    pub write_texts: Option<PathBuf>,
    /// Print the figures as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// A share in [0, 1].
fn share(text: &str) -> std::result::Result<f64, String> {
    let p: f64 = text.parse().map_err(|e| format!("{text}: {e}"))?;
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{text}: a share is between 0 and 1"))
    }
}

#[derive(serde::Serialize)]
struct Figures {
    mode: &'static str,
    threads: usize,
    /// The collection's seed and mean words per original work; `None` with
    /// `--index` and `--skip-self-join` (nothing is generated).
    seed: Option<u64>,
    words_per_original: Option<usize>,
    /// Whether an existing index was measured (`--index`): no ingest.
    existing_index: bool,
    collection: Collection,
    /// `None` with `--index`.
    ingest: Option<Ingest>,
    index: IndexSize,
    /// `None` with `--skip-self-join`.
    self_join: Option<SelfJoin>,
    reader: ReaderFigures,
    queries: Queries,
    fresh_query: FreshQuery,
}

#[derive(serde::Serialize)]
struct Collection {
    books: u64,
    /// The text figures and the ground truth are `None` with `--index`
    /// and `--skip-self-join` (the collection is not generated again).
    text_mb: Option<f64>,
    text_mb_per_book: Option<f64>,
    edition_pairs: Option<u64>,
    contains_pairs: Option<u64>,
    /// Contains pairs whose container is a volume (with --volume-share).
    #[serde(skip_serializing_if = "Option::is_none")]
    volume_pairs: Option<u64>,
}

/// Per core = per CPU-second (user + system) of this process during ingest.
#[derive(serde::Serialize)]
struct Ingest {
    /// Books loaded.
    books: u64,
    wall_s: f64,
    books_per_s: f64,
    mb_per_s: f64,
    process_cpu_s: f64,
    generator_cpu_s: f64,
    books_per_s_per_core_excl_generation: f64,
    mb_per_s_per_core_excl_generation: f64,
    books_per_s_per_core_incl_generation: f64,
    mb_per_s_per_core_incl_generation: f64,
    generator_books_per_s_per_core: f64,
    skipped: usize,
    /// The index directory's largest size during the load, sampled every
    /// [`DISK_SAMPLE_INTERVAL`]: its last compaction writes each merged
    /// group beside the segments it replaces.
    peak_index_bytes: u64,
    /// What the load warned of: a compaction at its end that failed (the
    /// books are committed, but the index keeps its batch segments).
    warnings: Vec<String>,
    target_books_per_s_per_core_at_100k_words: f64,
}

#[derive(serde::Serialize)]
struct IndexSize {
    bytes: u64,
    bytes_per_book: f64,
    text_bytes_per_book: Option<f64>,
}

#[derive(serde::Serialize)]
struct SelfJoin {
    wall_s: f64,
    /// Counts the index's mapped pages the join touched.
    peak_rss_mib: f64,
    /// The heap and stacks alone: what the join needs beside the page cache.
    peak_anon_mib: f64,
    pairs_found: u64,
    edition: Recall,
    contains: Recall,
    /// The contains pairs of a volume (with --volume-share).
    #[serde(skip_serializing_if = "Option::is_none")]
    volume: Option<Recall>,
    not_in_truth: u64,
    target_wall_s_at_100k_books: f64,
    target_peak_rss_gib_at_100k_books: f64,
}

#[derive(serde::Serialize, Default)]
struct Recall {
    truth: u64,
    found: u64,
    /// `found / truth`; `None` when the collection has no such pair.
    recall: Option<f64>,
}

/// A reader opened in a fresh process (the approximate-mode probe).
#[derive(serde::Serialize)]
struct ReaderFigures {
    open_ms: f64,
    index_open_ms: f64,
    reader_ms: f64,
    /// The probe process before the open.
    rss_before_open_mib: Option<f64>,
    rss_after_open_mib: Option<f64>,
    rss_anon_after_open_mib: Option<f64>,
    rss_file_after_open_mib: Option<f64>,
    peak_rss_after_open_mib: Option<f64>,
    target_open_ms: f64,
    /// RSS after open: at most this share of today's main (compare runs).
    target_rss_share_of_main: f64,
}

/// Top-10 queries in a fresh process per mode: the first after the open,
/// then `count` more.
#[derive(serde::Serialize)]
struct Queries {
    count: usize,
    approximate: Probe,
    exact: Probe,
    target_p95_ms: f64,
}

/// `stemmata query` as a fresh process, end to end, in each mode.
#[derive(serde::Serialize)]
struct FreshQuery {
    runs: usize,
    approximate: FreshQueries,
    exact: FreshQueries,
    target_ms: f64,
}

pub fn run(args: ScaleArgs) -> Result<ExitCode> {
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |n| n.get(),
    );
    let mode = args.mode.mode();
    let options = StreamOptions {
        volume_share: args.volume_share,
        ..StreamOptions::new(args.books.get(), args.words.get(), args.seed)
    };
    if let Some(out) = &args.write_texts {
        return write_texts(&options, out, args.json);
    }
    let volumes = args.volume_share > 0.0;
    let note = |what: &str| {
        if !args.json {
            eprintln!("… {what}");
        }
    };
    let search = Search {
        mode,
        frequent_word_cap: args.frequent_word_cap,
    };
    let _index_temp;
    let (dir, ingest, generated) = match &args.index {
        Some(dir) => {
            _index_temp = None;
            let books = Index::open_read_only(dir)?.stats()?.books;
            let generated = if args.skip_self_join {
                None
            } else {
                if books != options.books as u64 {
                    return Err(Error::InvalidArgument(format!(
                        "{}: the index holds {books} books, not --books {}; the self-join is scored \
                         against the collection of --books, --words, --seed and --volume-share \
                         (or pass --skip-self-join)",
                        dir.display(),
                        options.books
                    )));
                }
                note(&format!(
                    "generating the ground truth of {} books",
                    options.books
                ));
                Some(regenerate(&options, args.json))
            };
            (dir.clone(), None, generated.map(|g| (g, books)))
        }
        None => {
            if let Some(dir) = &args.dir {
                let used = std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some());
                if used {
                    return Err(Error::InvalidArgument(format!(
                        "{}: the directory is not empty; measure an index there with --index, \
                         or name a new --dir",
                        dir.display()
                    )));
                }
            }
            let (index, dir, temp) = new_index(args.dir.as_deref())?;
            _index_temp = temp;
            note(&format!("generating and loading {} books", options.books));
            let (ingest, truth, text_bytes) = ingest(index, &dir, &options, threads, args.json)?;
            let books = ingest.books;
            (dir, Some(ingest), Some(((truth, text_bytes), books)))
        }
    };
    let self_join = match (&generated, args.skip_self_join) {
        (Some(((truth, _), _)), false) => {
            note("self-join (stemmata pairs)");
            let scratch = temp_dir()?;
            let pairs_file = scratch.path().join("pairs.jsonl");
            let mut join = self_join(&dir, &pairs_file, search, threads, args.json, truth)?;
            if !volumes {
                join.volume = None;
            }
            Some(join)
        }
        _ => None,
    };
    note("reader open and top-10 queries (fresh processes)");
    let count = args.queries.get();
    let cap = args.frequent_word_cap;
    let fresh_runs = args.fresh_queries;
    let mut approximate = run_probe(&dir, Mode::Approximate, count, cap, fresh_runs)?;
    let keys = std::mem::take(&mut approximate.keys);
    let exact = run_probe(&dir, Mode::Exact, count, cap, 0)?;
    note(&format!("{fresh_runs} `stemmata query` processes per mode"));
    let fresh_query = FreshQuery {
        runs: keys.len(),
        approximate: fresh_queries(&dir, Mode::Approximate, &keys, cap)?,
        exact: fresh_queries(&dir, Mode::Exact, &keys, cap)?,
        target_ms: TARGET_FRESH_QUERY_MS,
    };
    let books = approximate.books;
    let text_bytes = generated.as_ref().map(|((_, bytes), _)| *bytes);
    let collection = collection(
        generated.as_ref().map(|((truth, _), _)| truth),
        books,
        text_bytes,
        volumes,
    );
    let index = index_size(&dir, books, text_bytes)?;
    let figures = Figures {
        mode: mode.name(),
        threads,
        seed: generated.is_some().then_some(args.seed),
        words_per_original: generated.is_some().then_some(args.words.get()),
        existing_index: args.index.is_some(),
        collection,
        ingest,
        index,
        self_join,
        reader: reader_figures(&approximate),
        queries: Queries {
            count,
            approximate,
            exact,
            target_p95_ms: TARGET_QUERY_P95_MS,
        },
        fresh_query,
    };
    if args.json {
        print_json(&figures)?;
    } else {
        print_figures(&figures)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn reader_figures(probe: &Probe) -> ReaderFigures {
    ReaderFigures {
        open_ms: probe.open_ms,
        index_open_ms: probe.index_open_ms,
        reader_ms: probe.reader_ms,
        rss_before_open_mib: probe.before_open.rss_mib,
        rss_after_open_mib: probe.after_open.rss_mib,
        rss_anon_after_open_mib: probe.after_open.rss_anon_mib,
        rss_file_after_open_mib: probe.after_open.rss_file_mib,
        peak_rss_after_open_mib: probe.after_open.peak_rss_mib,
        target_open_ms: TARGET_OPEN_MS,
        target_rss_share_of_main: TARGET_RSS_SHARE_OF_MAIN,
    }
}

/// The ground truth and text bytes of the collection of `options`, generated
/// again without loading it.
fn regenerate(options: &StreamOptions, quiet: bool) -> (GroundTruth, u64) {
    let progress = bar(options.books as u64, "generate", quiet);
    let mut truth = GroundTruth::new();
    let mut bytes = 0;
    for book in stream(options) {
        truth.record(&book);
        bytes += book.text.len() as u64;
        progress.inc(1);
    }
    progress.finish_and_clear();
    (truth, bytes)
}

fn collection(
    truth: Option<&GroundTruth>,
    books: u64,
    text_bytes: Option<u64>,
    volumes: bool,
) -> Collection {
    let text_mb = text_bytes.map(|bytes| bytes as f64 / 1e6);
    Collection {
        books,
        text_mb,
        text_mb_per_book: text_mb.map(|mb| mb / books.max(1) as f64),
        edition_pairs: truth.map(|t| t.pairs(SynthRelation::Edition)),
        contains_pairs: truth.map(|t| t.pairs(SynthRelation::Contains)),
        volume_pairs: truth.filter(|_| volumes).map(|t| t.volume_pairs()),
    }
}

/// Writes the collection of `options` as `out/texts/KEY.txt` and its related
/// pairs as `out/truth.tsv`.
fn write_texts(options: &StreamOptions, out: &Path, quiet: bool) -> Result<ExitCode> {
    use std::collections::HashMap;
    use std::io::Write;
    let texts = out.join("texts");
    std::fs::create_dir_all(&texts).map_err(io_error(&texts))?;
    let progress = bar(options.books as u64, "write", quiet);
    // Keys of each work's versions, and every container with its works.
    let mut versions: HashMap<usize, Vec<String>> = HashMap::new();
    let mut containers = Vec::new();
    for book in stream(options) {
        let path = texts.join(format!("{}.txt", book.key));
        std::fs::write(&path, &book.text).map_err(io_error(&path))?;
        if let Some(work) = book.family {
            versions.entry(work).or_default().push(book.key);
        } else if !book.contains.is_empty() {
            let volume = book.key.starts_with("vol");
            containers.push((book.key, book.contains, volume));
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    let path = out.join("truth.tsv");
    let file = File::create(&path).map_err(io_error(&path))?;
    let mut w = std::io::BufWriter::new(file);
    let mut lines = vec!["a\tb\trelation\tvolume".to_string()];
    let mut works: Vec<_> = versions.iter().collect();
    works.sort();
    for (_, keys) in works {
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                lines.push(format!("{a}\t{b}\tedition\t0"));
            }
        }
    }
    for (key, works, volume) in &containers {
        for work in works {
            for version in versions.get(work).into_iter().flatten() {
                lines.push(format!("{key}\t{version}\tcontains\t{}", u8::from(*volume)));
            }
        }
    }
    for line in &lines {
        writeln!(w, "{line}").map_err(io_error(&path))?;
    }
    w.flush().map_err(io_error(&path))?;
    if !quiet {
        eprintln!(
            "wrote {} books to {} and {} related pairs to {}",
            options.books,
            texts.display(),
            lines.len() - 1,
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What the generator thread made, and the CPU time it took.
struct Generated {
    truth: GroundTruth,
    cpu: Duration,
}

/// Streams the books into `tx` until the stream ends or the loader stops.
fn generate_into(options: StreamOptions, tx: Sender<Document>) -> Result<Generated> {
    let started = thread_cpu()?;
    let mut truth = GroundTruth::new();
    for book in stream(&options) {
        truth.record(&book);
        let document = Document::new(book.key, book.text)
            .with_title(book.title)
            .with_author(book.author);
        if tx.send(document).is_err() {
            break;
        }
    }
    Ok(Generated {
        truth,
        cpu: thread_cpu()? - started,
    })
}

/// How often a load's index directory is measured for its peak size.
const DISK_SAMPLE_INTERVAL: Duration = Duration::from_secs(1);

/// Loads the streamed books into `index`, in `dir`, generating them on a
/// thread of their own; returns the figures, the ground truth and the text
/// bytes loaded.
fn ingest(
    index: Index,
    dir: &Path,
    options: &StreamOptions,
    threads: usize,
    quiet: bool,
) -> Result<(Ingest, GroundTruth, u64)> {
    let (tx, rx) = bounded::<Document>(threads * 2);
    let measured = dir.to_path_buf();
    // A file removed while the directory is walked fails that sample only.
    let disk = PeakSampler::start(DISK_SAMPLE_INTERVAL, move || {
        dir_bytes(&measured).ok().map(|bytes| bytes as f64)
    });
    let cpu_before = process_cpu()?;
    let started = Instant::now();
    let producer = {
        let options = options.clone();
        std::thread::spawn(move || generate_into(options, tx))
    };
    let progress = bar(options.books as u64, "ingest", quiet);
    let mut loader = index.bulk_loader(LoadOptions::default().threads(threads))?;
    let report = progress.clone();
    loader.on_progress(move |event| {
        if let LoadEvent::Added { .. } = event {
            report.inc(1);
        }
    });
    loader.extend(rx.into_iter().map(Ok))?;
    let stats = loader.finish()?;
    let wall = started.elapsed();
    let peak_index_bytes = disk.stop() as u64;
    for warning in &stats.warnings {
        eprintln!("warning: {warning}");
    }
    let generated = producer
        .join()
        .map_err(|_| Error::InvalidArgument("the generator thread panicked".into()))??;
    let cpu = process_cpu()? - cpu_before;
    progress.finish_and_clear();
    let figures = ingest_figures(&stats, wall, cpu, generated.cpu, peak_index_bytes);
    Ok((figures, generated.truth, stats.bytes))
}

fn ingest_figures(
    stats: &LoadStats,
    wall: Duration,
    cpu: Duration,
    gen: Duration,
    peak_index_bytes: u64,
) -> Ingest {
    let (books, mb) = (stats.books as f64, stats.bytes as f64 / 1e6);
    let (wall, cpu, gen) = (secs(wall), secs(cpu), secs(gen));
    let loader_cpu = (cpu - gen).max(1e-9);
    Ingest {
        books: stats.books,
        wall_s: wall,
        books_per_s: books / wall,
        mb_per_s: mb / wall,
        process_cpu_s: cpu,
        generator_cpu_s: gen,
        books_per_s_per_core_excl_generation: books / loader_cpu,
        mb_per_s_per_core_excl_generation: mb / loader_cpu,
        books_per_s_per_core_incl_generation: books / cpu,
        mb_per_s_per_core_incl_generation: mb / cpu,
        generator_books_per_s_per_core: books / gen,
        skipped: stats.skipped.len(),
        peak_index_bytes,
        warnings: stats.warnings.clone(),
        target_books_per_s_per_core_at_100k_words: TARGET_INGEST_BOOKS_PER_CORE,
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64().max(1e-9)
}

fn io_error(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io {
        path: path.into(),
        source,
    }
}

/// Bytes of every file under `dir`.
fn dir_bytes(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let metadata = entry.metadata().map_err(io_error(entry.path()))?;
        total += if metadata.is_dir() {
            dir_bytes(&entry.path())?
        } else {
            metadata.len()
        };
    }
    Ok(total)
}

fn index_size(dir: &Path, books: u64, text_bytes: Option<u64>) -> Result<IndexSize> {
    let bytes = dir_bytes(dir)?;
    let books = books.max(1) as f64;
    Ok(IndexSize {
        bytes,
        bytes_per_book: bytes as f64 / books,
        text_bytes_per_book: text_bytes.map(|t| t as f64 / books),
    })
}

/// Runs `stemmata pairs` on the index as a child process writing JSON Lines
/// to `out`, and scores what it found against `truth`.
/// How the self-join and the queries find candidates.
#[derive(Clone, Copy)]
struct Search {
    mode: Mode,
    frequent_word_cap: Option<u32>,
}

fn self_join(
    dir: &Path,
    out: &Path,
    search: Search,
    threads: usize,
    quiet: bool,
    truth: &GroundTruth,
) -> Result<SelfJoin> {
    let mode = search.mode;
    let mut args: Vec<OsString> = vec!["pairs".into(), dir.into()];
    args.extend(["--mode", mode.name()].map(OsString::from));
    if let Some(cap) = search.frequent_word_cap {
        args.extend(["--frequent-word-cap".into(), cap.to_string().into()]);
    }
    args.extend(["--threads".into(), threads.to_string().into()]);
    args.extend(["--json".into(), "--output".into(), out.into()]);
    if quiet {
        args.push("--quiet".into());
    }
    let what = format!("stemmata pairs {} --mode {}", dir.display(), mode.name());
    let finished = run_child(&args, &what, false)?;
    let mut join = score_pairs(out, truth)?;
    join.wall_s = secs(finished.wall);
    join.peak_rss_mib = finished.peak_rss_mib;
    join.peak_anon_mib = finished.peak_anon_mib;
    Ok(join)
}

#[derive(serde::Deserialize)]
struct PairKeys {
    a: String,
    b: String,
}

/// Counts the pairs in the JSON Lines file `path` by their relation in `truth`.
fn score_pairs(path: &Path, truth: &GroundTruth) -> Result<SelfJoin> {
    let file = File::open(path).map_err(io_error(path))?;
    let (mut edition, mut contains) = (Recall::default(), Recall::default());
    let mut volume = Recall::default();
    let (mut found, mut offset, mut not_in_truth) = (0, 0u64, 0);
    for line in BufReader::new(file).lines() {
        let line = line.map_err(io_error(path))?;
        let pair: PairKeys = serde_json::from_str(&line).map_err(|e| {
            Error::corrupted_at(path.to_path_buf(), offset, format!("pair line: {e}"))
        })?;
        offset += line.len() as u64 + 1;
        found += 1;
        match truth.relation(&pair.a, &pair.b) {
            Some(SynthRelation::Edition) => edition.found += 1,
            Some(SynthRelation::Contains) => {
                contains.found += 1;
                let in_volume = truth.is_volume(&pair.a) || truth.is_volume(&pair.b);
                volume.found += u64::from(in_volume);
            }
            None => not_in_truth += 1,
        }
    }
    Ok(SelfJoin {
        wall_s: 0.0,
        peak_rss_mib: 0.0,
        peak_anon_mib: 0.0,
        pairs_found: found,
        edition: with_truth(edition, truth.pairs(SynthRelation::Edition)),
        contains: with_truth(contains, truth.pairs(SynthRelation::Contains)),
        volume: Some(with_truth(volume, truth.volume_pairs())),
        not_in_truth,
        target_wall_s_at_100k_books: TARGET_SELF_JOIN_SECS_AT_100K,
        target_peak_rss_gib_at_100k_books: TARGET_SELF_JOIN_GIB_AT_100K,
    })
}

fn with_truth(found: Recall, truth: u64) -> Recall {
    Recall {
        truth,
        recall: (truth > 0).then(|| found.found as f64 / truth as f64),
        ..found
    }
}

/// Resource usage of this process (`RUSAGE_SELF`).
fn rusage(who: libc::c_int) -> Result<libc::rusage> {
    // SAFETY: `rusage` is plain integers, valid when zeroed, and getrusage
    // only writes into the struct it is given.
    let (rc, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::getrusage(who, &mut usage), usage)
    };
    if rc != 0 {
        return Err(io_error("<getrusage>")(std::io::Error::last_os_error()));
    }
    Ok(usage)
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// User + system CPU time of this process so far.
fn process_cpu() -> Result<Duration> {
    let usage = rusage(libc::RUSAGE_SELF)?;
    Ok(timeval(usage.ru_utime) + timeval(usage.ru_stime))
}

/// CPU time of the calling thread so far.
fn thread_cpu() -> Result<Duration> {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes into the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    if rc != 0 {
        return Err(io_error("<clock_gettime>")(std::io::Error::last_os_error()));
    }
    Ok(Duration::new(time.tv_sec as u64, time.tv_nsec as u32))
}

fn percent(recall: &Recall) -> String {
    match recall.recall {
        Some(r) => format!("{:.1}% ({}/{})", r * 100.0, recall.found, recall.truth),
        None => "n/a (none generated)".to_string(),
    }
}

fn mb(m: Option<f64>) -> String {
    m.map_or_else(|| "n/a".to_string(), |m| format!("{m:.0} MiB"))
}

fn print_figures(f: &Figures) -> stemmata::Result<()> {
    let c = &f.collection;
    let existing = if f.existing_index {
        "existing index of "
    } else {
        ""
    };
    match (f.words_per_original, f.seed) {
        (Some(words), Some(seed)) => outln!(
            "bench-scale: {existing}{} books of about {words} words (seed {seed}), {} mode, {} threads",
            c.books, f.mode, f.threads
        )?,
        _ => outln!(
            "bench-scale: {existing}{} books, {} threads",
            c.books, f.threads
        )?,
    }
    if let (Some(text_mb), Some(per_book), Some(edition), Some(contains)) = (
        c.text_mb,
        c.text_mb_per_book,
        c.edition_pairs,
        c.contains_pairs,
    ) {
        outln!(
            "collection: {text_mb:.1} MB of text ({per_book:.3} MB/book); ground truth {edition} edition pairs, {contains} contains pairs"
        )?;
    }
    if let Some(pairs) = c.volume_pairs {
        outln!("  of the contains pairs, {pairs} have a volume as the container")?;
    }
    if let Some(ingest) = &f.ingest {
        print_ingest(ingest, f.threads)?;
    }
    match f.index.text_bytes_per_book {
        Some(text) => outln!(
            "index: {:.1} MB on disk = {:.1} KB/book ({:.1}% of the {:.1} KB of text per book)",
            f.index.bytes as f64 / 1e6,
            f.index.bytes_per_book / 1e3,
            f.index.bytes_per_book / text.max(1e-9) * 100.0,
            text / 1e3
        )?,
        None => outln!(
            "index: {:.1} MB on disk = {:.1} KB/book",
            f.index.bytes as f64 / 1e6,
            f.index.bytes_per_book / 1e3
        )?,
    }
    if let Some(join) = &f.self_join {
        print_self_join(join, f.mode)?;
    }
    print_reader(&f.reader)?;
    print_queries(&f.queries)?;
    print_fresh(&f.fresh_query)?;
    Ok(())
}

fn print_ingest(i: &Ingest, threads: usize) -> stemmata::Result<()> {
    outln!(
        "ingest: {} books in {:.2} s wall, {:.1} books/s, {:.1} MB/s on {threads} threads; {} skipped",
        i.books, i.wall_s, i.books_per_s, i.mb_per_s, i.skipped
    )?;
    outln!(
        "  per core = per CPU-second of this process ({:.1} CPU-s, of which the generator {:.1})",
        i.process_cpu_s,
        i.generator_cpu_s
    )?;
    outln!(
        "  excluding generation: {:.1} books/s/core, {:.1} MB/s/core   [target ≥ {:.0} books/s/core at 100K words]",
        i.books_per_s_per_core_excl_generation,
        i.mb_per_s_per_core_excl_generation,
        i.target_books_per_s_per_core_at_100k_words
    )?;
    outln!(
        "  including generation: {:.1} books/s/core, {:.1} MB/s/core; the generator alone: {:.1} books/s/core",
        i.books_per_s_per_core_incl_generation,
        i.mb_per_s_per_core_incl_generation,
        i.generator_books_per_s_per_core
    )?;
    outln!(
        "  index on disk at its largest during the load: {:.1} MB (a merge writes beside its inputs)",
        i.peak_index_bytes as f64 / 1e6
    )?;
    Ok(())
}

fn print_self_join(s: &SelfJoin, mode: &str) -> stemmata::Result<()> {
    outln!(
        "self-join (child `stemmata pairs --mode {mode}`): {:.2} s wall, peak RSS {:.0} MiB (anonymous {:.0} MiB, the rest the index's mapped pages)   [target at 100K books: ≤ {:.0} min, ≤ {:.0} GiB]",
        s.wall_s,
        s.peak_rss_mib,
        s.peak_anon_mib,
        s.target_wall_s_at_100k_books / 60.0,
        s.target_peak_rss_gib_at_100k_books
    )?;
    outln!(
        "  {} pairs found; recall: edition {}, contains {}; {} found pairs not in the ground truth",
        s.pairs_found,
        percent(&s.edition),
        percent(&s.contains),
        s.not_in_truth
    )?;
    if let Some(volume) = &s.volume {
        outln!(
            "  recall of the contains pairs of a volume: {}",
            percent(volume)
        )?;
    }
    Ok(())
}

fn print_reader(r: &ReaderFigures) -> stemmata::Result<()> {
    outln!(
        "reader (fresh process): open {:.1} ms (index {:.1} ms, reader {:.1} ms)   [target ≤ {:.0} ms]",
        r.open_ms, r.index_open_ms, r.reader_ms, r.target_open_ms
    )?;
    outln!(
        "  RSS {} before open, {} after (anonymous {}, file-backed {}; peak {})   [target ≤ {:.0}% of today's main]",
        mb(r.rss_before_open_mib),
        mb(r.rss_after_open_mib),
        mb(r.rss_anon_after_open_mib),
        mb(r.rss_file_after_open_mib),
        mb(r.peak_rss_after_open_mib),
        r.target_rss_share_of_main * 100.0
    )?;
    Ok(())
}

fn print_queries(q: &Queries) -> stemmata::Result<()> {
    for p in [&q.approximate, &q.exact] {
        outln!(
            "queries, top-10 {} (fresh process, open {:.1} ms): first {:.2} ms; then {} queries: median {:.2} ms, p95 {:.2} ms; RSS after {}   [target p95 ≤ {:.0} ms]",
            p.mode,
            p.open_ms,
            p.first_query_ms,
            p.count,
            p.median_ms,
            p.p95_ms,
            mb(p.after_queries.rss_mib),
            q.target_p95_ms
        )?;
    }
    Ok(())
}

fn print_fresh(f: &FreshQuery) -> stemmata::Result<()> {
    for q in [&f.approximate, &f.exact] {
        outln!(
            "`stemmata query -k 10 --mode {}` as a fresh process, {} runs: median {:.1} ms, p95 {:.1} ms, peak RSS {:.0} MiB   [target ≤ {:.0} ms]",
            q.mode, q.runs, q.median_ms, q.p95_ms, q.peak_rss_mib, f.target_ms
        )?;
    }
    Ok(())
}
