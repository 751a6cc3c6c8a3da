//! Reading a bilingual dictionary in the dictd format FreeDict publishes
//! (Debian's `dict-freedict-*` packages install them under
//! `/usr/share/dictd/`): an `.index` of lines `headword TAB offset TAB
//! length`, the offset and length in dictd's base64 digits, pointing into
//! the `.dict.dz` (dictzip, which is gzip) or a plain `.dict`.
//!
//! **Entries.** The first line of an entry is its headword, followed by a
//! pronunciation `/…/`, inflected forms `(…)` and tags `<…>`, which are
//! dropped. The lines that start at the left margin after it hold the
//! translations; indented lines hold notes (`Note:`), examples (`"…" - …`),
//! synonyms (`Synonym(s): {…}`) and cross-references (`see: {…}`), and are
//! dropped. When some translation lines start with a sense number (`1.`,
//! `2.`, …) only the numbered lines are translations: the dictionaries
//! generated from Wiktionary (fra-deu, deu-fra) put a definition in the
//! source language on an unnumbered line after each sense. Without sense
//! numbers, only the first line is: an unnumbered line after it is such a
//! definition. In a translation line, tags `<…>`, domains `[…]`, glosses
//! `(…)`, references `{…}` and sense numbers are removed, and the rest is
//! split at `,` and `;`.
//!
//! **Cross-references** (`see: {…}`, `Synonym: {…}`) name other headwords
//! of the source language, which have entries of their own: they are not
//! followed (following them would give a word the translations of its
//! synonyms).
//!
//! **Normalisation.** Headwords and translations are normalised exactly as
//! a book's words are, by the tokeniser ([`crate::text::tokenise`]). A
//! headword of more than one word is a phrase and is skipped: the thesis
//! (chapter 5.1) ignores phrasal translations, since a book's unique words
//! are single words. A translation of more than one word is skipped too
//! ([`MULTI_WORD`] says why). Every translation of a headword is kept,
//! from every entry of it.
//!
//! **Damage.** The structure of the files must be sound: a line of the
//! index without its three fields, a bad base64 digit, an entry past the
//! end of the `.dict` or a `.dict.dz` that is not gzip is `Corrupted`,
//! naming the file (and the index line); nothing is read from a damaged
//! pair. An entry's content is never an error: an entry that is not UTF-8
//! or longer than [`MAX_ENTRY_BYTES`] is skipped and counted
//! ([`Dictionary::skipped_entries`]). The `00database…` entries (the
//! dictionary's own description) are not entries.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Error, IoContext, Result};
use crate::text::{tokenise, Token};

/// Entries longer than this are skipped: no real entry is (eng-deu's
/// longest is about 20 KB), and an entry of megabytes must not be parsed.
pub const MAX_ENTRY_BYTES: usize = 1 << 20;

/// Most bytes of a dict the entries of an index may reach (the largest
/// FreeDict dictionary is about 100 MB): a dictionary reaching further is
/// refused rather than held in memory.
pub const MAX_DICT_BYTES: u64 = 1 << 30;

/// Most bytes the entries of a `.index` may span in the dict, per entry
/// (FreeDict's average is about 200 bytes, its longest entry about
/// 20 KB): the dict is decompressed only as far as the entries reach, and
/// an index whose entries reach further than this many bytes each is
/// refused before anything is decompressed.
pub const MAX_SPAN_PER_ENTRY: u64 = 1 << 16;

/// Most bytes a `.index` may hold (FreeDict's largest is about 13 MB).
pub const MAX_INDEX_BYTES: u64 = 1 << 28;

/// Whether a translation of several words (`vor sich gehen`) is kept as
/// each of its words (`false`: it is skipped). Measured on six translation
/// pairs of the corpus with the installed FreeDict dictionaries
/// (`translation_success` in `lexicon.rs`'s tests): keeping each word
/// translates 32.9% of a source book's unique words instead of 29.7%, and
/// 71.6% of the translated words have a translation in the translated book
/// instead of 68.1%, but 50.7% have one in an unrelated book of the same
/// language instead of 45.2%: the words of phrases (`sich`, `to`, `de`)
/// are found anywhere, and the margin over chance falls from 22.9 to 20.9
/// points. Only one-word translations are kept, as the thesis keeps only
/// one-word headwords.
pub const MULTI_WORD: bool = false;

