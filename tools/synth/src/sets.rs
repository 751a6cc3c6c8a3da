//! Labelled test collections in the layout of the labelled corpus
//! (`books.tsv`, `pairs.tsv` with a `band` column, `texts/ID.txt`), for the
//! two kinds of relation that a collection of real scans is full of:
//!
//! - [`volumes_set`]: large **volumes** (0.5–2M words) that bind 30–80 works
//!   end to end, each work also present as a book of its own, labelled
//!   `contains` with the work's share of its volume as the band
//!   ([`share_band`]);
//! - [`noisy_copies_set`]: **two OCR-noisy copies** of each source book, at
//!   character error rates from 1% to 20% each, labelled `edition` with the
//!   two rates as the band ([`noise_band`]).
//!
//! Works come either from a labelled corpus (only its books with no
//! `edition`, `contains` or `translation` partner, so that no unlabelled
//! relation slips in; [`read_partnerless`]) or from generated Zipf texts.
//! Every source book is used once: two books of a set are related only when
//! a pair says so. Both sets are deterministic from their seed.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use super::{compose, ocr_noise, stream_rng, Lexicon};

const SET_SOURCES_STREAM: u64 = 20;
const SET_VOLUME_STREAM: u64 = 21;
const SET_WORK_STREAM: u64 = 22;
const SET_VOLUME_NOISE_STREAM: u64 = 23;
const SET_COPY_NOISE_STREAM: u64 = 24;
const SET_NOISY_STREAM: u64 = 25;

/// Inclusive range of the length of a short work, in words.
pub const SHORT_WORK_WORDS: (usize, usize) = (500, 10_000);
/// Inclusive range of the length of a generated whole book, in words.
const WHOLE_BOOK_WORDS: (usize, usize) = (10_000, 150_000);
/// Largest excerpt, in words (a medium work for the 1–5% band).
const MEDIUM_WORK_WORDS: usize = 50_000;
/// Largest volume, in words.
const MAX_VOLUME_WORDS: usize = 2_000_000;
/// Largest OCR noise rate of a volume.
const VOLUME_NOISE: f64 = 0.03;
/// Largest OCR noise rate of a work's own copy.
const COPY_NOISE: f64 = 0.05;
/// Longest copy of a corpus book in the noisy-copies set, in words.
const NOISY_COPY_WORDS: usize = 20_000;
/// Length range of a generated book in the noisy-copies set, in words.
const NOISY_GENERATED_WORDS: (usize, usize) = (5_000, 20_000);

/// The share bands of [`share_band`], smallest first.
pub const SHARE_BANDS: [&str; 5] = [
    "share <0.1%",
    "share 0.1-0.5%",
    "share 0.5-1%",
    "share 1-5%",
    "share >=5%",
];

/// The band of a work that is `share` (0–1) of its volume's words.
pub fn share_band(share: f64) -> &'static str {
    match share {
        s if s < 0.001 => SHARE_BANDS[0],
        s if s < 0.005 => SHARE_BANDS[1],
        s if s < 0.01 => SHARE_BANDS[2],
        s if s < 0.05 => SHARE_BANDS[3],
        _ => SHARE_BANDS[4],
    }
}

/// The band of two copies at character error rates `a` and `b` (percent),
/// larger first: `noise 20%+10%`.
pub fn noise_band(a: u32, b: u32) -> String {
    format!("noise {}%+{}%", a.max(b), a.min(b))
}

/// The noise-rate pairs (percent, larger first) of the noisy-copies set: all
/// combinations up to 20% + 10% (twice as often), then 15%+15%, 20%+15% and 20%+20%.
pub const NOISE_COMBINATIONS: [(u32, u32); 15] = [
    (1, 1),
    (5, 1),
    (5, 5),
    (10, 1),
    (10, 5),
    (10, 10),
    (15, 1),
    (15, 5),
    (15, 10),
    (20, 1),
    (20, 5),
    (20, 10),
    (15, 15),
    (20, 15),
    (20, 20),
];
/// How many of [`NOISE_COMBINATIONS`] (the first) are drawn twice as often.
const CORE_COMBINATIONS: usize = 12;

/// A book of a labelled set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetBook {
    /// Unique id, the file stem under `texts/`.
    pub id: String,
    /// Gutenberg number of the source, empty for generated text.
    pub gutenberg_id: String,
    /// Title.
    pub title: String,
    /// Author.
    pub author: String,
    /// Language code.
    pub language: String,
    /// The text.
    pub text: String,
    /// Where the text comes from.
    pub source: String,
}

