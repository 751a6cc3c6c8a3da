//! Book sketches: the small signatures approximate search looks books up by,
//! and the band keys they put into the index's band tables.
//!
//! A sketch holds three signatures of one book:
//!
//! - the **book min-hash**: K = 100 one-permutation min-hashes of the book's
//!   5-word shingles ([`crate::repr::minhash`]);
//! - **window min-hashes**: 34 min-hashes of each content-defined window of
//!   the shingle stream (800 shingles on average). A window ends after a shingle whose cut hash
//!   `mix64(fingerprint ^ WINDOW_CUT_SALT)` is 0 modulo the mean gap, once
//!   the window holds a quarter of [`SketchOptions::window_shingles`], or
//!   when it reaches four times that. The cut depends only on the text
//!   around it, so the same passage is cut the same way in an edition, an
//!   anthology or a book with a different pagination; a contained book's
//!   windows meet the container's windows with high Jaccard similarity even
//!   though the books' whole-book Jaccard is tiny;
//! - the **simhash-128** of character 4-grams ([`mod@crate::repr::simhash`]);
//! - **page min-hashes**, when the text has pages (at least one form feed):
//!   34 min-hashes of each page's 5-word shingles
//!   ([`crate::repr::minhash::page_signatures`]), in page order. They are
//!   stored, not banded: the relation classifier compares the pages of two
//!   books ([`crate::relate::pages`]).
//!
//! **Value keys.** Each position i of the book min-hash is also a key of
//! its own, `band_key(Value, i, [value])`: the min-hash value → books
//! postings of the Google Books paper (Algorithm 1). Two books share as
//! many value keys as their signatures agree on positions, K times the
//! estimate of their Jaccard similarity, so counting shared value keys
//! estimates the similarity of every candidate at once.
//!
//! **Band keys.** A min-hash signature becomes keys by its [`BandLayout`]:
//! `b` bands of `r` consecutive values (two books that agree on all `r`
//! values of any band share a key), or Manasse's super-shingles (`s`
//! groups of `k` values each hashed to a super-shingle, and one key per pair
//! of groups, so two books share a key when 2 of their `s` super-shingles
//! agree). A simhash becomes `d + 1` band keys of its bits, so fingerprints
//! within Hamming distance `d` share a key (pigeonhole); candidates from
//! them are then filtered by the exact distance. Keys are XXH3-64 of the
//! table, the band number and the values (see [`band_key`]), so keys of
//! different bands and tables never meet by construction.
//!
//! Everything here is part of the on-disk format: changing a rule changes
//! the keys stored in existing indexes.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::minhash::{mix64, Bins, MinHashOptions, MinHashSig, ShingleStream, MAX_HASHES};
#[cfg(doc)]
use super::minhash::{oph_signature, shingle_hashes, shingles_and_pages};
use super::simhash::{SimHash128, SimHashOptions, SimHasher};
use super::unique_words::WordHash;
use crate::error::{Error, Result};
use crate::text::{tokenise, Token, PAGE_BREAK};

/// Salt of the window cut hash (see the module docs).
pub const WINDOW_CUT_SALT: u64 = 0x5717_c0de_f00d_c0a7;
/// Default mean shingles per window.
pub const DEFAULT_WINDOW_SHINGLES: u32 = 800;
/// Default Hamming distance within which simhash candidates are found.
pub const DEFAULT_SIMHASH_DISTANCE: u32 = 7;

/// How a min-hash signature is cut into band keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub enum BandLayout {
    /// `bands` keys, each of `rows` consecutive signature values.
    Bands {
        /// Number of bands, b.
        bands: u16,
        /// Values per band, r.
        rows: u16,
    },
    /// Manasse's super-shingles: `groups` super-shingles of `rows` values,
    /// and one key for each pair of super-shingles (2-of-s matching).
    SuperShingles {
        /// Values per super-shingle, k.
        rows: u16,
        /// Super-shingles, s.
        groups: u16,
    },
}

