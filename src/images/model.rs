//! The letter-bigram model (thesis 7.3.2.3): how likely each visual term
//! is given each letter-bigram class, learned from word images labelled by
//! their own (noisy) OCR words, under a multiple-Bernoulli model (a term
//! counts once per image, however often it occurs).
//!
//! For a bigram class q seen in n_q training images, of which f_vq also
//! hold the term v:
//! - **union** (eq. 7.22): P(v|q) = f_vq / n_q;
//! - **intersection** (eq. 7.25): P(v|q) = C(f_vq, 2) / C(n_q, 2), the
//!   share of pairs of q's images that both hold v, which drops terms
//!   belonging to the other letters of the training words;
//!
//! then normalised over the terms (7.26), the term prior taken with the
//! classes equiprobable (7.27), smoothed towards it (7.28), and turned into
//! the feature of a (term, class) clique, Pr(q|v) = P̃(v|q)·P(q)/Pr(v)
//! (7.13). Only classes with at least [`ModelOptions::min_examples`]
//! training images are modelled; a query's other bigrams carry no visual
//! evidence.

use super::bigrams::{bigrams, Bigram, CLASSES};

/// How the term distribution of a class is estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Learning {
    /// Every term of every image holding the class (eq. 7.22).
    Union,
    /// Terms shared by pairs of images holding the class (eq. 7.25).
    Intersection,
}

/// The model's parameters.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelOptions {
    /// Union or intersection. Default intersection (the thesis's better).
    pub learning: Learning,
    /// λS of eq. 7.28: the weight of a class's own term distribution
    /// against the prior. Default 0.9: on rendered blackletter and
    /// handwriting pages, images-alone MAP was 0.01–0.05 higher than at 0.5
    /// and 0.2.
    pub smoothing: f64,
    /// Least number of training images a class needs to be modelled.
    pub min_examples: u32,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            learning: Learning::Intersection,
            smoothing: 0.9,
            min_examples: 3,
        }
    }
}

/// A training word image: its distinct visual terms and its OCR word.
#[derive(Debug, Clone)]
pub struct Example<'a> {
    /// The image's visual terms (repeats allowed; each counts once).
    pub terms: &'a [u32],
    /// The word the OCR read in it.
    pub word: &'a str,
}

/// Pr(q|v) for every term v and every modelled class q.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    options: ModelOptions,
    terms: usize,
    /// The modelled classes, ascending.
    classes: Vec<Bigram>,
    /// Column of each class in `weights`, or `NONE`.
    column: Vec<u16>,
    /// Row-major: `weights[v * classes.len() + c]` = Pr(classes[c] | v).
    weights: Vec<f32>,
}

const NONE: u16 = u16::MAX;

impl Model {
    /// Learns the model from `examples` over a vocabulary of `terms` terms.
    pub fn train<'a>(
        examples: impl IntoIterator<Item = Example<'a>>,
        terms: usize,
        options: ModelOptions,
    ) -> Model {
        let counts = Counts::of(examples, terms);
        let classes: Vec<Bigram> = (0..CLASSES as Bigram)
            .filter(|&q| counts.images_with[q as usize] >= options.min_examples.max(2))
            .collect();
        let conditional: Vec<Vec<f64>> = classes
            .iter()
            .map(|&q| counts.term_distribution(q, options.learning))
            .collect();
        let (classes, conditional): (Vec<Bigram>, Vec<Vec<f64>>) = classes
            .into_iter()
            .zip(conditional)
            .filter(|(_, d)| d.iter().any(|&p| p > 0.0))
            .unzip();
        let weights = clique_features(&conditional, terms, options.smoothing);
        let mut column = vec![NONE; CLASSES];
        for (c, &q) in classes.iter().enumerate() {
            column[q as usize] = c as u16;
        }
        Model {
            options,
            terms,
            classes,
            column,
            weights,
        }
    }

    /// The options it was trained with.
    pub fn options(&self) -> ModelOptions {
        self.options
    }

    /// Size of the term vocabulary.
    pub fn terms(&self) -> usize {
        self.terms
    }

    /// The modelled classes, ascending.
    pub fn classes(&self) -> &[Bigram] {
        &self.classes
    }

    /// The column of class `q` among [`Model::classes`], if modelled.
    pub fn column(&self, q: Bigram) -> Option<usize> {
        match self.column.get(q as usize) {
            Some(&c) if c != NONE => Some(c as usize),
            _ => None,
        }
    }

    /// Pr(q|v) for every modelled class (by column), for term `v`; empty
    /// for a term outside the vocabulary.
    pub fn row(&self, v: u32) -> &[f32] {
        let width = self.classes.len();
        let start = v as usize * width;
        self.weights.get(start..start + width).unwrap_or(&[])
    }
}

/// What training counts: per class, its images; per (term, class), the
/// images holding both.
struct Counts {
    terms: usize,
    images_with: Vec<u32>,
    /// `both[q]`: (term, images holding it and q), sparse.
    both: Vec<std::collections::HashMap<u32, u32>>,
}

