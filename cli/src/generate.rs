//! `stemmata generate`: write a labelled test collection in the corpus
//! layout (`books.tsv`, `pairs.tsv` with a `band` column, `texts/ID.txt`),
//! for `stemmata eval --corpus DIR`.

use clap::{Args, Subcommand};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use stemmata::{Error, Result};
use stemmata_synth::sets::{
    noisy_copies_set, read_partnerless, volumes_set, LabelledSet, NoisyCopiesOptions, SourceBook,
    VolumesOptions,
};

use crate::output::print_json;

pub const ABOUT: &str =
    "Write a labelled test collection for `stemmata eval --corpus DIR`, in the \
layout of the labelled corpus: books.tsv, pairs.tsv (a, b, relation, note, band) and texts/ID.txt. \
Any pair not listed is unrelated.

`volumes`: large volumes (0.5–2M words) that each bind 30–80 works end to end, a title line \
between; every work is also a book of its own (OCR noise 0–5%; the volume 0–3%), labelled \
`contains` from its volume with its share of the volume as the band: share <0.1%, 0.1-0.5%, \
0.5-1%, 1-5%, >=5%. Many works are short (500–10,000 words) so that every band is populated. \
Unrelated standalone books (in no volume) are added. The default 6 volumes hold about 6.5M \
words, 14M with the works' own copies.

`noisy-copies`: two OCR-noisy copies of each source book (a corpus book's first 20,000 \
words, or a generated book of 5,000–20,000 words), at character error rates of 1–20% \
each, labelled `edition` with band `noise A%+B%` (larger first): every combination up to 20%+10%, \
and 15%+15%, 20%+15%, 20%+20%. The OCR model is the demo's: substitutions, splits, joins, lost \
and doubled characters, broken lines.

With --corpus DIR, works come from that corpus's books that have no edition, contains or \
translation partner in its pairs.tsv (each used once: whole, or cut into excerpts that are \
distinct works), then from generated texts when those run out; without it, every work is \
generated. The same options always write the same collection.";

#[derive(Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub set: SetCommand,
}

#[derive(Subcommand)]
pub enum SetCommand {
    /// Volumes that bind many works, each work labelled with its share band.
    Volumes(VolumesArgs),
    /// Two OCR-noisy copies of each source book, labelled with their noise band.
    NoisyCopies(NoisyArgs),
}

#[derive(Args)]
pub struct CommonArgs {
    /// Directory to write (created; must be missing or empty).
    #[arg(long)]
    pub out: PathBuf,
    /// Labelled corpus whose partnerless books supply the works
    /// [default: generated works only].
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct VolumesArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Number of volumes (about 1.1M words each on average).
    #[arg(long, default_value_t = 6)]
    pub volumes: usize,
}

#[derive(Args)]
pub struct NoisyArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Number of source books (two copies each).
    #[arg(long, default_value_t = 96)]
    pub books: usize,
}

#[derive(serde::Serialize)]
struct Summary {
    set: &'static str,
    out: String,
    seed: u64,
    books: usize,
    words: usize,
    pairs: usize,
    seconds: f64,
    /// Pairs per relation, then per band.
    bands: BTreeMap<String, BTreeMap<String, usize>>,
}

/// Refuses a directory that exists and is not empty.
fn check_empty(dir: &Path) -> Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(Error::InvalidArgument(format!(
                    "{}: directory is not empty; choose a new or empty directory",
                    dir.display()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io {
            path: dir.to_path_buf(),
            source,
        }),
    }
}

fn sources(corpus: Option<&Path>) -> Result<Vec<SourceBook>> {
    match corpus {
        None => Ok(Vec::new()),
        Some(dir) => read_partnerless(dir).map_err(Error::InvalidArgument),
    }
}

pub fn run(args: GenerateArgs) -> Result<ExitCode> {
    let (name, common) = match &args.set {
        SetCommand::Volumes(a) => ("volumes", &a.common),
        SetCommand::NoisyCopies(a) => ("noisy-copies", &a.common),
    };
    check_empty(&common.out)?;
    let started = Instant::now();
    let quiet = common.quiet;
    let mut progress = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let books = sources(common.corpus.as_deref())?;
    if let Some(dir) = &common.corpus {
        progress(&format!(
            "{}: {} books with no edition, contains or translation partner",
            dir.display(),
            books.len()
        ));
    }
    let set: LabelledSet = match &args.set {
        SetCommand::Volumes(a) => volumes_set(
            &VolumesOptions::new(a.volumes, common.seed),
            books,
            &mut progress,
        ),
        SetCommand::NoisyCopies(a) => noisy_copies_set(
            &NoisyCopiesOptions::new(a.books, common.seed),
            books,
            &mut progress,
        ),
    };
    progress(&format!("writing {}", common.out.display()));
    set.write(&common.out).map_err(|source| Error::Io {
        path: common.out.clone(),
        source,
    })?;
    let mut bands: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for ((relation, band), count) in set.band_counts() {
        bands.entry(relation).or_default().insert(band, count);
    }
    let summary = Summary {
        set: name,
        out: common.out.display().to_string(),
        seed: common.seed,
        books: set.books.len(),
        words: set.words(),
        pairs: set.pairs.len(),
        seconds: started.elapsed().as_secs_f64(),
        bands,
    };
    if common.json {
        print_json(&summary)?;
    } else {
        println!(
            "{} set in {}: {} books, {:.2}M words, {} related pairs (seed {}, {:.1} s)",
            summary.set,
            summary.out,
            summary.books,
            summary.words as f64 / 1e6,
            summary.pairs,
            summary.seed,
            summary.seconds
        );
        for (relation, bands) in &summary.bands {
            for (band, count) in bands {
                println!("  {relation:<9} {band:<16} {count:>5}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
