//! RETAS on two related 100K-word texts (a generated book against an edition
//! of it with 3% OCR noise and a new preface; and a real pair of etexts of
//! the same book when `../shared/corpus` is present), against the plain
//! dynamic-programming alignment (no anchors: one word-level table over the
//! whole text, then the characters) of 5K-word excerpts. The plain
//! alignment is quadratic, so it is extrapolated to 100K words (×400) and
//! printed with the RETAS figure of the same run.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::SeedableRng;
use std::path::Path;
use std::time::{Duration, Instant};
use stemmata::align::{align_texts, RetasOptions};
use stemmata::text::decode;
use stemmata_synth::{ocr_noise, work_text};

const BOOK_WORDS: usize = 100_000;
const EXCERPT_WORDS: usize = 5_000;

/// A generated book and an edition of it: a 2,000-word preface, 3% noise.
fn generated_pair() -> (String, String) {
    let book = work_text(BOOK_WORDS, 5);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(17);
    let edition = format!(
        "{}\n\n{}",
        work_text(2_000, 6),
        ocr_noise(&book, 0.03, &mut rng)
    );
    (book, edition)
}

/// Two etexts of The Return of Sherlock Holmes (113K words each), if present.
fn corpus_pair() -> Option<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/texts");
    let read = |id: &str| {
        let bytes = std::fs::read(dir.join(format!("{id}.txt"))).ok()?;
        Some(decode(&bytes).text.into_owned())
    };
    Some((read("pg108")?, read("pg221")?))
}

/// Words `skip..skip + words` of `text` (whitespace-separated).
fn excerpt(text: &str, skip: usize, words: usize) -> String {
    text.split_whitespace()
        .skip(skip)
        .take(words)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Plain dynamic programming: no anchors, no cell cap.
fn plain_dp() -> RetasOptions {
    RetasOptions {
        leaf_words: u32::MAX,
        max_dp_cells: u64::MAX,
        ..RetasOptions::default()
    }
}

fn median_time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn retas(c: &mut Criterion) {
    let (book, edition) = generated_pair();
    // The edition's excerpt starts after its preface.
    let (small_book, small_edition) = (
        excerpt(&book, 0, EXCERPT_WORDS),
        excerpt(&edition, 2_000, EXCERPT_WORDS),
    );
    let default = RetasOptions::default();
    let mut group = c.benchmark_group("retas");
    group.sample_size(10);
    group.bench_function("retas_100k_generated_3pct_noise", |b| {
        b.iter(|| align_texts(&book, &edition, &default).unwrap())
    });
    if let Some((a, b)) = corpus_pair() {
        group.bench_function("retas_113k_corpus_pg108_pg221", |bench| {
            bench.iter(|| align_texts(&a, &b, &default).unwrap())
        });
    }
    group.bench_function("retas_5k_excerpt", |b| {
        b.iter(|| align_texts(&small_book, &small_edition, &default).unwrap())
    });
    group.bench_function("dp_baseline_5k_excerpt", |b| {
        b.iter(|| align_texts(&small_book, &small_edition, &plain_dp()).unwrap())
    });
    group.finish();

    let retas_100k = median_time(5, || {
        align_texts(&book, &edition, &default).unwrap();
    });
    let dp_5k = median_time(3, || {
        align_texts(&small_book, &small_edition, &plain_dp()).unwrap();
    });
    let shares = align_texts(&book, &edition, &default).unwrap();
    println!(
        "RETAS 100K words: {:.1} ms (aligned {:.1}% / {:.1}%); plain DP 5K words: {:.1} ms, \
         extrapolated to 100K words (x400): {:.1} s = {:.0}x RETAS",
        retas_100k.as_secs_f64() * 1e3,
        100.0 * shares.share_a,
        100.0 * shares.share_b,
        dp_5k.as_secs_f64() * 1e3,
        dp_5k.as_secs_f64() * 400.0,
        dp_5k.as_secs_f64() * 400.0 / retas_100k.as_secs_f64()
    );
}

criterion_group!(benches, retas);
criterion_main!(benches);