/// A bilingual dictionary: its languages, a sorted table of normalised
/// words of both languages, and the translation pairs between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dictionary {
    name: String,
    from: String,
    to: String,
    words: Vec<String>,
    pairs: Vec<(u32, u32)>,
    skipped_entries: u64,
}

impl Dictionary {
    /// A dictionary named `name` of `pairs` (word, translation), its words
    /// normalised as a book's are ([`crate::text::normalise`]); a pair
    /// given twice counts once. An error when `from` or `to` is not three
    /// lower-case ASCII letters or a word is empty.
    pub fn from_word_pairs<S: AsRef<str>>(
        name: &str,
        from: &str,
        to: &str,
        pairs: &[(S, S)],
    ) -> Result<Dictionary> {
        let mut words: Vec<String> = pairs
            .iter()
            .flat_map(|(a, b)| [a.as_ref().to_string(), b.as_ref().to_string()])
            .collect();
        words.sort_unstable();
        words.dedup();
        let at = |w: &str| words.binary_search_by(|x| x.as_str().cmp(w)).unwrap_or(0) as u32;
        let mut ids: Vec<(u32, u32)> = pairs
            .iter()
            .map(|(a, b)| (at(a.as_ref()), at(b.as_ref())))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let (name, from, to) = (name.to_string(), from.to_string(), to.to_string());
        Dictionary::from_parts(Path::new(&name.clone()), name, from, to, words, ids)
    }

    /// A dictionary from its parts; `Corrupted` naming `path` when `words`
    /// is not strictly ascending, a word is empty, or `pairs` is not
    /// strictly ascending or points past the words. `from` and `to` must
    /// be three lower-case ASCII letters.
    pub fn from_parts(
        path: &Path,
        name: String,
        from: String,
        to: String,
        words: Vec<String>,
        pairs: Vec<(u32, u32)>,
    ) -> Result<Dictionary> {
        let bad = |what: String| Err(Error::corrupted(path, what));
        for lang in [&from, &to] {
            if !is_language(lang) {
                return bad(format!("language {lang:?} is not three lower-case letters"));
            }
        }
        if let Some(i) = words.iter().position(String::is_empty) {
            return bad(format!("word {i} is empty"));
        }
        if let Some(i) = words.windows(2).position(|w| w[0] >= w[1]) {
            return bad(format!(
                "words {i} and {} are not in ascending order",
                i + 1
            ));
        }
        if let Some(i) = pairs.windows(2).position(|p| p[0] >= p[1]) {
            return bad(format!(
                "pairs {i} and {} are not in ascending order",
                i + 1
            ));
        }
        let n = words.len() as u64;
        if let Some(i) = pairs
            .iter()
            .position(|&(a, b)| u64::from(a) >= n || u64::from(b) >= n)
        {
            return bad(format!("pair {i} points past the {n} words"));
        }
        Ok(Dictionary {
            name,
            from,
            to,
            words,
            pairs,
            skipped_entries: 0,
        })
    }

    /// Reads the dictd dictionary of which `path` is either file (the
    /// `.index`, or the `.dict.dz` or `.dict`): finds the other, tells the
    /// languages (from the name, see [`languages_of_name`], else from the
    /// `00databaseshort` entry) and parses every entry.
    pub fn read(path: &Path) -> Result<Dictionary> {
        Dictionary::read_with(path, MULTI_WORD)
    }

