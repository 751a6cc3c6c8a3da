//! OCR accuracy through RETAS against the true accuracy of synthetic noise.
//!
//! The noise model (thesis 3.2): the clean text in normalised form (lower-case
//! words joined by single spaces) gets, at each character independently with
//! probability `rate`, one edit chosen uniformly among substitution (by another
//! letter or a space), insertion (of a letter or a space, before it) and
//! deletion. The noisy text is normalised again (a space next to a space
//! collapses). The true character accuracy is
//! `1 − levenshtein(clean, noisy) / chars(clean)` over the normalised texts:
//! the least number of edit operations, each costing 1, as the estimate
//! counts them. The estimate must be within 1 percentage point of it.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::path::Path;

use stemmata::align::{ocr_accuracy, RetasOptions};
use stemmata::text::{decode, normalise};

const RATES: [f64; 5] = [0.01, 0.02, 0.05, 0.10, 0.20];
const EXCERPT_WORDS: usize = 2_500;
const MAX_ERROR: f64 = 0.01;

/// `text` in normalised form with pages joined by spaces.
fn normalised(text: &str) -> String {
    normalise(text)
        .split([' ', '\x0c'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn random_char(rng: &mut SmallRng) -> char {
    match rng.random_range(0..27u8) {
        26 => ' ',
        letter => char::from(b'a' + letter),
    }
}

/// Applies the noise model to `clean` (normalised); returns the noisy text
/// and the number of edits applied.
fn noisy(clean: &str, rate: f64, rng: &mut SmallRng) -> (String, usize) {
    let mut out = String::with_capacity(clean.len() + clean.len() / 8);
    let mut applied = 0;
    for c in clean.chars() {
        if !rng.random_bool(rate) {
            out.push(c);
            continue;
        }
        applied += 1;
        match rng.random_range(0..3) {
            0 => out.push(loop {
                let other = random_char(rng);
                if other != c {
                    break other;
                }
            }),
            1 => {
                out.push(random_char(rng));
                out.push(c);
            }
            _ => {}
        }
    }
    (normalised(&out), applied)
}

/// Unit-cost edit distance over characters (two rows).
fn levenshtein(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// An excerpt of a real text when the corpus is present, else a generated one.
fn excerpts() -> Vec<(String, String)> {
    let generated = stemmata_synth::work_text(EXCERPT_WORDS, 21);
    let mut out = vec![("generated".to_string(), normalised(&generated))];
    let alice = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/texts/pg11.txt");
    match std::fs::read(&alice) {
        Ok(bytes) => {
            let text = normalised(&decode(&bytes).text);
            let words: Vec<&str> = text.split(' ').skip(1_000).take(EXCERPT_WORDS).collect();
            out.push(("pg11 excerpt".to_string(), words.join(" ")));
        }
        Err(_) => eprintln!("no corpus text at {}: generated text only", alice.display()),
    }
    out
}

#[test]
fn estimated_character_accuracy_is_within_one_point_of_the_truth() {
    let mut failures = Vec::new();
    println!("text          rate   applied  true acc  estimate   error  word acc  stop-word acc");
    for (name, clean) in excerpts() {
        let clean_chars = clean.chars().count() as f64;
        for (k, rate) in RATES.into_iter().enumerate() {
            let mut rng = SmallRng::seed_from_u64(1_000 + k as u64);
            let (ocr, applied) = noisy(&clean, rate, &mut rng);
            let truth = 1.0 - levenshtein(&clean, &ocr) as f64 / clean_chars;
            let measured = ocr_accuracy(&clean, &ocr, &RetasOptions::default()).unwrap();
            let error = measured.char_accuracy - truth;
            println!(
                "{name:<12} {:>5.0}% {:>8.4} {:>9.4} {:>9.4} {:>+7.4} {:>9.4} {:>14.4}",
                100.0 * rate,
                1.0 - applied as f64 / clean_chars,
                truth,
                measured.char_accuracy,
                error,
                measured.word_accuracy,
                measured.stop_word_accuracy
            );
            assert_eq!(measured.clean_chars as f64, clean_chars);
            if error.abs() > MAX_ERROR {
                failures.push(format!("{name} at {rate}: off by {error:+.4}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
