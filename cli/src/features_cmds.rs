//! `export` and `import`: an index's book features as Parquet files (the
//! "Features" table of docs/batch-format.md), and an index built from
//! such files.

use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use stemmata::batch::FeatureOptions;
use stemmata::{Error, Index, LoadEvent, LoadOptions, Result};
use stemmata_parquet::{FeaturesReader, FeaturesWriter};

use crate::messages::{count, no_index};
use crate::output::{bar, print_json, print_load_outcome, refuse_inside_index};

pub const EXPORT_ABOUT: &str = "\
Write every live book of an index as one row of Parquet features: its key, \
title, author, language and counts, its unique-word sequences, min-hash \
signatures, page signatures, simhash and band keys: everything the index \
stores of it (docs/batch-format.md, \"Features\"). The files are \
DIR/features-00000.parquet, features-00001.parquet, …, in id order, \
zstd-compressed; their metadata holds the index's options. An index keeps \
neither a book's bytes, nor its invalid UTF-8 count, nor its encoding: \
those columns are 0, 0 and empty.

The index is only read. DIR is created if missing and must be empty (or, \
with --force, hold only features files, which are replaced), and must not \
be inside the index. A file is written under a .partial name and renamed \
when complete.";

pub const IMPORT_ABOUT: &str = "\
Load books from Parquet features files (docs/batch-format.md, \"Features\"), \
as `stemmata export` writes them or any engine that computes features with \
the same options: an index built from an export answers pairs and queries \
as the exported index does. INPUT is a .parquet file or a directory, whose \
*.parquet files load in name order; rows load in file order, and of two \
rows with one key the later wins.

