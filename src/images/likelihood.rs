//! The precomputed matrices of thesis 7.3.2.4: for a word image and each
//! modelled letter-bigram class, the best likelihood of the class under a
//! Gaussian window slid along the word, and where it was best.
//!
//! For a window at µ (units from the left edge, stepped by
//! [`STEP`]), each distinct visual term counts once, at its occurrence
//! nearest µ, weighted by G(x) = exp(−(x − µ)²/2σ²), σ = [`SIGMA`] (eqs.
//! 7.14–7.16); terms past [`REACH`] contribute nothing. The class's score
//! at µ is Σ G·Pr(q|v); the row keeps its maximum over µ and the first µ
//! reaching it.
//!
//! **Stored rows** are quantised and pruned: values become 16-bit
//! fractions of the collection's [`Likelihoods::scale`], only the
//! [`KEEP_PER_IMAGE`] best classes of an image keep their value and
//! position, and the rest share the image's floor (the best value pruned),
//! with no position. A score is defined on the stored row, so a score
//! computed from a word image's terms on the fly equals the score read
//! from the index.

use super::model::Model;

/// σ of the Gaussian window, in units (the thesis's 0.5 box heights).
pub const SIGMA: f32 = 0.5;
/// The window slides by half a unit (the thesis's half box height).
pub const STEP: f32 = 0.5;
/// A term farther than this from the window's centre (units) is left
/// out: its weight would be below e⁻⁸ (3.4·10⁻⁴).
pub const REACH: f32 = 4.0 * SIGMA;
/// Classes an image keeps with their own value and position.
pub const KEEP_PER_IMAGE: usize = 96;
/// Positions past this many steps are clamped (a word of more than 127 box
/// heights is not a word).
const MAX_STEPS: usize = u8::MAX as usize;

/// A word image's visual terms: each term with its x in units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacedTerm {
    /// The visual term.
    pub term: u32,
    /// Its x from the box's left edge, in units ([`super::descriptor::Described`]).
    pub x: f32,
}

/// The full row of one word image: per modelled class (by column), the
/// best likelihood and its position in steps of [`STEP`].
#[derive(Debug, Clone, PartialEq)]
pub struct Likelihoods {
    /// Best likelihood per column.
    pub values: Vec<f32>,
    /// Where it was best, in steps.
    pub positions: Vec<u8>,
}

impl Likelihoods {
    /// The row of a word image `width` units wide with `terms`.
    pub fn of(model: &Model, terms: &[PlacedTerm], width: f32) -> Likelihoods {
        let columns = model.classes().len();
        let mut row = Likelihoods {
            values: vec![0.0; columns],
            positions: vec![0; columns],
        };
        let steps = ((width.max(0.0) / STEP).ceil() as usize).min(MAX_STEPS);
        let mut nearest: Vec<(u32, f32)> = Vec::new();
        let mut sums = vec![0f32; columns];
        for step in 0..=steps {
            let centre = step as f32 * STEP;
            window_weights(terms, centre, &mut nearest);
            sums.iter_mut().for_each(|s| *s = 0.0);
            for &(term, weight) in &nearest {
                for (sum, &w) in sums.iter_mut().zip(model.row(term)) {
                    *sum += weight * w;
                }
            }
            for (c, &sum) in sums.iter().enumerate() {
                if sum > row.values[c] {
                    row.values[c] = sum;
                    row.positions[c] = step as u8;
                }
            }
        }
        row
    }

    /// The scale rows are quantised against: the largest value of any
    /// class in the rows of `sample` (word images of the collection), so
    /// that stored values are fractions of what the collection reaches and
    /// the likelihood part of a score lies in 0..=1 like the order part. A
    /// later image's value above it is stored as 1.
    pub fn scale<'a>(
        model: &Model,
        sample: impl IntoIterator<Item = (&'a [PlacedTerm], f32)>,
    ) -> f32 {
        sample
            .into_iter()
            .map(|(terms, width)| {
                Likelihoods::of(model, terms, width)
                    .values
                    .into_iter()
                    .fold(0.0, f32::max)
            })
            .fold(0.0, f32::max)
            .max(f32::MIN_POSITIVE)
    }
}

/// Each distinct term within [`REACH`] of `centre` with its largest window
/// weight, sorted by term.
fn window_weights(terms: &[PlacedTerm], centre: f32, out: &mut Vec<(u32, f32)>) {
    out.clear();
    for t in terms {
        let d = t.x - centre;
        if d.abs() <= REACH {
            out.push((t.term, (-(d * d) / (2.0 * SIGMA * SIGMA)).exp()));
        }
    }
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    out.dedup_by_key(|(term, _)| *term);
}

/// A stored row: the image's kept classes with quantised value and
/// position, and the floor every other modelled class gets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StoredRow {
    /// The value of every modelled class not kept (and not above it).
    pub floor: u16,
    /// Kept classes: (column, value, position), by column.
    pub kept: Vec<(u16, u16, u8)>,
}

