//! Approximate mode through the public API: band-table candidates verified
//! like exact mode, so what it finds is a subset of exact mode's answers
//! with the same scores; sketch segments follow loads, deletes, compaction,
//! reopening and a crashed writer's leftovers.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use stemmata::repr::sketch::SketchOptions;
use stemmata::{Document, Index, Mode, PairsOptions, QueryOptions, QueryResult, Reader};
use stemmata_synth::{
    generate, ocr_noise, work_text, SynthCollection, SynthOptions, SynthRelation,
};

/// Families of works of 3,000–6,000 words with light OCR noise, half of
/// them in anthologies: enough shingles for several windows per work.
fn collection(families: usize, seed: u64) -> SynthCollection {
    generate(&SynthOptions {
        min_words: 3_000,
        max_words: 6_000,
        vocab_size: 20_000,
        ocr_noise: (0.0, 0.01),
        anthology_share: 0.5,
        ..SynthOptions::with_families(families, seed)
    })
}

fn options(mode: Mode) -> QueryOptions {
    QueryOptions::default().mode(mode).top_k(0)
}

fn approximate() -> QueryOptions {
    options(Mode::Approximate)
}

fn exact() -> QueryOptions {
    options(Mode::Exact)
}

/// Hits as key → score bits.
fn hits(result: &QueryResult) -> BTreeMap<String, u64> {
    result
        .hits
        .iter()
        .map(|h| (h.key.clone(), h.score.to_bits()))
        .collect()
}

/// Every book's approximate hits.
fn all_answers(reader: &Reader) -> BTreeMap<String, BTreeMap<String, u64>> {
    reader
        .books()
        .iter()
        .map(|b| {
            let result = reader.query_key(&b.key, &approximate()).unwrap();
            (b.key.clone(), hits(&result))
        })
        .collect()
}

/// Pairs as (smaller key, larger key) → score bits.
fn pairs(reader: &Reader, mode: Mode) -> BTreeMap<(String, String), u64> {
    let options = PairsOptions::default().mode(mode).threads(2);
    common::collect_pairs(reader, &options, |a, b| {
        let (a, b) = (a.key.clone(), b.key.clone());
        if a < b {
            (a, b)
        } else {
            (b, a)
        }
    })
    .into_iter()
    .map(|(key, score)| (key, score.to_bits()))
    .collect()
}

fn segment_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

fn loaded(collection: &SynthCollection, batch_books: usize) -> (tempfile::TempDir, Index) {
    loaded_with(collection, batch_books, SketchOptions::default())
}

fn loaded_with(
    collection: &SynthCollection,
    batch_books: usize,
    sketch: SketchOptions,
) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::builder()
        .sketch_options(sketch)
        .create(dir.path())
        .unwrap();
    common::load_docs(&index, common::documents(collection), batch_books);
    (dir, index)
}

/// Sketch options under which simhash proposes only near-identical books.
/// Synthetic texts share one vocabulary, so with the default distance their
/// simhashes are close enough to propose every book of a small collection,
/// which would hide what the min-hash tables miss.
fn min_hash_only() -> SketchOptions {
    SketchOptions {
        simhash_distance: 1,
        ..SketchOptions::default()
    }
}

/// The first pair of `relation` whose books exact mode relates, as keys
/// (container first for `Contains`).
fn related(
    collection: &SynthCollection,
    reader: &Reader,
    relation: SynthRelation,
) -> (String, String) {
    collection
        .pairs
        .iter()
        .filter(|p| p.relation == relation)
        .map(|p| {
            (
                collection.books[p.a].key.clone(),
                collection.books[p.b].key.clone(),
            )
        })
        .find(|(a, b)| {
            let found = hits(&reader.query_key(a, &exact()).unwrap());
            found.contains_key(b)
        })
        .unwrap_or_else(|| panic!("no {relation:?} pair found by exact mode"))
}

#[test]
fn approximate_queries_find_an_edition_and_a_contained_work_with_exact_scores() {
    let collection = collection(8, 21);
    for sketch in [SketchOptions::default(), min_hash_only()] {
        finds_an_edition_and_a_contained_work(&collection, sketch);
    }
}

