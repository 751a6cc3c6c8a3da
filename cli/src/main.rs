//! The `stemmata` command line: create, load and query an index from a shell.

/// Writes to standard output like `print!`, returning an error naming
/// `<stdout>` when the write fails (a full disk, a closed file) instead of
/// panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        crate::output::write_stdout(format_args!($($arg)*))
    };
}

/// Writes a line to standard output like `println!`, returning an error
/// naming `<stdout>` when the write fails instead of panicking.
macro_rules! outln {
    () => {
        crate::output::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        crate::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod align_cmds;
mod align_translation;
mod bench;
mod bench_images;
mod compact_cmd;
mod contact_sheet;
mod demo;
mod dictionary_cmds;
mod eval;
mod eval_alignment;
mod eval_images;
mod eval_relations;
mod eval_translations;
mod features_cmds;
mod generate;
mod generate_pages;
mod images_cmds;
mod index_cmds;
mod input;
mod messages;
mod metadata;
mod output;
mod scale;
mod scale_probe;
mod text_pair;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Find related books — duplicates, other editions, books contained in other
/// books — in large collections of noisy text.
///
/// An index is a directory. Create one, load texts into it, then query it
/// for one book or list every related pair. `stemmata demo` shows it all on
/// a generated collection.
#[derive(Parser)]
#[command(name = "stemmata", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create an empty index directory.
    Create(index_cmds::CreateArgs),
    /// Load books from .txt files, a directory of them, or JSON Lines.
    Load(index_cmds::LoadArgs),
    /// Find the books most related to one stored book or to a text file.
    Query(index_cmds::QueryArgs),
    /// List every related pair in the index (TSV or JSON Lines), ordered by
    /// the first book's internal id, then the second's: the same bytes for
    /// any number of threads.
    Pairs(index_cmds::PairsArgs),
    /// Write an index's book features as Parquet files (read-only on the
    /// index).
    #[command(long_about = features_cmds::EXPORT_ABOUT)]
    Export(features_cmds::ExportArgs),
    /// Load books from Parquet features files, as `export` writes them.
    #[command(long_about = features_cmds::IMPORT_ABOUT)]
    Import(features_cmds::ImportArgs),
    /// Delete books by key.
    Delete(index_cmds::DeleteArgs),
    /// Show counts of books, words and bytes.
    Stats(index_cmds::StatsArgs),
    /// Check every checksum and catalog entry of an index.
    Verify(index_cmds::VerifyArgs),
    /// Reclaim the space of deleted and replaced books.
    #[command(long_about = compact_cmd::ABOUT)]
    Compact(compact_cmd::CompactArgs),
    /// Add, list and remove the bilingual dictionaries of an index.
    #[command(long_about = dictionary_cmds::ABOUT)]
    Dictionary(dictionary_cmds::DictionaryArgs),
    /// Add and list the scanned books (page images with their OCR) whose
    /// words `spot` searches.
    #[command(long_about = images_cmds::ABOUT)]
    Images(images_cmds::ImagesArgs),
    /// Find a word in the index's scanned pages: rank the word images by a
    /// text query.
    #[command(long_about = images_cmds::SPOT_ABOUT)]
    Spot(images_cmds::SpotArgs),
    /// Upgrade an index written by an older stemmata, in place.
    #[command(long_about = index_cmds::UPGRADE_ABOUT)]
    Upgrade(index_cmds::UpgradeArgs),
    /// Align two texts word by word and character by character (RETAS), or
    /// a text with its translation word by word and passage by passage (RTA).
    Align(align_cmds::AlignArgs),
    /// Measure the character, word and stop-word accuracy of an OCR text
    /// against a clean copy.
    OcrAccuracy(align_cmds::OcrAccuracyArgs),
    /// Generate a sample collection, load it and show what is found.
    Demo(demo::DemoArgs),
    /// Measure precision and recall on a labelled corpus.
    Eval(eval::EvalArgs),
    /// Measure the passage mapping of translations (P@1 of `align
    /// --passages` against IBM Model 1) on a set with known correspondences.
    EvalAlignment(eval_alignment::EvalAlignmentArgs),
    /// Measure word-image search (MAP of text queries by OCR words, by
    /// word images, and both) on rendered page sets.
    #[command(long_about = eval_images::ABOUT)]
    EvalImages(eval_images::EvalImagesArgs),
    /// Write a labelled test collection (volumes, or noisy copies) for eval.
    #[command(long_about = generate::ABOUT)]
    Generate(generate::GenerateArgs),
    /// Set book texts as page images with their word boxes and Tesseract's
    /// OCR, a test collection for word-image search.
    #[command(long_about = generate_pages::ABOUT)]
    GeneratePages(generate_pages::GeneratePagesArgs),
    /// Measure verification, all-pairs, ingest and query speed.
    Bench(bench::BenchArgs),
    /// Time text queries over an index's word images, and describing pages.
    BenchImages(bench_images::BenchImagesArgs),
    /// Measure ingest, index size, the self-join and queries on N generated books.
    #[command(long_about = scale::ABOUT)]
    BenchScale(scale::ScaleArgs),
    /// Open a reader and time top-10 queries in this fresh process, for
    /// `bench-scale` (one JSON line).
    #[command(hide = true)]
    BenchScaleProbe(scale_probe::ProbeArgs),
    /// Run a stemmata command, then write this process's peak RSS to a
    /// file, for `bench-scale`.
    #[command(hide = true)]
    BenchScalePeak(scale_probe::PeakArgs),
}

fn main() -> ExitCode {
    // A closed pipe (`stemmata pairs … | head`) ends the program quietly, as
    // for any shell tool, instead of failing the next print.
    sigpipe::reset();
    let cli = Cli::parse();
    let writes = writes_index(&cli.command);
    panics::keep_quiet();
    match std::panic::catch_unwind(|| run(cli.command)) {
        Ok(Ok(code)) => code,
        Ok(Err(error)) => {
            let committed = if writes && output::is_stdout_error(&error) {
                "; the command's changes to the index are committed: only its report was lost"
            } else {
                ""
            };
            eprintln!("error: {error}{}{committed}", messages::advice(&error));
            ExitCode::from(1)
        }
        Err(_) => {
            eprintln!(
                "error: internal error ({}); nothing past the last commit was written. Please report it, with RUST_BACKTRACE=1 output",
                panics::last_message()
            );
            ExitCode::from(70)
        }
    }
}

/// Whether `command` changes an index: such a command prints its report
/// only after its commit.
fn writes_index(command: &Command) -> bool {
    match command {
        Command::Create(_)
        | Command::Load(_)
        | Command::Import(_)
        | Command::Delete(_)
        | Command::Compact(_)
        | Command::Upgrade(_) => true,
        Command::Dictionary(args) => {
            !matches!(args.command, dictionary_cmds::DictionaryCommand::List(_))
        }
        Command::Images(args) => matches!(args.command, images_cmds::ImagesCommand::Add(_)),
        _ => false,
    }
}

fn run(command: Command) -> stemmata::Result<ExitCode> {
    match command {
        Command::Create(args) => index_cmds::create(args),
        Command::Load(args) => index_cmds::load(args),
        Command::Query(args) => index_cmds::query(args),
        Command::Pairs(args) => index_cmds::pairs(args),
        Command::Export(args) => features_cmds::export(args),
        Command::Import(args) => features_cmds::import(args),
        Command::Delete(args) => index_cmds::delete(args),
        Command::Stats(args) => index_cmds::stats(args),
        Command::Verify(args) => index_cmds::verify(args),
        Command::Compact(args) => compact_cmd::compact(args),
        Command::Upgrade(args) => index_cmds::upgrade(args),
        Command::Dictionary(args) => dictionary_cmds::run(args),
        Command::Images(args) => images_cmds::run(args),
        Command::Spot(args) => images_cmds::spot(args),
        Command::Align(args) => align_cmds::align(args),
        Command::OcrAccuracy(args) => align_cmds::ocr_accuracy(args),
        Command::Demo(args) => demo::run(args),
        Command::Eval(args) => eval::run(args),
        Command::EvalAlignment(args) => eval_alignment::run(args),
        Command::EvalImages(args) => eval_images::run(args),
        Command::Generate(args) => generate::run(args),
        Command::GeneratePages(args) => generate_pages::run(args),
        Command::Bench(args) => bench::run(args),
        Command::BenchImages(args) => bench_images::run(args),
        Command::BenchScale(args) => scale::run(args),
        Command::BenchScaleProbe(args) => scale_probe::probe(args),
        Command::BenchScalePeak(args) => {
            let program = std::iter::once("stemmata".into());
            let cli = Cli::try_parse_from(program.chain(args.command))
                .map_err(|e| stemmata::Error::InvalidArgument(e.to_string()))?;
            let anon = scale_probe::anon_peak();
            let code = run(cli.command)?;
            scale_probe::write_peak(&args.peak_file, anon.stop())?;
            Ok(code)
        }
    }
}

/// Panics stay out of the user's terminal: the library turns those of its
/// dependencies into errors, and any other one is reported by `main` as an
/// internal error in one line, with the backtrace after it when
/// `RUST_BACKTRACE` is set. A contained panic prints nothing.
mod panics {
    use std::sync::Mutex;

    static LAST: Mutex<String> = Mutex::new(String::new());

    /// Replaces the panic hook with one that only remembers the message
    /// (and, under `RUST_BACKTRACE`, the backtrace).
    pub fn keep_quiet() {
        let backtraces = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let place = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let trace = if backtraces {
                format!("\n{}", std::backtrace::Backtrace::force_capture())
            } else {
                String::new()
            };
            if let Ok(mut last) = LAST.lock() {
                *last = format!("{message}{place}{trace}");
            }
        }));
    }

    /// The message of the last panic.
    pub fn last_message() -> String {
        LAST.lock().map(|m| m.clone()).unwrap_or_default()
    }
}
