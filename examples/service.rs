//! A long-running service: one index open for the life of the process,
//! one reader shared by every request thread, and a fresh reader swapped in
//! after new books are loaded. Requests never wait for a load; a load never
//! waits for requests.
//!
//! ```text
//! cargo run --release --example service -- [TEXTS]
//! ```
//!
//! TEXTS defaults to the labelled corpus (`../shared/corpus/texts`). The
//! service loads half of it, answers requests on four threads while the
//! other half is loaded, then answers them again on the refreshed reader.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use stemmata::load::sources;
use stemmata::{Document, Index, QueryOptions, Reader};

/// What the request threads share: the index and its current reader.
struct Service {
    index: Index,
    reader: RwLock<Arc<Reader>>,
}

impl Service {
    fn open(dir: &Path) -> stemmata::Result<Service> {
        let index = Index::open_or_create(dir)?;
        let reader = RwLock::new(Arc::new(index.reader()?));
        Ok(Service { index, reader })
    }

    /// The reader of the moment; a request holds it for as long as it
    /// needs, even while a newer one is swapped in.
    fn reader(&self) -> Arc<Reader> {
        Arc::clone(&self.reader.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Loads `documents` and then publishes a reader that sees them.
    fn load(&self, documents: Vec<stemmata::Result<Document>>) -> stemmata::Result<u64> {
        let stats = self.index.load(documents)?;
        let fresh = Arc::new(self.index.reader()?);
        *self.reader.write().unwrap_or_else(|e| e.into_inner()) = fresh;
        Ok(stats.books)
    }

    /// One request: the best match of a stored book, as a line of text.
    fn answer(&self, key: &str) -> String {
        let reader = self.reader();
        match reader.query_key(key, &QueryOptions::default().top_k(1)) {
            Ok(result) => match result.hits.first() {
                Some(hit) => format!(
                    "{key} -> {} {:.3} ({} books)",
                    hit.key,
                    hit.score,
                    reader.len()
                ),
                None => format!("{key} -> nothing related ({} books)", reader.len()),
            },
            Err(error) => format!("{key} -> {error}"),
        }
    }
}

fn main() -> stemmata::Result<()> {
    let texts = std::env::args_os()
        .nth(1)
        .map_or_else(corpus_texts, PathBuf::from);
    let documents: Vec<_> = sources::text_files(&texts)?.collect();
    let (first, second) = documents.split_at(documents.len() / 2);

    let scratch = tempfile::tempdir()?;
    let service = Arc::new(Service::open(&scratch.path().join("index"))?);
    service.load(first.iter().map(clone_document).collect())?;
    let keys: Vec<String> = service
        .reader()
        .books()
        .iter()
        .take(8)
        .map(|b| b.key.clone())
        .collect();

    std::thread::scope(|scope| -> stemmata::Result<()> {
        let loading = scope.spawn(|| service.load(second.iter().map(clone_document).collect()));
        for chunk in keys.chunks(2) {
            let service = &service;
            scope.spawn(move || {
                for key in chunk {
                    println!("{}", service.answer(key));
                }
            });
        }
        let added = loading.join().expect("the loading thread does not panic")?;
        println!("loaded {added} more books; the service now answers from the fresh reader:");
        Ok(())
    })?;
    for key in &keys {
        println!("{}", service.answer(key));
    }
    Ok(())
}

/// A copy of a document read from the directory (or of its error's message).
fn clone_document(document: &stemmata::Result<Document>) -> stemmata::Result<Document> {
    match document {
        Ok(document) => Ok(document.clone()),
        Err(error) => Err(stemmata::Error::InvalidArgument(error.to_string())),
    }
}

fn corpus_texts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/texts")
}
