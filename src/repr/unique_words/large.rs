//! The unique-word sequence of a large text in bounded memory: the same
//! features as the in-memory extraction, for about 9 bytes per distinct
//! word and 8 per element of the sequence, where the in-memory one keeps a
//! hash-map entry and a copy of every distinct word.
//!
//! Pass 1 tokenises and counts the words by their 64-bit hash in sorted
//! runs merged into one sorted array of (hash, count); it keeps the hashes
//! of the words seen at most M times and drops those whose 32-bit hashes
//! collide. Pass 2 tokenises again and takes, in text order, the first
//! occurrence of each kept hash, found in the sorted array through a
//! directory of its top bits, and applies the alphabetical-list guard
//! window by window as the elements arrive, keeping only the words of the
//! windows not yet decided.

use std::collections::{HashSet, VecDeque};

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::{ExtractOptions, Features, UniqueWordSeq};
use crate::align::lis_len_by;
use crate::text::{tokenise, Token};

/// Hashes sorted at once in pass 1, at least (8 MiB); a run also grows to a
/// quarter of the distinct hashes counted so far, so that merging the runs
/// costs a few passes over the array in all.
pub(super) const MIN_RUN: usize = 1 << 20;

/// Extracts the features of `text` in two passes (see the module docs),
/// sorting runs of at least `min_run` hashes in pass 1.
pub(super) fn extract(text: &str, options: &ExtractOptions, min_run: usize) -> Features {
    let max_freq = options.max_term_freq;
    let mut counter = Counter::new(max_freq, min_run);
    let mut pages: u32 = 1;
    let token_stats = tokenise(text, |token| match token {
        Token::Word(word) => counter.push(xxh3_64_with_seed(word.as_bytes(), options.hash_seed)),
        Token::PageBreak => pages = pages.saturating_add(1),
    });
    let (keys, counts) = counter.finish();
    let distinct_words = keys.len() as u32;
    let kept = Lookup::new(kept_keys(keys, &counts, max_freq));
    drop(counts);
    let n = kept.len();
    // Words kept at most M > 1 times are taken at their first occurrence.
    let mut taken = vec![0u64; if max_freq > 1 { n.div_ceil(64) } else { 0 }];
    let mut guard = Guard::new(n, options);
    let mut position: u32 = 0;
    tokenise(text, |token| {
        if let Token::Word(word) = token {
            let key = xxh3_64_with_seed(word.as_bytes(), options.hash_seed);
            if let Some(at) = kept.find(key) {
                let first = match taken.get_mut(at / 64) {
                    None => true,
                    Some(bits) => {
                        let bit = 1u64 << (at % 64);
                        let first = *bits & bit == 0;
                        *bits |= bit;
                        first
                    }
                };
                if first {
                    guard.push(position, key as u32, word);
                }
            }
            position = position.saturating_add(1);
        }
    });
    let (sequence, alphabetical_dropped) = guard.finish();
    Features {
        sequence,
        words: token_stats.words,
        pages,
        distinct_words,
        alphabetical_dropped,
        token_stats,
    }
}

/// Counts of 64-bit word hashes: sorted distinct hashes and their counts,
/// saturating past M, and a run of hashes not yet sorted in.
struct Counter {
    keys: Vec<u64>,
    counts: Vec<u8>,
    run: Vec<u64>,
    run_counts: Vec<u8>,
    /// Counts stop here: only whether a count exceeds M matters.
    cap: u8,
    min_run: usize,
}

impl Counter {
    fn new(max_freq: u32, min_run: usize) -> Self {
        Counter {
            keys: Vec::new(),
            counts: Vec::new(),
            run: Vec::new(),
            run_counts: Vec::new(),
            cap: max_freq.saturating_add(1).min(u32::from(u8::MAX)) as u8,
            min_run: min_run.max(1),
        }
    }