impl StoredRow {
    /// Quantises `row` against `scale` and keeps its [`KEEP_PER_IMAGE`]
    /// best columns (ties by lower column).
    pub fn of(row: &Likelihoods, scale: f32) -> StoredRow {
        let quantised: Vec<u16> = row.values.iter().map(|&v| quantise(v, scale)).collect();
        let mut order: Vec<usize> = (0..quantised.len()).collect();
        order.sort_unstable_by(|&a, &b| quantised[b].cmp(&quantised[a]).then(a.cmp(&b)));
        let floor = order.get(KEEP_PER_IMAGE).map_or(0, |&c| quantised[c]);
        let mut kept: Vec<(u16, u16, u8)> = order
            .iter()
            .take(KEEP_PER_IMAGE)
            .map(|&c| (c as u16, quantised[c], row.positions[c]))
            .collect();
        kept.sort_unstable_by_key(|&(c, _, _)| c);
        StoredRow { floor, kept }
    }

    /// The value and position of column `c`: kept, or the floor with no
    /// position.
    pub fn get(&self, c: u16) -> (u16, Option<u8>) {
        match self.kept.binary_search_by_key(&c, |&(column, _, _)| column) {
            Ok(i) => (self.kept[i].1, Some(self.kept[i].2)),
            Err(_) => (self.floor, None),
        }
    }
}

/// `value` as a 16-bit fraction of `scale`, rounded, saturating.
pub fn quantise(value: f32, scale: f32) -> u16 {
    ((value / scale).clamp(0.0, 1.0) * u16::MAX as f32).round() as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::images::bigrams::bigrams;
    use crate::images::model::{Example, Learning, ModelOptions};

    /// A model whose terms are the bigram classes themselves (one term per
    /// bigram, the ideal case), trained on words where th and he mostly
    /// occur apart.
    fn model() -> Model {
        let words = [
            "the", "thy", "tho", "thin", "thaw", "he", "hem", "hen", "shed", "ahead",
        ];
        let data: Vec<(Vec<u32>, &str)> = words
            .iter()
            .map(|w| (bigrams(w).iter().map(|&b| b as u32).collect(), *w))
            .collect();
        Model::train(
            data.iter().map(|(t, w)| Example { terms: t, word: w }),
            crate::images::bigrams::CLASSES,
            ModelOptions {
                learning: Learning::Union,
                smoothing: 0.9,
                min_examples: 2,
            },
        )
    }

    /// The word's terms `spacing` units apart.
    fn placed(word: &str, spacing: f32) -> Vec<PlacedTerm> {
        bigrams(word)
            .iter()
            .enumerate()
            .map(|(i, &b)| PlacedTerm {
                term: b as u32,
                x: i as f32 * spacing,
            })
            .collect()
    }

    #[test]
    fn a_class_peaks_where_its_term_is() {
        let model = model();
        // "other": ␣o ot th he er r␣, 2.5 units apart (beyond a
        // window's reach of its neighbours): th at 5.0 (step 10), he at 7.5.
        let row = Likelihoods::of(&model, &placed("other", 2.5), 12.5);
        let th = model.column(bigrams("th")[1]).unwrap();
        assert_eq!(row.positions[th], 10);
        let he = model.column(bigrams("he")[1]).unwrap();
        assert_eq!(row.positions[he], 15);
    }

    #[test]
    fn a_term_counts_once_per_window() {
        let model = model();
        let once = placed("the", 0.5);
        let mut twice = once.clone();
        twice.extend(once.iter().rev());
        assert_eq!(
            Likelihoods::of(&model, &once, 1.5),
            Likelihoods::of(&model, &twice, 1.5)
        );
    }

    #[test]
    fn stored_rows_keep_the_best_classes_and_floor_the_rest() {
        let row = Likelihoods {
            values: (0..200).map(|i| i as f32 / 200.0).collect(),
            positions: (0..200).map(|i| (i % 7) as u8).collect(),
        };
        let stored = StoredRow::of(&row, 1.0);
        assert_eq!(stored.kept.len(), KEEP_PER_IMAGE);
        let (top, position) = stored.get(199);
        assert_eq!(position, Some((199 % 7) as u8));
        assert_eq!(top, quantise(199.0 / 200.0, 1.0));
        let pruned = 199 - KEEP_PER_IMAGE as u16;
        assert_eq!(
            stored.get(pruned),
            (quantise(pruned as f32 / 200.0, 1.0), None)
        );
        assert_eq!(stored.get(0).1, None);
        assert!(stored.get(0).0 >= quantise(0.0, 1.0));
    }

    #[test]
    fn quantising_saturates_and_rounds() {
        assert_eq!(quantise(2.0, 1.0), u16::MAX);
        assert_eq!(quantise(-1.0, 1.0), 0);
        assert_eq!(quantise(0.5, 1.0), 32768);
    }
}