/// A labelled pair of a set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetPair {
    /// First id (the volume for `contains`).
    pub a: String,
    /// Second id.
    pub b: String,
    /// `contains` or `edition`.
    pub relation: String,
    /// What the pair is: share, word counts, noise rates.
    pub note: String,
    /// The share or noise band.
    pub band: String,
}

/// A labelled collection: books and their related pairs (any pair not
/// listed is unrelated).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelledSet {
    /// The books.
    pub books: Vec<SetBook>,
    /// The related pairs.
    pub pairs: Vec<SetPair>,
}

/// Whitespace-separated tokens, as `books.tsv` counts words.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// A field made safe for a TSV cell.
fn cell(value: &str) -> String {
    value.replace(['\t', '\n', '\r'], " ")
}

impl LabelledSet {
    /// Total words of the books.
    pub fn words(&self) -> usize {
        self.books.iter().map(|b| word_count(&b.text)).sum()
    }

    /// Pairs per `(relation, band)`.
    pub fn band_counts(&self) -> BTreeMap<(String, String), usize> {
        let mut counts = BTreeMap::new();
        for pair in &self.pairs {
            *counts
                .entry((pair.relation.clone(), pair.band.clone()))
                .or_default() += 1;
        }
        counts
    }

    /// Writes `books.tsv`, `pairs.tsv` and `texts/ID.txt` under `dir`
    /// (created when missing).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let texts = dir.join("texts");
        std::fs::create_dir_all(&texts)?;
        let mut books = String::from("id\tgutenberg_id\ttitle\tauthor\tlanguage\twords\tsource\n");
        for book in &self.books {
            std::fs::write(texts.join(format!("{}.txt", book.id)), &book.text)?;
            let _ = writeln!(
                books,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                book.id,
                book.gutenberg_id,
                cell(&book.title),
                cell(&book.author),
                book.language,
                word_count(&book.text),
                cell(&book.source)
            );
        }
        std::fs::write(dir.join("books.tsv"), books)?;
        let mut pairs = String::from("a\tb\trelation\tnote\tband\n");
        for pair in &self.pairs {
            let _ = writeln!(
                pairs,
                "{}\t{}\t{}\t{}\t{}",
                pair.a,
                pair.b,
                pair.relation,
                cell(&pair.note),
                pair.band
            );
        }
        std::fs::write(dir.join("pairs.tsv"), pairs)
    }
}

/// A book of a source corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceBook {
    /// Corpus id.
    pub id: String,
    /// Gutenberg number (may be empty).
    pub gutenberg_id: String,
    /// Title.
    pub title: String,
    /// Author.
    pub author: String,
    /// Language code.
    pub language: String,
    /// The text.
    pub text: String,
}

/// The rows of a TSV file as maps from header name to cell.
fn read_rows(path: &Path) -> Result<Vec<BTreeMap<String, String>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| format!("{}: empty file, expected a header line", path.display()))?
        .split('\t')
        .collect();
    Ok(lines
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            header
                .iter()
                .zip(line.split('\t'))
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect()
        })
        .collect())
}

/// A labelled corpus read whole: every book with its text, and its pairs.
#[derive(Debug, Clone, Default)]
pub struct SourceCorpus {
    /// The books, in `books.tsv` order.
    pub books: Vec<SourceBook>,
    /// The labelled pairs, in `pairs.tsv` order (`band` empty when the file
    /// has no such column).
    pub pairs: Vec<SetPair>,
    /// The books with no `edition`, `contains` or `translation` partner, in
    /// `books.tsv` order.
    pub partnerless: Vec<SourceBook>,
}