impl BandLayout {
    /// Signature values the layout reads.
    pub fn values_used(&self) -> usize {
        match *self {
            BandLayout::Bands { bands, rows } => bands as usize * rows as usize,
            BandLayout::SuperShingles { rows, groups } => rows as usize * groups as usize,
        }
    }

    /// Keys the layout makes of one signature: one per band, or one per
    /// pair of super-shingles.
    pub fn keys_per_signature(&self) -> usize {
        match *self {
            BandLayout::Bands { bands, .. } => bands as usize,
            BandLayout::SuperShingles { groups, .. } => {
                groups as usize * (groups as usize).saturating_sub(1) / 2
            }
        }
    }

    /// Most windows the shingle stream of a text of `words` words is cut
    /// into, with windows of `mean_shingles` shingles on average: each but
    /// the last holds at least a quarter of the mean, and a text has at
    /// most one shingle a word (one when shorter than a shingle).
    pub fn max_windows(words: u64, mean_shingles: u32) -> u64 {
        words.div_ceil(u64::from((mean_shingles / 4).max(1))) + 1
    }

    /// Probability that two signatures at Jaccard similarity `j` share at
    /// least one key (assuming independent positions).
    pub fn collision_probability(&self, j: f64) -> f64 {
        match *self {
            BandLayout::Bands { bands, rows } => {
                1.0 - (1.0 - j.powi(rows as i32)).powi(bands as i32)
            }
            BandLayout::SuperShingles { rows, groups } => {
                let p = j.powi(rows as i32);
                let s = groups as i32;
                let none = (1.0 - p).powi(s);
                let one = s as f64 * p * (1.0 - p).powi(s - 1);
                1.0 - none - one
            }
        }
    }

    fn validate(&self, hashes: usize, what: &str) -> Result<()> {
        let (a, b) = match *self {
            BandLayout::Bands { bands, rows } => (bands, rows),
            BandLayout::SuperShingles { rows, groups } => (groups, rows),
        };
        let pairs_ok = !matches!(self, BandLayout::SuperShingles { groups, .. } if *groups < 2);
        if a == 0 || b == 0 || !pairs_ok || self.values_used() > hashes {
            return Err(Error::InvalidArgument(format!(
                "{what} band layout {self} needs {} values but signatures have {hashes} (and every count must be at least 1, groups at least 2)",
                self.values_used()
            )));
        }
        Ok(())
    }
}

impl std::fmt::Display for BandLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BandLayout::Bands { bands, rows } => write!(f, "{bands}x{rows}"),
            BandLayout::SuperShingles { rows, groups } => write!(f, "ss{groups}x{rows}"),
        }
    }
}

impl std::str::FromStr for BandLayout {
    type Err = Error;

    /// `BxR` (b bands of r rows) or `ssSxK` (s super-shingles of k rows).
    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            Error::InvalidArgument(format!(
                "band layout {s:?}: expected BxR (e.g. 20x5) or ssSxK (e.g. ss6x5)"
            ))
        };
        let (body, super_shingles) = match s.strip_prefix("ss") {
            Some(rest) => (rest, true),
            None => (s, false),
        };
        let (a, b) = body.split_once('x').ok_or_else(bad)?;
        let a: u16 = a.parse().map_err(|_| bad())?;
        let b: u16 = b.parse().map_err(|_| bad())?;
        Ok(if super_shingles {
            BandLayout::SuperShingles { rows: b, groups: a }
        } else {
            BandLayout::Bands { bands: a, rows: b }
        })
    }
}

/// The band tables of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Table {
    /// Band keys of book min-hash signatures.
    Book = 0,
    /// Band keys of window min-hash signatures.
    Window = 1,
    /// Band keys of simhash fingerprints.
    SimHash = 2,
    /// One key per position and value of the book min-hash signature.
    Value = 3,
}

impl Table {
    /// Every table, in storage order.
    pub const ALL: [Table; 4] = [Table::Book, Table::Window, Table::SimHash, Table::Value];

