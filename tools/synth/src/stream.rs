//! The streaming generator: a collection of any size, yielded book by book.
//!
//! [`stream`] walks the works in order. Each work yields its family (the
//! original, then its editions); some originals are also set aside for an
//! anthology, which is yielded right after the last work of its group of two
//! to four; an unrelated book follows a work with a set probability. With a
//! volume share above 0, large volumes bind 25 to 50 consecutive works'
//! originals (500K to 1M words at 20K words a work), each yielded right after
//! the work that completes it; a new volume opens when none is open and the
//! volumes so far fall below the share of the books so far. At most one
//! anthology group, one work's books and one volume's originals are held at a
//! time, so memory does not grow with the collection.
//!
//! Each book carries its own ground truth ([`SynthBook::family`],
//! [`SynthBook::contains`]); [`GroundTruth`] keeps it by key, without the
//! texts, and tells which pairs of books are related.

use std::collections::{HashMap, VecDeque};
use std::iter::FusedIterator;

use rand::rngs::SmallRng;
use rand::RngExt;

use super::{
    anthology_book, family_books, stream_rng, unrelated_book, volume_book, FamilyShape, Lexicon,
    SynthBook, SynthRelation, STREAM_LAYOUT_STREAM, STREAM_VOLUME_LAYOUT_STREAM,
};

/// Inclusive range of the number of works in one anthology.
const ANTHOLOGY_WORKS: (usize, usize) = (2, 4);

/// Inclusive range of the number of works bound in one volume.
pub const VOLUME_WORKS: (usize, usize) = (25, 50);

/// Most volumes open at once. About 2.5 books are yielded per work (0 to 2
/// editions, anthologies, one unrelated book per two works) and a volume
/// takes 25 to 50 works, so a volume spans about 95 books: shares above about
/// 1% are not reached, volumes then follow each other back to back.
pub const MAX_OPEN_VOLUMES: usize = 1;

/// Options controlling [`stream`].
#[derive(Debug, Clone, PartialEq)]
pub struct StreamOptions {
    /// Seed of every random choice; the same options always yield the same books.
    pub seed: u64,
    /// Number of books yielded.
    pub books: usize,
    /// Mean length of an original work or an unrelated book, in words:
    /// lengths are uniform in `[0.75 · words, 1.25 · words]`, at least one word.
    pub words: usize,
    /// Size of the Zipf vocabulary (at least one word is always used).
    pub vocab_size: usize,
    /// Exponent of the Zipf distribution of word frequencies.
    pub zipf_exponent: f64,
    /// Inclusive range of the number of extra editions per work.
    pub editions_per_family: (usize, usize),
    /// Inclusive range of the per-character OCR noise rate of editions and anthologies.
    pub ocr_noise: (f64, f64),
    /// Probability that a work's original also appears in an anthology.
    pub anthology_share: f64,
    /// Probability that an unrelated book follows a work.
    pub unrelated_share: f64,
    /// Share of the yielded books that are volumes binding 25 to 50 works
    /// each (`VOLUME_WORKS`; 0: none, and the stream is as without
    /// volumes). Shares above about 1% are not reached: one volume is
    /// filled at a time (`MAX_OPEN_VOLUMES`).
    pub volume_share: f64,
}

impl StreamOptions {
    /// `books` books of about `words` words with the given seed, and the
    /// mix of [`super::SynthOptions::with_families`] otherwise: a
    /// 50,000-word vocabulary with Zipf exponent 1.07, 0 to 2 editions per
    /// work, OCR noise rates up to 5%, 15% of originals in anthologies and
    /// one unrelated book per two works.
    pub fn new(books: usize, words: usize, seed: u64) -> Self {
        Self {
            seed,
            books,
            words,
            vocab_size: 50_000,
            zipf_exponent: 1.07,
            editions_per_family: (0, 2),
            ocr_noise: (0.0, 0.05),
            anthology_share: 0.15,
            unrelated_share: 0.5,
            volume_share: 0.0,
        }
    }

    fn shape(&self) -> FamilyShape {
        let low = (self.words * 3 / 4).max(1);
        let high = (self.words + self.words / 4).max(low);
        FamilyShape {
            seed: self.seed,
            words: (low, high),
            editions: super::ordered(self.editions_per_family),
            ocr_noise: self.ocr_noise,
        }
    }
}

