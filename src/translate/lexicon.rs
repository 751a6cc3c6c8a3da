//! A translation lexicon: for each word of one language, by its 32-bit
//! hash (the index's word hash, [`crate::repr::unique_words::word_hash`]),
//! the hashes of its translations into another language.
//!
//! It joins every dictionary of the pair, in both directions: a from→to
//! dictionary gives its pairs as they are, a to→from dictionary gives its
//! pairs reversed (an eng-deu and a deu-eng dictionary reinforce each
//! other). It is stored compactly, as three arrays (CSR): the distinct
//! source hashes in ascending order, where each one's translations start,
//! and the translations, each source's sorted and deduplicated. Two source
//! words of one hash share their translations (as they share their
//! postings in the index).

use crate::repr::unique_words::word_hash;
use crate::translate::dictionary::Dictionary;

/// Translations by source-word hash (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexicon {
    from: String,
    to: String,
    hash_seed: u64,
    keys: Vec<u32>,
    /// `starts[i]..starts[i + 1]` are `keys[i]`'s translations.
    starts: Vec<u32>,
    values: Vec<u32>,
}

impl Lexicon {
    /// The lexicon from language `from` to `to` of `dictionaries` (those of
    /// other pairs add nothing), with the index's word-hash `hash_seed`.
    pub fn build(dictionaries: &[&Dictionary], from: &str, to: &str, hash_seed: u64) -> Lexicon {
        Lexicon::build_with(dictionaries, from, to, hash_seed, word_hash)
    }

