//! Top-10 queries over a generated collection: the planner against a
//! brute-force scan, and all pairs with pruning.

use criterion::{criterion_group, criterion_main, Criterion};
use stemmata::{Document, Index, PairsOptions, QueryOptions};
use stemmata_synth::{generate, SynthOptions};

fn query(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let collection = generate(&SynthOptions::with_families(400, 5));
    index
        .load(
            collection
                .books
                .iter()
                .map(|b| Ok(Document::new(b.key.clone(), b.text.clone()))),
        )
        .unwrap();
    let reader = index.reader().unwrap();
    let keys: Vec<String> = reader.books().iter().map(|b| b.key.clone()).collect();
    let options = QueryOptions::default();
    let mut group = c.benchmark_group("query");
    group.sample_size(20);
    let mut next = 0;
    group.bench_function("planner_top10", |b| {
        b.iter(|| {
            next = (next + 1) % keys.len();
            reader.query_key(&keys[next], &options).unwrap()
        })
    });
    group.bench_function("brute_force_top10", |b| {
        b.iter(|| {
            next = (next + 1) % keys.len();
            reader.brute_force_key(&keys[next], &options).unwrap()
        })
    });
    group.bench_function("all_pairs_pruned", |b| {
        b.iter(|| {
            reader
                .for_each_pair(&PairsOptions::default(), |_| Ok(()), |_| {})
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, query);
criterion_main!(benches);