/// The books of [`stream`], generated as they are asked for.
pub struct BookStream {
    lexicon: Lexicon,
    shape: FamilyShape,
    anthology_share: f64,
    unrelated_share: f64,
    layout: SmallRng,
    remaining: usize,
    ready: VecDeque<SynthBook>,
    works: usize,
    anthologies: usize,
    unrelated: usize,
    /// Originals waiting for their anthology.
    group: Vec<SynthBook>,
    group_size: usize,
    volume_share: f64,
    /// Draws the size of each volume, apart from the layout so that the
    /// books between volumes are those of a stream without them.
    volume_layout: SmallRng,
    /// Volumes being filled, oldest first (at most [`MAX_OPEN_VOLUMES`]).
    open_volumes: Vec<OpenVolume>,
    volumes: usize,
    /// Books queued so far, volumes included.
    queued: usize,
}

/// A volume being filled: the originals bound so far and how many it takes.
struct OpenVolume {
    originals: Vec<SynthBook>,
    works: usize,
}

/// Yields the `options.books` books of a collection one at a time: works in
/// order, each original followed by its editions, anthologies right after
/// their last work, unrelated books in between. Deterministic in the options;
/// a longer stream with the same other options starts with the same books.
pub fn stream(options: &StreamOptions) -> BookStream {
    let mut layout = stream_rng(options.seed, STREAM_LAYOUT_STREAM, 0);
    let group_size = layout.random_range(ANTHOLOGY_WORKS.0..=ANTHOLOGY_WORKS.1);
    BookStream {
        lexicon: Lexicon::new(options.vocab_size, options.zipf_exponent, options.seed),
        shape: options.shape(),
        anthology_share: probability(options.anthology_share),
        unrelated_share: probability(options.unrelated_share),
        layout,
        remaining: options.books,
        ready: VecDeque::new(),
        works: 0,
        anthologies: 0,
        unrelated: 0,
        group: Vec::with_capacity(ANTHOLOGY_WORKS.1),
        group_size,
        volume_share: probability(options.volume_share),
        volume_layout: stream_rng(options.seed, STREAM_VOLUME_LAYOUT_STREAM, 0),
        open_volumes: Vec::new(),
        volumes: 0,
        queued: 0,
    }
}

/// `p` clamped to `[0, 1]`, NaN read as 0.
fn probability(p: f64) -> f64 {
    if p.is_nan() {
        0.0
    } else {
        p.clamp(0.0, 1.0)
    }
}

impl BookStream {
    /// Queues the next work's books, the anthology that work completes if
    /// any, and an unrelated book if one follows.
    fn advance(&mut self) {
        let queued = self.ready.len();
        let books = family_books(self.works, &self.lexicon, &self.shape);
        if self.layout.random_bool(self.anthology_share) {
            self.group.push(books[0].clone());
        }
        self.bind_in_volume(&books[0]);
        self.works += 1;
        self.ready.extend(books);
        if self.group.len() == self.group_size {
            self.close_anthology();
        }
        self.close_full_volume();
        if self.layout.random_bool(self.unrelated_share) {
            let book = unrelated_book(self.unrelated, &self.lexicon, &self.shape);
            self.ready.push_back(book);
            self.unrelated += 1;
        }
        self.queued += self.ready.len() - queued;
    }

    /// Opens a volume if the volumes fall below their share of the books
    /// queued so far, then binds `original` in the next open volume in turn.
    fn bind_in_volume(&mut self, original: &SynthBook) {
        if self.volume_share <= 0.0 {
            return;
        }
        let behind = self.volumes as f64 <= self.volume_share * self.queued as f64;
        if behind && self.open_volumes.len() < MAX_OPEN_VOLUMES {
            let works = self
                .volume_layout
                .random_range(VOLUME_WORKS.0..=VOLUME_WORKS.1);
            self.open_volumes.push(OpenVolume {
                originals: Vec::with_capacity(works),
                works,
            });
            self.volumes += 1;
        }
        if !self.open_volumes.is_empty() {
            let turn = self.works % self.open_volumes.len();
            self.open_volumes[turn].originals.push(original.clone());
        }
    }