    /// The table's name in explanations.
    pub fn name(self) -> &'static str {
        match self {
            Table::Book => "book min-hash",
            Table::Window => "window min-hash",
            Table::SimHash => "simhash",
            Table::Value => "min-hash value",
        }
    }
}

/// Sketch parameters, fixed when an index is created and stored in its catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SketchOptions {
    /// Words per shingle and the shingle/densification seed, shared by book
    /// and window signatures; `num_hashes` is K of the book signature (100).
    pub book: MinHashOptions,
    /// Min-hashes per window signature and per page signature (34).
    pub window_hashes: usize,
    /// Mean shingles per window (800).
    pub window_shingles: u32,
    /// Band layout of book signatures.
    pub book_layout: BandLayout,
    /// Band layout of window signatures.
    pub window_layout: BandLayout,
    /// Simhash parameters.
    pub simhash: SimHashOptions,
    /// Hamming distance within which simhash bands guarantee a candidate (7).
    pub simhash_distance: u32,
}

impl Default for SketchOptions {
    fn default() -> Self {
        SketchOptions {
            book: MinHashOptions::default(),
            window_hashes: MinHashOptions::pages().num_hashes,
            window_shingles: DEFAULT_WINDOW_SHINGLES,
            book_layout: BandLayout::Bands { bands: 20, rows: 5 },
            window_layout: BandLayout::Bands { bands: 17, rows: 2 },
            simhash: SimHashOptions::default(),
            simhash_distance: DEFAULT_SIMHASH_DISTANCE,
        }
    }
}

impl SketchOptions {
    /// Checks every field.
    pub fn validate(&self) -> Result<()> {
        self.book.validate()?;
        self.window_options().validate()?;
        self.simhash.validate()?;
        self.book_layout.validate(self.book.num_hashes, "book")?;
        self.window_layout.validate(self.window_hashes, "window")?;
        if !(16..=1 << 20).contains(&self.window_shingles) {
            return Err(Error::InvalidArgument(format!(
                "window_shingles {} is outside 16..=1048576",
                self.window_shingles
            )));
        }
        if self.simhash_distance > 63 {
            return Err(Error::InvalidArgument(format!(
                "simhash distance {} is above 63",
                self.simhash_distance
            )));
        }
        Ok(())
    }

    /// Min-hash options of window signatures.
    pub fn window_options(&self) -> MinHashOptions {
        MinHashOptions {
            num_hashes: self.window_hashes,
            ..self.book
        }
    }

    /// Width in bits of the simhash bands: `floor(128 / (d + 1))`.
    pub fn simhash_band_bits(&self) -> u32 {
        128 / (self.simhash_distance + 1)
    }
}

/// The signatures of one book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookSketch {
    /// Min-hash of the whole book.
    pub book: MinHashSig,
    /// Min-hash of each content-defined window, in text order.
    pub windows: Vec<MinHashSig>,
    /// Simhash-128 of character n-grams.
    pub simhash: SimHash128,
    /// Min-hash of each page, in page order; empty when the text has no
    /// page break.
    pub pages: Vec<MinHashSig>,
}

impl BookSketch {
    /// The sketch of normalised-on-the-fly `text`: the book and window
    /// min-hashes of its shingle stream ([`shingle_hashes`]) cut into
    /// [`content_windows`], its page signatures ([`shingles_and_pages`])
    /// when it has a page break, and its simhash. The shingles are taken
    /// one at a time, never held all at once.
    pub fn compute(text: &str, options: &SketchOptions) -> BookSketch {
        let mut sketcher = Sketcher::new(text.contains(PAGE_BREAK), options);
        tokenise(text, |token| sketcher.token(token));
        sketcher.finish()
    }

