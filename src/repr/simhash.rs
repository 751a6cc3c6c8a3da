//! 128-bit simhash of character n-grams (Charikar 2002; Vladimir et al. for
//! books): near copies of a book differ in few bits (d = 7 in the paper),
//! and cutting the fingerprint into bands of about 24 bits gives bucket keys
//! for finding candidates.
//!
//! **Features.** The text is normalised by the tokeniser
//! ([`crate::text::tokenise`]) and its words are joined by single spaces,
//! page breaks counting as word separators (no leading or trailing space).
//! Every run of `ngram_chars` consecutive characters (Unicode scalar values,
//! 4 by default) of that string is a feature, weighted by how often it
//! occurs. A normalised text shorter than `ngram_chars` characters (but not
//! empty) is one feature, the whole text; an empty one has no feature.
//!
//! **Hash.** A feature's 128-bit hash has XXH3-64 of its UTF-8 bytes with
//! seed `seed` as its low 64 bits and XXH3-64 with seed
//! `seed ^ HIGH_HALF_SEED_XOR` as its high 64 bits ([`ngram_hash`]).
//!
//! **Fingerprint.** Bit j is 1 when the features whose hash has bit j set
//! outweigh those whose hash has it clear: Σ over features of ±count > 0.
//! Adding ±1 per occurrence gives the same sums as ±count per distinct
//! feature: n-grams of `a`–`z` and spaces (n ≤ 4) are counted in a table
//! and each distinct one is added with its count, others once per
//! occurrence. Ties give 0; a text without features gives 0. With n ≤ 4,
//! words of `a`–`z` are counted as they come, and a word of other letters
//! with the n − 1 characters before it; with a longer n the joined string
//! is built and counted a chunk at a time (the last n − 1 characters
//! carried over). Memory does not grow with the text.
//!
//! All of the above is part of the on-disk format once fingerprints are stored.
//!
//! **Caveat.** Count weighting lets a language's frequent n-grams dominate
//! every sum, so the fingerprint reflects the text's n-gram distribution more
//! than its content. Measured with the defaults: on `../shared/corpus` (251
//! Project Gutenberg books) unrelated pairs are a median 27 bits apart but
//! 0.4% of them (123 of 30,594) are within the paper's d = 7, against 28 of
//! 39 edition pairs (median 2 bits); books of one `stemmata_synth`
//! collection, whose words are drawn from one Zipf vocabulary, are only 1–13
//! bits apart (median 6) even when unrelated. Use the simhash to find
//! candidates, not to decide.

use crate::error::{Error, Result};
use crate::repr::DEFAULT_HASH_SEED;
use crate::text::{tokenise, Token};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Default characters per n-gram (Vladimir et al.: character 4-grams).
pub const DEFAULT_NGRAM_CHARS: usize = 4;
/// Largest valid n-gram length.
pub const MAX_NGRAM_CHARS: usize = 16;
/// Default band width for [`SimHash128::bands`] (the paper's 24-bit bands).
pub const DEFAULT_BAND_BITS: u32 = 24;
/// XORed into the seed for the high 64 bits of an n-gram hash.
pub const HIGH_HALF_SEED_XOR: u64 = 0x9e37_79b9_7f4a_7c15;

/// Parameters of the simhash. Part of the on-disk format once fingerprints
/// are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimHashOptions {
    /// Characters per n-gram feature. Default [`DEFAULT_NGRAM_CHARS`] (4);
    /// valid 1..=[`MAX_NGRAM_CHARS`] (16). [`simhash`] clamps values outside
    /// that range; [`SimHashOptions::validate`] rejects them.
    pub ngram_chars: usize,
    /// Seed of the n-gram hash. Default [`DEFAULT_HASH_SEED`]; any value is
    /// valid.
    pub seed: u64,
}

impl Default for SimHashOptions {
    /// Character 4-grams, [`DEFAULT_HASH_SEED`].
    fn default() -> Self {
        SimHashOptions {
            ngram_chars: DEFAULT_NGRAM_CHARS,
            seed: DEFAULT_HASH_SEED,
        }
    }
}

impl SimHashOptions {
    /// Checks that every field is in its valid range.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_NGRAM_CHARS).contains(&self.ngram_chars) {
            return Err(Error::InvalidArgument(format!(
                "simhash ngram_chars {} is outside 1..={MAX_NGRAM_CHARS}",
                self.ngram_chars
            )));
        }
        Ok(())
    }
}