    /// Queues the first open volume that holds all its works, if any.
    fn close_full_volume(&mut self) {
        let Some(at) = self
            .open_volumes
            .iter()
            .position(|v| v.originals.len() >= v.works)
        else {
            return;
        };
        let volume = self.open_volumes.remove(at);
        let originals: Vec<&SynthBook> = volume.originals.iter().collect();
        let number = self.volumes_closed();
        let book = volume_book(number, &originals, &self.lexicon, &self.shape);
        self.ready.push_back(book);
    }

    /// Volumes queued so far.
    fn volumes_closed(&self) -> usize {
        self.volumes - self.open_volumes.len() - 1
    }

    fn close_anthology(&mut self) {
        let originals: Vec<&SynthBook> = self.group.iter().collect();
        let book = anthology_book(self.anthologies, &originals, &self.lexicon, &self.shape);
        self.ready.push_back(book);
        self.anthologies += 1;
        self.group.clear();
        self.group_size = self
            .layout
            .random_range(ANTHOLOGY_WORKS.0..=ANTHOLOGY_WORKS.1);
    }
}

impl Iterator for BookStream {
    type Item = SynthBook;

    fn next(&mut self) -> Option<SynthBook> {
        if self.remaining == 0 {
            return None;
        }
        while self.ready.is_empty() {
            self.advance();
        }
        self.remaining -= 1;
        self.ready.pop_front()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for BookStream {}

impl std::fmt::Debug for BookStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookStream")
            .field("remaining", &self.remaining)
            .field("works", &self.works)
            .field("anthologies", &self.anthologies)
            .field("unrelated", &self.unrelated)
            .finish_non_exhaustive()
    }
}

impl FusedIterator for BookStream {}

/// What a book is to the ground truth.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    /// The original or an edition of a work.
    Version(usize),
    /// An anthology of these works.
    Anthology(Vec<usize>),
    /// A volume of these works (key `vol…`).
    Volume(Vec<usize>),
    Unrelated,
}

/// The relations among generated books, kept by key without the texts: two
/// versions of a work are an [`SynthRelation::Edition`] pair, an anthology
/// and every version of a work it contains a [`SynthRelation::Contains`]
/// pair. Holds one small entry per recorded book.
#[derive(Debug, Clone, Default)]
pub struct GroundTruth {
    roles: HashMap<String, Role>,
    /// Recorded versions of each work.
    versions: HashMap<usize, u64>,
}

impl GroundTruth {
    /// An empty ground truth.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `book`'s key with its family or contained works; a key
    /// recorded again takes its new role.
    pub fn record(&mut self, book: &SynthBook) {
        let role = match (book.family, book.contains.is_empty()) {
            (Some(family), _) => Role::Version(family),
            (None, false) if book.key.starts_with("vol") => Role::Volume(book.contains.clone()),
            (None, false) => Role::Anthology(book.contains.clone()),
            (None, true) => Role::Unrelated,
        };
        if let Role::Version(family) = role {
            *self.versions.entry(family).or_default() += 1;
        }
        if let Some(Role::Version(family)) = self.roles.insert(book.key.clone(), role) {
            *self.versions.entry(family).or_default() -= 1;
        }
    }

    /// Books recorded.
    pub fn len(&self) -> usize {
        self.roles.len()
    }

    /// Whether no book was recorded.
    pub fn is_empty(&self) -> bool {
        self.roles.is_empty()
    }

    /// How the books keyed `a` and `b` are related, in either order; `None`
    /// for unrelated or unknown books.
    pub fn relation(&self, a: &str, b: &str) -> Option<SynthRelation> {
        match (self.roles.get(a)?, self.roles.get(b)?) {
            (Role::Version(x), Role::Version(y)) if x == y && a != b => {
                Some(SynthRelation::Edition)
            }
            (Role::Anthology(works) | Role::Volume(works), Role::Version(work))
            | (Role::Version(work), Role::Anthology(works) | Role::Volume(works))
                if works.contains(work) =>
            {
                Some(SynthRelation::Contains)
            }
            _ => None,
        }
    }

