//! Translation search (TRANSNIQ, thesis chapter 5): a book's unique words,
//! each replaced in place by its translations into another language, are
//! joined with the unique words of that language's books by the same
//! planner as same-language search.
//!
//! **The translated sequence.** Uniqueness is decided on the source book
//! before translation: its unique-word sequence X (the stored one) has each
//! element replaced by the hashes of all its translations, in place; an
//! element without one stays as it is, since names and cognates survive
//! translation. A word of Y pairs with an element of X when it is one of
//! its translations (or the element itself, untranslated). An LCS takes at
//! most one pair per element of X and one per element of Y; the common
//! count is the number of pairs; and scores divide by the original |X|,
//! never by the translated length. The score and its threshold are the
//! same-language ones ([`crate::Score`]): the default, [`crate::Score::Order`],
//! judges the LCS against the longest increasing run chance gives so many
//! pairs, so a dictionary's many translations per word (more pairs, a
//! longer chance run) raise the bar by themselves.
//!
//! **Exact mode** counts pairs per part from the postings of the translated
//! hashes ([`Probe::Translated`]), bounds them as same-language candidates
//! are bounded, prunes against the k-th best book score and verifies by LCS
//! ([`Reader::plan_exact`]), over the books of the target language only.
//! Its answer equals aligning the translated query with every book of that
//! language ([`Reader::brute_force_translations`]). **Approximate mode**
//! takes its candidates from the word sample's postings of the translated
//! hashes, as same-language approximate mode does for contained works.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::passage_windows::{windowed_pair, windows_of, WINDOW_PASSAGES};
use super::planner::{BestPerBook, Explain, Hit, QueryOptions, QueryResult, Ranked};
use super::postings::{Join, Probe};
use super::query_book::QueryBook;
use super::{Mode, Reader};
use crate::align::{lis_indices, lis_span, Overlap};
use crate::batch::{locate_chain, Location, WordRange};
use crate::error::Result;
use crate::lang::is_known;
use crate::relate::TranslationShape;
use crate::repr::passages::{passage_ranges, passage_word_hash, PASSAGE_WORDS};
use crate::repr::unique_words::word_hash;
use crate::repr::PartOptions;
use crate::repr::UniqueWordSeq;
use crate::translate::lexicon::Lexicon;
use crate::translate::roman_numeral;

/// A part's unique words translated into another language: each element
/// of X replaced by its translations' hashes (or kept), with the element
/// each hash stands for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Translated {
    /// The hashes, in X's order; an element's translations ascending.
    hashes: Vec<u32>,
    /// `groups[e]`: the index in X of `hashes[e]`.
    groups: Vec<u32>,
    /// The distinct (hash, index in X) pairs, by hash, then by descending
    /// index in X: what aligning with a sequence looks its words up in.
    by_hash: Vec<(u32, u32)>,
    /// |X|.
    len_x: u32,
}

impl Translated {
    /// X (its unique-word hashes) translated by `translations`: the
    /// sorted, distinct hashes of a word's translations, empty when it has
    /// none. An untranslated word that `numbering` holds is left out.
    pub(crate) fn new<'t>(
        x: &[u32],
        translations: impl Fn(u32) -> &'t [u32],
        numbering: &Numbering,
    ) -> Self {
        let mut translated = Translated {
            len_x: x.len() as u32,
            ..Translated::default()
        };
        for (i, &hash) in x.iter().enumerate() {
            match translations(hash) {
                [] if numbering.holds(hash) => {}
                [] => {
                    translated.hashes.push(hash);
                    translated.groups.push(i as u32);
                }
                words => {
                    translated.hashes.extend_from_slice(words);
                    translated
                        .groups
                        .extend(std::iter::repeat_n(i as u32, words.len()));
                }
            }
        }
        let mut by_hash: Vec<(u32, u32)> = translated
            .hashes
            .iter()
            .zip(&translated.groups)
            .map(|(&h, &g)| (h, g))
            .collect();
        by_hash.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        by_hash.dedup();
        translated.by_hash = by_hash;
        translated
    }

    /// The join's probe for it.
    pub(crate) fn probe(&self) -> Probe<'_> {
        Probe::Translated {
            hashes: &self.hashes,
            groups: &self.groups,
        }
    }

    /// |X|: what scores divide by.
    pub(crate) fn len_x(&self) -> u32 {
        self.len_x
    }

    /// Aligns it with the unique-word sequence `y` directly: every pair
    /// (element of X, element of Y) of one word, the pairs of one element
    /// of Y in descending order of X, and the longest strictly increasing
    /// run through them. The reference the planner's answer equals.
    pub(crate) fn align(&self, y: &[u32]) -> Overlap {
        let (in_x, in_y) = self.pairs_with(y);
        let (lcs, span_x, span_y) = lis_span(&in_x, &in_y);
        Overlap {
            len_x: self.len_x,
            len_y: y.len() as u32,
            common: in_x.len() as u32,
            lcs,
            span_x,
            span_y,
        }
    }
}

impl Translated {
    /// Every pair (element of X, element of Y) of one word, as parallel
    /// lists: in Y's order, the pairs of one element of Y in descending
    /// order of X.
    fn pairs_with(&self, y: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let by_hash = &self.by_hash;
        let (mut in_x, mut in_y) = (Vec::new(), Vec::new());
        for (j, &hash) in y.iter().enumerate() {
            let first = by_hash.partition_point(|&(h, _)| h < hash);
            for &(_, i) in by_hash[first..].iter().take_while(|&&(h, _)| h == hash) {
                in_x.push(i);
                in_y.push(j as u32);
            }
        }
        (in_x, in_y)
    }

    /// One longest chain of translation pairs (element of X, element of
    /// Y) between X (`x`, the sequence it translates) and `y`, as indexes
    /// into them: what [`locate_chain`] locates a match by, as
    /// [`crate::batch::locate`] does a same-language match. With a
    /// `neighbourhood`, only pairs whose words lie in it (word ranges of
    /// X's book and of Y's) are chained.
    fn chain(
        &self,
        x: &UniqueWordSeq,
        y: &UniqueWordSeq,
        neighbourhood: Option<&Neighbourhood>,
    ) -> Vec<(u32, u32)> {
        let (mut in_x, mut in_y) = self.pairs_with(&y.hashes);
        if let Some(near) = neighbourhood {
            let at = |seq: &UniqueWordSeq, i: u32| {
                u64::from(seq.positions.get(i as usize).copied().unwrap_or(u32::MAX))
            };
            let kept: Vec<bool> = in_x
                .iter()
                .zip(&in_y)
                .map(|(&i, &j)| near.x.contains(&at(x, i)) && near.y.contains(&at(y, j)))
                .collect();
            let mut k = kept.iter();
            in_x.retain(|_| *k.next().unwrap_or(&false));
            let mut k = kept.iter();
            in_y.retain(|_| *k.next().unwrap_or(&false));
        }
        lis_indices(&in_x)
            .into_iter()
            .map(|k| (in_x[k as usize], in_y[k as usize]))
            .collect()
    }
}