impl Counts {
    fn of<'a>(examples: impl IntoIterator<Item = Example<'a>>, terms: usize) -> Counts {
        let mut counts = Counts {
            terms,
            images_with: vec![0; CLASSES],
            both: vec![std::collections::HashMap::new(); CLASSES],
        };
        for example in examples {
            let mut classes = bigrams(example.word);
            classes.sort_unstable();
            classes.dedup();
            let mut seen: Vec<u32> = example
                .terms
                .iter()
                .copied()
                .filter(|&t| (t as usize) < terms)
                .collect();
            seen.sort_unstable();
            seen.dedup();
            if classes.is_empty() || seen.is_empty() {
                continue;
            }
            for &q in &classes {
                counts.images_with[q as usize] += 1;
                let both = &mut counts.both[q as usize];
                for &v in &seen {
                    *both.entry(v).or_insert(0) += 1;
                }
            }
        }
        counts
    }

    /// P(v|q) for every term, normalised to sum 1 (all zero when no term
    /// qualifies).
    fn term_distribution(&self, q: Bigram, learning: Learning) -> Vec<f64> {
        let n = self.images_with[q as usize] as f64;
        let mut distribution = vec![0f64; self.terms];
        for (&v, &f) in &self.both[q as usize] {
            let f = f as f64;
            distribution[v as usize] = match learning {
                Learning::Union => f / n,
                Learning::Intersection => (f * (f - 1.0)) / (n * (n - 1.0)),
            };
        }
        let total: f64 = distribution.iter().sum();
        if total > 0.0 {
            distribution.iter_mut().for_each(|p| *p /= total);
        }
        distribution
    }
}

/// Pr(q|v) = P̃(v|q)·P(q) / Pr(v) with P(q) uniform over the modelled
/// classes, Pr(v) their mean (7.27) and P̃ = λS·Pr(v|q) + (1 − λS)·Pr(v)
/// (7.28); row-major by term. A term no class holds gets zeros.
fn clique_features(conditional: &[Vec<f64>], terms: usize, smoothing: f64) -> Vec<f32> {
    let classes = conditional.len();
    let mut weights = vec![0f32; terms * classes];
    if classes == 0 {
        return weights;
    }
    let uniform = 1.0 / classes as f64;
    let smoothing = smoothing.clamp(0.0, 1.0);
    for v in 0..terms {
        let prior: f64 = conditional.iter().map(|d| d[v]).sum::<f64>() * uniform;
        if prior <= 0.0 {
            continue;
        }
        let row = &mut weights[v * classes..(v + 1) * classes];
        for (w, d) in row.iter_mut().zip(conditional) {
            let smoothed = smoothing * d[v] + (1.0 - smoothing) * prior;
            *w = (smoothed * uniform / prior) as f32;
        }
    }
    weights
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words built from letters, each letter pair drawing its own term:
    /// the ideal case of one term per bigram, plus a noise term per image.
    fn examples(words: &[&str]) -> Vec<(Vec<u32>, String)> {
        words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let mut terms: Vec<u32> = bigrams(w).iter().map(|&b| b as u32 % 500).collect();
                terms.push(500 + i as u32);
                (terms, w.to_string())
            })
            .collect()
    }

    fn train(data: &[(Vec<u32>, String)], learning: Learning) -> Model {
        let options = ModelOptions {
            learning,
            smoothing: 0.9,
            min_examples: 2,
        };
        Model::train(
            data.iter().map(|(t, w)| Example { terms: t, word: w }),
            1000,
            options,
        )
    }

    #[test]
    fn a_term_leans_to_the_classes_it_was_seen_with_and_features_sum_to_one() {
        let data = examples(&["the", "this", "that", "them", "bag", "bog", "big", "bug"]);
        for learning in [Learning::Union, Learning::Intersection] {
            let model = train(&data, learning);
            let (th, space_b) = (bigrams("th")[1], bigrams("b")[0]);
            let row = model.row(th as u32 % 500);
            let (c_th, c_b) = (model.column(th).unwrap(), model.column(space_b).unwrap());
            assert!(
                row[c_th] > 2.0 * row[c_b],
                "{learning:?}: {} {}",
                row[c_th],
                row[c_b]
            );
            // Pr(·|v) is a distribution over the modelled classes.
            assert!((row.iter().map(|&w| w as f64).sum::<f64>() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn intersection_drops_terms_seen_once_with_a_class() {
        let data = examples(&[
            "the", "there", "other", "then", "hat", "that", "this", "these",
        ]);
        let union = train(&data, Learning::Union);
        let intersection = train(&data, Learning::Intersection);
        let th = bigrams("th")[1];
        let noise = 500; // the noise term of "the", seen once
        let (cu, ci) = (union.column(th).unwrap(), intersection.column(th).unwrap());
        let prior_share = |m: &Model, c: usize| m.row(noise)[c];
        // In the union model "the"'s noise term leans towards th; in the
        // intersection model it carries only the prior (equal over classes).
        let row = intersection.row(noise);
        assert!(row.iter().all(|&w| (w - row[0]).abs() < 1e-6) || row.iter().all(|&w| w == 0.0));
        assert!(prior_share(&union, cu) > prior_share(&intersection, ci));
    }

    #[test]
    fn rare_classes_and_unknown_terms_are_left_out() {
        let data = examples(&["the", "there", "zq"]);
        let model = train(&data, Learning::Union);
        assert!(model.column(bigrams("zq")[1]).is_none());
        assert!(model.column(bigrams("the")[1]).is_some());
        assert!(model.row(5000).is_empty());
    }
}
