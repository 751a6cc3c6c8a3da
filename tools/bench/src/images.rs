//! Word-image search speed (`stemmata bench-images`): top-k query latency
//! over the word images of an index, in this process, with the index
//! opened once, against the time of one pass over every image's floor and
//! OCR word (the least any scan of the collection does); the size of the
//! search file per word image; and, for a directory of pages, reading and
//! describing them (page images decoded, OCR read, every word's
//! descriptors and crop) in pages per CPU-second.

use std::path::Path;
use std::time::Instant;

use stemmata::images::pages::{read_pages, PageFiles};
use stemmata::images::spot::SpotOptions;
use stemmata::{Error, Index, Result};

/// What a run measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ImageBench {
    /// Word images searched.
    pub images: usize,
    /// Books of word images.
    pub books: usize,
    /// Modelled letter-bigram classes.
    pub classes: usize,
    /// Bytes of the search file per word image.
    pub search_bytes_per_image: f64,
    /// Queries timed.
    pub queries: usize,
    /// Median query time, milliseconds.
    pub median_ms: f64,
    /// 95th percentile, milliseconds.
    pub p95_ms: f64,
    /// Mean, milliseconds.
    pub mean_ms: f64,
    /// Time to open the index's word images (map the search file, check
    /// its layout), milliseconds.
    pub open_ms: f64,
    /// Pages read and described per CPU-second, when pages were given.
    pub pages_per_cpu_second: Option<f64>,
    /// Pages described.
    pub pages: usize,
}

/// Times `queries` top-`k` queries over the word images of the index in
/// `dir` (read-only), the query words taken evenly from the index's OCR
/// words of at least 3 letters; and, when `pages` is given, reading and
/// describing those page images.
pub fn run(dir: &Path, queries: usize, k: usize, pages: Option<&Path>) -> Result<ImageBench> {
    let index = Index::open_read_only(dir)?;
    let opened = Instant::now();
    let search = index.word_images()?.ok_or_else(|| {
        Error::InvalidArgument(format!("{}: the index has no word images", dir.display()))
    })?;
    let open_ms = opened.elapsed().as_secs_f64() * 1e3;
    let words = query_words(search.ocr_words(), queries);
    let options = SpotOptions::default();
    let mut times = Vec::with_capacity(words.len());
    for word in &words {
        let started = Instant::now();
        let hits = search.spot(word, &options, k)?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(hits);
    }
    times.sort_by(f64::total_cmp);
    let pick = |q: f64| {
        times
            .get(((times.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let (pages_per_cpu_second, page_count) = match pages {
        Some(pages) => describe_pages(pages)?,
        None => (None, 0),
    };
    Ok(ImageBench {
        images: search.images(),
        books: search.books(),
        classes: search.classes(),
        search_bytes_per_image: search.search_bytes() as f64 / search.images().max(1) as f64,
        queries: times.len(),
        median_ms: pick(0.5),
        p95_ms: pick(0.95),
        mean_ms: times.iter().sum::<f64>() / times.len().max(1) as f64,
        open_ms,
        pages_per_cpu_second,
        pages: page_count,
    })
}

/// `n` words taken evenly from the distinct OCR words of at least three
/// letters or digits, in their stored order.
fn query_words(ocr: &[String], n: usize) -> Vec<String> {
    let candidates: Vec<String> = ocr
        .iter()
        .map(|w| stemmata::images::bigrams::search_form(w))
        .filter(|w| w.chars().count() >= 3)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let stride = candidates.len().div_ceil(n.max(1)).max(1);
    candidates.into_iter().step_by(stride).take(n).collect()
}

/// Reads and describes every page image (with its OCR beside it) of
/// `dir`; pages per CPU-second of this process.
fn describe_pages(dir: &Path) -> Result<(Option<f64>, usize)> {
    let mut images: Vec<_> = std::fs::read_dir(dir)
        .map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "png" || e == "tif" || e == "jpg")
        })
        .collect();
    images.sort();
    let files = images
        .iter()
        .map(|i| PageFiles::beside(i))
        .collect::<Result<Vec<_>>>()?;
    let before = crate::process_cpu_seconds();
    let pages = read_pages(&files, &|_| {})?;
    let after = crate::process_cpu_seconds();
    std::hint::black_box(&pages);
    let rate = match (before, after) {
        (Some(b), Some(a)) if a > b => Some(files.len() as f64 / (a - b)),
        _ => None,
    };
    Ok((rate, files.len()))
}