    pub(crate) fn read_with(path: &Path, multi_word: bool) -> Result<Dictionary> {
        let (index_path, dict_path) = dictd_pair(path)?;
        let index = read_index(&index_path)?;
        let entries = parse_index(&index, &index_path, &dict_path, u64::MAX)?;
        let reach = entries
            .iter()
            .map(|&(_, offset, len)| offset + len)
            .max()
            .unwrap_or(0);
        let bound = MAX_DICT_BYTES.min(MAX_SPAN_PER_ENTRY.saturating_mul(entries.len() as u64));
        if reach > bound {
            return Err(Error::corrupted(
                &index_path,
                format!(
                    "its entries ({}) reach byte {reach} of the dict: more than {bound} bytes \
                     ({MAX_SPAN_PER_ENTRY} an entry, {MAX_DICT_BYTES} in all)",
                    entries.len()
                ),
            ));
        }
        let dict = read_dict(&dict_path, reach)?;
        if (dict.len() as u64) < reach {
            return Err(Error::corrupted(
                &index_path,
                format!(
                    "its entries reach byte {reach}, past the end of {} ({} bytes)",
                    dict_path.display(),
                    dict.len()
                ),
            ));
        }
        let name = stem(&index_path).to_string();
        Dictionary::from_entries(&name, &entries, &index_path, &dict, multi_word)
    }

    /// Parses a dictd dictionary from the bytes of its index and of its
    /// (decompressed) dict, named `name` (its file stem); the paths name
    /// them in errors.
    pub fn parse(
        name: &str,
        index: &[u8],
        index_path: &Path,
        dict: &[u8],
        dict_path: &Path,
    ) -> Result<Dictionary> {
        Dictionary::parse_with(name, index, index_path, dict, dict_path, MULTI_WORD)
    }

    /// [`Dictionary::parse`], keeping each word of a translation of
    /// several words when `multi_word`.
    pub(crate) fn parse_with(
        name: &str,
        index: &[u8],
        index_path: &Path,
        dict: &[u8],
        dict_path: &Path,
        multi_word: bool,
    ) -> Result<Dictionary> {
        let entries = parse_index(index, index_path, dict_path, dict.len() as u64)?;
        Dictionary::from_entries(name, &entries, index_path, dict, multi_word)
    }

    /// The dictionary of the index's `entries` (kind, offset, length),
    /// sorted by offset, over the bytes of the dict.
    fn from_entries(
        name: &str,
        entries: &[(usize, u64, u64)],
        index_path: &Path,
        dict: &[u8],
        multi_word: bool,
    ) -> Result<Dictionary> {
        let entry_text = |&(_, offset, len): &(usize, u64, u64)| -> Option<&str> {
            let bytes = dict.get(offset as usize..(offset + len) as usize)?;
            std::str::from_utf8(bytes).ok()
        };
        let (from, to) = match languages_of_name(name) {
            Some(pair) => pair,
            None => entries
                .iter()
                .filter(|e| e.0 == usize::MAX)
                .find_map(|e| entry_text(e).and_then(languages_of_short))
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "{}: cannot tell the dictionary's languages: its name is not \
                         freedict-XXX-YYY (ISO 639-3 codes) and its 00databaseshort entry \
                         names no known pair of languages",
                        index_path.display()
                    ))
                })?,
        };
        let mut builder = Builder {
            multi_word,
            ..Builder::default()
        };
        let mut skipped = 0u64;
        let mut last = None;
        for entry in entries {
            if entry.0 == usize::MAX || last == Some((entry.1, entry.2)) {
                continue;
            }
            last = Some((entry.1, entry.2));
            if entry.2 as usize > MAX_ENTRY_BYTES {
                skipped += 1;
                continue;
            }
            let Some(text) = entry_text(entry) else {
                skipped += 1;
                continue;
            };
            let parsed = parse_entry(text);
            builder.add(&parsed);
        }
        if builder.pairs.is_empty() {
            return Err(Error::corrupted(
                index_path,
                "no entry with a one-word headword and a one-word translation: not a \
                 bilingual dictionary",
            ));
        }
        let mut dictionary = builder.finish(name, from, to);
        dictionary.skipped_entries = skipped;
        Ok(dictionary)
    }

    /// The dictionary's name: the stem of its files (`freedict-eng-deu`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The language of its headwords (ISO 639-3).
    pub fn from(&self) -> &str {
        &self.from
    }

    /// The language of its translations (ISO 639-3).
    pub fn to(&self) -> &str {
        &self.to
    }

    /// Its normalised words, of both languages, in ascending order.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Its translation pairs (headword, translation), indexes into
    /// [`Self::words`], in ascending order.
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// Distinct headwords that have a translation.
    pub fn headwords(&self) -> u64 {
        let mut n = 0u64;
        let mut last = None;
        for &(a, _) in &self.pairs {
            if last != Some(a) {
                n += 1;
                last = Some(a);
            }
        }
        n
    }

    /// Entries skipped when it was read: not UTF-8, or longer than
    /// [`MAX_ENTRY_BYTES`].
    pub fn skipped_entries(&self) -> u64 {
        self.skipped_entries
    }

    /// The translations of the normalised word `word`, in word order.
    pub fn translations_of(&self, word: &str) -> Vec<&str> {
        let Ok(i) = self.words.binary_search_by(|w| w.as_str().cmp(word)) else {
            return Vec::new();
        };
        let i = i as u32;
        let start = self.pairs.partition_point(|&(a, _)| a < i);
        self.pairs[start..]
            .iter()
            .take_while(|&&(a, _)| a == i)
            .map(|&(_, b)| self.words[b as usize].as_str())
            .collect()
    }
}