/// The passages of `passages` (those there are) from `reach` before the
/// window that starts at passage `window` to `reach` after it, as one
/// sequence, in text order.
fn around(passages: &[UniqueWordSeq], window: u32, reach: u32) -> UniqueWordSeq {
    let start = window.saturating_sub(reach) as usize;
    let last = window
        .saturating_add(WINDOW_PASSAGES - 1)
        .saturating_add(reach);
    let end = (last as usize + 1).min(passages.len());
    let mut joined = UniqueWordSeq::default();
    for passage in passages.get(start..end).unwrap_or(&[]) {
        joined.hashes.extend_from_slice(&passage.hashes);
        joined.positions.extend_from_slice(&passage.positions);
    }
    joined
}

/// A book whose translation match is located: its parts (with their word
/// positions), its passages (positions exact for a new text, spread evenly
/// over each passage for a stored book, whose passages store none) and
/// its words.
pub(crate) struct LocatedBook<'a> {
    pub(crate) parts: &'a [UniqueWordSeq],
    pub(crate) passages: &'a [UniqueWordSeq],
    pub(crate) words: u64,
}

/// Pairs of books whose shorter one has at most this share of the
/// longer's words are also searched passage to passage: a work inside a
/// volume (ARCHITECTURE.md, "Translations inside volumes").
pub(crate) const PASSAGE_PATH_SHARE: f64 = 0.15;

/// Whether books of `a` and `b` words are searched passage to passage.
pub(crate) fn passage_pair(a: u64, b: u64) -> bool {
    let (short, long) = (a.min(b), a.max(b));
    short > 0 && short as f64 <= PASSAGE_PATH_SHARE * long as f64
}

/// Whether an all-pairs run searches the pair of the books in slots `a`
/// and `b` (of two known languages) from `a`: a work inside a volume
/// ([`passage_pair`]) from its shorter book (the lower slot on a tie), so
/// that the passage path joins the work's few passages with the volume's
/// windows and never the volume's many passages with every work; any
/// other pair from its book whose language code sorts first.
pub(crate) fn searched_from(languages: &Languages, a: u32, b: u32) -> bool {
    let (words_a, words_b) = (languages.words(a), languages.words(b));
    match passage_pair(words_a, words_b) {
        true => (words_a, a) < (words_b, b),
        false => languages.of(a) < languages.of(b),
    }
}

/// The books of other languages a translation search pairs its query with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Partners {
    /// Every book: a query.
    All,
    /// The books whose pair with the stored book in this slot an
    /// all-pairs run searches from it ([`searched_from`]).
    SearchedFrom(u32),
}

impl Partners {
    /// Whether the book in slot `b` is one.
    fn keeps(self, languages: &Languages, b: u32) -> bool {
        match self {
            Partners::All => true,
            Partners::SearchedFrom(a) => searched_from(languages, a, b),
        }
    }

    /// Whether books of language `target` may be ones for a query of
    /// `words` words in language `from`.
    fn may_be_in(self, languages: &Languages, (from, target): (&str, &str), words: u64) -> bool {
        match self {
            Partners::All => target != from,
            Partners::SearchedFrom(_) => {
                target > from
                    || languages
                        .find(target)
                        .is_some_and(|c| languages.holds_volume_for(c, words))
            }
        }
    }

    /// Whether books of the language numbered `code` may be ones that a
    /// query of `words` words searches passage to passage.
    fn any_passage_partner(self, languages: &Languages, code: u16, words: u64) -> bool {
        match self {
            Partners::All => languages.any_passage_pair(code, words),
            Partners::SearchedFrom(_) => languages.holds_volume_for(code, words),
        }
    }
}

/// The word ranges of two books that a match found window to window (of
/// passages) is located within.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Neighbourhood {
    pub(crate) x: std::ops::Range<u64>,
    pub(crate) y: std::ops::Range<u64>,
}

impl Neighbourhood {
    /// For the windows of passages starting at `(passage_x, passage_y)`
    /// of books of `x_words` and `y_words` words: the shorter book whole,
    /// and on the longer one its window widened on either side by the
    /// shorter book's length (a work longer than a passage is located
    /// whole).
    pub(crate) fn around(
        (passage_x, passage_y): (u32, u32),
        x_words: u64,
        y_words: u64,
    ) -> Neighbourhood {
        let widened = |passage: u32, by: u64| {
            let len = u64::from(PASSAGE_WORDS);
            let start = u64::from(passage) * len;
            start.saturating_sub(by)..start + u64::from(WINDOW_PASSAGES) * len + by
        };
        match x_words <= y_words {
            true => Neighbourhood {
                x: 0..u64::MAX,
                y: widened(passage_y, x_words),
            },
            false => Neighbourhood {
                x: widened(passage_x, y_words),
                y: 0..u64::MAX,
            },
        }
    }
}

/// The part of a book of `words` words, cut by `parts`, that holds most
/// of the window of passages starting at `passage`, widened by `widen`
/// words on either side (the first such part): where a match found by
/// that window and a work of `widen` words lies.
fn part_around(parts: &PartOptions, words: u64, passage: u32, widen: u64) -> u32 {
    let len = u64::from(PASSAGE_WORDS);
    let start = u64::from(passage) * len;
    let end = start + u64::from(WINDOW_PASSAGES) * len + widen;
    let window = start.saturating_sub(widen)..end.min(words);
    let overlap = |r: &std::ops::Range<u64>| {
        r.end
            .min(window.end)
            .saturating_sub(r.start.max(window.start))
    };
    let mut best = (0, 0);
    for (i, range) in parts.ranges(words).iter().enumerate() {
        if i == 0 || overlap(range) > best.1 {
            best = (i, overlap(range));
        }
    }
    best.0 as u32
}

/// The shape of a translation match spanning `x_range` of a book of
/// `x_words` words and `y_range` of one of `y_words`.
pub(crate) fn shape_of(
    x_words: u64,
    x_range: WordRange,
    y_words: u64,
    y_range: WordRange,
) -> TranslationShape {
    let words = |w: u64| u32::try_from(w).unwrap_or(u32::MAX);
    TranslationShape::of(
        words(x_words),
        [x_range.start, x_range.end],
        words(y_words),
        [y_range.start, y_range.end],
    )
}

