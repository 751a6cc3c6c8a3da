//! The relation classifier on synthetic books: paged books get the paper's
//! classes from their page signatures (same pagination, different
//! pagination, contiguous subset, overlapping text), and books without pages
//! get duplicate, contains or overlap from the portion map of their
//! unique-word sequences.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use stemmata::relate::{
    classify_map, classify_pages, MapOptions, OwnedPagedBook, PageOptions, PageSignals, PortionMap,
    Relation, RelationClass, Side,
};
use stemmata::repr::unique_words::extract;
use stemmata::repr::{page_signatures, ExtractOptions, MinHashOptions};
use stemmata::Score;
use stemmata_synth::{ocr_noise, zipf_vocabulary};

/// `n` words of running text: a Zipf vocabulary, so some words repeat and
/// others occur once, like prose.
fn words(n: usize, seed: u64) -> Vec<String> {
    let vocabulary = zipf_vocabulary(30_000, seed);
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Zipf-like: the square of a uniform value favours low ranks.
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            vocabulary[(u * u * vocabulary.len() as f64) as usize].clone()
        })
        .collect()
}

/// `words` laid out in pages of `per_page` words, separated by form feeds.
fn paginate(words: &[String], per_page: usize) -> String {
    words
        .chunks(per_page)
        .map(|page| page.join(" "))
        .collect::<Vec<_>>()
        .join("\n\x0c")
}

fn page_relation(a: &str, b: &str) -> Relation {
    let (a, b) = (OwnedPagedBook::of_text(a), OwnedPagedBook::of_text(b));
    let signals = PageSignals::compute(&a.view(), &b.view(), &PageOptions::default()).unwrap();
    classify_pages(&signals)
}

fn assert_class(relation: &Relation, class: RelationClass, container: Option<Side>) {
    assert_eq!(relation.class, class, "{relation:#?}");
    assert_eq!(relation.container, container, "{relation:#?}");
    assert!(relation.confidence >= 0.5, "{relation:#?}");
}

#[test]
fn the_same_pages_have_the_same_pagination() {
    let text = paginate(&words(12_000, 1), 300);
    let relation = page_relation(&text, &text);
    assert_class(&relation, RelationClass::SamePagination, None);
    assert_eq!(relation.confidence, 1.0);
}

#[test]
fn a_reprint_with_ocr_noise_has_the_same_pagination() {
    let text = paginate(&words(12_000, 2), 300);
    let noisy = ocr_noise(&text, 0.002, &mut SmallRng::seed_from_u64(7));
    assert_class(
        &page_relation(&text, &noisy),
        RelationClass::SamePagination,
        None,
    );
}

#[test]
fn the_same_text_repaginated_has_a_different_pagination() {
    let text = words(12_000, 3);
    let relation = page_relation(&paginate(&text, 300), &paginate(&text, 230));
    assert_class(&relation, RelationClass::DifferentPagination, None);
}

#[test]
fn a_run_of_pages_of_a_book_is_its_contiguous_subset() {
    let text = words(12_000, 4);
    let book = paginate(&text, 300);
    let part = paginate(&text[3_000..7_500], 300);
    assert_class(
        &page_relation(&book, &part),
        RelationClass::ContiguousSubset,
        Some(Side::A),
    );
    assert_class(
        &page_relation(&part, &book),
        RelationClass::ContiguousSubset,
        Some(Side::B),
    );
}

#[test]
fn books_sharing_a_middle_part_overlap() {
    let shared = words(3_000, 5);
    let a = [words(3_000, 6), shared.clone(), words(3_000, 7)].concat();
    let b = [words(1_500, 8), shared, words(4_500, 9)].concat();
    let relation = page_relation(&paginate(&a, 300), &paginate(&b, 300));
    assert_class(&relation, RelationClass::OverlappingText, None);
}

#[test]
fn unrelated_paged_books_are_unrelated() {
    let relation = page_relation(
        &paginate(&words(6_000, 10), 300),
        &paginate(&words(6_000, 11), 300),
    );
    assert_eq!(relation.class, RelationClass::Unrelated, "{relation:#?}");
}

fn map_relation(a: &str, b: &str) -> Relation {
    let options = ExtractOptions::default();
    let (fa, fb) = (extract(a, &options), extract(b, &options));
    let map = PortionMap::from_unique_words(
        &fa.sequence,
        fa.words as u32,
        &fb.sequence,
        fb.words as u32,
        &MapOptions::default(),
    )
    .unwrap();
    classify_map(&map)
}

