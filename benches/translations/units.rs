//! Which unit a translation search needs to find a translated work inside
//! a volume: for each pair of books of two languages of a labelled set,
//! the shorter book's unique words translated (its whole-book sequence,
//! Roman numerals left out) are aligned with the longer book cut three
//! ways, and the pair takes the best evidence z = (|LCS| − 2√c) / c^(1/6)
//! over the cuts of one kind:
//!
//! - `parts`: the stored parts (a book over 131,072 words as parts of
//!   32,768 words every 16,384; a shorter one whole), words unique in the
//!   part;
//! - `part-unique passages`: windows of k consecutive passages of 2,048
//!   words (k = 1, 2, 4, …, stride k/2), words unique in the stored part;
//! - `passages`: the same windows, words unique in their passage;
//! - `passages, 6-letter prefixes`: the same elements, matched by their
//!   first six letters on both sides (and the dictionaries' words too), so
//!   that inflected forms meet;
//! - `passage x passage`: both books as passages (words unique in the
//!   passage), one passage of X translated against one passage of Y, the
//!   pair taking its best pair of passages (no windows);
//! - `passage x passage, prefixes`: the same by 6-letter prefixes.
//!
//! ```text
//! cargo run --release --example translation_units -- SET_DIR DICTIONARY.index...
//! ```
//!
//! Prints, per unit, the largest z of a pair not labelled `translation`
//! and the recall of the labelled pairs by band at z ≥ 4 (ARCHITECTURE.md,
//! "Translations inside volumes").

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use stemmata::repr::unique_words::{word_hash, DEFAULT_HASH_SEED};
use stemmata::text::{decode, tokenise, Token};
use stemmata::translate::dictionary::Dictionary;
use stemmata::translate::lexicon::Lexicon;
use stemmata::translate::roman_numeral;

const PASSAGE_WORDS: usize = 2048;
const VOLUME_WORDS: usize = 131_072;
const PART_WORDS: usize = 32_768;
const Z: f64 = 4.0;
const PREFIX_LETTERS: usize = 6;
const UNITS: [&str; 6] = [
    "parts",
    "part-unique passages",
    "passages",
    "passages, 6-letter prefixes",
    "passage x passage",
    "passage x passage, prefixes",
];

struct Book {
    id: String,
    language: String,
    words: Vec<u32>,
    /// The hash of each word's first [`PREFIX_LETTERS`] letters.
    prefixes: Vec<u32>,
}

fn prefix_hash(word: &str) -> u32 {
    let prefix: String = word.chars().take(PREFIX_LETTERS).collect();
    word_hash(&prefix, DEFAULT_HASH_SEED)
}

/// The positions of the words of `words` that occur once in it.
fn unique_positions(words: &[u32]) -> Vec<usize> {
    let mut count: HashMap<u32, u32> = HashMap::new();
    for &w in words {
        *count.entry(w).or_default() += 1;
    }
    (0..words.len())
        .filter(|&i| count[&words[i]] == 1)
        .collect()
}

/// A cut of a book: sequences of (hash, passage number), one per window.
type Windows = Vec<Vec<u32>>;

fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            header
                .iter()
                .map(|h| h.to_string())
                .zip(l.split('\t').map(String::from))
                .collect()
        })
        .collect()
}

fn iso639_3(code: &str) -> &str {
    match code {
        "en" => "eng",
        "de" => "deu",
        "fr" => "fra",
        "es" => "spa",
        "it" => "ita",
        other => other,
    }
}

/// The words of `range` that occur once in it, in order.
fn unique_in(words: &[u32]) -> Vec<u32> {
    let mut count: HashMap<u32, u32> = HashMap::new();
    for &w in words {
        *count.entry(w).or_default() += 1;
    }
    words.iter().copied().filter(|w| count[w] == 1).collect()
}

/// The stored parts' word ranges of a book of `n` words.
fn part_ranges(n: usize) -> Vec<(usize, usize)> {
    if n <= VOLUME_WORDS {
        return vec![(0, n)];
    }
    let mut ranges = Vec::new();
    let mut start = 0;
    while start + PART_WORDS < n {
        ranges.push((start, start + PART_WORDS));
        start += PART_WORDS / 2;
    }
    ranges.push((n - PART_WORDS, n));
    ranges
}

