//! The reader and query figures of `stemmata bench-scale`, each measured in a
//! fresh process so that nothing of the ingest (its heap, its caches) counts:
//!
//! - `stemmata bench-scale-probe DIR --mode MODE` (hidden) opens a reader,
//!   reports its open time and the process's memory before and after the
//!   open, then times the first top-10 query after the open and `--queries`
//!   more, and prints it all as one JSON line;
//! - [`fresh_queries`] runs `stemmata query DIR --key KEY -k 10` as a new
//!   process per key and times each from spawn to exit.
//!
//! Each child runs as `stemmata bench-scale-peak --peak-file FILE -- ARGS`:
//! the same binary and code path as `stemmata ARGS`, which then writes its
//! own peak RSS and the peak of its anonymous memory (see [`run_child`]);
//! the wrapper adds one argument parse and a thread that samples the
//! anonymous memory ([`anon_peak`]).
//! The operating system's page cache is not dropped: "first query" means the
//! first in a fresh process, on files the cache may hold.

use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use stemmata::{Error, Index, Mode, QueryOptions, Result};

use crate::output::print_json;

/// The mode of the self-join and of a probe's queries.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Candidates from the min-hash and simhash band tables.
    Approximate,
    /// Candidates from the unique-word postings: every pair the score admits.
    Exact,
}

impl ModeArg {
    pub fn mode(self) -> Mode {
        match self {
            ModeArg::Approximate => Mode::Approximate,
            ModeArg::Exact => Mode::Exact,
        }
    }
}

/// Top-10 queries: the target of their p95 latency in each mode.
pub const TARGET_QUERY_P95_MS: f64 = 20.0;
/// The target of a reader's open time.
pub const TARGET_OPEN_MS: f64 = 100.0;
/// The target of `stemmata query` as a fresh process, end to end.
pub const TARGET_FRESH_QUERY_MS: f64 = 200.0;

/// Arguments of the hidden `stemmata bench-scale-probe`.
#[derive(Args)]
pub struct ProbeArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Candidates of the queries: approximate or exact.
    #[arg(long, value_enum, default_value = "approximate")]
    pub mode: ModeArg,
    /// Queries timed after the first one.
    #[arg(long, default_value = "200")]
    pub queries: usize,
    /// Exact mode: the frequent-word cap [default: the reader's].
    #[arg(long, value_name = "BOOKS")]
    pub frequent_word_cap: Option<u32>,
    /// Keys to list for fresh-process queries (a stride apart from those
    /// queried here).
    #[arg(long, default_value = "0")]
    pub keys: usize,
}

/// Memory of this process from `/proc/self/status`, in MiB (`None` where
/// the file or a field is missing, as off Linux).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Default, Debug)]
pub struct Memory {
    /// `VmRSS`: resident now.
    pub rss_mib: Option<f64>,
    /// `RssAnon`: resident anonymous memory (heap, stacks).
    pub rss_anon_mib: Option<f64>,
    /// `RssFile`: resident file-backed pages (the binary, memory maps).
    pub rss_file_mib: Option<f64>,
    /// `VmHWM`: peak resident so far.
    pub peak_rss_mib: Option<f64>,
}

impl Memory {
    fn now() -> Memory {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            let line = status.lines().find(|l| l.starts_with(name))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib as f64 / 1024.0)
        };
        Memory {
            rss_mib: field("VmRSS:"),
            rss_anon_mib: field("RssAnon:"),
            rss_file_mib: field("RssFile:"),
            peak_rss_mib: field("VmHWM:"),
        }
    }
}

/// What one probe process measured.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Probe {
    pub mode: String,
    /// Books the reader sees.
    pub books: u64,
    /// `Index::open_read_only`, then `Index::reader`, together.
    pub open_ms: f64,
    pub index_open_ms: f64,
    pub reader_ms: f64,
    /// The process before the open: its baseline.
    pub before_open: Memory,
    pub after_open: Memory,
    /// The first query after the open.
    pub first_query_ms: f64,
    /// The queries after the first.
    pub count: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
    pub after_queries: Memory,
    /// Keys for fresh-process queries (`--keys`); not part of the figures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// The slowest of the timed queries, slowest first, with what their
    /// plans did: where a p95 comes from.
    #[serde(default)]
    pub slowest: Vec<SlowQuery>,
}

