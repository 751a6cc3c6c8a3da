//! An index's book features read back (`Reader::book_features`) are what
//! `batch::features` gives of the same documents, and an index built from
//! them (`BulkLoader::add_features`) answers pairs, queries and relations
//! as the original does. Features that are not what a document gives are
//! refused, naming their source, and leave the index as it was.

mod common;

use stemmata::batch::{self, BookFeatures, FeatureOptions};
use stemmata::repr::minhash::page_codes;
use stemmata::repr::{MinHashSig, PartOptions, SketchOptions};
use stemmata::{Document, Error, Index, LoadOptions, Mode, PairsOptions, QueryOptions};
use stemmata_synth::{generate, SynthOptions};

/// A generated collection with editions, anthologies, OCR noise and pages.
fn documents() -> Vec<Document> {
    let collection = generate(&SynthOptions {
        min_words: 1_500,
        max_words: 4_000,
        vocab_size: 8_000,
        ocr_noise: (0.0, 0.05),
        anthology_share: 0.5,
        ..SynthOptions::with_families(25, 7)
    });
    common::documents(&collection)
}

/// Options with small parts, so that anthologies become volumes.
fn volume_options() -> FeatureOptions {
    FeatureOptions {
        parts: PartOptions {
            volume_words: 4_096,
            part_words: 1_024,
        },
        sketch: SketchOptions::default(),
        ..FeatureOptions::default()
    }
}

fn create(dir: &std::path::Path, options: &FeatureOptions) -> Index {
    Index::builder()
        .parts(options.parts.volume_words, options.parts.part_words)
        .sketch_options(options.sketch)
        .create(dir)
        .unwrap()
}

fn exported(index: &Index) -> Vec<(u32, BookFeatures)> {
    let reader = index.reader().unwrap();
    reader.book_features().collect::<Result<_, _>>().unwrap()
}

/// Loads features into `index`, each named by its place.
fn import(index: &Index, books: &[(u32, BookFeatures)], options: &FeatureOptions) {
    let mut loader = index
        .bulk_loader(LoadOptions::default().batch_books(16))
        .unwrap();
    for (id, features) in books {
        loader
            .add_features(features.clone(), options, &format!("book {id}"))
            .unwrap();
    }
    let stats = loader.finish().unwrap();
    assert!(stats.skipped.is_empty(), "{:?}", stats.skipped);
    assert_eq!(stats.books, books.len() as u64);
}

#[test]
fn exported_features_are_those_of_the_documents() {
    let options = volume_options();
    let dir = tempfile::tempdir().unwrap();
    let index = create(dir.path(), &options);
    let docs = documents();
    common::load_docs(&index, docs.clone(), 32);
    let books = exported(&index);
    assert_eq!(books.len(), docs.len());
    assert!(books.windows(2).all(|w| w[0].0 < w[1].0), "ids ascend");
    let (mut volumes, mut paged) = (0, 0);
    for ((_, found), doc) in books.iter().zip(docs) {
        let expected = batch::features(doc, &options).unwrap();
        volumes += usize::from(expected.parts.len() > 1);
        paged += usize::from(!expected.page_minhashes.is_empty());
        assert_eq!(found.key, expected.key);
        assert_eq!(found.title, expected.title);
        assert_eq!(found.author, expected.author);
        assert_eq!(found.language, expected.language);
        assert_eq!(found.words, expected.words);
        assert_eq!(found.pages, expected.pages);
        assert_eq!(found.distinct_words, expected.distinct_words);
        assert_eq!(found.parts, expected.parts, "{}", found.key);
        assert_eq!(found.keys, expected.keys, "{}", found.key);
        assert_eq!(found.simhash, expected.simhash);
        assert_eq!(found.minhash, expected.minhash);
        // The index keeps each page min-hash as its 16-bit code.
        let reduced: Vec<MinHashSig> = expected.page_minhashes.iter().map(page_codes).collect();
        assert_eq!(found.page_minhashes, reduced);
        // Not kept by an index.
        assert_eq!(
            (
                found.bytes,
                found.invalid_utf8_sequences,
                found.encoding.as_str()
            ),
            (0, 0, "")
        );
    }
    assert!(volumes > 0 && paged > 0, "{volumes} volumes, {paged} paged");
}

/// (key a, key b, score bits, overlap, location) of every pair.
fn pairs(index: &Index, mode: Mode) -> Vec<String> {
    let reader = index.reader().unwrap();
    let all = reader
        .pairs(&PairsOptions::default().mode(mode).threads(2))
        .unwrap();
    all.pairs
        .iter()
        .map(|p| {
            format!(
                "{} {} {:x} {:?} {:?}",
                p.a.key,
                p.b.key,
                p.score.to_bits(),
                p.overlap,
                p.location
            )
        })
        .collect()
}

