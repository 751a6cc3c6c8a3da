//! Word-image search speed (`stemmata bench-images`): top-k query latency
//! over the word images of an index, in this process, with the index
//! opened once, against the time of one pass over every image's floor and
//! OCR word (the least any scan of the collection does); the size of the
//! search file per word image; and, for a directory of pages, reading and
//! describing them (page images decoded, OCR read, every word's
//! descriptors and crop) in pages per CPU-second.

use std::path::Path;
use std::time::Instant;

use stemmata::images::descriptor::Normalisation;
use stemmata::images::pages::{read_pages, PageFiles};
use stemmata::images::spot::{rank, Query, SpotOptions};
use stemmata::storage::image_search::{self, SearchBook, SearchContents, SearchFile};
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

/// Query latency over a generated collection: the word images of the
/// index in `dir` repeated `times` times, each copy a book of the same
/// rows, written as one search file in `scratch` and opened (mapped, its
/// layout checked) as a reader opens one; each query ranked as
/// `WordImageSearch::spot` ranks, without naming its hits.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RepeatedBench {
    /// Word images of the generated collection.
    pub images: usize,
    /// Bytes of its search file per word image.
    pub search_bytes_per_image: f64,
    /// Queries timed.
    pub queries: usize,
    /// Median query time, milliseconds.
    pub median_ms: f64,
    /// 95th percentile, milliseconds.
    pub p95_ms: f64,
}