    /// Number of related pairs of the given kind among the recorded books.
    pub fn pairs(&self, relation: SynthRelation) -> u64 {
        match relation {
            SynthRelation::Edition => self
                .versions
                .values()
                .map(|n| n * n.saturating_sub(1) / 2)
                .sum(),
            SynthRelation::Contains => self
                .roles
                .values()
                .map(|role| match role {
                    Role::Anthology(works) | Role::Volume(works) => self.versions_in(works),
                    _ => 0,
                })
                .sum(),
        }
    }

    /// Whether the book keyed `key` was recorded as a volume.
    pub fn is_volume(&self, key: &str) -> bool {
        matches!(self.roles.get(key), Some(Role::Volume(_)))
    }

    /// Number of [`SynthRelation::Contains`] pairs whose container is a volume.
    pub fn volume_pairs(&self) -> u64 {
        self.roles
            .values()
            .map(|role| match role {
                Role::Volume(works) => self.versions_in(works),
                _ => 0,
            })
            .sum()
    }

    fn versions_in(&self, works: &[usize]) -> u64 {
        works.iter().map(|w| self.versions_of(*w)).sum()
    }

    fn versions_of(&self, work: usize) -> u64 {
        self.versions.get(&work).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, SynthOptions};

    fn small(books: usize, words: usize, seed: u64) -> StreamOptions {
        StreamOptions {
            vocab_size: 5_000,
            anthology_share: 0.5,
            ..StreamOptions::new(books, words, seed)
        }
    }

    fn word_count(text: &str) -> usize {
        let words = text.split(|c: char| !c.is_ascii_alphabetic());
        words.filter(|w| !w.is_empty()).count()
    }

