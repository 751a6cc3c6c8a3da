//! From pages to stored rows: the word images of a page (its word boxes),
//! the visual vocabulary and the letter-bigram model learned from a
//! collection's own word images and OCR words, and each word image's
//! stored row of the matrix.

use image::GrayImage;

use super::bigrams::Bigram;
use super::codebook::{Codebook, Vector};
use super::descriptor::{describe, Described, Keypoint, Normalisation};
use super::likelihood::{Likelihoods, PlacedTerm, StoredRow};
use super::model::{Example, Model, ModelOptions};
use super::parallel::par_map;
use super::widths::WordWidths;
use super::WordBox;

/// How a collection's vocabulary and model are learned.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LearnOptions {
    /// Branching of each level of the vocabulary tree: branching² terms.
    /// Default 96 (9,216 terms). Measured on 40 rendered pages of one book
    /// in blackletter and in a handwriting face (`stemmata eval-images`),
    /// intersection MAP of the images alone: 32 → 0.68, 64 (the thesis's
    /// 4,096 terms) → 0.78, 96 → 0.83, 128 → 0.83 on the blackletter; the
    /// handwriting rose the same way; 128 costs a third more time.
    pub branching: usize,
    /// At most this many descriptors, taken evenly from the training
    /// images, to learn the vocabulary from.
    pub sample: usize,
    /// The letter-bigram model's options.
    pub model: ModelOptions,
    /// An add learns the model again from every book of the index while
    /// it was learned from fewer word images than this; later adds keep
    /// it and every row, and compute only the new book's rows (by the
    /// model learned from the books it was learned from and the new one),
    /// so that an add costs the same however large the collection (an
    /// explicit relearn learns it from every book). Default 20,000, about
    /// two books of 30 pages.
    #[serde(default = "default_learn_from")]
    pub learn_from: u64,
    /// A book of at least this many word images, added to an index that
    /// holds another, is described by a vocabulary learned from its own
    /// pages and scored by a model learned from its own word images alone,
    /// over the index's classes, its images held to that model's widths;
    /// a smaller one by the index's vocabulary and the model learned with
    /// the other books (see storage-format.md 6.8). A vocabulary and a
    /// model learned mostly from other faces or hands describe a book
    /// poorly. Default 1,000, about 3 pages: measured through the index,
    /// every book of 1,588 word images or more scored better by its own
    /// model; at 598 to 757 a handwritten one still did by far, a
    /// roman-type one after roman-type books about as well
    /// (benches/README.md, "A book scored by its own model").
    #[serde(default = "default_learn_alone")]
    pub learn_alone: u64,
}

fn default_learn_from() -> u64 {
    LearnOptions::default().learn_from
}

fn default_learn_alone() -> u64 {
    LearnOptions::default().learn_alone
}

impl Default for LearnOptions {
    fn default() -> Self {
        LearnOptions {
            branching: 96,
            sample: 150_000,
            model: ModelOptions::default(),
            learn_from: 20_000,
            learn_alone: 1_000,
        }
    }
}

/// One word image: its descriptors, its width in units and the word the
/// OCR read in it.
#[derive(Debug, Clone)]
pub struct WordImage {
    /// Dense descriptors with their x positions.
    pub keypoints: Vec<Keypoint>,
    /// Box width in units ([`Described::width_in_units`]).
    pub width: f32,
    /// The OCR word.
    pub ocr: String,
}

/// The word images of a page described under `normalisation`: one per
/// word, in the given order.
pub fn word_images(
    page: &GrayImage,
    words: &[(WordBox, String)],
    normalisation: Normalisation,
) -> Vec<WordImage> {
    words
        .iter()
        .map(|(bbox, text)| {
            let described = describe(page, *bbox, normalisation);
            WordImage {
                width: Described::width_in_units(*bbox, described.unit),
                keypoints: described.keypoints,
                ocr: text.clone(),
            }
        })
        .collect()
}

