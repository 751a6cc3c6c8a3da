//! The query planner and the all-pairs job prune with upper bounds but must
//! stay exact: on random small collections their answers equal brute force
//! (same keys, same scores, same order) for every score, top-k and
//! threshold, whatever cap makes counting skip words as frequent. Books
//! bound from others are cut into parts (the index cuts books of more
//! than 64 words into parts of 32), so the answers over pairs of parts are
//! checked too.

mod common;

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::sample::Index as Pick;
use stemmata::{Document, Hit, Index, PairsOptions, QueryOptions, Reader, Score};

/// A word of a small vocabulary: books drawing from it share many words.
fn word(i: u32) -> String {
    common::letters(i.wrapping_mul(0x9E37_79B1) >> 8)
}

/// One change to a copied book's word list (positions taken modulo length).
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize),
    Insert(usize, u32),
    Replace(usize, u32),
    Swap(usize),
}

/// A book: random words, a near-copy (possibly exact) of an earlier one,
/// or a volume binding earlier ones between random words.
#[derive(Debug, Clone)]
enum Spec {
    Random(Vec<u32>),
    Copy { of: Pick, edits: Vec<Edit> },
    Bind { of: Vec<Pick>, filler: Vec<u32> },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<u32>()).prop_map(|(p, w)| Edit::Insert(p, w)),
        (any::<usize>(), any::<u32>()).prop_map(|(p, w)| Edit::Replace(p, w)),
        any::<usize>().prop_map(Edit::Swap),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        3 => prop::collection::vec(any::<u32>(), 0..70).prop_map(Spec::Random),
        2 => (any::<Pick>(), prop::collection::vec(edit(), 0..6))
            .prop_map(|(of, edits)| Spec::Copy { of, edits }),
        1 => (prop::collection::vec(any::<Pick>(), 2..6), prop::collection::vec(any::<u32>(), 0..60))
            .prop_map(|(of, filler)| Spec::Bind { of, filler }),
    ]
}

/// Word lists (indices into the vocabulary) for every spec, in order.
fn build(vocab: u32, specs: &[Spec]) -> Vec<Vec<u32>> {
    let mut books: Vec<Vec<u32>> = Vec::new();
    for spec in specs {
        let words = match spec {
            Spec::Copy { of, edits } if !books.is_empty() => {
                let mut words = books[of.index(books.len())].clone();
                for edit in edits {
                    apply(&mut words, edit, vocab);
                }
                words
            }
            Spec::Copy { edits, .. } => (0..edits.len() as u32).collect(),
            Spec::Bind { of, filler } if !books.is_empty() => {
                let mut words: Vec<u32> = Vec::new();
                for (pick, chunk) in of
                    .iter()
                    .zip(filler.chunks(12).chain(std::iter::repeat(&[][..])))
                {
                    words.extend(chunk.iter().map(|w| w % vocab));
                    words.extend(&books[pick.index(books.len())]);
                }
                words
            }
            Spec::Bind { filler, .. } => filler.iter().map(|w| w % vocab).collect(),
            Spec::Random(words) => words.iter().map(|w| w % vocab).collect(),
        };
        books.push(words);
    }
    books
}

fn apply(words: &mut Vec<u32>, edit: &Edit, vocab: u32) {
    let n = words.len();
    match *edit {
        Edit::Delete(p) if n > 0 => {
            words.remove(p % n);
        }
        Edit::Insert(p, w) => words.insert(p % (n + 1), w % vocab),
        Edit::Replace(p, w) if n > 0 => words[p % n] = w % vocab,
        Edit::Swap(p) if n > 1 => words.swap(p % (n - 1), p % (n - 1) + 1),
        _ => {}
    }
}

fn text_of(words: &[u32]) -> String {
    words.iter().map(|&w| word(w)).collect::<Vec<_>>().join(" ")
}

/// How one query is asked: top-k and a threshold chosen by `kind`.
#[derive(Debug, Clone)]
struct Ask {
    top_k: usize,
    kind: u8,
    uniform: f64,
    pick: Pick,
}