/// The hashes of the Roman numerals from 1 to 3999 (`i` to `mmmcmxcix`),
/// under an index's word hash. Untranslated words are kept in a translated
/// sequence because names survive translation, but numbering survives it
/// in every numbered book: chapter numbers, a table of contents, a sonnet
/// sequence. Kept, the numerals of two unrelated numbered books align in
/// order (on the development corpus, Shakespeare's sonnets and the table
/// of contents of *Les trois mousquetaires*, 60 numerals in a row), so they
/// are left out. A numeral a dictionary translates is translated.
#[derive(Debug, Default)]
pub(crate) struct Numbering {
    hashes: Vec<u32>,
}

impl Numbering {
    /// The numerals under `hash` with `hash_seed`.
    pub(crate) fn new(hash_seed: u64, hash: fn(&str, u64) -> u32) -> Self {
        let mut hashes: Vec<u32> = (1..4000)
            .map(|n| hash(&roman_numeral(n), hash_seed))
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        Numbering { hashes }
    }

    fn holds(&self, hash: u32) -> bool {
        self.hashes.binary_search(&hash).is_ok()
    }
}

/// The language and length of every book of a snapshot, by slot.
#[derive(Debug, Default)]
pub(crate) struct Languages {
    /// The distinct languages.
    codes: Vec<String>,
    /// Each slot's index in `codes` (dead slots and unreadable entries
    /// included: they are never searched).
    of_slot: Vec<u16>,
    /// Each slot's words (0 for dead slots and unreadable entries): which
    /// pairs the passage path searches.
    words: Vec<u64>,
    /// The fewest and the most words of a live book of each language (by
    /// its index in `codes`).
    word_range: Vec<(u64, u64)>,
}

impl Languages {
    /// The index of `code` in the table, if a book has it.
    fn find(&self, code: &str) -> Option<u16> {
        self.codes.iter().position(|c| c == code).map(|i| i as u16)
    }

    /// Whether the book in `slot` is in the language numbered `code`.
    fn is(&self, slot: u32, code: u16) -> bool {
        self.of_slot.get(slot as usize) == Some(&code)
    }

    /// The languages of the books, `und` and unrecorded ones excluded:
    /// those a translation search may target.
    pub(crate) fn targets(&self) -> impl Iterator<Item = &str> {
        self.codes
            .iter()
            .map(String::as_str)
            .filter(|&code| is_known(code))
    }

    /// Whether a live book of the language numbered `code` and a book of
    /// `words` words are searched passage to passage ([`passage_pair`]).
    fn any_passage_pair(&self, code: u16, words: u64) -> bool {
        self.word_range
            .get(usize::from(code))
            .is_some_and(|&(fewest, most)| passage_pair(words, fewest) || passage_pair(words, most))
    }

    /// Whether the language numbered `code` has a book that a book of
    /// `words` words is a work inside ([`passage_pair`], the other book
    /// the longer).
    fn holds_volume_for(&self, code: u16, words: u64) -> bool {
        self.word_range
            .get(usize::from(code))
            .is_some_and(|&(_, most)| most > words && passage_pair(words, most))
    }

    /// Whether a book of the language numbered `code` and a book of
    /// `words` words are searched window to window ([`windowed_pair`]).
    fn any_windowed_pair(&self, code: u16, words: u64) -> bool {
        self.any_passage_pair(code, words)
            && self
                .word_range
                .get(usize::from(code))
                .is_some_and(|&(fewest, _)| windowed_pair(words, fewest))
    }

    /// Widens the word range of the language numbered `code` to `words`.
    fn note_words(&mut self, code: u16, words: u64) {
        let code = usize::from(code);
        if self.word_range.len() <= code {
            self.word_range.resize(code + 1, (u64::MAX, 0));
        }
        if let Some((fewest, most)) = self.word_range.get_mut(code) {
            *fewest = (*fewest).min(words);
            *most = (*most).max(words);
        }
    }

    /// The words of the book in `slot`.
    pub(crate) fn words(&self, slot: u32) -> u64 {
        self.words.get(slot as usize).copied().unwrap_or(0)
    }

    /// The language of the book in `slot` (empty when unknown).
    pub(crate) fn of(&self, slot: u32) -> &str {
        self.of_slot
            .get(slot as usize)
            .and_then(|&i| self.codes.get(i as usize))
            .map_or("", String::as_str)
    }
}

/// Two languages, from and to.
type LanguagePair = (String, String);

/// A lexicon's key: its languages, and whether its words are hashed by
/// their prefixes (the passages' hash).
type LexiconKey = (LanguagePair, bool);

/// The translation lexicons a reader built, by (from, to): built on first
/// use from the index's dictionaries, `None` when none joins the two.
#[derive(Debug)]
pub(crate) struct LexiconCache {
    /// By language pair and whether words are hashed by their prefixes
    /// (the passages' hash).
    built: Mutex<HashMap<LexiconKey, Option<Arc<Lexicon>>>>,
    numbering: std::sync::OnceLock<Numbering>,
    /// The numerals under the passages' prefix hash.
    passage_numbering: std::sync::OnceLock<Numbering>,
    /// Whether two languages no dictionary joins are joined through
    /// English.
    pivot: bool,
}

impl Default for LexiconCache {
    fn default() -> Self {
        LexiconCache::with_pivot(true)
    }
}

impl LexiconCache {
    /// An empty cache, joining languages through English when `pivot`.
    pub(crate) fn with_pivot(pivot: bool) -> Self {
        LexiconCache {
            built: Mutex::default(),
            numbering: std::sync::OnceLock::new(),
            passage_numbering: std::sync::OnceLock::new(),
            pivot,
        }
    }
}

impl Reader {
    /// The Roman numerals under the index's word hash.
    fn numbering(&self) -> &Numbering {
        self.lexicons
            .numbering
            .get_or_init(|| Numbering::new(self.store.extract_options().hash_seed, word_hash))
    }

    /// The Roman numerals under the passages' prefix hash.
    fn passage_numbering(&self) -> &Numbering {
        self.lexicons.passage_numbering.get_or_init(|| {
            Numbering::new(self.store.extract_options().hash_seed, passage_word_hash)
        })
    }

    /// The lexicon translating `from` into `to`, if a dictionary of the
    /// index joins them (in either direction), or, with pivot translation
    /// on, dictionaries join each of them to English.
    pub(crate) fn lexicon(&self, from: &str, to: &str) -> Result<Option<Arc<Lexicon>>> {
        self.lexicon_of(from, to, false)
    }

