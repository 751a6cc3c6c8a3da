//! The two texts as words: one shared vocabulary of normalised words (each
//! stored once), every word occurrence as a vocabulary id with the byte range
//! it came from.

use nohash_hasher::BuildNoHashHasher;
use std::collections::HashMap;
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};
use crate::text::{tokenise_spans, Token};

/// Most words a text may have: word indexes are `u32` and `u32::MAX` is
/// left free so that an end index always fits.
pub const MAX_WORDS: usize = u32::MAX as usize - 1;

/// Distinct normalised words, each stored once, keyed by a 64-bit hash (a
/// colliding word is stored under the next free key, so ids are exact).
#[derive(Debug, Default)]
pub struct Vocabulary {
    ids: HashMap<u64, u32, BuildNoHashHasher<u64>>,
    text: String,
    starts: Vec<usize>,
    chars: Vec<u8>,
}

impl Vocabulary {
    /// The id of `word`, adding it when new.
    fn intern(&mut self, word: &str) -> u32 {
        let mut key = xxh3_64(word.as_bytes());
        loop {
            match self.ids.get(&key) {
                Some(&id) if self.word(id) == word => return id,
                Some(_) => key = key.wrapping_add(1),
                None => break,
            }
        }
        let id = self.starts.len() as u32;
        self.ids.insert(key, id);
        self.starts.push(self.text.len());
        self.text.push_str(word);
        // Words are at most MAX_WORD_BYTES (64) bytes, so at most 64 chars.
        self.chars.push(word.chars().count() as u8);
        id
    }

    /// Number of distinct words.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// The normalised word with this id.
    pub fn word(&self, id: u32) -> &str {
        let start = self.starts[id as usize];
        let end = self
            .starts
            .get(id as usize + 1)
            .copied()
            .unwrap_or(self.text.len());
        &self.text[start..end]
    }

    /// Characters (Unicode scalar values) of the word with this id.
    pub fn chars(&self, id: u32) -> u32 {
        u32::from(self.chars[id as usize])
    }
}

/// One text as words.
#[derive(Debug, Default)]
pub struct WordText {
    /// Vocabulary id of each word, in text order.
    pub ids: Vec<u32>,
    /// Byte range of the original text each word came from.
    pub bytes: Vec<Range<usize>>,
}

impl WordText {
    /// Number of words.
    pub fn len(&self) -> u32 {
        self.ids.len() as u32
    }

    /// Byte range from the first to the last of the words `words`
    /// (`start..start` for an empty range: the position before word `start`).
    pub fn byte_range(&self, words: &Range<u32>) -> Range<usize> {
        byte_range(&self.bytes, words)
    }
}

/// Byte range from the first to the last of the words `words`, given each
/// word's byte range (`start..start` for an empty range: the position
/// before word `start`).
pub fn byte_range(bytes: &[Range<usize>], words: &Range<u32>) -> Range<usize> {
    let (start, end) = (words.start as usize, words.end as usize);
    match (
        bytes.get(start),
        end.checked_sub(1).and_then(|e| bytes.get(e)),
    ) {
        (Some(first), Some(last)) if start < end => first.start..last.end,
        (Some(first), _) => first.start..first.start,
        _ => {
            let at = bytes.last().map_or(0, |last| last.end);
            at..at
        }
    }
}

/// Both texts of an alignment over one vocabulary.
#[derive(Debug, Default)]
pub struct WordTexts {
    /// The shared vocabulary.
    pub vocabulary: Vocabulary,
    /// Text A.
    pub a: WordText,
    /// Text B.
    pub b: WordText,
}

impl WordTexts {
    /// Tokenises both texts. Fails when either has more than [`MAX_WORDS`].
    pub fn new(a: &str, b: &str) -> Result<Self> {
        let mut vocabulary = Vocabulary::default();
        let a = words_of(a, "A", &mut vocabulary)?;
        let b = words_of(b, "B", &mut vocabulary)?;
        Ok(WordTexts { vocabulary, a, b })
    }
}

fn words_of(text: &str, name: &str, vocabulary: &mut Vocabulary) -> Result<WordText> {
    // A word takes at least two bytes with its separator.
    let mut words = WordText {
        ids: Vec::with_capacity(text.len() / 6),
        bytes: Vec::with_capacity(text.len() / 6),
    };
    tokenise_spans(text, |token, range| {
        if let Token::Word(word) = token {
            if words.ids.len() <= MAX_WORDS {
                words.ids.push(vocabulary.intern(word));
                words.bytes.push(range);
            }
        }
    });
    if words.ids.len() > MAX_WORDS {
        return Err(Error::InvalidArgument(format!(
            "text {name} has more than {MAX_WORDS} words"
        )));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_vocabulary_gives_equal_words_equal_ids() {
        let texts = WordTexts::new("The cat, the dog.", "A dog and a cat").unwrap();
        let word = |id: u32| texts.vocabulary.word(id);
        let a: Vec<&str> = texts.a.ids.iter().map(|&id| word(id)).collect();
        assert_eq!(a, ["the", "cat", "the", "dog"]);
        assert_eq!(texts.a.ids[0], texts.a.ids[2]);
        assert_eq!(texts.a.ids[1], texts.b.ids[4]);
        assert_eq!(texts.vocabulary.len(), 5);
        assert_eq!(texts.a.byte_range(&(1..3)), 4..12);
        assert_eq!(texts.a.byte_range(&(4..4)), 16..16);
        assert_eq!(texts.b.byte_range(&(0..0)), 0..0);
    }

    #[test]
    fn colliding_hashes_still_give_distinct_ids() {
        let mut vocabulary = Vocabulary::default();
        let first = vocabulary.intern("alpha");
        // Occupy the key "beta" hashes to with "alpha"'s id, as a collision would.
        let beta_key = xxh3_64(b"beta");
        vocabulary.ids.insert(beta_key, first);
        let beta = vocabulary.intern("beta");
        assert_ne!(beta, first);
        assert_eq!(vocabulary.intern("beta"), beta);
        assert_eq!(vocabulary.word(beta), "beta");
        assert_eq!(vocabulary.chars(beta), 4);
    }
}
