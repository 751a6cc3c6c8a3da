//! Word-image search against a rendered page set (thesis 7.3.4.3): mean
//! average precision of text queries over the word images of the last
//! pages, ranked by their OCR words alone, by their images alone (union
//! and intersection models) and by both.
//!
//! A set is a directory with `pages/*.png`, each with its OCR beside it
//! (`.hocr` or `.xml` ALTO, same stem), and `truth.tsv` (`page x0 y0 x1 y1
//! word`, page = image file name): the words as rendered. The word images
//! are those `images add` finds ([`Page::words`]); each takes the truth
//! word of the box it overlaps most (intersection over union at least ½),
//! or none. The first
//! [`EvalOptions::train_share`] of the pages (by name) train the vocabulary
//! and the model, labelled by their OCR words only; the rest are searched.
//! Queries are every truth word (punctuation dropped, case kept) that
//! occurs at least [`EvalOptions::min_occurrences`] times in the searched
//! pages; an image is relevant to a query when its truth word is the
//! query. MAP is measured over the relevant images, and over every
//! occurrence of the query in the searched pages ([`EveryOccurrence`]),
//! where an occurrence no word image holds counts as never found: the
//! first rewards boxes that leave the hard words out, the second does not. Every figure is measured twice: with case kept, and with case
//! ignored (queries and truth words in small letters, searched with
//! [`SpotOptions::ignore_case`]), where "fanny" asks for every "Fanny".

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use image::GrayImage;
use stemmata::images::bigrams::search_form;
use stemmata::images::codebook::Codebook;
use stemmata::images::descriptor::Normalisation;
use stemmata::images::learn::{
    quantise_all, sample, widths_of, word_images, LearnOptions, Learned, WordImage,
};
use stemmata::images::model::{Learning, Model};
use stemmata::images::ocr::{read_ocr, OcrWord};
use stemmata::images::pages::found_words;
use stemmata::images::spot::{Matrix, Query, SpotOptions};
use stemmata::images::widths::{stored_width, WordWidths};
use stemmata::images::WordBox;
use stemmata::{Error, Result};

/// What an evaluation does.
#[derive(Debug, Clone, Copy)]
pub struct EvalOptions {
    /// Share of the pages, first by name, that train.
    pub train_share: f64,
    /// Least occurrences in the searched pages for a word to be a query.
    pub min_occurrences: usize,
    /// Vocabulary and model options (the learning is set per run).
    pub learn: LearnOptions,
    /// λM and λC of the combined runs.
    pub spot: SpotOptions,
    /// How word images are described (in memory; an index describes its
    /// pages as its vocabulary says).
    pub normalisation: Normalisation,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            train_share: 0.8,
            min_occurrences: 3,
            learn: LearnOptions::default(),
            spot: SpotOptions::default(),
            normalisation: Normalisation::DEFAULT,
        }
    }
}

/// One page of a set: its image, its OCR words and its truth words.
pub struct Page {
    /// The image file's name.
    pub name: String,
    /// The page image.
    pub image: GrayImage,
    /// The OCR's words with their boxes.
    pub ocr: Vec<(WordBox, String)>,
    /// The word images as `images add` stores them
    /// (`stemmata::images::pages::found_words`): the OCR's words in the
    /// boxes found from the ink, and the words found along the page's
    /// text lines, without OCR word.
    pub words: Vec<(WordBox, String)>,
    /// The rendered words with their boxes.
    pub truth: Vec<(WordBox, String)>,
}

/// MAP of each method over one set, in one case mode.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Maps {
    /// Queries run.
    pub queries: usize,
    /// MAP ranking by the OCR words alone (q-gram similarity).
    pub ocr: f64,
    /// MAP by the images alone, union model.
    pub union: f64,
    /// MAP by the images alone, intersection model.
    pub intersection: f64,
    /// MAP of images and OCR combined, union model.
    pub combined_union: f64,
    /// MAP of images and OCR combined, intersection model.
    pub combined_intersection: f64,
    /// MAP over every occurrence of the query in the searched pages, the
    /// intersection model's: the relevant images found, ranked, against
    /// all the query's truth words, so that an occurrence no word image
    /// holds counts as never found.
    pub every_occurrence: EveryOccurrence,
}

/// MAP over every occurrence of each query in the searched pages.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct EveryOccurrence {
    /// Ranking by the OCR words alone.
    pub ocr: f64,
    /// By the images alone.
    pub images: f64,
    /// By both.
    pub combined: f64,
}

/// The figures of one set.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ImageEval {
    /// Pages trained on and searched.
    pub pages: (usize, usize),
    /// Word images searched.
    pub images: usize,
    /// Share of the searched pages' truth words whose OCR box reads them
    /// exactly (punctuation dropped).
    pub ocr_word_accuracy: f64,
    /// Share of the searched pages' truth words that an OCR box overlaps
    /// at an intersection over union of ½: the recall the OCR's boxes
    /// would allow.
    pub ocr_box_ceiling: f64,
    /// The same for the word images' boxes (found from the ink): the
    /// recall a full ranking reaches.
    pub ceiling: f64,
    /// Modelled letter-bigram classes (intersection model).
    pub classes: usize,
    /// MAPs with case kept.
    #[serde(flatten)]
    pub as_typed: Maps,
    /// MAPs with case ignored.
    pub ignore_case: Maps,
}

