//! The batch kernels run in one process (`batch::all_pairs`) give the same
//! pairs, scores, locations and clusters as `Reader::pairs` in approximate
//! mode over an index of the same books: on a generated collection with
//! editions, anthologies and OCR noise, and on one with volumes cut into
//! parts whose word sample crosses the caps.

mod common;

use std::collections::HashMap;

use stemmata::batch::{self, BookFeatures, Caps, Components, FeatureOptions};
use stemmata::repr::{PartOptions, SketchOptions};
use stemmata::{Document, Index, Location, Mode, PairsOptions, Score};
use stemmata_synth::{generate, SynthOptions};

/// (key a, key b, score bits, parts, word ranges) of each pair.
type Row = (String, String, u64, (u32, u32), [u32; 4]);

fn row(a: &str, b: &str, score: f64, l: Location) -> Row {
    let words = [
        l.words_x.start,
        l.words_x.end,
        l.words_y.start,
        l.words_y.end,
    ];
    (
        a.to_string(),
        b.to_string(),
        score.to_bits(),
        (l.part_x, l.part_y),
        words,
    )
}

fn index_rows(index: &Index) -> (Vec<Row>, Vec<Vec<String>>) {
    let reader = index.reader().unwrap();
    let options = PairsOptions::default().mode(Mode::Approximate).threads(2);
    let all = reader.pairs(&options).unwrap();
    let rows = all
        .pairs
        .iter()
        .map(|p| row(&p.a.key, &p.b.key, p.score, p.location))
        .collect();
    let clusters = all
        .clusters()
        .into_iter()
        .map(|c| c.into_iter().map(|b| b.key.clone()).collect())
        .collect();
    (rows, clusters)
}

fn batch_rows(books: &[BookFeatures], options: &FeatureOptions) -> (Vec<Row>, Vec<Vec<String>>) {
    let score = Score::default();
    let pairs = batch::all_pairs(books, options, score, score.default_threshold());
    let mut components = Components::new(books.len());
    let rows = pairs
        .iter()
        .map(|p| {
            components.join(p.a, p.b);
            let (a, b) = (&books[p.a as usize].key, &books[p.b as usize].key);
            row(a, b, p.verified.score, p.verified.location)
        })
        .collect();
    let clusters = components
        .groups()
        .into_iter()
        .map(|g| {
            g.into_iter()
                .map(|id| books[id as usize].key.clone())
                .collect()
        })
        .collect();
    (rows, clusters)
}

/// Loads `documents` into a new index with `options` and compares its
/// approximate pairs and clusters with the kernels' on the same books.
fn assert_same(
    documents: Vec<Document>,
    options: FeatureOptions,
    crosses_sample_cap: bool,
) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::builder()
        .parts(options.parts.volume_words, options.parts.part_words)
        .sketch_options(options.sketch)
        .create(dir.path().join("index"))
        .unwrap();
    common::load_docs(&index, documents.clone(), 64);
    let books: Vec<BookFeatures> = documents
        .into_iter()
        .map(|d| batch::features(d, &options).unwrap())
        .collect();
    let (words, keys) = over_caps(&books);
    eprintln!("{words} sampled words and {keys} keys over their caps");
    assert!(
        keys > 0 && (words > 0 || !crosses_sample_cap),
        "{words} words, {keys} keys over caps"
    );
    let (expected, expected_clusters) = index_rows(&index);
    let (found, found_clusters) = batch_rows(&books, &options);
    assert!(!expected.is_empty());
    let missing: Vec<&Row> = expected.iter().filter(|r| !found.contains(r)).collect();
    let extra: Vec<&Row> = found.iter().filter(|r| !expected.contains(r)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "pairs of the index not found: {missing:?}; found, not the index's: {extra:?}"
    );
    assert_eq!(found, expected, "the same pairs in another order");
    assert_eq!(found_clusters, expected_clusters);
    expected.len()
}

/// Sampled words over the sample's cap, and keys over the key cap, in
/// `books`: what shows the caps were crossed.
fn over_caps(books: &[BookFeatures]) -> (usize, usize) {
    let parts = books.iter().map(|b| b.parts.len()).sum();
    let caps = Caps::for_collection(books.len(), parts);
    let mut words: HashMap<u32, usize> = HashMap::new();
    let mut keys: HashMap<(stemmata::repr::Table, u64), usize> = HashMap::new();
    for (id, book) in books.iter().enumerate() {
        for entry in book.sample_entries(id as u32) {
            *words.entry(entry.word).or_default() += 1;
        }
        for entry in book.key_entries() {
            *keys.entry((entry.table, entry.key)).or_default() += 1;
        }
    }
    (
        words.values().filter(|&&n| n > caps.sample).count(),
        keys.values().filter(|&&n| n > caps.key).count(),
    )
}

#[test]
fn the_kernels_find_the_pairs_of_an_index() {
    let collection = generate(&SynthOptions {
        min_words: 2_000,
        max_words: 5_000,
        vocab_size: 20_000,
        ocr_noise: (0.0, 0.08),
        anthology_share: 0.5,
        ..SynthOptions::with_families(60, 11)
    });
    let pairs = assert_same(
        common::documents(&collection),
        FeatureOptions::default(),
        false,
    );
    assert!(pairs > 40, "{pairs} pairs");
}

#[test]
fn the_kernels_find_the_pairs_of_volumes_cut_into_parts() {
    // Small parts make volumes of the anthologies (several parts each)
    // and many parts in all, so sampled words cross the sample's cap of
    // 256 parts and the key-table rule of at most 64 pairs of parts holds
    // for some pairs and not others.
    let collection = generate(&SynthOptions {
        min_words: 1_500,
        max_words: 4_000,
        vocab_size: 6_000,
        ocr_noise: (0.0, 0.05),
        anthology_share: 0.6,
        ..SynthOptions::with_families(80, 5)
    });
    let options = FeatureOptions {
        parts: PartOptions {
            volume_words: 2_048,
            part_words: 256,
        },
        sketch: SketchOptions::default(),
        ..FeatureOptions::default()
    };
    let pairs = assert_same(common::documents(&collection), options, true);
    assert!(pairs > 40, "{pairs} pairs");
}

#[test]
fn features_refuse_what_the_loader_refuses() {
    let options = FeatureOptions::default();
    let empty = batch::features(Document::new("empty", ""), &options);
    assert!(empty.unwrap_err().to_string().contains("empty"));
    let binary = batch::features(Document::new("binary", vec![0u8; 4096]), &options);
    assert!(binary.is_err());
    let bad_key = batch::features(Document::new("", "some words here"), &options);
    assert!(bad_key.is_err());
}
