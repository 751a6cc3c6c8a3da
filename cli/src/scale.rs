//! `stemmata bench-scale`: the engine at collection scale. Streams a generated
//! collection into a new index (ingest per core, with and without the
//! generator's own CPU), measures the index on disk, runs the all-pairs
//! self-join as a child `stemmata pairs` process (wall time, peak memory,
//! recall against the generated ground truth) and times top-10 queries in
//! this process, each figure printed next to its target.

use clap::{Args, ValueEnum};
use crossbeam::channel::{bounded, Sender};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use stemmata::{
    Document, Error, Index, LoadEvent, LoadOptions, LoadStats, Mode, QueryOptions, Result,
};
use stemmata_synth::{stream, GroundTruth, StreamOptions, SynthRelation};

use crate::output::{bar, new_index, print_json, temp_dir};

/// Targets the figures are printed next to.
const TARGET_INGEST_BOOKS_PER_CORE: f64 = 50.0;
const TARGET_SELF_JOIN_SECS_AT_100K: f64 = 15.0 * 60.0;
const TARGET_SELF_JOIN_GIB_AT_100K: f64 = 8.0;
const TARGET_QUERY_MEDIAN_MS: f64 = 20.0;

/// The long help of `stemmata bench-scale`.
pub const ABOUT: &str = "\
Measure the engine at collection scale on generated books.

Generates --books books of about --words words on the fly (works with 0-2 \
OCR-noisy editions, anthologies of neighbouring works, unrelated books, and \
with --volume-share volumes binding 25-50 consecutive works; deterministic \
from --seed) and bulk-loads them into a new index, then:

  ingest     books and MB per second per core, where per core means per \
