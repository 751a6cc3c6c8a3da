//! Relations of stored books: the matched word positions of a pair's
//! unique-word LCS, the sparse portion map they give, and the pair's class
//! ([`crate::relate`]). When both books have pages and their stored page
//! signatures show the same text or a subset, the class comes from them
//! (SAME_PAGINATION, DIFFERENT_PAGINATION, CONTIGUOUS_SUBSET); otherwise
//! from where the pair's matched pairs of parts lie ([`match_signals`]:
//! duplicate, contains, overlap, or unrelated when no pair of parts
//! reaches the default score's threshold, so that a pair the default
//! search lists is never unrelated).

use super::{Hit, Reader};
use crate::align::{AlignScratch, Score, SequenceIndex};
use crate::batch::{locate, WordRange};
use crate::error::{Error, Result};
use crate::relate::map::matched_positions_of_parts;
use crate::relate::{
    classify_books, classify_matched, MapOptions, MatchSignals, MatchedBook, OwnedPagedBook,
    PageOptions, PagedBook, PortionMap, Relation,
};
use crate::repr::minhash::{book_signature, page_codes, page_signatures};
use crate::repr::{MinHashSig, UniqueWordSeq};

use crate::text::{decode, PAGE_BREAK};

/// A book to relate to stored books: a stored one, or a new text extracted
/// with the index's options.
#[derive(Debug, Clone, Copy)]
pub struct RelationInput<'a> {
    /// The unique-word sequences of its parts ([`Reader::text_parts`]
    /// gives a new text's; one part unless it is a volume).
    pub parts: &'a [UniqueWordSeq],
    /// Its word count.
    pub words: u64,
    /// Its page signatures ([`Reader::pages_of_text`]); empty when it has
    /// no pages.
    pub pages: &'a [MinHashSig],
    /// Its book min-hash signature ([`Reader::signature_of_text`]), which
    /// the page signals compare with the other book's.
    pub signature: &'a MinHashSig,
}

impl Reader {
    /// The word positions (in `a`, in `b`) of the matched unique words of
    /// the stored books `a` and `b`, increasing in both: one LCS of their
    /// sequences, or for volumes the chained LCS of their parts
    /// ([`matched_positions_of_parts`]). `UnknownKey` when either is not
    /// stored (`InvalidArgument` when its key breaks the key rule).
    pub fn matched_positions(&self, a: &str, b: &str) -> Result<Vec<(u32, u32)>> {
        Ok(matched_positions_of_parts(&self.parts(a)?, &self.parts(b)?))
    }

    /// The sparse portion map of a book given by its parts' unique-word
    /// sequences and word count (a stored book, or a new text extracted
    /// with the index's options, [`Reader::text_parts`]) and the stored
    /// book `b`.
    pub fn portion_map_with(
        &self,
        parts: &[UniqueWordSeq],
        words: u64,
        b: &str,
        options: &MapOptions,
    ) -> Result<PortionMap> {
        let other = self.book(b)?;
        PortionMap::from_parts(
            parts,
            word_count(words, "the first book")?,
            &self.parts(b)?,
            word_count(other.words, b)?,
            options,
        )
    }

    /// The sparse portion map of the stored books `a` and `b`.
    pub fn portion_map(&self, a: &str, b: &str, options: &MapOptions) -> Result<PortionMap> {
        let words = self.book(a)?.words;
        self.portion_map_with(&self.parts(a)?, words, b, options)
    }

    /// The stored page signatures of the book under `key`, in page order:
    /// empty when it has one page or when the index stores no pages (format
    /// 2 and older). They are read on each call: one record of a page file
    /// of the reader's snapshot (from memory, in format 3).
    pub fn pages(&self, key: &str) -> Result<Vec<MinHashSig>> {
        let slot = self.slot_of(key)?;
        Ok(self.pages_of_slot(slot)?.unwrap_or_default())
    }