/// A 128-bit simhash fingerprint; bit j is `(value >> j) & 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct SimHash128(pub u128);

impl SimHash128 {
    /// Number of differing bits, 0..=128.
    pub fn hamming(&self, other: &SimHash128) -> u32 {
        (self.0 ^ other.0).count_ones()
    }

    /// How many bands [`SimHash128::bands`] yields for `band_bits`:
    /// `floor(128 / band_bits)`, with `band_bits` clamped to 1..=64 (so 2 to
    /// 128 bands). 5 for the default 24 bits.
    pub fn band_count(band_bits: u32) -> u32 {
        128 / band_bits.clamp(1, 64)
    }

    /// The fingerprint cut into [`SimHash128::band_count`]`(band_bits)`
    /// consecutive slices that together cover all 128 bits, as
    /// `(band index, key)` with the key being the slice's bits shifted down
    /// to bit 0. `band_bits` (default [`DEFAULT_BAND_BITS`], clamped to
    /// 1..=64) is the least width of a band: the remainder
    /// `128 mod band_bits` is spread one bit per band from band 0, so bands
    /// differ in width by at most one bit. With 24 bits: 5 bands of 26, 26,
    /// 26, 25 and 25 bits, from the least significant bit up.
    ///
    /// **Guarantee** (pigeonhole). Every bit lies in exactly one band, so
    /// two fingerprints at Hamming distance h have equal keys in at least
    /// `band_count − h` bands: within distance d they share a band whenever
    /// `band_count > d`. With 24-bit bands that holds for d ≤ 4 only; the
    /// paper's d = 7 needs at least 8 bands (`band_bits` ≤ 16). Beyond that
    /// distance sharing a band is likely for near copies but not certain.
    pub fn bands(&self, band_bits: u32) -> impl Iterator<Item = (u8, u64)> {
        let count = SimHash128::band_count(band_bits);
        let base = 128 / count;
        let extra = 128 % count;
        let value = self.0;
        (0..count).scan(0u32, move |start, band| {
            let width = base + u32::from(band < extra);
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let key = (value >> *start) as u64 & mask;
            *start += width;
            Some((band as u8, key))
        })
    }
}

/// The 128-bit hash of one n-gram (its UTF-8 bytes): XXH3-64 with `seed`
/// in the low half, XXH3-64 with `seed ^ HIGH_HALF_SEED_XOR` in the high half.
#[inline]
pub fn ngram_hash(gram: &[u8], seed: u64) -> u128 {
    let low = xxh3_64_with_seed(gram, seed);
    let high = xxh3_64_with_seed(gram, seed ^ HIGH_HALF_SEED_XOR);
    (high as u128) << 64 | low as u128
}

/// `SPREAD[b]` has byte k equal to bit k of `b`: adding it to a u64 adds one
/// to the byte counter of every set bit of `b`.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            if b >> k & 1 == 1 {
                table[b] |= 1 << (8 * k);
            }
            k += 1;
        }
        b += 1;
    }
    table
};

/// Per-bit counts of set bits over many 128-bit hashes, 8-bit counters
/// packed in u64 lanes and flushed every 255 hashes.
struct BitCounts {
    packed: [u64; 16],
    pending: u32,
    counts: [u64; 128],
    total: u64,
}

impl BitCounts {
    fn new() -> Self {
        BitCounts {
            packed: [0; 16],
            pending: 0,
            counts: [0; 128],
            total: 0,
        }
    }

    #[inline]
    fn add(&mut self, hash: u128) {
        let bytes = hash.to_le_bytes();
        for (lane, &byte) in self.packed.iter_mut().zip(&bytes) {
            *lane += SPREAD[byte as usize];
        }
        self.pending += 1;
        if self.pending == 255 {
            self.flush();
        }
    }

    /// Adds `weight` occurrences of `hash` at once: in the packed
    /// counters while a byte can hold the weight, else bit by bit.
    fn add_weighted(&mut self, hash: u128, weight: u64) {
        if weight <= 255 {
            if self.pending + weight as u32 > 255 {
                self.flush();
            }
            let bytes = hash.to_le_bytes();
            for (lane, &byte) in self.packed.iter_mut().zip(&bytes) {
                *lane += SPREAD[byte as usize] * weight;
            }
            self.pending += weight as u32;
            return;
        }
        let halves = [hash as u64, (hash >> 64) as u64];
        for (half, counts) in halves.iter().zip(self.counts.chunks_exact_mut(64)) {
            for (bit, count) in counts.iter_mut().enumerate() {
                *count += weight & 0u64.wrapping_sub(half >> bit & 1);
            }
        }
        self.total += weight;
    }

