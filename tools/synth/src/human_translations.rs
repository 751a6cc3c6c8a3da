//! The human-translations set: pieces of real, human translations inside
//! volumes of the other language, labelled `translation` with the piece's
//! share of its volume as the band ([`share_band`]). Where the
//! translated-volumes set ([`crate::translated_volumes`]) translates word by
//! word with a dictionary, here every translation is a translator's: words
//! reordered, inflected, paraphrased, left out, as a library's translated
//! books are.
//!
//! **Pairs of translations.** A labelled corpus's `translation` pairs with
//! English on one side, neither `PARTIAL` nor `HARD`, at most one per
//! *family* (books joined by `edition`, `contains` or `translation` pairs),
//! so that no unlabelled relation slips in; the other members of a used
//! family are left out of the set.
//!
//! **Volumes.** The pairs of each language are dealt in turn to two sides.
//! On the first, the English book is bound whole in an English volume
//! (filled to [`VOLUME_WORDS`] with excerpts of the corpus's partnerless
//! English books) and pieces of the other book are its books. On the second,
//! the other book is bound in a volume of its language (with that
//! language's partnerless books, when it has two pairs or more on that
//! side) and pieces of the English book are its books.
//!
//! **Pieces.** Up to [`PIECES_PER_BOOK`] per book, one from each of as many
//! equal stretches of it, cut at line ends; a piece's length is a share of
//! its volume drawn across the bands of
//! [`crate::translated_volumes::PIECE_BANDS`] (0.05% to 15%),
//! at least [`MIN_PIECE_WORDS`] and at most its stretch. A piece's share
//! is its own length over the volume's (its original's length in the
//! volume differs by what the translator did).
//!
//! **Noise.** A volume gets OCR noise up to [`VOLUME_NOISE`], a piece up to
//! [`PIECE_NOISE`].
//!
//! **Negatives.** Pieces of the partnerless books of the languages that
//! have no volume of their own are negatives against every volume (their
//! translations are in no volume).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use super::ocr_noise;
use super::sets::{read_corpus, share_band, word_count, LabelledSet, SetBook, SetPair, SourceBook};
use super::stream_rng;
use super::translated_volumes::{piece_share, MIN_PIECE_WORDS, PIECE_NOISE, VOLUME_NOISE};

const PLAN_STREAM: u64 = 50;
const PIECE_STREAM: u64 = 51;
const NOISE_STREAM: u64 = 52;

/// Inclusive range of an English volume's target length, in words.
pub const VOLUME_WORDS: (usize, usize) = (500_000, 1_000_000);
/// Most pieces cut from one book.
pub const PIECES_PER_BOOK: usize = 5;
/// Most negative pieces cut from one partnerless book.
const NEGATIVES_PER_BOOK: usize = 2;

/// Options of [`human_translations_set`].
#[derive(Debug, Clone, PartialEq)]
pub struct HumanTranslationsOptions {
    /// Seed of every random choice.
    pub seed: u64,
}

/// A pair of translations: the English book and the other.
struct Translation {
    english: SourceBook,
    other: SourceBook,
}

/// A volume being bound: its language and books.
struct Volume {
    language: String,
    /// The books of translation pairs bound in it, with the pair's other
    /// book (whose pieces are the set's books).
    bound: Vec<(SourceBook, SourceBook)>,
    fillers: Vec<SourceBook>,
}

