//! Books given by their features ([`BookFeatures`]: everything an index
//! stores of a book, which [`crate::batch::features`] computes from a
//! document) instead of their text: checked, since they come from outside
//! (a Parquet file, another engine), then turned into the
//! [`ExtractedBook`] their document would have given, which the loader
//! stores the same way.

use std::collections::HashSet;

use super::{Document, ExtractedBook};
use crate::error::{Error, Result};
use crate::keys;
use crate::repr::sketch::{BandLayout, Table};
use crate::repr::{
    BookSketch, ExtractOptions, MinHashSig, PartOptions, SimHash128, SketchOptions, UniqueWordSeq,
};
use crate::storage::barrel::MAX_RECORD_ELEMENTS;
use crate::storage::segment::SketchRecord;
use crate::text::ENCODINGS;

/// The options features are computed with: those of an index created with
/// defaults unless changed. Books compared must share them.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureOptions {
    /// Unique-word extraction.
    pub extract: ExtractOptions,
    /// Sketches and band tables.
    pub sketch: SketchOptions,
    /// Cutting volumes into parts.
    pub parts: PartOptions,
}

impl FeatureOptions {
    /// `InvalidArgument` naming the first field out of its range, as
    /// [`crate::IndexBuilder::create`] would refuse it. Options read from
    /// outside (a features file's metadata) are checked with this before
    /// anything is computed with them.
    pub fn validate(&self) -> Result<()> {
        self.extract.validate()?;
        self.sketch.validate()?;
        self.parts.validate()
    }
}

/// Everything an index stores of one book, computed from its document:
/// what the all-pairs job needs (parts, band keys, simhash) and what an
/// index built from features alone needs besides (the metadata, the book
/// and page min-hash signatures). Its Arrow and Parquet layout is in
/// `docs/batch-format.md`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BookFeatures {
    /// The book's key.
    pub key: String,
    /// Its title (may be empty).
    pub title: String,
    /// Its author (may be empty).
    pub author: String,
    /// Its language (ISO 639-3, or "und" when not known).
    pub language: String,
    /// Its words.
    pub words: u64,
    /// Its pages (1 when the text has no page break).
    pub pages: u32,
    /// Bytes of its text.
    pub bytes: u64,
    /// Its distinct words.
    pub distinct_words: u32,
    /// Invalid UTF-8 sequences replaced in its text.
    pub invalid_utf8_sequences: u64,
    /// The encoding its text was decoded from.
    pub encoding: String,
    /// Each part's unique-word sequence: hashes and word positions.
    pub parts: Vec<UniqueWordSeq>,
    /// The band keys of each sketch table, in [`Table::ALL`] order, each
    /// sorted and without duplicates.
    pub keys: [Vec<u64>; 4],
    /// The book's simhash.
    pub simhash: SimHash128,
    /// The book's min-hash signature.
    pub minhash: MinHashSig,
    /// Each page's min-hash signature; empty when the text has no page
    /// break.
    pub page_minhashes: Vec<MinHashSig>,
}

impl BookFeatures {
    /// `Ok` when these features, computed with `options`, can go into an
    /// index whose options are `index` ([`crate::Index::feature_options`])
    /// as [`crate::BulkLoader::add_features`] would take them:
    /// `InvalidArgument` when the options differ, else `BadDocument`
    /// naming `source_name` and the problem when they are not what a
    /// document gives: a key breaking the key rule, a part whose hashes
    /// repeat or whose positions do not increase strictly or pass the
    /// book's words, a min-hash signature of another length than the
    /// options' K, page signatures not one per page of the window-hash
    /// count, keys out of order or not those of the signature and simhash,
    /// an unknown encoding, counts out of range.
    pub fn check(
        &self,
        options: &FeatureOptions,
        index: &FeatureOptions,
        source_name: &str,
    ) -> Result<()> {
        check(self, options, index, source_name)
    }
}

/// `InvalidArgument` naming `source_name` and what differs unless features
/// computed with `given` options can go into an index of `index` options.
fn check_options(given: &FeatureOptions, index: &FeatureOptions, source_name: &str) -> Result<()> {
    let mut differ = Vec::new();
    if given.extract != index.extract {
        differ.push(format!(
            "extraction ({:?} against the index's {:?})",
            given.extract, index.extract
        ));
    }
    if given.sketch != index.sketch {
        differ.push(format!(
            "sketch ({:?} against the index's {:?})",
            given.sketch, index.sketch
        ));
    }
    if given.parts != index.parts {
        differ.push(format!(
            "parts ({:?} against the index's {:?})",
            given.parts, index.parts
        ));
    }
    if differ.is_empty() {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "{source_name}: features computed with other options than the index's cannot go into \
         it: {}; create the index with the features' options, or compute them again with the \
         index's",
        differ.join("; ")
    )))
}

