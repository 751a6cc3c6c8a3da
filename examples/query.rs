//! Top-k related books of a stored book (by key) and of a new text (by
//! text), in exact and approximate mode.
//!
//! ```text
//! cargo run --release --example query -- [TEXTS] [KEY]
//! ```
//!
//! TEXTS defaults to the labelled corpus (`../shared/corpus/texts`), KEY to
//! `pg74` (The Adventures of Tom Sawyer, whose corpus holds an older
//! transcription and two parts printed alone).

use std::path::PathBuf;

use stemmata::{Index, Mode, QueryOptions, QueryResult, Score};

fn main() -> stemmata::Result<()> {
    let mut args = std::env::args().skip(1);
    let texts = args.next().map_or_else(corpus_texts, PathBuf::from);
    let key = args.next().unwrap_or_else(|| "pg74".to_string());

    let scratch = tempfile::tempdir()?;
    let index = Index::create(scratch.path().join("index"))?;
    index.load_dir(&texts)?;
    let reader = index.reader()?;

    // By key: the books related to a stored book.
    let exact = reader.query_key(&key, &QueryOptions::default())?;
    print_hits(&format!("related to {key} (exact)"), &exact);

    // The same in approximate mode: candidates from the band tables only.
    let approximate = QueryOptions::default().mode(Mode::Approximate);
    print_hits(
        &format!("related to {key} (approximate)"),
        &reader.query_key(&key, &approximate)?,
    );

    // By text: a passage that is not in the index, here the first tenth of
    // the book's own text; containment asks "which books contain this?".
    let path = texts.join(format!("{key}.txt"));
    let text = std::fs::read(&path)?;
    let passage = &text[..text.len() / 10];
    let contains = QueryOptions::with_score(Score::Containment).top_k(3);
    print_hits(
        "books containing the first tenth of its text",
        &reader.query_text(passage, &contains)?,
    );
    Ok(())
}

fn print_hits(heading: &str, result: &QueryResult) {
    println!("{heading}:");
    if result.hits.is_empty() {
        println!("  (none above the threshold)");
    }
    for hit in &result.hits {
        println!(
            "  {:.3}  {:<10} {}  (LCS {} of {} common unique words)",
            hit.score, hit.key, hit.title, hit.overlap.lcs, hit.overlap.common
        );
    }
    let e = &result.explain;
    println!(
        "  {} books -> {} candidates -> {} aligned -> {} hits",
        e.books, e.candidates, e.lcs_runs, e.hits
    );
}

fn corpus_texts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/texts")
}
