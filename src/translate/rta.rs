//! RTA, recursive translation alignment (thesis ch. 6): a word-level
//! alignment of a text with its translation, and the passage mapping and
//! portion map built on it.
//!
//! 1. **Translation in place.** Every word of A stands for its translations
//!    into B's language (every translation the lexicon has, from every
//!    dictionary of the pair), or for itself when it has none: names and
//!    cognates survive translation. The whole text is translated, not only
//!    its unique words.
//! 2. **The RETAS word stages** ([`crate::align`]) with that relation:
//!    anchors are the translations that stand for one word of A's segment
//!    and occur once in B's, taken in the same order in both; the segments
//!    between anchors are split again, down to segments under
//!    [`RetasOptions::translations`]'s 400 words (the thesis's leaf size),
//!    which the dynamic-programming LCS aligns. A word of either text
//!    matches once at most. There is no character stage (translated words
//!    share no characters) and no search for moved passages.
//! 3. **Passages** ([`TranslationAlignment::map_passage`]): a passage of A
//!    maps to the stretch of B from its first to its last matched word,
//!    widened one for one by its unmatched words at either end, but never
//!    past its boundaries: each falls in B between the matches around it,
//!    in proportion to its place between them in A, so that stretches of
//!    consecutive passages never overlap, and text only B has (between two
//!    passages' matches) belongs to neither. The thesis counts each
//!    passage's matched words per passage of B; with one alignment in
//!    order, a stretch does the same without cutting B into passages
//!    first. A passage without a matched word is not mapped. Its
//!    confidence is the share of its words matched.
//!
//! Time and memory are those of RETAS with 400-word leaves: linear in the
//! texts and their translations but for the leaves' tables (160,000 cells
//! each), a few tens of milliseconds for two book-length texts.

use serde::Serialize;
use std::ops::Range;

use crate::align::{
    byte_range, RetasOptions, RetasStats, WordAligner, WordMatch, WordRelation, WordTexts,
};
use crate::error::Result;
use crate::relate::{MapBook, MapOptions, PortionMap};
use crate::translate::lexicon::Lexicon;

/// The alignment of a text with its translation.
#[derive(Debug, Clone, Serialize)]
pub struct TranslationAlignment {
    /// The languages translated from (A's) and into (B's).
    pub languages: (String, String),
    /// Words of A.
    pub words_a: u32,
    /// Words of B.
    pub words_b: u32,
    /// Corresponding word pairs.
    pub matched_words: u32,
    /// Share of A's words matched.
    pub share_a: f64,
    /// Share of B's words matched.
    pub share_b: f64,
    /// How the recursion went.
    pub stats: RetasStats,
    /// Every corresponding word pair, increasing in A and in B.
    pub matches: Vec<WordMatch>,
    #[serde(skip)]
    bytes_a: Vec<Range<usize>>,
    #[serde(skip)]
    bytes_b: Vec<Range<usize>>,
}

/// Where a passage of A is in B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassageMapping {
    /// The passage's words of A.
    pub a_words: Range<u32>,
    /// Their bytes in A's text.
    pub a_bytes: Range<usize>,
    /// The corresponding words of B; `None` when no word of the passage
    /// has a match.
    pub b_words: Option<Range<u32>>,
    /// Their bytes in B's text.
    pub b_bytes: Option<Range<usize>>,
    /// Words of the passage matched.
    pub matches: u32,
    /// Share of the passage's words matched (0 to 1): the density of
    /// correspondences the mapping rests on.
    pub confidence: f64,
}