    /// The band keys of `table`, sorted and without duplicates. A text
    /// without words has no min-hash keys.
    pub fn keys(&self, table: Table, options: &SketchOptions) -> Vec<u64> {
        let mut keys = Vec::new();
        match table {
            Table::Book => signature_keys(&self.book, table, options.book_layout, &mut keys),
            Table::Window => {
                for window in &self.windows {
                    signature_keys(window, table, options.window_layout, &mut keys);
                }
            }
            Table::SimHash => {
                for (band, bits) in self.simhash.bands(options.simhash_band_bits()) {
                    keys.push(band_key(table, band as u16, &[bits]));
                }
            }
            Table::Value => keys = value_keys(&self.book),
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

/// A [`BookSketch`] made from the tokens of a text given one at a time, in
/// one pass with whatever else reads them: the book and window min-hashes,
/// the page signatures (when the text has pages) and the simhash.
pub(crate) struct Sketcher {
    seed: u64,
    book: Bins,
    windows: WindowSignatures,
    shingles: ShingleStream,
    simhash: SimHasher,
}

impl Sketcher {
    /// A sketcher with `options` for a text that has a page break or not.
    pub(crate) fn new(paged: bool, options: &SketchOptions) -> Self {
        let seed = options.book.seed;
        Sketcher {
            seed,
            book: Bins::new(options.book.num_hashes.clamp(1, MAX_HASHES)),
            windows: WindowSignatures::new(options.window_shingles, options.window_hashes, seed),
            shingles: ShingleStream::new(&options.book, paged.then_some(options.window_hashes)),
            simhash: SimHasher::new(&options.simhash),
        }
    }

    /// Takes the text's next token.
    #[inline]
    pub(crate) fn token(&mut self, token: Token<'_>) {
        self.hashed_token(token, None);
    }

    /// Takes the text's next token, a word with its hash when the caller
    /// computed one (it is used when its seed is the sketch's).
    #[inline]
    pub(crate) fn hashed_token(&mut self, token: Token<'_>, hash: Option<WordHash>) {
        match token {
            Token::Word(word) => {
                if let Some(hash) = self.shingles.word(word, hash) {
                    self.shingle(hash);
                }
                self.simhash.word(word);
            }
            Token::PageBreak => self.shingles.page_break(),
        }
    }

    #[inline]
    fn shingle(&mut self, hash: u64) {
        self.book.insert(hash);
        self.windows.push(hash);
    }

    /// The sketch of the tokens taken.
    pub(crate) fn finish(self) -> BookSketch {
        let Sketcher {
            seed,
            mut book,
            mut windows,
            shingles,
            simhash,
        } = self;
        let (last, pages) = shingles.finish();
        if let Some(hash) = last {
            book.insert(hash);
            windows.push(hash);
        }
        BookSketch {
            book: book.finish(seed),
            windows: windows.finish(),
            simhash: simhash.finish(),
            pages,
        }
    }
}

/// The value keys of a book min-hash signature, sorted (see the module
/// docs): one per position, none for an empty signature.
pub fn value_keys(sig: &MinHashSig) -> Vec<u64> {
    let mut keys = Vec::new();
    let layout = BandLayout::Bands {
        bands: sig.0.len() as u16,
        rows: 1,
    };
    signature_keys(sig, Table::Value, layout, &mut keys);
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The content-defined windows of a shingle stream (see the module docs).
pub fn content_windows(shingles: &[u64], mean: u32) -> impl Iterator<Item = &[u64]> {
    let min = (mean / 4).max(1) as usize;
    let gap = u64::from(mean - mean / 4).max(1);
    let max = 4 * mean as usize;
    let mut rest = shingles;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = rest
            .iter()
            .enumerate()
            .skip(min - 1)
            .find(|&(i, &h)| i + 1 >= max || mix64(h ^ WINDOW_CUT_SALT).is_multiple_of(gap))
            .map_or(rest.len(), |(i, _)| i + 1);
        let (window, tail) = rest.split_at(cut);
        rest = tail;
        Some(window)
    })
}

/// Divisibility by a fixed divisor d without a division (Granlund and
/// Montgomery): with d = 2^k · m, m odd, x is a multiple of d when its low
/// k bits are 0 and (x >> k) · m⁻¹ mod 2^64 is at most (2^64 − 1) / m.
#[derive(Debug, Clone, Copy)]
struct Divisor {
    shift: u32,
    inverse: u64,
    limit: u64,
}

impl Divisor {
    /// The divisor `d`, at least 1.
    fn new(d: u64) -> Self {
        let d = d.max(1);
        let shift = d.trailing_zeros();
        let odd = d >> shift;
        // Newton's iteration: each step doubles the correct low bits (3 to start).
        let mut inverse = odd;
        for _ in 0..5 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inverse)));
        }
        Divisor {
            shift,
            inverse,
            limit: u64::MAX / odd,
        }
    }

    /// Whether `x` is a multiple of the divisor.
    #[inline]
    fn divides(&self, x: u64) -> bool {
        x.trailing_zeros() >= self.shift
            && (x >> self.shift).wrapping_mul(self.inverse) <= self.limit
    }
}

