//! Candidate pairs from keys grouped across books: the band-key tables'
//! book pairs and the word sample's pairs of parts, with the caps that
//! keep a bucket's work bounded.

use crate::align::{lcs_beyond_chance, Overlap};
use crate::repr::minhash::mix64;
use crate::repr::sketch::Table;
use std::collections::HashMap;

use crate::repr::{SimHash128, SketchOptions};

use super::BookFeatures;

/// A key listing more than `max(MIN_KEY_CAP, books / KEY_CAP_DIVISOR)`
/// books is skipped as uninformative: shared boilerplate such as licence
/// text, or simhash bands on which every book of one language agrees. Each
/// skipped key is counted in [`SourceCounts::skipped_keys`](crate::SourceCounts::skipped_keys). The cap keeps
/// the candidates of one key, and so the verification work, bounded.
pub const MIN_KEY_CAP: usize = 64;
/// See [`MIN_KEY_CAP`]: keys shared by more than 1% of the books are skipped.
pub const KEY_CAP_DIVISOR: usize = 100;
/// Least number of book min-hash positions on which a book must agree with
/// the query to be proposed by the value table.
pub const MIN_SHARED_VALUES: u32 = 3;

/// A book proposed by the key tables is aligned part by part with the
/// query only when that makes at most this many pairs of parts: book
/// sketches do not say which part matched. 64 covers a book of one part
/// against a volume (a volume of 2M words has 121 parts; of 1M, 61) and
/// leaves a volume against a volume, thousands of pairs, to the word
/// sample. With 4, a 10,000-book generated collection whose works share
/// one vocabulary (so the word sample's cap leaves out nearly every
/// sampled word) found 0.8% of its works inside volumes in approximate
/// mode; the sets of `stemmata generate` found the same with 4 or all.
pub const MAX_KEY_TABLE_PART_PAIRS: u64 = 64;

/// A sampled word unique in more than `max(MIN_SAMPLE_WORD_CAP, parts /
/// SAMPLE_WORD_CAP_DIVISOR)` parts is left out of the sample's postings
/// (so a join scans at most that many entries per sampled word, and its
/// cost grows with the collection, not with its square): such lists are
/// where a join spends its time, and their words are what unrelated books
/// share by vocabulary alone. Measured (generated volumes sets, 2,000
/// parts): a cap of 64 lost the small works, whose words are common across
/// parts (approximate recall 0.85 of exact's), 128 kept 0.965, 256 kept
/// 0.994 like no cap at all; on 3,000 generated books of 20K words, the
/// approximate self-join took 9 s at 64, 15 s at 256 and 42 s with no cap
/// (7.7 s without the word sample; exact mode 121 s).
pub const MIN_SAMPLE_WORD_CAP: usize = 256;
/// See [`MIN_SAMPLE_WORD_CAP`]: the cap stays 256 up to 102,400 parts.
pub const SAMPLE_WORD_CAP_DIVISOR: usize = 400;
/// Least LCS of two sampled sequences for their parts to be proposed.
pub const MIN_SAMPLED_LCS: u32 = 6;
/// How far above chance the LCS of two sampled sequences must stand, in
/// units of chance's spread (see [`sample_in_order`]).
pub const SAMPLED_ORDER_EVIDENCE: f64 = 2.0;

/// Whether two sampled sequences share enough words in order: an LCS of at
/// least [`MIN_SAMPLED_LCS`] and at least `2·√c + Z·c^(1/6)`, c being their
/// common words and Z [`SAMPLED_ORDER_EVIDENCE`]. Common words in random
/// order have an LCS of about `2·√c − 1.8·c^(1/6)` with a spread of about
/// `c^(1/6)` (the reasoning of [`crate::Score::Order`], whose margin is
/// wider because it decides; this one only proposes). The in-order term
/// of the default score needs about 85 common words in order, so their
/// sample holds about 20.
pub fn sample_in_order(overlap: &Overlap) -> bool {
    f64::from(overlap.lcs) >= least_sampled_lcs(overlap.common)
}

/// The least LCS [`sample_in_order`] accepts for `common` common words;
/// it grows with `common`.
pub(crate) fn least_sampled_lcs(common: u32) -> f64 {
    f64::from(MIN_SAMPLED_LCS).max(lcs_beyond_chance(common, SAMPLED_ORDER_EVIDENCE))
}

/// One unique word in `WORD_SAMPLE_RATE`, by hash, is in the word sample
/// (approximate mode).
pub const WORD_SAMPLE_RATE: u64 = 4;
/// Salt of the word sample's hash.
pub const WORD_SAMPLE_SALT: u64 = 0x3a4d_11e5_9b0c_7e21;