/// Aligns text `a` with its translation `b`, `lexicon` translating from
/// A's language into B's (see the module docs). Never panics; fails only
/// when a text has more than 2^32 − 2 words.
pub fn align_translation(
    a: &str,
    b: &str,
    lexicon: &Lexicon,
    options: &RetasOptions,
) -> Result<TranslationAlignment> {
    let texts = WordTexts::new(a, b)?;
    let relation = Translations::new(&texts, lexicon);
    let mut aligner = WordAligner::new(texts.vocabulary.len(), options);
    let matches = aligner.matches_by(
        &relation,
        &texts.a.ids,
        &texts.b.ids,
        0..texts.a.len(),
        0..texts.b.len(),
    );
    let matched_words = matches.len() as u32;
    let share = |words: u32| match words {
        0 => 0.0,
        _ => f64::from(matched_words) / f64::from(words),
    };
    let (from, to) = lexicon.languages();
    Ok(TranslationAlignment {
        languages: (from.to_string(), to.to_string()),
        words_a: texts.a.len(),
        words_b: texts.b.len(),
        matched_words,
        share_a: share(texts.a.len()),
        share_b: share(texts.b.len()),
        stats: aligner.stats(),
        matches,
        bytes_a: texts.a.bytes,
        bytes_b: texts.b.bytes,
    })
}

impl TranslationAlignment {
    /// Where A's words `a_words` are in B (see the module docs); words
    /// past A's end are left out.
    pub fn map_passage(&self, a_words: Range<u32>) -> PassageMapping {
        let a_words = a_words.start.min(self.words_a)..a_words.end.min(self.words_a);
        let first = self.matches.partition_point(|m| m.a < a_words.start);
        let end = self.matches.partition_point(|m| m.a < a_words.end);
        let inside = &self.matches[first..end];
        let matches = inside.len() as u32;
        let b_words = match (inside.first(), inside.last()) {
            (Some(head), Some(tail)) => {
                let start = head.b.saturating_sub(head.a - a_words.start);
                let stop = tail.b + 1 + (a_words.end - 1 - tail.a);
                Some(start.max(self.boundary(a_words.start))..stop.min(self.boundary(a_words.end)))
            }
            _ => None,
        };
        PassageMapping {
            a_bytes: byte_range(&self.bytes_a, &a_words),
            b_bytes: b_words.as_ref().map(|w| byte_range(&self.bytes_b, w)),
            a_words: a_words.clone(),
            b_words,
            matches,
            confidence: f64::from(matches) / a_words.len().max(1) as f64,
        }
    }

    /// Where in B the boundary before A's word `a` falls: between the
    /// matches around it, in proportion to its place between them in A (a
    /// word past a text's last match, or before its first, one for one).
    /// It never decreases as `a` grows.
    fn boundary(&self, a: u32) -> u32 {
        let at = self.matches.partition_point(|m| m.a < a);
        let before = at.checked_sub(1).map(|i| self.matches[i]);
        match (before, self.matches.get(at)) {
            (Some(p), Some(n)) => {
                let gap_a = u64::from(n.a - p.a - 1);
                let gap_b = u64::from(n.b - p.b - 1);
                let offset = u64::from(a - p.a - 1);
                p.b + 1 + (offset * gap_b).checked_div(gap_a).unwrap_or(0) as u32
            }
            (None, Some(n)) => n.b.saturating_sub(n.a - a),
            (Some(p), None) => (p.b + 1 + (a - p.a - 1)).min(self.words_b),
            (None, None) => 0,
        }
    }

    /// A cut into passages of `words` words (at least 1; a last passage of
    /// fewer than half as many joins the one before), each mapped into B.
    pub fn passages(&self, words: u32) -> Vec<PassageMapping> {
        let words = words.max(1);
        let mut starts: Vec<u32> = (0..self.words_a).step_by(words as usize).collect();
        if starts.len() > 1 && self.words_a - starts[starts.len() - 1] < words.div_ceil(2) {
            starts.pop();
        }
        let ends = starts.iter().skip(1).copied().chain([self.words_a]);
        starts
            .iter()
            .zip(ends)
            .map(|(&start, end)| self.map_passage(start..end))
            .collect()
    }