    fn flush(&mut self) {
        for (lane, counts) in self.packed.iter_mut().zip(self.counts.chunks_exact_mut(8)) {
            for (k, count) in counts.iter_mut().enumerate() {
                *count += (*lane >> (8 * k)) & 0xff;
            }
            *lane = 0;
        }
        self.total += u64::from(self.pending);
        self.pending = 0;
    }

    fn fingerprint(mut self) -> SimHash128 {
        self.flush();
        let mut value = 0u128;
        for (bit, &count) in self.counts.iter().enumerate() {
            // Σ ±1 = count − (total − count) > 0.
            if 2 * count > self.total {
                value |= 1 << bit;
            }
        }
        SimHash128(value)
    }
}

/// Bytes of the normalised text (words joined by single spaces) gathered
/// before their n-grams are counted when n is past [`TABLE_NGRAM_CHARS`]
/// (shorter n-grams are counted word by word); the last n − 1 characters
/// stay for the n-grams that continue into the next words.
const CHUNK_BYTES: usize = 1 << 20;

/// Longest n-gram counted by its letters in a table ([`GramTable`]).
const TABLE_NGRAM_CHARS: usize = 4;

/// Occurrences of each n-gram of `a`–`z` and space (n ≤ 4), by the
/// n-gram's characters as 5-bit digits (a byte's low 5 bits: space 0,
/// `a`–`z` 1–26), the first character highest: a text repeats its n-grams
/// many times, and each distinct one is hashed once, with its count as
/// weight, instead of once per occurrence. The sums are the same (see the
/// module docs).
struct GramTable {
    n: usize,
    counts: Vec<u16>,
}

thread_local! {
    /// The counts of a thread's last table, all zero: a table is 2^20
    /// counters, cheaper to reuse than to allocate per text. They are 16
    /// bits, to keep the table in cache; a count that wraps round is added
    /// to the sums (2^16 occurrences) and goes on from 0.
    static SPARE_COUNTS: std::cell::Cell<Vec<u16>> = const { std::cell::Cell::new(Vec::new()) };
}

impl GramTable {
    fn new(n: usize) -> Self {
        let len = 1usize << (5 * n);
        let mut counts = SPARE_COUNTS.with(|spare| spare.take());
        if counts.len() != len {
            counts = vec![0; len];
        }
        GramTable { n, counts }
    }

    /// Counts the n-grams of `bytes` (only spaces and `a`–`z`, at least n).
    fn count(&mut self, bytes: &[u8], bits: &mut BitCounts, seed: u64) {
        let index = Self::digits(&bytes[..self.n - 1]);
        self.count_after(index, &bytes[self.n - 1..], bits, seed);
    }

    /// The table digits of `bytes` (spaces and `a`–`z`), the first highest.
    fn digits(bytes: &[u8]) -> u32 {
        (bytes.iter()).fold(0u32, |index, &b| index << 5 | u32::from(b & 31))
    }

    /// Counts the n-grams that end in `bytes` (only spaces and `a`–`z`),
    /// `index` holding the n − 1 characters before them as digits; the
    /// digits of the last n − 1 characters after them.
    #[inline]
    fn count_after(
        &mut self,
        mut index: u32,
        bytes: &[u8],
        bits: &mut BitCounts,
        seed: u64,
    ) -> u32 {
        let n = self.n;
        let mask = (1u32 << (5 * n)) - 1;
        for &byte in bytes {
            index = (index << 5 | u32::from(byte & 31)) & mask;
            let count = &mut self.counts[index as usize];
            *count = count.wrapping_add(1);
            if *count == 0 {
                Self::add_wrapped(index, n, bits, seed);
            }
        }
        index
    }

    /// Adds 2^16 occurrences of the n-gram numbered `index`, whose count
    /// just wrapped round: out of line, so that the counting loop keeps
    /// its registers.
    #[cold]
    #[inline(never)]
    fn add_wrapped(index: u32, n: usize, bits: &mut BitCounts, seed: u64) {
        let gram = Self::gram(index, n);
        bits.add_weighted(ngram_hash(&gram[..n], seed), 1 << 16);
    }