    /// [`Reader::lexicon`] of the passages: words hashed by their prefixes
    /// ([`passage_word_hash`]).
    pub(crate) fn passage_lexicon(&self, from: &str, to: &str) -> Result<Option<Arc<Lexicon>>> {
        self.lexicon_of(from, to, true)
    }

    /// [`Reader::passage_lexicon`] when the index stores passages (an
    /// empty one otherwise, or when no dictionary joins the languages), so
    /// that an index without passages builds none.
    fn passage_lexicon_if_stored(&self, from: &str, to: &str) -> Result<Arc<Lexicon>> {
        Ok(match self.passage_reader() {
            Some(_) => self.passage_lexicon(from, to)?.unwrap_or_default(),
            None => Arc::default(),
        })
    }

    fn lexicon_of(&self, from: &str, to: &str, prefixes: bool) -> Result<Option<Arc<Lexicon>>> {
        let key = ((from.to_string(), to.to_string()), prefixes);
        if let Some(built) = self
            .lexicons
            .built
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok(built.clone());
        }
        let hash = match prefixes {
            true => passage_word_hash,
            false => word_hash,
        };
        let built = crate::store::dictionaries::lexicon_with(
            &self.store,
            from,
            to,
            self.lexicons.pivot,
            hash,
        )?
        .map(Arc::new);
        self.lexicons
            .built
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, built.clone());
        Ok(built)
    }

    /// Builds every lexicon between two languages of the books, both ways,
    /// so that an error reading the dictionaries is reported before an
    /// all-pairs run starts.
    pub(crate) fn build_lexicons(&self) -> Result<()> {
        let languages = self.languages();
        for from in languages.targets() {
            for to in languages.targets().filter(|&to| to != from) {
                self.lexicon(from, to)?;
            }
        }
        Ok(())
    }

    /// Adds to `result` (of the same-language search for `query`) the
    /// translation hits of `query`, in every language a dictionary joins
    /// the query's to; the hits, merged, keep the best `top_k` by score
    /// (a book found both ways keeps its better hit). A query whose
    /// language is unknown finds none.
    pub(crate) fn add_translations(
        &self,
        query: &QueryBook<'_>,
        options: &QueryOptions,
        result: &mut QueryResult,
    ) -> Result<()> {
        let started = Instant::now();
        let from = result.language.clone();
        if !is_known(&from) {
            return Ok(());
        }
        let hashes = self.query_hashes(query);
        let mut explain = Explain::default();
        let mut best = BestPerBook::default();
        let for_translations = options.for_translations();
        self.offer_translations(
            query,
            &hashes,
            &from,
            Partners::All,
            &for_translations,
            &mut explain,
            &mut best,
        )?;
        let ranked = best.into_top(options.top_k);
        let passages: Vec<_> = ranked.iter().map(|r| r.passages).collect();
        let mut translated = self.hits_from(query, ranked)?;
        self.locate_translation_hits(query, &from, &mut translated, &passages)?;
        super::planner::merge_translations(&mut result.hits, translated, &from, options.top_k);
        let e = &mut result.explain;
        e.candidates += explain.candidates;
        e.entries_scanned += explain.entries_scanned;
        e.frequent_words += explain.frequent_words;
        e.within_bound += explain.within_bound;
        e.lcs_runs += explain.lcs_runs;
        e.hits = result.hits.len() as u64;
        e.elapsed += started.elapsed();
        Ok(())
    }

    /// Locates each of `hits` (translation hits of `query`, in language
    /// `from`; `passages[i]` the pair of passages that found `hits[i]`, if
    /// any) by its translation alignment, and gives it its shape.
    fn locate_translation_hits(
        &self,
        query: &QueryBook<'_>,
        from: &str,
        hits: &mut [Hit],
        passages: &[Option<(u32, u32)>],
    ) -> Result<()> {
        if hits.is_empty() {
            return Ok(());
        }
        let stored;
        let query_book = match *query {
            QueryBook::Stored(slot) => {
                let words = self.info(slot)?.words;
                stored = (
                    self.parts_of_slot(slot)?,
                    self.stored_passages(slot, words, 0..usize::MAX),
                );
                LocatedBook {
                    parts: &stored.0,
                    passages: &stored.1,
                    words,
                }
            }
            QueryBook::Text(text) => LocatedBook {
                parts: &text.parts,
                passages: &text.passages,
                words: text.words,
            },
        };
        let query_words = query_book.words;
        for (hit, &passages) in hits.iter_mut().zip(passages) {
            let slot = self.slot_of(&hit.key)?;
            let hit_words = self.info(slot)?.words;
            let location = self.locate_translated(
                &query_book,
                from,
                slot,
                (hit.query_part, hit.hit_part),
                passages,
            )?;
            hit.query_words = location.words_x;
            hit.hit_words = location.words_y;
            hit.translation_shape = Some(shape_of(
                query_words,
                location.words_x,
                hit_words,
                location.words_y,
            ));
        }
        Ok(())
    }

    /// Where the translation match of part `part_x` of `x_parts` (of a
    /// book of `x_words` words, in language `from`) with part `part_y` of
    /// the book in `slot` lies: the part translated into that book's
    /// language and aligned with its part ([`Translated::locate`]), within
    /// the [`Neighbourhood`] of `passages` (the first passages of two
    /// windows) when the match was found window to window. When the
    /// passages around the windows chain more words than the parts do
    /// there (words unique in a passage need not be unique in its part),
    /// it is located by the passages.
    pub(crate) fn locate_translated(
        &self,
        x: &LocatedBook<'_>,
        from: &str,
        slot: u32,
        (part_x, part_y): (u32, u32),
        passages: Option<(u32, u32)>,
    ) -> Result<Location> {
        let to = self.languages().of(slot).to_string();
        let Some(lexicon) = self.lexicon(from, &to)? else {
            return self.locate_parts(x.parts, slot, (part_x, part_y));
        };
        let translate = |seq: &UniqueWordSeq| {
            Translated::new(&seq.hashes, |h| lexicon.translations(h), self.numbering())
        };
        let y_parts = self.parts_of_slot(slot)?;
        let y_words = self.languages().words(slot);
        let neighbourhood = passages.map(|pair| Neighbourhood::around(pair, x.words, y_words));
        let (Some(x_part), Some(y_part)) =
            (x.parts.get(part_x as usize), y_parts.get(part_y as usize))
        else {
            return Ok(Location::default());
        };
        let by_parts = translate(x_part).chain(x_part, y_part, neighbourhood.as_ref());
        if let Some((passage_x, passage_y)) = passages {
            // The passages around the pair, as far as the shorter book
            // reaches on the longer one (the shorter one whole).
            let reach = x.words.min(y_words).div_ceil(u64::from(PASSAGE_WORDS)) as u32;
            let xp = around(x.passages, passage_x, reach);
            // Only the longer book's passages that `around` takes are read.
            let first = passage_y.saturating_sub(reach);
            let last = passage_y
                .saturating_add(WINDOW_PASSAGES - 1)
                .saturating_add(reach);
            let nearby = self.stored_passages(slot, y_words, first as usize..last as usize + 1);
            let yp = around(&nearby, passage_y - first, reach);
            let passage_lexicon = self.passage_lexicon(from, &to)?.unwrap_or_default();
            let by_passages = Translated::new(
                &xp.hashes,
                |h| passage_lexicon.translations(h),
                self.passage_numbering(),
            )
            .chain(&xp, &yp, None);
            if by_passages.len() > by_parts.len() {
                return Ok(locate_chain(&by_passages, &xp, part_x, &yp, part_y));
            }
        }
        Ok(locate_chain(&by_parts, x_part, part_x, y_part, part_y))
    }

    /// Passages `which` (those there are) of the stored book in `slot` (of
    /// `words` words), each element at a position spread evenly over its
    /// passage (passages store no positions); none when the index stores
    /// no passages.
    pub(crate) fn stored_passages(
        &self,
        slot: u32,
        words: u64,
        which: std::ops::Range<usize>,
    ) -> Vec<UniqueWordSeq> {
        let Some(view) = self.passage_reader() else {
            return Vec::new();
        };
        let count = which.end.saturating_sub(which.start);
        view.part_range(slot)
            .zip(passage_ranges(words))
            .skip(which.start)
            .take(count)
            .map(|(passage, range)| {
                let hashes = view.runs().part_hashes(passage).to_vec();
                let (n, len) = (hashes.len().max(1) as u64, range.end - range.start);
                let positions = (0..hashes.len() as u64)
                    .map(|i| (range.start + i * len / n) as u32)
                    .collect();
                UniqueWordSeq { hashes, positions }
            })
            .collect()
    }

    /// The books' languages, read from their entries on first use.
    pub(crate) fn languages(&self) -> &Languages {
        self.languages.get_or_init(|| {
            let mut languages = Languages::default();
            for slot in 0..self.runs().slot_count() {
                let (code, words) = match self.runs().entry(slot) {
                    Ok((entry, _)) if !self.runs().is_dead(slot) => (entry.language, entry.words),
                    _ => (String::new(), 0),
                };
                languages.words.push(words);
                let index = match languages.find(&code) {
                    Some(index) => index,
                    None if languages.codes.len() < u16::MAX as usize => {
                        languages.codes.push(code);
                        (languages.codes.len() - 1) as u16
                    }
                    None => u16::MAX,
                };
                if words > 0 {
                    languages.note_words(index, words);
                }
                languages.of_slot.push(index);
            }
            languages
        })
    }

    /// Offers to `best` the books that the query's parts (`hashes`), in
    /// language `from`, translate to under `options` (those of
    /// [`QueryOptions::for_translations`]), in every language of the books
    /// that a dictionary joins `from` to, of the books `partners` keeps.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn offer_translations(
        &self,
        query: &QueryBook<'_>,
        hashes: &[Cow<'_, [u32]>],
        from: &str,
        partners: Partners,
        options: &QueryOptions,
        explain: &mut Explain,
        best: &mut BestPerBook,
    ) -> Result<()> {
        let languages = self.languages();
        let words = self.query_words(query, languages);
        for target in languages
            .targets()
            .filter(|&t| partners.may_be_in(languages, (from, t), words))
        {
            let Some(lexicon) = self.lexicon(from, target)? else {
                continue;
            };
            let passage_lexicon = self.passage_lexicon_if_stored(from, target)?;
            self.offer_translations_to(
                query,
                hashes,
                languages,
                (target, partners),
                (
                    |h| lexicon.translations(h),
                    |h| passage_lexicon.translations(h),
                ),
                options,
                explain,
                best,
            );
        }
        Ok(())
    }

    /// Offers to `best` the books of language `target` (of those
    /// `partners` keeps) that the query's parts (`hashes`), translated by
    /// `words`, reach under `options` (its mode, score, threshold and k),
    /// each with its best pair of parts; and, for the pairs
    /// [`passage_pair`] keeps, the books the windows of its passages,
    /// translated by `prefixes` (the passages' hash), reach window to
    /// window.
    #[allow(clippy::too_many_arguments)]
    fn offer_translations_to<'t>(
        &self,
        query: &QueryBook<'_>,
        hashes: &[Cow<'_, [u32]>],
        languages: &Languages,
        (target, partners): (&str, Partners),
        (words, prefixes): (impl Fn(u32) -> &'t [u32], impl Fn(u32) -> &'t [u32]),
        options: &QueryOptions,
        explain: &mut Explain,
        best: &mut BestPerBook,
    ) {
        let Some(code) = languages.find(target) else {
            return;
        };
        let exclude = query.slot();
        let wanted = |slot: u32| {
            Some(slot) != exclude && languages.is(slot, code) && partners.keeps(languages, slot)
        };
        let translated = self.translate_all(hashes, &words, self.numbering());
        self.offer_translated(&translated, wanted, options, explain, best);
        let query_words = self.query_words(query, languages);
        if !partners.any_passage_partner(languages, code, query_words) {
            return;
        }
        let Some((view, passages)) = self.query_passages(query) else {
            return;
        };
        let near = |slot: u32| wanted(slot) && passage_pair(query_words, languages.words(slot));
        let windowed = |slot: u32| near(slot) && windowed_pair(query_words, languages.words(slot));
        let mut found = BestPerBook::default();
        let passage_options = passage_options(options);
        let translated = self.translate_all(&passages, &prefixes, self.passage_numbering());
        view.offer_translated(&translated, near, &passage_options, explain, &mut found);
        if languages.any_windowed_pair(code, query_words) {
            let windows = windows_of(&passages);
            let translated = self.translate_all(&windows, &prefixes, self.passage_numbering());
            let probes: Vec<Probe<'_>> = translated.iter().map(Translated::probe).collect();
            let lens: Vec<u32> = translated.iter().map(Translated::len_x).collect();
            view.offer_translated_windows(
                (&probes, &lens),
                windowed,
                &passage_options,
                explain,
                &mut found,
            );
        }
        self.offer_from_passages(query, languages, found.into_top(options.top_k), best);
    }

    /// Each of `hashes` translated by `translations`, leaving out the
    /// untranslated `numbering`.
    fn translate_all<'t>(
        &self,
        hashes: &[Cow<'_, [u32]>],
        translations: &impl Fn(u32) -> &'t [u32],
        numbering: &Numbering,
    ) -> Vec<Translated> {
        hashes
            .iter()
            .map(|x| Translated::new(x, translations, numbering))
            .collect()
    }

    /// The passage view and the query's passages' hashes, when the index
    /// stores passages and the query has some.
    fn query_passages<'a>(
        &'a self,
        query: &QueryBook<'a>,
    ) -> Option<(&'a Reader, Vec<Cow<'a, [u32]>>)> {
        let view = self.passage_reader()?;
        let passages: Vec<Cow<'a, [u32]>> = match *query {
            QueryBook::Stored(slot) => view.query_hashes(&QueryBook::Stored(slot)),
            QueryBook::Text(text) => text
                .passages
                .iter()
                .map(|p| Cow::Borrowed(&p.hashes[..]))
                .collect(),
        };
        (!passages.is_empty()).then_some((view, passages))
    }

    /// The words of the query's book.
    fn query_words(&self, query: &QueryBook<'_>, languages: &Languages) -> u64 {
        match *query {
            QueryBook::Stored(slot) => languages.words(slot),
            QueryBook::Text(text) => text.words,
        }
    }

    /// Offers to `best` each of `found` (pairs of passages, each with its
    /// passages as its parts) as the pair of parts that hold them, with
    /// its passages.
    fn offer_from_passages(
        &self,
        query: &QueryBook<'_>,
        languages: &Languages,
        found: Vec<Ranked>,
        best: &mut BestPerBook,
    ) {
        let parts = self.store.part_options();
        let query_words = self.query_words(query, languages);
        for ranked in found {
            let (passage_x, passage_y) = ranked.parts;
            let hit_words = languages.words(ranked.slot);
            // The longer book's part around the passage, widened by the
            // shorter book's length (the shorter one is a single part).
            let part_x = part_around(parts, query_words, passage_x, hit_words);
            let part_y = part_around(parts, hit_words, passage_y, query_words);
            best.offer(Ranked {
                parts: (part_x, part_y),
                passages: Some(ranked.parts),
                ..ranked
            });
        }
    }

    /// Offers to `best` the books `wanted` keeps that the translated query
    /// units `translated` reach under `options`, each with its best pair
    /// of units (this reader's: parts, or passages in a passage view).
    fn offer_translated(
        &self,
        translated: &[Translated],
        wanted: impl Fn(u32) -> bool,
        options: &QueryOptions,
        explain: &mut Explain,
        best: &mut BestPerBook,
    ) {
        let probes: Vec<Probe<'_>> = translated.iter().map(Translated::probe).collect();
        match options.mode {
            Mode::Exact => {
                let lens: Vec<u32> = translated.iter().map(Translated::len_x).collect();
                self.plan_exact(&probes, &lens, options, wanted, explain, best);
            }
            Mode::Approximate => {
                let mut join = Join::new(self.part_count());
                let pairs = self.sampled_pairs_of(&probes, &mut join, wanted);
                explain.candidates += pairs.len() as u64;
                explain.within_bound += pairs.len() as u64;
                explain.lcs_runs += pairs.len() as u64;
                for (q, part) in pairs {
                    let y: Vec<u32> = self.runs().part_hashes(part).iter().collect();
                    let overlap = translated[q as usize].align(&y);
                    let ranked = self.ranked(q, part, overlap, options.score);
                    if ranked.score > 0.0
                        && ranked.score >= options.min_score
                        && options.admits(&overlap)
                    {
                        best.offer(ranked);
                    }
                }
            }
        }
    }

    /// The translation hits [`Reader::add_translations`] finds in exact
    /// mode for `query` in language `from`, by aligning every translated
    /// part of it with every part of every book of each target language:
    /// the reference the planner is tested against.
    pub(crate) fn brute_force_translations(
        &self,
        query: &QueryBook<'_>,
        from: &str,
        options: &QueryOptions,
    ) -> Result<Vec<Hit>> {
        if !is_known(from) {
            return Ok(Vec::new());
        }
        let hashes = self.query_hashes(query);
        let languages = self.languages();
        let for_translations = options.for_translations();
        let mut best = BestPerBook::default();
        for target in languages.targets().filter(|&t| t != from) {
            if let Some(lexicon) = self.lexicon(from, target)? {
                let passage_lexicon = self.passage_lexicon_if_stored(from, target)?;
                self.brute_force_language(
                    query,
                    &hashes,
                    target,
                    (
                        |h| lexicon.translations(h),
                        |h| passage_lexicon.translations(h),
                    ),
                    &for_translations,
                    &mut best,
                );
            }
        }
        self.hits_from(query, best.into_top(options.top_k))
    }

    /// Offers to `best` every book of language `target` whose best pair
    /// of parts with the query's translated parts qualifies under
    /// `options`, and every book the passage path keeps whose best pair of
    /// passages does, every pair aligned.
    fn brute_force_language<'t>(
        &self,
        query: &QueryBook<'_>,
        hashes: &[Cow<'_, [u32]>],
        target: &str,
        (words, prefixes): (impl Fn(u32) -> &'t [u32], impl Fn(u32) -> &'t [u32]),
        options: &QueryOptions,
        best: &mut BestPerBook,
    ) {
        let languages = self.languages();
        let Some(code) = languages.find(target) else {
            return;
        };
        let wanted = |slot: u32| Some(slot) != query.slot() && languages.is(slot, code);
        let translated = self.translate_all(hashes, &words, self.numbering());
        self.brute_force_units(&translated, wanted, options, best);
        let Some((view, passages)) = self.query_passages(query) else {
            return;
        };
        let query_words = self.query_words(query, languages);
        let near = |slot: u32| wanted(slot) && passage_pair(query_words, languages.words(slot));
        let windowed = |slot: u32| near(slot) && windowed_pair(query_words, languages.words(slot));
        let mut found = BestPerBook::default();
        let options = passage_options(options);
        let translated = self.translate_all(&passages, &prefixes, self.passage_numbering());
        view.brute_force_units(&translated, near, &options, &mut found);
        let windows = windows_of(&passages);
        let translated = self.translate_all(&windows, &prefixes, self.passage_numbering());
        let align = |q: u32, y: &[u32]| translated[q as usize].align(y);
        let queries = (translated.len() as u32, align);
        view.brute_force_windows(queries, windowed, &options, &mut found);
        self.offer_from_passages(query, languages, found.into_top(options.top_k), best);
    }

    /// Offers to `best` every book `wanted` keeps whose best pair of units
    /// (this reader's) with `translated` qualifies under `options`.
    fn brute_force_units(
        &self,
        translated: &[Translated],
        wanted: impl Fn(u32) -> bool,
        options: &QueryOptions,
        best: &mut BestPerBook,
    ) {
        for slot in self.runs().live_slots().filter(|&slot| wanted(slot)) {
            for part in self.part_range(slot) {
                let y: Vec<u32> = self.runs().part_hashes(part).iter().collect();
                for (q, x) in translated.iter().enumerate() {
                    let overlap = x.align(&y);
                    let ranked = self.ranked(q as u32, part, overlap, options.score);
                    if ranked.score > 0.0
                        && ranked.score >= options.min_score
                        && options.admits(&overlap)
                    {
                        best.offer(ranked);
                    }
                }
            }
        }
    }
}

