//! Barrel record codec: encode (zstd + checksum) and decode of a part's
//! word positions, against the raw uncompressed copy of the same positions.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;
use stemmata::storage::barrel::{decode_record, EncodedSequence};

fn codecs(c: &mut Criterion) {
    let n = 5_000u32;
    let positions: Vec<u32> = (0..n).map(|i| i * 17 + 3).collect();
    let mut record = Vec::new();
    EncodedSequence::encode(&positions)
        .unwrap()
        .encode_into(1, &mut record);
    let mut group = c.benchmark_group("codecs");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("record_encode", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            EncodedSequence::encode(&positions)
                .unwrap()
                .encode_into(1, &mut out);
            out
        })
    });
    group.bench_function("record_decode", |b| {
        b.iter(|| decode_record(&record, 16, Path::new("bench")).unwrap())
    });
    group.bench_function("raw_copy_baseline", |b| b.iter(|| positions.clone()));
    group.finish();
}

criterion_group!(benches, codecs);
criterion_main!(benches);