#[test]
fn an_index_built_from_exported_features_answers_as_the_original() {
    let options = volume_options();
    let dir = tempfile::tempdir().unwrap();
    let original = create(&dir.path().join("original"), &options);
    let docs = documents();
    common::load_docs(&original, docs.clone(), 32);
    let books = exported(&original);
    let copy = create(&dir.path().join("copy"), &options);
    import(&copy, &books, &original.feature_options().unwrap());
    assert_eq!(exported(&copy), books, "export of the copy");
    for mode in [Mode::Approximate, Mode::Exact] {
        let (a, b) = (pairs(&original, mode), pairs(&copy, mode));
        assert!(a.len() > 10, "{} pairs", a.len());
        assert_eq!(a, b, "{mode:?} pairs");
    }
    let (r, c) = (original.reader().unwrap(), copy.reader().unwrap());
    for doc in docs.iter().take(12) {
        for mode in [Mode::Approximate, Mode::Exact] {
            let query = QueryOptions::default().mode(mode).top_k(5);
            let by_key = |reader: &stemmata::Reader| reader.query_key(&doc.key, &query).unwrap();
            assert_eq!(by_key(&r).hits, by_key(&c).hits, "{mode:?} {}", doc.key);
            let by_text = |reader: &stemmata::Reader| reader.query_text(&doc.text, &query).unwrap();
            assert_eq!(by_text(&r).hits, by_text(&c).hits, "{mode:?} {}", doc.key);
        }
    }
    let found = pairs(&original, Mode::Approximate);
    for line in found.iter().take(8) {
        let mut keys = line.split(' ');
        let (a, b) = (keys.next().unwrap(), keys.next().unwrap());
        assert_eq!(r.relation(a, b).unwrap(), c.relation(a, b).unwrap());
    }
}

/// A way to spoil a book's features.
type Spoil = Box<dyn Fn(&mut BookFeatures)>;

/// One good book's features, with the default options.
fn one_book() -> BookFeatures {
    let doc = documents().swap_remove(0);
    batch::features(doc, &FeatureOptions::default()).unwrap()
}

#[test]
fn bad_features_are_refused_naming_their_source_and_leave_the_index_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let options = index.feature_options().unwrap();
    let good = one_book();
    let bad: Vec<(&str, Spoil)> = vec![
        ("bad key", Box::new(|f| f.key = " padded".into())),
        (
            "listed twice",
            Box::new(|f| {
                let first = f.parts[0].hashes[0];
                f.parts[0].hashes[1] = first;
            }),
        ),
        (
            "strictly increasing",
            Box::new(|f| f.parts[0].positions.swap(0, 1)),
        ),
        (
            "positions",
            Box::new(|f| {
                f.parts[0].positions.pop();
            }),
        ),
        (
            "past the book",
            Box::new(|f| {
                let words = f.words as u32;
                *f.parts[0].positions.last_mut().unwrap() = words;
            }),
        ),
        (
            "K is 100",
            Box::new(|f| {
                f.minhash.0.pop();
            }),
        ),
        (
            "page signatures",
            Box::new(|f| {
                f.page_minhashes.pop();
            }),
        ),
        (
            "window-hash count",
            Box::new(|f| f.page_minhashes[1].0.push(7)),
        ),
        (
            "unknown encoding",
            Box::new(|f| f.encoding = "EBCDIC".into()),
        ),
        ("not those of", Box::new(|f| f.keys[0][0] ^= 1)),
        ("not ascending", Box::new(|f| f.keys[1].swap(0, 1))),
        (
            "window keys: a book of",
            Box::new(|f| f.keys[1] = (0..100_000u64).collect()),
        ),
        ("0 pages", Box::new(|f| f.pages = 0)),
        ("no part", Box::new(|f| f.parts.clear())),
        ("not an ISO 639-3 code", Box::new(|f| f.language.clear())),
        (
            "not an ISO 639-3 code",
            Box::new(|f| f.language = "a\tb".into()),
        ),
        (
            "not an ISO 639-3 code",
            Box::new(|f| f.language = "x".repeat(5000)),
        ),
    ];
    assert!(good.page_minhashes.len() >= 2 && good.parts[0].len() >= 2);
    let mut loader = index.bulk_loader(LoadOptions::default()).unwrap();
    for (problem, spoil) in &bad {
        let mut features = good.clone();
        spoil(&mut features);
        let checked = features.check(&options, &options, "f.parquet row 3");
        let added = loader.add_features(features, &options, "f.parquet row 3");
        for result in [checked, added] {
            match result {
                Err(Error::BadDocument {
                    source_name,
                    reason,
                }) => {
                    assert_eq!(source_name, "f.parquet row 3");
                    assert!(reason.contains(problem), "{problem}: {reason}");
                }
                other => panic!("{problem}: {other:?}"),
            }
        }
    }
    let other = FeatureOptions {
        parts: PartOptions {
            volume_words: 4_096,
            part_words: 1_024,
        },
        ..options
    };
    let error = loader
        .add_features(good.clone(), &other, "f.parquet row 0")
        .unwrap_err();
    assert!(matches!(&error, Error::InvalidArgument(m) if m.contains("parts")));
    let stats = loader.finish().unwrap();
    assert_eq!(stats.books, 0);
    assert!(index.reader().unwrap().is_empty());
    good.check(&options, &options, "row").unwrap();
}