    fn truth_of<'a>(books: impl IntoIterator<Item = &'a SynthBook>) -> GroundTruth {
        let mut truth = GroundTruth::new();
        books.into_iter().for_each(|book| truth.record(book));
        truth
    }

    #[test]
    fn same_options_yield_the_same_books_and_seeds_differ() {
        let first: Vec<SynthBook> = stream(&small(40, 400, 7)).collect();
        assert_eq!(first, stream(&small(40, 400, 7)).collect::<Vec<_>>());
        let other: Vec<SynthBook> = stream(&small(40, 400, 8)).collect();
        assert_ne!(first[0].text, other[0].text);
    }

    #[test]
    fn a_longer_stream_starts_with_the_shorter_one() {
        let short: Vec<SynthBook> = stream(&small(25, 300, 3)).collect();
        let long: Vec<SynthBook> = stream(&small(60, 300, 3)).take(25).collect();
        assert_eq!(short, long);
    }

    #[test]
    fn stream_yields_exactly_the_requested_books_with_distinct_keys() {
        for books in [0, 1, 7, 90] {
            let mut books_stream = stream(&small(books, 200, 1));
            assert_eq!(books_stream.len(), books);
            let keys: Vec<String> = books_stream.by_ref().map(|b| b.key).collect();
            assert_eq!(keys.len(), books);
            let distinct: std::collections::HashSet<&String> = keys.iter().collect();
            assert_eq!(distinct.len(), books);
            assert_eq!(books_stream.next(), None);
        }
    }

    #[test]
    fn anthologies_follow_their_works_and_buffers_stay_small() {
        let mut books = stream(&small(400, 100, 5));
        let mut last_version = HashMap::new();
        let mut anthologies = 0;
        let mut at = 0;
        while let Some(book) = books.next() {
            // One work's versions, an anthology and an unrelated book at most.
            assert!(books.ready.len() <= 5);
            assert!(books.group.len() < ANTHOLOGY_WORKS.1);
            for work in &book.contains {
                assert!(last_version[work] < at, "{}", book.key);
            }
            if let Some(work) = book.family {
                last_version.insert(work, at);
            }
            anthologies += usize::from(!book.contains.is_empty());
            at += 1;
        }
        assert!(anthologies >= 10, "{anthologies} anthologies");
    }

    #[test]
    fn original_lengths_are_near_the_target() {
        let target = 2_000;
        let lengths: Vec<usize> = stream(&small(60, target, 9))
            .filter(|b| !b.key.contains('-') && b.contains.is_empty())
            .map(|b| word_count(&b.text))
            .collect();
        assert!(lengths.len() >= 30);
        assert!(lengths.iter().all(|&n| (1_500..=2_500).contains(&n)));
        let mean = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
        assert!((mean / target as f64 - 1.0).abs() < 0.1, "mean {mean}");
    }

    #[test]
    fn ground_truth_agrees_with_a_generated_collection() {
        let options = SynthOptions {
            min_words: 100,
            max_words: 200,
            anthology_share: 0.5,
            ..SynthOptions::with_families(30, 2)
        };
        let collection = generate(&options);
        let truth = truth_of(&collection.books);
        assert_eq!(truth.len(), collection.books.len());
        for relation in [SynthRelation::Edition, SynthRelation::Contains] {
            let pairs = collection.pairs.iter().filter(|p| p.relation == relation);
            for pair in pairs.clone() {
                let (a, b) = (&collection.books[pair.a].key, &collection.books[pair.b].key);
                assert_eq!(truth.relation(a, b), Some(relation));
                assert_eq!(truth.relation(b, a), Some(relation));
            }
            assert_eq!(truth.pairs(relation), pairs.count() as u64);
        }
    }

    fn with_volumes(books: usize, share: f64, seed: u64) -> StreamOptions {
        StreamOptions {
            volume_share: share,
            ..small(books, 60, seed)
        }
    }

    #[test]
    fn volumes_bind_earlier_works_and_are_labelled_contains() {
        let books: Vec<SynthBook> = stream(&with_volumes(2_000, 0.01, 4)).collect();
        let mut seen = HashMap::new();
        let mut volumes = 0;
        let truth = truth_of(&books);
        for (at, book) in books.iter().enumerate() {
            if let Some(work) = book.family {
                seen.entry(work).or_insert(at);
                assert!(!truth.is_volume(&book.key));
            }
            if !book.key.starts_with("vol") {
                continue;
            }
            volumes += 1;
            assert!(truth.is_volume(&book.key));
            let works = book.contains.len();
            assert!(
                (VOLUME_WORKS.0..=VOLUME_WORKS.1).contains(&works),
                "{works}"
            );
            for work in &book.contains {
                assert!(seen[work] < at, "{} binds work {work}", book.key);
                let key = format!("w{work:05}");
                assert_eq!(
                    truth.relation(&book.key, &key),
                    Some(SynthRelation::Contains)
                );
            }
            let words = word_count(&book.text);
            assert!(words >= works * 45, "{} has {words} words", book.key);
        }
        // About 1% of 2,000 books.
        assert!((15..=25).contains(&volumes), "{volumes} volumes");
        let in_volumes = truth.volume_pairs();
        assert!(in_volumes >= volumes as u64 * 25, "{in_volumes} pairs");
        assert!(truth.pairs(SynthRelation::Contains) > in_volumes);
    }

    #[test]
    fn volumes_leave_the_other_books_as_they_were_and_memory_bounded() {
        let plain: Vec<SynthBook> = stream(&small(1_500, 60, 6)).collect();
        let mut books = stream(&with_volumes(1_500, 0.05, 6));
        let mut others = Vec::new();
        let mut volumes = 0;
        while let Some(book) = books.next() {
            assert!(books.open_volumes.len() <= MAX_OPEN_VOLUMES);
            if book.key.starts_with("vol") {
                volumes += 1;
            } else {
                others.push(book);
            }
        }
        assert_eq!(others[..], plain[..others.len()]);
        // Back to back: about one per 95 books.
        assert!((10..=20).contains(&volumes), "{volumes} volumes");
        let again: Vec<SynthBook> = stream(&with_volumes(1_500, 0.05, 6)).collect();
        assert_eq!(again.len(), 1_500);
        assert_eq!(
            again.iter().filter(|b| b.key.starts_with("vol")).count(),
            volumes
        );
    }

    #[test]
    fn recording_a_key_again_replaces_its_role() {
        let mut book = stream(&small(1, 50, 1)).next().unwrap();
        let mut truth = truth_of([&book]);
        book.key.push_str("-e9");
        truth.record(&book);
        assert_eq!(truth.pairs(SynthRelation::Edition), 1);
        book.family = None;
        truth.record(&book);
        assert_eq!(truth.pairs(SynthRelation::Edition), 0);
        assert_eq!(truth.len(), 2);
    }
}
