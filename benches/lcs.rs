//! LCS of unique-word sequences: LIS over common elements against the naive
//! dynamic-programming LCS, on synthetic book-like sequences.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use stemmata::align::{lcs_len_dp, SequenceIndex};
use stemmata::repr::{unique_words::extract, ExtractOptions};
use stemmata_synth::{ocr_noise, work_text};

fn sequences(words: usize) -> (Vec<u32>, Vec<u32>) {
    let text = work_text(words, 3);
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(9);
    let noisy = ocr_noise(&text, 0.03, &mut rng);
    let extract_options = ExtractOptions::default();
    (
        extract(&text, &extract_options).sequence.hashes,
        extract(&noisy, &extract_options).sequence.hashes,
    )
}

fn lcs(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcs");
    group.sample_size(10);
    for words in [5_000, 20_000] {
        let (x, y) = sequences(words);
        let label = format!("{words}w/{}u", x.len());
        group.bench_with_input(BenchmarkId::new("lis", &label), &(), |b, _| {
            let mut scratch = stemmata::align::AlignScratch::default();
            b.iter(|| SequenceIndex::new(&x).align(&y, &mut scratch))
        });
        group.bench_with_input(BenchmarkId::new("dp_baseline", &label), &(), |b, _| {
            b.iter(|| lcs_len_dp(&x, &y))
        });
    }
    group.finish();
}

criterion_group!(benches, lcs);
criterion_main!(benches);