    /// A's words that start within `bytes` of its text.
    pub fn a_words_in(&self, bytes: Range<usize>) -> Range<u32> {
        let at = |byte: usize| self.bytes_a.partition_point(|word| word.start < byte) as u32;
        at(bytes.start)..at(bytes.end)
    }

    /// Bytes of A's text from its word `words.start` to `words.end`.
    pub fn bytes_a(&self, words: &Range<u32>) -> Range<usize> {
        byte_range(&self.bytes_a, words)
    }

    /// Bytes of B's text from its word `words.start` to `words.end`.
    pub fn bytes_b(&self, words: &Range<u32>) -> Range<usize> {
        byte_range(&self.bytes_b, words)
    }

    /// The portion map (see [`MapOptions::translations`] for a translation's
    /// bins): every word eligible, each word pair a matched word on both
    /// sides.
    pub fn portion_map(&self, options: &MapOptions) -> Result<PortionMap> {
        PortionMap::build(
            MapBook::full_text(self.words_a),
            MapBook::full_text(self.words_b),
            self.matches.iter().map(|m| (m.a..m.a + 1, m.b..m.b + 1)),
            options,
        )
    }
}

/// A word of A and the words of B it translates to, by vocabulary id: the
/// words of B among its translations, or itself when it has none (CSR:
/// `keys[starts[id]..starts[id + 1]]`, ascending).
struct Translations {
    starts: Vec<u32>,
    keys: Vec<u32>,
}

impl Translations {
    fn new(texts: &WordTexts, lexicon: &Lexicon) -> Self {
        let vocabulary = &texts.vocabulary;
        let seen = |ids: &[u32]| {
            let mut seen = vec![false; vocabulary.len()];
            ids.iter().for_each(|&id| seen[id as usize] = true);
            seen
        };
        let (in_a, in_b) = (seen(&texts.a.ids), seen(&texts.b.ids));
        let hash = |id: u32| lexicon.hash(vocabulary.word(id));
        let mut b_by_hash: Vec<(u32, u32)> = (0..vocabulary.len() as u32)
            .filter(|&id| in_b[id as usize])
            .map(|id| (hash(id), id))
            .collect();
        b_by_hash.sort_unstable();
        let mut starts = Vec::with_capacity(vocabulary.len() + 1);
        let mut keys = Vec::new();
        for id in 0..vocabulary.len() as u32 {
            starts.push(keys.len() as u32);
            if !in_a[id as usize] {
                continue;
            }
            let first = keys.len();
            let translations = lexicon.translations(hash(id));
            if translations.is_empty() && in_b[id as usize] {
                keys.push(id);
            }
            for &translation in translations {
                let at = b_by_hash.partition_point(|&(h, _)| h < translation);
                let words = b_by_hash[at..]
                    .iter()
                    .take_while(|&&(h, _)| h == translation);
                keys.extend(words.map(|&(_, word)| word));
            }
            keys[first..].sort_unstable();
        }
        starts.push(keys.len() as u32);
        Translations { starts, keys }
    }

    fn of(&self, id: u32) -> &[u32] {
        &self.keys[self.starts[id as usize] as usize..self.starts[id as usize + 1] as usize]
    }
}

impl WordRelation for Translations {
    fn for_each_key(&self, id: u32, key: impl FnMut(u32)) {
        self.of(id).iter().copied().for_each(key);
    }

