//! The translated-volumes set: translated works inside large volumes of the
//! other language, labelled `translation` with the work's share of its
//! volume as the band ([`share_band`]), to check that a translation search
//! finds a few thousand translated words inside a volume of a million (one
//! book of a Bible, one play of collected works).
//!
//! **Volumes.** Each volume binds excerpts of corpus books end to end (cut
//! at line ends, a title line before each; consecutive excerpts of a book
//! are distinct works, as the books of one Bible share their names), until
//! it reaches its target length, drawn from [`VOLUME_WORDS`]. An excerpt's
//! length is its share of the target, drawn across the bands of
//! [`PIECE_BANDS`], so that every band from 0.05% to 15% is populated.
//! Every excerpt is also a book of its own, in the other language: the
//! *piece*.
//!
//! **Directions.** Volumes alternate. An odd-numbered volume is bound in
//! the dictionary's source language and its pieces are word-by-word
//! translations ([`Translator`]); an even-numbered volume is translated
//! whole into the target language and its pieces are the original
//! excerpts. So a search meets pieces on both sides: a translated book
//! inside an original volume, and an original book inside a translated one.
//!
//! **Noise.** A volume gets OCR noise at a rate up to [`VOLUME_NOISE`], a
//! piece up to [`PIECE_NOISE`].
//!
//! **Negatives.** Further excerpts bound in no volume: as many translated
//! (`x…`) as kept in the source language (`u…`), [`NEGATIVES_PER_VOLUME`]
//! per volume each.
//!
//! Only corpus text is bound (a generated text has no translation), so the
//! corpus must hold enough partnerless books in the source language:
//! [`translated_volumes_set`] stops with an error when it runs out.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use super::ocr_noise;
use super::sets::{
    share_band, share_in_bands, word_count, LabelledSet, SetBook, SetPair, SourceBook,
};
use super::stream_rng;
use super::translated::{source_pool, Translator};

const SOURCES_STREAM: u64 = 40;
const PLAN_STREAM: u64 = 41;
const WORDS_STREAM: u64 = 42;
const NOISE_STREAM: u64 = 43;

/// Inclusive range of a volume's target length, in words (a Bible holds
/// about 800,000).
pub const VOLUME_WORDS: (usize, usize) = (400_000, 1_200_000);
/// Largest OCR noise rate of a volume.
pub const VOLUME_NOISE: f64 = 0.04;
/// Largest OCR noise rate of a piece.
pub const PIECE_NOISE: f64 = 0.08;
/// Bands of a piece's share of its volume: (lowest, highest, weight).
pub const PIECE_BANDS: [(f64, f64, u32); 5] = [
    (0.0005, 0.001, 10),
    (0.001, 0.005, 35),
    (0.005, 0.01, 20),
    (0.01, 0.05, 25),
    (0.05, 0.15, 10),
];
/// Shortest piece, in words.
pub const MIN_PIECE_WORDS: usize = 300;
/// Excerpts in no volume, translated and untranslated each, per volume.
pub const NEGATIVES_PER_VOLUME: usize = 3;

/// Options of [`translated_volumes_set`].
#[derive(Debug, Clone, PartialEq)]
pub struct TranslatedVolumesOptions {
    /// Seed of every random choice.
    pub seed: u64,
    /// Number of volumes.
    pub volumes: usize,
    /// Language of the sources (ISO 639-1).
    pub from: String,
    /// Language of the translations (ISO 639-1).
    pub to: String,
    /// Name of the dictionary, for the notes.
    pub dictionary: String,
}

impl TranslatedVolumesOptions {
    /// `volumes` volumes from `from` into `to`.
    pub fn new(volumes: usize, seed: u64, from: &str, to: &str, dictionary: &str) -> Self {
        Self {
            seed,
            volumes,
            from: from.to_string(),
            to: to.to_string(),
            dictionary: dictionary.to_string(),
        }
    }
}

/// An excerpt of a corpus book.
struct Excerpt {
    gutenberg_id: String,
    title: String,
    author: String,
    text: String,
    source: String,
}

/// Hands out excerpts of corpus books, each book cut from its start into
/// consecutive excerpts, then the next book.
struct Excerpts {
    pool: VecDeque<SourceBook>,
    /// The book being cut, its next line and the excerpts cut so far.
    mine: Option<(SourceBook, usize, usize)>,
}

