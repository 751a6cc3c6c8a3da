//! The bilingual dictionaries of an index (format 8): importing one,
//! removing one, listing them, reading them back and checking them.
//!
//! A dictionary is imported by parsing its dictd files whole first (an
//! error leaves the index as it was), then writing its dictionary file
//! `dictionaries/NNNNNN.dic`, numbered above every listed and present
//! file, syncing it and its directory, and then listing it in the
//! catalog's `dictionaries` table in one transaction: that transaction is
//! the moment the index changes. A dictionary of the same name is
//! replaced by that transaction (importing an updated dictionary again is
//! the way to update it); the replaced file is removed after it. Removing
//! a dictionary unlists it, then removes its file. A file the table does
//! not list was left by an import that stopped before its transaction, or
//! by a removal that stopped after it: readers never read it, and the next
//! writer removes it ([`crate::store::unlisted`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, IoContext, Result};
use crate::repr::unique_words::word_hash;
use crate::storage::catalog::CatalogSnapshot;
use crate::storage::dictionary_file::{self, DictionaryEntry};
use crate::storage::format::sync_parent_dir;
use crate::storage::fs;
use crate::store::layout::DICTIONARY_DIR;
use crate::store::{unlisted, Store};
use crate::translate::dictionary::Dictionary;
use crate::translate::lexicon::Lexicon;

/// What the index holds about one dictionary.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct DictionaryInfo {
    /// Its name: the stem of the files it was imported from
    /// (`freedict-eng-deu`).
    pub name: String,
    /// Language of its headwords (ISO 639-3).
    pub from: String,
    /// Language of its translations (ISO 639-3).
    pub to: String,
    /// Distinct headwords with a translation.
    pub headwords: u64,
    /// Translation pairs.
    pub pairs: u64,
    /// Bytes of its dictionary file in the index.
    pub bytes: u64,
    /// What went wrong after the import was committed (the replaced
    /// dictionary's file not removed); empty but after an import.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl DictionaryInfo {
    fn new(name: &str, entry: &DictionaryEntry) -> DictionaryInfo {
        DictionaryInfo {
            warnings: Vec::new(),
            name: name.to_string(),
            from: entry.from.clone(),
            to: entry.to.clone(),
            headwords: entry.headwords,
            pairs: entry.pairs,
            bytes: entry.bytes,
        }
    }
}

fn dir_of(store: &Store) -> PathBuf {
    store.dir().join(DICTIONARY_DIR)
}

/// The path of dictionary file `number`.
pub(crate) fn file_path(store: &Store, number: u32) -> PathBuf {
    dir_of(store).join(format!("{number:06}.dic"))
}