    fn matches(&self, a: u32, b: u32) -> bool {
        let keys = self.of(a);
        match keys.len() {
            0..=8 => keys.contains(&b),
            _ => keys.binary_search(&b).is_ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translate::dictionary::Dictionary;
    use proptest::prelude::*;
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// `n` in letters (the tokeniser keeps no digits): `side` then base 26.
    fn word(side: char, mut n: u32) -> String {
        let mut out = String::from(side);
        loop {
            out.push(char::from(b'a' + (n % 26) as u8));
            n /= 26;
            if n == 0 {
                return out;
            }
        }
    }

    /// The number a word of [`word`] encodes, and its side.
    fn number(w: &str) -> (char, u32) {
        let mut chars = w.chars();
        let side = chars.next().unwrap();
        let n = chars
            .rev()
            .fold(0, |n, c| n * 26 + u32::from(c as u8 - b'a'));
        (side, n)
    }

    /// A dictionary from `eng` to `deu` translating word `e`n as `d`n (and,
    /// for every third n, also as `x`n), for n below `words`.
    fn lexicon(words: u32) -> Lexicon {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for n in 0..words {
            pairs.push((word('e', n), word('d', n)));
            if n % 3 == 0 {
                pairs.push((word('e', n), word('x', n)));
            }
        }
        let d = Dictionary::from_word_pairs("test", "eng", "deu", &pairs).unwrap();
        Lexicon::build(&[&d], "eng", "deu", 7)
    }

    /// A text of `len` words drawn from the first `vocabulary` words `e`n,
    /// with a name (`q`n) every 40 words.
    fn source(len: usize, vocabulary: u32, rng: &mut SmallRng) -> Vec<String> {
        (0..len)
            .map(|i| match i % 40 {
                39 => word('q', i as u32),
                _ => word('e', rng.random_range(0..vocabulary)),
            })
            .collect()
    }

    /// `n` words of another text: words the dictionary does not know.
    fn other(n: usize, rng: &mut SmallRng) -> Vec<String> {
        (0..n)
            .map(|_| word('z', rng.random_range(0..500)))
            .collect()
    }

    /// `words` translated word by word (names kept), adjacent words
    /// swapped with probability 0.15: what a free translation keeps.
    fn translated(words: &[String], rng: &mut SmallRng) -> Vec<String> {
        let mut out: Vec<String> = words
            .iter()
            .map(|w| match number(w) {
                ('e', n) => word('d', n),
                _ => w.clone(),
            })
            .collect();
        for i in 1..out.len() {
            if rng.random_bool(0.15) {
                out.swap(i - 1, i);
            }
        }
        out
    }

    fn align(a: &[String], b: &[String]) -> TranslationAlignment {
        align_translation(
            &a.join(" "),
            &b.join(" "),
            &lexicon(3_000),
            &RetasOptions::translations(),
        )
        .unwrap()
    }

    fn check_matches(alignment: &TranslationAlignment, a: &[String], b: &[String]) {
        for w in alignment.matches.windows(2) {
            assert!(w[0].a < w[1].a && w[0].b < w[1].b, "{w:?}");
        }
        for m in &alignment.matches {
            let (x, y) = (&a[m.a as usize], &b[m.b as usize]);
            match number(x) {
                ('e', n) => assert!([word('d', n), word('x', n)].contains(y), "{x} matched {y}"),
                _ => assert_eq!(x, y),
            }
        }
    }

    #[test]
    fn a_translation_aligns_word_by_word_and_passage_by_passage() {
        let mut rng = SmallRng::seed_from_u64(1);
        let a = source(20_000, 3_000, &mut rng);
        let b = translated(&a, &mut rng);
        let alignment = align(&a, &b);
        check_matches(&alignment, &a, &b);
        assert!(alignment.share_a > 0.8, "{}", alignment.share_a);
        assert!(alignment.stats.anchors > 100, "{:?}", alignment.stats);
        let passages = alignment.passages(50);
        assert_eq!(passages.len(), 400);
        for pair in passages.windows(2) {
            let (x, y) = (
                pair[0].b_words.clone().unwrap(),
                pair[1].b_words.clone().unwrap(),
            );
            assert!(x.end <= y.start, "stretches overlap: {x:?} {y:?}");
        }
        for p in &passages {
            let b_words = p.b_words.clone().unwrap();
            // Swaps move a word by one place at most, and leave a swapped
            // word at a passage's end unmatched, a place or two off.
            assert!(b_words.start.abs_diff(p.a_words.start) <= 3, "{p:?}");
            assert!(b_words.end.abs_diff(p.a_words.end) <= 3, "{p:?}");
            assert!(p.confidence > 0.6, "{p:?}");
        }
    }

    #[test]
    fn passages_skip_material_only_one_text_has() {
        let mut rng = SmallRng::seed_from_u64(2);
        let a = source(6_000, 3_000, &mut rng);
        let mut b = translated(&a, &mut rng);
        // 2,000 words of another text (words the dictionary does not know)
        // inserted in B after A's word 3,000.
        b.splice(3_000..3_000, other(2_000, &mut rng));
        let alignment = align(&a, &b);
        check_matches(&alignment, &a, &b);
        let after = alignment.map_passage(3_500..3_550);
        let b_words = after.b_words.unwrap();
        assert!(b_words.start.abs_diff(5_500) <= 2, "{b_words:?}");
        let before = alignment.map_passage(2_900..2_950);
        assert!(before.b_words.unwrap().end <= 2_952);
        assert_eq!(after.a_bytes, alignment.bytes_a(&(3_500..3_550)));
    }

    #[test]
    fn passages_cover_a_and_join_a_short_last_one() {
        let mut rng = SmallRng::seed_from_u64(3);
        let a = source(1_020, 3_000, &mut rng);
        let b = translated(&a, &mut rng);
        let alignment = align(&a, &b);
        let passages = alignment.passages(100);
        assert_eq!(passages.len(), 10);
        assert_eq!(passages[9].a_words, 900..1_020);
        let words: u32 = passages.iter().map(|p| p.a_words.len() as u32).sum();
        assert_eq!(words, 1_020);
        assert_eq!(alignment.a_words_in(passages[3].a_bytes.clone()), 300..400);
    }

    #[test]
    fn unrelated_texts_map_no_passage_with_confidence() {
        let mut rng = SmallRng::seed_from_u64(4);
        let a = source(3_000, 3_000, &mut rng);
        let b = other(3_000, &mut rng);
        let alignment = align(&a, &b);
        assert_eq!(alignment.matched_words, 0);
        assert!(alignment
            .passages(50)
            .iter()
            .all(|p| p.b_words.is_none() && p.matches == 0));
    }

    #[test]
    fn the_portion_map_covers_the_translated_part() {
        let mut rng = SmallRng::seed_from_u64(5);
        let a = source(4_000, 3_000, &mut rng);
        let mut b = translated(&a[..2_000], &mut rng);
        b.extend(other(2_000, &mut rng));
        let alignment = align(&a, &b);
        let map = alignment.portion_map(&MapOptions::translations()).unwrap();
        assert_eq!(map.regions.len(), 1, "{:?}", map.regions);
        let region = &map.regions[0];
        assert!(region.a_words.start == 0 && region.a_words.end.abs_diff(2_000) <= 100);
        assert!(region.b_words.end.abs_diff(2_000) <= 100, "{region:?}");
    }

    proptest! {
        #[test]
        fn matches_are_translations_in_order_on_any_input(
            a in prop::collection::vec(0u32..40, 0..400),
            b in prop::collection::vec((0u32..40, any::<bool>()), 0..400),
            leaf_words in 1u32..60,
        ) {
            // Odd n are names (kept), even n words the dictionary knows.
            let of = |n: u32, side: char| match n % 2 {
                1 => word('q', n),
                _ => word(side, n),
            };
            let a: Vec<String> = a.iter().map(|&n| of(n, 'e')).collect();
            // Both translations of a word may occur in B: a candidate
            // anchor for each, of which the chain takes one.
            let b: Vec<String> = b.iter().map(|&(n, x)| of(n, if x { 'x' } else { 'd' })).collect();
            let options = RetasOptions { leaf_words, ..RetasOptions::translations() };
            let alignment =
                align_translation(&a.join(" "), &b.join(" "), &lexicon(40), &options).unwrap();
            check_matches(&alignment, &a, &b);
            prop_assert_eq!(alignment.matched_words as usize, alignment.matches.len());
        }
    }
}