/// Whether the unique word `word` (its 32-bit hash) is in the word sample.
pub fn in_word_sample(word: u32) -> bool {
    mix64(u64::from(word) ^ WORD_SAMPLE_SALT).is_multiple_of(WORD_SAMPLE_RATE)
}

/// One band key of one book: grouped by (table, key) across books.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyEntry {
    /// The key's table.
    pub table: Table,
    /// The key.
    pub key: u64,
}

/// One sampled unique word of one part of one book: grouped by word across
/// books. Sorts by book, part, then index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SampleEntry {
    /// The book's id.
    pub book: u32,
    /// The part of the book.
    pub part: u32,
    /// The word's index in the part's unique-word sequence.
    pub index: u32,
    /// The word's hash.
    pub word: u32,
}

/// The caps of a collection: a band key listing more books than `key`, or
/// a sampled word unique in more parts than `sample`, proposes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Most books a band key may list.
    pub key: usize,
    /// Most parts a sampled word may be listed in.
    pub sample: usize,
}

impl Caps {
    /// The caps of a collection of `books` books of `parts` parts in all,
    /// as an index of those books has them.
    pub fn for_collection(books: usize, parts: usize) -> Caps {
        Caps {
            key: MIN_KEY_CAP.max(books / KEY_CAP_DIVISOR),
            sample: MIN_SAMPLE_WORD_CAP.max(parts / SAMPLE_WORD_CAP_DIVISOR),
        }
    }
}

impl BookFeatures {
    /// Its band keys, table by table.
    pub fn key_entries(&self) -> impl Iterator<Item = KeyEntry> + '_ {
        Table::ALL.into_iter().flat_map(move |table| {
            self.keys[table as usize]
                .iter()
                .map(move |&key| KeyEntry { table, key })
        })
    }

    /// Its band keys, table by table, as listed by the book `book`.
    pub fn key_listings(&self, book: u32) -> impl Iterator<Item = KeyListing> + '_ {
        self.key_entries().map(move |entry| KeyListing {
            entry,
            book,
            simhash: self.simhash,
        })
    }

    /// Its sampled unique words, part by part, as the book `book`.
    pub fn sample_entries(&self, book: u32) -> impl Iterator<Item = SampleEntry> + '_ {
        self.parts
            .iter()
            .enumerate()
            .flat_map(move |(part, sequence)| {
                sequence
                    .hashes
                    .iter()
                    .enumerate()
                    .filter(|&(_, &word)| in_word_sample(word))
                    .map(move |(index, &word)| SampleEntry {
                        book,
                        part: part as u32,
                        index: index as u32,
                        word,
                    })
            })
    }
}

/// Whether a pair of books sharing `shared` keys of `table` is proposed:
/// a simhash key only within the Hamming distance, the min-hash values
/// only when at least [`MIN_SHARED_VALUES`] are shared.
pub fn keep_key_pair(
    table: Table,
    shared: u32,
    simhash_a: SimHash128,
    simhash_b: SimHash128,
    options: &SketchOptions,
) -> bool {
    match table {
        Table::Value => shared >= MIN_SHARED_VALUES,
        Table::SimHash => shared > 0 && simhash_a.hamming(&simhash_b) <= options.simhash_distance,
        Table::Book | Table::Window => shared > 0,
    }
}

/// The matches of one sampled word (`entries`: its listings, sorted): each
/// pair of listings in two different books, the lower book first; none
/// when it is listed in more parts than the cap.
pub fn sample_bucket_matches(
    entries: &[SampleEntry],
    caps: Caps,
) -> Vec<(SampleEntry, SampleEntry)> {
    if entries.len() > caps.sample {
        return Vec::new();
    }
    let mut matches = Vec::new();
    for (i, x) in entries.iter().enumerate() {
        matches.extend(
            entries[i + 1..]
                .iter()
                .filter(|y| y.book != x.book)
                .map(|y| (*x, *y)),
        );
    }
    matches
}

/// Whether the sampled words two parts share (`matches`: each word's
/// index in the one part and in the other, in any order) stand enough in
/// order for the parts to be aligned: [`sample_in_order`] on their LCS.
pub fn sampled_matches_in_order(matches: &[(u32, u32)]) -> bool {
    let common = matches.len() as u32;
    if f64::from(common) < least_sampled_lcs(common) {
        return false;
    }
    let mut sorted = matches.to_vec();
    sorted.sort_unstable();
    let lcs = increasing_run(sorted.iter().map(|&(_, j)| j));
    f64::from(lcs) >= least_sampled_lcs(common)
}