/// See [`RepeatedBench`].
pub fn run_repeated(
    dir: &Path,
    times: usize,
    queries: usize,
    k: usize,
    scratch: &Path,
) -> Result<RepeatedBench> {
    let index = Index::open_read_only(dir)?;
    let search = index.word_images()?.ok_or_else(|| {
        Error::InvalidArgument(format!("{}: the index has no word images", dir.display()))
    })?;
    let words = query_words(search.ocr_words(), queries);
    let repeated = repeat(search.contents()?, times.max(1));
    drop(search);
    let path = scratch.join("repeated.wis");
    std::fs::write(&path, image_search::encode(&repeated)).map_err(|source| Error::Io {
        path: path.clone(),
        source,
    })?;
    drop(repeated);
    let file = SearchFile::open(&path)?;
    let options = SpotOptions::default();
    let mut times_ms = Vec::with_capacity(words.len());
    for word in &words {
        let Some(query) = Query::with_classes(word, file.classes(), false) else {
            continue;
        };
        let query = (query.with_widths(file.widths())).with_book_widths(file.own_widths());
        let started = Instant::now();
        let hits = rank(&file, &query, &options, k)?;
        times_ms.push(started.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(hits);
    }
    times_ms.sort_by(f64::total_cmp);
    let pick = |q: f64| {
        (times_ms.get(((times_ms.len() as f64 - 1.0) * q).round() as usize))
            .copied()
            .unwrap_or(0.0)
    };
    use stemmata::images::spot::Rows;
    Ok(RepeatedBench {
        images: file.len(),
        search_bytes_per_image: file.len_bytes() as f64 / file.len().max(1) as f64,
        queries: times_ms.len(),
        median_ms: pick(0.5),
        p95_ms: pick(0.95),
    })
}

/// `contents` with its images repeated `times` times, copy r a book of
/// each book under its key and `#r`, its images numbered after the copy
/// before it.
fn repeat(contents: SearchContents, times: usize) -> SearchContents {
    // Each copy with the first image of the book it copies, in key order.
    let mut copies: Vec<(SearchBook, u32)> = (contents.books.iter())
        .flat_map(|book| {
            (0..times).map(move |r| {
                let key = format!("{}#{r:06}", book.key);
                (
                    SearchBook {
                        key,
                        ..book.clone()
                    },
                    book.first_image,
                )
            })
        })
        .collect();
    copies.sort_by(|a, b| a.0.key.cmp(&b.0.key));
    let mut images = Vec::with_capacity(contents.images.len() * times);
    let mut next = 0;
    for (book, source) in &mut copies {
        book.first_image = next;
        let range = *source as usize..(*source + book.images) as usize;
        images.extend_from_slice(contents.images.get(range).unwrap_or_default());
        next += book.images;
    }
    let columns = (contents.columns.iter())
        .map(|column| {
            let mut out = Vec::with_capacity(column.len() * times);
            for (book, source) in &copies {
                // A column is by image: a book's entries are one run of it.
                let from = column.partition_point(|e| e.0 < *source);
                let to = column.partition_point(|e| e.0 < *source + book.images);
                let own = column.get(from..to).unwrap_or_default().iter();
                out.extend(own.map(|&(image, value, position)| {
                    (image - source + book.first_image, value, position)
                }));
            }
            out
        })
        .collect();
    SearchContents {
        books: copies.into_iter().map(|(book, _)| book).collect(),
        images,
        columns,
        ..contents
    }
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
    let pages = read_pages(&files, Normalisation::DEFAULT, &|_| {})?;
    let after = crate::process_cpu_seconds();
    std::hint::black_box(&pages);
    let rate = match (before, after) {
        (Some(b), Some(a)) if a > b => Some(files.len() as f64 / (a - b)),
        _ => None,
    };
    Ok((rate, files.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stemmata::images::likelihood::StoredRow;
    use stemmata::images::WordBox;

    /// Two books of 2 and 3 images over 3 classes.
    fn contents() -> SearchContents {
        let mut contents = SearchContents {
            model: Default::default(),
            scale: 0.5,
            widths: None,
            vocabulary_terms: 16,
            classes: vec![7, 300, 900],
            books: Vec::new(),
            ocr_words: Vec::new(),
            images: Vec::new(),
            columns: vec![Vec::new(); 3],
        };
        let bbox = WordBox {
            x0: 1,
            y0: 1,
            x1: 9,
            y1: 5,
        };
        for (key, words) in [("b", &["the", "sea"][..]), ("a", &["a", "the", "xyz"][..])] {
            let book = SearchBook {
                key: key.into(),
                file: 1,
                first_image: 0,
                images: 0,
                pages: vec!["p.png".into()],
                model_book: key == "a",
                widths: None,
            };
            let placed: Vec<(u32, WordBox, &str, u16)> =
                words.iter().map(|w| (0, bbox, *w, 2048)).collect();
            let rows: Vec<StoredRow> = (0..words.len() as u16)
                .map(|i| StoredRow {
                    floor: i,
                    kept: vec![(i % 2, 100 + i, 1), (2, 200 + i, 2)],
                })
                .collect();
            contents.insert_book(book, &placed, &rows);
        }
        contents
    }

    #[test]
    fn a_repeated_collection_holds_each_book_times_over_with_its_own_rows() {
        let one = contents();
        let three = repeat(one.clone(), 3);
        let file = SearchFile::decode(image_search::encode(&three), Path::new("r.wis")).unwrap();
        let read = file.contents().unwrap();
        assert_eq!(read.images.len(), 15);
        let keys: Vec<&str> = read.books.iter().map(|b| b.key.as_str()).collect();
        assert_eq!(
            keys,
            ["a#000000", "a#000001", "a#000002", "b#000000", "b#000001", "b#000002"]
        );
        // Every copy's entries are its book's, renumbered.
        for book in &read.books {
            let source = one
                .books
                .iter()
                .find(|b| book.key.starts_with(&b.key))
                .unwrap();
            for (c, column) in read.columns.iter().enumerate() {
                let own: Vec<_> = (column.iter())
                    .filter(|e| (book.first_image..book.first_image + book.images).contains(&e.0))
                    .map(|e| (e.0 - book.first_image, e.1, e.2))
                    .collect();
                let original: Vec<_> = (one.columns[c].iter())
                    .filter(|e| {
                        (source.first_image..source.first_image + source.images).contains(&e.0)
                    })
                    .map(|e| (e.0 - source.first_image, e.1, e.2))
                    .collect();
                assert_eq!(own, original, "{} column {c}", book.key);
            }
        }
    }
}
