//! Loading collections and finding what is related in them: all-pairs recall
//! and precision on a generated collection, queries by key and by text, the
//! library's document sources, and replacing a book by key.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use stemmata::load::sources;
use stemmata::{Document, Index, PairsOptions, QueryOptions, Score};
use stemmata_synth::{generate, ocr_noise, SynthCollection, SynthOptions, SynthRelation};

/// A collection with many anthologies, so that Contains pairs are plentiful.
fn collection(seed: u64) -> SynthCollection {
    generate(&SynthOptions {
        min_words: 400,
        max_words: 1500,
        vocab_size: 20_000,
        anthology_share: 0.4,
        ..SynthOptions::with_families(30, seed)
    })
}

fn loaded(collection: &SynthCollection) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    common::load_docs(&index, common::documents(collection), 25);
    (dir, index)
}

fn unordered(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// Ground truth as unordered key pairs with their relation.
fn truth(collection: &SynthCollection) -> BTreeMap<(String, String), SynthRelation> {
    collection
        .pairs
        .iter()
        .map(|p| {
            let (a, b) = (&collection.books[p.a].key, &collection.books[p.b].key);
            (unordered(a, b), p.relation)
        })
        .collect()
}

/// Asserts that `index` holds exactly the sequences `books` (key, text) give.
fn assert_sequences_of_texts(index: &Index, books: &[(String, String)]) {
    let docs: Vec<Document> = books
        .iter()
        .map(|(k, t)| Document::new(k.clone(), t.as_bytes()))
        .collect();
    assert_eq!(
        common::sequences_of(index),
        common::reference_sequences(&docs)
    );
}

/// Every pair `pairs` reports under `options`, keyed by unordered keys.
fn found_pairs(index: &Index, options: &PairsOptions) -> BTreeMap<(String, String), f64> {
    common::collect_pairs(&index.reader().unwrap(), options, |a, b| {
        unordered(&a.key, &b.key)
    })
}

#[test]
fn pairs_finds_every_edition_pair_and_most_contains_pairs_at_default_settings() {
    for seed in [11, 12] {
        let collection = collection(seed);
        let (_dir, index) = loaded(&collection);
        let found = found_pairs(&index, &PairsOptions::default());
        let truth = truth(&collection);
        let of = |relation| truth.iter().filter(move |(_, r)| **r == relation);
        let missed_editions: Vec<_> = of(SynthRelation::Edition)
            .filter(|(k, _)| !found.contains_key(*k))
            .map(|(k, _)| k)
            .collect();
        assert!(
            missed_editions.is_empty(),
            "seed {seed}: edition pairs not found: {missed_editions:?}"
        );
        let contains = of(SynthRelation::Contains).count();
        let contains_found = of(SynthRelation::Contains)
            .filter(|(k, _)| found.contains_key(*k))
            .count();
        assert!(
            contains >= 10,
            "seed {seed}: only {contains} Contains pairs"
        );
        assert!(
            contains_found * 10 >= contains * 9,
            "seed {seed}: only {contains_found} of {contains} Contains pairs found"
        );
    }
}

#[test]
fn no_pair_across_unrelated_families_scores_above_the_threshold() {
    let collection = collection(13);
    let (_dir, index) = loaded(&collection);
    let truth = truth(&collection);
    for score in Score::ALL {
        // Every pair with any in-order overlap, down to the smallest positive score.
        let all = found_pairs(&index, &PairsOptions::with_score(score).min_score(0.0));
        let unrelated: Vec<_> = all
            .iter()
            .filter(|(k, _)| !truth.contains_key(*k))
            .collect();
        if score == Score::Containment {
            // Unrelated books do share words: the test is not vacuous.
            assert!(
                unrelated.len() > 1000,
                "only {} unrelated pairs share a word",
                unrelated.len()
            );
        }
        let threshold = score.default_threshold();
        let above: Vec<_> = unrelated.iter().filter(|(_, &s)| s >= threshold).collect();
        assert!(
            above.is_empty(),
            "{score:?}: unrelated pairs at or above {threshold}: {above:?}"
        );
    }
    // The default run reports only related pairs.
    let default = found_pairs(&index, &PairsOptions::default());
    assert!(!default.is_empty());
    let extra: Vec<_> = default.keys().filter(|k| !truth.contains_key(*k)).collect();
    assert!(extra.is_empty(), "unrelated pairs reported: {extra:?}");
}

#[test]
fn query_by_key_returns_the_family_members_first() {
    let collection = collection(14);
    let (_dir, index) = loaded(&collection);
    let reader = index.reader().unwrap();
    let truth = truth(&collection);
    let options = QueryOptions::default().top_k(0);
    let mut checked = 0;
    for book in collection.books.iter().filter(|b| b.family.is_some()) {
        let relatives: BTreeSet<&str> = truth
            .keys()
            .filter_map(|(a, b)| {
                (a == &book.key)
                    .then_some(b.as_str())
                    .or((b == &book.key).then_some(a.as_str()))
            })
            .collect();
        let result = reader.query_key(&book.key, &options).unwrap();
        let keys: Vec<&str> = result.hits.iter().map(|h| h.key.as_str()).collect();
        assert!(
            !keys.contains(&book.key.as_str()),
            "a book is not its own hit"
        );
        let first: BTreeSet<&str> = keys.iter().take(relatives.len()).copied().collect();
        assert_eq!(first, relatives, "{}: hits {keys:?}", book.key);
        assert!(
            result.hits.windows(2).all(|w| w[0].score >= w[1].score),
            "hits are not by descending score"
        );
        checked += !relatives.is_empty() as usize;
    }
    assert!(checked >= 20, "only {checked} books with relatives");
}

#[test]
fn query_text_of_a_noisy_copy_finds_the_original() {
    let collection = collection(15);
    let (_dir, index) = loaded(&collection);
    let reader = index.reader().unwrap();
    let mut rng = SmallRng::seed_from_u64(99);
    let mut checked = 0;
    for book in &collection.books {
        let noisy = ocr_noise(&book.text, 0.04, &mut rng);
        assert_ne!(noisy, book.text);
        let result = reader
            .query_text(noisy.as_bytes(), &QueryOptions::default())
            .unwrap();
        let keys: Vec<&str> = result.hits.iter().map(|h| h.key.as_str()).collect();
        if book.key.starts_with("solo") {
            // An unrelated book has no relative but itself.
            assert_eq!(keys, [book.key.as_str()], "{}", book.key);
            checked += 1;
        } else if book.family.is_some() && !book.key.contains("-e") {
            // An original: found, and the best hit is from its family or an
            // anthology holding it.
            assert!(keys.contains(&book.key.as_str()), "{}: {keys:?}", book.key);
            let best = &collection.books.iter().find(|b| b.key == keys[0]).unwrap();
            assert!(
                best.family == book.family || best.key.starts_with("anth"),
                "{}: best hit {} is unrelated",
                book.key,
                best.key
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} books checked");
}

fn small_books() -> Vec<(String, String)> {
    let collection = common::small_collection(6, 21, 300, 800);
    collection
        .books
        .iter()
        .map(|b| (b.key.clone(), b.text.clone()))
        .collect()
}

#[test]
fn books_spread_over_several_barrels_read_back_whole_and_answer_the_same() {
    let books = small_books();
    let docs: Vec<Document> = books
        .iter()
        .map(|(k, t)| Document::new(k.clone(), t.as_bytes()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    // A new barrel after every batch of three books.
    let mut loader = index
        .bulk_loader(
            stemmata::LoadOptions::default()
                .batch_books(3)
                .max_barrel_bytes(1),
        )
        .unwrap();
    for doc in docs.clone() {
        loader.add(doc).unwrap();
    }
    loader.finish().unwrap();
    let barrels = std::fs::read_dir(dir.path().join("barrels"))
        .unwrap()
        .count();
    assert!(barrels >= 3, "{barrels} barrels");
    index.verify().unwrap();
    assert_sequences_of_texts(&index, &books);
    let reader = index.reader().unwrap();
    let (_one_barrel_dir, one_barrel) = loaded(&common::small_collection(6, 21, 300, 800));
    let reference = one_barrel.reader().unwrap();
    for (key, _) in &books {
        assert_eq!(reader.hashes(key).unwrap(), reference.hashes(key).unwrap());
        let options = QueryOptions::default();
        // The same books and scores; only the reference has titles.
        let hits = |r: &stemmata::Reader| {
            let hits = r.query_key(key, &options).unwrap().hits;
            hits.into_iter()
                .map(|h| (h.key, h.score, h.overlap))
                .collect::<Vec<_>>()
        };
        assert_eq!(hits(&reader), hits(&reference), "{key}");
    }
}

#[test]
fn loading_a_directory_of_txt_files_through_the_text_source_works() {
    let books = small_books();
    let input = tempfile::tempdir().unwrap();
    common::write_txt_books(input.path(), &books);
    std::fs::write(input.path().join("notes.md"), "not a book at all").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let stats = index
        .load(sources::text_files(input.path()).unwrap())
        .unwrap();
    assert_eq!(stats.books, books.len() as u64);
    assert!(stats.skipped.is_empty(), "{:?}", stats.skipped);
    assert_sequences_of_texts(&index, &books);
    let words: u64 = books
        .iter()
        .map(|(_, t)| t.split_whitespace().count() as u64)
        .sum();
    // Page numbers are not words and OCR marks split some: close to the count.
    assert!(
        stats.words.abs_diff(words) * 20 <= words,
        "{} words loaded, {words} whitespace-separated tokens",
        stats.words
    );
}

#[test]
fn loading_json_lines_with_text_and_with_pages_works() {
    let books = small_books();
    let input = tempfile::tempdir().unwrap();
    let path = input.path().join("books.jsonl");
    let mut lines = String::new();
    for (i, (key, text)) in books.iter().enumerate() {
        let mut record = serde_json::json!({
            "key": key,
            "title": format!("Title of {key}"),
            "author": "Anon",
            "language": "xxx",
        });
        if i.is_multiple_of(2) {
            record["text"] = text.as_str().into();
        } else {
            let pages: Vec<&str> = text.split('\x0c').collect();
            record["pages"] = pages.into();
        }
        lines.push_str(&record.to_string());
        lines.push('\n');
    }
    std::fs::write(&path, lines).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let stats = index.load(sources::json_lines(&path).unwrap()).unwrap();
    assert_eq!(stats.books, books.len() as u64);
    assert!(stats.skipped.is_empty(), "{:?}", stats.skipped);

    assert_sequences_of_texts(&index, &books);
    let reader = index.reader().unwrap();
    let mut multi_page = 0;
    for (key, text) in &books {
        let info = reader.book(key).unwrap();
        assert_eq!(info.title, format!("Title of {key}"));
        assert_eq!(
            (info.author.as_str(), info.language.as_str()),
            ("Anon", "xxx")
        );
        let pages = text.split('\x0c').count() as u32;
        assert_eq!(info.pages, pages, "{key}");
        multi_page += (pages > 1) as usize;
    }
    assert!(multi_page >= books.len() / 2, "books should span pages");
}

#[test]
fn loading_the_same_key_again_replaces_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let first = common::text(0, 600);
    let second = common::text(10_000, 700);
    let stats = common::load_docs(
        &index,
        vec![
            Document::new("book", first.as_bytes()),
            Document::new("other", common::text(5_000, 500).as_bytes()),
        ],
        1000,
    );
    assert_eq!((stats.books, stats.replaced), (2, 0));
    let old_reader = index.reader().unwrap();
    let old = old_reader.parts("book").unwrap();
    assert_eq!((old.len(), old[0].len()), (1, 600));

    let stats = common::load_docs(&index, vec![Document::new("book", second.as_bytes())], 1000);
    assert_eq!((stats.books, stats.replaced), (1, 1));
    let reader = index.reader().unwrap();
    assert_eq!(reader.len(), 2);
    let new = reader.parts("book").unwrap();
    assert_ne!(new, old);
    assert_eq!(
        new,
        common::reference_sequences(&[Document::new("book", second.as_bytes())])["book"]
    );
    // A text of the old version now finds nothing; one of the new finds it.
    assert!(reader
        .query_text(first.as_bytes(), &QueryOptions::default())
        .unwrap()
        .hits
        .is_empty());
    let hits = reader
        .query_text(second.as_bytes(), &QueryOptions::default())
        .unwrap()
        .hits;
    assert_eq!(hits[0].key, "book");
    assert_eq!(
        old_reader.parts("book").unwrap(),
        old,
        "old snapshot changed"
    );

    // Twice in one load: the later document wins; it is reported as a
    // duplicate key, not as a replacement of a stored book.
    let stats = common::load_docs(
        &index,
        vec![
            Document::new("twice", common::text(20_000, 300).as_bytes()),
            Document::new("twice", common::text(30_000, 400).as_bytes()),
        ],
        1000,
    );
    assert_eq!((stats.books, stats.replaced), (2, 0));
    assert_eq!(stats.duplicate_keys.len(), 1);
    assert_eq!(stats.duplicate_keys[0].key, "twice");
    let reader = index.reader().unwrap();
    assert_eq!(reader.len(), 3);
    assert_eq!(reader.book("twice").unwrap().unique_words, 400);
    index.verify().unwrap();
}

#[test]
fn books_are_written_in_input_order_whatever_order_the_workers_finish_in() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let mut loader = index
        .bulk_loader(stemmata::LoadOptions::default().batch_books(7).threads(4))
        .unwrap();
    // Long and short documents alternate, so later ones often finish first;
    // every tenth key comes back later with a text of 30 words.
    let size = |i: u32| if i.is_multiple_of(3) { 30_000 } else { 50 };
    for i in 0..120u32 {
        let key = if i % 10 == 9 {
            format!("k{}", i - 9)
        } else {
            format!("k{i}")
        };
        let words = if i % 10 == 9 { 30 } else { size(i) };
        loader
            .add(Document::new(key, common::text(i * 100, words)))
            .unwrap();
    }
    let stats = loader.finish().unwrap();
    assert_eq!((stats.books, stats.replaced), (120, 0));
    // Each repeated key is reported once, in input order, naming both.
    let duplicates: Vec<(&str, &str, &str)> = stats
        .duplicate_keys
        .iter()
        .map(|d| {
            (
                d.key.as_str(),
                d.source_name.as_str(),
                d.earlier_source_name.as_str(),
            )
        })
        .collect();
    let expected: Vec<String> = (0..12).map(|i| format!("k{}", i * 10)).collect();
    let expected: Vec<(&str, &str, &str)> = expected
        .iter()
        .map(|k| (k.as_str(), k.as_str(), k.as_str()))
        .collect();
    assert_eq!(duplicates, expected);
    let reader = index.reader().unwrap();
    let ids: Vec<(u32, String)> = (0..120u32)
        .filter(|i| i % 10 != 9)
        .map(|i| format!("k{i}"))
        .filter_map(|key| reader.book(&key).ok().map(|b| (b.id, b.key)))
        .collect();
    assert_eq!(ids.len(), 108);
    for (i, (id, key)) in ids.iter().enumerate() {
        let (id, key) = (*id, key.as_str());
        let place: u32 = key[1..].parse().unwrap();
        if place.is_multiple_of(10) {
            // Replaced by the document nine places later.
            assert_eq!((id, reader.book(key).unwrap().words), (place + 9, 30));
        } else {
            assert_eq!(id, place, "book {i}");
        }
    }
    index.verify().unwrap();
}