/// The length of the longest strictly increasing subsequence of `values`
/// (patience sorting).
fn increasing_run(values: impl Iterator<Item = u32>) -> u32 {
    let mut tails: Vec<u32> = Vec::new();
    for value in values {
        let at = tails.partition_point(|&t| t < value);
        match tails.get_mut(at) {
            Some(tail) => *tail = value,
            None => tails.push(value),
        }
    }
    tails.len() as u32
}

/// A match of the word sample as a row: `[a, b, part_a, part_b, index_a,
/// index_b]`, one sampled word at `index_a` in part `part_a` of book `a`
/// and at `index_b` in part `part_b` of book `b`, `a < b`.
pub type MatchRow = [u32; 6];

/// A pair of books as the key tables see it, as a row: `[a, b, shared << 1
/// | proposed]`, `a < b`, `shared` the min-hash values they share and
/// `proposed` whether a band key of another table proposes them. Rows of
/// one pair add up: their `shared` counts sum, their `proposed` bits join.
pub type KeyPairRow = [u32; 3];

/// The matches of the sampled words listed in `entries`, each word with
/// every listing of it in the collection, in any order (they are sorted by
/// word here): each word's bucket as [`sample_bucket_matches`] gives them.
pub fn sample_matches(entries: &mut [SampleEntry], caps: Caps, mut found: impl FnMut(MatchRow)) {
    entries.sort_unstable_by_key(|e| (e.word, e.book, e.part, e.index));
    for bucket in entries.chunk_by(|x, y| x.word == y.word) {
        for (x, y) in sample_bucket_matches(bucket, caps) {
            found([x.book, y.book, x.part, y.part, x.index, y.index]);
        }
    }
}

/// One band key listed by one book, with the book's simhash (which the
/// simhash table's rule reads): grouped by key across books.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyListing {
    /// The key and its table.
    pub entry: KeyEntry,
    /// The book's id.
    pub book: u32,
    /// The book's simhash.
    pub simhash: SimHash128,
}

/// The pairs of books that the band keys listed in `listings` propose or
/// count toward, each key with every book listing it in the collection, in
/// any order (they are sorted by key here), one row per pair: a bucket of
/// two to `caps.key` books gives each of its pairs a shared value (value
/// table) or, when [`keep_key_pair`] keeps a pair sharing one key of the
/// bucket's table, the `proposed` bit.
pub fn key_pair_rows(
    listings: &mut [KeyListing],
    caps: Caps,
    options: &SketchOptions,
) -> Vec<KeyPairRow> {
    listings.sort_unstable_by_key(|l| (l.entry, l.book));
    let mut pairs: HashMap<(u32, u32), (u32, bool)> = HashMap::new();
    for bucket in listings.chunk_by(|x, y| x.entry == y.entry) {
        if bucket.len() < 2 || bucket.len() > caps.key {
            continue;
        }
        let table = bucket[0].entry.table;
        for (i, x) in bucket.iter().enumerate() {
            for y in bucket[i + 1..].iter().filter(|y| y.book != x.book) {
                let pair = pairs.entry((x.book, y.book)).or_default();
                match table {
                    Table::Value => pair.0 = pair.0.saturating_add(1),
                    _ => pair.1 |= keep_key_pair(table, 1, x.simhash, y.simhash, options),
                }
            }
        }
    }
    (pairs.into_iter())
        .map(|((a, b), (shared, proposed))| {
            [a, b, shared.min(u32::MAX >> 1) << 1 | u32::from(proposed)]
        })
        .collect()
}

/// A pair of books to verify: whether the key tables propose it, and the
/// pairs of parts (ascending) whose sampled words stand in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandidatePair {
    /// The first book's id.
    pub a: u32,
    /// The second book's id, above `a`.
    pub b: u32,
    /// Whether the key tables propose the pair.
    pub from_keys: bool,
    /// (part of a, part of b) of the pairs of parts the sample proposes.
    pub sampled: Vec<(u32, u32)>,
}