    /// The bytes of the n-gram numbered `index`, in the first n bytes.
    /// Built in a register and stored whole: stored a byte at a time, the
    /// hash's four-byte load of them waited on the stores.
    #[inline]
    fn gram(index: u32, n: usize) -> [u8; TABLE_NGRAM_CHARS] {
        const _: () = assert!(TABLE_NGRAM_CHARS == 4);
        let mut word = u32::from_le_bytes([b' '; TABLE_NGRAM_CHARS]);
        for i in 0..n {
            let digit = index >> (5 * (n - 1 - i)) & 31;
            if digit > 0 {
                let shift = 8 * i;
                word = word & !(0xff << shift) | (u32::from(b'a') + digit - 1) << shift;
            }
        }
        word.to_le_bytes()
    }

    /// Adds every counted n-gram to `bits`, weighted by its count, and
    /// gives the zeroed table back for the thread's next text.
    fn finish(mut self, bits: &mut BitCounts, seed: u64) {
        for (block, counts) in self.counts.chunks_mut(32).enumerate() {
            // A fold without an early exit, which compiles to wide loads.
            if counts.iter().fold(0, |any, &count| any | count) == 0 {
                continue;
            }
            for (offset, count) in counts.iter_mut().enumerate() {
                if *count != 0 {
                    let gram = Self::gram((32 * block + offset) as u32, self.n);
                    bits.add_weighted(ngram_hash(&gram[..self.n], seed), u64::from(*count));
                    *count = 0;
                }
            }
        }
        let counts = std::mem::take(&mut self.counts);
        SPARE_COUNTS.with(|spare| spare.set(counts));
    }
}

/// The n-grams of the normalised text the features are cut from: words
/// joined by single spaces, page breaks as separators.
///
/// With n ≤ [`TABLE_NGRAM_CHARS`], words of `a`–`z` are counted in the
/// table as they come, the last n − 1 characters kept as its digits
/// (`held` of them, fewer at the start of the text); a word of other
/// letters goes through `chunk` with the characters before it, is counted
/// there at once, and the chunk's last n − 1 characters go back to the
/// digits when they are `a`–`z` and spaces. Otherwise the text is built
/// and counted a chunk at a time. Memory does not grow with the text.
struct Grams {
    n: usize,
    seed: u64,
    /// Bytes gathered before counting ([`CHUNK_BYTES`]) when n is past
    /// [`TABLE_NGRAM_CHARS`].
    chunk_bytes: usize,
    chunk: String,
    /// Start of each character of `chunk`, then its end (non-ASCII chunks).
    bounds: Vec<usize>,
    /// Whether a word was added, and whether an n-gram was counted.
    any_word: bool,
    counted: bool,
    counts: BitCounts,
    /// Counts of the n-grams of `a`–`z` and spaces, when n ≤ [`TABLE_NGRAM_CHARS`].
    table: Option<GramTable>,
    /// While `chunk` is empty, the text's last `held` characters (at most
    /// n − 1) as table digits.
    digits: u32,
    held: usize,
}

impl Grams {
    fn new(n: usize, seed: u64, chunk_bytes: usize) -> Self {
        Grams {
            n,
            seed,
            chunk_bytes,
            chunk: String::new(),
            bounds: Vec::new(),
            any_word: false,
            counted: false,
            counts: BitCounts::new(),
            table: None,
            digits: 0,
            held: 0,
        }
    }

    fn push_word(&mut self, word: &str) {
        let by_table = self.n <= TABLE_NGRAM_CHARS;
        // A fold without an early exit: no branch per letter.
        let letters = (word.bytes()).fold(true, |letters, b| letters & b.is_ascii_lowercase());
        if by_table && self.chunk.is_empty() && letters {
            self.count_letters(word.as_bytes());
            return;
        }
        self.digits_to_chunk();
        if self.any_word {
            self.chunk.push(' ');
        }
        self.any_word = true;
        self.chunk.push_str(word);
        if by_table {
            self.count_chunk();
            self.chunk_to_digits();
        } else if self.chunk.len() >= self.chunk_bytes {
            self.count_chunk();
        }
    }

