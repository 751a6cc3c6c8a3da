//! How much each score's bound prunes in an all-pairs run: candidates,
//! pairs within the bound, LCS runs and pairs found, exact and approximate.
//!
//! ```text
//! cargo run --release --example score_pruning -- DIR | synth:BOOKS:WORDS:MAX_NOISE ...
//! ```
//!
//! A `synth:` argument streams a generated collection (noise rates of
//! editions up to MAX_NOISE percent) and also reports precision and
//! recall against its ground truth.

use stemmata::{Document, Index, Mode, PairsOptions, Score};
use stemmata_synth::{stream, GroundTruth, StreamOptions, SynthRelation};

fn main() -> stemmata::Result<()> {
    for arg in std::env::args().skip(1) {
        let scratch = tempfile::tempdir()?;
        let index = Index::create(scratch.path().join("index"))?;
        let mut truth = None;
        if let Some(spec) = arg.strip_prefix("synth:") {
            let f: Vec<usize> = spec.split(':').map(|v| v.parse().unwrap()).collect();
            let mut options = StreamOptions::new(f[0], f[1], 5);
            options.ocr_noise = (0.0, f[2] as f64 / 100.0);
            let mut gt = GroundTruth::new();
            let books: Vec<_> = stream(&options)
                .map(|b| {
                    gt.record(&b);
                    Ok(Document::new(b.key, b.text))
                })
                .collect();
            index.load(books)?;
            truth = Some(gt);
        } else {
            index.load_dir(&arg)?;
        }
        let reader = index.reader()?;
        println!("{arg} ({} books)", reader.len());
        let runs = [
            (Score::Coverage, 0.05),
            (Score::Coverage, 0.03),
            (Score::Order, 0.08),
        ];
        for (score, threshold) in runs {
            for mode in [Mode::Exact, Mode::Approximate] {
                let options = PairsOptions::with_score(score)
                    .min_score(threshold)
                    .mode(mode);
                let all = reader.pairs(&options)?;
                let s = &all.stats;
                let quality = truth.as_ref().map_or(String::new(), |gt| {
                    let right = all
                        .pairs
                        .iter()
                        .filter(|p| gt.relation(&p.a.key, &p.b.key).is_some())
                        .count();
                    format!(
                        "P {:.3} R {:.3}",
                        right as f64 / all.pairs.len().max(1) as f64,
                        right as f64
                            / (gt.pairs(SynthRelation::Edition) + gt.pairs(SynthRelation::Contains))
                                .max(1) as f64
                    )
                });
                println!(
                    "  {score:<9} {threshold:.2} {:<11} candidates {:>9} within bound {:>9} lcs runs {:>9} found {:>6} {:>8.2?} {quality}",
                    mode.name(),
                    s.candidates,
                    s.within_bound,
                    s.lcs_runs,
                    s.found,
                    s.elapsed
                );
            }
        }
    }
    Ok(())
}