impl Excerpts {
    /// An excerpt of at least `words` words (the rest of a book when it is
    /// the last), `None` when the corpus is used up.
    fn next(&mut self, words: usize) -> Option<Excerpt> {
        loop {
            if let Some((book, start, number)) = self.mine.as_mut() {
                let mut text = String::new();
                let mut count = 0;
                let mut end = *start;
                for line in book.text.lines().skip(*start) {
                    if count >= words {
                        break;
                    }
                    count += word_count(line);
                    text.push_str(line);
                    text.push('\n');
                    end += 1;
                }
                if count >= words {
                    let excerpt = Excerpt {
                        gutenberg_id: book.gutenberg_id.clone(),
                        title: format!("{} ({})", book.title, *number + 1),
                        author: book.author.clone(),
                        source: format!("corpus: {} lines {}-{}", book.id, *start + 1, end),
                        text,
                    };
                    *start = end;
                    *number += 1;
                    return Some(excerpt);
                }
            }
            self.mine = Some((self.pool.pop_front()?, 0, 0));
        }
    }
}

/// A piece's share of its volume, drawn from [`PIECE_BANDS`].
pub(crate) fn piece_share(rng: &mut impl Rng) -> f64 {
    share_in_bands(&PIECE_BANDS, rng).1
}

/// A volume's works before noise, in the source language.
fn volume_works(
    excerpts: &mut Excerpts,
    target: usize,
    rng: &mut impl Rng,
) -> Result<Vec<Excerpt>, String> {
    let mut works = Vec::new();
    let mut total = 0;
    while total < target {
        let words = ((piece_share(rng) * target as f64) as usize).max(MIN_PIECE_WORDS);
        let excerpt = excerpts.next(words).ok_or_else(|| {
            format!(
                "the corpus's partnerless books ran out after {} works of this volume: ask for fewer volumes",
                works.len()
            )
        })?;
        total += word_count(&excerpt.text);
        works.push(excerpt);
    }
    Ok(works)
}

/// The translated-volumes set: see the module documentation. `sources` are
/// the corpus books with no partner; only those in `options.from` are used.
/// `map` maps a normalised word (lower-case letters) to its translations.
/// `progress` hears a line per volume.
pub fn translated_volumes_set(
    options: &TranslatedVolumesOptions,
    sources: Vec<SourceBook>,
    map: &HashMap<String, Vec<String>>,
    progress: &mut dyn FnMut(&str),
) -> Result<LabelledSet, String> {
    let pool = source_pool(
        sources,
        &options.from,
        "bind",
        stream_rng(options.seed, SOURCES_STREAM, 0),
    )?;
    let mut excerpts = Excerpts { pool, mine: None };
    let translator = Translator::new(map, &options.to);
    let mut set = LabelledSet::default();
    for volume in 0..options.volumes {
        let mut rng = stream_rng(options.seed, PLAN_STREAM, volume as u64);
        let target = log_uniform(VOLUME_WORDS.0, VOLUME_WORDS.1, &mut rng);
        let mut works = volume_works(&mut excerpts, target, &mut rng)?;
        works.shuffle(&mut rng);
        bind(&mut set, volume, works, &translator, options, &mut rng);
        let volume_book = set.books.last().map_or(0, |b| word_count(&b.text));
        progress(&format!(
            "volume {} of {}: {volume_book} words",
            volume + 1,
            options.volumes
        ));
    }
    add_negatives(&mut set, &mut excerpts, &translator, options)?;
    Ok(set)
}

