//! Min-hash signatures of word shingles (Broder; Manasse; Google Books):
//! `num_hashes` 64-bit values per book (100 by default) or per page (34),
//! whose share of equal positions estimates the Jaccard similarity of two
//! books' shingle sets.
//!
//! **Shingles.** A shingle is `shingle_len` consecutive normalised words (5 by
//! default) as the tokeniser ([`crate::text::tokenise`]) emits them. Its
//! 64-bit fingerprint is made from its words by the index's
//! [`ShingleHash`] (see [`ShingleHash::fingerprint`]):
//!
//! - [`ShingleHash::WordHashes`] (indexes created from format 17 on): each
//!   word's XXH3-64 with [`MinHashOptions::seed`], `h1 … hn`, combined as
//!   `mix64(h1·B^(n−1) + h2·B^(n−2) + … + hn)` modulo 2^64, B being
//!   [`SHINGLE_BASE`]. A word is hashed once, not once for each of the
//!   shingles it is in, and the sum slides along the text with one multiply
//!   and one subtraction a word;
//! - [`ShingleHash::JoinedWords`] (indexes created by formats 2 to 16):
//!   XXH3-64 with the seed of the words joined by single spaces (U+0020),
//!   in UTF-8: `xxh3_64_with_seed(b"w1 w2 w3 w4 w5", seed)`.
//!
//! For the book signature page breaks do not break shingles (the book is one run
//! of words); for page signatures each page is its own run. A run with fewer
//! than `shingle_len` words (but at least one) is one shingle made of all its
//! words; a run without words has no shingle.
//!
//! **One-permutation hashing** (Li, Owen and Zhang 2012; "Ping's bins" in
//! Manasse's notes). The 64-bit fingerprint space is cut into K equal,
//! contiguous ranges; bin i holds the fingerprints `h` with
//! `floor(h · K / 2^64) = i` (the top bits of `h` when K is a power of two),
//! and position i of the signature is the least fingerprint that fell into
//! bin i. One hash evaluation per shingle replaces K: XXH3 is the random
//! permutation, and the bin is a slice of it. The values stored are shingle
//! fingerprints themselves, and values from different bins lie in disjoint
//! ranges, so equal values at a position always mean the same shingle (up to
//! 64-bit collisions), however they got there.
//!
//! **Densification** (Shrivastava 2017, "optimal densification"). Books have
//! tens of thousands of shingles, so with K = 100 almost no bin is empty, but
//! pages (about 300 shingles for 34 bins) and short texts can leave some
//! empty. An empty bin i borrows the value of the first non-empty bin along
//! its own probe sequence `p(i, 0), p(i, 1), ...`, where
//! `p(i, a) = floor(mix64(seed ^ (i << 32 | a)) · K / 2^64)` and `mix64` is
//! the SplitMix64 finaliser ([`mix64`]). The sequence depends only on
//! (seed, K, i), never on the set, so two sets whose bin i are both empty
//! probe the same bins and collide exactly when the first bin that is
//! non-empty in their union collides: each position stays an unbiased
//! Jaccard estimate. Unlike rotation densification (borrowing from the next
//! non-empty bin to the right), neighbouring empty bins borrow from
//! independent random bins rather than the same one, which keeps the
//! variance close to that of K independent min-hashes on sparse sets. After
//! [`MAX_RANDOM_PROBES`] random probes without a hit (only when few bins are
//! filled) the sequence continues with bins i+1, i+2, ... (mod K), which is
//! still a fixed sequence and always terminates.
//!
//! **Empty texts.** A text (or page) without words has the signature whose
//! every position is `u64::MAX` ([`MinHashSig::empty`]); two such signatures
//! have similarity 0, not 1: "no evidence" must never look like a duplicate.
//! A fingerprint equal to `u64::MAX` counts as no value (probability 2^-64
//! per shingle).
//!
//! Everything here is part of the on-disk format once signatures are stored:
//! the shingle text, the hash and its seed, the bin rule, the probe sequence.

use crate::error::{Error, Result};
use crate::repr::unique_words::WordHash;
use crate::repr::DEFAULT_HASH_SEED;
use crate::text::{tokenise, Token};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Default words per shingle (Google Books: 5-word shingles).
pub const DEFAULT_SHINGLE_LEN: usize = 5;
/// Largest valid shingle length.
pub const MAX_SHINGLE_LEN: usize = 16;
/// Default min-hashes per book signature (Google Books: 100).
pub const DEFAULT_BOOK_HASHES: usize = 100;
/// Default min-hashes per page signature (Google Books: 34).
pub const DEFAULT_PAGE_HASHES: usize = 34;
/// Largest valid number of min-hashes per signature.
pub const MAX_HASHES: usize = 1024;
/// Random probes an empty bin tries before falling back to scanning the bins
/// to its right (see the module docs).
pub const MAX_RANDOM_PROBES: u32 = 64;

/// Parameters of min-hash signatures. Part of the on-disk format once
/// signatures are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinHashOptions {
    /// Words per shingle. Default [`DEFAULT_SHINGLE_LEN`] (5); valid
    /// 1..=[`MAX_SHINGLE_LEN`] (16). The signature functions clamp values
    /// outside that range; [`MinHashOptions::validate`] rejects them.
    pub shingle_len: usize,
    /// K, the number of min-hashes (bins) per signature. Default
    /// [`DEFAULT_BOOK_HASHES`] (100) for books, [`DEFAULT_PAGE_HASHES`] (34)
    /// from [`MinHashOptions::pages`]; valid 1..=[`MAX_HASHES`] (1024),
    /// clamped like `shingle_len`.
    pub num_hashes: usize,
    /// Seed of the shingle hash and of the densification probes. Default
    /// [`DEFAULT_HASH_SEED`]; any value is valid.
    pub seed: u64,
    /// How a shingle's words become its fingerprint. Default
    /// [`ShingleHash::WordHashes`]; an index keeps the one it was created
    /// with. Options serialised before it existed (features files of
    /// formats before 17) name none, and were made by
    /// [`ShingleHash::JoinedWords`]: read without it, that is what they say.
    #[serde(default = "ShingleHash::joined_words")]
    pub shingle_hash: ShingleHash,
}