/// The human-translations set of the labelled corpus in `dir`: see the
/// module documentation. `progress` hears a line per volume.
pub fn human_translations_set(
    dir: &Path,
    options: &HumanTranslationsOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<LabelledSet, String> {
    let corpus = read_corpus(dir)?;
    let translations = translation_pairs(&corpus.books, &corpus.pairs);
    if translations.is_empty() {
        return Err(
            "no translation pair with English on one side (neither PARTIAL nor HARD)".to_string(),
        );
    }
    let mut plan = stream_rng(options.seed, PLAN_STREAM, 0);
    let volumes = deal(translations, &corpus.partnerless, &mut plan);
    let mut set = LabelledSet::default();
    for (number, volume) in volumes.iter().enumerate() {
        bind(&mut set, number, volume, options.seed);
        let words = set.books.last().map_or(0, |b| word_count(&b.text));
        progress(&format!(
            "volume {} of {} ({}): {} translations bound, {words} words",
            number + 1,
            volumes.len(),
            volume.language,
            volume.bound.len()
        ));
    }
    add_negatives(&mut set, &volumes, &corpus.partnerless, options.seed);
    Ok(set)
}

/// The corpus's translation pairs with English on one side, neither
/// PARTIAL nor HARD, at most one per family, in `pairs.tsv` order.
fn translation_pairs(books: &[SourceBook], pairs: &[SetPair]) -> Vec<Translation> {
    let index: HashMap<&str, usize> = books
        .iter()
        .enumerate()
        .map(|(i, b)| (b.id.as_str(), i))
        .collect();
    let mut family: Vec<usize> = (0..books.len()).collect();
    fn root(family: &mut [usize], mut i: usize) -> usize {
        while family[i] != i {
            family[i] = family[family[i]];
            i = family[i];
        }
        i
    }
    let joined =
        |p: &SetPair| matches!(p.relation.as_str(), "edition" | "contains" | "translation");
    for pair in pairs.iter().filter(|p| joined(p)) {
        if let (Some(&a), Some(&b)) = (index.get(pair.a.as_str()), index.get(pair.b.as_str())) {
            let (ra, rb) = (root(&mut family, a), root(&mut family, b));
            family[ra] = rb;
        }
    }
    let mut used = std::collections::HashSet::new();
    let mut out = Vec::new();
    for pair in pairs {
        if pair.relation != "translation"
            || pair.note.contains("PARTIAL")
            || pair.note.contains("HARD")
        {
            continue;
        }
        let (Some(&a), Some(&b)) = (index.get(pair.a.as_str()), index.get(pair.b.as_str())) else {
            continue;
        };
        let (english, other) = match (books[a].language.as_str(), books[b].language.as_str()) {
            ("en", l) if l != "en" => (a, b),
            (l, "en") if l != "en" => (b, a),
            _ => continue,
        };
        if used.insert(root(&mut family, a)) {
            out.push(Translation {
                english: books[english].clone(),
                other: books[other].clone(),
            });
        }
    }
    out
}

/// Deals the translations to the volumes: per language, in shuffled order,
/// alternately to the English volumes and to a volume of that language (a
/// language with one pair on that side has none: its pair goes to the
/// English side).
fn deal(
    translations: Vec<Translation>,
    partnerless: &[SourceBook],
    rng: &mut impl Rng,
) -> Vec<Volume> {
    let mut by_language: BTreeMap<String, Vec<Translation>> = BTreeMap::new();
    for t in translations {
        by_language
            .entry(t.other.language.clone())
            .or_default()
            .push(t);
    }
    let mut english_side: Vec<(SourceBook, SourceBook)> = Vec::new();
    let mut volumes = Vec::new();
    for (language, mut pairs) in by_language {
        pairs.shuffle(rng);
        let mut own = Vec::new();
        for (i, t) in pairs.into_iter().enumerate() {
            if i % 2 == 0 {
                english_side.push((t.english, t.other));
            } else {
                own.push((t.other, t.english));
            }
        }
        if own.len() < 2 {
            english_side.extend(own.into_iter().map(|(o, e)| (e, o)));
            continue;
        }
        let fillers = partnerless
            .iter()
            .filter(|b| b.language == language)
            .cloned()
            .collect();
        volumes.push(Volume {
            language,
            bound: own,
            fillers,
        });
    }
    english_side.shuffle(rng);
    let total: usize = english_side.iter().map(|(e, _)| word_count(&e.text)).sum();
    let target = |rng: &mut dyn FnMut() -> f64| {
        let (low, high) = (VOLUME_WORDS.0 as f64, VOLUME_WORDS.1 as f64);
        (low * (high / low).powf(rng())) as usize
    };
    let mut english_fillers: Vec<SourceBook> = partnerless
        .iter()
        .filter(|b| b.language == "en")
        .cloned()
        .collect();
    english_fillers.shuffle(rng);
    let count = total.div_ceil(VOLUME_WORDS.0 * 3 / 4).max(1);
    let mut english: Vec<Volume> = (0..count)
        .map(|_| Volume {
            language: "en".to_string(),
            bound: Vec::new(),
            fillers: Vec::new(),
        })
        .collect();
    for (i, pair) in english_side.into_iter().enumerate() {
        english[i % count].bound.push(pair);
    }
    for volume in &mut english {
        let goal = target(&mut || rng.random_range(0.0..1.0));
        let mut words: usize = volume.bound.iter().map(|(e, _)| word_count(&e.text)).sum();
        while words < goal {
            let Some(filler) = english_fillers.pop() else {
                break;
            };
            words += word_count(&filler.text);
            volume.fillers.push(filler);
        }
    }
    english.extend(volumes);
    english
}

/// Binds volume `number` and adds its pieces with their pairs.
fn bind(set: &mut LabelledSet, number: usize, volume: &Volume, seed: u64) {
    let id = format!("vol{:02}", number + 1);
    let mut rng = stream_rng(seed, PLAN_STREAM, 1 + number as u64);
    let mut books: Vec<(&SourceBook, bool)> = volume
        .bound
        .iter()
        .map(|(b, _)| (b, true))
        .chain(volume.fillers.iter().map(|b| (b, false)))
        .collect();
    books.shuffle(&mut rng);
    let mut text = String::new();
    for (book, _) in &books {
        let _ = write!(text, "\n\n\n{}\nby {}\n\n\n", book.title, book.author);
        text.push_str(&book.text);
    }
    let rate = rng.random_range(0.0..=VOLUME_NOISE);
    let mut noise = stream_rng(seed, NOISE_STREAM, number as u64);
    let text = ocr_noise(&text, rate, &mut noise);
    let volume_words = word_count(&text);
    for (k, (bound, other)) in volume.bound.iter().enumerate() {
        let pieces = cut_pieces(other, volume_words, PIECES_PER_BOOK, seed, (number, k));
        for (p, (piece, from, to)) in pieces.into_iter().enumerate() {
            let piece_rate = rng.random_range(0.0..=PIECE_NOISE);
            let piece = ocr_noise(&piece, piece_rate, &mut noise);
            let words = word_count(&piece);
            let share = words as f64 / volume_words as f64;
            let piece_id = format!("v{:02}b{:02}p{}", number + 1, k + 1, p + 1);
            set.pairs.push(SetPair {
                a: id.clone(),
                b: piece_id.clone(),
                relation: "translation".to_string(),
                note: format!(
                    "PARTIAL: b is lines {from}-{to} of {} ({}), translated by a person from or into {} \
                     ({}), which a binds whole; share {:.3}% ({words} of {volume_words} words); \
                     OCR noise: volume {:.1}%, piece {:.1}%",
                    other.id,
                    other.language,
                    bound.id,
                    bound.language,
                    100.0 * share,
                    100.0 * rate,
                    100.0 * piece_rate
                ),
                band: share_band(share).to_string(),
            });
            set.books.push(SetBook {
                id: piece_id,
                gutenberg_id: other.gutenberg_id.clone(),
                title: format!("{} (lines {from}-{to})", other.title),
                author: other.author.clone(),
                language: other.language.clone(),
                text: piece,
                source: format!(
                    "corpus: {} lines {from}-{to}; OCR noise {:.1}%",
                    other.id,
                    100.0 * piece_rate
                ),
            });
        }
    }
    let bound: Vec<&str> = books.iter().map(|(b, _)| b.id.as_str()).collect();
    set.books.push(SetBook {
        id,
        gutenberg_id: String::new(),
        title: format!("Collected Volume {}", number + 1),
        author: "Various".to_string(),
        language: volume.language.clone(),
        text,
        source: format!(
            "bound volume of corpus {}; OCR noise {:.1}%",
            bound.join(", "),
            100.0 * rate
        ),
    });
}

/// Up to `most` pieces of `book`, one from each of as many equal stretches
/// of its lines, each a share of a volume of `volume_words` drawn by
/// [`piece_share`]: (text, first line, last line), lines counted from 1.
fn cut_pieces(
    book: &SourceBook,
    volume_words: usize,
    most: usize,
    seed: u64,
    (volume, number): (usize, usize),
) -> Vec<(String, usize, usize)> {
    let mut rng = stream_rng(seed, PIECE_STREAM, ((volume as u64) << 32) + number as u64);
    let lines: Vec<&str> = book.text.lines().collect();
    let stretch = lines.len().div_ceil(most.max(1)).max(1);
    let mut pieces = Vec::new();
    for start in (0..lines.len()).step_by(stretch) {
        let end = (start + stretch).min(lines.len());
        let stretch_words: usize = lines[start..end].iter().map(|l| word_count(l)).sum();
        let wanted = ((piece_share(&mut rng) * volume_words as f64) as usize)
            .clamp(MIN_PIECE_WORDS, stretch_words.max(MIN_PIECE_WORDS));
        if stretch_words < MIN_PIECE_WORDS {
            continue;
        }
        // The piece starts at a line of the stretch that leaves room for it.
        let mut room = 0;
        let mut latest = end;
        while latest > start && room < wanted {
            latest -= 1;
            room += word_count(lines[latest]);
        }
        let first = rng.random_range(start..=latest);
        let (mut text, mut words, mut last) = (String::new(), 0, first);
        while last < lines.len() && words < wanted {
            words += word_count(lines[last]);
            text.push_str(lines[last]);
            text.push('\n');
            last += 1;
        }
        pieces.push((text, first + 1, last));
    }
    pieces
}

/// Adds pieces of the partnerless books that no volume binds: each a
/// negative against every volume of another language.
fn add_negatives(set: &mut LabelledSet, volumes: &[Volume], partnerless: &[SourceBook], seed: u64) {
    let volume_words = set
        .books
        .iter()
        .filter(|b| b.id.starts_with("vol"))
        .map(|b| word_count(&b.text))
        .min()
        .unwrap_or(VOLUME_WORDS.0);
    let bound: std::collections::HashSet<&str> = volumes
        .iter()
        .flat_map(|v| v.fillers.iter().map(|b| b.id.as_str()))
        .collect();
    let mut number = 0;
    for (k, book) in partnerless
        .iter()
        .filter(|b| !bound.contains(b.id.as_str()))
        .enumerate()
    {
        let pieces = cut_pieces(book, volume_words, NEGATIVES_PER_BOOK, seed, (1 << 20, k));
        for (piece, from, to) in pieces {
            number += 1;
            set.books.push(SetBook {
                id: format!("x{number:03}"),
                gutenberg_id: book.gutenberg_id.clone(),
                title: format!("{} (lines {from}-{to})", book.title),
                author: book.author.clone(),
                language: book.language.clone(),
                text: piece,
                source: format!("corpus: {} lines {from}-{to}; in no volume", book.id),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sets::share_band;

    /// Writes a labelled corpus: `books` (id, language, words) and `pairs`
    /// (a, b, relation, note).
    fn corpus(
        books: &[(&str, &str, usize)],
        pairs: &[(&str, &str, &str, &str)],
    ) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("texts")).unwrap();
        let mut tsv = String::from("id\tgutenberg_id\ttitle\tauthor\tlanguage\n");
        for (i, &(id, language, words)) in books.iter().enumerate() {
            let _ = writeln!(tsv, "{id}\t{i}\tTitle {id}\tSomeone\t{language}");
            let text = crate::work_text(words, 500 + i as u64);
            std::fs::write(dir.path().join("texts").join(format!("{id}.txt")), text).unwrap();
        }
        std::fs::write(dir.path().join("books.tsv"), tsv).unwrap();
        let mut tsv = String::from("a\tb\trelation\tnote\n");
        for (a, b, relation, note) in pairs {
            let _ = writeln!(tsv, "{a}\t{b}\t{relation}\t{note}");
        }
        std::fs::write(dir.path().join("pairs.tsv"), tsv).unwrap();
        dir
    }

    #[test]
    fn one_translation_per_family_is_bound_and_pieces_are_labelled() {
        let mut books = vec![
            ("e1", "en", 40_000),
            ("d1", "de", 40_000),
            ("e1b", "en", 40_000),
            ("d1b", "de", 40_000),
            ("e2", "en", 30_000),
            ("f2", "fr", 30_000),
            ("e3", "en", 30_000),
            ("f3", "fr", 30_000),
            ("p1", "en", 20_000),
        ];
        let fillers: Vec<String> = (0..30).map(|i| format!("fill{i}")).collect();
        books.extend(fillers.iter().map(|id| (id.as_str(), "en", 25_000)));
        books.push(("lonefr", "fr", 20_000));
        let pairs = [
            ("e1", "d1", "translation", ""),
            // Same family as e1-d1 (an edition of e1): left out.
            ("e1", "e1b", "edition", ""),
            ("e1b", "d1b", "translation", ""),
            ("e2", "f2", "translation", ""),
            ("e3", "f3", "translation", "PARTIAL: a part"),
            ("p1", "lonefr", "hard-negative", "HARD"),
        ];
        let dir = corpus(&books, &pairs);
        let options = HumanTranslationsOptions { seed: 4 };
        let set = human_translations_set(dir.path(), &options, &mut |_| {}).unwrap();
        let sources: std::collections::HashSet<&str> = set
            .pairs
            .iter()
            .map(|p| {
                p.note
                    .split(" of ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
            })
            .collect();
        // e1-d1 and e2-f2 only: e1b-d1b shares e1's family, e3-f3 is partial.
        let mut sources: Vec<&str> = sources.into_iter().collect();
        sources.sort_unstable();
        assert!(
            sources == ["d1", "f2"]
                || sources == ["e1", "f2"]
                || sources == ["d1", "e2"]
                || sources == ["e1", "e2"],
            "{sources:?}"
        );
        for pair in &set.pairs {
            let volume = set.books.iter().find(|b| b.id == pair.a).unwrap();
            let piece = set.books.iter().find(|b| b.id == pair.b).unwrap();
            assert_ne!(volume.language, piece.language, "{}", pair.note);
            assert!(word_count(&piece.text) >= MIN_PIECE_WORDS * 9 / 10);
            let share = word_count(&piece.text) as f64 / word_count(&volume.text) as f64;
            assert_eq!(pair.band, share_band(share), "{}", pair.note);
        }
        // Pieces of books bound nowhere are negatives in no pair.
        let negatives: Vec<&SetBook> = set.books.iter().filter(|b| b.id.starts_with('x')).collect();
        assert!(!negatives.is_empty());
        assert!(negatives
            .iter()
            .all(|b| !set.pairs.iter().any(|p| p.b == b.id)));
        let again = human_translations_set(dir.path(), &options, &mut |_| {}).unwrap();
        assert_eq!(set, again);
    }

    #[test]
    fn a_corpus_without_translations_is_an_error() {
        let dir = corpus(
            &[("e1", "en", 1_000), ("e2", "en", 1_000)],
            &[("e1", "e2", "edition", "")],
        );
        let error = human_translations_set(
            dir.path(),
            &HumanTranslationsOptions { seed: 1 },
            &mut |_| {},
        )
        .unwrap_err();
        assert!(error.contains("no translation pair"), "{error}");
    }
}