/// The options of the passage path under a translation search's
/// `options`: exact in either mode, and each pair of passages with at
/// least their passage evidence (default
/// [`super::planner::MIN_PASSAGE_EVIDENCE`]).
fn passage_options(options: &QueryOptions) -> QueryOptions {
    QueryOptions {
        mode: Mode::Exact,
        min_evidence: options.passage_evidence,
        ..*options
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lexicon(pairs: &[(u32, &[u32])]) -> HashMap<u32, Vec<u32>> {
        pairs.iter().map(|&(w, t)| (w, t.to_vec())).collect()
    }

    #[test]
    fn each_word_is_replaced_in_place_by_all_its_translations() {
        let dictionary = lexicon(&[(1, &[10, 11]), (3, &[30])]);
        let lookup = |h: u32| dictionary.get(&h).map_or(&[][..], |t| &t[..]);
        let translated = Translated::new(&[1, 2, 3], lookup, &Numbering::default());
        assert_eq!(translated.hashes, vec![10, 11, 2, 30]);
        assert_eq!(translated.groups, vec![0, 0, 1, 2]);
        assert_eq!(translated.len_x(), 3);
    }

    #[test]
    fn an_lcs_takes_one_pair_per_word_of_either_side() {
        // X = a b c; a translates to p or q, b to q, c to r.
        let dictionary = lexicon(&[(1, &[10, 11]), (2, &[11]), (3, &[12])]);
        let lookup = |h: u32| dictionary.get(&h).map_or(&[][..], |t| &t[..]);
        let translated = Translated::new(&[1, 2, 3], lookup, &Numbering::default());
        // Y = q p r: pairs (a,q) (b,q) (a,p) (c,r). The best run is a-q or
        // b-q, then c-r: 2; a-q then a-p would use a twice.
        let overlap = translated.align(&[11, 10, 12]);
        assert_eq!(overlap.common, 4);
        assert_eq!(overlap.lcs, 2);
        assert_eq!((overlap.len_x, overlap.len_y), (3, 3));
        // Y = p q r: a-p, b-q, c-r.
        assert_eq!(translated.align(&[10, 11, 12]).lcs, 3);
        // One word of Y cannot serve two elements of X: Y = q r.
        assert_eq!(translated.align(&[11, 12]).lcs, 2);
        assert_eq!(translated.align(&[11]).lcs, 1);
    }

    #[test]
    fn a_translation_match_is_located_by_its_translated_words() {
        let dictionary = lexicon(&[(1, &[10]), (2, &[11]), (3, &[12])]);
        let lookup = |h: u32| dictionary.get(&h).map_or(&[][..], |t| &t[..]);
        let x = UniqueWordSeq {
            hashes: vec![1, 2, 3],
            positions: vec![1, 15, 30],
        };
        // Y holds 1 untranslated (a chance match by the source word, which
        // a translated word does not match) and the translations in order.
        let y = UniqueWordSeq {
            hashes: vec![1, 10, 11, 12],
            positions: vec![0, 100, 200, 300],
        };
        let translated = Translated::new(&x.hashes, lookup, &Numbering::default());
        let location = locate_chain(&translated.chain(&x, &y, None), &x, 0, &y, 2);
        assert_eq!((location.part_x, location.part_y), (0, 2));
        assert_eq!((location.words_x.start, location.words_x.end), (1, 31));
        assert_eq!((location.words_y.start, location.words_y.end), (100, 301));
        let shape = shape_of(32, location.words_x, 5_000, location.words_y);
        assert_eq!(shape.shape, crate::relate::Shape::Contained);
        assert_eq!(shape.container, Some(crate::relate::Side::B));
    }

    #[test]
    fn untranslated_numerals_are_left_out_and_translated_ones_kept() {
        let numbering = Numbering::new(7, word_hash);
        let hash = |w: &str| word_hash(w, 7);
        let (xiv, name) = (hash("xiv"), hash("artagnan"));
        let dictionary = lexicon(&[(hash("vi"), &[42])]);
        let lookup = |h: u32| dictionary.get(&h).map_or(&[][..], |t| &t[..]);
        let translated = Translated::new(&[xiv, name, hash("vi")], lookup, &numbering);
        assert_eq!(translated.hashes, vec![name, 42]);
        assert_eq!(translated.groups, vec![1, 2]);
        assert_eq!(translated.len_x(), 3, "scores divide by the original |X|");
    }

    #[test]
    fn untranslated_words_match_themselves() {
        let dictionary = lexicon(&[(1, &[10])]);
        let lookup = |h: u32| dictionary.get(&h).map_or(&[][..], |t| &t[..]);
        // 7 is a name: no translation, kept.
        let translated = Translated::new(&[1, 7], lookup, &Numbering::default());
        let overlap = translated.align(&[10, 7]);
        assert_eq!((overlap.lcs, overlap.common), (2, 2));
        // The source word itself does not match once it has a translation.
        assert_eq!(translated.align(&[1]).lcs, 0);
    }
}

#[cfg(test)]
mod planner_equals_brute_force {
    //! Exact translation search equals aligning every translated part with
    //! every part of every book of the target language, on random
    //! collections of two languages (books long enough to be cut into
    //! parts), for every score, top-k, threshold and frequent-word cap.

    use super::*;
    use crate::align::Score;
    use crate::repr::unique_words::DEFAULT_HASH_SEED;
    use crate::{Document, Index};
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// A word of one language: a prefix no Roman numeral starts with.
    fn word(prefix: char, i: u32) -> String {
        let mut out = prefix.to_string();
        let mut n = i.wrapping_mul(0x9E37_79B1) >> 12;
        for _ in 0..4 {
            out.push((b'a' + (n % 26) as u8) as char);
            n /= 26;
        }
        out
    }

    #[derive(Debug, Clone)]
    struct Case {
        vocab: u32,
        /// Each English word's German translations (indexes).
        lexicon: Vec<Vec<u32>>,
        english: Vec<Vec<u32>>,
        /// German books: a translation of an English book (its index, and
        /// which translation of each word, and swaps), or random words.
        german: Vec<(Option<usize>, Vec<u32>)>,
        cap: u32,
        asks: Vec<(usize, u8, usize, f64)>,
        /// Whether a German volume binds every German book between runs
        /// of filler (1: spaced out; 2: each book across a boundary of
        /// the volume's passages): a book of several passages, searched
        /// window to window by the short English books.
        volume: u8,
    }

    fn case() -> impl Strategy<Value = Case> {
        (10u32..50).prop_flat_map(|vocab| {
            (
                Just(vocab),
                prop::collection::vec(prop::collection::vec(0..vocab, 0..3), vocab as usize),
                prop::collection::vec(prop::collection::vec(0..vocab, 0..90), 1..6),
                prop::collection::vec(
                    (
                        prop::option::of(0usize..6),
                        prop::collection::vec(0..vocab, 0..90),
                    ),
                    1..7,
                ),
                prop_oneof![Just(u32::MAX), 0u32..4],
                prop::collection::vec((0usize..5, 0u8..5, 0usize..4, 0.0f64..0.6), 1..4),
                0u8..3,
            )
                .prop_map(|(vocab, lexicon, english, german, cap, asks, volume)| {
                    Case {
                        vocab,
                        lexicon,
                        english,
                        german,
                        cap,
                        asks,
                        volume,
                    }
                })
        })
    }

    /// The German text of `case.german[g]`.
    fn german_text(case: &Case, g: usize) -> String {
        let (of, noise) = &case.german[g];
        let words: Vec<String> = match of.filter(|&e| e < case.english.len()) {
            Some(e) => case.english[e]
                .iter()
                .enumerate()
                .filter_map(|(k, &w)| {
                    let options = &case.lexicon[w as usize];
                    match noise.get(k).copied() {
                        // Dropped now and then.
                        Some(n) if n % 9 == 0 => None,
                        Some(n) if !options.is_empty() => {
                            Some(word('z', options[n as usize % options.len()]))
                        }
                        // Untranslated: kept as it is (a name).
                        _ if options.is_empty() => Some(word('q', w)),
                        _ => Some(word('z', options[0])),
                    }
                })
                .collect(),
            None => noise.iter().map(|&w| word('z', w)).collect(),
        };
        words.join(" ")
    }

    fn check(case: &Case) {
        let dir = tempfile::tempdir().unwrap();
        let index = Index::builder().parts(64, 32).create(dir.path()).unwrap();
        let mut documents = Vec::new();
        for (e, words) in case.english.iter().enumerate() {
            let text: Vec<String> = words.iter().map(|&w| word('q', w)).collect();
            let text = format!("{} {}", word('q', 5000 + e as u32), text.join(" "));
            documents.push(Ok(Document::new(format!("e{e}"), text).with_language("en")));
        }
        for g in 0..case.german.len() {
            let text = format!("{} {}", word('z', 5000 + g as u32), german_text(case, g));
            documents.push(Ok(Document::new(format!("g{g}"), text).with_language("de")));
        }
        if case.volume > 0 {
            // Filler of a few words repeated: none unique in a passage.
            let filler = |n: usize| -> String {
                (0..n)
                    .map(|i| word('z', 9000 + i as u32 % 7))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let (mut volume, mut words) = (Vec::new(), 0);
            for g in 0..case.german.len() {
                let text = german_text(case, g);
                let len = text.split_whitespace().count();
                let start = match case.volume {
                    1 => words + 1500 - 800 * (g > 0) as usize,
                    _ => ((g + 1) * PASSAGE_WORDS as usize).saturating_sub(len / 2),
                };
                volume.push(filler(start.saturating_sub(words)));
                words = words.max(start) + len;
                volume.push(text);
            }
            volume.push(filler(700));
            documents.push(Ok(Document::new("gv", volume.join(" ")).with_language("de")));
        }
        let mut loader = index
            .bulk_loader(crate::LoadOptions::default().passages(true))
            .unwrap();
        loader.extend(documents).unwrap();
        loader.finish().unwrap();
        let reader = index.reader().unwrap().with_frequent_word_cap(case.cap);
        let hash = |w: String| word_hash(&w, DEFAULT_HASH_SEED);
        let lexicon: HashMap<u32, Vec<u32>> = (0..case.vocab)
            .map(|w| {
                let mut t: Vec<u32> = case.lexicon[w as usize]
                    .iter()
                    .map(|&d| hash(word('z', d)))
                    .collect();
                t.sort_unstable();
                t.dedup();
                (hash(word('q', w)), t)
            })
            .collect();
        let translations = |h: u32| lexicon.get(&h).map_or(&[][..], |t| &t[..]);
        for &(e, kind, top_k, uniform) in &case.asks {
            let key = format!("e{}", e % case.english.len());
            let slot = reader.slot_of(&key).unwrap();
            let query = QueryBook::Stored(slot);
            let hashes = reader.query_hashes(&query);
            let score = Score::ALL[kind as usize % Score::ALL.len()];
            let min_score = match kind {
                0 => 0.0,
                1 => score.translation_threshold(),
                _ => uniform,
            };
            let mut options = QueryOptions::with_score(score)
                .top_k(top_k)
                .translation_min_score(min_score)
                .for_translations();
            // Small books reach little evidence: the default, and less.
            let default = crate::query::planner::MIN_PASSAGE_EVIDENCE;
            options.passage_evidence = [default, 1.0, 0.0][kind as usize % 3];
            let mut planned = BestPerBook::default();
            let mut explain = Explain::default();
            reader.offer_translations_to(
                &query,
                &hashes,
                reader.languages(),
                ("deu", Partners::All),
                (translations, translations),
                &options,
                &mut explain,
                &mut planned,
            );
            let mut brute = BestPerBook::default();
            reader.brute_force_language(
                &query,
                &hashes,
                "deu",
                (translations, translations),
                &options,
                &mut brute,
            );
            assert_eq!(
                planned.into_top(top_k),
                brute.into_top(top_k),
                "{key} {score:?} top {top_k} ≥ {min_score}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn exact_translation_search_equals_brute_force(case in case()) {
            check(&case);
        }
    }
}