/// The two case modes, as typed first.
const CASE_MODES: [bool; 2] = [false, true];

/// `word` as a query of the case mode: in small letters when case is
/// ignored.
fn in_case_mode(word: &str, ignore_case: bool) -> String {
    match ignore_case {
        true => word.to_lowercase(),
        false => word.to_string(),
    }
}

/// The queries of `pages` ([`queries`]) and each image's truth word, in
/// the case mode.
fn queries_and_truth(
    pages: &[Page],
    truth: &[Option<String>],
    min_occurrences: usize,
    ignore_case: bool,
) -> (Vec<String>, Vec<Option<String>>) {
    let truth = (truth.iter())
        .map(|t| t.as_deref().map(|t| in_case_mode(t, ignore_case)))
        .collect();
    (queries(pages, min_occurrences, ignore_case), truth)
}

/// Reads the set in `dir`.
pub fn read_set(dir: &Path) -> Result<Vec<Page>> {
    let truth = read_truth(&dir.join("truth.tsv"))?;
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.join("pages"))
        .map_err(|e| io_error(e, &dir.join("pages")))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|path| {
            let name = file_name(&path);
            let image = image::open(&path)
                .map_err(|e| Error::InvalidArgument(format!("{}: {e}", path.display())))?
                .to_luma8();
            let ocr_words = read_page_ocr(&path)?;
            let words = (found_words(&image, &ocr_words).into_iter())
                .map(|found| (found.bbox, found.text))
                .collect();
            let ocr = (ocr_words.into_iter()).map(|w| (w.bbox, w.text)).collect();
            let truth = truth.get(&name).cloned().unwrap_or_default();
            Ok(Page {
                name,
                image,
                ocr,
                words,
                truth,
            })
        })
        .collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn io_error(source: std::io::Error, path: &Path) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The OCR words of the page image at `path`, from its `.hocr` or `.xml`.
fn read_page_ocr(path: &Path) -> Result<Vec<OcrWord>> {
    let candidates = [path.with_extension("hocr"), path.with_extension("xml")];
    let Some(ocr_path) = candidates.iter().find(|p| p.exists()) else {
        return Err(Error::InvalidArgument(format!(
            "{}: no OCR beside it (.hocr or .xml)",
            path.display()
        )));
    };
    let bytes = std::fs::read(ocr_path).map_err(|e| io_error(e, ocr_path))?;
    let pages = read_ocr(&bytes, ocr_path)?;
    Ok(pages.into_iter().flat_map(|p| p.words).collect())
}

/// `truth.tsv`: words by page name, in file order.
fn read_truth(path: &Path) -> Result<HashMap<String, Vec<(WordBox, String)>>> {
    let text = std::fs::read_to_string(path).map_err(|e| io_error(e, path))?;
    let mut pages: HashMap<String, Vec<(WordBox, String)>> = HashMap::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let bad = || {
            Error::InvalidArgument(format!(
                "{}:{}: not page x0 y0 x1 y1 word",
                path.display(),
                n + 1
            ))
        };
        if fields.len() != 6 {
            return Err(bad());
        }
        let number = |i: usize| fields[i].parse::<u32>().map_err(|_| bad());
        let bbox = WordBox {
            x0: number(1)?,
            y0: number(2)?,
            x1: number(3)?,
            y1: number(4)?,
        };
        pages
            .entry(fields[0].to_string())
            .or_default()
            .push((bbox, fields[5].to_string()));
    }
    Ok(pages)
}

/// Least intersection over union for two boxes to hold one word.
const MATCH_OVERLAP: f64 = 0.5;

/// The word of the box in `words` that overlaps `bbox` most, with an
/// intersection over union of at least [`MATCH_OVERLAP`].
fn word_over<'a>(bbox: &WordBox, words: &'a [(WordBox, String)]) -> Option<&'a str> {
    words
        .iter()
        .map(|(other, word)| (bbox.overlap(other), word))
        .filter(|(o, _)| *o >= MATCH_OVERLAP)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, word)| word.as_str())
}

/// The truth word (search form) of each word image, if one overlaps it
/// enough.
fn truth_of_boxes(page: &Page) -> Vec<Option<String>> {
    page.words
        .iter()
        .map(|(bbox, _)| word_over(bbox, &page.truth).map(search_form))
        .collect()
}

