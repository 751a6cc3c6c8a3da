//! Files of the index directory that the catalog does not list: a barrel,
//! page file, segment, dictionary file or word-image file written by a
//! writer that stopped before its catalog transaction, or unlisted by a
//! transaction (a compaction, a replacement, a removal) whose writer stopped
//! before removing it. Readers never read such a file. Every writer
//! removes them when it takes the writer role ([`Store::lock_writer`]),
//! and `verify` names them.
//!
//! A file is *unlisted* when its name is a number followed by the suffix
//! of its directory's kind (`barrels/000003.brl`, `images/000007.wis`) and
//! the catalog lists no file of that kind under that number. Other names,
//! and directories, are not the index's and are left alone.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::error::{IoContext, Result};
use crate::storage::fs;
use crate::store::layout::{BARREL_DIR, DICTIONARY_DIR, IMAGE_DIR, PAGE_DIR, SEGMENT_DIR};
use crate::store::Store;

/// The numbers the catalog lists, per directory and suffix.
struct Listed {
    kinds: Vec<(&'static str, &'static str, HashSet<u32>)>,
}

impl Listed {
    fn of(store: &Store) -> Result<Listed> {
        let snapshot = store.catalog().snapshot()?;
        let numbers = |lengths: Vec<(u32, u64)>| lengths.into_iter().map(|(n, _)| n).collect();
        let dictionaries = snapshot.dictionaries()?.into_iter().map(|(_, e)| e.file);
        let image_books = snapshot.word_images()?.into_iter().map(|(_, e)| e.file);
        let image_files = snapshot.image_files()?;
        let kinds = vec![
            (BARREL_DIR, ".brl", numbers(snapshot.barrels()?)),
            (PAGE_DIR, ".pgs", numbers(snapshot.page_files()?)),
            (SEGMENT_DIR, ".seg", numbers(snapshot.segments()?)),
            (DICTIONARY_DIR, ".dic", dictionaries.collect()),
            (IMAGE_DIR, ".wib", image_books.collect()),
            (
                IMAGE_DIR,
                ".wiv",
                image_files.iter().map(|f| f.vocabulary.file).collect(),
            ),
            (
                IMAGE_DIR,
                ".wis",
                image_files.iter().map(|f| f.search.file).collect(),
            ),
        ];
        Ok(Listed { kinds })
    }

    /// Whether the file `name` of directory `dir` is one the index would
    /// write and the catalog does not list.
    fn unlisted(&self, dir: &str, name: &str) -> bool {
        self.kinds
            .iter()
            .filter(|(kind_dir, _, _)| *kind_dir == dir)
            .any(|(_, suffix, listed)| {
                number_of(name, suffix).is_some_and(|n| !listed.contains(&n))
            })
    }
}

/// The number of `name` when it is digits followed by `suffix`.
fn number_of(name: &str, suffix: &str) -> Option<u32> {
    let digits = name.strip_suffix(suffix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Every unlisted file of the index, by directory then name; reads only.
pub(crate) fn find(store: &Store) -> Result<Vec<PathBuf>> {
    let listed = Listed::of(store)?;
    let mut found = Vec::new();
    for sub in [BARREL_DIR, PAGE_DIR, SEGMENT_DIR, DICTIONARY_DIR, IMAGE_DIR] {
        let dir = store.dir().join(sub);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).at(&dir),
        };
        for entry in entries {
            let entry = entry.at(&dir)?;
            if entry.file_type().at(&entry.path())?.is_dir() {
                continue;
            }
            let name = entry.file_name();
            if name.to_str().is_some_and(|n| listed.unlisted(sub, n)) {
                found.push(entry.path());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Removes every unlisted file; returns how many. Call it holding the
/// writer role.
pub(crate) fn remove(store: &Store) -> Result<u64> {
    let found = find(store)?;
    for path in &found {
        fs::remove_stale(path)?;
    }
    Ok(found.len() as u64)
}

/// Removes the files an operation unlisted in its commit (a replaced
/// dictionary or search file, merged segments); returns a warning for each
/// that could not be removed: what the operation committed stands, and the
/// file, unlisted, is the next writer's to remove.
pub(crate) fn remove_after_commit(paths: impl IntoIterator<Item = PathBuf>) -> Vec<String> {
    paths
        .into_iter()
        .filter_map(|path| {
            fs::remove_file(&path).err().map(|error| {
                format!(
                    "{error}: not removed; the operation is committed, and the next writer \
                     removes this unlisted file"
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_digits_then_the_suffix_are_numbers() {
        assert_eq!(number_of("000012.dic", ".dic"), Some(12));
        assert_eq!(number_of("7.seg", ".seg"), Some(7));
        for name in [
            ".dic",
            "12.dic.tmp",
            "x12.dic",
            "12.seg",
            "+1.dic",
            "99999999999.dic",
        ] {
            assert_eq!(number_of(name, ".dic"), None, "{name}");
        }
    }
}
