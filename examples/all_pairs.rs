//! Every related pair of a collection, and the clusters they make: the
//! job of deduplicating a corpus.
//!
//! ```text
//! cargo run --release --example all_pairs -- [TEXTS]
//! ```
//!
//! TEXTS defaults to the labelled corpus (`../shared/corpus/texts`).

use std::path::PathBuf;

use stemmata::{BookInfo, Index, Mode, PairsOptions};

fn main() -> stemmata::Result<()> {
    let texts = std::env::args_os()
        .nth(1)
        .map_or_else(corpus_texts, PathBuf::from);
    let scratch = tempfile::tempdir()?;
    let index = Index::create(scratch.path().join("index"))?;
    index.load_dir(&texts)?;
    let reader = index.reader()?;

    // Exact mode: the same pairs as aligning every pair of books.
    let all = reader.pairs(&PairsOptions::default())?;
    println!(
        "{} related pairs among {} books ({} pairs considered, {} aligned)",
        all.pairs.len(),
        reader.len(),
        all.stats.pairs_considered,
        all.stats.lcs_runs
    );
    for pair in all.pairs.iter().take(5) {
        println!("  {:.3}  {} ~ {}", pair.score, named(pair.a), named(pair.b));
    }

    let clusters = all.clusters();
    println!("{} clusters of related books; the largest:", clusters.len());
    for book in clusters.first().into_iter().flatten() {
        println!("  {}", named(book));
    }

    // Approximate mode: candidates from the band tables, for collections
    // too large to count every shared word.
    let approximate = reader.pairs(&PairsOptions::default().mode(Mode::Approximate))?;
    println!(
        "approximate mode finds {} of those pairs",
        approximate.pairs.len()
    );
    Ok(())
}

/// A book's key, with its title when the load gave one.
fn named(book: &BookInfo) -> String {
    if book.title.is_empty() {
        book.key.clone()
    } else {
        format!("{} ({})", book.key, book.title)
    }
}

fn corpus_texts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/texts")
}
