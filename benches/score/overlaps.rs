//! Raw overlaps of labelled pairs, for choosing a pair score: every pair of
//! the labelled corpus, two noisy copies of corpus and generated books at
//! character error rates from 1% to 20%, and a generated collection.
//!
//! ```text
//! cargo run --release --example score_overlaps -- CORPUS_DIR > overlaps.tsv
//! python3 benches/score/analyse.py < overlaps.tsv
//! ```
//!
//! One line per pair: set, group, label (1 related, 0 unrelated, 2 hard
//! negative, 3 translation, 4 partial containment), relation, keys, |X|, |Y|,
//! c, |LCS|, and |X'|, |Y'|: the elements that at least one other book of the
//! same collection also holds.

use std::collections::HashMap;
use std::path::PathBuf;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use stemmata::align::SequenceIndex;
use stemmata::repr::unique_words::{extract, ExtractOptions};

struct Book {
    key: String,
    seq: Vec<u32>,
}

fn sequence(text: &str) -> Vec<u32> {
    extract(text, &ExtractOptions::default()).sequence.hashes
}

/// For each book, how many of its elements some other book also holds.
fn shared_counts(books: &[Book]) -> Vec<u32> {
    let mut df: HashMap<u32, u32> = HashMap::new();
    for b in books {
        for &h in &b.seq {
            *df.entry(h).or_default() += 1;
        }
    }
    books
        .iter()
        .map(|b| b.seq.iter().filter(|h| df[h] >= 2).count() as u32)
        .collect()
}

/// Aligns every pair of `books` that `label` labels and prints them.
fn emit(set: &str, books: &[Book], label: impl Fn(usize, usize) -> Option<(String, u8, String)>) {
    let shared = shared_counts(books);
    let indexes: Vec<SequenceIndex> = books.iter().map(|b| SequenceIndex::new(&b.seq)).collect();
    let mut scratch = stemmata::align::AlignScratch::default();
    for i in 0..books.len() {
        for j in i + 1..books.len() {
            let Some((group, lab, relation)) = label(i, j) else {
                continue;
            };
            let o = indexes[i].align(&books[j].seq, &mut scratch);
            println!(
                "{set}\t{group}\t{lab}\t{relation}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                books[i].key, books[j].key, o.len_x, o.len_y, o.common, o.lcs, shared[i], shared[j]
            );
        }
    }
}