/// Windows of k consecutive passages of `passages` (each a sequence).
fn windows(passages: &[Vec<u32>]) -> Windows {
    let mut out = Vec::new();
    let mut k = 1;
    loop {
        let k_here = k.min(passages.len());
        let mut start = 0;
        loop {
            let end = (start + k_here).min(passages.len());
            out.push(passages[start..end].concat());
            if end >= passages.len() {
                break;
            }
            start += (k_here / 2).max(1);
        }
        if k >= passages.len() {
            break;
        }
        k *= 2;
    }
    out
}

/// A book's passages: the words (or, with `prefixes`, the distinct
/// prefixes of the words) unique in each passage, in order.
fn passages_of(book: &Book, prefixes: bool) -> Vec<Vec<u32>> {
    let words = &book.words;
    (0..words.len())
        .step_by(PASSAGE_WORDS)
        .map(|from| {
            let to = (from + PASSAGE_WORDS).min(words.len());
            let mut seen = HashSet::new();
            unique_positions(&words[from..to])
                .into_iter()
                .map(|i| match prefixes {
                    true => book.prefixes[from + i],
                    false => words[from + i],
                })
                .filter(|&p| seen.insert(p))
                .collect()
        })
        .collect()
}

/// A book's stored parts: words unique in the part.
fn stored_parts(words: &[u32]) -> Windows {
    part_ranges(words.len())
        .into_iter()
        .map(|(a, b)| unique_in(&words[a..b]))
        .collect()
}

/// A book's passages with the words unique in the stored part holding
/// them.
fn part_unique_passages(words: &[u32]) -> Windows {
    let mut keep = vec![false; words.len()];
    for (a, b) in part_ranges(words.len()) {
        let unique: HashSet<u32> = unique_in(&words[a..b]).into_iter().collect();
        for i in a..b {
            keep[i] |= unique.contains(&words[i]);
        }
    }
    words
        .chunks(PASSAGE_WORDS)
        .enumerate()
        .map(|(p, chunk)| {
            let from = p * PASSAGE_WORDS;
            chunk
                .iter()
                .enumerate()
                .filter(|(i, _)| keep[from + i])
                .map(|(_, &w)| w)
                .collect()
        })
        .collect()
}

/// The longer book cut as each of the [`UNITS`] says, each kind of
/// passages made once.
fn cuts_of(book: &Book) -> [Windows; 6] {
    let word_passages = passages_of(book, false);
    let prefix_passages = passages_of(book, true);
    [
        stored_parts(&book.words),
        windows(&part_unique_passages(&book.words)),
        windows(&word_passages),
        windows(&prefix_passages),
        word_passages,
        prefix_passages,
    ]
}

/// The best z of X's translated elements (`translated[i]`: the hashes
/// element i stands for) over `windows`.
fn best_z(translated: &[Vec<u32>], windows: &Windows) -> f64 {
    best_z_of_any(&[translated], windows)
}

/// The best z of any of `xs` (each translated as [`best_z`] takes it)
/// over `windows`.
fn best_z_of_any<X: AsRef<[Vec<u32>]>>(xs: &[X], windows: &Windows) -> f64 {
    let mut best = f64::MIN;
    for window in windows {
        // A window's passages may hold one word each.
        let mut at: HashMap<u32, Vec<u32>> = HashMap::new();
        for (j, &h) in window.iter().enumerate() {
            at.entry(h).or_default().push(j as u32);
        }
        for translated in xs {
            best = best.max(z_of(translated.as_ref(), &at));
        }
    }
    best
}

/// The z of X's translated elements against a window's elements, `at`
/// giving each hash's indexes in the window.
fn z_of(translated: &[Vec<u32>], at: &HashMap<u32, Vec<u32>>) -> f64 {
    // Pairs (i, j) by j ascending, i descending within one j: a strictly
    // increasing run in i takes one pair per element of either side.
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (i, hashes) in translated.iter().enumerate() {
        for h in hashes {
            for &j in at.get(h).into_iter().flatten() {
                pairs.push((j, i as u32));
            }
        }
    }
    if pairs.is_empty() {
        return f64::MIN;
    }
    pairs.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    pairs.dedup();
    let common = pairs.len() as f64;
    let mut tails: Vec<u32> = Vec::new();
    for &(_, i) in &pairs {
        let at = tails.partition_point(|&t| t < i);
        if at == tails.len() {
            tails.push(i);
        } else {
            tails[at] = i;
        }
    }
    (tails.len() as f64 - 2.0 * common.sqrt()) / common.powf(1.0 / 6.0)
}