fn finds_an_edition_and_a_contained_work(collection: &SynthCollection, sketch: SketchOptions) {
    let strict = sketch == min_hash_only();
    let (_dir, index) = loaded_with(collection, 1000, sketch);
    let reader = index.reader().unwrap();
    assert_eq!(reader.unsketched_books(), 0);

    for relation in [SynthRelation::Edition, SynthRelation::Contains] {
        let (a, b) = related(collection, &reader, relation);
        for (query, target) in [(&a, &b), (&b, &a)] {
            let exact_hits = hits(&reader.query_key(query, &exact()).unwrap());
            let result = reader.query_key(query, &approximate()).unwrap();
            assert_eq!(result.explain.mode, Mode::Approximate);
            let sources = result
                .explain
                .sources
                .expect("approximate explains sources");
            assert!(
                sources.book_minhash
                    + sources.window_minhash
                    + sources.simhash
                    + sources.word_sample
                    >= result.explain.candidates,
                "{sources:?}"
            );
            if strict {
                assert!(
                    result.explain.candidates < result.explain.books,
                    "every book is a candidate: {sources:?}"
                );
            }
            let found = hits(&result);
            assert!(
                found.contains_key(target.as_str()),
                "{relation:?}: {query} does not find {target} ({sources:?})"
            );
            assert!(!found.contains_key(query.as_str()), "a book finds itself");
            for (key, score) in &found {
                assert_eq!(exact_hits.get(key), Some(score), "{query} → {key}");
            }
        }
        // A contained work's text finds its anthology through the windows.
        let text = &collection.books.iter().find(|x| x.key == b).unwrap().text;
        let result = reader.query_text(text.as_bytes(), &approximate()).unwrap();
        let sources = result.explain.sources.expect("sources");
        if relation == SynthRelation::Contains {
            assert!(sources.window_minhash > 0, "{sources:?}");
        }
        let found = hits(&result);
        let exact_hits = hits(&reader.query_text(text.as_bytes(), &exact()).unwrap());
        assert!(found.contains_key(&a), "{relation:?}: text of {b}");
        assert!(found.contains_key(&b), "the text finds its own book");
        for (key, score) in &found {
            assert_eq!(exact_hits.get(key), Some(score), "text of {b} → {key}");
        }
    }
}

#[test]
fn approximate_pairs_are_exact_pairs_with_the_same_scores() {
    let collection = collection(10, 5);
    for sketch in [SketchOptions::default(), min_hash_only()] {
        let (_dir, index) = loaded_with(&collection, 9, sketch);
        let reader = index.reader().unwrap();
        let exact_pairs = pairs(&reader, Mode::Exact);
        let approximate_pairs = pairs(&reader, Mode::Approximate);
        assert!(!exact_pairs.is_empty());
        for (pair, score) in &approximate_pairs {
            assert_eq!(exact_pairs.get(pair), Some(score), "{pair:?}");
        }
        assert!(
            2 * approximate_pairs.len() >= exact_pairs.len(),
            "approximate mode found {} of {} pairs",
            approximate_pairs.len(),
            exact_pairs.len()
        );
    }
}

#[test]
fn a_deleted_book_leaves_approximate_results() {
    let collection = collection(6, 8);
    let (_dir, index) = loaded(&collection, 1000);
    let (a, b) = related(
        &collection,
        &index.reader().unwrap(),
        SynthRelation::Edition,
    );
    let before = index.reader().unwrap();
    assert!(hits(&before.query_key(&a, &approximate()).unwrap()).contains_key(&b));
    let pairs_before = pairs(&before, Mode::Approximate);
    assert!(pairs_before.keys().any(|(x, y)| *x == b || *y == b));

    assert_eq!(index.delete(&[b.as_str()]).unwrap(), 1);
    // The snapshot taken before the delete still answers as it did.
    assert!(hits(&before.query_key(&a, &approximate()).unwrap()).contains_key(&b));
    let after = index.reader().unwrap();
    assert!(!hits(&after.query_key(&a, &approximate()).unwrap()).contains_key(&b));
    let text = &collection.books.iter().find(|x| x.key == b).unwrap().text;
    let by_text = hits(&after.query_text(text.as_bytes(), &approximate()).unwrap());
    assert!(by_text.contains_key(&a) && !by_text.contains_key(&b));
    let pairs_after = pairs(&after, Mode::Approximate);
    let expected: BTreeMap<_, _> = pairs_before
        .into_iter()
        .filter(|((x, y), _)| *x != b && *y != b)
        .collect();
    assert_eq!(pairs_after, expected);
    assert!(after.query_key(&b, &approximate()).is_err());
    let verified = index.verify().unwrap();
    assert_eq!(verified.sketched_books, after.len() as u64);
}