Every file is checked before anything is written: its metadata (layout \
version, options equal to the index's), its schema, and every row (the key \
rule, parts, signatures, keys). A file that fails is named with its row \
and column, and the index is left as it was. With --create, a directory \
without an index gets one with the features' options.";

#[derive(Args)]
pub struct ExportArgs {
    /// The index directory (opened read-only).
    pub index: PathBuf,
    /// Directory for the features files (created if missing).
    pub dir: PathBuf,
    /// Books per file.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub rows_per_file: u64,
    /// Replace the features files DIR holds; any other file still makes
    /// the export refuse.
    #[arg(long)]
    pub force: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ImportArgs {
    /// The index directory.
    pub index: PathBuf,
    /// A features file (.parquet), or a directory of them.
    pub input: PathBuf,
    /// Create the index, with the features' options, if the directory
    /// holds none.
    #[arg(long)]
    pub create: bool,
    /// Worker threads for compressing the sequences [default: all cores].
    #[arg(long, value_parser = crate::input::parse_threads)]
    pub threads: Option<usize>,
    /// Books per catalog commit.
    #[arg(long, default_value_t = 1000)]
    pub batch_books: usize,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the load statistics as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `export --json` prints.
#[derive(serde::Serialize)]
struct ExportSummary {
    books: u64,
    files: Vec<PathBuf>,
    bytes: u64,
    elapsed_secs: f64,
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A features-file error as the command line reports it.
fn parquet_error(error: stemmata_parquet::Error) -> Error {
    Error::InvalidArgument(error.to_string())
}

/// The name of features file `n`.
fn file_name(n: u64) -> String {
    format!("features-{n:05}.parquet")
}

/// Whether `name` is one of the files an export writes (or its partial
/// file).
fn is_features_file(name: &str) -> bool {
    let stem = name
        .strip_suffix(".parquet.partial")
        .or_else(|| name.strip_suffix(".parquet"));
    stem.and_then(|s| s.strip_prefix("features-"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Makes `dir` ready for an export: created when missing; when it holds
/// files, refused unless `force` and they are all features files, which
/// are then removed.
fn prepare_export_dir(dir: &Path, force: bool) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        found.push((
            entry.file_name().to_string_lossy().into_owned(),
            entry.path(),
        ));
    }
    if found.is_empty() {
        return Ok(());
    }
    let others: Vec<&str> = found
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !is_features_file(name))
        .collect();
    if !force || !others.is_empty() {
        let what = match others.first() {
            Some(other) => format!("holds {other:?}, not a features file"),
            None => "holds features files; --force replaces them".to_string(),
        };
        return Err(Error::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("is not empty: it {what}; export to an empty or new directory"),
            ),
        });
    }
    for (_, path) in found {
        std::fs::remove_file(&path).map_err(io_error(&path))?;
    }
    Ok(())
}

/// An open features file being written, under its partial name.
struct OpenFile {
    writer: FeaturesWriter,
    partial: PathBuf,
    path: PathBuf,
}

impl OpenFile {
    fn create(dir: &Path, n: u64, options: &FeatureOptions) -> Result<OpenFile> {
        let path = dir.join(file_name(n));
        let partial = dir.join(format!("{}.partial", file_name(n)));
        let writer = FeaturesWriter::create(&partial, options).map_err(parquet_error)?;
        Ok(OpenFile {
            writer,
            partial,
            path,
        })
    }

    /// Completes the file and gives it its name: its bytes.
    fn finish(self) -> Result<(PathBuf, u64)> {
        let bytes = self.writer.finish().map_err(parquet_error)?;
        std::fs::rename(&self.partial, &self.path).map_err(io_error(&self.path))?;
        Ok((self.path, bytes))
    }
}

pub fn export(args: ExportArgs) -> Result<ExitCode> {
    let started = Instant::now();
    refuse_inside_index(&args.dir, &args.index)?;
    let index = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let reader = index.reader()?;
    let options = reader.feature_options()?;
    prepare_export_dir(&args.dir, args.force)?;
    let progress = bar(reader.len() as u64, "exporting", args.quiet || args.json);
    let mut files: Vec<(PathBuf, u64)> = Vec::new();
    let mut open: Option<OpenFile> = None;
    let mut books = 0u64;
    for book in reader.book_features() {
        let (id, features) = book?;
        let file = match open.as_mut() {
            Some(file) => file,
            None => open.insert(OpenFile::create(&args.dir, files.len() as u64, &options)?),
        };
        file.writer
            .write(u64::from(id), features)
            .map_err(parquet_error)?;
        books += 1;
        progress.inc(1);
        if file.writer.rows() >= args.rows_per_file {
            files.push(open.take().expect("open above").finish()?);
        }
    }
    // An empty index still gives one file, of no rows: the options.
    if open.is_none() && files.is_empty() {
        open = Some(OpenFile::create(&args.dir, 0, &options)?);
    }
    if let Some(file) = open {
        files.push(file.finish()?);
    }
    progress.finish_and_clear();
    let bytes = files.iter().map(|(_, b)| b).sum();
    let elapsed = started.elapsed().as_secs_f64();
    if args.json {
        print_json(&ExportSummary {
            books,
            files: files.into_iter().map(|(path, _)| path).collect(),
            bytes,
            elapsed_secs: elapsed,
        })?;
    } else {
        outln!(
            "exported {} to {} in {} ({:.1} MB) in {elapsed:.2} s",
            count(books, "book"),
            count(files.len() as u64, "file"),
            args.dir.display(),
            bytes as f64 / 1e6,
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The features files of `input`: itself, or a directory's *.parquet
/// files in name order.
fn features_files(input: &Path) -> Result<Vec<PathBuf>> {
    let metadata = std::fs::metadata(input).map_err(io_error(input))?;
    if !metadata.is_dir() {
        return Ok(vec![input.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(input).map_err(io_error(input))? {
        let path = entry.map_err(io_error(input))?.path();
        let parquet = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
        if parquet && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Where a row came from, in messages.
fn source_name(path: &Path, row: u64) -> String {
    format!("{}: row {row}", path.display())
}

pub fn import(args: ImportArgs) -> Result<ExitCode> {
    let files = features_files(&args.input)?;
    if files.is_empty() {
        eprintln!(
            "error: {}: no .parquet file in this directory",
            args.input.display()
        );
        return Ok(ExitCode::from(2));
    }
    // Every file's metadata and schema first, and their options: one set.
    let mut options: Option<(FeatureOptions, &Path)> = None;
    let mut rows = 0u64;
    for path in &files {
        let file = FeaturesReader::open(path).map_err(parquet_error)?;
        rows += file.rows();
        match &options {
            None => options = Some((*file.options(), path)),
            Some((first, first_path)) if first != file.options() => {
                return Err(Error::InvalidArgument(format!(
                    "{}: features computed with other options than those of {}: \
                     import them into different indexes",
                    path.display(),
                    first_path.display()
                )));
            }
            Some(_) => {}
        }
    }
    let (options, _) = options.expect("at least one file");
    // Read first: the index is opened for writing (with --create, made)
    // only once every row passed, so that a refused import leaves every
    // byte of it.
    let index_options = match Index::open_read_only(&args.index) {
        Err(Error::NotAnIndex(_) | Error::IncompleteIndex(_)) if args.create => options,
        other => other
            .map_err(|e| no_index(e, &args.index, true))?
            .feature_options()?,
    };
    // Every row checked before the first is written: a bad one leaves the
    // index as it was.
    let quiet = args.quiet || args.json;
    let progress = bar(rows, "checking", quiet);
    for path in &files {
        for (row, item) in FeaturesReader::open(path)
            .map_err(parquet_error)?
            .enumerate()
        {
            let (_, features) = item.map_err(parquet_error)?;
            features.check(&options, &index_options, &source_name(path, row as u64))?;
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    let index = match Index::open(&args.index) {
        Err(Error::NotAnIndex(_) | Error::IncompleteIndex(_)) if args.create => Index::builder()
            .feature_options(options)
            .create(&args.index)?,
        other => other.map_err(|e| no_index(e, &args.index, true))?,
    };
    let mut load_options = LoadOptions::default().batch_books(args.batch_books);
    if let Some(threads) = args.threads {
        load_options.threads = threads;
    }
    let progress = bar(rows, "importing", quiet);
    let mut loader = index.bulk_loader(load_options)?;
    let report = progress.clone();
    loader.on_progress(move |event| match event {
        LoadEvent::Added { .. } => report.inc(1),
        LoadEvent::DuplicateKey {
            key,
            source_name,
            earlier_source_name,
        } => report.suspend(|| {
            eprintln!(
                "warning: key {}: {source_name} replaces {earlier_source_name} of this import (the later row wins)",
                stemmata::keys::display_key(key)
            )
        }),
        _ => {}
    });
    for path in &files {
        for (row, item) in FeaturesReader::open(path)
            .map_err(parquet_error)?
            .enumerate()
        {
            let (_, features) = item.map_err(parquet_error)?;
            loader.add_features(features, &options, &source_name(path, row as u64))?;
        }
    }
    let stats = loader.finish()?;
    progress.finish_and_clear();
    let secs = stats.elapsed.as_secs_f64().max(1e-9);
    let summary = format!(
        "imported {} ({}) from {} in {:.2} s; {} replaced, {}",
        count(stats.books, "book"),
        count(stats.words, "word"),
        count(files.len() as u64, "file"),
        secs,
        stats.replaced,
        count(stats.duplicate_keys.len() as u64, "duplicate key"),
    );
    print_load_outcome(&stats, args.json, &summary)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_files_are_told_from_other_files() {
        assert!(is_features_file("features-00000.parquet"));
        assert!(is_features_file("features-12345.parquet.partial"));
        assert!(!is_features_file("features-.parquet"));
        assert!(!is_features_file("notes.txt"));
        assert!(!is_features_file("features-0a.parquet"));
        assert_eq!(file_name(7), "features-00007.parquet");
    }
}
