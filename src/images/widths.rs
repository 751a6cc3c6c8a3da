//! How wide a word's image should be for a query: a width in units for
//! each symbol of the alphabet ([`super::bigrams`]), learned with the
//! model from the training images' OCR words, and the score's part that
//! holds an image's width against the query's.
//!
//! The letter-bigram model scores which letter pairs an image shows, not
//! how many letters it holds: "the" scores well on "there" and "other",
//! whose bigrams include its own. A box's width in units (its width over
//! the unit its descriptors were scaled to) tells them apart. A word's
//! expected width is its ends' width (the boundary symbol's, once a word)
//! plus its letters' and digits' widths. Those are learned by least
//! squares over the training images whose OCR word holds a letter or a
//! digit, each symbol's width drawn towards the mean letter width with the
//! weight of [`RIDGE`] images, so that a symbol seen seldom (or misread by
//! the OCR) stays near the mean; the ends' width is not drawn. The
//! *spread* is the root mean square of ln(width ÷ expected width) over
//! those images.
//!
//! An image of width w, searched for a word of expected width ŵ, loses
//! β·r²/2 from its image score, r = ln(w ÷ ŵ) ÷ spread and β
//! [`super::spot::SpotOptions::width_weight`]. The loss is never
//! negative, so a bound on the score without it still bounds the score.
//! This part is not the thesis's: on twenty-one rendered sets it lifted
//! images-alone MAP by 0.006 to 0.120, every one (benches/README.md, "Word
//! widths").

use super::bigrams::{symbols, BOUNDARY, SYMBOLS};

/// Weight, in training images, drawing each symbol's width towards the
/// mean letter width.
pub const RIDGE: f64 = 20.0;
/// Least training images with an OCR word for widths to be learned; with
/// fewer the score holds no width.
pub const MIN_EXAMPLES: usize = 20;
/// Least spread: widths that fit every training image to a hair do not
/// make every other image infinitely unlikely.
const MIN_SPREAD: f32 = 0.05;
/// Least expected width of a word, in units.
const MIN_EXPECTED: f32 = 0.1;
/// Steps a unit in a stored width.
pub const WIDTH_STEPS: f32 = 1024.0;

/// The widths of the alphabet's symbols, in units, and the spread of
/// ln(width ÷ expected width).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WordWidths {
    /// By symbol; the boundary's is the ends' width, once a word.
    symbols: [f32; SYMBOLS],
    spread: f32,
}

impl WordWidths {
    /// The widths learned from `images` (each its OCR word and its box's
    /// width in units); `None` when fewer than [`MIN_EXAMPLES`] hold a
    /// letter or a digit.
    pub fn learn<'a>(images: impl IntoIterator<Item = (&'a str, f32)>) -> Option<WordWidths> {
        let examples: Vec<(Vec<u16>, f64)> = (images.into_iter())
            .filter(|(_, width)| width.is_finite() && *width > 0.0)
            .map(|(word, width)| (symbols(word).collect::<Vec<_>>(), f64::from(width)))
            .filter(|(symbols, _)| !symbols.is_empty())
            .collect();
        if examples.len() < MIN_EXAMPLES {
            return None;
        }
        let solved = ridge_solution(&examples, mean_letter_width(&examples));
        let mut symbols = [0f32; SYMBOLS];
        for (width, value) in symbols.iter_mut().zip(&solved) {
            *width = *value as f32;
        }
        let mut widths = WordWidths {
            symbols,
            spread: 1.0,
        };
        let squares: f64 = (examples.iter())
            .map(|(s, width)| (width / f64::from(widths.expected_of(s))).ln().powi(2))
            .sum();
        widths.spread = ((squares / examples.len() as f64).sqrt() as f32).max(MIN_SPREAD);
        Some(widths)
    }

    /// Widths as a search file stores them: `None` unless every width is
    /// finite and the spread finite and positive.
    pub fn from_parts(symbols: [f32; SYMBOLS], spread: f32) -> Option<WordWidths> {
        let valid = symbols.iter().all(|w| w.is_finite()) && spread.is_finite() && spread > 0.0;
        valid.then_some(WordWidths { symbols, spread })
    }

    /// The widths by symbol, the boundary's first.
    pub fn symbols(&self) -> &[f32; SYMBOLS] {
        &self.symbols
    }

    /// The spread of ln(width ÷ expected width).
    pub fn spread(&self) -> f32 {
        self.spread
    }

    /// The width `word`'s image is expected to have, in units.
    pub fn expected(&self, word: &str) -> f32 {
        self.expected_of(&symbols(word).collect::<Vec<_>>())
    }

    fn expected_of(&self, word: &[u16]) -> f32 {
        let letters: f32 = (word.iter())
            .map(|&s| self.symbols.get(s as usize).copied().unwrap_or(0.0))
            .sum();
        (self.symbols[BOUNDARY as usize] + letters).max(MIN_EXPECTED)
    }

    /// r²/2 for an image of stored width `stored` ([`stored_width`])
    /// searched for a word of width `expected`: 0 for an image of no
    /// stored width.
    pub fn loss(&self, stored: u16, expected: f32) -> f64 {
        if stored == 0 {
            return 0.0;
        }
        let width = f64::from(stored) / f64::from(WIDTH_STEPS);
        let r = (width / f64::from(expected)).ln() / f64::from(self.spread);
        r * r / 2.0
    }
}

