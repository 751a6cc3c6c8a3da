//! An incremental all-pairs run joins the books of a new load with the rest:
//! with the pairs found before (among books still there) it gives exactly
//! the pairs of a full run.

mod common;

use std::collections::BTreeMap;

use stemmata::{Document, Index, PairsOptions, Reader};

/// Pairs as (lower id, higher id) → score bits.
fn pairs_by_id(reader: &Reader, options: &PairsOptions) -> BTreeMap<(u32, u32), u64> {
    common::collect_pairs(reader, options, |a, b| (a.id.min(b.id), a.id.max(b.id)))
        .into_iter()
        .map(|(key, score)| (key, score.to_bits()))
        .collect()
}

#[test]
fn incremental_pairs_with_the_earlier_ones_equal_a_full_run() {
    for seed in [3, 11] {
        let docs = common::documents(&common::small_collection(14, seed, 400, 1200));
        let split = docs.len() * 3 / 5;
        let dir = tempfile::tempdir().unwrap();
        let index = Index::create(dir.path()).unwrap();
        common::load_docs(&index, docs[..split].to_vec(), 7);
        let before = pairs_by_id(&index.reader().unwrap(), &PairsOptions::default());
        assert!(!before.is_empty());

        // The second load brings new books and replaces one old book.
        let mut second: Vec<Document> = docs[split..].to_vec();
        let replaced = docs[0].clone();
        second.push(Document::new(
            replaced.key.clone(),
            [
                b"A new preface for this printing. ".as_slice(),
                &replaced.text,
            ]
            .concat(),
        ));
        let stats = common::load_docs(&index, second, 7);
        assert_eq!(stats.replaced, 1);
        let first_id = stats.first_id.unwrap();
        assert_eq!(first_id as usize, split);

        let reader = index.reader().unwrap();
        let live: Vec<u32> = reader.books().iter().map(|b| b.id).collect();
        let full = pairs_by_id(&reader, &PairsOptions::default());
        let incremental = pairs_by_id(&reader, &PairsOptions::default().from_id(first_id));
        assert!(!incremental.is_empty());
        assert!(incremental.keys().all(|&(_, b)| b >= first_id));
        let mut combined: BTreeMap<(u32, u32), u64> = before
            .into_iter()
            .filter(|&((a, b), _)| live.contains(&a) && live.contains(&b))
            .collect();
        combined.extend(incremental);
        assert_eq!(combined, full, "seed {seed}");
    }
}