/// The window min-hashes of a shingle stream taken one shingle at a time:
/// the windows of [`content_windows`], each signed as [`oph_signature`]
/// signs it.
struct WindowSignatures {
    /// Least and most shingles per window, and the cut hash's divisor.
    min: usize,
    max: usize,
    gap: Divisor,
    k: usize,
    seed: u64,
    bins: Bins,
    /// Shingles in the current window.
    len: usize,
    signatures: Vec<MinHashSig>,
}

impl WindowSignatures {
    fn new(mean: u32, k: usize, seed: u64) -> Self {
        let k = k.clamp(1, MAX_HASHES);
        WindowSignatures {
            min: (mean / 4).max(1) as usize,
            max: 4 * mean as usize,
            gap: Divisor::new(u64::from(mean - mean / 4).max(1)),
            k,
            seed,
            bins: Bins::new(k),
            len: 0,
            signatures: Vec::new(),
        }
    }

    #[inline]
    fn push(&mut self, shingle: u64) {
        self.bins.insert(shingle);
        self.len += 1;
        if self.len >= self.min
            && (self.len >= self.max || self.gap.divides(mix64(shingle ^ WINDOW_CUT_SALT)))
        {
            let bins = std::mem::replace(&mut self.bins, Bins::new(self.k));
            self.signatures.push(bins.finish(self.seed));
            self.len = 0;
        }
    }

    fn finish(mut self) -> Vec<MinHashSig> {
        if self.len > 0 {
            self.signatures.push(self.bins.finish(self.seed));
        }
        self.signatures
    }
}