/// The number of a dictionary file's name (`000012.dic`).
fn number_of(name: &std::ffi::OsStr) -> Option<u32> {
    let stem = name.to_str()?.strip_suffix(".dic")?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

/// Imports the dictd dictionary of which `path` is a file (see the module
/// docs).
pub(crate) fn add(store: &Arc<Store>, path: &Path) -> Result<DictionaryInfo> {
    add_read(store, &Dictionary::read(path)?)
}

/// Imports `dictionary`, read from its dictd files (see the module docs).
pub(crate) fn add_read(store: &Arc<Store>, dictionary: &Dictionary) -> Result<DictionaryInfo> {
    let _writer = store.lock_writer()?;
    let dir = dir_of(store);
    fs::refuse_link(&dir)?;
    if !dir.is_dir() {
        fs::create_dir_all(&dir)?;
        sync_parent_dir(&dir)?;
    }
    // Numbered above every listed and present file (the writer role removed
    // the unlisted ones).
    let mut next = listed(store)?
        .iter()
        .map(|(_, e)| e.file)
        .max()
        .unwrap_or(0);
    for entry in std::fs::read_dir(&dir).at(&dir)? {
        if let Some(n) = number_of(&entry.at(&dir)?.file_name()) {
            next = next.max(n);
        }
    }
    let number = next.checked_add(1).ok_or_else(|| {
        Error::InvalidArgument(format!("{}: no dictionary file number left", dir.display()))
    })?;
    // Books loaded before the index's first dictionary have no passages.
    let books_without_passages = match listed(store)?.is_empty() {
        true => store.catalog().snapshot()?.key_count()?,
        false => 0,
    };
    let bytes = dictionary_file::encode(dictionary);
    let file_path = file_path(store, number);
    let mut file = fs::WriteFile::create_new(&file_path)?;
    file.write_all(&bytes)?;
    file.sync_all()?;
    drop(file);
    fs::sync_dir(&dir)?;
    let entry = DictionaryEntry {
        file: number,
        from: dictionary.from().to_string(),
        to: dictionary.to().to_string(),
        headwords: dictionary.headwords(),
        pairs: dictionary.pairs().len() as u64,
        bytes: bytes.len() as u64,
        checksum: dictionary_file::stored_checksum(&bytes).unwrap_or_default(),
    };
    // On an error the new file stays: a failed commit may have listed it
    // after all (an error after the commit was durable); if it did not,
    // the file is unlisted and the next writer removes it.
    let replaced = store.catalog().put_dictionary(dictionary.name(), &entry)?;
    let mut info = DictionaryInfo::new(dictionary.name(), &entry);
    info.warnings =
        unlisted::remove_after_commit(replaced.map(|old| self::file_path(store, old.file)));
    if books_without_passages > 0 {
        info.warnings.push(format!(
            "the {books_without_passages} books loaded before the index's first dictionary \
             are not stored as passages: translation search finds a translated work inside \
             a volume among them only once they are loaded again (books loaded from now on are)"
        ));
    }
    Ok(info)
}

/// Removes the dictionary `name`: `None` when the index has none of that
/// name, else the warnings of its removal (its file not deleted after the
/// commit).
pub(crate) fn remove(store: &Arc<Store>, name: &str) -> Result<Option<Vec<String>>> {
    let _writer = store.lock_writer()?;
    let removed = store.catalog().remove_dictionary(name)?;
    Ok(removed.map(|old| unlisted::remove_after_commit([file_path(store, old.file)])))
}

fn listed(store: &Store) -> Result<Vec<(String, DictionaryEntry)>> {
    store.catalog().snapshot()?.dictionaries()
}

/// Every dictionary of the index, by name.
pub(crate) fn list(store: &Store) -> Result<Vec<DictionaryInfo>> {
    Ok(listed(store)?
        .iter()
        .map(|(name, entry)| DictionaryInfo::new(name, entry))
        .collect())
}

/// Reads and checks the dictionary listed as `name` with `entry`: its
/// file decodes (checksum included) and matches its catalog row.
pub(crate) fn read(store: &Store, name: &str, entry: &DictionaryEntry) -> Result<Dictionary> {
    let path = file_path(store, entry.file);
    let bytes = std::fs::read(&path).at(&path)?;
    let mismatch = |what: String| {
        Err(Error::corrupted(
            &path,
            format!("{what} (the catalog lists dictionary {name:?} in this file)"),
        ))
    };
    if bytes.len() as u64 != entry.bytes {
        return mismatch(format!(
            "{} bytes where the catalog lists {}",
            bytes.len(),
            entry.bytes
        ));
    }
    let dictionary = dictionary_file::decode(&bytes, &path)?;
    if dictionary_file::stored_checksum(&bytes) != Some(entry.checksum) {
        return mismatch("its checksum differs from the catalog's".to_string());
    }
    let found = (
        dictionary.name(),
        dictionary.from(),
        dictionary.to(),
        dictionary.headwords(),
        dictionary.pairs().len() as u64,
    );
    let listed = (
        name,
        entry.from.as_str(),
        entry.to.as_str(),
        entry.headwords,
        entry.pairs,
    );
    if found != listed {
        return mismatch(format!(
            "it holds {found:?} (name, languages, headwords, pairs), the catalog {listed:?}"
        ));
    }
    Ok(dictionary)
}

/// The lexicon from `from` to `to` of every dictionary of the index that
/// joins the two languages, in either direction. When none does and
/// `pivot` is set, the lexicon through English ([`PIVOT`],
/// [`Lexicon::compose`]) when dictionaries join each language to it;
/// `None` otherwise.
pub(crate) fn lexicon(store: &Store, from: &str, to: &str, pivot: bool) -> Result<Option<Lexicon>> {
    lexicon_with(store, from, to, pivot, word_hash)
}

/// [`lexicon`] with the words hashed by `hash` ([`Lexicon::build_with`]).
pub(crate) fn lexicon_with(
    store: &Store,
    from: &str,
    to: &str,
    pivot: bool,
    hash: fn(&str, u64) -> u32,
) -> Result<Option<Lexicon>> {
    let listed = listed(store)?;
    if let Some(direct) = direct_lexicon(store, &listed, from, to, hash)? {
        return Ok(Some(direct));
    }
    if !pivot || from == PIVOT || to == PIVOT {
        return Ok(None);
    }
    let first = direct_lexicon(store, &listed, from, PIVOT, hash)?;
    let second = direct_lexicon(store, &listed, PIVOT, to, hash)?;
    Ok(match (first, second) {
        (Some(first), Some(second)) => Lexicon::compose(&first, &second),
        _ => None,
    })
}

/// The language pivot translation goes through when no dictionary joins
/// two languages: English, the language FreeDict pairs most languages
/// with.
pub const PIVOT: &str = "eng";

/// The lexicon from `from` to `to` of the dictionaries of `listed` that
/// join the two languages, `None` when none does.
fn direct_lexicon(
    store: &Store,
    listed: &[(String, DictionaryEntry)],
    from: &str,
    to: &str,
    hash: fn(&str, u64) -> u32,
) -> Result<Option<Lexicon>> {
    let joining: Vec<&(String, DictionaryEntry)> = listed
        .iter()
        .filter(|(_, e)| (e.from == from && e.to == to) || (e.from == to && e.to == from))
        .collect();
    if joining.is_empty() {
        return Ok(None);
    }
    let dictionaries = joining
        .iter()
        .map(|(name, entry)| read(store, name, entry))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Dictionary> = dictionaries.iter().collect();
    Ok(Some(Lexicon::build_with(
        &refs,
        from,
        to,
        store.extract_options().hash_seed,
        hash,
    )))
}

/// Checks every listed dictionary of `snapshot` as [`read`] does; returns
/// how many and their bytes.
pub(crate) fn verify(store: &Store, snapshot: &CatalogSnapshot<'_>) -> Result<(u64, u64)> {
    let mut count = 0;
    let mut bytes = 0;
    for (name, entry) in snapshot.dictionaries()? {
        read(store, &name, &entry)?;
        count += 1;
        bytes += entry.bytes;
    }
    Ok((count, bytes))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::repr::unique_words::word_hash;
    use crate::Index;
    use std::io::Write;

    /// Writes `NAME.index` and `NAME.dict.dz` for `entries` (headword,
    /// text) in `dir`; returns the index path.
    pub(crate) fn write_dictd(dir: &Path, name: &str, entries: &[(&str, &str)]) -> PathBuf {
        let (index, dict) = stemmata_synth::dictd::files(entries);
        let path = dir.join(format!("{name}.index"));
        std::fs::write(&path, index).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(dict.as_bytes()).unwrap();
        std::fs::write(dir.join(format!("{name}.dict.dz")), gz.finish().unwrap()).unwrap();
        path
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(DICTIONARY_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn languages_no_dictionary_joins_are_joined_through_english() {
        let tmp = tempfile::tempdir().unwrap();
        let index = Index::create(tmp.path().join("ix")).unwrap();
        let eng_deu = write_dictd(
            tmp.path(),
            "freedict-eng-deu",
            &[("house", "house\nHaus\n")],
        );
        let eng_fra = write_dictd(
            tmp.path(),
            "freedict-eng-fra",
            &[("house", "house\nmaison\n")],
        );
        index.add_dictionary(&eng_deu).unwrap();
        index.add_dictionary(&eng_fra).unwrap();
        let h = |w: &str| word_hash(w, index.options().hash_seed);
        let through = lexicon(&index.store, "deu", "fra", true).unwrap().unwrap();
        assert_eq!(through.translations(h("haus")), [h("maison")]);
        let back = lexicon(&index.store, "fra", "deu", true).unwrap().unwrap();
        assert_eq!(back.translations(h("maison")), [h("haus")]);
        assert!(lexicon(&index.store, "deu", "fra", false)
            .unwrap()
            .is_none());
        // The index's own lexicon is the dictionaries' only.
        assert!(index.lexicon("deu", "fra").unwrap().is_none());
        assert!(lexicon(&index.store, "deu", "spa", true).unwrap().is_none());
    }

    #[test]
    fn add_list_lexicon_replace_remove_verify() {
        let tmp = tempfile::tempdir().unwrap();
        let index = Index::create(tmp.path().join("ix")).unwrap();
        let dir = index.dir().to_path_buf();
        let eng_deu = write_dictd(
            tmp.path(),
            "freedict-eng-deu",
            &[
                ("house", "house /haʊs/\nHaus <neut>\n"),
                ("go", "go\ngehen\n"),
            ],
        );
        let deu_eng = write_dictd(
            tmp.path(),
            "freedict-deu-eng",
            &[("Heim", "Heim <neut>\nhome, house\n")],
        );
        let info = index.add_dictionary(&eng_deu).unwrap();
        assert_eq!(
            (info.name.as_str(), info.from.as_str(), info.to.as_str()),
            ("freedict-eng-deu", "eng", "deu")
        );
        assert_eq!((info.headwords, info.pairs), (2, 2));
        // Given by its .dict.dz too.
        index
            .add_dictionary(&tmp.path().join("freedict-deu-eng.dict.dz"))
            .unwrap();
        assert!(deu_eng.exists());
        let names: Vec<String> = index
            .dictionaries()
            .unwrap()
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(names, ["freedict-deu-eng", "freedict-eng-deu"]);
        let seed = index.options().hash_seed;
        let h = |w: &str| word_hash(w, seed);
        let lexicon = index.lexicon("eng", "deu").unwrap().unwrap();
        let mut want = vec![h("haus"), h("heim")];
        want.sort();
        assert_eq!(lexicon.translations(h("house")), want);
        assert_eq!(lexicon.translations(h("home")), [h("heim")]);
        let back = index.lexicon("deu", "eng").unwrap().unwrap();
        assert_eq!(back.translations(h("haus")), [h("house")]);
        assert!(index.lexicon("eng", "fra").unwrap().is_none());
        // No dictionary joins German to French, nor either to English but
        // the one pair: no pivot either.
        assert!(super::lexicon(&index.store, "deu", "fra", true)
            .unwrap()
            .is_none());
        let verified = index.verify().unwrap();
        assert_eq!(verified.dictionaries, 2);
        assert_eq!(index.stats().unwrap().dictionaries, 2);
        // The same name again replaces it, and its old file goes.
        write_dictd(
            tmp.path(),
            "freedict-eng-deu",
            &[("go", "go\ngehen, laufen\n")],
        );
        let info = index.add_dictionary(&eng_deu).unwrap();
        assert_eq!((info.headwords, info.pairs), (1, 2));
        assert_eq!(files(&dir), ["000002.dic", "000003.dic"]);
        assert_eq!(index.dictionaries().unwrap().len(), 2);
        assert_eq!(
            index.remove_dictionary("freedict-deu-eng").unwrap(),
            Some(Vec::new())
        );
        assert_eq!(index.remove_dictionary("freedict-deu-eng").unwrap(), None);
        assert_eq!(files(&dir), ["000003.dic"]);
        assert!(index
            .lexicon("deu", "eng")
            .unwrap()
            .unwrap()
            .translations(h("haus"))
            .is_empty());
    }

    #[test]
    fn a_damaged_dictionary_file_is_named_by_verify_and_lexicon() {
        let tmp = tempfile::tempdir().unwrap();
        let index = Index::create(tmp.path().join("ix")).unwrap();
        let path = write_dictd(tmp.path(), "freedict-fra-eng", &[("chat", "chat\ncat\n")]);
        index.add_dictionary(&path).unwrap();
        let file = index.dir().join(DICTIONARY_DIR).join("000001.dic");
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[20] ^= 1;
        std::fs::write(&file, bytes).unwrap();
        for error in [
            index.verify().unwrap_err(),
            index.lexicon("fra", "eng").unwrap_err(),
        ] {
            assert!(
                matches!(&error, Error::ChecksumMismatch { path, .. } if path == &file),
                "{error}"
            );
        }
    }

    #[test]
    fn a_failed_import_leaves_the_index_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let index = Index::create(tmp.path().join("ix")).unwrap();
        let good = write_dictd(tmp.path(), "freedict-fra-eng", &[("chat", "chat\ncat\n")]);
        index.add_dictionary(&good).unwrap();
        let before = files(index.dir());
        // Missing dict, garbled index, not a dictionary at all.
        let missing = write_dictd(tmp.path(), "freedict-spa-eng", &[("casa", "casa\nhouse\n")]);
        std::fs::remove_file(tmp.path().join("freedict-spa-eng.dict.dz")).unwrap();
        let garbled = write_dictd(tmp.path(), "freedict-ita-eng", &[("casa", "casa\nhouse\n")]);
        std::fs::write(&garbled, "casa\tA*\tB\n").unwrap();
        let text = tmp.path().join("notes.txt");
        std::fs::write(&text, "hello").unwrap();
        for (path, named) in [
            (missing, "freedict-spa-eng.dict.dz"),
            (garbled.clone(), "freedict-ita-eng.index"),
            (text, "notes.txt"),
        ] {
            let error = index.add_dictionary(&path).unwrap_err().to_string();
            assert!(error.contains(named), "{error}");
        }
        assert_eq!(files(index.dir()), before);
        assert_eq!(index.dictionaries().unwrap().len(), 1);
        // An unlisted file left by a stopped import is removed by the next.
        let orphan = index.dir().join(DICTIONARY_DIR).join("000009.dic");
        std::fs::write(&orphan, b"x").unwrap();
        let again = write_dictd(tmp.path(), "freedict-eng-fra", &[("cat", "cat\nchat\n")]);
        index.add_dictionary(&again).unwrap();
        assert_eq!(files(index.dir()), ["000001.dic", "000002.dic"]);
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let index = Index::open_read_only(dir).unwrap();
        index.verify().unwrap();
        index
            .dictionaries()
            .unwrap()
            .into_iter()
            .map(|d| d.name)
            .collect()
    }

    /// An I/O error or a crash at every file operation of an import leaves
    /// the index verifying with the dictionaries it had or with the new
    /// one too (the new one once the import returned), and importing again
    /// reaches the clean result, one file per dictionary.
    #[test]
    fn a_fault_at_any_operation_of_an_import_leaves_the_old_or_the_new_state() {
        use crate::storage::fs::faults::{self, Fault, FaultPlan};
        let sources = tempfile::tempdir().unwrap();
        let old = write_dictd(
            sources.path(),
            "freedict-fra-eng",
            &[("chat", "chat\ncat\n")],
        );
        let new = write_dictd(sources.path(), "freedict-eng-deu", &[("go", "go\ngehen\n")]);
        let template = tempfile::tempdir().unwrap();
        let start = template.path().join("ix");
        Index::create(&start).unwrap().add_dictionary(&old).unwrap();
        let (before, after) = (
            vec!["freedict-fra-eng"],
            vec!["freedict-eng-deu", "freedict-fra-eng"],
        );
        let clean = tempfile::tempdir().unwrap();
        copy_dir(&start, &clean.path().join("ix"));
        let index = Index::open(clean.path().join("ix")).unwrap();
        let counter = faults::count(clean.path());
        index.add_dictionary(&new).unwrap();
        let operations = counter.operations();
        drop(counter);
        drop(index);
        assert!(operations >= 5, "{operations}");
        for at in 1..=operations {
            for kind in [Fault::Error, Fault::Crash] {
                let root = tempfile::tempdir().unwrap();
                let dir = root.path().join("ix");
                copy_dir(&start, &dir);
                let index = Index::open(&dir).unwrap();
                let armed = faults::arm(root.path(), FaultPlan { at, kind });
                let result = index.add_dictionary(&new);
                drop(index);
                drop(armed);
                let found = names(&dir);
                let case = format!("{kind:?} at {at} of {operations}: {result:?}");
                if result.is_ok() {
                    assert_eq!(found, after, "{case}");
                } else {
                    assert!(found == before || found == after, "{case}: {found:?}");
                }
                Index::open(&dir).unwrap().add_dictionary(&new).unwrap();
                assert_eq!(names(&dir), after, "{case}: resuming");
                assert_eq!(files(&dir).len(), 2, "{case}: {:?}", files(&dir));
            }
        }
    }

    #[test]
    fn a_replaced_file_not_removed_after_the_commit_is_a_warning_not_an_error() {
        use crate::storage::fs::faults::{self, Fault, FaultPlan};
        let sources = tempfile::tempdir().unwrap();
        let first = write_dictd(sources.path(), "freedict-eng-deu", &[("go", "go\ngehen\n")]);
        let template = tempfile::tempdir().unwrap();
        let start = template.path().join("ix");
        Index::create(&start)
            .unwrap()
            .add_dictionary(&first)
            .unwrap();
        let again = write_dictd(
            sources.path(),
            "freedict-eng-deu",
            &[("go", "go\nlaufen\n")],
        );
        // A clean replacement: its last file operation removes the
        // replaced file.
        let clean = tempfile::tempdir().unwrap();
        copy_dir(&start, &clean.path().join("ix"));
        let index = Index::open(clean.path().join("ix")).unwrap();
        let counter = faults::count(clean.path());
        assert!(index.add_dictionary(&again).unwrap().warnings.is_empty());
        let log = counter.log();
        drop(counter);
        let last = log.last().expect("operations");
        assert!(
            last.starts_with("remove ") && last.ends_with("000001.dic"),
            "{log:?}"
        );

        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("ix");
        copy_dir(&start, &dir);
        let index = Index::open(&dir).unwrap();
        let at = log.len() as u64;
        let armed = faults::arm(
            root.path(),
            FaultPlan {
                at,
                kind: Fault::Error,
            },
        );
        let added = index.add_dictionary(&again).unwrap();
        drop(armed);
        assert_eq!(added.warnings.len(), 1, "{:?}", added.warnings);
        assert!(
            added.warnings[0].contains("000001.dic") && added.warnings[0].contains("next writer"),
            "{:?}",
            added.warnings
        );
        let verified = index.verify().unwrap();
        assert_eq!(
            verified.unlisted_files,
            [PathBuf::from("dictionaries/000001.dic")]
        );
        // The next writer deletes the leftover.
        assert_eq!(
            index.remove_dictionary("freedict-eng-deu").unwrap(),
            Some(Vec::new())
        );
        assert!(index.verify().unwrap().unlisted_files.is_empty());
        assert!(files(&dir).is_empty(), "{:?}", files(&dir));
    }

    /// Times reading eng-deu and deu-eng from the index and building their
    /// lexicon. `cargo test --release --lib lexicon_build_time -- --ignored
    /// --nocapture` (needs the FreeDict packages).
    #[test]
    #[ignore]
    fn lexicon_build_time() {
        let tmp = tempfile::tempdir().unwrap();
        let index = Index::create(tmp.path().join("ix")).unwrap();
        for name in ["freedict-eng-deu", "freedict-deu-eng", "freedict-fra-eng"] {
            let started = std::time::Instant::now();
            let info = index
                .add_dictionary(Path::new(&format!("/usr/share/dictd/{name}.index")))
                .unwrap();
            println!("{name}: import {:?}, {info:?}", started.elapsed());
        }
        for (from, to) in [("eng", "deu"), ("fra", "eng")] {
            let started = std::time::Instant::now();
            let lexicon = index.lexicon(from, to).unwrap().unwrap();
            println!(
                "{from}->{to}: read and built in {:?}: {} words, {} pairs",
                started.elapsed(),
                lexicon.len(),
                lexicon.pairs()
            );
        }
        let store = &index.store;
        let listed = listed(store).unwrap();
        let dictionaries: Vec<Dictionary> = listed
            .iter()
            .filter(|(n, _)| n.contains("deu"))
            .map(|(n, e)| read(store, n, e).unwrap())
            .collect();
        let refs: Vec<&Dictionary> = dictionaries.iter().collect();
        let started = std::time::Instant::now();
        let lexicon = Lexicon::build(&refs, "eng", "deu", 1);
        println!(
            "eng->deu: Lexicon::build alone {:?} ({} words)",
            started.elapsed(),
            lexicon.len()
        );
    }
}