/// One query of a probe and its plan's counts.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct SlowQuery {
    pub key: String,
    pub ms: f64,
    /// The query's `Explain`, as `stemmata query --explain --json` gives it.
    pub explain: serde_json::Value,
}

/// Queries a probe lists in [`Probe::slowest`].
const SLOWEST: usize = 5;

fn millis(d: Duration) -> f64 {
    d.as_secs_f64().max(1e-9) * 1e3
}

/// The `p`-th percentile of sorted `values` (nearest rank below); 0 when empty.
pub fn percentile(sorted: &[f64], p: usize) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

/// `stemmata bench-scale-probe`: runs in a fresh process, prints a [`Probe`].
pub fn probe(args: ProbeArgs) -> Result<ExitCode> {
    let mode: Mode = args.mode.mode();
    let before_open = Memory::now();
    let started = Instant::now();
    let index = Index::open_read_only(&args.index)?;
    let index_open = started.elapsed();
    let mut reader = index.reader()?;
    if let Some(cap) = args.frequent_word_cap {
        reader = reader.with_frequent_word_cap(cap);
    }
    let open = started.elapsed();
    let after_open = Memory::now();
    let books = reader.books();
    if books.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{}: the index holds no book to query",
            args.index.display()
        )));
    }
    let key = |i: usize, stride: usize| books[(i * stride) % books.len()].key.clone();
    let options = QueryOptions::default().mode(mode).top_k(10);
    let started = Instant::now();
    reader.query_key(&key(0, 1), &options)?;
    let first_query_ms = millis(started.elapsed());
    let mut times = Vec::with_capacity(args.queries);
    let mut slowest: Vec<SlowQuery> = Vec::with_capacity(SLOWEST + 1);
    for i in 1..=args.queries {
        let key = key(i, 7919);
        let started = Instant::now();
        let result = reader.query_key(&key, &options)?;
        let ms = millis(started.elapsed());
        times.push(ms);
        if slowest.len() < SLOWEST || slowest.last().is_some_and(|s| s.ms < ms) {
            let explain = serde_json::to_value(&result.explain).unwrap_or_default();
            slowest.push(SlowQuery { key, ms, explain });
            slowest.sort_by(|a, b| b.ms.total_cmp(&a.ms));
            slowest.truncate(SLOWEST);
        }
    }
    times.sort_by(f64::total_cmp);
    let after_queries = Memory::now();
    let keys = (0..args.keys).map(|i| key(i, 104_729)).collect();
    print_json(&Probe {
        mode: mode.name().to_string(),
        books: books.len() as u64,
        open_ms: millis(open),
        index_open_ms: millis(index_open),
        reader_ms: millis(open - index_open),
        before_open,
        after_open,
        first_query_ms,
        count: times.len(),
        median_ms: percentile(&times, 50),
        p95_ms: percentile(&times, 95),
        max_ms: times.last().copied().unwrap_or(0.0),
        after_queries,
        keys,
        slowest,
    })?;
    Ok(ExitCode::SUCCESS)
}

/// A child process run to its end: its output, wall time and peak memory.
pub struct Finished {
    pub stdout: Vec<u8>,
    pub wall: Duration,
    /// The child's own peak RSS (`VmHWM` at its end), in MiB. It counts the
    /// pages of the index's memory maps the child touched, which the kernel
    /// may drop and read again under memory pressure.
    pub peak_rss_mib: f64,
    /// The largest anonymous RSS (`RssAnon`: heap and stacks) sampled
    /// every [`ANON_SAMPLE_INTERVAL`], in MiB: the memory the child needs
    /// beside the page cache.
    pub peak_anon_mib: f64,
}