#[test]
fn a_load_of_many_batches_ends_with_one_verified_segment() {
    let collection = collection(8, 13);
    let books = collection.books.len();
    let batch_books = 2;
    assert!(books.div_ceil(batch_books) > 8, "{books} books");
    let (dir, index) = loaded(&collection, batch_books);
    assert_eq!(segment_files(dir.path()).len(), 1);
    let stats = index.stats().unwrap();
    assert_eq!(stats.segments, 1);
    let file_len = std::fs::metadata(&segment_files(dir.path())[0])
        .unwrap()
        .len();
    assert_eq!(stats.segment_bytes, file_len);
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.books,
            verified.segments,
            verified.sketched_books,
            verified.dead_sketches,
            verified.segment_bytes
        ),
        (books as u64, 1, books as u64, 0, file_len)
    );

    // One batch per load answers the same as one load of everything.
    let (_one_dir, one) = loaded(&collection, 1000);
    assert_eq!(
        all_answers(&index.reader().unwrap()),
        all_answers(&one.reader().unwrap())
    );
}

#[test]
fn a_load_of_a_few_batches_ends_as_one_run_and_leaves_a_much_larger_one_alone() {
    let collection = collection(6, 21);
    let books = common::documents(&collection);
    let (first, rest) = books.split_at(books.len() * 7 / 8);
    let batch_books = first.len().div_ceil(3);
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, first.to_vec(), batch_books);
    // Three batches, fewer than a compaction's segment limit: still one run.
    let after_first = segment_files(dir.path());
    assert_eq!(after_first.len(), 1, "{after_first:?}");
    let big = std::fs::metadata(&after_first[0]).unwrap().len();

    // Two small batches next to a segment over four times their size: the
    // two become one run, the large one is not rewritten.
    let small_batch = rest.len().div_ceil(2);
    common::load_docs(&index, rest.to_vec(), small_batch);
    let after_rest = segment_files(dir.path());
    assert_eq!(after_rest.len(), 2, "{after_rest:?}");
    assert_eq!(after_rest[0], after_first[0]);
    assert_eq!(std::fs::metadata(&after_rest[0]).unwrap().len(), big);
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.segments, verified.sketched_books),
        (2, books.len() as u64)
    );

    // The runs answer as one load of everything does.
    let (_one_dir, one) = loaded(&collection, 1000);
    assert_eq!(
        all_answers(&index.reader().unwrap()),
        all_answers(&one.reader().unwrap())
    );
}

#[test]
fn a_reopened_index_gives_the_same_approximate_answers() {
    let collection = collection(6, 34);
    let (dir, index) = loaded(&collection, 5);
    let before = all_answers(&index.reader().unwrap());
    assert!(before.values().any(|hits| !hits.is_empty()));
    drop(index);
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(all_answers(&index.reader().unwrap()), before);
    assert_eq!(index.verify().unwrap().sketched_books, before.len() as u64);
}

#[test]
fn an_orphan_segment_is_ignored_by_readers_and_removed_by_the_next_load() {
    let collection = collection(5, 55);
    let (dir, index) = loaded(&collection, 1000);
    let before = all_answers(&index.reader().unwrap());
    let listed = segment_files(dir.path());
    assert_eq!(listed.len(), 1);
    // What a writer that stopped before its catalog commit leaves: a junk
    // file, and a whole segment sketching books again.
    let junk = dir.path().join("segments/999999.seg");
    std::fs::write(&junk, b"half a segment, then the power went out").unwrap();
    let copy = dir.path().join("segments/999998.seg");
    std::fs::copy(&listed[0], &copy).unwrap();
    drop(index);

    let index = Index::open(dir.path()).unwrap();
    assert_eq!(all_answers(&index.reader().unwrap()), before);
    let verified = index.verify().unwrap();
    assert_eq!((verified.segments, verified.dead_sketches), (1, 0));
    assert_eq!(index.stats().unwrap().segments, 1);
    assert!(junk.exists() && copy.exists(), "readers remove nothing");

    let extra = Document::new("extra", common::text(500_000, 400));
    index.load([Ok(extra)]).unwrap();
    assert!(!junk.exists() && !copy.exists(), "the load removes orphans");
    assert!(listed[0].exists());
    assert_eq!(segment_files(dir.path()).len(), 2);
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.segments, verified.sketched_books),
        (2, before.len() as u64 + 1)
    );
    let reader = index.reader().unwrap();
    for (key, hits_before) in &before {
        let now = hits(&reader.query_key(key, &approximate()).unwrap());
        assert_eq!(&now, hits_before, "{key}");
    }
}

