//! How two related books relate: the relation class (duplicate, contains,
//! overlap, ...) and the portion map of which parts of each match.
//!
//! ```text
//! cargo run --release --example relations -- [TEXTS] [A] [B]
//! ```
//!
//! TEXTS defaults to the labelled corpus (`../shared/corpus/texts`), A and B
//! to `pg74` (Tom Sawyer) and `pg7193` (its first part printed alone).

use std::path::PathBuf;

use stemmata::relate::MapOptions;
use stemmata::Index;

fn main() -> stemmata::Result<()> {
    let mut args = std::env::args().skip(1);
    let texts = args.next().map_or_else(corpus_texts, PathBuf::from);
    let a = args.next().unwrap_or_else(|| "pg74".to_string());
    let b = args.next().unwrap_or_else(|| "pg7193".to_string());

    let scratch = tempfile::tempdir()?;
    let index = Index::create(scratch.path().join("index"))?;
    index.load_dir(&texts)?;
    let reader = index.reader()?;

    let relation = reader.relation(&a, &b)?;
    let container = match relation.container {
        Some(stemmata::relate::Side::A) => format!(", {a} contains {b}"),
        Some(stemmata::relate::Side::B) => format!(", {b} contains {a}"),
        None => String::new(),
    };
    println!(
        "{a} and {b}: {} (confidence {:.2}){container}",
        relation.class, relation.confidence
    );

    // The portion map: both books cut into bins of 200 words, a bin matched
    // when enough of its words align, and the regions joining matched bins.
    let map = reader.portion_map(&a, &b, &MapOptions::default())?;
    for region in &map.regions {
        println!(
            "  words {:>6}..{:<6} of {a} match words {:>6}..{:<6} of {b}",
            region.a_words.start, region.a_words.end, region.b_words.start, region.b_words.end
        );
    }
    let matched = |bins: &[stemmata::relate::Bin]| bins.iter().filter(|bin| bin.matched).count();
    println!(
        "{} of {a}'s {} bins and {} of {b}'s {} bins are matched",
        matched(&map.a.bins),
        map.a.bins.len(),
        matched(&map.b.bins),
        map.b.bins.len()
    );
    Ok(())
}

fn corpus_texts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/texts")
}