/// Binds `works` into volume `volume` (translated whole when it is even)
/// and adds each work as a piece in the other language, with its pair.
fn bind(
    set: &mut LabelledSet,
    volume: usize,
    works: Vec<Excerpt>,
    translator: &Translator<'_>,
    options: &TranslatedVolumesOptions,
    rng: &mut SmallRng,
) {
    let volume_id = format!("vol{:02}", volume + 1);
    let translated_volume = volume % 2 == 1;
    let (volume_language, piece_language) = if translated_volume {
        (&options.to, &options.from)
    } else {
        (&options.from, &options.to)
    };
    let volume_rate = rng.random_range(0.0..=VOLUME_NOISE);
    let mut volume_noise = stream_rng(options.seed, NOISE_STREAM, volume as u64);
    let mut words_rng = stream_rng(options.seed, WORDS_STREAM, volume as u64);
    let mut text = String::new();
    // (id, the work, its words bound, the piece before noise) of each work.
    let mut pieces = Vec::with_capacity(works.len());
    for (number, mut work) in works.into_iter().enumerate() {
        let id = format!("v{:02}p{:03}", volume + 1, number + 1);
        let translated = translator.translate(&work.text, &mut words_rng).text;
        let title = translator.translate(&work.title, &mut words_rng).text;
        let (bound, piece, bound_title) = if translated_volume {
            (translated, std::mem::take(&mut work.text), title)
        } else {
            (
                std::mem::take(&mut work.text),
                translated,
                work.title.clone(),
            )
        };
        let _ = write!(text, "\n\n\n{bound_title}\nby {}\n\n\n", work.author);
        text.push_str(&bound);
        pieces.push((id, work, word_count(&bound), piece));
    }
    let text = ocr_noise(&text, volume_rate, &mut volume_noise);
    let volume_words = word_count(&text);
    let how = if translated_volume {
        format!(
            "a is a work bound, b the volume translated whole word by word with {}",
            options.dictionary
        )
    } else {
        format!(
            "b translates, word by word with {}, a work bound in a",
            options.dictionary
        )
    };
    for (id, work, bound_words, piece) in pieces {
        let rate = rng.random_range(0.0..=PIECE_NOISE);
        let piece = ocr_noise(&piece, rate, &mut volume_noise);
        let words = word_count(&piece);
        let share = bound_words as f64 / volume_words as f64;
        let (a, b) = if translated_volume {
            (id.clone(), volume_id.clone())
        } else {
            (volume_id.clone(), id.clone())
        };
        set.pairs.push(SetPair {
            a,
            b,
            relation: "translation".to_string(),
            note: format!(
                "PARTIAL: {how}; share {:.3}% ({bound_words} of the volume's {volume_words} \
                 words; the piece {words}); {} to {}; OCR noise: volume {:.1}%, piece {:.1}%",
                100.0 * share,
                options.from,
                options.to,
                100.0 * volume_rate,
                100.0 * rate
            ),
            band: share_band(share).to_string(),
        });
        set.books.push(SetBook {
            id,
            gutenberg_id: work.gutenberg_id,
            title: work.title,
            author: work.author,
            language: piece_language.clone(),
            text: piece,
            source: format!("{}; OCR noise {:.1}%", work.source, 100.0 * rate),
        });
    }
    set.books.push(SetBook {
        id: volume_id,
        gutenberg_id: String::new(),
        title: format!("Collected Volume {}", volume + 1),
        author: "Various".to_string(),
        language: volume_language.clone(),
        text,
        source: format!(
            "bound volume{}; OCR noise {:.1}%",
            if translated_volume {
                format!(", translated with {}", options.dictionary)
            } else {
                String::new()
            },
            100.0 * volume_rate
        ),
    });
}

/// Adds the negatives: excerpts in no volume, translated (`x…`) and kept
/// in the source language (`u…`).
fn add_negatives(
    set: &mut LabelledSet,
    excerpts: &mut Excerpts,
    translator: &Translator<'_>,
    options: &TranslatedVolumesOptions,
) -> Result<(), String> {
    let count = NEGATIVES_PER_VOLUME * options.volumes;
    for number in 0..2 * count {
        let mut rng = stream_rng(options.seed, PLAN_STREAM, (1 << 32) + number as u64);
        let words = log_uniform(1_000, 20_000, &mut rng);
        let work = excerpts.next(words).ok_or_else(|| {
            "the corpus's partnerless books ran out before the negatives: ask for fewer volumes"
                .to_string()
        })?;
        let rate = rng.random_range(0.0..=PIECE_NOISE);
        let translated = number < count;
        let (id, language, text) = if translated {
            let text = translator.translate(&work.text, &mut rng).text;
            (format!("x{:03}", number + 1), &options.to, text)
        } else {
            (
                format!("u{:03}", number - count + 1),
                &options.from,
                work.text,
            )
        };
        set.books.push(SetBook {
            id,
            gutenberg_id: work.gutenberg_id,
            title: work.title,
            author: work.author,
            language: language.clone(),
            text: ocr_noise(&text, rate, &mut rng),
            source: format!(
                "{}{}; in no volume; OCR noise {:.1}%",
                work.source,
                if translated {
                    format!(", translated with {}", options.dictionary)
                } else {
                    String::new()
                },
                100.0 * rate
            ),
        });
    }
    Ok(())
}

