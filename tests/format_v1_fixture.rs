//! An index written by format version 1 still opens, verifies and answers
//! queries, with the sequences its texts give today.

use std::path::Path;

use stemmata::repr::{unique_words::extract, ExtractOptions};
use stemmata::storage::format::{FORMAT_VERSION, MAGIC, OLDEST_SUPPORTED_FORMAT_VERSION};
use stemmata::{Index, QueryOptions};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v1");

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_version_1_index_opens_verifies_and_answers_queries() {
    const { assert!(OLDEST_SUPPORTED_FORMAT_VERSION <= 1 && 1 <= FORMAT_VERSION) };
    let barrel = std::fs::read(Path::new(FIXTURE).join("index/barrels/000001.brl")).unwrap();
    assert_eq!((&barrel[..8], &barrel[8..10]), (&MAGIC[..], &[1u8, 0][..]));

    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(FIXTURE).join("index"), dir.path());
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.options(), &ExtractOptions::default());
    assert_eq!(index.verify().unwrap().books, 3);

    let reader = index.reader().unwrap();
    let mut keys: Vec<&str> = reader.books().iter().map(|b| b.key.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["alpha", "beta", "gamma"]);
    for key in keys {
        let text =
            std::fs::read_to_string(Path::new(FIXTURE).join(format!("texts/{key}.txt"))).unwrap();
        let expected = extract(&text, &ExtractOptions::default()).sequence;
        assert_eq!(reader.sequence(key).unwrap(), &expected, "{key}");
    }
    assert_eq!(reader.book("gamma").unwrap().pages, 2);

    let hits = reader
        .query_key("alpha", &QueryOptions::default())
        .unwrap()
        .hits;
    assert_eq!(
        hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(),
        ["beta"]
    );
}