/// The encoding `features` name, as the engine's own name: `""` (not
/// known: an index does not keep it) or one of [`ENCODINGS`].
fn encoding_of(name: &str) -> Option<&'static str> {
    match name {
        "" => Some(""),
        _ => ENCODINGS.iter().copied().find(|&known| known == name),
    }
}

/// `Ok` when `features`, computed with `options`, are what a document
/// gives under those options; else why not.
fn problem(features: &BookFeatures, options: &FeatureOptions) -> Result<(), String> {
    if let Err(reason) = keys::check_key(&features.key) {
        return Err(format!(
            "bad key {}: {reason} ({})",
            keys::display_key(&features.key),
            keys::KEY_RULE
        ));
    }
    for (name, value) in [
        ("title", &features.title),
        ("author", &features.author),
        ("language", &features.language),
    ] {
        if value.len() > u32::MAX as usize {
            return Err(format!("its {name} takes 4 GiB or more"));
        }
    }
    if !crate::lang::is_code(&features.language) {
        let shown: String = features.language.chars().take(16).collect();
        let more = if shown.len() < features.language.len() {
            "…"
        } else {
            ""
        };
        return Err(format!(
            "language \"{}{more}\": not an ISO 639-3 code (three lowercase letters; \"und\" \
             when it is not known)",
            crate::keys::display_key(&shown)
        ));
    }
    if features.words == 0 || features.words >= u64::from(u32::MAX) {
        return Err(format!(
            "{} words: a book has 1 to 2^32 - 2 words",
            features.words
        ));
    }
    if features.distinct_words == 0 || u64::from(features.distinct_words) > features.words {
        return Err(format!(
            "{} distinct words of {} words",
            features.distinct_words, features.words
        ));
    }
    if features.pages == 0 {
        return Err("0 pages: a book has at least 1".into());
    }
    if encoding_of(&features.encoding).is_none() {
        return Err(format!(
            "unknown encoding {:?} (known: {}, or empty when not known)",
            features.encoding,
            ENCODINGS.join(", ")
        ));
    }
    if features.parts.is_empty() {
        return Err("no part: a book has at least one".into());
    }
    let mut unique_words = 0u64;
    for (i, part) in features.parts.iter().enumerate() {
        if part.hashes.len() != part.positions.len() {
            return Err(format!(
                "part {i}: {} hashes but {} positions",
                part.hashes.len(),
                part.positions.len()
            ));
        }
        if part.hashes.len() > MAX_RECORD_ELEMENTS as usize {
            return Err(format!("part {i}: over 2^26 unique words"));
        }
        unique_words += part.hashes.len() as u64;
        if let Some(w) = part.positions.windows(2).position(|w| w[0] >= w[1]) {
            return Err(format!(
                "part {i}: positions not strictly increasing (element {} at {}, then {})",
                w + 1,
                part.positions[w],
                part.positions[w + 1]
            ));
        }
        if let Some(&last) = part.positions.last() {
            if u64::from(last) >= features.words {
                return Err(format!(
                    "part {i}: word position {last} past the book's {} words",
                    features.words
                ));
            }
        }
        let mut seen = HashSet::with_capacity(part.hashes.len());
        if let Some(hash) = part.hashes.iter().find(|&&h| !seen.insert(h)) {
            return Err(format!("part {i}: hash {hash:#010x} listed twice"));
        }
    }
    if unique_words > u64::from(u32::MAX) {
        return Err("its parts hold over 2^32 unique words".into());
    }
    let k = options.sketch.book.num_hashes;
    if features.minhash.0.len() != k {
        return Err(format!(
            "a min-hash signature of {} values; the options' K is {k}",
            features.minhash.0.len()
        ));
    }
    let page_hashes = options.sketch.window_hashes;
    let expected_pages = match features.pages {
        0 | 1 => 0,
        pages => pages as usize,
    };
    if features.page_minhashes.len() != expected_pages {
        return Err(format!(
            "{} page signatures for {} pages (one per page when it has 2 or more, else none)",
            features.page_minhashes.len(),
            features.pages
        ));
    }
    if let Some((page, signature)) = features
        .page_minhashes
        .iter()
        .enumerate()
        .find(|(_, s)| s.0.len() != page_hashes)
    {
        return Err(format!(
            "page {page}: a signature of {} values; the options' window-hash count is {page_hashes}",
            signature.0.len()
        ));
    }
    if 4 * page_hashes as u64 * u64::from(features.pages) >= u64::from(u32::MAX) - 64 {
        return Err("too many pages: their signatures take 4 GiB or more".into());
    }
    // The keys of the book, simhash and value tables follow from the
    // signature and the simhash: they must be those. The window keys do
    // not (the windows are not kept): they are checked in order and in
    // number, at most the keys of as many windows as the book's words make.
    let windows = BandLayout::max_windows(features.words, options.sketch.window_shingles);
    let most = windows.saturating_mul(options.sketch.window_layout.keys_per_signature() as u64);
    let window_keys = features.keys[Table::Window as usize].len() as u64;
    if window_keys > most {
        return Err(format!(
            "{window_keys} window keys: a book of {} words has at most {windows} windows, \
             {most} window keys",
            features.words
        ));
    }
    let derived = BookSketch {
        book: features.minhash.clone(),
        windows: Vec::new(),
        simhash: features.simhash,
        pages: Vec::new(),
    };
    for (table, keys) in Table::ALL.iter().zip(&features.keys) {
        if let Some(w) = keys.windows(2).position(|w| w[0] >= w[1]) {
            return Err(format!(
                "{} keys not ascending without duplicates (at key {})",
                table.name(),
                w + 1
            ));
        }
        if *table != Table::Window && *keys != derived.keys(*table, &options.sketch) {
            return Err(format!(
                "{} keys are not those of its min-hash signature and simhash",
                table.name()
            ));
        }
    }
    Ok(())
}

