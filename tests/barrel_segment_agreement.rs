//! A book's barrel records hold its parts' word positions and its segment
//! holds their elements (format 11): a reader pairs them, and a barrel
//! whose records split the book's elements otherwise than its segment (one
//! position moved from the first part's record to the second's, checksums
//! made right, the records' total length unchanged) is refused by the
//! reader and by `verify`, never paired wrongly.

mod common;

use stemmata::storage::barrel::{BarrelReader, EncodedSequence};
use stemmata::{Document, Index};

#[test]
fn records_that_split_a_book_otherwise_than_its_segment_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::builder()
        .parts(64, 32)
        .create(dir.path().join("index"))
        .unwrap();
    // Distinct words, so that every word is unique in every part.
    let text: Vec<String> = (0..100).map(common::word).collect();
    common::load_docs(&index, vec![Document::new("volume", text.join(" "))], 10);
    let reader = index.reader().unwrap();
    let parts = reader.parts("volume").unwrap();
    assert!(parts.len() >= 2, "{} parts", parts.len());
    drop(reader);

    // The book's records, one a part, back to back after the header.
    let path = common::barrel(&dir.path().join("index"), 1);
    let bytes = std::fs::read(&path).unwrap();
    let barrel = BarrelReader::open(&path, bytes.len() as u64).unwrap();
    let records: Vec<_> = barrel.records().map(|r| r.unwrap().1).collect();
    assert_eq!(records.len(), parts.len());
    let mut positions: Vec<Vec<u32>> = records.iter().map(|r| r.positions.clone()).collect();
    let moved = positions[0].pop().unwrap();
    let last = *positions[1].last().unwrap();
    positions[1].push(last.max(moved) + 1);
    let mut damaged = bytes[..16].to_vec();
    for part in &positions {
        EncodedSequence::encode(part)
            .unwrap()
            .encode_into(0, &mut damaged);
    }
    assert_eq!(
        damaged.len(),
        bytes.len(),
        "the records' total length is unchanged"
    );
    std::fs::write(&path, &damaged).unwrap();

    let reader = index.reader().unwrap();
    let error = reader.parts("volume").unwrap_err().to_string();
    assert!(error.contains("segment holds"), "{error}");
    let error = index.verify().unwrap_err().to_string();
    assert!(
        error.contains("disagree with its barrel records"),
        "{error}"
    );
}
