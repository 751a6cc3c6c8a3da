//! Ranking word images for a text query (thesis 7.3.2 and 7.3.4.3).
//!
//! The query word is split into its letter bigrams q₁…qₙ. A word image's
//! score has two visual parts, read from its stored row
//! ([`super::likelihood::StoredRow`]):
//! - the likelihood part, NMRF_vq = (1/n) Σⱼ L(qⱼ) (eq. 7.17), each value a
//!   fraction of the model's scale;
//! - the order part, MRF_qq (eqs. 7.18–7.19): the share of the n(n−1)/2
//!   pairs of query bigrams whose best positions are in the query's order
//!   (a pair with a bigram not kept by the image is out of order),
//!
//! mixed as λM·NMRF_vq + (1 − λM)·MRF_qq (eq. 7.10); and, when the image
//! has an OCR word, combined with the OCR side, the normalised q-gram
//! similarity S_q of the OCR word and the query (eq. 7.29), as
//! λC·image + (1 − λC)·S_q (eq. 7.30).

use super::bigrams::{bigrams, qgram_similarity, Bigram};
use super::likelihood::StoredRow;
use super::model::Model;

/// How the parts of a score are mixed.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpotOptions {
    /// λM: the likelihood part's weight against the order part.
    pub likelihood_weight: f64,
    /// λC: the image score's weight against the OCR similarity; 1 ranks by
    /// the images alone, 0 by the OCR words alone.
    pub image_weight: f64,
}

impl Default for SpotOptions {
    fn default() -> Self {
        SpotOptions {
            likelihood_weight: 0.5,
            image_weight: 0.5,
        }
    }
}

/// A query word as the scorer needs it.
#[derive(Debug, Clone)]
pub struct Query {
    /// Its bigrams in order.
    pub bigrams: Vec<Bigram>,
    /// Each bigram's column in the model, if modelled.
    pub columns: Vec<Option<u16>>,
}

impl Query {
    /// The query for `word` under `model`; `None` when the word has no
    /// letter or digit.
    pub fn new(word: &str, model: &Model) -> Option<Query> {
        let bigrams = bigrams(word);
        if bigrams.is_empty() {
            return None;
        }
        let columns = bigrams
            .iter()
            .map(|&b| model.column(b).map(|c| c as u16))
            .collect();
        Some(Query { bigrams, columns })
    }
}

/// The parts of one image's score.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Scores {
    /// NMRF_vq.
    pub likelihood: f64,
    /// MRF_qq.
    pub order: f64,
    /// λM·likelihood + (1 − λM)·order.
    pub image: f64,
    /// S_q of the OCR word (0 without one).
    pub ocr: f64,
    /// λC·image + (1 − λC)·ocr.
    pub combined: f64,
}

/// The scores of an image whose values for the query's bigrams are
/// `values` (one per bigram: a 16-bit value and a position, or none for a
/// bigram the model does not know), with OCR similarity `ocr`.
pub fn score(values: &[Option<(u16, Option<u8>)>], ocr: f64, options: &SpotOptions) -> Scores {
    let n = values.len();
    if n == 0 {
        return Scores::default();
    }
    let likelihood = values
        .iter()
        .map(|v| v.map_or(0.0, |(value, _)| value as f64 / u16::MAX as f64))
        .sum::<f64>()
        / n as f64;
    let positions: Vec<Option<u8>> = values.iter().map(|v| v.and_then(|(_, p)| p)).collect();
    let mut in_order = 0usize;
    for i in 0..n {
        for j in i + 1..n {
            if let (Some(a), Some(b)) = (positions[i], positions[j]) {
                in_order += usize::from(a <= b);
            }
        }
    }
    let pairs = n * (n - 1) / 2;
    let order = if pairs == 0 {
        0.0
    } else {
        in_order as f64 / pairs as f64
    };
    let lambda_m = options.likelihood_weight.clamp(0.0, 1.0);
    let lambda_c = options.image_weight.clamp(0.0, 1.0);
    let image = lambda_m * likelihood + (1.0 - lambda_m) * order;
    Scores {
        likelihood,
        order,
        image,
        ocr,
        combined: lambda_c * image + (1.0 - lambda_c) * ocr,
    }
}

/// The values of a stored row for the query's bigrams, as [`score`]
/// takes them.
pub fn row_values(query: &Query, row: &StoredRow) -> Vec<Option<(u16, Option<u8>)>> {
    query
        .columns
        .iter()
        .map(|c| c.map(|c| row.get(c)))
        .collect()
}

/// S_q of an OCR word and the query.
pub fn ocr_similarity(query: &Query, ocr_word: &str) -> f64 {
    qgram_similarity(&query.bigrams, &bigrams(ocr_word))
}

/// Word images held in memory for ranking: their stored rows, OCR words,
/// and per modelled class the images that keep it (the columns of the
/// matrix), so that a query reads only its own bigrams' columns.
#[derive(Debug, Clone)]
pub struct Matrix {
    floors: Vec<u16>,
    ocr: Vec<String>,
    /// Per column: (image, value, position), by image.
    columns: Vec<Vec<(u32, u16, u8)>>,
}

impl Matrix {
    /// The matrix of `rows` (image i = `rows[i]`) with their OCR words, over
    /// a model of `columns` modelled classes.
    pub fn new(rows: &[StoredRow], ocr: Vec<String>, columns: usize) -> Matrix {
        let mut by_column = vec![Vec::new(); columns];
        for (image, row) in rows.iter().enumerate() {
            for &(c, value, position) in &row.kept {
                if let Some(list) = by_column.get_mut(c as usize) {
                    list.push((image as u32, value, position));
                }
            }
        }
        Matrix {
            floors: rows.iter().map(|r| r.floor).collect(),
            ocr,
            columns: by_column,
        }
    }