/// The candidate pairs that `key_rows` and `match_rows` make, each pair of
/// books with all its rows among them (from any number of steps, in any
/// order): per pair, ascending, the key tables' verdict ([`keep_key_pair`]
/// on the summed min-hash values, or a proposing key) and the pairs of
/// parts whose matches [`sampled_matches_in_order`] keeps; pairs with
/// neither are left out.
pub fn candidate_pairs(
    mut key_rows: Vec<KeyPairRow>,
    mut match_rows: Vec<MatchRow>,
    options: &SketchOptions,
) -> Vec<CandidatePair> {
    // Stable sorts: rows that come as ascending runs merge in one pass.
    key_rows.sort();
    match_rows.sort();
    let mut found: Vec<CandidatePair> = Vec::new();
    let no_simhash = SimHash128::default();
    for rows in key_rows.chunk_by(|x, y| x[..2] == y[..2]) {
        let shared = rows
            .iter()
            .fold(0u32, |sum, row| sum.saturating_add(row[2] >> 1));
        let proposed = rows.iter().any(|row| row[2] & 1 == 1)
            || keep_key_pair(Table::Value, shared, no_simhash, no_simhash, options);
        if proposed {
            found.push(CandidatePair {
                a: rows[0][0],
                b: rows[0][1],
                from_keys: true,
                sampled: Vec::new(),
            });
        }
    }
    let mut sampled: Vec<CandidatePair> = Vec::new();
    let mut matches = Vec::new();
    for rows in match_rows.chunk_by(|x, y| x[..4] == y[..4]) {
        matches.clear();
        matches.extend(rows.iter().map(|row| (row[4], row[5])));
        if !sampled_matches_in_order(&matches) {
            continue;
        }
        let [a, b, part_a, part_b, ..] = rows[0];
        match sampled.last_mut() {
            Some(last) if (last.a, last.b) == (a, b) => last.sampled.push((part_a, part_b)),
            _ => sampled.push(CandidatePair {
                a,
                b,
                from_keys: false,
                sampled: vec![(part_a, part_b)],
            }),
        }
    }
    merge_candidates(found, sampled)
}

/// The pairs of `from_keys` and `sampled` (each ascending by pair, each
/// pair once) in one list, a pair in both taking its keys' verdict and its
/// sampled parts.
fn merge_candidates(
    from_keys: Vec<CandidatePair>,
    sampled: Vec<CandidatePair>,
) -> Vec<CandidatePair> {
    let mut merged = Vec::with_capacity(from_keys.len() + sampled.len());
    let mut sampled = sampled.into_iter().peekable();
    for keyed in from_keys {
        while let Some(next) = sampled.next_if(|s| (s.a, s.b) < (keyed.a, keyed.b)) {
            merged.push(next);
        }
        match sampled.next_if(|s| (s.a, s.b) == (keyed.a, keyed.b)) {
            Some(both) => merged.push(CandidatePair {
                from_keys: true,
                ..both
            }),
            None => merged.push(keyed),
        }
    }
    merged.extend(sampled);
    merged
}

/// The step, of `targets`, that the rows of the pair of books `a`, `b` go
/// to in a distributed run: every row of one pair to one step, pairs spread
/// evenly.
pub fn pair_target(a: u32, b: u32, targets: u32) -> u32 {
    (mix64(u64::from(a) << 32 | u64::from(b)) % u64::from(targets.max(1))) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_sampled_lcs_grows_from_its_floor() {
        assert_eq!(least_sampled_lcs(0), 6.0);
        // 2·√c + 2·c^(1/6) from 9 common words on: 6 + 2.88…
        assert!(
            (least_sampled_lcs(9) - 8.884).abs() < 1e-3,
            "{}",
            least_sampled_lcs(9)
        );
    }

    #[test]
    fn rows_of_one_pair_from_several_steps_add_up() {
        let options = SketchOptions::default();
        // Shared min-hash values, one per step: three make a proposal,
        // two do not; a proposing key of another table does alone.
        let one_value = 1 << 1;
        let key_rows = vec![
            [1, 2, one_value],
            [1, 3, one_value],
            [1, 2, one_value],
            [4, 5, 1],
            [1, 3, one_value],
            [1, 2, one_value],
        ];
        // Nine sampled words in order in parts 0 and 2 of books 1 and 3,
        // from two steps; three out of order in parts 1 and 0.
        let mut match_rows: Vec<MatchRow> = (0..9).map(|i| [1, 3, 0, 2, i, 10 + i]).collect();
        match_rows.extend((0..3).map(|i| [1, 3, 1, 0, i, 9 - i]));
        match_rows.reverse();
        let found = candidate_pairs(key_rows, match_rows, &options);
        let pair = |a, b, from_keys, sampled: &[(u32, u32)]| CandidatePair {
            a,
            b,
            from_keys,
            sampled: sampled.to_vec(),
        };
        assert_eq!(
            found,
            vec![
                pair(1, 2, true, &[]),
                pair(1, 3, false, &[(0, 2)]),
                pair(4, 5, true, &[]),
            ]
        );
    }

    #[test]
    fn a_step_lands_where_its_pair_does() {
        let targets = (0..1000).map(|b| pair_target(7, b, 8));
        let mut counts = [0u32; 8];
        for target in targets {
            counts[target as usize] += 1;
        }
        // Spread evenly: each of 8 steps gets 125 ± 40 of 1,000 pairs.
        assert!(
            counts.iter().all(|&n| (85..=165).contains(&n)),
            "{counts:?}"
        );
        assert_eq!(pair_target(7, 9, 0), 0);
    }
}