/// Collects normalised headword → translation pairs into a word table.
#[derive(Default)]
struct Builder {
    multi_word: bool,
    ids: HashMap<String, u32>,
    pairs: Vec<(u32, u32)>,
}

impl Builder {
    fn id(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(word.to_string(), id);
        id
    }

    fn add(&mut self, entry: &Entry) {
        let Some(headword) = single_word(&entry.headword) else {
            return;
        };
        let mut words = Vec::new();
        for item in &entry.translations {
            words.clear();
            tokenise(item, |token| {
                if let Token::Word(w) = token {
                    words.push(w.to_string());
                }
            });
            if words.len() > 1 && !self.multi_word {
                continue;
            }
            let source = self.id(&headword);
            for word in &words {
                let target = self.id(word);
                self.pairs.push((source, target));
            }
        }
    }

    /// The dictionary: words sorted, pairs renumbered, sorted, deduplicated.
    fn finish(self, name: &str, from: String, to: String) -> Dictionary {
        let mut words: Vec<(String, u32)> = self.ids.into_iter().collect();
        words.sort_unstable();
        let mut rank = vec![0u32; words.len()];
        for (i, (_, id)) in words.iter().enumerate() {
            rank[*id as usize] = i as u32;
        }
        let mut pairs: Vec<(u32, u32)> = self
            .pairs
            .into_iter()
            .map(|(a, b)| (rank[a as usize], rank[b as usize]))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        Dictionary {
            name: name.to_string(),
            from,
            to,
            words: words.into_iter().map(|(w, _)| w).collect(),
            pairs,
            skipped_entries: 0,
        }
    }
}

/// The one normalised word of `text`; `None` for none or several.
fn single_word(text: &str) -> Option<String> {
    let mut word = None;
    let mut count = 0;
    tokenise(text, |token| {
        if let Token::Word(w) = token {
            count += 1;
            if count == 1 {
                word = Some(w.to_string());
            }
        }
    });
    if count == 1 {
        word
    } else {
        None
    }
}

/// One parsed entry: its headword and translation items, as written
/// (markup removed, not normalised).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    /// The headword, without pronunciation, forms and tags.
    pub headword: String,
    /// Each translation, markup removed.
    pub translations: Vec<String>,
}