/// Checks `features` computed with `given` options for an index of
/// `index` options (see [`BookFeatures::check`]).
pub(crate) fn check(
    features: &BookFeatures,
    given: &FeatureOptions,
    index: &FeatureOptions,
    source_name: &str,
) -> Result<()> {
    check_options(given, index, source_name)?;
    problem(features, index).map_err(|reason| Error::BadDocument {
        source_name: source_name.to_string(),
        reason,
    })
}

/// The book `features` describe, checked (see [`check`]), as its
/// document would have been extracted.
pub(crate) fn book_from_features(
    features: BookFeatures,
    given: &FeatureOptions,
    index: &FeatureOptions,
    source_name: &str,
) -> Result<ExtractedBook> {
    check(&features, given, index, source_name)?;
    let encoding = encoding_of(&features.encoding).expect("checked above");
    let unique_words = features.parts.iter().map(|p| p.hashes.len() as u32).sum();
    Ok(ExtractedBook {
        document: Document {
            key: features.key,
            title: features.title,
            author: features.author,
            language: features.language,
            text: Vec::new(),
            source_name: source_name.to_string(),
        },
        bytes: features.bytes,
        parts: features.parts,
        // Features made outside an index carry no passages.
        passages: Vec::new(),
        unique_words,
        words: features.words,
        pages: features.pages,
        distinct_words: features.distinct_words,
        invalid_utf8_sequences: features.invalid_utf8_sequences,
        encoding,
        sketch: SketchRecord {
            book_id: 0,
            simhash: features.simhash,
            minhash: features.minhash,
            keys: features.keys,
        },
        page_signatures: features.page_minhashes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repr::ShingleHash;

    #[test]
    fn options_written_before_the_shingle_hash_are_refused_by_an_index_of_word_hashes() {
        let index = FeatureOptions::default();
        let json = serde_json::to_string(&index).unwrap();
        let older = json.replace(r#","shingle_hash":"word_hashes""#, "");
        assert_ne!(older, json, "{json}");
        let given: FeatureOptions = serde_json::from_str(&older).unwrap();
        assert_eq!(given.sketch.book.shingle_hash, ShingleHash::JoinedWords);
        let error = check_options(&given, &index, "old.parquet").unwrap_err();
        assert!(error.to_string().contains("sketch"), "{error}");
        // An index of joined words, created before format 17, takes them.
        let mut joined = index;
        joined.sketch.book.shingle_hash = ShingleHash::JoinedWords;
        check_options(&given, &joined, "old.parquet").unwrap();
    }
}
