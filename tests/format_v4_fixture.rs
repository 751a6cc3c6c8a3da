//! An index written by format version 4 (page signatures in page files,
//! the catalog in redb's file format 2) is refused until `Index::upgrade`
//! converts its catalog, and the refusal writes nothing. Upgraded, it is
//! the current format and answers exactly as the format-3 fixture, made
//! from the same texts, answers once upgraded.

mod common;

use stemmata::repr::MinHashSig;
use stemmata::storage::format::{FORMAT_VERSION, MAGIC};
use stemmata::{Index, QueryOptions};

/// What a reader answers: page signatures, relations and a query.
#[derive(Debug, PartialEq)]
struct Answers {
    pages: Vec<Vec<MinHashSig>>,
    /// Debug forms, so that a NaN signal compares equal to itself.
    relations: Vec<String>,
    hits: Vec<String>,
}

fn answers(index: &Index) -> Answers {
    let reader = index.reader().unwrap();
    let keys = ["alpha", "beta", "gamma", "delta"];
    let pages = keys.iter().map(|k| reader.pages(k).unwrap()).collect();
    let pairs = [
        ("gamma", "gamma"),
        ("delta", "gamma"),
        ("gamma", "delta"),
        ("alpha", "beta"),
    ];
    let relations = pairs
        .iter()
        .map(|(a, b)| format!("{:?}", reader.relation(a, b).unwrap()))
        .collect();
    let hits = reader
        .query_key("alpha", &QueryOptions::default())
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.key)
        .collect();
    Answers {
        pages,
        relations,
        hits,
    }
}

#[test]
fn a_version_4_index_is_refused_until_upgraded_and_the_refusal_writes_nothing() {
    let dir = common::fixture_copy("v4");
    let page_file = std::fs::read(dir.path().join("pages/000001.pgs")).unwrap();
    assert_eq!(
        (&page_file[..8], &page_file[8..10]),
        (&MAGIC[..], &[4u8, 0][..])
    );
    common::assert_upgrade_required_and_untouched(dir.path());
}

#[test]
fn an_upgraded_version_4_index_answers_as_the_upgraded_version_3_index() {
    let dir = common::fixture_copy("v4");
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(
        (
            stats.from_version,
            stats.to_version,
            stats.catalog_converted,
            stats.paged_books
        ),
        (4, FORMAT_VERSION, true, 0)
    );
    let verified = index.verify().unwrap();
    assert_eq!(
        (verified.books, verified.paged_books, verified.page_files),
        (4, 2, 1)
    );
    let v3 = common::upgraded_fixture("v3");
    let expected = answers(&Index::open_read_only(v3.path()).unwrap());
    assert_eq!(answers(&index), expected);
    assert_eq!(expected.hits, ["beta"]);
}