    /// Counts the n-grams a word of `a`–`z` ends (the space before it
    /// included) straight from the table digits.
    fn count_letters(&mut self, word: &[u8]) {
        let n = self.n;
        let table = self.table.get_or_insert_with(|| GramTable::new(n));
        if self.any_word && self.held == n - 1 {
            // Past the text's first n − 1 characters (nearly every word):
            // each character, the space first, ends an n-gram.
            let index = table.count_after(self.digits, b" ", &mut self.counts, self.seed);
            self.digits = table.count_after(index, word, &mut self.counts, self.seed);
            self.counted = true;
            return;
        }
        let separator: &[u8] = if self.any_word { b" " } else { b"" };
        self.any_word = true;
        for part in [separator, word] {
            // The first n − 1 characters of the text end no n-gram.
            let starting = (n - 1 - self.held).min(part.len());
            self.digits = self.digits << (5 * starting) | GramTable::digits(&part[..starting]);
            self.held += starting;
            let rest = &part[starting..];
            if !rest.is_empty() {
                self.digits = table.count_after(self.digits, rest, &mut self.counts, self.seed);
                self.counted = true;
            }
        }
    }

    /// Moves the held characters into the empty chunk, which then goes on
    /// from them.
    fn digits_to_chunk(&mut self) {
        if !self.chunk.is_empty() || self.held == 0 {
            return;
        }
        let gram = GramTable::gram(self.digits, self.held);
        self.chunk
            .extend(gram[..self.held].iter().map(|&byte| char::from(byte)));
        (self.digits, self.held) = (0, 0);
    }

    /// Moves the chunk's characters (at most n − 1 after counting) back
    /// into the table digits, when they are `a`–`z` and spaces.
    fn chunk_to_digits(&mut self) {
        let bytes = self.chunk.as_bytes();
        if bytes.len() < self.n && bytes.iter().all(|&b| b == b' ' || b.is_ascii_lowercase()) {
            (self.digits, self.held) = (GramTable::digits(bytes), bytes.len());
            self.chunk.clear();
        }
    }

    /// Counts every n-gram that ends in the chunk and keeps only the last
    /// n − 1 characters (all of them while the chunk is shorter than n).
    fn count_chunk(&mut self) {
        let bytes = self.chunk.as_bytes();
        let letters = self.n <= TABLE_NGRAM_CHARS
            && bytes.iter().all(|&b| b == b' ' || b.is_ascii_lowercase());
        let keep_from = if letters || self.chunk.is_ascii() {
            if bytes.len() < self.n {
                return;
            }
            if letters {
                let n = self.n;
                self.table.get_or_insert_with(|| GramTable::new(n)).count(
                    bytes,
                    &mut self.counts,
                    self.seed,
                );
            } else {
                for gram in bytes.windows(self.n) {
                    self.counts.add(ngram_hash(gram, self.seed));
                }
            }
            bytes.len() - (self.n - 1)
        } else {
            self.bounds.clear();
            self.bounds
                .extend(self.chunk.char_indices().map(|(at, _)| at));
            self.bounds.push(bytes.len());
            let chars = self.bounds.len() - 1;
            if chars < self.n {
                return;
            }
            for window in self.bounds.windows(self.n + 1) {
                let gram = &bytes[window[0]..window[self.n]];
                self.counts.add(ngram_hash(gram, self.seed));
            }
            self.bounds[chars - (self.n - 1)]
        };
        self.counted = true;
        self.chunk.drain(..keep_from);
    }

    /// The fingerprint; a text of fewer than n characters counts as one
    /// n-gram, a text without words as none.
    fn fingerprint(mut self) -> SimHash128 {
        if !self.counted {
            self.digits_to_chunk();
        }
        self.count_chunk();
        if !self.counted && !self.chunk.is_empty() {
            self.counts
                .add(ngram_hash(self.chunk.as_bytes(), self.seed));
        }
        if let Some(table) = self.table.take() {
            table.finish(&mut self.counts, self.seed);
        }
        self.counts.fingerprint()
    }
}

/// The simhash of words given one at a time: [`simhash`] of a text is the
/// fingerprint of its tokeniser's words in order (page breaks aside).
pub(crate) struct SimHasher(Grams);

impl SimHasher {
    pub(crate) fn new(options: &SimHashOptions) -> Self {
        let n = options.ngram_chars.clamp(1, MAX_NGRAM_CHARS);
        SimHasher(Grams::new(n, options.seed, CHUNK_BYTES))
    }