fn ask() -> impl Strategy<Value = Ask> {
    (0usize..5, 0u8..4, 0.0f64..1.0, any::<Pick>()).prop_map(|(top_k, kind, uniform, pick)| Ask {
        top_k,
        kind,
        uniform,
        pick,
    })
}

impl Ask {
    /// Options for `score`; `scores` are the brute-force scores of the query
    /// (so a threshold can sit exactly on a hit's score).
    fn options(&self, score: Score, scores: &[f64]) -> QueryOptions {
        let min_score = match self.kind {
            0 => 0.0,
            1 => score.default_threshold(),
            2 => self.uniform,
            _ if scores.is_empty() => self.uniform,
            _ => scores[self.pick.index(scores.len())],
        };
        QueryOptions::with_score(score)
            .top_k(self.top_k)
            .min_score(min_score)
    }
}

/// A random collection and the ways to query it.
#[derive(Debug, Clone)]
struct Case {
    vocab: u32,
    max_term_freq: u32,
    /// Words unique in more books than this are skipped by counting.
    frequent_cap: u32,
    books: Vec<Spec>,
    queries: Vec<Spec>,
    asks: Vec<Ask>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        12u32..60,
        prop_oneof![3 => Just(1u32), 1 => 2u32..4],
        prop_oneof![1 => Just(u32::MAX), 2 => 0u32..4],
        prop::collection::vec(spec(), 2..14),
        prop::collection::vec(spec(), 1..4),
        prop::collection::vec(ask(), 1..4),
    )
        .prop_map(
            |(vocab, max_term_freq, frequent_cap, books, queries, asks)| Case {
                vocab,
                max_term_freq,
                frequent_cap,
                books,
                queries,
                asks,
            },
        )
}

/// Builds the index of `case`; returns it with the stored word lists.
fn index_of(case: &Case) -> (tempfile::TempDir, Index, Vec<Vec<u32>>) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::builder()
        .max_term_freq(case.max_term_freq)
        .parts(64, 32)
        .create(dir.path())
        .unwrap();
    let books = build(case.vocab, &case.books);
    let docs = books
        .iter()
        .enumerate()
        // An empty text is skipped by the loader: give it a word of its own.
        .map(|(i, w)| {
            let text = if w.is_empty() {
                word(1000 + i as u32)
            } else {
                text_of(w)
            };
            Ok(Document::new(format!("k{i:02}"), text))
        });
    let stats = index.load(docs).unwrap();
    assert!(stats.skipped.is_empty(), "{:?}", stats.skipped);
    (dir, index, books)
}