/// How a shingle's words become its 64-bit fingerprint (see the module
/// docs). Part of the on-disk format: an index's stored signatures and
/// band keys are made by the one its sketch options name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShingleHash {
    /// XXH3-64 of the words joined by single spaces: every word hashed once
    /// for each shingle it is in (indexes created by formats 2 to 16).
    JoinedWords,
    /// Each word hashed once, the shingle's hashes summed by powers of
    /// [`SHINGLE_BASE`] and mixed by [`mix64`] (format 17 on).
    #[default]
    WordHashes,
}

/// The base of the polynomial a [`ShingleHash::WordHashes`] fingerprint
/// sums its words' hashes by: odd (so the sum can slide), with well-spread
/// bits.
pub const SHINGLE_BASE: u64 = 0x9e37_79b9_7f4a_7c15;

impl ShingleHash {
    /// [`ShingleHash::JoinedWords`], what options that name no shingle hash
    /// were made by.
    fn joined_words() -> ShingleHash {
        ShingleHash::JoinedWords
    }

    /// The fingerprint of one shingle given as its words, with `seed`: the
    /// reference that [`book_signature`] and [`page_signatures`] compute
    /// one word at a time.
    pub fn fingerprint<S: AsRef<str>>(self, words: &[S], seed: u64) -> u64 {
        match self {
            ShingleHash::JoinedWords => {
                let mut joined = String::new();
                for (i, word) in words.iter().enumerate() {
                    if i > 0 {
                        joined.push(' ');
                    }
                    joined.push_str(word.as_ref());
                }
                xxh3_64_with_seed(joined.as_bytes(), seed)
            }
            ShingleHash::WordHashes => mix64(words.iter().fold(0u64, |sum, word| {
                sum.wrapping_mul(SHINGLE_BASE)
                    .wrapping_add(xxh3_64_with_seed(word.as_ref().as_bytes(), seed))
            })),
        }
    }
}

impl Default for MinHashOptions {
    /// Book signatures: 5-word shingles, 100 min-hashes, [`DEFAULT_HASH_SEED`].
    fn default() -> Self {
        MinHashOptions {
            shingle_len: DEFAULT_SHINGLE_LEN,
            num_hashes: DEFAULT_BOOK_HASHES,
            seed: DEFAULT_HASH_SEED,
            shingle_hash: ShingleHash::default(),
        }
    }
}

impl MinHashOptions {
    /// Page signatures: 5-word shingles, 34 min-hashes, [`DEFAULT_HASH_SEED`].
    pub fn pages() -> Self {
        MinHashOptions {
            num_hashes: DEFAULT_PAGE_HASHES,
            ..MinHashOptions::default()
        }
    }

    /// Checks that every field is in its valid range.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_SHINGLE_LEN).contains(&self.shingle_len) {
            return Err(Error::InvalidArgument(format!(
                "min-hash shingle_len {} is outside 1..={MAX_SHINGLE_LEN}",
                self.shingle_len
            )));
        }
        if !(1..=MAX_HASHES).contains(&self.num_hashes) {
            return Err(Error::InvalidArgument(format!(
                "min-hash num_hashes {} is outside 1..={MAX_HASHES}",
                self.num_hashes
            )));
        }
        Ok(())
    }

    fn shingle_len(&self) -> usize {
        self.shingle_len.clamp(1, MAX_SHINGLE_LEN)
    }

    fn num_hashes(&self) -> usize {
        self.num_hashes.clamp(1, MAX_HASHES)
    }
}

/// A min-hash signature: K 64-bit values, each a shingle fingerprint (see
/// the module docs). `u64::MAX` everywhere marks a text without words.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct MinHashSig(pub Vec<u64>);

impl MinHashSig {
    /// The signature of a text without words: `k` positions of `u64::MAX`.
    pub fn empty(k: usize) -> Self {
        MinHashSig(vec![u64::MAX; k])
    }

    /// True for the signature of a text without words (every position is
    /// `u64::MAX`), and for a signature without positions.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&v| v == u64::MAX)
    }

    /// The Jaccard estimate: the share of positions where both signatures
    /// hold the same value, in 0.0..=1.0. It is 0.0 when either signature
    /// [is empty](MinHashSig::is_empty) (two empty texts are not similar).
    /// Signatures of different lengths (different K) are not comparable;
    /// positions past the shorter one count as unequal (equal positions
    /// divided by the longer length), so the result is still in range.
    pub fn similarity(&self, other: &MinHashSig) -> f64 {
        if self.is_empty() || other.is_empty() {
            return 0.0;
        }
        let equal = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        equal as f64 / self.0.len().max(other.0.len()) as f64
    }
}