    /// [`Lexicon::build`] with the words hashed by `hash` (with
    /// `hash_seed`): the passages' prefix hash
    /// ([`crate::repr::passages::passage_word_hash`]), say.
    pub fn build_with(
        dictionaries: &[&Dictionary],
        from: &str,
        to: &str,
        hash_seed: u64,
        hash: fn(&str, u64) -> u32,
    ) -> Lexicon {
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for d in dictionaries {
            let reversed = match (
                d.from() == from && d.to() == to,
                d.from() == to && d.to() == from,
            ) {
                (true, _) => false,
                (false, true) => true,
                (false, false) => continue,
            };
            let hashes: Vec<u32> = d.words().iter().map(|w| hash(w, hash_seed)).collect();
            pairs.reserve(d.pairs().len());
            for &(a, b) in d.pairs() {
                let (a, b) = (hashes[a as usize], hashes[b as usize]);
                pairs.push(if reversed { (b, a) } else { (a, b) });
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut keys = Vec::new();
        let mut starts = Vec::new();
        let mut values = Vec::with_capacity(pairs.len());
        for (a, b) in pairs {
            if keys.last() != Some(&a) {
                keys.push(a);
                starts.push(values.len() as u32);
            }
            values.push(b);
        }
        starts.push(values.len() as u32);
        Lexicon {
            from: from.to_string(),
            to: to.to_string(),
            hash_seed,
            keys,
            starts,
            values,
        }
    }

    /// The lexicon from `first`'s source language to `second`'s target
    /// language through the language between them (`first`'s target,
    /// `second`'s source): each word's translations are the translations
    /// of its translations. `None` when the languages do not chain or the
    /// hash seeds differ.
    pub fn compose(first: &Lexicon, second: &Lexicon) -> Option<Lexicon> {
        if first.to != second.from || first.hash_seed != second.hash_seed {
            return None;
        }
        let mut keys = Vec::new();
        let mut starts = Vec::new();
        let mut values: Vec<u32> = Vec::new();
        let mut through: Vec<u32> = Vec::new();
        for (i, &key) in first.keys.iter().enumerate() {
            through.clear();
            for &pivot in &first.values[first.starts[i] as usize..first.starts[i + 1] as usize] {
                through.extend_from_slice(second.translations(pivot));
            }
            if through.is_empty() {
                continue;
            }
            through.sort_unstable();
            through.dedup();
            keys.push(key);
            starts.push(values.len() as u32);
            values.extend_from_slice(&through);
        }
        starts.push(values.len() as u32);
        Some(Lexicon {
            from: first.from.clone(),
            to: second.to.clone(),
            hash_seed: first.hash_seed,
            keys,
            starts,
            values,
        })
    }

    /// The seed of the word hash the lexicon is keyed by.
    pub fn hash_seed(&self) -> u64 {
        self.hash_seed
    }

    /// The hash of `word` (normalised) under the lexicon's seed.
    pub fn hash(&self, word: &str) -> u32 {
        word_hash(word, self.hash_seed)
    }

    /// The hashes of the translations of the word of hash `hash`, ascending;
    /// empty when it has none.
    pub fn translations(&self, hash: u32) -> &[u32] {
        match self.keys.binary_search(&hash) {
            Ok(i) => &self.values[self.starts[i] as usize..self.starts[i + 1] as usize],
            Err(_) => &[],
        }
    }

    /// Source words (hashes) that have a translation.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when no word has a translation.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Translation pairs (source hash, translation hash).
    pub fn pairs(&self) -> usize {
        self.values.len()
    }

    /// The languages it translates from and to.
    pub fn languages(&self) -> (&str, &str) {
        (&self.from, &self.to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn dictionary(from: &str, to: &str, pairs: &[(&str, &str)]) -> Dictionary {
        Dictionary::from_word_pairs(&format!("freedict-{from}-{to}"), from, to, pairs).unwrap()
    }

    #[test]
    fn joins_both_directions() {
        let seed = 7;
        let h = |w: &str| word_hash(w, seed);
        let eng_deu = dictionary("eng", "deu", &[("house", "haus"), ("go", "gehen")]);
        let deu_eng = dictionary("deu", "eng", &[("heim", "house"), ("haus", "house")]);
        let eng_fra = dictionary("eng", "fra", &[("house", "maison")]);
        let all = [&eng_deu, &deu_eng, &eng_fra];
        let lexicon = Lexicon::build(&all, "eng", "deu", seed);
        let mut want = vec![h("haus"), h("heim")];
        want.sort();
        assert_eq!(lexicon.translations(h("house")), want);
        assert_eq!(lexicon.translations(h("go")), [h("gehen")]);
        assert!(lexicon.translations(h("maison")).is_empty());
        assert_eq!((lexicon.len(), lexicon.pairs()), (2, 3));
        assert_eq!(lexicon.languages(), ("eng", "deu"));
        let back = Lexicon::build(&all, "deu", "eng", seed);
        assert_eq!(back.translations(h("haus")), [h("house")]);
        assert_eq!(back.translations(h("heim")), [h("house")]);
        assert_eq!(back.translations(h("gehen")), [h("go")]);
        assert!(Lexicon::build(&all, "eng", "spa", seed).is_empty());
    }

    #[test]
    fn composing_translates_through_the_language_between() {
        let seed = 7;
        let h = |w: &str| word_hash(w, seed);
        let deu_eng = dictionary(
            "deu",
            "eng",
            &[("haus", "house"), ("heim", "home"), ("heim", "house")],
        );
        let eng_fra = dictionary(
            "eng",
            "fra",
            &[("house", "maison"), ("home", "foyer"), ("go", "aller")],
        );
        let first = Lexicon::build(&[&deu_eng], "deu", "eng", seed);
        let second = Lexicon::build(&[&eng_fra], "eng", "fra", seed);
        let through = Lexicon::compose(&first, &second).unwrap();
        assert_eq!(through.languages(), ("deu", "fra"));
        assert_eq!(through.translations(h("haus")), [h("maison")]);
        let mut want = vec![h("maison"), h("foyer")];
        want.sort();
        assert_eq!(through.translations(h("heim")), want);
        // Words whose translations have none are left out.
        assert_eq!((through.len(), through.pairs()), (2, 3));
        assert!(through.translations(h("house")).is_empty());
        // The languages must chain, under one hash.
        assert!(Lexicon::compose(&second, &first).is_none());
        let other_seed = Lexicon::build(&[&eng_fra], "eng", "fra", 8);
        assert!(Lexicon::compose(&first, &other_seed).is_none());
    }

    /// Translation success on the corpus (`../shared/corpus`) with the
    /// installed FreeDict dictionaries, keeping or skipping translations of
    /// several words: the share of a source book's unique words that get a
    /// translation, and the share of those with a translation among the
    /// translated book's words. `cargo test --release --lib
    /// translation_success -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn translation_success() {
        use std::collections::{HashMap, HashSet};
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/texts");
        let dicts = Path::new("/usr/share/dictd");
        let code = |l: &str| match l {
            "en" => "eng",
            "de" => "deu",
            "fr" => "fra",
            "es" => "spa",
            _ => "ita",
        };
        let words = |key: &str| -> HashMap<String, u32> {
            let text = std::fs::read_to_string(corpus.join(format!("{key}.txt"))).unwrap();
            let mut counts = HashMap::new();
            crate::text::tokenise(&text, |t| {
                if let crate::text::Token::Word(w) = t {
                    *counts.entry(w.to_string()).or_insert(0) += 1;
                }
            });
            counts
        };
        let pairs = [
            ("pg800", "fr", "pg103", "en"),
            ("pg2499", "de", "pg2500", "en"),
            ("pg14944", "es", "pg38165", "en"),
            ("pg1000", "it", "pg1004", "en"),
            ("pg1524", "en", "pg7276", "de"),
            ("pg14155", "fr", "pg15711", "de"),
        ];
        for multi_word in [false, true] {
            let mut loaded: HashMap<String, Dictionary> = HashMap::new();
            let (mut sum_cov, mut sum_found, mut sum_chance) = (0.0, 0.0, 0.0);
            for (a, la, b, lb) in pairs {
                let (from, to) = (code(la), code(lb));
                for name in [
                    format!("freedict-{from}-{to}"),
                    format!("freedict-{to}-{from}"),
                ] {
                    let path = dicts.join(format!("{name}.index"));
                    if path.exists() && !loaded.contains_key(&name) {
                        loaded.insert(name, Dictionary::read_with(&path, multi_word).unwrap());
                    }
                }
                let all: Vec<&Dictionary> = loaded.values().collect();
                let lexicon = Lexicon::build(&all, from, to, 0);
                let source = words(a);
                let target: HashSet<u32> = words(b).keys().map(|w| word_hash(w, 0)).collect();
                let unique: Vec<&String> = source
                    .iter()
                    .filter(|(_, &n)| n == 1)
                    .map(|(w, _)| w)
                    .collect();
                let translated: Vec<&[u32]> = unique
                    .iter()
                    .map(|w| lexicon.translations(word_hash(w, 0)))
                    .filter(|t| !t.is_empty())
                    .collect();
                let found = translated
                    .iter()
                    .filter(|t| t.iter().any(|h| target.contains(h)))
                    .count();
                // The same against an unrelated book of the target
                // language: what is found by chance.
                let other = if lb == "en" { "pg11" } else { "pg2403" };
                let other: HashSet<u32> = words(other).keys().map(|w| word_hash(w, 0)).collect();
                let chance = translated
                    .iter()
                    .filter(|t| t.iter().any(|h| other.contains(h)))
                    .count();
                sum_chance += chance as f64 / translated.len().max(1) as f64;
                let coverage = translated.len() as f64 / unique.len() as f64;
                let in_target = found as f64 / translated.len().max(1) as f64;
                sum_cov += coverage;
                sum_found += in_target;
                println!(
                    "multi_word={multi_word} {a}({from}) -> {b}({to}): {} unique words, \
                     {:.1}% translated, {:.1}% of those found in the translation, \
                     {:.1}% of all found, {:.1}% found in an unrelated book",
                    unique.len(),
                    100.0 * coverage,
                    100.0 * in_target,
                    100.0 * found as f64 / unique.len() as f64,
                    100.0 * chance as f64 / translated.len().max(1) as f64
                );
            }
            let n = pairs.len() as f64;
            println!(
                "multi_word={multi_word}: mean {:.1}% translated, {:.1}% found, {:.1}% by chance",
                100.0 * sum_cov / n,
                100.0 * sum_found / n,
                100.0 * sum_chance / n
            );
        }
    }
}