/// A box's width in units as stored: in steps of 1/[`WIDTH_STEPS`],
/// at least 1, at most `u16::MAX` (64 units: no word is wider).
pub fn stored_width(width_in_units: f32) -> u16 {
    if !width_in_units.is_finite() {
        return 1;
    }
    (width_in_units * WIDTH_STEPS)
        .round()
        .clamp(1.0, u16::MAX as f32) as u16
}

/// The mean width of a letter: the slope of width against the number of
/// letters (least squares), or width over letters when every word has as
/// many.
fn mean_letter_width(examples: &[(Vec<u16>, f64)]) -> f64 {
    let n = examples.len() as f64;
    let mean_letters = examples.iter().map(|(s, _)| s.len() as f64).sum::<f64>() / n;
    let mean_width = examples.iter().map(|(_, w)| w).sum::<f64>() / n;
    let (mut covariance, mut variance) = (0.0, 0.0);
    for (s, w) in examples {
        let d = s.len() as f64 - mean_letters;
        covariance += d * (w - mean_width);
        variance += d * d;
    }
    if variance > 0.0 {
        covariance / variance
    } else {
        mean_width / mean_letters
    }
}

/// The symbols' widths minimising the squared error of every example's
/// width plus [`RIDGE`] times each letter's squared distance from `mean`
/// (the boundary's width, the ends', undrawn): the normal equations,
/// solved by Gaussian elimination.
fn ridge_solution(examples: &[(Vec<u16>, f64)], mean: f64) -> Vec<f64> {
    let mut normal = vec![vec![0f64; SYMBOLS]; SYMBOLS];
    let mut right = vec![0f64; SYMBOLS];
    let mut counts = [0f64; SYMBOLS];
    for (word, width) in examples {
        counts.fill(0.0);
        counts[BOUNDARY as usize] = 1.0;
        for &s in word {
            counts[s as usize] += 1.0;
        }
        let present: Vec<usize> = (0..SYMBOLS).filter(|&s| counts[s] != 0.0).collect();
        for &i in &present {
            right[i] += counts[i] * width;
            for &j in &present {
                normal[i][j] += counts[i] * counts[j];
            }
        }
    }
    for s in (0..SYMBOLS).filter(|&s| s != BOUNDARY as usize) {
        normal[s][s] += RIDGE;
        right[s] += RIDGE * mean;
    }
    solve(normal, right)
}