/// An index of `documents` (key, text) with sketches whose simhash
/// proposes only near-identical books (see [`min_hash_only`]).
fn index_of(documents: &[(&str, String)]) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::builder()
        .sketch_options(min_hash_only())
        .create(dir.path())
        .unwrap();
    let docs = documents
        .iter()
        .map(|(key, text)| Document::new(key.to_string(), text.as_bytes()))
        .collect();
    common::load_docs(&index, docs, 1000);
    (dir, index)
}

/// Asserts that approximate mode, from either side and from the text of
/// `b`, finds what exact mode finds between `a` and `b`, with its score.
fn approximate_finds(reader: &Reader, a: &str, b: &str, b_text: &str) {
    for (query, target) in [(a, b), (b, a)] {
        let exact_hits = hits(&reader.query_key(query, &exact()).unwrap());
        assert!(exact_hits.contains_key(target), "exact: {query} → {target}");
        let result = reader.query_key(query, &approximate()).unwrap();
        let sources = result.explain.sources.expect("sources");
        let found = hits(&result);
        assert_eq!(
            found.get(target),
            exact_hits.get(target),
            "approximate: {query} → {target} ({sources:?})"
        );
        assert!(sources.word_sample > 0, "{sources:?}");
        assert!(
            result.explain.candidates < result.explain.books,
            "every book is a candidate: {sources:?}"
        );
    }
    let found = hits(
        &reader
            .query_text(b_text.as_bytes(), &approximate())
            .unwrap(),
    );
    assert!(found.contains_key(a), "the text of {b} finds {a}");
    let pairs = pairs(reader, Mode::Approximate);
    let key = if a < b { (a, b) } else { (b, a) };
    assert!(
        pairs.contains_key(&(key.0.to_string(), key.1.to_string())),
        "approximate pairs miss {a} and {b}"
    );
}

#[test]
fn approximate_mode_finds_a_small_work_inside_a_volume() {
    // A work of 800 words, 0.4% of a volume of 200,000: shorter than one
    // content-defined window on average, and its window in the volume is
    // mostly the text around it.
    let work = work_text(800, 41);
    let volume = format!(
        "{}\n{}\n{}",
        work_text(110_000, 42),
        work,
        work_text(90_000, 43)
    );
    let mut documents = vec![("volume", volume), ("work", work.clone())];
    let others: Vec<String> = (0..6u64).map(|i| format!("other-{i}")).collect();
    for (i, key) in others.iter().enumerate() {
        documents.push((key, work_text(5_000, 50 + i as u64)));
    }
    let (_dir, index) = index_of(&documents);
    let reader = index.reader().unwrap();
    approximate_finds(&reader, "volume", "work", &work);
}

#[test]
fn approximate_mode_finds_two_scans_at_fifteen_percent_character_error() {
    // At 15% character error on both sides almost every 5-word shingle is
    // broken, so no min-hash band of the two scans agrees.
    let text = work_text(12_000, 61);
    let mut rng = SmallRng::seed_from_u64(62);
    let first = ocr_noise(&text, 0.15, &mut rng);
    let second = ocr_noise(&text, 0.15, &mut rng);
    let mut documents = vec![("first", first), ("second", second.clone())];
    let others: Vec<String> = (0..6u64).map(|i| format!("other-{i}")).collect();
    for (i, key) in others.iter().enumerate() {
        documents.push((key, work_text(8_000, 70 + i as u64)));
    }
    let (_dir, index) = index_of(&documents);
    let reader = index.reader().unwrap();
    approximate_finds(&reader, "first", "second", &second);
}
