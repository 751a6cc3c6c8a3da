//! `stemmata demo`: generates a sample collection, loads it, and compares
//! what the engine finds with what was generated.

use clap::Args;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use stemmata::{Document, Error, LoadEvent, LoadOptions, PairsOptions, QueryOptions, Result};
use stemmata_synth::{generate, SynthCollection, SynthOptions, SynthRelation};

use crate::output::{bar, new_index, print_json};

#[derive(Args)]
pub struct DemoArgs {
    /// Number of works to generate; each gets editions, and some appear in anthologies.
    #[arg(long, default_value_t = 60)]
    pub families: usize,
    /// Seed of the generator (same seed, same collection).
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Highest per-character OCR noise rate of an edition (rates are drawn
    /// from 0 to this).
    #[arg(long, default_value_t = 0.05)]
    pub max_noise: f64,
    /// Keep the index in this directory instead of a temporary one.
    #[arg(long)]
    pub index: Option<PathBuf>,
    /// Number of example queries to show.
    #[arg(long, default_value_t = 3)]
    pub queries: usize,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print a JSON summary instead.
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Summary {
    books: usize,
    text_bytes: usize,
    generated_pairs: usize,
    found_pairs: u64,
    true_positives: usize,
    precision: f64,
    recall: f64,
    load_seconds: f64,
    pairs_seconds: f64,
}

/// Generated relations by unordered key pair.
fn truth(collection: &SynthCollection) -> HashMap<(String, String), SynthRelation> {
    collection
        .pairs
        .iter()
        .map(|p| {
            let (a, b) = (&collection.books[p.a].key, &collection.books[p.b].key);
            (ordered(a, b), p.relation)
        })
        .collect()
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.into(), b.into())
    } else {
        (b.into(), a.into())
    }
}

fn relation_name(relation: Option<SynthRelation>) -> &'static str {
    match relation {
        Some(SynthRelation::Edition) => "✓ edition",
        Some(SynthRelation::Contains) => "✓ contains",
        None => "✗ not generated as related",
    }
}