    #[inline]
    fn push(&mut self, key: u64) {
        self.run.push(key);
        if self.run.len() >= self.min_run.max(self.keys.len() / 4) {
            self.merge_run();
        }
    }

    fn add(&self, a: u8, b: u8) -> u8 {
        (u16::from(a) + u16::from(b)).min(u16::from(self.cap)) as u8
    }

    /// Sorts the run, collapses it to distinct hashes with counts, and
    /// merges it into the sorted arrays from the back, in place.
    fn merge_run(&mut self) {
        self.run.sort_unstable();
        let mut distinct = 0;
        self.run_counts.clear();
        for i in 0..self.run.len() {
            let key = self.run[i];
            if distinct > 0 && self.run[distinct - 1] == key {
                let last = self.run_counts[distinct - 1];
                self.run_counts[distinct - 1] = self.add(last, 1);
            } else {
                self.run[distinct] = key;
                self.run_counts.push(1);
                distinct += 1;
            }
        }
        let old = self.keys.len();
        let total = old + distinct;
        self.keys.resize(total, 0);
        self.counts.resize(total, 0);
        // Merged from the back: `to` stays at or above `i + j`, so no
        // unread entry is overwritten.
        let (mut i, mut j, mut to) = (old, distinct, total);
        while j > 0 {
            to -= 1;
            let run_key = self.run[j - 1];
            if i > 0 && self.keys[i - 1] >= run_key {
                let (key, mut count) = (self.keys[i - 1], self.counts[i - 1]);
                if key == run_key {
                    count = self.add(count, self.run_counts[j - 1]);
                    j -= 1;
                }
                self.keys[to] = key;
                self.counts[to] = count;
                i -= 1;
            } else {
                self.keys[to] = run_key;
                self.counts[to] = self.run_counts[j - 1];
                j -= 1;
            }
        }
        // Entries 0..i are in place; hashes found in both left a gap.
        if to > i {
            self.keys.copy_within(to..total, i);
            self.counts.copy_within(to..total, i);
            let len = total - (to - i);
            self.keys.truncate(len);
            self.counts.truncate(len);
        }
        self.run.clear();
    }

    /// The sorted distinct hashes and their counts.
    fn finish(mut self) -> (Vec<u64>, Vec<u8>) {
        if !self.run.is_empty() {
            self.merge_run();
        }
        (self.keys, self.counts)
    }
}

/// The hashes of `keys` counted at most `max_freq` times whose low 32 bits
/// no other such hash shares, still sorted.
fn kept_keys(mut keys: Vec<u64>, counts: &[u8], max_freq: u32) -> Vec<u64> {
    let mut kept = 0;
    for i in 0..keys.len() {
        if u32::from(counts[i]) <= max_freq {
            keys[kept] = keys[i];
            kept += 1;
        }
    }
    keys.truncate(kept);
    let mut low: Vec<u32> = keys.iter().map(|&key| key as u32).collect();
    low.sort_unstable();
    let colliding: HashSet<u32> = low
        .windows(2)
        .filter(|pair| pair[0] == pair[1])
        .map(|pair| pair[0])
        .collect();
    drop(low);
    if !colliding.is_empty() {
        keys.retain(|&key| !colliding.contains(&(key as u32)));
    }
    keys.shrink_to_fit();
    keys
}

/// Sorted 64-bit hashes, found through a directory of their top bits (8 to
/// 16 hashes, one or two cache lines, per entry; 1 byte per hash or less).
struct Lookup {
    keys: Vec<u64>,
    /// `starts[t]..starts[t + 1]`: the hashes whose top bits are `t`.
    starts: Vec<usize>,
    shift: u32,
}