fn main() {
    let corpus = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("/work/shared/corpus"), PathBuf::from);
    let skip_corpus = std::env::var_os("SKIP_CORPUS").is_some();

    // (a) the labelled corpus.
    let listing = std::fs::read_to_string(corpus.join("books.tsv")).expect("books.tsv");
    let keys: Vec<String> = listing
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next().map(str::to_owned))
        .collect();
    let texts: Vec<String> = keys
        .iter()
        .map(|k| {
            let bytes = std::fs::read(corpus.join("texts").join(format!("{k}.txt"))).expect("text");
            stemmata::text::decode_owned(bytes).text
        })
        .collect();
    let mut labels: HashMap<(String, String), (u8, String)> = HashMap::new();
    let pairs = std::fs::read_to_string(corpus.join("pairs.tsv")).expect("pairs.tsv");
    for line in pairs.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let lab = match (f[2], f.get(3).is_some_and(|n| n.starts_with("PARTIAL"))) {
            ("edition", _) => 1,
            ("contains", false) => 1,
            ("contains", true) => 4,
            ("translation", _) => 3,
            _ => 2,
        };
        let (a, b) = (f[0].to_owned(), f[1].to_owned());
        labels.insert((a.clone(), b.clone()), (lab, f[2].to_owned()));
        labels.insert((b, a), (lab, f[2].to_owned()));
    }
    if !skip_corpus {
        let books: Vec<Book> = keys
            .iter()
            .zip(&texts)
            .map(|(k, t)| Book {
                key: k.clone(),
                seq: sequence(t),
            })
            .collect();
        emit("corpus", &books, |i, j| {
            let (lab, rel) = labels
                .get(&(books[i].key.clone(), books[j].key.clone()))
                .cloned()
                .unwrap_or((0, "none".into()));
            Some(("all".into(), lab, rel))
        });
    }

    // (b) two noisy copies: 40 corpus books (every sixth, up to 200K words)
    // and 20 generated works.
    let mut sources: Vec<(String, String)> = keys
        .iter()
        .zip(&texts)
        .filter(|(_, t)| t.split_whitespace().count() <= 200_000)
        .step_by(6)
        .take(40)
        .map(|(k, t)| (k.clone(), t.clone()))
        .collect();
    for w in 0..20u64 {
        let words = 3_000 + (w as usize * 7_919) % 60_000;
        sources.push((
            format!("gen{w}"),
            stemmata_synth::work_text(words, 1000 + w),
        ));
    }
    let rates = [1u32, 5, 10, 15, 20];
    for (ai, &a) in rates.iter().enumerate() {
        for &b in &rates[..=ai] {
            let mut books = Vec::new();
            for (n, (key, text)) in sources.iter().enumerate() {
                for (copy, rate) in [(1u64, a), (2, b)] {
                    let seed = (n as u64) << 20 | (a as u64) << 12 | (b as u64) << 4 | copy;
                    let mut rng = SmallRng::seed_from_u64(seed);
                    let noisy = stemmata_synth::ocr_noise(text, rate as f64 / 100.0, &mut rng);
                    books.push(Book {
                        key: format!("{key}#{copy}"),
                        seq: sequence(&noisy),
                    });
                }
            }
            let group = format!("{a}+{b}");
            emit("noisy", &books, |i, j| {
                let same = i / 2 == j / 2;
                let lab = u8::from(same);
                Some((
                    group.clone(),
                    lab,
                    if same { "copy" } else { "none" }.into(),
                ))
            });
            eprintln!("noisy {group} done");
        }
    }

    // (d) shared boilerplate: the corpus books of (b), each with the same
    // passage of an unrelated book appended (the length of a Project
    // Gutenberg licence, 3,300 words, or of a scan notice, 400 words).
    let donor: Vec<&str> = texts[keys.iter().position(|k| k == "pg51713").unwrap_or(0)]
        .split_whitespace()
        .collect();
    for words in [400usize, 3300] {
        let passage = donor[..words.min(donor.len())].join(" ");
        let books: Vec<Book> = sources
            .iter()
            .filter(|(k, _)| !k.starts_with("gen") && k != "pg51713")
            .map(|(k, t)| Book {
                key: k.clone(),
                seq: sequence(&format!("{t}\n\n{passage}\n")),
            })
            .collect();
        let group = format!("{words}");
        emit("boiler", &books, |i, j| {
            let rel = labels.get(&(books[i].key.clone(), books[j].key.clone()));
            let lab = if rel.is_some_and(|(l, _)| *l != 2) {
                5
            } else {
                0
            };
            Some((group.clone(), lab, "boilerplate".into()))
        });
    }

    // (c) generated collections: default noise, and noise up to 20%.
    for (name, seed, noise) in [("synth", 7u64, (0.0, 0.05)), ("synth20", 8, (0.0, 0.2))] {
        let mut options = stemmata_synth::SynthOptions::with_families(80, seed);
        options.ocr_noise = noise;
        let collection = stemmata_synth::generate(&options);
        let mut rel: HashMap<(usize, usize), String> = HashMap::new();
        for p in &collection.pairs {
            let r = format!("{:?}", p.relation).to_lowercase();
            rel.insert((p.a.min(p.b), p.a.max(p.b)), r);
        }
        let books: Vec<Book> = collection
            .books
            .iter()
            .map(|b| Book {
                key: b.key.clone(),
                seq: sequence(&b.text),
            })
            .collect();
        emit(name, &books, |i, j| {
            Some(match rel.get(&(i, j)) {
                Some(r) => ("all".into(), 1, r.clone()),
                None => ("all".into(), 0, "none".into()),
            })
        });
        eprintln!("{name} done");
    }
}