/// The key of one band: XXH3-64, seeded with the table number, of the band
/// number (u16 LE) followed by the band's values (u64 LE each).
pub fn band_key(table: Table, band: u16, values: &[u64]) -> u64 {
    let mut bytes = Vec::with_capacity(2 + 8 * values.len());
    bytes.extend_from_slice(&band.to_le_bytes());
    for value in values {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    xxh3_64_with_seed(&bytes, table as u64)
}

fn signature_keys(sig: &MinHashSig, table: Table, layout: BandLayout, keys: &mut Vec<u64>) {
    if sig.is_empty() || sig.0.len() < layout.values_used() {
        return;
    }
    match layout {
        BandLayout::Bands { bands, rows } => {
            for (band, values) in sig
                .0
                .chunks_exact(rows as usize)
                .take(bands as usize)
                .enumerate()
            {
                keys.push(band_key(table, band as u16, values));
            }
        }
        BandLayout::SuperShingles { rows, groups } => {
            let supers: Vec<u64> = sig
                .0
                .chunks_exact(rows as usize)
                .take(groups as usize)
                .enumerate()
                .map(|(group, values)| band_key(table, group as u16, values))
                .collect();
            for (i, &a) in supers.iter().enumerate() {
                for (j, &b) in supers.iter().enumerate().skip(i + 1) {
                    let pair = (i * supers.len() + j) as u16;
                    keys.push(band_key(table, pair, &[a, b]));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repr::simhash::simhash;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;
    use stemmata_synth::{ocr_noise, work_text};

    fn shared_keys(a: &[u64], b: &[u64]) -> usize {
        a.iter().filter(|k| b.binary_search(k).is_ok()).count()
    }

    /// The sketch from the whole shingle stream at once.
    fn compute_from_all_shingles(text: &str, options: &SketchOptions) -> BookSketch {
        use crate::repr::minhash::{oph_signature, shingle_hashes, shingles_and_pages};
        let (shingles, pages) = if text.contains(PAGE_BREAK) {
            shingles_and_pages(text, &options.book, options.window_hashes)
        } else {
            (shingle_hashes(text, &options.book), Vec::new())
        };
        let seed = options.book.seed;
        let windows = content_windows(&shingles, options.window_shingles)
            .map(|window| oph_signature(window, options.window_hashes, seed))
            .collect();
        BookSketch {
            book: oph_signature(&shingles, options.book.num_hashes, seed),
            windows,
            simhash: simhash(text, &options.simhash),
            pages,
        }
    }

    #[test]
    fn streamed_shingles_sketch_as_the_whole_stream() {
        let paged = work_text(30_000, 5).replace(". ", ".\x0c");
        let texts = [
            String::new(),
            "one".to_string(),
            "a b\x0c\x0cc d e f g\x0c".to_string(),
            work_text(200, 1),
            work_text(20_000, 2),
            paged,
        ];
        for window_shingles in [16, 100, 800] {
            let options = SketchOptions {
                window_shingles,
                ..SketchOptions::default()
            };
            for text in &texts {
                let expected = compute_from_all_shingles(text, &options);
                assert_eq!(BookSketch::compute(text, &options), expected);
                // Fed by the unique-word extraction's tokenising pass, as
                // the loader does: its word hashes are taken with the
                // sketch's seed, and left with another.
                for hash_seed in [options.book.seed, options.book.seed ^ 1] {
                    let mut sketcher = Sketcher::new(text.contains(PAGE_BREAK), &options);
                    let extract_options = crate::repr::ExtractOptions {
                        hash_seed,
                        ..crate::repr::ExtractOptions::default()
                    };
                    let (features, _) = crate::repr::unique_words::extract_with(
                        text,
                        &extract_options,
                        None,
                        |token, hash| sketcher.hashed_token(token, hash),
                    );
                    assert_eq!(sketcher.finish(), expected, "extraction seed {hash_seed}");
                    assert_eq!(
                        features.sequence,
                        crate::repr::unique_words::extract(text, &extract_options).sequence
                    );
                }
            }
        }
        let sketch = BookSketch::compute(&texts[5], &SketchOptions::default());
        assert!(sketch.pages.len() > 100 && sketch.windows.len() > 10);
    }

    proptest::proptest! {
        #[test]
        fn divisor_agrees_with_the_remainder(d in 1u64.., x: u64, small in 0u64..5000, y in 1u64..2000) {
            for (d, x) in [(d, x), (y, small), (y, y * small), (d, d.wrapping_mul(small))] {
                proptest::prop_assert_eq!(Divisor::new(d).divides(x), x.is_multiple_of(d), "{} {}", d, x);
            }
        }
    }

    #[test]
    fn windows_cover_the_stream_and_respect_their_bounds() {
        let shingles: Vec<u64> = (0..20_000u64).map(mix64).collect();
        let windows: Vec<&[u64]> = content_windows(&shingles, 400).collect();
        assert_eq!(
            windows.iter().map(|w| w.len()).sum::<usize>(),
            shingles.len()
        );
        let (last, full) = windows.split_last().unwrap();
        assert!(full.iter().all(|w| (100..=1600).contains(&w.len())));
        assert!(last.len() <= 1600);
        let mean = shingles.len() as f64 / windows.len() as f64;
        assert!((250.0..600.0).contains(&mean), "mean window {mean}");
    }

    #[test]
    fn a_passage_is_cut_the_same_way_wherever_it_stands() {
        let passage: Vec<u64> = (0..8_000u64).map(mix64).collect();
        let mut shifted: Vec<u64> = (100_000..100_777u64).map(mix64).collect();
        shifted.extend(&passage);
        let alone: Vec<&[u64]> = content_windows(&passage, 400).collect();
        let inside: Vec<&[u64]> = content_windows(&shifted, 400).collect();
        let same = alone.iter().filter(|w| inside.contains(w)).count();
        assert!(same + 2 >= alone.len(), "{same} of {} windows", alone.len());
    }

    #[test]
    fn a_contained_work_shares_window_keys_but_not_book_keys() {
        let options = SketchOptions::default();
        let work = work_text(6_000, 1);
        let anthology = format!(
            "{}\n{}\n{}",
            work_text(15_000, 2),
            work,
            work_text(15_000, 3)
        );
        let mut rng = SmallRng::seed_from_u64(7);
        let noisy_work = ocr_noise(&work, 0.02, &mut rng);
        let a = BookSketch::compute(&anthology, &options);
        let w = BookSketch::compute(&noisy_work, &options);
        let book_shared = shared_keys(
            &a.keys(Table::Book, &options),
            &w.keys(Table::Book, &options),
        );
        let window_shared = shared_keys(
            &a.keys(Table::Window, &options),
            &w.keys(Table::Window, &options),
        );
        assert_eq!(book_shared, 0);
        assert!(window_shared >= 3, "{window_shared} shared window keys");
        let unrelated = BookSketch::compute(&work_text(6_000, 9), &options);
        let stray = shared_keys(
            &unrelated.keys(Table::Window, &options),
            &w.keys(Table::Window, &options),
        );
        assert_eq!(stray, 0);
    }

    #[test]
    fn near_copies_share_simhash_and_book_keys() {
        let options = SketchOptions::default();
        let text = work_text(10_000, 4);
        let mut rng = SmallRng::seed_from_u64(3);
        let copy = ocr_noise(&text, 0.002, &mut rng);
        let (a, b) = (
            BookSketch::compute(&text, &options),
            BookSketch::compute(&copy, &options),
        );
        assert!(
            shared_keys(
                &a.keys(Table::Book, &options),
                &b.keys(Table::Book, &options)
            ) > 0
        );
        assert!(a.simhash.hamming(&b.simhash) <= options.simhash_distance);
        assert!(
            shared_keys(
                &a.keys(Table::SimHash, &options),
                &b.keys(Table::SimHash, &options)
            ) > 0
        );
    }

    #[test]
    fn super_shingles_need_two_matching_groups() {
        let layout = BandLayout::SuperShingles { rows: 2, groups: 4 };
        let sig = MinHashSig((0..8).collect());
        let mut one_group = sig.clone();
        one_group.0[2..].iter_mut().for_each(|v| *v += 100);
        let mut two_groups = sig.clone();
        two_groups.0[4..].iter_mut().for_each(|v| *v += 100);
        let keys = |s: &MinHashSig| {
            let mut k = Vec::new();
            signature_keys(s, Table::Book, layout, &mut k);
            k.sort_unstable();
            k
        };
        assert_eq!(keys(&sig).len(), 6);
        assert_eq!(shared_keys(&keys(&sig), &keys(&one_group)), 0);
        assert_eq!(shared_keys(&keys(&sig), &keys(&two_groups)), 1);
    }

    #[test]
    fn layouts_parse_print_and_validate() {
        for text in ["20x5", "ss6x5", "100x1"] {
            let layout: BandLayout = text.parse().unwrap();
            assert_eq!(layout.to_string(), text);
        }
        assert!("20y5".parse::<BandLayout>().is_err());
        let too_wide = SketchOptions {
            book_layout: BandLayout::Bands { bands: 30, rows: 4 },
            ..SketchOptions::default()
        };
        assert!(too_wide.validate().is_err());
        assert!(SketchOptions::default().validate().is_ok());
        let p = BandLayout::Bands { bands: 20, rows: 5 };
        assert!(p.collision_probability(0.8) > 0.99 && p.collision_probability(0.2) < 0.01);
    }
}