/// Parses the text of one entry (see the module docs).
pub fn parse_entry(text: &str) -> Entry {
    let mut lines = text.lines().skip_while(|l| l.trim().is_empty());
    let Some(first) = lines.next() else {
        return Entry::default();
    };
    let cut = [" /", " <", " (", " [", "\t"]
        .iter()
        .filter_map(|m| first.find(m))
        .min()
        .unwrap_or(first.len());
    let headword = first[..cut].trim().to_string();
    let candidates: Vec<&str> = lines
        .filter(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
        .filter(|l| !is_annotation(l))
        .collect();
    let numbered = candidates.iter().any(|l| sense_number(l).is_some());
    let chosen: Vec<&str> = if numbered {
        candidates
            .into_iter()
            .filter(|l| sense_number(l).is_some())
            .collect()
    } else {
        candidates.into_iter().take(1).collect()
    };
    let mut translations = Vec::new();
    for line in chosen {
        let line = &line[sense_number(line).unwrap_or(0)..];
        let plain = strip_markup(line);
        for item in plain.split([',', ';']) {
            let item = item.trim();
            if !item.is_empty() {
                translations.push(item.to_string());
            }
        }
    }
    Entry {
        headword,
        translations,
    }
}

/// Lines that are not translations even at the left margin.
fn is_annotation(line: &str) -> bool {
    ["Note:", "Synonym:", "Synonyms:", "see:", "See:", "\""]
        .iter()
        .any(|p| line.starts_with(p))
}

/// The length of a sense number (`12. `) opening `line`.
fn sense_number(line: &str) -> Option<usize> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 3 || line.as_bytes().get(digits) != Some(&b'.') {
        return None;
    }
    match line.as_bytes().get(digits + 1) {
        None => Some(digits + 1),
        Some(b) if b.is_ascii_whitespace() => Some(digits + 2),
        Some(_) => None,
    }
}

/// `line` without `<…>`, `[…]`, `(…)`, `{…}` (nested or not; an unclosed
/// one runs to the end of the line), pronunciations (`/ˈhaʊs/`: a slash
/// after a space or at the start, to the next slash) and sense numbers
/// (`2.`) anywhere. A slash inside a word (`and/or`) is kept.
fn strip_markup(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut depth = 0usize;
    let mut pronunciation = false;
    let mut previous = ' ';
    for c in line.chars() {
        match c {
            '/' if pronunciation => pronunciation = false,
            _ if pronunciation => {}
            '/' if depth == 0 && previous.is_whitespace() => pronunciation = true,
            '<' | '[' | '(' | '{' => depth += 1,
            '>' | ']' | ')' | '}' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
        previous = c;
    }
    // Sense numbers inside the line ("Haus 2."): a number followed by a
    // period and a space or the end is removed.
    let mut cleaned = String::with_capacity(out.len());
    for (i, token) in out.split(' ').enumerate() {
        if i > 0 {
            cleaned.push(' ');
        }
        if sense_number(token).is_none() {
            cleaned.push_str(token);
        }
    }
    cleaned
}

/// dictd's base64 digits, most significant first; `None` for a bad digit
/// or a value past `u64`.
fn base64(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    let mut value = 0u64;
    for &d in digits {
        let v = match d {
            b'A'..=b'Z' => d - b'A',
            b'a'..=b'z' => d - b'a' + 26,
            b'0'..=b'9' => d - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        value = value.checked_mul(64)?.checked_add(u64::from(v))?;
    }
    Some(value)
}

/// The entries of a dictd index: (headword kind, offset, length) sorted by
/// offset and length, where the kind is `usize::MAX` for a
/// `00database…` entry and 0 otherwise. `Corrupted` naming `path` and the
/// line for a line without three fields, a bad number, or an entry past
/// `dict_len`.
fn parse_index(
    index: &[u8],
    path: &Path,
    dict_path: &Path,
    dict_len: u64,
) -> Result<Vec<(usize, u64, u64)>> {
    let mut entries = Vec::new();
    for (n, line) in index.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let bad = |what: &str| {
            Error::corrupted(path, format!("line {} of the dictd index: {what}", n + 1))
        };
        let mut fields = line.split(|&b| b == b'\t');
        let (Some(headword), Some(offset), Some(len)) =
            (fields.next(), fields.next(), fields.next())
        else {
            return Err(bad("not headword TAB offset TAB length"));
        };
        let offset = base64(offset).ok_or_else(|| bad("the offset is not dictd base64"))?;
        let len = base64(len).ok_or_else(|| bad("the length is not dictd base64"))?;
        if offset.checked_add(len).is_none_or(|end| end > dict_len) {
            return Err(bad(&format!(
                "the entry at {offset}, {len} bytes long, runs past the end of {} \
                 ({dict_len} bytes)",
                dict_path.display()
            )));
        }
        let kind = if headword.starts_with(b"00database") || headword.starts_with(b"00-database") {
            usize::MAX
        } else {
            0
        };
        entries.push((kind, offset, len));
    }
    entries.sort_unstable_by_key(|&(kind, offset, len)| (offset, len, kind));
    Ok(entries)
}

/// The index and dict files of the dictd dictionary of which `path` is
/// one: `X.index` with `X.dict.dz` (else `X.dict`), or the reverse.
/// `InvalidArgument` for another extension; `Io` naming the missing one.
pub fn dictd_pair(path: &Path) -> Result<(PathBuf, PathBuf)> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let with = |ext: &str, base: &str| path.with_file_name(format!("{base}{ext}"));
    let (index, dict) = if let Some(base) = name.strip_suffix(".index") {
        let dz = with(".dict.dz", base);
        let plain = with(".dict", base);
        let dict = if !dz.exists() && plain.exists() {
            plain
        } else {
            dz
        };
        (path.to_path_buf(), dict)
    } else if let Some(base) = name
        .strip_suffix(".dict.dz")
        .or_else(|| name.strip_suffix(".dict"))
    {
        (with(".index", base), path.to_path_buf())
    } else {
        return Err(Error::InvalidArgument(format!(
            "{}: not a dictd dictionary file (expected NAME.index, NAME.dict.dz or NAME.dict)",
            path.display()
        )));
    };
    for p in [&index, &dict] {
        if let Err(e) = std::fs::metadata(p) {
            return Err(Error::Io {
                path: p.clone(),
                source: std::io::Error::new(
                    e.kind(),
                    format!(
                        "the dictd dictionary {} needs this file: {e}",
                        path.display()
                    ),
                ),
            });
        }
    }
    Ok((index, dict))
}

