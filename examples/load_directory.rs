//! Creates an index (or opens it) and bulk-loads a directory of text files
//! into it, with a progress line per batch.
//!
//! ```text
//! cargo run --release --example load_directory -- [TEXTS] [INDEX]
//! ```
//!
//! TEXTS defaults to the labelled corpus (`../shared/corpus/texts`), INDEX
//! to a new temporary directory. Every `.txt` file under TEXTS becomes a
//! book keyed by its file name; a Project Gutenberg header gives its title
//! and author.

use std::path::PathBuf;

use stemmata::load::sources;
use stemmata::{Index, LoadEvent, LoadOptions};

fn main() -> stemmata::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let texts = args.next().map_or_else(corpus_texts, PathBuf::from);
    let scratch = tempfile::tempdir()?;
    let index_dir = args
        .next()
        .map_or_else(|| scratch.path().join("index"), PathBuf::from);

    let index = Index::open_or_create(&index_dir)?;
    // `index.load_dir(&texts)` does all of this with default options; a
    // bulk loader adds options and progress events.
    let mut loader = index.bulk_loader(LoadOptions::default().batch_books(100))?;
    loader.on_progress(|event| {
        if let LoadEvent::Committed { books, .. } = event {
            eprintln!("  committed {books} books");
        }
    });
    loader.extend(sources::text_files(&texts)?)?;
    let loaded = loader.finish()?;

    let stats = index.stats()?;
    println!(
        "loaded {} books ({} skipped) from {} into {}",
        loaded.books,
        loaded.skipped.len(),
        texts.display(),
        index.dir().display()
    );
    println!(
        "the index holds {} books, {} words, {} unique-word sequence elements",
        stats.books, stats.words, stats.unique_words
    );
    Ok(())
}

/// The labelled corpus that ships beside the repository.
fn corpus_texts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/texts")
}
