//! The Rust side of the Python API's overhead measurement
//! (`benches/python/overhead.py` does the same through the package):
//! loads a directory of texts into a new index, then runs QUERIES top-10
//! queries by key, the books' keys in turn; prints the seconds of each.
//!
//! ```text
//! cargo run --release --example python_overhead_rust -- TEXTS [QUERIES]
//! ```

use std::time::Instant;

use stemmata::{Index, QueryOptions};

fn main() -> stemmata::Result<()> {
    let mut args = std::env::args().skip(1);
    let texts = args
        .next()
        .unwrap_or_else(|| "../shared/corpus/texts".into());
    let queries: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let scratch = tempfile::tempdir()?;
    let index = Index::create(scratch.path().join("index"))?;
    let started = Instant::now();
    index.load_dir(&texts)?;
    let load = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let reader = index.reader()?;
    let mut keys: Vec<String> = reader.books().iter().map(|b| b.key.clone()).collect();
    keys.sort();
    let options = QueryOptions::default().top_k(10);
    let mut hits = 0;
    for key in keys.iter().cycle().take(queries) {
        hits += reader.query_key(key, &options)?.hits.len();
    }
    let query = started.elapsed().as_secs_f64();
    println!("{{\"load_s\": {load:.3}, \"queries_s\": {query:.3}, \"hits\": {hits}}}");
    Ok(())
}
