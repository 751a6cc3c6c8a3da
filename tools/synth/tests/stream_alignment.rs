//! Streamed collections build an index whose alignments agree with their
//! ground truth: related books overlap, unrelated books do not.

use stemmata::{Document, Index, Score};
use stemmata_synth::{stream, GroundTruth, StreamOptions, SynthBook, SynthRelation};

fn small(books: usize, words: usize, seed: u64) -> StreamOptions {
    StreamOptions {
        vocab_size: 5_000,
        anthology_share: 0.5,
        ..StreamOptions::new(books, words, seed)
    }
}

fn truth_of<'a>(books: impl IntoIterator<Item = &'a SynthBook>) -> GroundTruth {
    let mut truth = GroundTruth::new();
    books.into_iter().for_each(|book| truth.record(book));
    truth
}

#[test]
fn related_pairs_align_and_unrelated_pairs_do_not() {
    let books: Vec<SynthBook> = stream(&small(70, 1_500, 11)).collect();
    let truth = truth_of(&books);
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let documents = books.iter().map(|b| Ok(Document::new(&*b.key, &*b.text)));
    index.load(documents).unwrap();
    let reader = index.reader().unwrap();
    let mut related = 0;
    for (i, a) in books.iter().enumerate() {
        for b in &books[i + 1..] {
            let overlap = reader.align_books(&a.key, &b.key).unwrap();
            let score = Score::Coverage.value(&overlap);
            if truth.relation(&a.key, &b.key).is_some() {
                assert!(score > 0.15, "{} {}: {score}", a.key, b.key);
                related += 1;
            } else {
                assert!(score < 0.05, "{} {}: {score}", a.key, b.key);
            }
        }
    }
    let expected = truth.pairs(SynthRelation::Edition) + truth.pairs(SynthRelation::Contains);
    assert_eq!(related, expected);
    assert!(truth.pairs(SynthRelation::Contains) >= 5);
}
