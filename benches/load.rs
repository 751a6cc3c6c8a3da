//! Ingest: feature extraction per core, and a full bulk load.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stemmata::repr::{unique_words::extract, ExtractOptions};
use stemmata::{Document, Index, LoadOptions};
use stemmata_synth::{generate, SynthOptions};

fn load(c: &mut Criterion) {
    let collection = generate(&SynthOptions::with_families(40, 11));
    let bytes: usize = collection.books.iter().map(|b| b.text.len()).sum();
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    let options = ExtractOptions::default();
    group.bench_function("extract_one_core", |b| {
        b.iter(|| {
            collection
                .books
                .iter()
                .map(|book| extract(&book.text, &options).sequence.len())
                .sum::<usize>()
        })
    });
    group.bench_function("bulk_load", |b| {
        b.iter(|| {
            let dir = tempfile::tempdir().unwrap();
            let index = Index::create(dir.path()).unwrap();
            let mut loader = index.bulk_loader(LoadOptions::default()).unwrap();
            for book in &collection.books {
                loader
                    .add(Document::new(book.key.clone(), book.text.clone()))
                    .unwrap();
            }
            loader.finish().unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