/// The labelled corpus in `dir` (`books.tsv`, `pairs.tsv`, `texts/ID.txt`).
/// Errors name the file and the problem.
pub fn read_corpus(dir: &Path) -> Result<SourceCorpus, String> {
    let books_path = dir.join("books.tsv");
    let pairs_path = dir.join("pairs.tsv");
    let mut pairs = Vec::new();
    for (line, row) in read_rows(&pairs_path)?.into_iter().enumerate() {
        let field = |name: &str| {
            row.get(name).cloned().ok_or_else(|| {
                format!(
                    "{}: line {}: no `{name}` column",
                    pairs_path.display(),
                    line + 2
                )
            })
        };
        pairs.push(SetPair {
            a: field("a")?,
            b: field("b")?,
            relation: field("relation")?,
            note: row.get("note").cloned().unwrap_or_default(),
            band: row.get("band").cloned().unwrap_or_default(),
        });
    }
    let related: HashSet<&str> = pairs
        .iter()
        .filter(|p| matches!(p.relation.as_str(), "edition" | "contains" | "translation"))
        .flat_map(|p| [p.a.as_str(), p.b.as_str()])
        .collect();
    let mut books = Vec::new();
    let mut partnerless = Vec::new();
    for (line, row) in read_rows(&books_path)?.into_iter().enumerate() {
        let field = |name: &str| row.get(name).cloned().unwrap_or_default();
        let id = field("id");
        if id.is_empty() {
            return Err(format!(
                "{}: line {}: no id",
                books_path.display(),
                line + 2
            ));
        }
        let path = dir.join("texts").join(format!("{id}.txt"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let book = SourceBook {
            gutenberg_id: field("gutenberg_id"),
            title: field("title"),
            author: field("author"),
            language: field("language"),
            id,
            text,
        };
        if !related.contains(book.id.as_str()) {
            partnerless.push(book.clone());
        }
        books.push(book);
    }
    Ok(SourceCorpus {
        books,
        pairs,
        partnerless,
    })
}

/// The books of the labelled corpus in `dir` that have no `edition`,
/// `contains` or `translation` partner in its `pairs.tsv`, in `books.tsv`
/// order, with their texts. Errors name the file and the problem.
pub fn read_partnerless(dir: &Path) -> Result<Vec<SourceBook>, String> {
    Ok(read_corpus(dir)?.partnerless)
}

/// A work to bind or copy, before noise.
struct Work {
    gutenberg_id: String,
    title: String,
    author: String,
    language: String,
    text: String,
    source: String,
}

/// The first lines of `text` (from line `start`) that hold at least
/// `words` words, and the line after them.
fn lines_from(lines: &[&str], start: usize, words: usize) -> (String, usize) {
    let mut out = String::new();
    let mut count = 0;
    let mut at = start;
    while at < lines.len() && count < words {
        count += word_count(lines[at]);
        out.push_str(lines[at]);
        out.push('\n');
        at += 1;
    }
    (out, at)
}

/// Hands out works: corpus books (each used once, whole or cut into
/// excerpts), then generated texts once the corpus is used up.
struct Supplier {
    pool: VecDeque<SourceBook>,
    /// The book being cut into excerpts, its lines and the next line.
    mine: Option<(SourceBook, usize, usize)>,
    lexicon: Lexicon,
    seed: u64,
    generated: u64,
}

impl Supplier {
    fn new(mut sources: Vec<SourceBook>, seed: u64) -> Self {
        sources.shuffle(&mut stream_rng(seed, SET_SOURCES_STREAM, 0));
        Self {
            pool: sources.into(),
            mine: None,
            lexicon: Lexicon::new(50_000, 1.07, seed),
            seed,
            generated: 0,
        }
    }

    fn generated(&mut self, words: usize) -> Work {
        let number = self.generated;
        self.generated += 1;
        let mut rng = stream_rng(self.seed, SET_WORK_STREAM, number);
        Work {
            gutenberg_id: String::new(),
            title: self.lexicon.title(&mut rng),
            author: self.lexicon.author(&mut rng),
            language: "en".to_string(),
            text: compose(&self.lexicon, words.max(1), &mut rng),
            source: format!("generated: seed {} work {number}, {words} words", self.seed),
        }
    }

    /// A whole book of at most `max_words` words, of at least `min_words`
    /// when one fits: the first corpus book in the pool in that range (else
    /// the first of at most `max_words`), else a generated one.
    fn whole(&mut self, min_words: usize, max_words: usize, rng: &mut impl Rng) -> Work {
        let fits = |low: usize| {
            self.pool.iter().position(|book| {
                let words = word_count(&book.text);
                (low..=max_words).contains(&words)
            })
        };
        if let Some(book) = fits(min_words)
            .or_else(|| fits(0))
            .and_then(|at| self.pool.remove(at))
        {
            return Work {
                source: format!("corpus: {}", book.id),
                gutenberg_id: book.gutenberg_id,
                title: book.title,
                author: book.author,
                language: book.language,
                text: book.text,
            };
        }
        let high = WHOLE_BOOK_WORDS.1.min(max_words).max(WHOLE_BOOK_WORDS.0);
        let low = WHOLE_BOOK_WORDS.0.max(min_words).min(high);
        let words = log_uniform(low, high, rng);
        self.generated(words)
    }

    /// An excerpt of about `words` words, cut at line ends from a corpus
    /// book that serves nothing else, or a generated work.
    fn excerpt(&mut self, words: usize) -> Work {
        loop {
            if let Some((book, start, number)) = self.mine.as_mut() {
                let lines: Vec<&str> = book.text.lines().collect();
                let (text, end) = lines_from(&lines, *start, words);
                if word_count(&text) >= words {
                    let work = Work {
                        gutenberg_id: book.gutenberg_id.clone(),
                        title: format!("{} (excerpt {})", book.title, *number + 1),
                        author: book.author.clone(),
                        language: book.language.clone(),
                        source: format!("corpus: {} lines {}-{}", book.id, *start + 1, end),
                        text,
                    };
                    *start = end;
                    *number += 1;
                    return work;
                }
            }
            match self.pool.pop_back() {
                Some(book) => self.mine = Some((book, 0, 0)),
                None => return self.generated(words),
            }
        }
    }
}

fn log_uniform(low: usize, high: usize, rng: &mut impl Rng) -> usize {
    let (low, high) = (low.max(1) as f64, high.max(low.max(1)) as f64);
    if high <= low {
        return low as usize;
    }
    (low * (high / low).powf(rng.random_range(0.0..1.0))).round() as usize
}

/// Options of [`volumes_set`].
#[derive(Debug, Clone, PartialEq)]
pub struct VolumesOptions {
    /// Seed of every random choice.
    pub seed: u64,
    /// Number of volumes.
    pub volumes: usize,
    /// Inclusive range of a volume's target length, in words (drawn log-uniformly).
    pub volume_words: (usize, usize),
    /// Inclusive range of the number of works bound in a volume.
    pub works_per_volume: (usize, usize),
    /// Standalone books in no volume, per volume.
    pub distractors_per_volume: usize,
}

impl VolumesOptions {
    /// `volumes` volumes of 0.5–2M words with 30–80 works each, and two
    /// distractors per volume.
    pub fn new(volumes: usize, seed: u64) -> Self {
        Self {
            seed,
            volumes,
            volume_words: (500_000, MAX_VOLUME_WORDS),
            works_per_volume: (30, 80),
            distractors_per_volume: 2,
        }
    }
}

/// A share drawn from `bands` (lowest, highest, weight): a band by weight,
/// then a share log-uniform within it; with the band drawn.
pub(crate) fn share_in_bands<'b>(
    bands: &'b [(f64, f64, u32)],
    rng: &mut impl Rng,
) -> (&'b (f64, f64, u32), f64) {
    let total: u32 = bands.iter().map(|b| b.2).sum();
    let mut pick = rng.random_range(0..total);
    let band = bands
        .iter()
        .find(|&&(_, _, weight)| {
            let here = pick < weight;
            pick = pick.saturating_sub(weight);
            here
        })
        .unwrap_or(&bands[0]);
    let share = band.0 * (band.1 / band.0).powf(rng.random_range(0.0..1.0));
    (band, share)
}

/// Word counts of the short works of one volume of about `target` words:
/// shares drawn across the bands under 5%, clamped to the short and medium
/// lengths.
fn excerpt_sizes(count: usize, target: usize, rng: &mut impl Rng) -> Vec<usize> {
    const BANDS: [(f64, f64, u32); 4] = [
        (0.0002, 0.001, 30),
        (0.001, 0.005, 30),
        (0.005, 0.01, 25),
        (0.01, 0.05, 15),
    ];
    (0..count)
        .map(|_| {
            let (band, share) = share_in_bands(&BANDS, rng);
            let words = (share * target as f64).round() as usize;
            let high = if band.1 > 0.01 {
                MEDIUM_WORK_WORDS
            } else {
                SHORT_WORK_WORDS.1
            };
            words.clamp(SHORT_WORK_WORDS.0, high)
        })
        .collect()
}

/// The volumes set: see the module documentation. `progress` hears one
/// line per volume.
pub fn volumes_set(
    options: &VolumesOptions,
    sources: Vec<SourceBook>,
    progress: &mut dyn FnMut(&str),
) -> LabelledSet {
    let mut supplier = Supplier::new(sources, options.seed);
    let mut set = LabelledSet::default();
    let mut copy_number = 0u64;
    // Distractors first, so that they come from the corpus while it lasts.
    for number in 0..options.volumes * options.distractors_per_volume {
        let mut rng = stream_rng(options.seed, SET_VOLUME_STREAM, (1 << 32) + number as u64);
        let work = if number.is_multiple_of(3) {
            supplier.whole(0, MEDIUM_WORK_WORDS, &mut rng)
        } else {
            supplier.excerpt(log_uniform(
                SHORT_WORK_WORDS.0,
                SHORT_WORK_WORDS.1,
                &mut rng,
            ))
        };
        let rate = rng.random_range(0.0..=COPY_NOISE);
        let mut noise = stream_rng(options.seed, SET_COPY_NOISE_STREAM, copy_number);
        copy_number += 1;
        set.books.push(SetBook {
            id: format!("d{:03}", number + 1),
            text: ocr_noise(&work.text, rate, &mut noise),
            source: format!("{}; OCR noise {:.1}%", work.source, 100.0 * rate),
            gutenberg_id: work.gutenberg_id,
            title: work.title,
            author: work.author,
            language: work.language,
        });
    }
    let mut strata: Vec<usize> = (0..options.volumes).collect();
    strata.shuffle(&mut stream_rng(options.seed, SET_VOLUME_STREAM, 1 << 40));
    for (volume, &slice) in strata.iter().enumerate() {
        let mut rng = stream_rng(options.seed, SET_VOLUME_STREAM, volume as u64);
        let (low, high) = ordered(options.volume_words);
        // Volume sizes are spread over the range: volume i draws from the
        // i-th of `volumes` equal slices of it (log scale), in shuffled order.
        let ratio = (high.max(1) as f64 / low.max(1) as f64).max(1.0);
        let part = |k: f64| (low.max(1) as f64 * ratio.powf(k / options.volumes as f64)) as usize;
        let target = log_uniform(part(slice as f64), part(slice as f64 + 1.0), &mut rng);
        let (fewest, most) = ordered(options.works_per_volume);
        let count = rng.random_range(fewest.max(1)..=most.max(1));
        let short = (count * 3 / 5).max(1);
        let mut works: Vec<Work> = excerpt_sizes(short, target, &mut rng)
            .into_iter()
            .map(|words| supplier.excerpt(words))
            .collect();
        let mut total: usize = works.iter().map(|w| word_count(&w.text)).sum();
        while works.len() < most.max(1) && (works.len() < count || total < target) {
            let room = high.saturating_sub(total).max(SHORT_WORK_WORDS.1);
            let work = if total < target {
                // Two whole books in three are at least 5% of the volume.
                let big = if works.len().is_multiple_of(3) {
                    0
                } else {
                    target / 20
                };
                supplier.whole(big, room, &mut rng)
            } else {
                let words = log_uniform(SHORT_WORK_WORDS.0, SHORT_WORK_WORDS.1, &mut rng);
                supplier.excerpt(words)
            };
            total += word_count(&work.text);
            works.push(work);
        }
        works.shuffle(&mut rng);
        bind_volume(
            &mut set,
            volume,
            works,
            options.seed,
            &mut copy_number,
            &mut rng,
        );
        let volume_book = &set.books[set.books.len() - 1];
        progress(&format!(
            "volume {} of {}: {} works, {} words",
            volume + 1,
            options.volumes,
            set.pairs.iter().filter(|p| p.a == volume_book.id).count(),
            word_count(&volume_book.text)
        ));
    }
    set
}

fn ordered(range: (usize, usize)) -> (usize, usize) {
    (range.0.min(range.1), range.0.max(range.1))
}

/// Binds `works` into volume `volume` (noisy at one rate), adds each work
/// as its own noisy book and a `contains` pair from the volume to it.
fn bind_volume(
    set: &mut LabelledSet,
    volume: usize,
    works: Vec<Work>,
    seed: u64,
    copy_number: &mut u64,
    rng: &mut impl Rng,
) {
    let volume_id = format!("vol{:02}", volume + 1);
    let volume_rate = rng.random_range(0.0..=VOLUME_NOISE);
    let mut volume_noise = stream_rng(seed, SET_VOLUME_NOISE_STREAM, volume as u64);
    let mut text = String::new();
    for work in &works {
        let _ = write!(text, "\n\n\n{}\nby {}\n\n\n", work.title, work.author);
        text.push_str(&ocr_noise(&work.text, volume_rate, &mut volume_noise));
    }
    let volume_words = word_count(&text);
    let mut pairs = Vec::with_capacity(works.len());
    for (number, work) in works.into_iter().enumerate() {
        let id = format!("v{:02}w{:03}", volume + 1, number + 1);
        let words = word_count(&work.text);
        let share = words as f64 / volume_words as f64;
        let copy_rate = rng.random_range(0.0..=COPY_NOISE);
        let mut noise = stream_rng(seed, SET_COPY_NOISE_STREAM, *copy_number);
        *copy_number += 1;
        pairs.push(SetPair {
            a: volume_id.clone(),
            b: id.clone(),
            relation: "contains".to_string(),
            note: format!(
                "share {:.3}% ({words} of {volume_words} words); OCR noise: volume {:.1}%, book {:.1}%",
                100.0 * share,
                100.0 * volume_rate,
                100.0 * copy_rate
            ),
            band: share_band(share).to_string(),
        });
        set.books.push(SetBook {
            id,
            text: ocr_noise(&work.text, copy_rate, &mut noise),
            source: format!("{}; OCR noise {:.1}%", work.source, 100.0 * copy_rate),
            gutenberg_id: work.gutenberg_id,
            title: work.title,
            author: work.author,
            language: work.language,
        });
    }
    set.pairs.extend(pairs);
    set.books.push(SetBook {
        id: volume_id.clone(),
        gutenberg_id: String::new(),
        title: format!("Collected Volume {}", volume + 1),
        author: "Various".to_string(),
        language: "en".to_string(),
        text,
        source: format!("bound volume; OCR noise {:.1}%", 100.0 * volume_rate),
    });
}

/// Options of [`noisy_copies_set`].
#[derive(Debug, Clone, PartialEq)]
pub struct NoisyCopiesOptions {
    /// Seed of every random choice.
    pub seed: u64,
    /// Number of source books (two copies each).
    pub books: usize,
    /// Longest copy of a corpus book, in words (its first lines).
    pub corpus_words: usize,
    /// Length range of a generated source book, in words.
    pub generated_words: (usize, usize),
}

impl NoisyCopiesOptions {
    /// `books` source books: corpus books cut to their first 20,000 words,
    /// generated books of 5,000–20,000 words.
    pub fn new(books: usize, seed: u64) -> Self {
        Self {
            seed,
            books,
            corpus_words: NOISY_COPY_WORDS,
            generated_words: NOISY_GENERATED_WORDS,
        }
    }
}

/// The noise combination of each of `books` source books: the twelve up
/// to 20% + 10% twice for each of the three above, shuffled round by round.
fn noise_plan(books: usize, rng: &mut impl Rng) -> Vec<(u32, u32)> {
    let mut round: Vec<(u32, u32)> = NOISE_COMBINATIONS[..CORE_COMBINATIONS]
        .iter()
        .chain(&NOISE_COMBINATIONS)
        .copied()
        .collect();
    let mut plan = Vec::with_capacity(books);
    while plan.len() < books {
        round.shuffle(rng);
        plan.extend(round.iter().take(books - plan.len()));
    }
    plan
}

/// The noisy-copies set: see the module documentation. `progress` hears a
/// line every 25 source books.
pub fn noisy_copies_set(
    options: &NoisyCopiesOptions,
    sources: Vec<SourceBook>,
    progress: &mut dyn FnMut(&str),
) -> LabelledSet {
    let mut supplier = Supplier::new(sources, options.seed);
    let mut rng: SmallRng = stream_rng(options.seed, SET_NOISY_STREAM, 0);
    let plan = noise_plan(options.books, &mut rng);
    let mut set = LabelledSet::default();
    for (number, &(high, low)) in plan.iter().enumerate() {
        let work = match supplier.pool.pop_front() {
            Some(book) => {
                let lines: Vec<&str> = book.text.lines().collect();
                let (text, end) = lines_from(&lines, 0, options.corpus_words);
                Work {
                    gutenberg_id: book.gutenberg_id.clone(),
                    title: book.title.clone(),
                    author: book.author.clone(),
                    language: book.language.clone(),
                    source: format!("corpus: {} lines 1-{end}", book.id),
                    text,
                }
            }
            None => {
                let (low, high) = ordered(options.generated_words);
                let words = log_uniform(low, high, &mut rng);
                supplier.generated(words)
            }
        };
        // Which copy is the noisier one is drawn too.
        let (rate_a, rate_b) = if rng.random_bool(0.5) {
            (high, low)
        } else {
            (low, high)
        };
        let id = format!("n{:03}", number + 1);
        let mut copies = Vec::with_capacity(2);
        for (side, rate) in [("a", rate_a), ("b", rate_b)] {
            let stream = 2 * number as u64 + u64::from(side == "b");
            let mut noise = stream_rng(options.seed, SET_COPY_NOISE_STREAM, stream);
            copies.push(SetBook {
                id: format!("{id}-{side}"),
                gutenberg_id: work.gutenberg_id.clone(),
                title: work.title.clone(),
                author: work.author.clone(),
                language: work.language.clone(),
                text: ocr_noise(&work.text, f64::from(rate) / 100.0, &mut noise),
                source: format!("{}; OCR noise {rate}%", work.source),
            });
        }
        set.pairs.push(SetPair {
            a: copies[0].id.clone(),
            b: copies[1].id.clone(),
            relation: "edition".to_string(),
            note: format!(
                "two OCR copies of one text ({} words) at {rate_a}% and {rate_b}% character error",
                word_count(&work.text)
            ),
            band: noise_band(high, low),
        });
        set.books.extend(copies);
        if (number + 1) % 25 == 0 || number + 1 == plan.len() {
            progress(&format!("{} of {} source books", number + 1, plan.len()));
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn small_volumes(seed: u64) -> LabelledSet {
        let options = VolumesOptions {
            volume_words: (150_000, 250_000),
            works_per_volume: (30, 40),
            ..VolumesOptions::new(2, seed)
        };
        volumes_set(&options, Vec::new(), &mut |_| {})
    }

    fn source(id: &str, words: usize, seed: u64) -> SourceBook {
        SourceBook {
            id: id.to_string(),
            gutenberg_id: String::new(),
            title: format!("Title {id}"),
            author: "Someone".to_string(),
            language: "en".to_string(),
            text: super::super::work_text(words, seed),
        }
    }

    #[test]
    fn share_bands_have_the_documented_edges() {
        assert_eq!(share_band(0.0009), "share <0.1%");
        assert_eq!(share_band(0.001), "share 0.1-0.5%");
        assert_eq!(share_band(0.0049), "share 0.1-0.5%");
        assert_eq!(share_band(0.005), "share 0.5-1%");
        assert_eq!(share_band(0.02), "share 1-5%");
        assert_eq!(share_band(0.05), "share >=5%");
        assert_eq!(noise_band(5, 20), "noise 20%+5%");
    }

    #[test]
    fn volumes_set_is_deterministic() {
        assert_eq!(small_volumes(3), small_volumes(3));
        assert_ne!(small_volumes(3), small_volumes(4));
    }

    #[test]
    fn every_bound_work_is_labelled_with_its_share_band() {
        let set = small_volumes(5);
        let texts: HashMap<&str, &str> = set
            .books
            .iter()
            .map(|b| (b.id.as_str(), b.text.as_str()))
            .collect();
        let volumes: Vec<&str> = texts
            .keys()
            .copied()
            .filter(|id| id.starts_with("vol"))
            .collect();
        assert_eq!(volumes.len(), 2);
        let mut labelled = HashSet::new();
        for pair in &set.pairs {
            assert_eq!(pair.relation, "contains");
            assert!(pair.a.starts_with("vol"));
            assert!(texts.contains_key(pair.b.as_str()));
            // The share in the note agrees with the band.
            let percent: f64 = pair.note["share ".len()..]
                .split('%')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap();
            assert_eq!(pair.band, share_band(percent / 100.0), "{}", pair.note);
            labelled.insert(pair.b.clone());
        }
        let bound: Vec<&str> = texts
            .keys()
            .copied()
            .filter(|id| id.starts_with('v') && !id.starts_with("vol"))
            .collect();
        assert!(bound.len() >= 60);
        assert!(bound.iter().all(|id| labelled.contains(*id)));
        let bands: HashSet<&str> = set.pairs.iter().map(|p| p.band.as_str()).collect();
        assert!(bands.contains("share 0.1-0.5%"), "{bands:?}");
        assert!(
            bands.contains("share <0.1%") || bands.len() >= 4,
            "{bands:?}"
        );
        assert!(set.books.iter().any(|b| b.id.starts_with('d')));
    }

    #[test]
    fn corpus_books_are_used_once_and_excerpts_are_distinct_works() {
        let sources: Vec<SourceBook> = (0..30)
            .map(|i| source(&format!("pg{i}"), 12_000 + 1_000 * i, i as u64))
            .collect();
        let options = VolumesOptions {
            volume_words: (150_000, 200_000),
            works_per_volume: (30, 35),
            ..VolumesOptions::new(2, 9)
        };
        let set = volumes_set(&options, sources, &mut |_| {});
        // A corpus book is either one whole work or the mine of excerpts,
        // never in two places.
        let mut whole = HashSet::new();
        let mut mined: HashMap<String, HashSet<String>> = HashMap::new();
        for book in set.books.iter().filter(|b| !b.id.starts_with("vol")) {
            let Some(rest) = book.source.strip_prefix("corpus: ") else {
                continue;
            };
            let id = rest.split([' ', ';']).next().unwrap().to_string();
            if rest.starts_with(&format!("{id} lines")) {
                let volume = book.id[..3].to_string();
                mined.entry(id).or_default().insert(volume);
            } else {
                assert!(whole.insert(id.clone()), "{id} used whole twice");
            }
        }
        assert!(!whole.is_empty() && !mined.is_empty());
        for id in mined.keys() {
            assert!(!whole.contains(id), "{id} both whole and excerpted");
        }
        // Excerpts do not overlap: line ranges of one book are disjoint.
        let mut ranges: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
        for book in &set.books {
            if let Some(rest) = book.source.strip_prefix("corpus: ") {
                let mut words = rest.split([' ', ';', '-']);
                let id = words.next().unwrap().to_string();
                if words.next() == Some("lines") {
                    let from: usize = words.next().unwrap().parse().unwrap();
                    let to: usize = words.next().unwrap().parse().unwrap();
                    ranges.entry(id).or_default().push((from, to));
                }
            }
        }
        for list in ranges.values_mut() {
            list.sort_unstable();
            assert!(list.windows(2).all(|w| w[0].1 < w[1].0), "{list:?}");
        }
    }

    #[test]
    fn noisy_copies_cover_the_bands_and_are_deterministic() {
        let options = NoisyCopiesOptions {
            generated_words: (300, 500),
            corpus_words: 400,
            ..NoisyCopiesOptions::new(54, 2)
        };
        let sources = vec![source("pg1", 2_000, 1), source("pg2", 2_000, 2)];
        let set = noisy_copies_set(&options, sources.clone(), &mut |_| {});
        assert_eq!(set, noisy_copies_set(&options, sources, &mut |_| {}));
        assert_eq!(set.books.len(), 108);
        assert_eq!(set.pairs.len(), 54);
        let counts = set.band_counts();
        assert_eq!(counts.len(), NOISE_COMBINATIONS.len());
        for (high, low) in &NOISE_COMBINATIONS[..CORE_COMBINATIONS] {
            let key = ("edition".to_string(), noise_band(*high, *low));
            assert_eq!(counts[&key], 4, "{key:?}");
        }
        assert!(set
            .books
            .iter()
            .any(|b| b.source.starts_with("corpus: pg1")));
        assert!(set.books.iter().any(|b| b.source.starts_with("generated")));
    }

    #[test]
    fn partnerless_books_are_read_by_header_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("texts")).unwrap();
        std::fs::write(
            dir.path().join("books.tsv"),
            "id\tgutenberg_id\ttitle\tauthor\tlanguage\twords\tsource\n\
             x\t1\tX\tA\ten\t2\ts\ny\t2\tY\tA\ten\t2\ts\nz\t3\tZ\tB\tde\t2\ts\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("pairs.tsv"),
            "a\tb\trelation\tnote\nx\ty\tedition\tn\nx\tz\tsame_author\t\n",
        )
        .unwrap();
        for id in ["x", "y", "z"] {
            std::fs::write(dir.path().join(format!("texts/{id}.txt")), "some words").unwrap();
        }
        let books = read_partnerless(dir.path()).unwrap();
        assert_eq!(books.len(), 1);
        assert_eq!(books[0].id, "z");
        assert_eq!(books[0].language, "de");
        std::fs::remove_file(dir.path().join("texts/z.txt")).unwrap();
        let error = read_partnerless(dir.path()).unwrap_err();
        assert!(error.contains("z.txt"), "{error}");
    }

    #[test]
    fn a_set_writes_the_corpus_layout() {
        let options = NoisyCopiesOptions {
            generated_words: (300, 400),
            ..NoisyCopiesOptions::new(3, 1)
        };
        let set = noisy_copies_set(&options, Vec::new(), &mut |_| {});
        let dir = tempfile::tempdir().unwrap();
        set.write(dir.path()).unwrap();
        let pairs = std::fs::read_to_string(dir.path().join("pairs.tsv")).unwrap();
        assert!(pairs.starts_with("a\tb\trelation\tnote\tband\n"));
        assert_eq!(pairs.lines().count(), 4);
        let books = std::fs::read_to_string(dir.path().join("books.tsv")).unwrap();
        assert!(books.starts_with("id\tgutenberg_id\ttitle\tauthor\tlanguage\twords\tsource\n"));
        assert!(dir.path().join("texts/n001-a.txt").exists());
    }
}
