//! Engine-free batch kernels: the approximate all-pairs job cut into steps
//! that any engine can run on batches of books and move between machines
//! (a shuffle by key, a join by pair), with the same answers as
//! [`crate::Reader::pairs`] in [`crate::Mode::Approximate`] on the same books.
//!
//! The steps, each a pure function without I/O or global state:
//!
//! 1. [`features`]: a document's [`BookFeatures`]: each part's unique-word
//!    sequence, the band keys of each sketch table and the simhash, as the
//!    loader computes them.
//! 2. Candidates, grouped by key, then by pair of books: [`KeyListing`]s
//!    of each book ([`BookFeatures::key_listings`]) grouped by table and
//!    key give rows per pair of books ([`key_pair_rows`], keys listing
//!    more than the cap skipped; [`keep_key_pair`] decides the simhash and
//!    band tables, the shared min-hash values add up). [`SampleEntry`]s
//!    ([`BookFeatures::sample_entries`]) grouped by word give matches of
//!    parts ([`sample_matches`], [`sample_bucket_matches`]). Both kinds of
//!    row grouped by pair of books ([`pair_target`] addresses them;
//!    [`runs`] packs them for the move) give the candidates
//!    ([`candidate_pairs`]: the keep rules on the summed rows,
//!    [`sampled_matches_in_order`] on each pair of parts).
//! 3. [`part_pairs`]: the pairs of parts to align for one pair of books,
//!    and [`verify`]: their alignment, the best pair of parts and where
//!    the match lies.
//! 4. [`Components`]: clusters of the related pairs, deterministic.
//!
//! [`all_pairs`] runs the steps in one process; a distributed engine runs
//! the same steps with its shuffles, grouping by the same keys; rows of one
//! pair of books from any number of its steps add up to the same
//! candidates.

mod candidates;
mod components;
mod locate;
pub mod runs;
mod verify;

pub(crate) use candidates::least_sampled_lcs;
pub use candidates::{
    candidate_pairs, in_word_sample, keep_key_pair, key_pair_rows, pair_target,
    sample_bucket_matches, sample_in_order, sample_matches, sampled_matches_in_order,
    CandidatePair, Caps, KeyEntry, KeyListing, KeyPairRow, MatchRow, SampleEntry, KEY_CAP_DIVISOR,
    MAX_KEY_TABLE_PART_PAIRS, MIN_KEY_CAP, MIN_SAMPLED_LCS, MIN_SAMPLE_WORD_CAP, MIN_SHARED_VALUES,
    SAMPLED_ORDER_EVIDENCE, SAMPLE_WORD_CAP_DIVISOR, WORD_SAMPLE_RATE, WORD_SAMPLE_SALT,
};
pub use components::{clusters_by_key, Components};
pub use locate::{locate, locate_chain, Location, WordRange};
pub use verify::{part_pairs, verify, Verified};

use crate::align::Score;
use crate::error::Result;
pub use crate::load::{BookFeatures, FeatureOptions};

use crate::load::{extract_document, Document};

/// The features of `document`, as the loader computes them with `options`;
/// an error for what the loader refuses (a bad key, no words, binary text).
pub fn features(document: Document, options: &FeatureOptions) -> Result<BookFeatures> {
    let book = extract_document(
        document,
        &options.extract,
        &options.sketch,
        &options.parts,
        false,
    )?;
    Ok(BookFeatures {
        keys: book.sketch.keys,
        simhash: book.sketch.simhash,
        minhash: book.sketch.minhash,
        page_minhashes: book.page_signatures,
        key: book.document.key,
        title: book.document.title,
        author: book.document.author,
        language: book.document.language,
        words: book.words,
        pages: book.pages,
        bytes: book.bytes,
        distinct_words: book.distinct_words,
        invalid_utf8_sequences: book.invalid_utf8_sequences,
        encoding: book.encoding.to_string(),
        parts: book.parts,
    })
}

/// A pair of books the job found related, by their places in the input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchPair {
    /// The first book (the lower place).
    pub a: u32,
    /// The second book.
    pub b: u32,
    /// Its verification.
    pub verified: Verified,
}

/// Runs the job in one process over `books` (their places are their ids):
/// every pair scoring at least `min_score` under `score`, by `a` then `b`.
/// The reference for distributed runs of the same steps.
pub fn all_pairs(
    books: &[BookFeatures],
    options: &FeatureOptions,
    score: Score,
    min_score: f64,
) -> Vec<BatchPair> {
    let parts: usize = books.iter().map(|b| b.parts.len()).sum();
    let caps = Caps::for_collection(books.len(), parts);
    let mut listings: Vec<KeyListing> = (books.iter().enumerate())
        .flat_map(|(id, book)| book.key_listings(id as u32))
        .collect();
    let key_rows = key_pair_rows(&mut listings, caps, &options.sketch);
    let mut entries: Vec<SampleEntry> = (books.iter().enumerate())
        .flat_map(|(id, book)| book.sample_entries(id as u32))
        .collect();
    let mut match_rows = Vec::new();
    sample_matches(&mut entries, caps, |row| match_rows.push(row));
    let mut found = Vec::new();
    for candidate in candidate_pairs(key_rows, match_rows, &options.sketch) {
        let (x, y) = (&books[candidate.a as usize], &books[candidate.b as usize]);
        let pairs = part_pairs(
            x.parts.len() as u32,
            y.parts.len() as u32,
            candidate.from_keys,
            candidate.sampled,
        );
        if let Some(verified) = verify(x, y, &pairs, score, min_score) {
            found.push(BatchPair {
                a: candidate.a,
                b: candidate.b,
                verified,
            });
        }
    }
    found
}
