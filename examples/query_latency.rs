//! Times top-10 queries by key on an existing index, in one process: opens a
//! reader once, then runs `COUNT` queries (default 200) for the keys at
//! positions `i · 7919 mod n` of the sorted keys, as `stemmata bench-scale`
//! picks them, and prints the reader's open time and the median and p95
//! latency as one JSON line.
//!
//! ```text
//! cargo run --release --example query_latency -- INDEX exact|approximate [COUNT]
//! ```

use std::time::Instant;

use stemmata::{Index, Mode, QueryOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(mode)) = (args.first(), args.get(1)) else {
        return Err("usage: query_latency INDEX exact|approximate [COUNT]".into());
    };
    let mode = match mode.as_str() {
        "exact" => Mode::Exact,
        "approximate" => Mode::Approximate,
        other => return Err(format!("{other}: the mode is exact or approximate").into()),
    };
    let count: usize = match args.get(2) {
        Some(n) => n.parse().map_err(|e| format!("{n}: {e}"))?,
        None => 200,
    };
    let started = Instant::now();
    let reader = Index::open_read_only(dir)?.reader()?;
    let open_s = started.elapsed().as_secs_f64();
    let mut keys: Vec<String> = reader.books().iter().map(|b| b.key.clone()).collect();
    keys.sort();
    if keys.is_empty() || count == 0 {
        return Err(format!("{dir}: no books to query, or COUNT is 0").into());
    }
    let options = QueryOptions::default().mode(mode).top_k(10);
    let mut millis = Vec::with_capacity(count);
    for i in 0..count {
        let key = &keys[(i * 7919) % keys.len()];
        let started = Instant::now();
        reader.query_key(key, &options)?;
        millis.push(started.elapsed().as_secs_f64() * 1e3);
    }
    millis.sort_by(f64::total_cmp);
    println!(
        "{{\"index\":{dir:?},\"mode\":{:?},\"open_s\":{open_s:.3},\"count\":{count},\"median_ms\":{:.3},\"p95_ms\":{:.3},\"max_ms\":{:.3}}}",
        args[1],
        millis[count / 2],
        millis[count * 95 / 100],
        millis[count - 1]
    );
    Ok(())
}