    /// The page signatures of a new text, made and reduced as the index
    /// stores them (page min-hash signatures with their values cut to 32 bits): empty when the text has no
    /// page break or the index stores no pages.
    pub fn pages_of_text(&self, text: &str) -> Vec<MinHashSig> {
        match self.store.sketch_options() {
            Some(sketch) if text.contains(PAGE_BREAK) => {
                page_signatures(text, &sketch.window_options())
                    .iter()
                    .map(page_codes)
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The book min-hash signature of a new text, made as the index makes
    /// a stored book's: empty (no positions) when the index has no sketches.
    pub fn signature_of_text(&self, text: &str) -> MinHashSig {
        match self.store.sketch_options() {
            Some(sketch) => book_signature(text, &sketch.book),
            None => MinHashSig::default(),
        }
    }

    /// The stored book min-hash signature of the book under `key`: every
    /// value `u64::MAX` when it has no sketch.
    fn signature(&self, key: &str) -> Result<MinHashSig> {
        let (r, position) = self.runs().locate_slot(self.slot_of(key)?);
        Ok(self.runs().segments()[r].minhash(position))
    }

    /// The relation of the stored books `a` and `b` (see the module docs).
    /// Their parts are read from the barrels only when the pages do not
    /// decide.
    pub fn relation(&self, a: &str, b: &str) -> Result<Relation> {
        let score = Score::default();
        self.relation_under(a, b, score, score.default_threshold())
    }

    /// [`Reader::relation`], with the pairs of parts that reach
    /// `min_score` under `score` as the matched ones: a pair listed under
    /// that score and threshold is never unrelated.
    pub fn relation_under(
        &self,
        a: &str,
        b: &str,
        score: Score,
        min_score: f64,
    ) -> Result<Relation> {
        let a_book = self.paged_book(a, true)?;
        let b_book = self.paged_book(b, !a_book.pages.is_empty())?;
        classify_books(
            &a_book.view(),
            &b_book.view(),
            &PageOptions::default(),
            || {
                let words = word_count(self.book(a)?.words, a)?;
                self.relation_by_parts(&self.parts(a)?, words, b, (score, min_score))
            },
        )
    }

    /// The relation of `a` to the stored book `b` (see the module docs).
    pub fn relation_with(&self, a: &RelationInput<'_>, b: &str) -> Result<Relation> {
        let score = Score::default();
        self.relation_with_under(a, b, (score, score.default_threshold()))
    }

    /// [`Reader::relation_with`], with the pairs of parts reaching
    /// `accepted` (a score and its threshold) as the matched ones.
    fn relation_with_under(
        &self,
        a: &RelationInput<'_>,
        b: &str,
        accepted: (Score, f64),
    ) -> Result<Relation> {
        let a_book = PagedBook {
            pages: a.pages,
            signature: a.signature,
        };
        let b_book = self.paged_book(b, !a.pages.is_empty())?;
        classify_books(&a_book, &b_book.view(), &PageOptions::default(), || {
            let words = word_count(a.words, "the first book")?;
            self.relation_by_parts(a.parts, words, b, accepted)
        })
    }

    /// The relation of a book of `words` words and `parts` to the stored
    /// book `b`, from where their matched pairs of parts (those reaching
    /// `accepted`) lie.
    fn relation_by_parts(
        &self,
        parts: &[UniqueWordSeq],
        words: u32,
        b: &str,
        accepted: (Score, f64),
    ) -> Result<Relation> {
        let b_words = word_count(self.book(b)?.words, b)?;
        let signals = match_signals(parts, words, &self.parts(b)?, b_words, accepted);
        Ok(classify_matched(&signals))
    }

    /// The relation of each hit to the stored book `key` (a query by key
    /// under `score`): `None` for a hit in another language (a
    /// translation), whose text is not comparable word by word. A hit's
    /// best pair of parts counts as matched whatever the threshold, so no
    /// hit is unrelated.
    pub fn hit_relations_of_key(
        &self,
        key: &str,
        hits: &[Hit],
        score: Score,
    ) -> Result<Vec<Option<Relation>>> {
        relations_of_hits(hits, score, |other, accepted| {
            self.relation_under(key, other, accepted.0, accepted.1)
        })
    }

    /// The relation of each hit to a new text (a query by text: its bytes,
    /// decoded and extracted as a load would), as
    /// [`Reader::hit_relations_of_key`].
    pub fn hit_relations_of_text(
        &self,
        text: &[u8],
        hits: &[Hit],
        score: Score,
    ) -> Result<Vec<Option<Relation>>> {
        let text = decode(text).text;
        let (parts, words) = self.parts_and_words(&text);
        let pages = self.pages_of_text(&text);
        // Only a paged text is classified by its pages and signature.
        let signature = match pages.is_empty() {
            true => MinHashSig::default(),
            false => self.signature_of_text(&text),
        };
        let input = RelationInput {
            parts: &parts,
            words,
            pages: &pages,
            signature: &signature,
        };
        relations_of_hits(hits, score, |other, accepted| {
            self.relation_with_under(&input, other, accepted)
        })
    }

    /// The stored book `key`'s pages and signature when `wanted` (a pair is
    /// classified by pages only when both books have them), else none; its
    /// signature is read only when it has pages.
    fn paged_book(&self, key: &str, wanted: bool) -> Result<OwnedPagedBook> {
        let pages = match wanted {
            true => self.pages(key)?,
            false => Vec::new(),
        };
        let signature = match pages.is_empty() {
            true => MinHashSig::default(),
            false => self.signature(key)?,
        };
        Ok(OwnedPagedBook { pages, signature })
    }
}

/// Where the match of two books (given by their parts and word counts)
/// lies: every pair of parts is aligned and valued by `score`; those
/// reaching `threshold` (and above 0) are the *matched* pairs of parts,
/// and in each book the match spans from the first to the last word of
/// their located matches ([`locate`]: one LCS, stray ends trimmed). When
/// no pair of parts reaches the threshold, the best-valued one gives the
/// ranges (and the books are unrelated).
pub(crate) fn match_signals(
    a: &[UniqueWordSeq],
    a_words: u32,
    b: &[UniqueWordSeq],
    b_words: u32,
    (score, threshold): (Score, f64),
) -> MatchSignals {
    let mut scratch = AlignScratch::default();
    let (mut matched, mut best) = (0u32, None::<(f64, usize, usize)>);
    let (mut in_a, mut in_b) = (None::<[u32; 2]>, None::<[u32; 2]>);
    let widen = |range: &mut Option<[u32; 2]>, words: WordRange| {
        let [start, end] = range.get_or_insert([words.start, words.end]);
        *start = (*start).min(words.start);
        *end = (*end).max(words.end);
    };
    for (i, x) in a.iter().enumerate() {
        let index = SequenceIndex::new(&x.hashes);
        for (j, y) in b.iter().enumerate() {
            let value = score.value(&index.align(&y.hashes, &mut scratch));
            if best.is_none_or(|(v, _, _)| value > v) {
                best = Some((value, i, j));
            }
            if value > 0.0 && value >= threshold {
                matched += 1;
                let location = locate(x, i as u32, y, j as u32);
                widen(&mut in_a, location.words_x);
                widen(&mut in_b, location.words_y);
            }
        }
    }
    if let (0, Some((_, i, j))) = (matched, best) {
        let location = locate(&a[i], i as u32, &b[j], j as u32);
        widen(&mut in_a, location.words_x);
        widen(&mut in_b, location.words_y);
    }
    MatchSignals::new(
        MatchedBook::new(a_words, in_a.unwrap_or_default()),
        MatchedBook::new(b_words, in_b.unwrap_or_default()),
        matched,
    )
}

/// `words` as a map's u32 word count.
fn word_count(words: u64, book: &str) -> Result<u32> {
    u32::try_from(words).map_err(|_| {
        Error::InvalidArgument(format!(
            "{book} has {words} words; portion maps take at most {}",
            u32::MAX
        ))
    })
}

/// `relate(key, accepted)` for each hit in the query's language, `None`
/// for the rest (translations): `accepted` is `score` at the lower of its
/// default threshold and the hit's score, so the hit's own best pair of
/// parts is matched.
fn relations_of_hits(
    hits: &[Hit],
    score: Score,
    relate: impl Fn(&str, (Score, f64)) -> Result<Relation>,
) -> Result<Vec<Option<Relation>>> {
    hits.iter()
        .map(|hit| match hit.relation {
            None => {
                let threshold = score.default_threshold().min(hit.score);
                relate(&hit.key, (score, threshold)).map(Some)
            }
            Some(_) => Ok(None),
        })
        .collect()
}