/// An element of X translated: its translations, itself when it has none,
/// nothing for an untranslated Roman numeral (`numeral`).
fn translate(hash: u32, numeral: bool, lexicon: &Lexicon) -> Option<Vec<u32>> {
    match lexicon.translations(hash) {
        [] if numeral => None,
        [] => Some(vec![hash]),
        t => Some(t.to_vec()),
    }
}

/// Every element of `elements` translated ([`translate`]), the numerals
/// being the hashes in `numerals`.
fn translate_all(elements: &[u32], lexicon: &Lexicon, numerals: &HashSet<u32>) -> Vec<Vec<u32>> {
    elements
        .iter()
        .filter_map(|&h| translate(h, numerals.contains(&h), lexicon))
        .collect()
}

/// `dictionaries` with every word cut to its first [`PREFIX_LETTERS`]
/// letters.
fn prefix_dictionaries(dictionaries: &[Dictionary]) -> Vec<Dictionary> {
    let cut = |w: &str| w.chars().take(PREFIX_LETTERS).collect::<String>();
    dictionaries
        .iter()
        .map(|d| {
            let words = d.words();
            let pairs: Vec<(String, String)> = d
                .pairs()
                .iter()
                .map(|&(a, b)| (cut(&words[a as usize]), cut(&words[b as usize])))
                .collect();
            Dictionary::from_word_pairs("prefixes", d.from(), d.to(), &pairs)
                .unwrap_or_else(|e| panic!("{}-{}: {e}", d.from(), d.to()))
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((set, dictionaries)) = args.split_first() else {
        eprintln!("usage: translation_units SET_DIR DICTIONARY.index...");
        std::process::exit(2);
    };
    let set = Path::new(set);
    let dictionaries: Vec<Dictionary> = dictionaries
        .iter()
        .map(|d| Dictionary::read(Path::new(d)).unwrap_or_else(|e| panic!("{d}: {e}")))
        .collect();
    let refs: Vec<&Dictionary> = dictionaries.iter().collect();
    let numerals: HashSet<u32> = (1..4000)
        .map(|n| word_hash(&roman_numeral(n), DEFAULT_HASH_SEED))
        .collect();
    let books: Vec<Book> = rows(&set.join("books.tsv"))
        .into_iter()
        .map(|row| {
            let id = row["id"].clone();
            let bytes = std::fs::read(set.join("texts").join(format!("{id}.txt"))).unwrap();
            let (mut words, mut prefixes) = (Vec::new(), Vec::new());
            tokenise(&decode(&bytes).text, |t| {
                if let Token::Word(w) = t {
                    words.push(word_hash(w, DEFAULT_HASH_SEED));
                    prefixes.push(prefix_hash(w));
                }
            });
            let language = iso639_3(&row["language"]).to_string();
            Book {
                id,
                language,
                words,
                prefixes,
            }
        })
        .collect();
    let mut bands: HashMap<(String, String), String> = HashMap::new();
    for row in rows(&set.join("pairs.tsv")) {
        if row["relation"] == "translation" && !row["note"].contains("HARD") {
            let band = row.get("band").cloned().unwrap_or_default();
            bands.insert((row["a"].clone(), row["b"].clone()), band.clone());
            bands.insert((row["b"].clone(), row["a"].clone()), band);
        }
    }
    let mut lexicons: HashMap<(String, String), Lexicon> = HashMap::new();
    let prefixed = prefix_dictionaries(&dictionaries);
    let prefixed: Vec<&Dictionary> = prefixed.iter().collect();
    let mut prefix_lexicons: HashMap<(String, String), Lexicon> = HashMap::new();
    let numeral_prefixes: HashSet<u32> =
        (1..4000).map(|n| prefix_hash(&roman_numeral(n))).collect();
    let cuts: Vec<[Windows; 6]> = books.iter().map(cuts_of).collect();
    // Per unit: the best negative, and per band (found, pairs).
    let mut negative = [f64::MIN; 6];
    let mut recall: [BTreeMap<String, (u32, u32)>; 6] = Default::default();
    for (x, short) in books.iter().enumerate() {
        for (y, long) in books.iter().enumerate() {
            let shorter = (short.words.len(), x) < (long.words.len(), y);
            if short.language == long.language || !shorter {
                continue;
            }
            let lexicon = lexicons
                .entry((short.language.clone(), long.language.clone()))
                .or_insert_with(|| {
                    Lexicon::build(&refs, &short.language, &long.language, DEFAULT_HASH_SEED)
                });
            if lexicon.is_empty() {
                continue;
            }
            let translated = translate_all(&unique_in(&short.words), lexicon, &numerals);
            let prefix_lexicon = prefix_lexicons
                .entry((short.language.clone(), long.language.clone()))
                .or_insert_with(|| {
                    Lexicon::build(
                        &prefixed,
                        &short.language,
                        &long.language,
                        DEFAULT_HASH_SEED,
                    )
                });
            let mut seen = HashSet::new();
            let translated_prefixes: Vec<Vec<u32>> = unique_positions(&short.words)
                .into_iter()
                .filter(|&i| seen.insert(short.prefixes[i]))
                .filter_map(|i| {
                    let numeral = numerals.contains(&short.words[i]);
                    translate(short.prefixes[i], numeral, prefix_lexicon)
                })
                .collect();
            let band = bands.get(&(short.id.clone(), long.id.clone()));
            let translate_passages = |passages: &Windows, lexicon: &Lexicon, numerals| {
                passages
                    .iter()
                    .map(|passage| translate_all(passage, lexicon, numerals))
                    .collect::<Vec<_>>()
            };
            for unit in 0..UNITS.len() {
                let z = match unit {
                    3 => best_z(&translated_prefixes, &cuts[y][unit]),
                    4 => best_z_of_any(
                        &translate_passages(&cuts[x][4], lexicon, &numerals),
                        &cuts[y][unit],
                    ),
                    5 => best_z_of_any(
                        &translate_passages(&cuts[x][5], prefix_lexicon, &numeral_prefixes),
                        &cuts[y][unit],
                    ),
                    _ => best_z(&translated, &cuts[y][unit]),
                };
                match band {
                    Some(band) => {
                        let row = recall[unit].entry(band.clone()).or_default();
                        row.0 += u32::from(z >= Z);
                        row.1 += 1;
                    }
                    None => negative[unit] = negative[unit].max(z),
                }
            }
        }
    }
    let (mut passage_elements, mut part_elements, mut words) = (0, 0, 0);
    for book in books.iter().filter(|b| b.words.len() > PASSAGE_WORDS) {
        words += book.words.len();
        passage_elements += book
            .words
            .chunks(PASSAGE_WORDS)
            .map(|c| unique_in(c).len())
            .sum::<usize>();
        part_elements += stored_parts(&book.words)
            .iter()
            .map(Vec::len)
            .sum::<usize>();
    }
    println!(
        "books over one passage: {words} words; elements per word: parts {:.3}, passages {:.3}",
        part_elements as f64 / words.max(1) as f64,
        passage_elements as f64 / words.max(1) as f64
    );
    for unit in 0..UNITS.len() {
        let (found, pairs) = recall[unit]
            .iter()
            .filter(|(band, _)| band.as_str() != "share <0.1%")
            .fold((0, 0), |(f, p), (_, &(a, b))| (f + a, p + b));
        let negative = match negative[unit] {
            z if z == f64::MIN => "none".to_string(),
            z => format!("{z:.2}"),
        };
        println!(
            "{:<22} largest z of a negative {negative}; recall at z >= {Z}: {found}/{pairs} = {:.3} (pieces >= 0.1%)",
            UNITS[unit],
            f64::from(found) / f64::from(pairs.max(1))
        );
        for (band, (found, pairs)) in &recall[unit] {
            println!("  {band:<20} {found}/{pairs}");
        }
    }
}