/// A collection's visual vocabulary and letter-bigram model, and the scale
/// its rows are quantised against.
#[derive(Debug, Clone)]
pub struct Learned {
    /// The vocabulary tree.
    pub codebook: Codebook,
    /// The model.
    pub model: Model,
    /// The quantisation scale of stored rows.
    pub scale: f32,
}

/// Training images whose rows set the quantisation scale (evenly taken).
const SCALE_SAMPLE: usize = 2000;

/// A word image as visual terms: what the model is learned from and what
/// a stored row is computed from.
#[derive(Debug, Clone)]
pub struct TermImage {
    /// Its terms with their positions.
    pub terms: Vec<PlacedTerm>,
    /// Box width in units.
    pub width: f32,
    /// The OCR word.
    pub ocr: String,
}

/// The images' terms under `codebook`, quantised on every core.
pub fn quantise_all(codebook: &Codebook, images: &[WordImage]) -> Vec<TermImage> {
    par_map(images, |image| TermImage {
        terms: image
            .keypoints
            .iter()
            .map(|k| PlacedTerm {
                term: codebook.quantise(&k.descriptor),
                x: k.x,
            })
            .collect(),
        width: image.width,
        ocr: image.ocr.clone(),
    })
}

impl Learned {
    /// Learns the model of `training`, already quantised by `codebook`.
    pub fn from_terms(
        codebook: Codebook,
        training: &[TermImage],
        options: ModelOptions,
    ) -> Learned {
        let terms: Vec<Vec<u32>> = training
            .iter()
            .map(|image| image.terms.iter().map(|t| t.term).collect())
            .collect();
        let examples = training.iter().zip(&terms).map(|(image, terms)| Example {
            terms,
            word: &image.ocr,
        });
        let model = Model::train(examples, codebook.terms(), options);
        let stride = training.len().div_ceil(SCALE_SAMPLE).max(1);
        let sample = training
            .iter()
            .step_by(stride)
            .map(|i| (i.terms.as_slice(), i.width));
        let scale = Likelihoods::scale(&model, sample);
        Learned {
            codebook,
            model,
            scale,
        }
    }

    /// The stored row of an image already quantised by this vocabulary.
    pub fn row(&self, image: &TermImage) -> StoredRow {
        let likelihoods = Likelihoods::of(&self.model, &image.terms, image.width);
        StoredRow::of(&likelihoods, self.scale)
    }

    /// The stored row of an image over the columns of `classes` (another
    /// model's, all of which this one models when it was learned from
    /// more images), quantised against `scale`: a class this model does
    /// not model gets 0.
    pub fn row_over(&self, image: &TermImage, classes: &[Bigram], scale: f32) -> StoredRow {
        let full = Likelihoods::of(&self.model, &image.terms, image.width);
        let (values, positions) = (classes.iter())
            .map(|&q| {
                self.model
                    .column(q)
                    .and_then(|c| Some((*full.values.get(c)?, *full.positions.get(c)?)))
                    .unwrap_or((0.0, 0))
            })
            .unzip();
        StoredRow::of(&Likelihoods { values, positions }, scale)
    }
}

/// The widths expected of letters, learned from `images`' OCR words and
/// widths; none when too few hold a word. Learned with the model when it
/// is relearned, not by [`Learned::from_terms`]: an add that keeps the
/// model keeps its widths too.
pub fn widths_of(images: &[TermImage]) -> Option<WordWidths> {
    WordWidths::learn(images.iter().map(|i| (i.ocr.as_str(), i.width)))
}

/// Up to `limit` descriptors taken evenly from the images' keypoints: the
/// sample a vocabulary is learned from.
pub fn sample(images: &[WordImage], limit: usize) -> Vec<Vector> {
    let total: usize = images.iter().map(|i| i.keypoints.len()).sum();
    let stride = total.div_ceil(limit.max(1)).max(1);
    images
        .iter()
        .flat_map(|i| i.keypoints.iter())
        .step_by(stride)
        .map(|k| k.descriptor)
        .collect()
}