#[test]
fn texts_without_pages_are_duplicates_containers_or_overlaps() {
    let text = words(30_000, 12);
    let whole = text.join(" ");
    let noisy = ocr_noise(&whole, 0.01, &mut SmallRng::seed_from_u64(3));
    assert_class(
        &map_relation(&whole, &noisy),
        RelationClass::Duplicate,
        None,
    );
    let part = text[10_000..16_000].join(" ");
    assert_class(
        &map_relation(&whole, &part),
        RelationClass::Contains,
        Some(Side::A),
    );
    assert_class(
        &map_relation(&part, &whole),
        RelationClass::Contains,
        Some(Side::B),
    );
    let other = [words(15_000, 13), text[..8_000].to_vec()]
        .concat()
        .join(" ");
    let later = [text[..8_000].to_vec(), words(20_000, 14)]
        .concat()
        .join(" ");
    assert_class(&map_relation(&other, &later), RelationClass::Overlap, None);
}

#[test]
fn stored_books_relate_through_the_reader() {
    let text = words(20_000, 15);
    let whole = text.join(" ");
    let part = text[5_000..9_000].join(" ");
    let dir = tempfile::tempdir().unwrap();
    let index = stemmata::Index::create(dir.path()).unwrap();
    index
        .load([
            Ok(stemmata::Document::new("whole", whole.as_bytes())),
            Ok(stemmata::Document::new("part", part.as_bytes())),
        ])
        .unwrap();
    let reader = index.reader().unwrap();
    let options = ExtractOptions::default();
    let (fw, fp) = (extract(&whole, &options), extract(&part, &options));
    let matched = reader.matched_positions("whole", "part").unwrap();
    assert_eq!(
        matched,
        stemmata::relate::map::matched_positions(&fw.sequence, &fp.sequence)
    );
    // The part's words are words 5000..9000 of the whole.
    assert!(matched.iter().all(|&(w, p)| w == p + 5_000));
    let relation = reader.relation("whole", "part").unwrap();
    assert_class(&relation, RelationClass::Contains, Some(Side::A));
    let input = stemmata::RelationInput {
        parts: std::slice::from_ref(&fp.sequence),
        words: fp.words,
        pages: &[],
        signature: &reader.signature_of_text(&part),
    };
    let with = reader.relation_with(&input, "whole").unwrap();
    assert_class(&with, RelationClass::Contains, Some(Side::B));
    assert!(matches!(
        reader.relation("whole", "missing"),
        Err(stemmata::Error::UnknownKey(_))
    ));
}

#[test]
fn stored_books_sharing_a_part_overlap_and_noisy_copies_are_duplicates() {
    let text = words(30_000, 17);
    let (first, second) = (text[..18_000].join(" "), text[12_000..].join(" "));
    let clean = text[..20_000].join(" ");
    let mut rng = SmallRng::seed_from_u64(3);
    let (noisy_a, noisy_b) = (
        ocr_noise(&clean, 0.20, &mut rng),
        ocr_noise(&clean, 0.10, &mut rng),
    );
    let other = words(20_000, 18).join(" ");
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(
        dir.path(),
        &[
            ("first", first),
            ("second", second),
            ("noisy_a", noisy_a),
            ("noisy_b", noisy_b),
            ("other", other),
        ],
    );
    let reader = index.reader().unwrap();
    assert_class(
        &reader.relation("first", "second").unwrap(),
        RelationClass::Overlap,
        None,
    );
    assert_class(
        &reader.relation("noisy_a", "noisy_b").unwrap(),
        RelationClass::Duplicate,
        None,
    );
    let unrelated = reader.relation("first", "other").unwrap();
    assert_eq!(unrelated.class, RelationClass::Unrelated, "{unrelated:#?}");
    // Every pair the default search lists has a class other than unrelated.
    for pair in reader
        .pairs(&stemmata::PairsOptions::default())
        .unwrap()
        .pairs
    {
        let relation = reader.relation(&pair.a.key, &pair.b.key).unwrap();
        assert_ne!(relation.class, RelationClass::Unrelated, "{pair:?}");
    }
    // So has every pair listed at a lower threshold, under the threshold
    // that listed it.
    let low = stemmata::PairsOptions::with_score(Score::Coverage).min_score(0.001);
    let listed = reader.pairs(&low).unwrap().pairs;
    assert!(listed.len() > 3, "{listed:?}");
    for pair in listed {
        let relation = reader
            .relation_under(&pair.a.key, &pair.b.key, Score::Coverage, 0.001)
            .unwrap();
        assert_ne!(relation.class, RelationClass::Unrelated, "{pair:?}");
    }
}