/// Share of the pages' truth words of a non-empty search form for which
/// `holds(page, box, search form)` does (0 without any).
fn share_of_truth_words<'a>(
    pages: &[&'a Page],
    holds: impl Fn(&'a Page, &WordBox, &str) -> bool,
) -> f64 {
    let (mut held, mut total) = (0usize, 0usize);
    for &page in pages {
        for (bbox, word) in &page.truth {
            let truth = search_form(word);
            if truth.is_empty() {
                continue;
            }
            total += 1;
            held += usize::from(holds(page, bbox, &truth));
        }
    }
    if total == 0 {
        0.0
    } else {
        held as f64 / total as f64
    }
}

/// Share of the pages' truth words that one of `boxes` of their page
/// overlaps enough to be found: the recall a full ranking of those boxes
/// reaches.
fn recall_ceiling<'a>(pages: &[&'a Page], boxes: impl Fn(&'a Page) -> &'a [WordBox]) -> f64 {
    share_of_truth_words(pages, |page, bbox, _| {
        (boxes(page).iter()).any(|other| bbox.overlap(other) >= MATCH_OVERLAP)
    })
}

/// The recall ceiling of the boxes of the words `words_of` each page of
/// `pages` (its OCR's words, or its word images).
fn ceiling_of<'a>(
    pages: &[&'a Page],
    words_of: impl Fn(&'a Page) -> &'a [(WordBox, String)],
) -> f64 {
    let boxes: HashMap<&str, Vec<WordBox>> = (pages.iter())
        .map(|&p| {
            let boxes = words_of(p).iter().map(|(bbox, _)| *bbox).collect();
            (p.name.as_str(), boxes)
        })
        .collect();
    recall_ceiling(pages, |p| {
        boxes.get(p.name.as_str()).map_or(&[], Vec::as_slice)
    })
}

/// Share of the pages' truth words some OCR box reads exactly.
fn ocr_word_accuracy(pages: &[&Page]) -> f64 {
    share_of_truth_words(pages, |page, bbox, truth| {
        word_over(bbox, &page.ocr).is_some_and(|text| search_form(text) == truth)
    })
}

/// Evaluates the set `pages`.
pub fn evaluate(pages: &[Page], options: &EvalOptions) -> ImageEval {
    let split = ((pages.len() as f64 * options.train_share).round() as usize)
        .clamp(1, pages.len().saturating_sub(1).max(1));
    let (train, test) = pages.split_at(split.min(pages.len()));
    let training: Vec<WordImage> = train
        .iter()
        .flat_map(|p| word_images(&p.image, &p.words, options.normalisation))
        .collect();
    let searched: Vec<WordImage> = test
        .iter()
        .flat_map(|p| word_images(&p.image, &p.words, options.normalisation))
        .collect();
    let truth: Vec<Option<String>> = test.iter().flat_map(truth_of_boxes).collect();
    let test_refs: Vec<&Page> = test.iter().collect();
    let mut eval = ImageEval {
        pages: (train.len(), test.len()),
        images: searched.len(),
        ocr_word_accuracy: ocr_word_accuracy(&test_refs),
        ocr_box_ceiling: ceiling_of(&test_refs, |p| &p.ocr),
        ceiling: ceiling_of(&test_refs, |p| &p.words),
        classes: 0,
        as_typed: Maps::default(),
        ignore_case: Maps::default(),
    };
    let codebook = Codebook::train(
        &sample(&training, options.learn.sample),
        options.learn.branching,
        options.normalisation,
    );
    let training = quantise_all(&codebook, &training);
    let searched = quantise_all(&codebook, &searched);
    let letter_widths = widths_of(&training);
    for learning in [Learning::Union, Learning::Intersection] {
        let mut model = options.learn.model;
        model.learning = learning;
        let learned = Learned::from_terms(codebook.clone(), &training, model);
        let rows: Vec<_> = searched.iter().map(|image| learned.row(image)).collect();
        let ocr: Vec<String> = searched.iter().map(|image| image.ocr.clone()).collect();
        let widths = searched.iter().map(|i| stored_width(i.width)).collect();
        let matrix = Matrix::new(&rows, ocr, learned.model.classes().len()).with_widths(widths);
        if learning == Learning::Intersection {
            eval.classes = learned.model.classes().len();
        }
        for ignore_case in CASE_MODES {
            let (queries, truth) =
                queries_and_truth(test, &truth, options.min_occurrences, ignore_case);
            let occurrences = occurrences(test, ignore_case);
            let maps_at = |image_weight: f64| {
                let spot = SpotOptions {
                    image_weight,
                    ignore_case,
                    ..options.spot
                };
                let scorer = (&learned.model, letter_widths.as_ref());
                mean_average_precision(&matrix, scorer, &queries, &truth, &occurrences, &spot)
            };
            let map = |image_weight: f64| maps_at(image_weight).0;
            let maps = match ignore_case {
                true => &mut eval.ignore_case,
                false => &mut eval.as_typed,
            };
            maps.queries = queries.len();
            match learning {
                Learning::Union => {
                    maps.union = map(1.0);
                    maps.combined_union = map(options.spot.image_weight);
                    maps.ocr = map(0.0);
                }
                Learning::Intersection => {
                    let (images, combined, ocr) = (
                        maps_at(1.0),
                        maps_at(options.spot.image_weight),
                        maps_at(0.0),
                    );
                    maps.intersection = images.0;
                    maps.combined_intersection = combined.0;
                    maps.every_occurrence = EveryOccurrence {
                        ocr: ocr.1,
                        images: images.1,
                        combined: combined.1,
                    };
                }
            }
        }
    }
    eval
}

/// Every truth word occurring at least `min` times in `pages` (in small
/// letters when case is ignored), sorted.
fn queries(pages: &[Page], min: usize, ignore_case: bool) -> Vec<String> {
    (occurrences(pages, ignore_case).into_iter())
        .filter(|&(_, n)| n >= min.max(1))
        .map(|(w, _)| w)
        .collect()
}

/// How often each truth word (its search form, in small letters when case
/// is ignored) occurs in `pages`.
fn occurrences(pages: &[Page], ignore_case: bool) -> BTreeMap<String, usize> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for page in pages {
        for (_, word) in &page.truth {
            let form = in_case_mode(&search_form(word), ignore_case);
            if !form.is_empty() {
                *counts.entry(form).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// MAP over `queries`, each formed under `model` and its images held to
/// `widths`, two ways: each query's average precision over the
/// images whose truth word it is, ranking all images; and over its
/// `occurrences` in the searched pages, where an occurrence no image holds
/// counts as never found (a query no image holds has 0). A query the model
/// cannot form counts in neither.
fn mean_average_precision(
    matrix: &Matrix,
    (model, widths): (&Model, Option<&WordWidths>),
    queries: &[String],
    truth: &[Option<String>],
    occurrences: &BTreeMap<String, usize>,
    spot: &SpotOptions,
) -> (f64, f64) {
    let (mut over_images, mut over_occurrences) = (0.0, 0.0);
    let (mut counted, mut formed) = (0usize, 0usize);
    for word in queries {
        let relevant = truth.iter().filter(|t| t.as_deref() == Some(word)).count();
        let Some(query) = Query::new(word, model, spot.ignore_case) else {
            continue;
        };
        let query = query.with_widths(widths);
        formed += 1;
        if relevant == 0 {
            continue;
        }
        let occurring = occurrences.get(word).copied().unwrap_or(0);
        let ranked = matrix.top(&query, spot, 0);
        let hits = ranked
            .iter()
            .map(|(image, _)| truth[*image as usize].as_deref() == Some(word));
        let (over_relevant, over_occurring) = average_precisions(hits, relevant, occurring);
        over_images += over_relevant;
        over_occurrences += over_occurring;
        counted += 1;
    }
    let mean = |sum: f64, n: usize| if n == 0 { 0.0 } else { sum / n as f64 };
    (mean(over_images, counted), mean(over_occurrences, formed))
}

/// The average precision of a ranking whose images are relevant where
/// `hits` says, two ways: over its `relevant` images, and over the
/// query's `occurring` truth words, where only the first `occurring`
/// relevant images count (two boxes over one word are one occurrence
/// found) and an occurrence no image holds counts as never found.
fn average_precisions(
    hits: impl Iterator<Item = bool>,
    relevant: usize,
    occurring: usize,
) -> (f64, f64) {
    let (mut found, mut sum, mut sum_occurring) = (0usize, 0.0, 0.0);
    for (rank, hit) in hits.enumerate() {
        if !hit {
            continue;
        }
        found += 1;
        let precision = found as f64 / (rank + 1) as f64;
        sum += precision;
        if found <= occurring {
            sum_occurring += precision;
        }
        if found == relevant {
            break;
        }
    }
    let share = |sum: f64, n: usize| if n == 0 { 0.0 } else { sum / n as f64 };
    (share(sum, relevant), share(sum_occurring, occurring))
}

/// The quality gates of `stemmata eval-images`, checked on each set. The
/// figures gated are the intersection model's, the library's default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gates {
    /// Combined MAP must reach OCR-alone MAP plus this on every degraded
    /// set (OCR word accuracy under [`Gates::degraded_below`]): where the
    /// OCR misreads words, the images must add to it. On every other set,
    /// the combined MAP must reach the OCR alone's: where the OCR reads
    /// nearly every word the images have nothing to add, and must not
    /// take from it.
    pub combined_margin: Option<f64>,
    /// The same margin with case ignored, where it differs from
    /// [`Gates::combined_margin`] (`None`: the same). The OCR alone finds
    /// more with case ignored (rendered blackletter, 36 searched pages:
    /// 0.956 against 0.945), which leaves the images less to add.
    pub ignore_case_margin: Option<f64>,
    /// OCR word accuracy under which a set counts as degraded.
    pub degraded_below: f64,
    /// Images-alone MAP must reach this on every set whose OCR word
    /// accuracy is under [`Gates::images_below`]: where the OCR fails,
    /// the images must find the words by themselves.
    pub images: Option<f64>,
    /// OCR word accuracy under which [`Gates::images`] applies.
    pub images_below: f64,
    /// Images-alone MAP of the intersection model must reach the union
    /// model's on every set.
    pub intersection: bool,
    /// The word images' boxes must reach this recall ceiling
    /// ([`ImageEval::ceiling`]) on every set.
    pub ceiling: Option<f64>,
    /// Combined MAP must reach images-alone MAP (intersection model) on
    /// every set, in both case modes: the OCR's readings must not take
    /// from the images, whatever the OCR reads.
    pub combined_over_images: bool,
}

impl Default for Gates {
    /// No gate; a set is degraded under 93% OCR word accuracy (a book face
    /// Tesseract reads 95% of, dust and dropouts on the page, still has an
    /// OCR MAP of 0.99 and no room for a margin), and the images gate
    /// applies under 90%.
    fn default() -> Self {
        Gates {
            combined_margin: None,
            ignore_case_margin: None,
            degraded_below: 0.93,
            images: None,
            images_below: 0.90,
            intersection: false,
            ceiling: None,
            combined_over_images: false,
        }
    }
}

/// One gate checked on one set.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GateCheck {
    /// What was required, e.g. `combined >= ocr + 0.02`.
    pub gate: String,
    /// The set's figure.
    pub figure: f64,
    /// The least figure that passes.
    pub needed: f64,
    /// Whether the figure reaches it.
    pub passed: bool,
}

impl Gates {
    /// The gates that apply to a set with the figures `eval`, checked in
    /// both case modes (a gate of the case-ignoring mode says so), but the
    /// images-alone gate, checked with case kept only: with case ignored a
    /// query's relevant images hold each form of the word ("the" and
    /// "The"), and images alone find both less well (rendered blackletter:
    /// 0.798 against 0.817), while the combined score still gains on the
    /// OCR alone in both modes.
    pub fn check(&self, eval: &ImageEval) -> Vec<GateCheck> {
        let mut checks = Vec::new();
        if let Some(least) = self.ceiling {
            checks.push(GateCheck {
                gate: format!("recall ceiling of the boxes >= {least}"),
                figure: eval.ceiling,
                needed: least,
                passed: eval.ceiling >= least,
            });
        }
        for (maps, mode) in [(&eval.as_typed, ""), (&eval.ignore_case, ", ignore case")] {
            let mut gate = |gate: String, figure: f64, needed: f64| {
                checks.push(GateCheck {
                    gate: format!("{gate}{mode}"),
                    figure,
                    needed,
                    passed: figure >= needed,
                })
            };
            let margin = match mode.is_empty() {
                true => self.combined_margin,
                false => self.ignore_case_margin.or(self.combined_margin),
            };
            if let Some(margin) = margin {
                let below = self.degraded_below;
                let (required, needed) = match eval.ocr_word_accuracy < below {
                    true => (
                        format!("ocr + {margin} (ocr wa < {below})"),
                        maps.ocr + margin,
                    ),
                    false => (format!("ocr (ocr wa >= {below})"), maps.ocr),
                };
                gate(
                    format!("combined >= {required}"),
                    maps.combined_intersection,
                    needed,
                );
            }
            if let Some(least) = self.images.filter(|_| mode.is_empty()) {
                if eval.ocr_word_accuracy < self.images_below {
                    gate(
                        format!("images >= {least} (ocr wa < {})", self.images_below),
                        maps.intersection,
                        least,
                    );
                }
            }
            if self.intersection {
                gate(
                    "intersection >= union".to_string(),
                    maps.intersection,
                    maps.union,
                );
            }
            if self.combined_over_images {
                gate(
                    "combined >= images".to_string(),
                    maps.combined_intersection,
                    maps.intersection,
                );
            }
        }
        checks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(
        ocr_word_accuracy: f64,
        ocr: f64,
        union: f64,
        intersection: f64,
        combined: f64,
    ) -> ImageEval {
        let maps = Maps {
            queries: 100,
            ocr,
            union,
            intersection,
            combined_union: 0.0,
            combined_intersection: combined,
            every_occurrence: EveryOccurrence::default(),
        };
        ImageEval {
            pages: (32, 8),
            images: 1000,
            ocr_word_accuracy,
            ocr_box_ceiling: 1.0,
            ceiling: 1.0,
            classes: 300,
            as_typed: maps,
            ignore_case: maps,
        }
    }

    /// The checks of the case-kept mode; those of the other mode, on the
    /// same figures, must agree with them.
    fn as_typed(checks: Vec<GateCheck>) -> Vec<GateCheck> {
        let (folded, typed): (Vec<GateCheck>, Vec<GateCheck>) = checks
            .into_iter()
            .partition(|c| c.gate.ends_with(", ignore case"));
        for b in &folded {
            let a = typed
                .iter()
                .find(|a| format!("{}, ignore case", a.gate) == b.gate)
                .expect("the same gate with case kept");
            assert_eq!(
                (a.figure, a.needed, a.passed),
                (b.figure, b.needed, b.passed)
            );
        }
        let images = typed
            .iter()
            .filter(|c| c.gate.starts_with("images"))
            .count();
        assert_eq!(typed.len(), folded.len() + images);
        typed
    }

    fn all_gates() -> Gates {
        Gates {
            combined_margin: Some(0.02),
            images: Some(0.80),
            intersection: true,
            ..Gates::default()
        }
    }

    fn failed(checks: &[GateCheck]) -> Vec<&str> {
        checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.gate.split(' ').next().unwrap_or_default())
            .collect()
    }

    #[test]
    fn the_ceiling_counts_truth_words_a_box_overlaps_by_half_punctuation_left_out() {
        let boxed = |x0, x1| WordBox {
            x0,
            y0: 0,
            x1,
            y1: 10,
        };
        let page = Page {
            name: "p.png".into(),
            image: GrayImage::new(1, 1),
            // Over "the" by 9/11, over "cat" by 4/16.
            ocr: vec![(boxed(0, 9), "tho".into()), (boxed(26, 30), "cat".into())],
            // The second found from the ink: over "cat" by 9/10.
            words: vec![(boxed(0, 9), "tho".into()), (boxed(21, 30), "cat".into())],
            truth: vec![
                (boxed(0, 10), "the".into()),
                (boxed(20, 30), "cat".into()),
                (boxed(31, 33), ",".into()),
            ],
        };
        assert_eq!(ceiling_of(&[&page], |p| &p.ocr), 0.5);
        assert_eq!(ceiling_of(&[&page], |p| &p.words), 1.0);
        assert_eq!(ocr_word_accuracy(&[&page]), 0.0);
    }

    #[test]
    fn the_ceiling_gate_holds_the_boxes_recall_ceiling_once_per_set() {
        let gates = Gates {
            ceiling: Some(0.95),
            ..Gates::default()
        };
        let mut low = eval(0.99, 0.99, 0.8, 0.8, 0.99);
        low.ceiling = 0.94;
        let checks = gates.check(&low);
        assert_eq!(checks.len(), 1);
        assert_eq!((checks[0].figure, checks[0].passed), (0.94, false));
        low.ceiling = 0.95;
        assert!(gates.check(&low)[0].passed);
    }

    #[test]
    fn an_occurrence_no_image_holds_counts_as_never_found() {
        let ranking = [true, false, true, false];
        // Two relevant images at ranks 1 and 3: 1 and 2/3.
        let (relevant, occurring) = average_precisions(ranking.into_iter(), 2, 4);
        assert!(
            (relevant - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12,
            "{relevant}"
        );
        assert!(
            (occurring - (1.0 + 2.0 / 3.0) / 4.0).abs() < 1e-12,
            "{occurring}"
        );
        // Two boxes over one occurrence: the second finds nothing more.
        let (relevant, occurring) = average_precisions(ranking.into_iter(), 2, 1);
        assert!(
            (relevant - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12,
            "{relevant}"
        );
        assert_eq!(occurring, 1.0);
        assert_eq!(average_precisions(ranking.into_iter(), 0, 0), (0.0, 0.0));
    }

    #[test]
    fn no_gate_checks_nothing() {
        assert!(Gates::default()
            .check(&eval(0.3, 0.5, 0.9, 0.1, 0.2))
            .is_empty());
    }

    #[test]
    fn a_clean_set_must_not_lose_to_the_ocr_alone() {
        // OCR reads nearly every word: the images cannot add 0.02 to a MAP
        // of 0.999, and are not asked to, but must not take from it.
        let checks = as_typed(all_gates().check(&eval(0.995, 0.999, 0.827, 0.856, 0.999)));
        let gates: Vec<&str> = checks.iter().map(|c| c.gate.as_str()).collect();
        assert_eq!(
            gates,
            ["combined >= ocr (ocr wa >= 0.93)", "intersection >= union"]
        );
        assert!(checks.iter().all(|c| c.passed));
        let checks = as_typed(all_gates().check(&eval(0.995, 0.999, 0.827, 0.856, 0.994)));
        assert_eq!(failed(&checks), ["combined"]);
        let checks = as_typed(all_gates().check(&eval(0.995, 0.999, 0.86, 0.856, 0.999)));
        assert_eq!(failed(&checks), ["intersection"]);
    }

    #[test]
    fn a_degraded_set_must_gain_the_margin() {
        // 0.92 word accuracy: degraded (under 0.93) but over 0.90.
        let checks = as_typed(all_gates().check(&eval(0.92, 0.935, 0.770, 0.818, 0.966)));
        assert_eq!(checks.len(), 2);
        assert!(checks.iter().all(|c| c.passed));
        assert!((checks[0].needed - 0.955).abs() < 1e-12);
        let checks = as_typed(all_gates().check(&eval(0.92, 0.935, 0.770, 0.818, 0.950)));
        assert_eq!(failed(&checks), ["combined"]);
    }

    #[test]
    fn each_case_mode_is_gated_on_its_own_figures() {
        let mut figures = eval(0.92, 0.935, 0.770, 0.818, 0.966);
        figures.ignore_case.combined_intersection = 0.950;
        let checks = all_gates().check(&figures);
        assert_eq!(checks.len(), 4);
        assert!(checks.iter().all(|c| !c.gate.starts_with("images")));
        let failed: Vec<&str> = (checks.iter())
            .filter(|c| !c.passed)
            .map(|c| c.gate.as_str())
            .collect();
        assert_eq!(
            failed,
            ["combined >= ocr + 0.02 (ocr wa < 0.93), ignore case"]
        );
    }

    #[test]
    fn a_margin_of_its_own_holds_the_case_ignoring_mode() {
        let mut figures = eval(0.89, 0.945, 0.72, 0.76, 0.969);
        figures.ignore_case.ocr = 0.956;
        figures.ignore_case.combined_intersection = 0.9735;
        let gates = |ignore_case_margin| Gates {
            ignore_case_margin,
            ..all_gates()
        };
        let margins = |checks: &[GateCheck]| -> Vec<(String, bool)> {
            (checks.iter())
                .filter(|c| c.gate.starts_with("combined"))
                .map(|c| (c.gate.clone(), c.passed))
                .collect()
        };
        assert_eq!(
            margins(&gates(None).check(&figures)),
            [
                ("combined >= ocr + 0.02 (ocr wa < 0.93)".to_string(), true),
                (
                    "combined >= ocr + 0.02 (ocr wa < 0.93), ignore case".to_string(),
                    false
                ),
            ]
        );
        assert_eq!(
            margins(&gates(Some(0.015)).check(&figures)),
            [
                ("combined >= ocr + 0.02 (ocr wa < 0.93)".to_string(), true),
                (
                    "combined >= ocr + 0.015 (ocr wa < 0.93), ignore case".to_string(),
                    true
                ),
            ]
        );
    }

    #[test]
    fn images_alone_are_gated_with_case_kept_only() {
        let mut figures = eval(0.383, 0.575, 0.668, 0.850, 0.900);
        figures.ignore_case.intersection = 0.700;
        let checks = all_gates().check(&figures);
        let images: Vec<&GateCheck> = (checks.iter())
            .filter(|c| c.gate.starts_with("images"))
            .collect();
        assert_eq!(images.len(), 1);
        assert_eq!((images[0].figure, images[0].passed), (0.850, true));
    }

    #[test]
    fn the_combination_must_reach_the_images_alone_on_every_set() {
        let gates = Gates {
            combined_over_images: true,
            ..Gates::default()
        };
        // A book face: the combination far above the images.
        let checks = as_typed(gates.check(&eval(0.99, 0.990, 0.80, 0.850, 0.995)));
        assert_eq!(checks.len(), 1);
        assert_eq!((checks[0].figure, checks[0].needed), (0.995, 0.850));
        assert!(failed(&checks).is_empty());
        // Handwriting: the OCR's near readings pulling the images down.
        let checks = as_typed(gates.check(&eval(0.46, 0.680, 0.75, 0.822, 0.800)));
        assert_eq!(failed(&checks), ["combined"]);
        assert_eq!(checks[0].gate, "combined >= images");
    }

    #[test]
    fn images_alone_are_gated_under_the_images_accuracy() {
        let checks = as_typed(all_gates().check(&eval(0.383, 0.575, 0.668, 0.700, 0.710)));
        assert_eq!(checks.len(), 3);
        assert_eq!(failed(&checks), ["images"]);
        assert_eq!(checks[1].figure, 0.700);
        assert_eq!(checks[1].needed, 0.80);
        let lower = Gates {
            images: Some(0.65),
            ..all_gates()
        };
        assert!(lower
            .check(&eval(0.383, 0.575, 0.668, 0.700, 0.710))
            .iter()
            .all(|c| c.passed));
        // The thresholds are strict: a set right at them is held to no
        // margin and no images-alone figure, only to lose nothing.
        let at = Gates {
            degraded_below: 0.5,
            images_below: 0.5,
            ..all_gates()
        };
        let checks = as_typed(at.check(&eval(0.5, 0.575, 0.668, 0.600, 0.580)));
        let gates: Vec<&str> = checks.iter().map(|c| c.gate.as_str()).collect();
        assert_eq!(
            gates,
            ["combined >= ocr (ocr wa >= 0.5)", "intersection >= union"]
        );
    }
}

/// MAP of text queries over a rendered set added to an index as one book
/// with `stemmata images add` and searched with `stemmata spot`: every
/// page trains (by its OCR words) and is searched, as a library would use
/// it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IndexEval {
    /// Pages added.
    pub pages: usize,
    /// Word images in the index.
    pub images: usize,
    /// Share of the truth words whose OCR box reads them exactly.
    pub ocr_word_accuracy: f64,
    /// Share of the truth words an OCR box overlaps at an intersection
    /// over union of ½.
    pub ocr_box_ceiling: f64,
    /// Share of the truth words a box the index's hits report overlaps at
    /// an intersection over union of ½: the recall at full depth of every
    /// query.
    pub ceiling: f64,
    /// MAPs with case kept.
    #[serde(flatten)]
    pub as_typed: IndexMaps,
    /// MAPs with case ignored (`spot --ignore-case`).
    pub ignore_case: IndexMaps,
}

/// MAPs through the index in one case mode.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct IndexMaps {
    /// Queries run: every truth word occurring at least the least number
    /// of times in the set.
    pub queries: usize,
    /// MAP by the OCR words alone (`spot --ocr-weight 1`).
    pub ocr: f64,
    /// MAP by the images alone (`spot --ocr-weight 0`).
    pub images_alone: f64,
    /// MAP of the default mix (`spot`).
    pub combined: f64,
}

/// The page files of the set in `dir` (its `pages/`, with their OCR), in
/// the order of `pages`.
fn page_files(dir: &Path, pages: &[Page]) -> Result<Vec<stemmata::images::pages::PageFiles>> {
    pages
        .iter()
        .map(|p| stemmata::images::pages::PageFiles::beside(&dir.join("pages").join(&p.name)))
        .collect()
}

/// Adds the sets in `first`, each as a book, then the set in `dir` to a
/// new index in `index_dir` (which must not hold one), each by its own
/// `images add` with `options.learn`, and measures MAP through
/// [`stemmata::Index::word_images`] over the set's word images alone (the
/// other books' hits are passed over): with `first` given, what a book
/// added to a library scores, its model learned again or kept as
/// `options.learn.learn_from` decides.
pub fn evaluate_index(
    dir: &Path,
    first: &[PathBuf],
    index_dir: &Path,
    options: &EvalOptions,
) -> Result<IndexEval> {
    let index = stemmata::Index::create(index_dir)?;
    for (i, other) in first.iter().enumerate() {
        let files = page_files(other, &read_set(other)?)?;
        index.add_word_images(&format!("first-{i:03}"), &files, &options.learn, &|_| {})?;
    }
    let pages = read_set(dir)?;
    let files = page_files(dir, &pages)?;
    index.add_word_images("set", &files, &options.learn, &|_| {})?;
    let search = index.word_images()?.ok_or_else(|| {
        Error::InvalidArgument(format!("{}: no word images added", dir.display()))
    })?;
    let truth_by_page: HashMap<&str, &[(WordBox, String)]> = pages
        .iter()
        .map(|p| (p.name.as_str(), p.truth.as_slice()))
        .collect();
    // Each image's truth word, by image number, and the boxes of each
    // page, from one full ranking.
    let mut truth = vec![None; search.images()];
    let mut boxes: HashMap<String, Vec<WordBox>> = HashMap::new();
    let mut images = 0;
    for hit in search.spot("the", &options.spot, 0)? {
        if hit.key != "set" {
            continue;
        }
        images += 1;
        (boxes.entry(hit.page_name.clone()).or_default()).push(hit.bbox);
        let words = truth_by_page
            .get(hit.page_name.as_str())
            .copied()
            .unwrap_or(&[]);
        if let Some(slot) = truth.get_mut(hit.image as usize) {
            *slot = word_over(&hit.bbox, words).map(search_form);
        }
    }
    let map = |queries: &[String], truth: &[Option<String>], spot: SpotOptions| -> Result<f64> {
        let mut total = 0.0;
        let mut counted = 0usize;
        for word in queries {
            let relevant = truth.iter().filter(|t| t.as_deref() == Some(word)).count();
            if relevant == 0 {
                continue;
            }
            let hits = search.spot(word, &spot, 0)?;
            let relevant_at = (hits.iter().filter(|h| h.key == "set"))
                .map(|hit| truth.get(hit.image as usize).and_then(Option::as_deref) == Some(word));
            total += average_precisions(relevant_at, relevant, relevant).0;
            counted += 1;
        }
        Ok(if counted == 0 {
            0.0
        } else {
            total / counted as f64
        })
    };
    let maps = |ignore_case: bool| -> Result<IndexMaps> {
        let (queries, truth) =
            queries_and_truth(&pages, &truth, options.min_occurrences, ignore_case);
        let spot = |image_weight: f64| SpotOptions {
            image_weight,
            ignore_case,
            ..options.spot
        };
        Ok(IndexMaps {
            queries: queries.len(),
            ocr: map(&queries, &truth, spot(0.0))?,
            images_alone: map(&queries, &truth, spot(1.0))?,
            combined: map(&queries, &truth, spot(options.spot.image_weight))?,
        })
    };
    let all: Vec<&Page> = pages.iter().collect();
    Ok(IndexEval {
        pages: pages.len(),
        images,
        ocr_word_accuracy: ocr_word_accuracy(&all),
        ocr_box_ceiling: ceiling_of(&all, |p| &p.ocr),
        ceiling: recall_ceiling(&all, |p| boxes.get(&p.name).map_or(&[], Vec::as_slice)),
        as_typed: maps(false)?,
        ignore_case: maps(true)?,
    })
}