impl Lookup {
    fn new(keys: Vec<u64>) -> Self {
        let bits = keys.len().max(1).ilog2().saturating_sub(3).clamp(1, 40);
        let shift = 64 - bits;
        let mut starts = vec![0usize; (1usize << bits) + 1];
        for &key in &keys {
            starts[(key >> shift) as usize + 1] += 1;
        }
        for t in 1..starts.len() {
            starts[t] += starts[t - 1];
        }
        Lookup {
            keys,
            starts,
            shift,
        }
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// The index of `key`, if it is one of the hashes.
    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        let top = (key >> self.shift) as usize;
        let (start, end) = (self.starts[top], self.starts[top + 1]);
        self.keys[start..end]
            .iter()
            .position(|&k| k == key)
            .map(|at| start + at)
    }
}

/// One element of the sequence while the guard's windows over it are
/// undecided.
struct Pending {
    position: u32,
    hash: u32,
    word: String,
    dropped: bool,
}

/// The alphabetical-list guard over a stream of `n` elements: the windows
/// of the in-memory guard (width W, every W/2, the last one ending at the
/// last element), each evaluated once its last element arrives. Elements
/// before the next window's start are decided and leave the buffer.
struct Guard {
    n: usize,
    window: usize,
    step: usize,
    min_run: usize,
    active: bool,
    /// Start and end of the next window to evaluate.
    start: usize,
    end: usize,
    /// Elements received, and the index of the buffer's first.
    received: usize,
    base: usize,
    buffer: VecDeque<Pending>,
    spare_words: Vec<String>,
    hashes: Vec<u32>,
    positions: Vec<u32>,
    dropped: u32,
}

impl Guard {
    fn new(n: usize, options: &ExtractOptions) -> Self {
        let window = options.alpha_window as usize;
        Guard {
            n,
            window,
            step: (window / 2).max(1),
            min_run: (window * options.alpha_min_share_permille as usize).div_ceil(1000),
            active: window != 0 && n >= window,
            start: 0,
            end: window.min(n),
            received: 0,
            base: 0,
            buffer: VecDeque::new(),
            spare_words: Vec::new(),
            hashes: Vec::with_capacity(n),
            positions: Vec::with_capacity(n),
            dropped: 0,
        }
    }

    fn push(&mut self, position: u32, hash: u32, word: &str) {
        if !self.active {
            self.hashes.push(hash);
            self.positions.push(position);
            return;
        }
        let mut copy = self.spare_words.pop().unwrap_or_default();
        copy.clear();
        copy.push_str(word);
        self.buffer.push_back(Pending {
            position,
            hash,
            word: copy,
            dropped: false,
        });
        self.received += 1;
        if self.received == self.end {
            self.evaluate();
        }
    }

    /// Evaluates the window ending at the last element received, then
    /// releases the elements no later window covers.
    fn evaluate(&mut self) {
        let from = self.end - self.window - self.base;
        let words: Vec<&str> = self
            .buffer
            .range(from..from + self.window)
            .map(|p| p.word.as_str())
            .collect();
        if lis_len_by(&words, |a, b| a < b) >= self.min_run {
            for pending in self.buffer.range_mut(from..from + self.window) {
                pending.dropped = true;
            }
        }
        if self.end == self.n {
            self.release(self.n);
            return;
        }
        self.start += self.step;
        self.end = (self.start + self.window).min(self.n);
        self.release(self.end - self.window);
    }

    /// Moves the elements before index `until` out of the buffer.
    fn release(&mut self, until: usize) {
        while self.base < until {
            let Some(pending) = self.buffer.pop_front() else {
                break;
            };
            self.base += 1;
            if pending.dropped {
                self.dropped += 1;
            } else {
                self.hashes.push(pending.hash);
                self.positions.push(pending.position);
            }
            self.spare_words.push(pending.word);
        }
    }

    /// The sequence and the number of elements the guard dropped.
    fn finish(mut self) -> (UniqueWordSeq, u32) {
        // Every window was evaluated when the n-th element arrived; this
        // only matters if fewer arrived.
        self.release(usize::MAX);
        let sequence = UniqueWordSeq {
            hashes: self.hashes,
            positions: self.positions,
        };
        (sequence, self.dropped)
    }
}