    #[inline]
    pub(crate) fn word(&mut self, word: &str) {
        self.0.push_word(word);
    }

    pub(crate) fn finish(self) -> SimHash128 {
        self.0.fingerprint()
    }
}

/// The simhash of `text` (see the module docs): 128 bits from its
/// `options.ngram_chars`-character n-grams (default 4, clamped to
/// 1..=[`MAX_NGRAM_CHARS`]), each weighted by its count.
pub fn simhash(text: &str, options: &SimHashOptions) -> SimHash128 {
    simhash_in_chunks(text, options, CHUNK_BYTES)
}

fn simhash_in_chunks(text: &str, options: &SimHashOptions, chunk_bytes: usize) -> SimHash128 {
    let n = options.ngram_chars.clamp(1, MAX_NGRAM_CHARS);
    let mut grams = Grams::new(n, options.seed, chunk_bytes);
    tokenise(text, |token| {
        if let Token::Word(word) = token {
            grams.push_word(word);
        }
    });
    grams.fingerprint()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;
    use stemmata_synth::{ocr_noise, work_text};

    /// The straightforward definition, for checking the packed counters.
    fn naive_simhash(grams: &[&[u8]], seed: u64) -> SimHash128 {
        let mut sums = [0i64; 128];
        for gram in grams {
            let hash = ngram_hash(gram, seed);
            for (bit, sum) in sums.iter_mut().enumerate() {
                *sum += if hash >> bit & 1 == 1 { 1 } else { -1 };
            }
        }
        let mut value = 0u128;
        for (bit, &sum) in sums.iter().enumerate() {
            if sum > 0 {
                value |= 1 << bit;
            }
        }
        SimHash128(value)
    }

    fn book(words: usize, seed: u64) -> String {
        work_text(words, seed)
    }

    /// The normalised text: words joined by single spaces.
    fn joined_words(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        tokenise(text, |token| {
            if let Token::Word(word) = token {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(word);
            }
        });
        out
    }

    /// The simhash from the whole normalised text at once: its n-grams of
    /// characters, or the whole text when it is shorter than n.
    fn simhash_whole(text: &str, options: &SimHashOptions) -> SimHash128 {
        let n = options.ngram_chars.clamp(1, MAX_NGRAM_CHARS);
        let joined = joined_words(text);
        let bounds: Vec<usize> = joined
            .char_indices()
            .map(|(at, _)| at)
            .chain(std::iter::once(joined.len()))
            .collect();
        let grams: Vec<&[u8]> = if bounds.len() - 1 < n {
            [joined.as_bytes()]
                .into_iter()
                .filter(|g| !g.is_empty())
                .collect()
        } else {
            bounds
                .windows(n + 1)
                .map(|w| &joined.as_bytes()[w[0]..w[n]])
                .collect()
        };
        naive_simhash(&grams, options.seed)
    }

    #[test]
    fn counting_in_chunks_equals_counting_the_whole_text() {
        let ascii = book(3_000, 9);
        let mixed = ascii.replacen("the", "thé", 40).replace("and", "ΣΟΦΙΑ");
        let short = [
            "",
            " 42 ",
            "ab",
            "abc d",
            "é",
            "σο φ",
            "abcdefghijklmnopqrstu",
        ];
        for n in [1, 2, 4, 7, 16] {
            let options = SimHashOptions {
                ngram_chars: n,
                ..SimHashOptions::default()
            };
            for text in short
                .iter()
                .copied()
                .chain([ascii.as_str(), mixed.as_str()])
            {
                let whole = simhash_whole(text, &options);
                for chunk_bytes in [1, 3, 17, 1000, CHUNK_BYTES] {
                    assert_eq!(
                        simhash_in_chunks(text, &options, chunk_bytes),
                        whole,
                        "n {n}, chunks of {chunk_bytes}, {:?}",
                        &text[..text.len().min(20)]
                    );
                }
            }
        }
        // Over one chunk, and non-ASCII in some chunks only.
        let long = format!("{} {}", book(400_000, 4), mixed);
        assert!(long.len() > 2 * CHUNK_BYTES);
        let options = SimHashOptions::default();
        assert_eq!(simhash(&long, &options), simhash_whole(&long, &options));
    }

    #[test]
    fn counts_past_a_table_counter_sum_as_every_occurrence() {
        // "abab" and "baba" occur about 100,000 times each, past a 16-bit
        // counter, in one chunk and across chunks.
        let text = format!("{} cd {}", "ab".repeat(100_000), "ab".repeat(60_000));
        let options = SimHashOptions::default();
        let whole = simhash_whole(&text, &options);
        assert_eq!(simhash(&text, &options), whole);
        assert_eq!(simhash_in_chunks(&text, &options, 70_000), whole);
    }

    #[test]
    fn features_are_char_ngrams_of_space_joined_words() {
        let options = SimHashOptions::default();
        let seed = options.seed;
        // "Ab, 12 c\x0c\x0cD-ef." normalises to "ab c d ef".
        let expected = naive_simhash(
            &[b"ab c", b"b c ", b" c d", b"c d ", b" d e", b"d ef"],
            seed,
        );
        assert_eq!(simhash("Ab, 12 c\x0c\x0cD-ef.", &options), expected);
        // Counts are weights: a repeated gram counts every time.
        let repeated = naive_simhash(&[b"abab", b"baba", b"abab"], seed);
        assert_eq!(simhash("ababab", &options), repeated);
        // Shorter than an n-gram: the whole text is one feature.
        assert_eq!(simhash("ab", &options), naive_simhash(&[b"ab"], seed));
        assert_eq!(simhash(" 42 ", &options), SimHash128(0));
        // Non-ASCII: n-grams of characters, not bytes.
        let grams: [&[u8]; 3] = ["écol".as_bytes(), "cole".as_bytes(), "ole ".as_bytes()];
        let mut naive = grams.to_vec();
        naive.extend(["le σ", "e σο", " σοφ", "σοφι", "οφια"].map(str::as_bytes));
        assert_eq!(
            simhash("École ΣΟΦΙΑ", &options),
            naive_simhash(&naive, seed)
        );
    }

    #[test]
    fn packed_counts_match_the_naive_sums_on_long_texts() {
        let text = book(3_000, 7);
        let options = SimHashOptions::default();
        let joined = joined_words(&text);
        let grams: Vec<&[u8]> = joined.as_bytes().windows(4).collect();
        assert!(grams.len() > 10_000);
        assert_eq!(
            simhash(&text, &options),
            naive_simhash(&grams, options.seed)
        );
    }

    #[test]
    fn ngram_hash_halves_are_seeded_xxh3() {
        let hash = ngram_hash(b"abcd", 5);
        assert_eq!(hash as u64, xxh3_64_with_seed(b"abcd", 5));
        assert_eq!(
            (hash >> 64) as u64,
            xxh3_64_with_seed(b"abcd", 5 ^ HIGH_HALF_SEED_XOR)
        );
    }

    #[test]
    fn identical_texts_have_distance_zero() {
        let text = book(5_000, 3);
        let options = SimHashOptions::default();
        let a = simhash(&text, &options);
        assert_eq!(a.hamming(&simhash(&text, &options)), 0);
        // Layout does not matter: only the words do.
        let relaid = text.replace(['\n', '\x0c'], " ");
        assert_eq!(a.hamming(&simhash(&relaid, &options)), 0);
    }

    /// 1% character noise on a 20K-word book: the paper's d = 7 holds in
    /// most trials.
    #[test]
    fn noisy_copies_are_close() {
        let options = SimHashOptions::default();
        let mut distances = Vec::new();
        for trial in 0..8u64 {
            let text = book(20_000, 100 + trial);
            let mut rng = SmallRng::seed_from_u64(trial);
            let noisy = ocr_noise(&text, 0.01, &mut rng);
            distances.push(simhash(&text, &options).hamming(&simhash(&noisy, &options)));
        }
        println!("1% noise, 20K words: distances {distances:?}");
        let within = distances.iter().filter(|&&d| d <= 7).count();
        assert!(within >= 6, "{distances:?}");
        assert!(distances.iter().all(|&d| d <= 14), "{distances:?}");
    }

    #[test]
    fn unrelated_texts_are_far_apart() {
        let options = SimHashOptions::default();
        let mut distances = Vec::new();
        for trial in 0..6u64 {
            // Different collections, hence different vocabularies: books of
            // one collection share their word distribution and are close
            // (see the module docs).
            let a = simhash(&book(20_000, 200 + trial), &options);
            let b = simhash(&book(20_000, 300 + trial), &options);
            distances.push(a.hamming(&b));
        }
        println!("unrelated 20K-word books: distances {distances:?}");
        assert!(distances.iter().all(|&d| d > 30), "{distances:?}");
    }

    #[test]
    fn bands_cover_all_bits_with_the_remainder_spread() {
        let widths = |bits: u32| -> Vec<u32> {
            SimHash128(u128::MAX)
                .bands(bits)
                .map(|(_, key)| key.count_ones())
                .collect()
        };
        assert_eq!(widths(DEFAULT_BAND_BITS), [26, 26, 26, 25, 25]);
        assert_eq!(widths(32), [32; 4]);
        assert_eq!(widths(16), [16; 8]);
        assert_eq!(widths(64), [64, 64]);
        assert_eq!(widths(43), [64, 64]);
        assert_eq!(widths(1).len(), 128);
        assert_eq!(widths(0), widths(1));
        assert_eq!(widths(100), widths(64));
        for bits in 1..=64 {
            let bands: Vec<(u8, u64)> = SimHash128(u128::MAX).bands(bits).collect();
            assert_eq!(bands.len() as u32, SimHash128::band_count(bits));
            assert_eq!(widths(bits).iter().sum::<u32>(), 128);
            assert!(bands.iter().enumerate().all(|(i, &(b, _))| b as usize == i));
        }
        // Bands are consecutive slices from bit 0.
        let value = SimHash128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        let keys: Vec<u64> = value.bands(32).map(|(_, key)| key).collect();
        assert_eq!(keys, [0x7654_3210, 0xfedc_ba98, 0x89ab_cdef, 0x0123_4567]);
    }

    /// Pins the format: normalisation, n-grams, hash halves, bit rule.
    #[test]
    fn fingerprint_format_is_stable() {
        let value = simhash(
            "It was the best of times, it was the worst of times, it was the age of wisdom",
            &SimHashOptions::default(),
        );
        assert_eq!(value.0, FORMAT_FINGERPRINT, "{:#x}", value.0);
    }

    const FORMAT_FINGERPRINT: u128 = 0xea7e_9f3c_003b_c4d9_04d0_d6f7_c76a_9a63;

    #[test]
    fn options_outside_their_range_are_rejected_or_clamped() {
        assert!(SimHashOptions::default().validate().is_ok());
        for ngram_chars in [0, 17] {
            let bad = SimHashOptions {
                ngram_chars,
                ..SimHashOptions::default()
            };
            assert!(bad.validate().is_err());
        }
        let zero = SimHashOptions {
            ngram_chars: 0,
            ..SimHashOptions::default()
        };
        let one = SimHashOptions {
            ngram_chars: 1,
            ..SimHashOptions::default()
        };
        assert_eq!(simhash("abc def", &zero), simhash("abc def", &one));
    }

    proptest! {
        #[test]
        fn near_hashes_share_a_band(
            value in any::<u128>(),
            flips in proptest::collection::vec(0u32..128, 0..16),
            band_bits in 1u32..=64,
        ) {
            let count = SimHash128::band_count(band_bits);
            let mut other = value;
            for &bit in &flips {
                other ^= 1u128 << bit;
            }
            let (a, b) = (SimHash128(value), SimHash128(other));
            let distance = a.hamming(&b);
            let shared = a.bands(band_bits).zip(b.bands(band_bits)).filter(|(x, y)| x == y).count() as u32;
            prop_assert!(shared + distance >= count, "shared {} distance {} bands {}", shared, distance, count);
            if count > distance {
                prop_assert!(shared >= 1);
            }
        }

        /// Words of `a`–`z` counted straight from the table's digits,
        /// others through the chunk, in any order and from the text's
        /// first characters on: the n-grams of the whole joined text.
        #[test]
        fn words_of_any_letters_in_any_order_count_as_the_joined_text(
            words in proptest::collection::vec(
                prop_oneof![
                    3 => "[a-z]{1,7}",
                    1 => "[a-zé]{1,4}",
                    1 => "[σοφα]{1,3}",
                    1 => "[A-Z0-9 ,.]{1,3}",
                ],
                0..40,
            ),
            n in 1usize..=6,
        ) {
            let text = words.join(" ");
            let options = SimHashOptions { ngram_chars: n, ..SimHashOptions::default() };
            prop_assert_eq!(simhash(&text, &options), simhash_whole(&text, &options));
        }
    }
}