CPU-second (user + system) of this process: excluding generation (the \
generator thread's CPU time subtracted) and including it; target >= 50 \
books/s/core at 20K words, excluding generation
  index      bytes on disk per book, next to text bytes per book
  self-join  `stemmata pairs --mode MODE` run as a child process: wall time, \
peak RSS, pairs found, recall of the generated edition and contains pairs, \
found pairs not in the ground truth, and with volumes the recall of the \
contains pairs of a volume; target at 100K books <= 15 min and <= 8 GiB
  queries    reader open time and RSS, then --queries top-10 queries by key: \
median and p95 latency; target median <= 20 ms

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
    /// Top-10 queries to time.
    #[arg(long, default_value = "200")]
    pub queries: NonZeroUsize,
    /// Candidates of the self-join and queries: approximate (band tables)
    /// or exact (unique-word postings).
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

#[derive(Clone, Copy, ValueEnum)]
pub enum ModeArg {
    /// Candidates from the min-hash and simhash band tables.
    Approximate,
    /// Candidates from the unique-word postings: every pair the score admits.
    Exact,
}

impl ModeArg {
    fn mode(self) -> Mode {
        match self {
            ModeArg::Approximate => Mode::Approximate,
            ModeArg::Exact => Mode::Exact,
        }
    }
}

#[derive(serde::Serialize)]
struct Figures {
    mode: &'static str,
    threads: usize,
    seed: u64,
    words_per_original: usize,
    collection: Collection,
    ingest: Ingest,
    index: IndexSize,
    self_join: SelfJoin,
    queries: Queries,
}

#[derive(serde::Serialize)]
struct Collection {
    books: u64,
    text_mb: f64,
    text_mb_per_book: f64,
    edition_pairs: u64,
    contains_pairs: u64,
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
    target_books_per_s_per_core: f64,
}

#[derive(serde::Serialize)]
struct IndexSize {
    bytes: u64,
    bytes_per_book: f64,
    text_bytes_per_book: f64,
}

#[derive(serde::Serialize)]
struct SelfJoin {
    wall_s: f64,
    peak_rss_mib: f64,
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

#[derive(serde::Serialize)]
struct Queries {
    reader_open_s: f64,
    rss_after_open_mib: Option<f64>,
    peak_rss_after_open_mib: Option<f64>,
    count: usize,
    median_ms: f64,
    p95_ms: f64,
    target_median_ms: f64,
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
    let (index, dir, _index_temp) = new_index(args.dir.as_deref())?;
    note(&format!("generating and loading {} books", options.books));
    let (ingest, truth, text_bytes) = ingest(index, &options, threads, args.json)?;
    let collection = collection(&truth, truth.len() as u64, text_bytes, volumes);
    let index = index_size(&dir, ingest.books, text_bytes)?;
    note("self-join (stemmata pairs)");
    let scratch = temp_dir()?;
    let pairs_file = scratch.path().join("pairs.jsonl");
    let search = Search {
        mode,
        frequent_word_cap: args.frequent_word_cap,
    };
    let mut self_join = self_join(&dir, &pairs_file, search, threads, args.json, &truth)?;
    if !volumes {
        self_join.volume = None;
    }
    note("top-10 queries");
    let queries = time_queries(&dir, search, args.queries.get())?;
    let figures = Figures {
        mode: mode.name(),
        threads,
        seed: args.seed,
        words_per_original: args.words.get(),
        collection,
        ingest,
        index,
        self_join,
        queries,
    };
    if args.json {
        print_json(&figures)?;
    } else {
        print_figures(&figures);
    }
    Ok(ExitCode::SUCCESS)
}

fn collection(truth: &GroundTruth, books: u64, text_bytes: u64, volumes: bool) -> Collection {
    let text_mb = text_bytes as f64 / 1e6;
    Collection {
        books,
        text_mb,
        text_mb_per_book: text_mb / books.max(1) as f64,
        edition_pairs: truth.pairs(SynthRelation::Edition),
        contains_pairs: truth.pairs(SynthRelation::Contains),
        volume_pairs: volumes.then(|| truth.volume_pairs()),
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

/// Loads the streamed books into `index`, generating them on a thread of
/// their own; returns the figures, the ground truth and the text bytes loaded.
fn ingest(
    index: Index,
    options: &StreamOptions,
    threads: usize,
    quiet: bool,
) -> Result<(Ingest, GroundTruth, u64)> {
    let (tx, rx) = bounded::<Document>(threads * 2);
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
    let generated = producer
        .join()
        .map_err(|_| Error::InvalidArgument("the generator thread panicked".into()))??;
    let cpu = process_cpu()? - cpu_before;
    progress.finish_and_clear();
    let figures = ingest_figures(&stats, wall, cpu, generated.cpu);
    Ok((figures, generated.truth, stats.bytes))
}

fn ingest_figures(stats: &LoadStats, wall: Duration, cpu: Duration, gen: Duration) -> Ingest {
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
        target_books_per_s_per_core: TARGET_INGEST_BOOKS_PER_CORE,
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

fn index_size(dir: &Path, books: u64, text_bytes: u64) -> Result<IndexSize> {
    let bytes = dir_bytes(dir)?;
    let books = books.max(1) as f64;
    Ok(IndexSize {
        bytes,
        bytes_per_book: bytes as f64 / books,
        text_bytes_per_book: text_bytes as f64 / books,
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
    let exe = std::env::current_exe().map_err(io_error("<current executable>"))?;
    let mut command = Command::new(&exe);
    let mode = search.mode;
    command.arg("pairs").arg(dir).arg("--mode").arg(mode.name());
    if let Some(cap) = search.frequent_word_cap {
        command.arg("--frequent-word-cap").arg(cap.to_string());
    }
    command.arg("--threads").arg(threads.to_string());
    command.arg("--json").arg("--output").arg(out);
    if quiet {
        command.arg("--quiet");
    }
    command.stdin(Stdio::null()).stdout(Stdio::null());
    let started = Instant::now();
    let status = command.status().map_err(io_error(&exe))?;
    let wall = secs(started.elapsed());
    if !status.success() {
        return Err(Error::InvalidArgument(format!(
            "`stemmata pairs {} --mode {}` failed ({status})",
            dir.display(),
            mode.name()
        )));
    }
    let peak_kib = rusage(libc::RUSAGE_CHILDREN)?.ru_maxrss as f64;
    let mut join = score_pairs(out, truth)?;
    join.wall_s = wall;
    join.peak_rss_mib = peak_kib / 1024.0;
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

/// Opens a reader on the index and times `count` top-10 queries by key.
fn time_queries(dir: &Path, search: Search, count: usize) -> Result<Queries> {
    let started = Instant::now();
    let mut reader = Index::open_read_only(dir)?.reader()?;
    if let Some(cap) = search.frequent_word_cap {
        reader = reader.with_frequent_word_cap(cap);
    }
    let mode = search.mode;
    let reader_open_s = secs(started.elapsed());
    let rss_after_open_mib = memory_status_mib("VmRSS:");
    let peak_rss_after_open_mib = memory_status_mib("VmHWM:");
    let options = QueryOptions::default().mode(mode).top_k(10);
    let books = reader.books();
    let mut millis = Vec::with_capacity(count);
    for i in 0..count {
        let key = &books[(i * 7919) % books.len()].key;
        let started = Instant::now();
        reader.query_key(key, &options)?;
        millis.push(secs(started.elapsed()) * 1e3);
    }
    millis.sort_by(f64::total_cmp);
    Ok(Queries {
        reader_open_s,
        rss_after_open_mib,
        peak_rss_after_open_mib,
        count,
        median_ms: millis[count / 2],
        p95_ms: millis[count * 95 / 100],
        target_median_ms: TARGET_QUERY_MEDIAN_MS,
    })
}

/// Resource usage of this process (`RUSAGE_SELF`) or of its waited-for
/// children (`RUSAGE_CHILDREN`; `ru_maxrss` is the largest child's peak, in KiB).
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

/// A memory figure of this process from `/proc/self/status` (Linux):
/// `VmRSS:` resident now, `VmHWM:` peak resident so far.
fn memory_status_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib as f64 / 1024.0)
}

fn percent(recall: &Recall) -> String {
    match recall.recall {
        Some(r) => format!("{:.1}% ({}/{})", r * 100.0, recall.found, recall.truth),
        None => "n/a (none generated)".to_string(),
    }
}

fn print_figures(f: &Figures) {
    let c = &f.collection;
    println!(
        "bench-scale: {} books of about {} words (seed {}), {} mode, {} threads",
        c.books, f.words_per_original, f.seed, f.mode, f.threads
    );
    println!(
        "collection: {:.1} MB of text ({:.3} MB/book); ground truth {} edition pairs, {} contains pairs",
        c.text_mb, c.text_mb_per_book, c.edition_pairs, c.contains_pairs
    );
    if let Some(pairs) = c.volume_pairs {
        println!("  of the contains pairs, {pairs} have a volume as the container");
    }
    print_ingest(&f.ingest, f.threads);
    println!(
        "index: {:.1} MB on disk = {:.1} KB/book ({:.1}% of the {:.1} KB of text per book)",
        f.index.bytes as f64 / 1e6,
        f.index.bytes_per_book / 1e3,
        f.index.bytes_per_book / f.index.text_bytes_per_book.max(1e-9) * 100.0,
        f.index.text_bytes_per_book / 1e3
    );
    print_self_join(&f.self_join, f.mode);
    print_queries(&f.queries, f.mode);
}

fn print_ingest(i: &Ingest, threads: usize) {
    println!(
        "ingest: {} books in {:.2} s wall, {:.1} books/s, {:.1} MB/s on {threads} threads; {} skipped",
        i.books, i.wall_s, i.books_per_s, i.mb_per_s, i.skipped
    );
    println!(
        "  per core = per CPU-second of this process ({:.1} CPU-s, of which the generator {:.1})",
        i.process_cpu_s, i.generator_cpu_s
    );
    println!(
        "  excluding generation: {:.1} books/s/core, {:.1} MB/s/core   [target ≥ {:.0} books/s/core at 20K words]",
        i.books_per_s_per_core_excl_generation,
        i.mb_per_s_per_core_excl_generation,
        i.target_books_per_s_per_core
    );
    println!(
        "  including generation: {:.1} books/s/core, {:.1} MB/s/core; the generator alone: {:.1} books/s/core",
        i.books_per_s_per_core_incl_generation,
        i.mb_per_s_per_core_incl_generation,
        i.generator_books_per_s_per_core
    );
}

fn print_self_join(s: &SelfJoin, mode: &str) {
    println!(
        "self-join (child `stemmata pairs --mode {mode}`): {:.2} s wall, peak RSS {:.0} MiB   [target at 100K books: ≤ {:.0} min, ≤ {:.0} GiB]",
        s.wall_s,
        s.peak_rss_mib,
        s.target_wall_s_at_100k_books / 60.0,
        s.target_peak_rss_gib_at_100k_books
    );
    println!(
        "  {} pairs found; recall: edition {}, contains {}; {} found pairs not in the ground truth",
        s.pairs_found,
        percent(&s.edition),
        percent(&s.contains),
        s.not_in_truth
    );
    if let Some(volume) = &s.volume {
        println!(
            "  recall of the contains pairs of a volume: {}",
            percent(volume)
        );
    }
}

fn print_queries(q: &Queries, mode: &str) {
    let mib = |m: Option<f64>| m.map_or_else(|| "n/a".to_string(), |m| format!("{m:.0} MiB"));
    println!(
        "reader: open {:.2} s; RSS after open {} (process peak so far {})",
        q.reader_open_s,
        mib(q.rss_after_open_mib),
        mib(q.peak_rss_after_open_mib)
    );
    println!(
        "queries: {} top-10 ({mode}): median {:.2} ms, p95 {:.2} ms   [target median ≤ {:.0} ms]",
        q.count, q.median_ms, q.p95_ms, q.target_median_ms
    );
}