/// Runs `stemmata ARGS` as a child process, through the hidden
/// `stemmata bench-scale-peak --peak-file FILE -- ARGS`, which runs the
/// command in that process and then writes its own peak RSS to FILE.
///
/// The peak is not taken from `wait4` or `getrusage(RUSAGE_CHILDREN)`: on
/// Linux a child's `ru_maxrss` keeps the peak of the memory it was spawned
/// from (the parent's, after a vfork-style spawn), so a child of a process
/// that just ingested would report the ingest's memory. `VmHWM` belongs to
/// the memory of the new program alone. An error names `what` and holds
/// the child's stderr.
pub fn run_child(args: &[OsString], what: &str, keep_stdout: bool) -> Result<Finished> {
    let scratch = crate::output::temp_dir()?;
    let peak_file = scratch.path().join("peak");
    let mut command = Command::new(current_exe()?);
    command
        .arg("bench-scale-peak")
        .arg("--peak-file")
        .arg(&peak_file);
    command.arg("--").args(args);
    command.stdin(Stdio::null()).stderr(Stdio::piped());
    command.stdout(if keep_stdout {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let started = Instant::now();
    let output = command.output().map_err(|source| Error::Io {
        path: PathBuf::from(command.get_program()),
        source,
    })?;
    let wall = started.elapsed();
    if !output.status.success() {
        return Err(Error::InvalidArgument(format!(
            "`{what}` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let peak = std::fs::read_to_string(&peak_file).map_err(|source| Error::Io {
        path: peak_file.clone(),
        source,
    })?;
    let [peak_kib, anon_kib] = parse_peaks(&peak).ok_or_else(|| {
        Error::corrupted_at(peak_file.clone(), 0, format!("peak memory {peak:?}"))
    })?;
    Ok(Finished {
        stdout: output.stdout,
        wall,
        peak_rss_mib: peak_kib / 1024.0,
        peak_anon_mib: anon_kib / 1024.0,
    })
}

/// The peak RSS and the peak anonymous RSS, in KiB, from a peak file's
/// `PEAK_KIB ANON_KIB` line.
fn parse_peaks(text: &str) -> Option<[f64; 2]> {
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
    let peaks = [fields.next()??, fields.next()??];
    fields.next().is_none().then_some(peaks)
}

/// Arguments of the hidden `stemmata bench-scale-peak`.
#[derive(Args)]
pub struct PeakArgs {
    /// Where to write this process's peak RSS (`VmHWM`) and peak anonymous
    /// RSS, in KiB, once the command has run.
    #[arg(long, value_name = "FILE")]
    pub peak_file: PathBuf,
    /// The stemmata command and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<OsString>,
}

/// How often [`anon_peak`] samples the anonymous memory.
pub const ANON_SAMPLE_INTERVAL: Duration = Duration::from_millis(20);

/// A thread taking the largest of the values a sample gives, every
/// interval, until it is stopped: what the kernel keeps no peak of.
pub struct PeakSampler {
    stop: std::sync::mpsc::Sender<()>,
    sampler: std::thread::JoinHandle<f64>,
}

impl PeakSampler {
    /// Starts sampling `sample` every `interval` (a sample of `None` is
    /// passed over).
    pub fn start(
        interval: Duration,
        sample: impl Fn() -> Option<f64> + Send + 'static,
    ) -> PeakSampler {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let sampler = std::thread::spawn(move || {
            let mut peak: f64 = 0.0;
            loop {
                peak = peak.max(sample().unwrap_or(0.0));
                match stopped.recv_timeout(interval) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    // Stopped: one last sample, now.
                    _ => return peak.max(sample().unwrap_or(0.0)),
                }
            }
        });
        PeakSampler { stop, sampler }
    }

    /// Stops sampling; the largest value seen, a last sample taken now.
    pub fn stop(self) -> f64 {
        // A sampler whose channel closed has ended with its peak already.
        let _ = self.stop.send(());
        self.sampler.join().unwrap_or(0.0)
    }
}

/// A sampler of this process's anonymous RSS (`RssAnon`, MiB): the kernel
/// keeps the peak of the whole RSS (`VmHWM`), which counts the file-backed
/// pages of memory maps, but not of the anonymous part alone.
pub fn anon_peak() -> PeakSampler {
    PeakSampler::start(ANON_SAMPLE_INTERVAL, || Memory::now().rss_anon_mib)
}

/// Writes this process's peak RSS (`VmHWM`) and `anon_peak_mib`, in KiB
/// (0 off Linux), to `path` as one `PEAK_KIB ANON_KIB` line.
pub fn write_peak(path: &Path, anon_peak_mib: f64) -> Result<()> {
    let kib = Memory::now().peak_rss_mib.map_or(0.0, |mib| mib * 1024.0);
    let anon_kib = anon_peak_mib * 1024.0;
    std::fs::write(path, format!("{kib:.0} {anon_kib:.0}\n")).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn current_exe() -> Result<PathBuf> {
    std::env::current_exe().map_err(|source| Error::Io {
        path: "<current executable>".into(),
        source,
    })
}

/// Runs `stemmata bench-scale-probe` on `dir` in `mode` in a fresh process.
pub fn run_probe(
    dir: &Path,
    mode: Mode,
    queries: usize,
    frequent_word_cap: Option<u32>,
    keys: usize,
) -> Result<Probe> {
    let mut args: Vec<OsString> = vec!["bench-scale-probe".into(), dir.into()];
    args.extend(["--mode", mode.name()].map(OsString::from));
    args.extend(["--queries".into(), queries.to_string().into()]);
    args.extend(["--keys".into(), keys.to_string().into()]);
    if let Some(cap) = frequent_word_cap {
        args.extend(["--frequent-word-cap".into(), cap.to_string().into()]);
    }
    let what = format!(
        "stemmata bench-scale-probe {} --mode {}",
        dir.display(),
        mode.name()
    );
    let finished = run_child(&args, &what, true)?;
    serde_json::from_slice(&finished.stdout)
        .map_err(|e| Error::InvalidArgument(format!("`{what}` printed no probe figures: {e}")))
}

/// `stemmata query` as a fresh process per key, end to end.
#[derive(serde::Serialize, Clone, Debug)]
pub struct FreshQueries {
    pub mode: String,
    pub runs: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
    /// The largest peak RSS of one `stemmata query` process.
    pub peak_rss_mib: f64,
}

/// Runs `stemmata query DIR --key KEY -k 10 --mode MODE` once per key.
pub fn fresh_queries(
    dir: &Path,
    mode: Mode,
    keys: &[String],
    frequent_word_cap: Option<u32>,
) -> Result<FreshQueries> {
    let mut times = Vec::with_capacity(keys.len());
    let mut peak_rss_mib: f64 = 0.0;
    for key in keys {
        let mut args: Vec<OsString> = vec!["query".into(), dir.into()];
        args.extend(["--key", key, "-k", "10", "--mode", mode.name()].map(OsString::from));
        if let Some(cap) = frequent_word_cap {
            args.extend(["--frequent-word-cap".into(), cap.to_string().into()]);
        }
        let what = format!(
            "stemmata query {} --key {key} -k 10 --mode {}",
            dir.display(),
            mode.name()
        );
        let finished = run_child(&args, &what, false)?;
        times.push(millis(finished.wall));
        peak_rss_mib = peak_rss_mib.max(finished.peak_rss_mib);
    }
    times.sort_by(f64::total_cmp);
    Ok(FreshQueries {
        mode: mode.name().to_string(),
        runs: times.len(),
        median_ms: percentile(&times, 50),
        p95_ms: percentile(&times, 95),
        max_ms: times.last().copied().unwrap_or(0.0),
        peak_rss_mib,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peak_file_holds_the_peak_and_the_anonymous_peak() {
        assert_eq!(parse_peaks("5120 2048\n"), Some([5120.0, 2048.0]));
        assert_eq!(parse_peaks("5120\n"), None);
        assert_eq!(parse_peaks("5120 2048 1\n"), None);
        assert_eq!(parse_peaks("5120 many"), None);
    }

    #[test]
    fn the_anonymous_peak_sees_memory_freed_before_the_stop() {
        let sampler = anon_peak();
        let before = Memory::now().rss_anon_mib;
        let block = vec![1u8; 64 << 20];
        std::thread::sleep(ANON_SAMPLE_INTERVAL * 5);
        drop(std::hint::black_box(block));
        let peak = sampler.stop();
        if let Some(before) = before {
            assert!(
                peak >= before + 60.0,
                "peak {peak} MiB, before {before} MiB"
            );
        }
    }
}