fn log_uniform(low: usize, high: usize, rng: &mut impl Rng) -> usize {
    let (low, high) = (low.max(1) as f64, high.max(low.max(1)) as f64);
    if high <= low {
        return low as usize;
    }
    (low * (high / low).powf(rng.random_range(0.0..1.0))).round() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(id: usize, words: usize) -> SourceBook {
        SourceBook {
            id: format!("s{id}"),
            gutenberg_id: String::new(),
            title: format!("Title {id}"),
            author: "Someone".to_string(),
            language: "en".to_string(),
            text: crate::work_text(words, 1000 + id as u64),
        }
    }

    /// Translates every word `w` to `zw`.
    fn map_of(books: &[SourceBook]) -> HashMap<String, Vec<String>> {
        books
            .iter()
            .flat_map(|b| b.text.split_whitespace())
            .map(|w| {
                w.chars()
                    .filter(|c| c.is_alphabetic())
                    .flat_map(char::to_lowercase)
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .map(|w| (w.clone(), vec![format!("z{w}")]))
            .collect()
    }

    #[test]
    fn shares_fall_in_every_band_and_nowhere_else() {
        let mut rng = stream_rng(3, 0, 0);
        let mut hits = [0usize; PIECE_BANDS.len()];
        for _ in 0..20_000 {
            let share = piece_share(&mut rng);
            let band = PIECE_BANDS
                .iter()
                .position(|&(low, high, _)| (low..=high).contains(&share))
                .unwrap_or_else(|| panic!("share {share} in no band"));
            hits[band] += 1;
        }
        for (band, &(.., weight)) in PIECE_BANDS.iter().enumerate() {
            let expected = 20_000.0 * f64::from(weight) / 100.0;
            let got = hits[band] as f64;
            assert!((got - expected).abs() < 0.15 * expected, "{band}: {got}");
        }
    }

    #[test]
    fn volumes_bind_their_pieces_in_the_other_language() {
        let sources: Vec<SourceBook> = (0..16).map(|i| source(i, 60_000)).collect();
        let map = map_of(&sources);
        let options = TranslatedVolumesOptions::new(1, 7, "en", "de", "test");
        let set = translated_volumes_set(&options, sources.clone(), &map, &mut |_| {}).unwrap();
        let volume = set.books.iter().find(|b| b.id == "vol01").unwrap();
        let volume_words = word_count(&volume.text);
        assert!(volume_words >= VOLUME_WORDS.0 * 9 / 10, "{volume_words}");
        // Volume 1 (odd) stays in English and its pieces are translated.
        assert_eq!(volume.language, "en");
        assert!(!set.pairs.is_empty());
        for pair in &set.pairs {
            assert_eq!(
                (pair.a.as_str(), pair.relation.as_str()),
                ("vol01", "translation")
            );
            assert!(pair.note.starts_with("PARTIAL:"), "{}", pair.note);
            let piece = set.books.iter().find(|b| b.id == pair.b).unwrap();
            assert_eq!(piece.language, "de");
            // The share is the bound work's (in the volume's language).
            let share: f64 = pair
                .note
                .split("share ")
                .nth(1)
                .unwrap()
                .split('%')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(pair.band, share_band(share / 100.0), "{}", pair.note);
            let ratio = word_count(&piece.text) as f64 / (share / 100.0 * volume_words as f64);
            assert!((0.7..1.4).contains(&ratio), "{}", pair.note);
            // Translated: the piece's words are z-words (or noise), never
            // the volume's own.
            let zs = piece
                .text
                .split_whitespace()
                .filter(|w| w.starts_with('z'))
                .count();
            assert!(zs * 2 > word_count(&piece.text), "{}", pair.b);
        }
        // Negatives of both languages, in no pair.
        let negatives: Vec<&SetBook> = set
            .books
            .iter()
            .filter(|b| b.id.starts_with('x') || b.id.starts_with('u'))
            .collect();
        assert_eq!(negatives.len(), 2 * NEGATIVES_PER_VOLUME);
        assert!(negatives
            .iter()
            .all(|b| !set.pairs.iter().any(|p| p.b == b.id)));
        // Deterministic.
        let again = translated_volumes_set(&options, sources, &map, &mut |_| {}).unwrap();
        assert_eq!(set, again);
    }

    #[test]
    fn running_out_of_sources_is_an_error() {
        let sources: Vec<SourceBook> = (0..2).map(|i| source(i, 5_000)).collect();
        let map = map_of(&sources);
        let options = TranslatedVolumesOptions::new(1, 7, "en", "de", "test");
        let error = translated_volumes_set(&options, sources, &map, &mut |_| {}).unwrap_err();
        assert!(error.contains("ran out"), "{error}");
        let options = TranslatedVolumesOptions::new(1, 7, "fr", "de", "test");
        let error = translated_volumes_set(&options, Vec::new(), &map, &mut |_| {}).unwrap_err();
        assert!(error.contains("no corpus book in language fr"), "{error}");
    }
}