/// A new index in `dir` holding `books` (key, text).
fn index_of(dir: &std::path::Path, books: &[(&str, String)]) -> stemmata::Index {
    let index = stemmata::Index::create(dir).unwrap();
    let documents = books
        .iter()
        .map(|(key, text)| Ok(stemmata::Document::new(*key, text.as_bytes())));
    index.load(documents).unwrap();
    index
}

#[test]
fn query_hits_relate_to_a_stored_key_and_to_a_new_text_alike() {
    let text = words(20_000, 16);
    let whole = text.join(" ");
    let books = [
        ("whole", whole.clone()),
        ("part", text[5_000..9_000].join(" ")),
        ("later", text[12_000..].join(" ")),
    ];
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(dir.path(), &books);
    let reader = index.reader().unwrap();
    let mut hits = reader
        .query_key("whole", &stemmata::QueryOptions::default())
        .unwrap()
        .hits;
    let keys: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    let expected: Vec<_> = hits
        .iter()
        .map(|h| Some(reader.relation("whole", &h.key).unwrap()))
        .collect();
    for relation in expected.iter().flatten() {
        assert_class(relation, RelationClass::Contains, Some(Side::A));
    }
    assert_eq!(
        reader
            .hit_relations_of_key("whole", &hits, Score::default())
            .unwrap(),
        expected
    );
    // The stored book's own text, given as a new text, relates the same.
    assert_eq!(
        reader
            .hit_relations_of_text(whole.as_bytes(), &hits, Score::default())
            .unwrap(),
        expected
    );
    // A translation hit has no word-by-word relation.
    hits[1].relation = Some(stemmata::Relationship::Translation);
    let with_translation = reader
        .hit_relations_of_key("whole", &hits, Score::default())
        .unwrap();
    assert_eq!(with_translation, vec![expected[0].clone(), None]);
    assert!(matches!(
        reader.hit_relations_of_key("missing", &hits[..1], Score::default()),
        Err(stemmata::Error::UnknownKey(_))
    ));
}

#[test]
fn stored_paged_books_relate_by_their_stored_page_signatures() {
    let text = words(12_000, 21);
    let books = [
        ("book", paginate(&text, 300)),
        ("repaginated", paginate(&text, 230)),
        ("volume", paginate(&text[3_000..7_500], 300)),
        ("unpaged", text.join(" ")),
    ];
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(dir.path(), &books);
    assert_eq!(index.verify().unwrap().books, 4);
    let reader = index.reader().unwrap();

    // The index stores what page_signatures gives, one per page, reduced
    // to the stored 16-bit codes; a new text's signatures get the same form.
    let expected: Vec<_> = page_signatures(&books[0].1, &MinHashOptions::pages())
        .iter()
        .map(stemmata::repr::minhash::page_codes)
        .collect();
    assert_eq!(expected.len(), 40);
    assert_eq!(reader.pages("book").unwrap(), expected);
    assert_eq!(reader.pages_of_text(&books[0].1), expected);
    assert_eq!(reader.pages("unpaged").unwrap(), Vec::new());

    let relation = |a, b| reader.relation(a, b).unwrap();
    assert_class(
        &relation("book", "repaginated"),
        RelationClass::DifferentPagination,
        None,
    );
    assert_class(
        &relation("book", "volume"),
        RelationClass::ContiguousSubset,
        Some(Side::A),
    );
    // A book without pages falls back to the portion map.
    assert_class(&relation("unpaged", "book"), RelationClass::Duplicate, None);

    // A new paged text is related by its own page signatures.
    let reprint = ocr_noise(&books[0].1, 0.001, &mut SmallRng::seed_from_u64(5));
    let features = extract(&reprint, &ExtractOptions::default());
    let pages = reader.pages_of_text(&reprint);
    assert_eq!(pages.len(), 40);
    let signature = reader.signature_of_text(&reprint);
    assert_eq!(signature.0.len(), 100);
    let input = stemmata::RelationInput {
        parts: std::slice::from_ref(&features.sequence),
        words: features.words,
        pages: &pages,
        signature: &signature,
    };
    assert_class(
        &reader.relation_with(&input, "book").unwrap(),
        RelationClass::SamePagination,
        None,
    );
}