/// The SplitMix64 finaliser, a bijection on 64-bit values: add
/// `0x9e3779b97f4a7c15`, then `z ^= z >> 30; z *= 0xbf58476d1ce4e5b9;
/// z ^= z >> 27; z *= 0x94d049bb133111eb; z ^= z >> 31` (wrapping).
/// Used for the densification probes and the classic signature's remixes.
#[inline]
pub fn mix64(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `floor(hash · k / 2^64)`: maps a uniform 64-bit value onto 0..k by its top
/// bits, cutting the hash space into `k` equal contiguous ranges.
#[inline]
fn range_of(hash: u64, k: usize) -> usize {
    ((hash as u128 * k as u128) >> 64) as usize
}

/// Sliding window over a run of words, giving each shingle's fingerprint
/// as its last word comes: the ring of what it keeps of each word, and
/// the [`Window`] of its shingle hash.
struct Shingler {
    len: usize,
    seed: u64,
    /// Per word of the window, a ring from `first`: its byte length (joined
    /// words) or its hash (word hashes).
    ring: [u64; MAX_SHINGLE_LEN],
    first: usize,
    words: usize,
    window: Window,
    emitted: bool,
}

/// What a [`Shingler`] keeps of its window's words, by shingle hash.
enum Window {
    /// Joined words: the window's text, the end of `text` from `start`; the
    /// bytes before it are let go of once they fill [`SHINGLER_SLACK`], not
    /// at every word.
    Joined { text: String, start: usize },
    /// Word hashes: the window's hashes summed by powers of
    /// [`SHINGLE_BASE`], and the power its first word has when it is full.
    Hashes { sum: u64, top: u64 },
}

/// Bytes of words gone from a [`Shingler`]'s window kept before they are
/// dropped.
const SHINGLER_SLACK: usize = 4096;

impl Shingler {
    fn new(options: &MinHashOptions) -> Self {
        let len = options.shingle_len();
        let window = match options.shingle_hash {
            ShingleHash::JoinedWords => Window::Joined {
                text: String::with_capacity(len * 16 + SHINGLER_SLACK),
                start: 0,
            },
            ShingleHash::WordHashes => Window::Hashes {
                sum: 0,
                top: (1..len).fold(1, |power, _| power.wrapping_mul(SHINGLE_BASE)),
            },
        };
        Shingler {
            len,
            seed: options.seed,
            ring: [0; MAX_SHINGLE_LEN],
            first: 0,
            words: 0,
            window,
            emitted: false,
        }
    }

    /// Adds a word, with its XXH3-64 by the shingler's seed when the
    /// caller has it; returns the fingerprint of the shingle it completes.
    #[inline]
    fn push(&mut self, word: &str, known: Option<u64>) -> Option<u64> {
        if self.words == self.len {
            let oldest = self.ring[self.first];
            self.first = if self.first + 1 == self.len {
                0
            } else {
                self.first + 1
            };
            self.words -= 1;
            self.window.forget(oldest);
        }
        let last = self.first + self.words;
        self.ring[if last >= self.len {
            last - self.len
        } else {
            last
        }] = self.window.add(word, self.seed, known);
        self.words += 1;
        if self.words == self.len {
            self.emitted = true;
            Some(self.window.fingerprint(self.seed))
        } else {
            None
        }
    }

    /// Ends the run: returns the whole-run shingle of a run shorter than the
    /// shingle length, and resets the window for the next run.
    fn finish(&mut self) -> Option<u64> {
        let short = (!self.emitted && self.words > 0).then(|| self.window.fingerprint(self.seed));
        self.window.clear();
        self.first = 0;
        self.words = 0;
        self.emitted = false;
        short
    }
}

impl Window {
    /// Takes `word` into the window (`known`: its XXH3-64 by `seed`, when
    /// already computed); returns what the ring keeps of it.
    #[inline]
    fn add(&mut self, word: &str, seed: u64, known: Option<u64>) -> u64 {
        match self {
            Window::Joined { text, start } => {
                if text.len() > *start {
                    text.push(' ');
                }
                text.push_str(word);
                word.len() as u64
            }
            Window::Hashes { sum, .. } => {
                let hash = known.unwrap_or_else(|| xxh3_64_with_seed(word.as_bytes(), seed));
                *sum = sum.wrapping_mul(SHINGLE_BASE).wrapping_add(hash);
                hash
            }
        }
    }

    /// Lets the window's first word go (`kept`: what the ring kept of it).
    #[inline]
    fn forget(&mut self, kept: u64) {
        match self {
            Window::Joined { text, start } => {
                // The word and the space after it (none when len is 1).
                let bytes = kept as usize + 1;
                *start += bytes.min(text.len() - *start);
                if *start >= SHINGLER_SLACK {
                    text.drain(..*start);
                    *start = 0;
                }
            }
            Window::Hashes { sum, top } => *sum = sum.wrapping_sub(kept.wrapping_mul(*top)),
        }
    }

    /// The fingerprint of the words in the window.
    #[inline]
    fn fingerprint(&self, seed: u64) -> u64 {
        match self {
            Window::Joined { text, start } => xxh3_64_with_seed(&text.as_bytes()[*start..], seed),
            Window::Hashes { sum, .. } => mix64(*sum),
        }
    }

    /// Empties the window for the next run.
    fn clear(&mut self) {
        match self {
            Window::Joined { text, start } => {
                text.clear();
                *start = 0;
            }
            Window::Hashes { sum, .. } => *sum = 0,
        }
    }
}

/// One-permutation hashing into K bins, before densification: the
/// signature of a stream of fingerprints, one at a time.
pub(crate) struct Bins {
    mins: Vec<u64>,
}

impl Bins {
    /// Bins for a signature of `k` min-hashes, `k` at least 1.
    pub(crate) fn new(k: usize) -> Self {
        Bins {
            mins: vec![u64::MAX; k],
        }
    }

    #[inline]
    pub(crate) fn insert(&mut self, hash: u64) {
        let bin = range_of(hash, self.mins.len());
        let slot = &mut self.mins[bin];
        if hash < *slot {
            *slot = hash;
        }
    }

    /// The signature, empty bins densified with `seed`.
    pub(crate) fn finish(self, seed: u64) -> MinHashSig {
        densify(self.mins, seed)
    }
}

/// The bin that empty bin `bin` probes at attempt `attempt`.
#[inline]
fn probe(seed: u64, bin: usize, attempt: u32, k: usize) -> usize {
    range_of(mix64(seed ^ ((bin as u64) << 32 | attempt as u64)), k)
}

/// Optimal densification with a bounded number of random probes (see the
/// module docs).
fn densify(mins: Vec<u64>, seed: u64) -> MinHashSig {
    let k = mins.len();
    let filled = mins.iter().filter(|&&v| v != u64::MAX).count();
    if filled == 0 || filled == k {
        return MinHashSig(mins);
    }
    let mut out = mins.clone();
    for (bin, value) in out.iter_mut().enumerate() {
        if *value != u64::MAX {
            continue;
        }
        let random = (0..MAX_RANDOM_PROBES)
            .map(|attempt| mins[probe(seed, bin, attempt, k)])
            .find(|&v| v != u64::MAX);
        *value = random.unwrap_or_else(|| {
            (1..k)
                .map(|step| mins[(bin + step) % k])
                .find(|&v| v != u64::MAX)
                .unwrap_or(u64::MAX)
        });
    }
    MinHashSig(out)
}

/// The book's shingle fingerprints in text order, duplicates kept; page
/// breaks do not break shingles. These are the elements whose set's Jaccard
/// similarity [`book_signature`] estimates, and
/// `oph_signature(&shingle_hashes(text, o), o.num_hashes, o.seed)` equals
/// `book_signature(text, o)`.
pub fn shingle_hashes(text: &str, options: &MinHashOptions) -> Vec<u64> {
    let mut hashes = Vec::new();
    for_each_shingle(text, options, None, |hash| hashes.push(hash));
    hashes
}

/// The one-permutation signature with densification of a set of shingle
/// fingerprints (duplicates allowed), with `k` bins (clamped to
/// 1..=[`MAX_HASHES`]) and the densification seed `seed`. The fingerprints
/// must be uniformly distributed 64-bit values, as XXH3's are: the bin is
/// taken from their top bits.
pub fn oph_signature(shingle_hashes: &[u64], k: usize, seed: u64) -> MinHashSig {
    let mut bins = Bins::new(k.clamp(1, MAX_HASHES));
    for &hash in shingle_hashes {
        bins.insert(hash);
    }
    bins.finish(seed)
}

/// The classic K-hash min-hash, as a reference for [`oph_signature`]:
/// position i is `min over x of mix64(x ^ key_i)`, with
/// `key_i = mix64(seed ^ mix64(i))`, over the shingle fingerprints `x` ([`mix64`]
/// is a bijection, so each position is the minimum under its own
/// pseudo-random permutation of the 64-bit space). Costs K mixes per
/// shingle instead of one bin update. `k` is clamped to 1..=[`MAX_HASHES`];
/// no fingerprint gives [`MinHashSig::empty`].
pub fn classic_signature(shingle_hashes: &[u64], k: usize, seed: u64) -> MinHashSig {
    let k = k.clamp(1, MAX_HASHES);
    let keys: Vec<u64> = (0..k as u64).map(|i| mix64(seed ^ mix64(i))).collect();
    let mut mins = vec![u64::MAX; k];
    for &hash in shingle_hashes {
        for (min, &key) in mins.iter_mut().zip(&keys) {
            *min = (*min).min(mix64(hash ^ key));
        }
    }
    MinHashSig(mins)
}

/// The book signature of `text`: `options.num_hashes` min-hashes (default
/// 100) of its `options.shingle_len`-word shingles (default 5), by
/// one-permutation hashing with densification (see the module docs). Page
/// breaks do not break shingles, so where the pages break does not change
/// the signature. A text without words gives [`MinHashSig::empty`].
pub fn book_signature(text: &str, options: &MinHashOptions) -> MinHashSig {
    let mut shingler = Shingler::new(options);
    let mut bins = Bins::new(options.num_hashes());
    tokenise(text, |token| {
        if let Token::Word(word) = token {
            if let Some(hash) = shingler.push(word, None) {
                bins.insert(hash);
            }
        }
    });
    if let Some(hash) = shingler.finish() {
        bins.insert(hash);
    }
    bins.finish(options.seed)
}

/// One signature per page of `text`, in page order: pages are separated by
/// page breaks (form feeds, [`Token::PageBreak`]), so a text with n breaks
/// has n + 1 pages, empty ones included. Shingles do not cross page breaks;
/// a page with fewer than `shingle_len` words is one shingle, a page without
/// words gets [`MinHashSig::empty`]. Use [`MinHashOptions::pages`] for the
/// Google Books setting of 34 min-hashes per page.
pub fn page_signatures(text: &str, options: &MinHashOptions) -> Vec<MinHashSig> {
    let k = options.num_hashes();
    let mut shingler = Shingler::new(options);
    let mut bins = Bins::new(k);
    let mut pages = Vec::new();
    let mut end_page = |shingler: &mut Shingler, bins: &mut Bins| {
        if let Some(hash) = shingler.finish() {
            bins.insert(hash);
        }
        let page = std::mem::replace(bins, Bins::new(k));
        pages.push(page.finish(options.seed));
    };
    tokenise(text, |token| match token {
        Token::Word(word) => {
            if let Some(hash) = shingler.push(word, None) {
                bins.insert(hash);
            }
        }
        Token::PageBreak => end_page(&mut shingler, &mut bins),
    });
    end_page(&mut shingler, &mut bins);
    pages
}

/// The book's shingle fingerprints ([`shingle_hashes`]) and the signatures
/// of its pages with `page_hashes` min-hashes each ([`page_signatures`] with
/// `options` but `page_hashes`), from one pass over the text. A shingle that
/// lies inside one page is the same five words for the book and for the
/// page, so it is hashed once; a page run only needs its own fingerprint
/// when the page holds fewer words than a shingle.
pub fn shingles_and_pages(
    text: &str,
    options: &MinHashOptions,
    page_hashes: usize,
) -> (Vec<u64>, Vec<MinHashSig>) {
    let mut hashes = Vec::new();
    let pages = for_each_shingle(text, options, Some(page_hashes), |hash| hashes.push(hash));
    (hashes, pages)
}

/// Gives `shingle` the book's shingle fingerprints one by one, in the order
/// of [`shingle_hashes`], so that nothing grows with the text; with
/// `page_hashes`, also returns the page signatures of
/// [`shingles_and_pages`] (else none), from the same pass.
pub(crate) fn for_each_shingle(
    text: &str,
    options: &MinHashOptions,
    page_hashes: Option<usize>,
    mut shingle: impl FnMut(u64),
) -> Vec<MinHashSig> {
    let mut stream = ShingleStream::new(options, page_hashes);
    tokenise(text, |token| match token {
        Token::Word(word) => {
            if let Some(hash) = stream.word(word, None) {
                shingle(hash);
            }
        }
        Token::PageBreak => stream.page_break(),
    });
    let (last, pages) = stream.finish();
    if let Some(hash) = last {
        shingle(hash);
    }
    pages
}

/// The shingles of [`for_each_shingle`] from tokens given one at a time:
/// the book's shingle fingerprints, and with page signatures, each page's.
pub(crate) struct ShingleStream {
    len: usize,
    seed: u64,
    book: Shingler,
    pages: Option<PageShingles>,
}

/// The page signatures of a [`ShingleStream`].
struct PageShingles {
    k: usize,
    /// Fed only the first `len` words of each page.
    start: Shingler,
    words: usize,
    bins: Bins,
    signatures: Vec<MinHashSig>,
}

impl ShingleStream {
    /// A stream of `options`' shingles, with page signatures of
    /// `page_hashes` min-hashes when given.
    pub(crate) fn new(options: &MinHashOptions, page_hashes: Option<usize>) -> Self {
        let len = options.shingle_len();
        ShingleStream {
            len,
            seed: options.seed,
            book: Shingler::new(options),
            pages: page_hashes.map(|k| {
                let k = k.clamp(1, MAX_HASHES);
                PageShingles {
                    k,
                    start: Shingler::new(options),
                    words: 0,
                    bins: Bins::new(k),
                    signatures: Vec::new(),
                }
            }),
        }
    }

    /// Takes the next word, with its hash when the caller has it; returns
    /// the book shingle it completes.
    #[inline]
    pub(crate) fn word(&mut self, word: &str, hash: Option<WordHash>) -> Option<u64> {
        let known = hash
            .filter(|hash| hash.seed == self.seed)
            .map(|hash| hash.hash);
        let book_shingle = self.book.push(word, known);
        if let Some(page) = &mut self.pages {
            page.words += 1;
            // The page's first shingle is also the book's; later ones are
            // the book's.
            let page_shingle = if page.words <= self.len {
                page.start.push(word, known)
            } else {
                book_shingle
            };
            if let Some(hash) = page_shingle {
                page.bins.insert(hash);
            }
        }
        book_shingle
    }

    /// Takes a page break: ends the page (book shingles go on across it).
    pub(crate) fn page_break(&mut self) {
        if let Some(page) = &mut self.pages {
            page.end(self.seed);
        }
    }

    /// The book's last shingle when its text is shorter than a shingle,
    /// and the page signatures (none without `page_hashes`).
    pub(crate) fn finish(mut self) -> (Option<u64>, Vec<MinHashSig>) {
        let pages = match self.pages.take() {
            Some(mut page) => {
                page.end(self.seed);
                page.signatures
            }
            None => Vec::new(),
        };
        (self.book.finish(), pages)
    }
}

impl PageShingles {
    fn end(&mut self, seed: u64) {
        if let Some(hash) = self.start.finish() {
            self.bins.insert(hash);
        }
        self.words = 0;
        let bins = std::mem::replace(&mut self.bins, Bins::new(self.k));
        self.signatures.push(bins.finish(seed));
    }
}

/// The page code of the empty value `u64::MAX` ([`page_code`]).
pub const EMPTY_PAGE_CODE: u16 = u16::MAX;

/// The 16-bit *page code* a page min-hash value is stored as
/// (`storage-format.md` 6.5): pages are only compared position by
/// position, equal or not, so 16 bits of a rehash of the value's high 32
/// bits ([`page_code_of_high`]) keep what a comparison needs. A value below
/// `0xFFFF` is a code already (a min-hash value is that small with
/// probability 2^-48), so coding twice changes nothing.
pub fn page_code(value: u64) -> u16 {
    match u16::try_from(value) {
        Ok(code) if code != EMPTY_PAGE_CODE => code,
        _ => page_code_of_high((value >> 32) as u32),
    }
}

/// The page code of a value whose high 32 bits are `high` (what page
/// files before format 15 hold): [`EMPTY_PAGE_CODE`] when they are all
/// ones (the empty value), else the high 16 bits of [`mix64`] of them,
/// `0xFFFE` in place of `0xFFFF`. The rehash makes codes uniform although
/// the values of one bin share their high bits: two different values share
/// a code with probability 2^-16.
pub fn page_code_of_high(high: u32) -> u16 {
    if high == u32::MAX {
        return EMPTY_PAGE_CODE;
    }
    match (mix64(u64::from(high)) >> 48) as u16 {
        EMPTY_PAGE_CODE => EMPTY_PAGE_CODE - 1,
        code => code,
    }
}

/// The value a page code reads back as: itself, and `u64::MAX` for
/// [`EMPTY_PAGE_CODE`], so an empty page stays empty.
pub fn page_code_value(code: u16) -> u64 {
    match code {
        EMPTY_PAGE_CODE => u64::MAX,
        code => u64::from(code),
    }
}

/// `signature` as an index stores and reads back a page's: each value
/// replaced by its [`page_code`] (as a `u64`; `u64::MAX` for the empty
/// value). Coding twice changes nothing.
pub fn page_codes(signature: &MinHashSig) -> MinHashSig {
    MinHashSig(
        signature
            .0
            .iter()
            .map(|&v| page_code_value(page_code(v)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, RngExt, SeedableRng};
    use std::collections::HashSet;
    use stemmata_synth::{generate, zipf_vocabulary, SynthOptions};

    fn exact_jaccard(a: &[u64], b: &[u64]) -> f64 {
        let a: HashSet<u64> = a.iter().copied().collect();
        let b: HashSet<u64> = b.iter().copied().collect();
        let union = a.union(&b).count();
        if union == 0 {
            return 0.0;
        }
        a.intersection(&b).count() as f64 / union as f64
    }

    /// Two texts over a small vocabulary: A = shared block + A-only block,
    /// B = B-only block + shared block, each block of random words.
    fn overlapping_texts(
        shared: usize,
        only_a: usize,
        only_b: usize,
        rng: &mut impl Rng,
    ) -> (String, String) {
        const VOCAB: usize = 60;
        let vocabulary = zipf_vocabulary(VOCAB, 11);
        let mut block = |n: usize| -> Vec<&str> {
            (0..n)
                .map(|_| vocabulary[rng.random_range(0..VOCAB)].as_str())
                .collect()
        };
        let common = block(shared);
        let a_only = block(only_a);
        let b_only = block(only_b);
        let a = [common.join(" "), a_only.join(" ")].join(" ");
        let b = [b_only.join(" "), common.join(" ")].join(" ");
        (a, b)
    }

    struct Errors {
        oph: Vec<f64>,
        classic: Vec<f64>,
    }

    fn estimate_errors(cases: usize, k: usize, sizes: (usize, usize), seed: u64) -> Errors {
        let mut rng = SmallRng::seed_from_u64(seed);
        let options = MinHashOptions {
            num_hashes: k,
            ..MinHashOptions::default()
        };
        let mut errors = Errors {
            oph: Vec::new(),
            classic: Vec::new(),
        };
        for case in 0..cases {
            let mut size = || rng.random_range(sizes.0..=sizes.1);
            let (shared, only_a, only_b) = (size(), size(), size());
            let (a, b) = overlapping_texts(shared, only_a, only_b, &mut rng);
            let (ha, hb) = (shingle_hashes(&a, &options), shingle_hashes(&b, &options));
            let exact = exact_jaccard(&ha, &hb);
            let sig_seed = options.seed ^ case as u64;
            let oph = oph_signature(&ha, k, sig_seed).similarity(&oph_signature(&hb, k, sig_seed));
            let classic = classic_signature(&ha, k, sig_seed)
                .similarity(&classic_signature(&hb, k, sig_seed));
            errors.oph.push((oph - exact).abs());
            errors.classic.push((classic - exact).abs());
        }
        errors
    }

    fn mean(values: &[f64]) -> f64 {
        values.iter().sum::<f64>() / values.len() as f64
    }

    fn max(values: &[f64]) -> f64 {
        values.iter().copied().fold(0.0, f64::max)
    }

    #[test]
    fn codes_are_sixteen_bits_of_a_rehash_and_the_empty_value_reads_back_empty() {
        let values = MinHashSig(vec![1 << 32 | 9, 2 << 32, 0xffff_fffe_0000_0001]);
        let codes = page_codes(&values);
        assert!(
            codes.0.iter().all(|&c| c < u64::from(EMPTY_PAGE_CODE)),
            "{codes:?}"
        );
        assert_eq!(
            codes.0[0],
            u64::from(page_code_of_high(1)),
            "only the high bits count"
        );
        assert_ne!(codes.0[0], codes.0[1]);
        assert!(page_codes(&MinHashSig::empty(3)).is_empty());
        assert_eq!(
            page_codes(&MinHashSig(vec![0xffff_ffff_0000_0001])).0,
            [u64::MAX]
        );
        assert_eq!(page_codes(&codes), codes, "coding twice changes nothing");
        // Codes spread over all 16 bits although values of one bin share
        // their high bits.
        let bin_zero: std::collections::HashSet<u16> =
            (0..4096u32).map(page_code_of_high).collect();
        assert!(bin_zero.len() > 3900, "{}", bin_zero.len());
    }

    /// Asserts the shingles `options` give some texts: each the fingerprint
    /// `expected` gives its words.
    fn assert_shingles(options: MinHashOptions, expected: impl Fn(&[&str]) -> u64) {
        assert_eq!(
            shingle_hashes("A b, c\x0cd e. F", &options),
            [
                expected(&["a", "b", "c", "d", "e"]),
                expected(&["b", "c", "d", "e", "f"]),
            ]
        );
        assert_eq!(
            options
                .shingle_hash
                .fingerprint(&["a", "b", "c", "d", "e"], options.seed),
            expected(&["a", "b", "c", "d", "e"])
        );
        // Fewer words than a shingle: the whole text is one shingle.
        assert_eq!(
            shingle_hashes("Two words", &options),
            [expected(&["two", "words"])]
        );
        assert!(shingle_hashes(" 12 ,. ", &options).is_empty());
        let single = MinHashOptions {
            shingle_len: 1,
            ..options
        };
        assert_eq!(
            shingle_hashes("x y", &single),
            [expected(&["x"]), expected(&["y"])]
        );
    }

    #[test]
    fn joined_word_shingles_are_space_joined_words_hashed_with_the_seed() {
        let options = MinHashOptions {
            shingle_hash: ShingleHash::JoinedWords,
            ..MinHashOptions::default()
        };
        assert_shingles(options, |words| {
            xxh3_64_with_seed(words.join(" ").as_bytes(), options.seed)
        });
        assert_eq!(
            ShingleHash::JoinedWords.fingerprint(&["a", "b"], 7),
            xxh3_64_with_seed(b"a b", 7)
        );
    }

    #[test]
    fn options_without_a_shingle_hash_read_as_joined_words() {
        let options = MinHashOptions::default();
        let json = serde_json::to_string(&options).unwrap();
        assert!(json.contains(r#""shingle_hash":"word_hashes""#), "{json}");
        assert_eq!(
            serde_json::from_str::<MinHashOptions>(&json).unwrap(),
            options
        );
        let older = r#"{"shingle_len":5,"num_hashes":100,"seed":7}"#;
        let read: MinHashOptions = serde_json::from_str(older).unwrap();
        assert_eq!(read.shingle_hash, ShingleHash::JoinedWords);
    }

    #[test]
    fn word_hash_shingles_sum_the_words_hashes_by_powers_of_the_base() {
        let options = MinHashOptions::default();
        assert_eq!(options.shingle_hash, ShingleHash::WordHashes);
        let h = |word: &str| xxh3_64_with_seed(word.as_bytes(), options.seed);
        // Σ h_i · B^(n−i), written out term by term.
        let sum = |words: &[&str]| {
            let n = words.len() as u32;
            (words.iter().zip(1..)).fold(0u64, |sum, (word, i)| {
                sum.wrapping_add(h(word).wrapping_mul(SHINGLE_BASE.wrapping_pow(n - i)))
            })
        };
        assert_shingles(options, |words| mix64(sum(words)));
        // Order counts: the same words in another order are another shingle.
        assert_ne!(sum(&["a", "b"]), sum(&["b", "a"]));
    }

    #[test]
    fn book_signature_is_oph_of_the_shingle_hashes() {
        let text = &generate(&SynthOptions::with_families(1, 5)).books[0].text;
        let options = MinHashOptions::default();
        let signature = book_signature(text, &options);
        assert_eq!(signature.0.len(), DEFAULT_BOOK_HASHES);
        assert_eq!(
            signature,
            oph_signature(
                &shingle_hashes(text, &options),
                options.num_hashes,
                options.seed
            )
        );
        assert_eq!(signature.similarity(&signature), 1.0);
        assert!(!signature.is_empty());
    }

    #[test]
    fn bins_are_ranges_of_the_hash_space_and_hold_their_minimum() {
        let hashes: Vec<u64> = (0..10_000u64).map(mix64).collect();
        let k = 100;
        let signature = oph_signature(&hashes, k, 1);
        for (bin, &value) in signature.0.iter().enumerate() {
            let expected = hashes.iter().filter(|&&h| range_of(h, k) == bin).min();
            assert_eq!(Some(&value), expected);
        }
    }

    #[test]
    fn empty_texts_have_the_empty_signature_and_similarity_zero() {
        let options = MinHashOptions::default();
        let empty = book_signature("  42 ... \x0c", &options);
        assert_eq!(empty, MinHashSig::empty(DEFAULT_BOOK_HASHES));
        assert!(empty.is_empty());
        assert_eq!(empty.similarity(&empty), 0.0);
        let some = book_signature("one word", &options);
        assert_eq!(empty.similarity(&some), 0.0);
        assert_eq!(some.similarity(&empty), 0.0);
        // A single shingle fills every bin by densification.
        assert!(some.0.iter().all(|&v| v == some.0[0]));
        assert_eq!(some.similarity(&some), 1.0);
        assert_eq!(classic_signature(&[], 8, 0), MinHashSig::empty(8));
    }

    #[test]
    fn densified_bins_borrow_filled_values_and_stay_consistent() {
        // Few shingles for many bins: most bins are empty before densification.
        let options = MinHashOptions {
            num_hashes: 256,
            ..MinHashOptions::default()
        };
        let hashes = shingle_hashes(
            "the quick brown fox jumps over the lazy dog again",
            &options,
        );
        let raw: HashSet<u64> = hashes.iter().copied().collect();
        let signature = oph_signature(&hashes, 256, options.seed);
        assert!(signature.0.iter().all(|v| raw.contains(v)));
        // Several distinct values: borrowing is spread over the filled bins.
        let distinct: HashSet<u64> = signature.0.iter().copied().collect();
        assert!(distinct.len() >= raw.len() - 1, "{distinct:?}");
    }

    #[test]
    fn page_breaks_do_not_change_the_book_signature() {
        let options = MinHashOptions::default();
        let text = &generate(&SynthOptions::with_families(1, 8)).books[0].text;
        let without_breaks = text.replace('\x0c', " ");
        let mut rng = SmallRng::seed_from_u64(3);
        let rebroken: String = without_breaks
            .split(' ')
            .map(|w| {
                if rng.random_bool(0.01) {
                    format!("{w}\x0c")
                } else {
                    format!("{w} ")
                }
            })
            .collect();
        let expected = book_signature(text, &options);
        assert_eq!(book_signature(&without_breaks, &options), expected);
        assert_eq!(book_signature(&rebroken, &options), expected);
    }

    #[test]
    fn page_signatures_one_per_page_without_crossing_breaks() {
        let options = MinHashOptions::pages();
        let pages = page_signatures("a b c d e f\x0c\x0cg h i j k l m\x0cshort page", &options);
        assert_eq!(pages.len(), 4);
        assert!(pages.iter().all(|p| p.0.len() == DEFAULT_PAGE_HASHES));
        assert!(pages[1].is_empty());
        let alone = |text: &str| book_signature(text, &options);
        assert_eq!(pages[0], alone("a b c d e f"));
        assert_eq!(pages[2], alone("g h i j k l m"));
        assert_eq!(pages[3], alone("short page"));
        assert_eq!(page_signatures("", &options), [MinHashSig::empty(34)]);
    }

    #[test]
    fn synthetic_pages_of_a_noisy_copy_match_their_originals() {
        let collection = generate(&SynthOptions::with_families(1, 21));
        let text = &collection.books[0].text;
        let mut rng = SmallRng::seed_from_u64(4);
        let noisy = stemmata_synth::ocr_noise(text, 0.002, &mut rng);
        let options = MinHashOptions::pages();
        let (a, b) = (
            page_signatures(text, &options),
            page_signatures(&noisy, &options),
        );
        assert_eq!(a.len(), b.len());
        let same: f64 = a.iter().zip(&b).map(|(x, y)| x.similarity(y)).sum::<f64>();
        let shifted: f64 = a
            .iter()
            .zip(b.iter().skip(1))
            .map(|(x, y)| x.similarity(y))
            .sum();
        assert!(same / a.len() as f64 > 0.7, "{}", same / a.len() as f64);
        assert!(shifted / a.len() as f64 <= 0.01);
    }

    #[test]
    fn signatures_are_deterministic_and_depend_on_the_seed() {
        let text = &generate(&SynthOptions::with_families(1, 2)).books[0].text;
        let options = MinHashOptions::default();
        assert_eq!(
            book_signature(text, &options),
            book_signature(text, &options)
        );
        assert_eq!(
            page_signatures(text, &options),
            page_signatures(text, &options)
        );
        let other = MinHashOptions { seed: 1, ..options };
        assert!(book_signature(text, &options).similarity(&book_signature(text, &other)) < 0.1);
    }

    /// Pins the format: shingle hash, bins and probe sequence, for both
    /// shingle hashes.
    #[test]
    fn signature_format_is_stable() {
        for (shingle_hash, expected) in [
            (ShingleHash::WordHashes, 0xc29c_6bbb_b99b_2c6c_u64),
            (ShingleHash::JoinedWords, 0x316b_4c23_d3be_39d0),
        ] {
            let options = MinHashOptions {
                num_hashes: 16,
                shingle_hash,
                ..MinHashOptions::default()
            };
            let signature = book_signature(
                "It was the best of times, it was the worst of times, it was the age of wisdom",
                &options,
            );
            let digest = signature.0.iter().fold(0u64, |acc, &v| mix64(acc ^ v));
            assert_eq!(digest, expected, "{shingle_hash:?}: {digest:#x}");
        }
    }

    #[test]
    fn options_outside_their_ranges_are_rejected_or_clamped() {
        assert!(MinHashOptions::default().validate().is_ok());
        assert!(MinHashOptions::pages().validate().is_ok());
        for bad in [
            MinHashOptions {
                shingle_len: 0,
                ..MinHashOptions::default()
            },
            MinHashOptions {
                shingle_len: 17,
                ..MinHashOptions::default()
            },
            MinHashOptions {
                num_hashes: 0,
                ..MinHashOptions::default()
            },
            MinHashOptions {
                num_hashes: 1025,
                ..MinHashOptions::default()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        let zero = MinHashOptions {
            shingle_len: 0,
            num_hashes: 0,
            ..MinHashOptions::default()
        };
        let clamped = MinHashOptions {
            shingle_len: 1,
            num_hashes: 1,
            ..MinHashOptions::default()
        };
        assert_eq!(
            book_signature("a b c", &zero),
            book_signature("a b c", &clamped)
        );
    }

    /// OPH vs the classic K-hash estimate against the exact Jaccard, over
    /// many pairs with sizes from a few hundred to a few thousand shingles.
    #[test]
    fn oph_error_is_small_and_close_to_classic() {
        let errors = estimate_errors(200, 256, (200, 3000), 17);
        let (oph, classic) = (mean(&errors.oph), mean(&errors.classic));
        println!(
            "K=256, 200 cases: OPH mean abs error {oph:.4} (max {:.4}); classic {classic:.4} (max {:.4})",
            max(&errors.oph),
            max(&errors.classic)
        );
        assert!(oph < 0.05, "{oph}");
        assert!(max(&errors.oph) < 0.15);
        assert!(
            oph <= classic * 1.25 + 0.005,
            "OPH {oph} vs classic {classic}"
        );
    }

    /// Sparse sets (fewer shingles than bins) lean on densification.
    #[test]
    fn oph_error_on_sparse_sets_is_bounded() {
        let errors = estimate_errors(200, 256, (20, 120), 23);
        let (oph, classic) = (mean(&errors.oph), mean(&errors.classic));
        println!(
            "K=256, sparse (60-360 shingles), 200 cases: OPH mean abs error {oph:.4} (max {:.4}); classic {classic:.4} (max {:.4})",
            max(&errors.oph),
            max(&errors.classic)
        );
        assert!(oph < 0.08, "{oph}");
        assert!(
            oph <= classic * 2.0 + 0.01,
            "OPH {oph} vs classic {classic}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn one_pass_gives_the_book_shingles_and_the_page_signatures(
            words in prop::collection::vec((0usize..40, 0u8..20), 0..300),
            shingle_len in 1usize..7,
            page_hashes in 1usize..50,
            joined in any::<bool>(),
        ) {
            // Word w of a 40-word vocabulary (two letters: the tokeniser
            // drops digits), then a page break when the second number is 0
            // (about one word in 20).
            let text: String = words
                .iter()
                .map(|&(w, b)| {
                    let word = [b'a' + (w / 26) as u8, b'a' + (w % 26) as u8];
                    let brk = if b == 0 { "\x0c" } else { "" };
                    format!("{} {brk}", String::from_utf8_lossy(&word))
                })
                .collect();
            let shingle_hash = if joined { ShingleHash::JoinedWords } else { ShingleHash::WordHashes };
            let options = MinHashOptions { shingle_len, shingle_hash, ..MinHashOptions::default() };
            let page_options = MinHashOptions { num_hashes: page_hashes, ..options };
            let (hashes, pages) = shingles_and_pages(&text, &options, page_hashes);
            prop_assert_eq!(hashes, shingle_hashes(&text, &options));
            prop_assert_eq!(pages, page_signatures(&text, &page_options));
        }

        #[test]
        fn each_shingle_is_the_fingerprint_of_its_window_of_words(
            lengths in prop::collection::vec(1usize..40, 0..200),
            shingle_len in 1usize..=MAX_SHINGLE_LEN,
            joined in any::<bool>(),
            seed in any::<u64>(),
        ) {
            // Words of 1 to 39 letters, so the joined window's text is let
            // go of at uneven places.
            let words: Vec<String> = (lengths.iter().zip(0u32..))
                .map(|(&len, i)| (0..len).map(|j| char::from(b'a' + ((i * 7 + j as u32) % 26) as u8)).collect())
                .collect();
            let shingle_hash = if joined { ShingleHash::JoinedWords } else { ShingleHash::WordHashes };
            let options = MinHashOptions { shingle_len, seed, shingle_hash, ..MinHashOptions::default() };
            let expected: Vec<u64> = if words.len() < shingle_len {
                (!words.is_empty()).then(|| shingle_hash.fingerprint(&words, seed)).into_iter().collect()
            } else {
                words.windows(shingle_len).map(|window| shingle_hash.fingerprint(window, seed)).collect()
            };
            prop_assert_eq!(shingle_hashes(&words.join(" "), &options), expected);
        }

        #[test]
        fn identical_texts_have_similarity_one(seed in any::<u64>(), words in 1usize..400, k in 1usize..300) {
            let mut rng = SmallRng::seed_from_u64(seed);
            let (text, _) = overlapping_texts(words, 0, 0, &mut rng);
            let options = MinHashOptions { num_hashes: k, seed, ..MinHashOptions::default() };
            let signature = book_signature(&text, &options);
            prop_assert_eq!(signature.0.len(), k);
            prop_assert_eq!(signature.similarity(&book_signature(&text, &options)), 1.0);
        }

        #[test]
        fn oph_estimate_is_near_the_exact_jaccard(
            seed in any::<u64>(),
            shared in 0usize..3000,
            only_a in 0usize..3000,
            only_b in 0usize..3000,
        ) {
            // At least a few hundred shingles in the union, so that the
            // estimate's standard deviation is about 0.03 with K = 256.
            prop_assume!(shared + only_a + only_b >= 600);
            let mut rng = SmallRng::seed_from_u64(seed);
            let (a, b) = overlapping_texts(shared, only_a, only_b, &mut rng);
            let options = MinHashOptions { num_hashes: 256, seed, ..MinHashOptions::default() };
            let exact = exact_jaccard(&shingle_hashes(&a, &options), &shingle_hashes(&b, &options));
            let estimate = book_signature(&a, &options).similarity(&book_signature(&b, &options));
            prop_assert!((estimate - exact).abs() < 0.15, "estimate {} exact {}", estimate, exact);
        }
    }
}
