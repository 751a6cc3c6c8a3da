//! Book representations, text in → feature out, on a 20K-word synthetic
//! book: the min-hash book signature by one-permutation hashing against the
//! classic K-hash min-hash (K = 100, the same shingles), page signatures,
//! the 128-bit simhash, and the tokeniser alone as the floor all of them
//! pay.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stemmata::repr::minhash::{
    book_signature, classic_signature, page_signatures, shingle_hashes, MinHashOptions,
};
use stemmata::repr::simhash::{simhash, SimHashOptions};
use stemmata::text::{tokenise, Token};
use stemmata_synth::work_text;

fn book(words: usize) -> String {
    work_text(words, 3)
}

fn repr(c: &mut Criterion) {
    let text = book(20_000);
    let mut words = 0usize;
    tokenise(&text, |t| words += usize::from(matches!(t, Token::Word(_))));
    let label = format!("{words}w/{}KB", text.len() / 1000);
    let options = MinHashOptions::default();
    let mut group = c.benchmark_group("repr");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_with_input(BenchmarkId::new("tokenise_only", &label), &text, |b, t| {
        b.iter(|| {
            let mut n = 0usize;
            tokenise(t, |_| n += 1);
            n
        })
    });
    group.bench_with_input(
        BenchmarkId::new("minhash_oph_k100", &label),
        &text,
        |b, t| b.iter(|| book_signature(t, &options)),
    );
    group.bench_with_input(
        BenchmarkId::new("minhash_classic_k100", &label),
        &text,
        |b, t| {
            b.iter(|| {
                classic_signature(
                    &shingle_hashes(t, &options),
                    options.num_hashes,
                    options.seed,
                )
            })
        },
    );
    group.bench_with_input(BenchmarkId::new("pages_oph_k34", &label), &text, |b, t| {
        b.iter(|| page_signatures(t, &MinHashOptions::pages()))
    });
    group.bench_with_input(BenchmarkId::new("simhash128", &label), &text, |b, t| {
        b.iter(|| simhash(t, &SimHashOptions::default()))
    });
    group.finish();
}

criterion_group!(benches, repr);
criterion_main!(benches);