/// The bytes of a `.index`, at most [`MAX_INDEX_BYTES`].
fn read_index(path: &Path) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    std::fs::File::open(path)
        .at(path)?
        .take(MAX_INDEX_BYTES + 1)
        .read_to_end(&mut out)
        .at(path)?;
    if out.len() as u64 > MAX_INDEX_BYTES {
        return Err(Error::corrupted(
            path,
            format!("the dictd index holds more than {MAX_INDEX_BYTES} bytes"),
        ));
    }
    Ok(out)
}

/// The first `reach` bytes of a `.dict.dz` (decompressed as far as that,
/// never further) or a `.dict`; fewer when the dict is shorter.
fn read_dict(path: &Path, reach: u64) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).at(path)?;
    let compressed = path.extension().is_some_and(|e| e == "dz");
    let mut out = Vec::new();
    let result = if compressed {
        flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file))
            .take(reach)
            .read_to_end(&mut out)
    } else {
        file.take(reach).read_to_end(&mut out)
    };
    if let Err(e) = result {
        return Err(if compressed {
            Error::corrupted(path, format!("not a readable dictzip (gzip) file: {e}"))
        } else {
            Error::Io {
                path: path.to_path_buf(),
                source: e,
            }
        });
    }
    Ok(out)
}

/// The file stem of a dictd file: its name without `.index`, `.dict.dz`
/// or `.dict`.
fn stem(path: &Path) -> &str {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    for ext in [".index", ".dict.dz", ".dict"] {
        if let Some(base) = name.strip_suffix(ext) {
            return base;
        }
    }
    name
}

fn is_language(code: &str) -> bool {
    code.len() == 3 && code.bytes().all(|b| b.is_ascii_lowercase())
}

/// The languages of a dictionary named `freedict-XXX-YYY`.
pub fn languages_of_name(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("freedict-")?;
    let (from, to) = rest.split_once('-')?;
    (is_language(from) && is_language(to)).then(|| (from.to_string(), to.to_string()))
}

/// English names of languages FreeDict has dictionaries for, with their
/// ISO 639-3 codes.
const LANGUAGE_NAMES: &[(&str, &str)] = &[
    ("english", "eng"),
    ("german", "deu"),
    ("french", "fra"),
    ("spanish", "spa"),
    ("italian", "ita"),
    ("portuguese", "por"),
    ("dutch", "nld"),
    ("swedish", "swe"),
    ("danish", "dan"),
    ("norwegian", "nor"),
    ("finnish", "fin"),
    ("polish", "pol"),
    ("czech", "ces"),
    ("russian", "rus"),
    ("latin", "lat"),
    ("greek", "ell"),
    ("hungarian", "hun"),
    ("turkish", "tur"),
    ("irish", "gle"),
    ("welsh", "cym"),
    ("japanese", "jpn"),
];