/// A query: a stored book's key, or a new text.
#[derive(Clone, Copy)]
enum Query<'a> {
    Key(&'a str),
    Text(&'a str),
}

fn brute_force(reader: &Reader, query: Query<'_>, options: &QueryOptions) -> Vec<Hit> {
    match query {
        Query::Key(key) => reader.brute_force_key(key, options).unwrap(),
        Query::Text(text) => reader.brute_force_text(text.as_bytes(), options).unwrap(),
    }
}

fn all_scores(reader: &Reader, query: Query<'_>, score: Score) -> Vec<f64> {
    let everything = QueryOptions::with_score(score).top_k(0).min_score(0.0);
    brute_force(reader, query, &everything)
        .iter()
        .map(|h| h.score)
        .collect()
}

fn same_hits(planner: &[Hit], brute: &[Hit], what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(planner, brute, "{}", what);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn query_key_and_query_text_equal_brute_force_for_every_score(case in case()) {
        let (_dir, index, books) = index_of(&case);
        let reader = index.reader().unwrap().with_frequent_word_cap(case.frequent_cap);
        prop_assert_eq!(reader.len(), books.len());
        for (slot, info) in reader.books().iter().enumerate() {
            let parts = reader.hashes(&info.key).unwrap();
            prop_assert_eq!(parts.len() > 1, info.words > 64);
            // Not vacuous: every book sharing a unique word with a part is
            // a hit at threshold zero under containment.
            let shares = reader.books().iter().enumerate().any(|(other, b)| {
                other != slot
                    && reader.hashes(&b.key).unwrap().iter().flat_map(|p| p.iter()).any(|h| parts.iter().any(|q| q.contains(h)))
            });
            let query = Query::Key(&info.key);
            let any = !all_scores(&reader, query, Score::Containment).is_empty();
            prop_assert_eq!(any, shares);
            for score in Score::ALL {
                let scores = all_scores(&reader, query, score);
                for ask in &case.asks {
                    let options = ask.options(score, &scores);
                    let planner = reader.query_key(&info.key, &options).unwrap();
                    let brute = brute_force(&reader, query, &options);
                    prop_assert!(options.top_k == 0 || brute.len() <= options.top_k);
                    prop_assert_eq!(planner.explain.hits as usize, brute.len());
                    same_hits(&planner.hits, &brute, &format!("{} {options:?}", info.key))?;
                }
            }
        }
        let queries = build(case.vocab, &[case.books.clone(), case.queries.clone()].concat());
        for words in &queries[books.len()..] {
            let text = text_of(words);
            let query = Query::Text(&text);
            for score in Score::ALL {
                let scores = all_scores(&reader, query, score);
                for ask in &case.asks {
                    let options = ask.options(score, &scores);
                    let planner = reader.query_text(text.as_bytes(), &options).unwrap();
                    let brute = brute_force(&reader, query, &options);
                    same_hits(&planner.hits, &brute, &format!("text {text:?} {options:?}"))?;
                }
            }
        }
    }

    #[test]
    fn all_pairs_equal_brute_force_at_top_k_zero(case in case(), threads in 1usize..4) {
        let (_dir, index, _books) = index_of(&case);
        let reader = index.reader().unwrap().with_frequent_word_cap(case.frequent_cap);
        let slot_of: BTreeMap<&str, u32> = reader
            .books()
            .iter()
            .enumerate()
            .map(|(slot, b)| (b.key.as_str(), slot as u32))
            .collect();
        for score in Score::ALL {
            for ask in &case.asks {
                // Thresholds picked from the scores of the first book's pairs.
                let first = Query::Key(&reader.books()[0].key);
                let min_score = ask.options(score, &all_scores(&reader, first, score)).min_score;
                let mut found = BTreeMap::new();
                let options = PairsOptions::with_score(score).min_score(min_score).threads(threads);
                let stats = reader
                    .for_each_pair(&options, |p| {
                        let (a, b) = (slot_of[p.a.key.as_str()], slot_of[p.b.key.as_str()]);
                        assert!(a < b);
                        assert!(found.insert((a, b), (p.score, p.overlap, p.location)).is_none());
                        Ok(())
                    }, |_| {})
                    .unwrap();
                prop_assert_eq!(stats.found as usize, found.len());
                let mut brute = BTreeMap::new();
                let every = QueryOptions::with_score(score).top_k(0).min_score(min_score);
                for (a, info) in reader.books().iter().enumerate() {
                    let parts = reader.hashes(&info.key).unwrap();
                    for hit in brute_force(&reader, Query::Key(&info.key), &every) {
                        let b = slot_of[hit.key.as_str()];
                        let o = hit.overlap;
                        let hit_parts = reader.hashes(&hit.key).unwrap();
                        prop_assert_eq!(
                            (o.query_unique, o.hit_unique),
                            (parts[hit.query_part as usize].len() as u32, hit_parts[hit.hit_part as usize].len() as u32)
                        );
                        if (a as u32) < b {
                            let place = (hit.query_part, hit.hit_part, hit.query_words, hit.hit_words);
                            brute.insert((a as u32, b), (hit.score, o.common, o.lcs, place));
                        }
                    }
                }
                let found: BTreeMap<_, _> = found
                    .into_iter()
                    .map(|(k, (s, o, l))| (k, (s, o.common, o.lcs, (l.part_x, l.part_y, l.words_x, l.words_y))))
                    .collect();
                prop_assert_eq!(found, brute, "{:?} min {}", score, min_score);
            }
        }
    }
}