    /// Number of word images.
    pub fn len(&self) -> usize {
        self.floors.len()
    }

    /// True when it holds no image.
    pub fn is_empty(&self) -> bool {
        self.floors.is_empty()
    }

    /// Every image's scores for `query`, by image.
    pub fn scores(&self, query: &Query, options: &SpotOptions) -> Vec<Scores> {
        let n = query.columns.len();
        let mut values: Vec<Option<(u16, Option<u8>)>> = Vec::with_capacity(self.len() * n);
        for &floor in &self.floors {
            values.extend(query.columns.iter().map(|c| c.map(|_| (floor, None))));
        }
        for (j, column) in query.columns.iter().enumerate() {
            let Some(list) = column.and_then(|c| self.columns.get(c as usize)) else {
                continue;
            };
            for &(image, value, position) in list {
                values[image as usize * n + j] = Some((value, Some(position)));
            }
        }
        let mut similarity = std::collections::HashMap::new();
        values
            .chunks(n.max(1))
            .zip(&self.ocr)
            .map(|(v, word)| {
                let ocr = *similarity
                    .entry(word.as_str())
                    .or_insert_with(|| ocr_similarity(query, word));
                score(v, ocr, options)
            })
            .collect()
    }

    /// The best `k` images (all for 0) by combined score, ties by image.
    pub fn top(&self, query: &Query, options: &SpotOptions, k: usize) -> Vec<(u32, Scores)> {
        let mut ranked: Vec<(u32, Scores)> = self
            .scores(query, options)
            .into_iter()
            .enumerate()
            .map(|(i, s)| (i as u32, s))
            .collect();
        ranked.sort_by(|a, b| b.1.combined.total_cmp(&a.1.combined).then(a.0.cmp(&b.0)));
        if k > 0 {
            ranked.truncate(k);
        }
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::images::likelihood::{Likelihoods, PlacedTerm};
    use crate::images::model::{Example, Learning, ModelOptions};
    use proptest::prelude::*;

    #[test]
    fn order_counts_pairs_in_the_query_order() {
        let options = SpotOptions {
            likelihood_weight: 0.0,
            image_weight: 1.0,
        };
        let at = |p: &[u8]| -> Vec<Option<(u16, Option<u8>)>> {
            p.iter().map(|&x| Some((0, Some(x)))).collect()
        };
        assert_eq!(score(&at(&[0, 1, 2, 3]), 0.0, &options).order, 1.0);
        assert_eq!(score(&at(&[3, 2, 1, 0]), 0.0, &options).order, 0.0);
        assert_eq!(score(&at(&[0, 2, 1]), 0.0, &options).order, 2.0 / 3.0);
        let missing = vec![Some((0, Some(0))), Some((0, None)), None];
        assert_eq!(score(&missing, 0.0, &options).order, 0.0);
    }

    #[test]
    fn the_mix_follows_the_weights() {
        let values = vec![Some((u16::MAX, Some(0))), Some((0, Some(1)))];
        let s = score(
            &values,
            0.25,
            &SpotOptions {
                likelihood_weight: 0.5,
                image_weight: 0.8,
            },
        );
        assert!((s.likelihood - 0.5).abs() < 1e-12);
        assert_eq!(s.order, 1.0);
        assert!((s.image - 0.75).abs() < 1e-12);
        assert!((s.combined - (0.8 * 0.75 + 0.2 * 0.25)).abs() < 1e-12);
    }

    fn model() -> Model {
        let words = [
            "the", "there", "other", "then", "hat", "that", "this", "these", "he", "her",
        ];
        let data: Vec<(Vec<u32>, &str)> = words
            .iter()
            .map(|w| (bigrams(w).iter().map(|&b| b as u32 % 97).collect(), *w))
            .collect();
        Model::train(
            data.iter().map(|(t, w)| Example { terms: t, word: w }),
            97,
            ModelOptions {
                learning: Learning::Intersection,
                smoothing: 0.7,
                min_examples: 2,
            },
        )
    }

    proptest! {
        /// Scores read through the matrix's columns equal scores computed
        /// from each image's own row.
        #[test]
        fn matrix_scores_equal_row_scores(
            images in prop::collection::vec(
                prop::collection::vec((0u32..97, 0f32..6.0), 0..40), 1..12),
            query in "[a-z]{1,6}",
            weights in (0f64..=1.0, 0f64..=1.0),
        ) {
            let model = model();
            let scale = 0.05;
            let rows: Vec<StoredRow> = images
                .iter()
                .map(|terms| {
                    let placed: Vec<PlacedTerm> = terms.iter().map(|&(term, x)| PlacedTerm { term, x }).collect();
                    StoredRow::of(&Likelihoods::of(&model, &placed, 6.0), scale)
                })
                .collect();
            let ocr: Vec<String> = (0..rows.len()).map(|i| ["the", "then", "xyz"][i % 3].to_string()).collect();
            let matrix = Matrix::new(&rows, ocr.clone(), model.classes().len());
            let options = SpotOptions { likelihood_weight: weights.0, image_weight: weights.1 };
            let q = Query::new(&query, &model).unwrap();
            let from_matrix = matrix.scores(&q, &options);
            for (i, row) in rows.iter().enumerate() {
                let direct = score(&row_values(&q, row), ocr_similarity(&q, &ocr[i]), &options);
                prop_assert_eq!(direct, from_matrix[i]);
            }
        }
    }
}