/// The languages named by a `00databaseshort` entry (`French-English
/// FreeDict Dictionary`, `English - German Ding/FreeDict dictionary`).
fn languages_of_short(text: &str) -> Option<(String, String)> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("00"))?;
    let (a, b) = line.split_once('-')?;
    let code = |name: &str| -> Option<String> {
        let name = name.trim().to_lowercase();
        LANGUAGE_NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.to_string())
    };
    let from = code(a.split_whitespace().last()?)?;
    let to = code(b.split_whitespace().next()?)?;
    Some((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index and dict holding `entries` (index headword, entry text).
    pub(crate) fn dictd(entries: &[(&str, &str)]) -> (Vec<u8>, Vec<u8>) {
        let (index, dict) = stemmata_synth::dictd::files(entries);
        (index.into_bytes(), dict.into_bytes())
    }

    const DING: &str = "go /ɡˈəʊ/ (went /wˈɛnt/ <>, gone /ɡˈɒn/ <>) <v>\n\
        gehen <v, intr>, vor sich gehen [geh.]; weggehen\n\
        \x20     \"he/she goes\"  - er/sie geht\n\
        \x20        Note: mit etw.\n\
        \x20  Synonym: {leave}\n\n\
        \x20see: {going}, {gone}\n\n";
    const NUMBERED: &str = "aller /ale/ <v>\n1. fare\n2. go, ride (a horse), travel\n";
    const WIKTIONARY: &str = "maison /me.zɔ̃/ /mɛ.zɔ̃/ <n, fem>\n1. Haus 2.\n\
        Bâtiment servant de logis\n 3.\nMaisonnée\n2. Heim\nFoyer\n";

    #[test]
    fn parses_ding_entries() {
        let entry = parse_entry(DING);
        assert_eq!(entry.headword, "go");
        assert_eq!(entry.translations, ["gehen", "vor sich gehen", "weggehen"]);
        let abbey = parse_entry(
            "abbey /ˈabi/\nAbtei <fem>, Klosterkirche <fem> [relig.]\n see: {abbeys}\n\n",
        );
        assert_eq!(abbey.headword, "abbey");
        assert_eq!(abbey.translations, ["Abtei", "Klosterkirche"]);
        // A pronunciation inside a translation line is no translation; a
        // slash inside a word is kept.
        let newspaper = parse_entry(
            "newspaper /njˈuːzpeɪpə/\nZeitung <fem>Ztg., /zˌɛdtˌiːdʒˈiː/ , Blatt, und/oder\n\n",
        );
        assert_eq!(
            newspaper.translations,
            ["Zeitung Ztg.", "Blatt", "und/oder"]
        );
    }

    #[test]
    fn parses_numbered_senses_and_drops_definitions() {
        let entry = parse_entry(NUMBERED);
        assert_eq!(entry.headword, "aller");
        assert_eq!(entry.translations, ["fare", "go", "ride", "travel"]);
        let entry = parse_entry(WIKTIONARY);
        assert_eq!(entry.headword, "maison");
        assert_eq!(entry.translations, ["Haus", "Heim"]);
        // Without numbers, only the first line translates.
        let entry = parse_entry("maison /mɛ.zɔ̃/ <adj>\nhausgemacht\nFait à la maison\n");
        assert_eq!(entry.translations, ["hausgemacht"]);
    }

    #[test]
    fn reads_a_dictionary_skipping_phrases_and_the_database_entries() {
        let (index, dict) = dictd(&[
            (
                "00databaseshort",
                "00-database-short\n     English-German FreeDict\n",
            ),
            ("go", DING),
            ("go", DING),
            ("give up", "give up /ɡɪv ʌp/\naufgeben\n"),
            ("Éclair", "Éclair\nBLITZ, Straße\n"),
            ("bad", "bad\n\u{0}"),
        ]);
        let mut dict = dict;
        let at = dict.len() - 1;
        dict[at] = 0xff; // the last entry is not UTF-8
        let d = Dictionary::parse(
            "x",
            &index,
            Path::new("x.index"),
            &dict,
            Path::new("x.dict"),
        )
        .unwrap();
        assert_eq!((d.from(), d.to()), ("eng", "deu"));
        assert_eq!(d.translations_of("go"), ["gehen", "weggehen"]);
        let want = ["BLITZ", "Straße"].map(crate::text::normalise);
        let eclair = crate::text::normalise("Éclair");
        assert_eq!(
            d.translations_of(&eclair),
            want.each_ref().map(String::as_str)
        );
        assert!(d.translations_of("give").is_empty());
        assert!(d.translations_of("00databaseshort").is_empty());
        assert_eq!(d.headwords(), 2);
        assert_eq!(d.skipped_entries(), 1);
    }

    #[test]
    fn headwords_and_translations_are_normalised_as_book_words() {
        let (index, dict) = dictd(&[("x", "Straße /x/\nMAISON-\nneuve\n")]);
        let d = Dictionary::parse(
            "freedict-deu-fra",
            &index,
            Path::new("i"),
            &dict,
            Path::new("d"),
        )
        .unwrap();
        let book = crate::text::normalise("Straße");
        let translation = crate::text::normalise("MAISON-");
        assert_eq!(d.translations_of(&book), [translation.as_str()]);
    }

    #[test]
    fn languages_come_from_the_name_or_the_short_entry() {
        assert_eq!(
            languages_of_name("freedict-fra-eng"),
            Some(("fra".into(), "eng".into()))
        );
        assert_eq!(languages_of_name("freedict-FRA-eng"), None);
        assert_eq!(languages_of_name("mydict"), None);
        assert_eq!(
            languages_of_short("00-database-short\n  English - German Ding/FreeDict dictionary\n"),
            Some(("eng".into(), "deu".into()))
        );
        let (index, dict) = dictd(&[("go", NUMBERED)]);
        let error = Dictionary::parse(
            "mydict",
            &index,
            Path::new("mydict.index"),
            &dict,
            Path::new("d"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("mydict.index") && error.contains("languages"),
            "{error}"
        );
    }

    #[test]
    fn damaged_indexes_are_errors_naming_the_file_and_line() {
        let (_, dict) = dictd(&[("go", NUMBERED)]);
        for (index, what) in [
            (&b"go\tA\n"[..], "line 1"),
            (b"go\tA!\tB\n", "base64"),
            (b"go\tA\tB\nx\tZZZZ\tB\n", "line 2"),
            (b"go\tA\t//////////////\n", "base64"),
            (b"", "no entry"),
        ] {
            let error = Dictionary::parse(
                "freedict-fra-eng",
                index,
                Path::new("f.index"),
                &dict,
                Path::new("f.dict"),
            )
            .unwrap_err()
            .to_string();
            assert!(error.contains("f.index") && error.contains(what), "{error}");
        }
    }

    #[test]
    fn base64_reads_dictd_digits() {
        assert_eq!(base64(b"A"), Some(0));
        assert_eq!(base64(b"BA"), Some(64));
        assert_eq!(base64(b"//"), Some(4095));
        assert_eq!(
            base64(b"FVrr"),
            Some(5 * 64 * 64 * 64 + 21 * 64 * 64 + 43 * 64 + 43)
        );
        assert_eq!(base64(b""), None);
        assert_eq!(base64(b"A=B"), None);
        for n in [0, 1, 63, 64, 1 << 40] {
            assert_eq!(
                base64(stemmata_synth::dictd::number(n as usize).as_bytes()),
                Some(n)
            );
        }
    }

    #[test]
    fn a_long_line_is_parsed_in_linear_time() {
        let long = format!("word\n{}\n", "a, ".repeat(3_000_000));
        let entry = parse_entry(&long);
        assert_eq!(entry.translations.len(), 3_000_000);
        let markup = format!("word\n{}x\n", "<".repeat(1_000_000));
        assert!(parse_entry(&markup).translations.is_empty());
    }
}