/// x with `matrix`·x = `right`, by Gaussian elimination with partial
/// pivoting (`matrix` is symmetric positive definite here); an unknown of
/// no pivot is 0.
fn solve(mut matrix: Vec<Vec<f64>>, mut right: Vec<f64>) -> Vec<f64> {
    let n = right.len();
    for i in 0..n {
        let pivot = (i..n)
            .max_by(|&a, &b| matrix[a][i].abs().total_cmp(&matrix[b][i].abs()))
            .unwrap_or(i);
        matrix.swap(i, pivot);
        right.swap(i, pivot);
        let diagonal = matrix[i][i];
        if diagonal.abs() < 1e-12 {
            continue;
        }
        let pivot_row = matrix[i].clone();
        for r in (0..n).filter(|&r| r != i) {
            let factor = matrix[r][i] / diagonal;
            if factor == 0.0 {
                continue;
            }
            for (value, above) in matrix[r][i..].iter_mut().zip(&pivot_row[i..]) {
                *value -= factor * above;
            }
            right[r] -= factor * right[i];
        }
    }
    (0..n)
        .map(|i| match matrix[i][i] {
            d if d.abs() < 1e-12 => 0.0,
            d => right[i] / d,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` words of 1 to 5 letters of "themin", drawn by a fixed generator.
    fn words(n: usize) -> Vec<String> {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        (0..n)
            .map(|k| {
                (0..1 + k % 5)
                    .map(|_| {
                        state = state
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1);
                        b"themin"[(state >> 33) as usize % 6] as char
                    })
                    .collect()
            })
            .collect()
    }

    /// The images of `words`, each as wide as 0.3 units for its ends plus
    /// 0.5 a letter, 0.9 an `m` and 0.25 an `i`, times `stretch` of its
    /// number.
    fn images(words: &[String], stretch: impl Fn(usize) -> f32) -> Vec<(&str, f32)> {
        (words.iter().enumerate())
            .map(|(k, w)| {
                let letters: f32 = (w.chars())
                    .map(|c| match c {
                        'm' => 0.9,
                        'i' => 0.25,
                        _ => 0.5,
                    })
                    .sum();
                (w.as_str(), (0.3 + letters) * stretch(k))
            })
            .collect()
    }

    #[test]
    fn widths_are_learned_per_letter_and_a_wide_word_expected_wider() {
        let words = words(600);
        let widths = WordWidths::learn(images(&words, |_| 1.0)).unwrap();
        let expected = [
            ("mime", 0.3 + 0.9 * 2.0 + 0.25 + 0.5),
            ("in", 1.05),
            ("mm", 2.1),
        ];
        for (word, width) in expected {
            let learned = widths.expected(word);
            assert!((learned - width).abs() < 0.1, "{word}: {learned}");
        }
        assert_eq!(
            widths.spread(),
            MIN_SPREAD,
            "exact widths have the least spread"
        );
    }

    #[test]
    fn the_spread_is_how_far_widths_stray_and_the_loss_grows_with_it() {
        let words = words(600);
        let stretch = |k: usize| if k % 7 < 3 { 1.2 } else { 1.0 / 1.2 };
        let widths = WordWidths::learn(images(&words, stretch)).unwrap();
        assert!(
            (widths.spread() - 1.2f32.ln()).abs() < 0.03,
            "{}",
            widths.spread()
        );
        let expected = widths.expected("time");
        let at = |width: f32| widths.loss(stored_width(width), expected);
        assert!(at(expected) < 1e-3);
        let one_spread = expected * widths.spread().exp();
        assert!(
            (at(one_spread) - 0.5).abs() < 0.01,
            "one spread off loses ½"
        );
        assert!(at(expected * 2.0) > at(expected * 1.5));
        assert!(
            (at(expected / 2.0) - at(expected * 2.0)).abs() < 0.01,
            "by ratio"
        );
        assert_eq!(widths.loss(0, expected), 0.0, "no stored width, no loss");
    }

    #[test]
    fn a_letter_seen_seldom_stays_near_the_mean_and_too_few_images_learn_nothing() {
        let mut words = words(600);
        words.push("x".to_string());
        let mut seen = images(&words, |_| 1.0);
        seen.last_mut().unwrap().1 = 3.0;
        let widths = WordWidths::learn(seen).unwrap();
        let width = |c: &str| widths.symbols()[symbols(c).next().unwrap() as usize];
        assert!(
            (width("x") - width("Q")).abs() < 0.15,
            "{} {}",
            width("x"),
            width("Q")
        );
        assert!(
            (width("Q") - 0.55).abs() < 0.1,
            "never seen: the mean, {}",
            width("Q")
        );
        assert!(WordWidths::learn(images(&words[..15], |_| 1.0)).is_none());
        let unread = vec![("", 2.0f32); 100];
        assert!(
            WordWidths::learn(unread).is_none(),
            "no OCR word, no widths"
        );
    }

    #[test]
    fn stored_widths_round_and_stay_in_range() {
        assert_eq!(stored_width(1.0), 1024);
        assert_eq!(stored_width(0.0), 1);
        assert_eq!(stored_width(1000.0), u16::MAX);
        assert_eq!(stored_width(f32::NAN), 1);
        assert!(WordWidths::from_parts([0.5; SYMBOLS], 0.0).is_none());
        assert!(WordWidths::from_parts([f32::INFINITY; SYMBOLS], 0.2).is_none());
        assert!(WordWidths::from_parts([0.5; SYMBOLS], 0.2).is_some());
    }
}