pub fn run(args: DemoArgs) -> Result<ExitCode> {
    let quiet = args.quiet || args.json;
    if !(0.0..=1.0).contains(&args.max_noise) {
        return Err(Error::InvalidArgument(format!(
            "--max-noise {} outside 0..=1",
            args.max_noise
        )));
    }
    let options = SynthOptions {
        ocr_noise: (0.0, args.max_noise),
        ..SynthOptions::with_families(args.families, args.seed)
    };
    let collection = generate(&options);
    let truth = truth(&collection);
    let text_bytes: usize = collection.books.iter().map(|b| b.text.len()).sum();
    if !args.json {
        outln!(
            "generated {} books ({:.1} MB) from {} works, seed {}: {} related pairs (editions with OCR noise, prefaces and notes; anthologies)",
            collection.books.len(),
            text_bytes as f64 / 1e6,
            args.families,
            args.seed,
            truth.len()
        )?;
    }
    let (index, dir, _temp) = new_index(args.index.as_deref())?;

    let started = Instant::now();
    let progress = bar(collection.books.len() as u64, "loading", quiet);
    let mut loader = index.bulk_loader(LoadOptions::default())?;
    let report = progress.clone();
    loader.on_progress(move |event| {
        if let LoadEvent::Added { .. } = event {
            report.inc(1)
        }
    });
    loader.extend(collection.books.iter().map(|book| {
        Ok(Document::new(book.key.clone(), book.text.clone())
            .with_title(book.title.clone())
            .with_author(book.author.clone()))
    }))?;
    let load = loader.finish()?;
    progress.finish_and_clear();
    let load_seconds = started.elapsed().as_secs_f64();

    let reader = index.reader()?;
    let options = PairsOptions::default();
    let mut found = Vec::new();
    let stats = reader.for_each_pair(
        &options,
        |pair| {
            found.push(ordered(&pair.a.key, &pair.b.key));
            Ok(())
        },
        |_| {},
    )?;
    let true_positives = found.iter().filter(|k| truth.contains_key(*k)).count();
    let summary = Summary {
        books: collection.books.len(),
        text_bytes,
        generated_pairs: truth.len(),
        found_pairs: stats.found,
        true_positives,
        precision: true_positives as f64 / found.len().max(1) as f64,
        recall: true_positives as f64 / truth.len().max(1) as f64,
        load_seconds,
        pairs_seconds: stats.elapsed.as_secs_f64(),
    };
    if args.json {
        print_json(&summary)?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "loaded {} books into {} in {:.2} s ({:.1} MB/s)",
        load.books,
        dir.display(),
        load_seconds,
        text_bytes as f64 / 1e6 / load_seconds.max(1e-9)
    )?;
    outln!(
        "all pairs ({} ≥ {}): {} pairs found in {:.3} s, aligning {} of {} pairs; {} of {} generated pairs found (recall {:.3}), precision {:.3}",
        options.score,
        options.min_score,
        stats.found,
        summary.pairs_seconds,
        stats.lcs_runs,
        stats.pairs_considered,
        true_positives,
        truth.len(),
        summary.recall,
        summary.precision
    )?;
    show_misses(&reader, &truth, &found)?;
    show_queries(&reader, &collection, &truth, args.queries)?;
    if args.index.is_none() {
        outln!("(the index was in a temporary directory; pass --index DIR to keep it)")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Lists generated pairs that were not found, with their scores.
fn show_misses(
    reader: &stemmata::Reader,
    truth: &HashMap<(String, String), SynthRelation>,
    found: &[(String, String)],
) -> Result<()> {
    let found: std::collections::HashSet<_> = found.iter().collect();
    let mut missed: Vec<_> = truth.iter().filter(|(k, _)| !found.contains(k)).collect();
    missed.sort_by(|x, y| x.0.cmp(y.0));
    for ((a, b), relation) in missed {
        let overlap = reader.align_books(a, b)?;
        let (info_a, info_b) = (reader.book(a)?, reader.book(b)?);
        outln!(
            "  missed {a} {b} ({relation:?}): {} {:.4}; unique words {} / {} of {} / {} words, {} common, lcs {}",
            stemmata::Score::default(),
            stemmata::Score::default().value(&overlap),
            overlap.len_x,
            overlap.len_y,
            info_a.words,
            info_b.words,
            overlap.common,
            overlap.lcs
        )?;
    }
    Ok(())
}

/// Queries a few originals that have relatives and marks each hit.
fn show_queries(
    reader: &stemmata::Reader,
    collection: &SynthCollection,
    truth: &HashMap<(String, String), SynthRelation>,
    count: usize,
) -> Result<()> {
    let mut relatives: HashMap<&str, usize> = HashMap::new();
    for (a, b) in truth.keys() {
        *relatives.entry(a.as_str()).or_default() += 1;
        *relatives.entry(b.as_str()).or_default() += 1;
    }
    let mut examples: Vec<&str> = collection
        .books
        .iter()
        .map(|b| b.key.as_str())
        .filter(|k| relatives.get(k).is_some_and(|&n| n >= 2))
        .collect();
    examples.sort_by_key(|k| std::cmp::Reverse(relatives[k]));
    for key in examples.into_iter().take(count) {
        let result = reader.query_key(key, &QueryOptions::default())?;
        let e = &result.explain;
        outln!(
            "\nquery {key} ({} generated relatives): {} books, {} aligned, {} hits in {:.2} ms",
            relatives[key],
            e.books,
            e.lcs_runs,
            e.hits,
            e.elapsed.as_secs_f64() * 1e3
        )?;
        for (rank, hit) in result.hits.iter().enumerate() {
            outln!(
                "  {:>2}. {:<12} {} {:.3}  lcs {:>5} of {:>5} common  {}",
                rank + 1,
                hit.key,
                stemmata::Score::default(),
                hit.score,
                hit.overlap.lcs,
                hit.overlap.common,
                relation_name(truth.get(&ordered(key, &hit.key)).copied())
            )?;
        }
    }
    Ok(())
}
