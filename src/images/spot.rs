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
//! mixed as λM·NMRF_vq + (1 − λM)·MRF_qq (eq. 7.10), less the width part
//! β·r²/2, r the log ratio of the image's width to the width the model
//! expects of the query word, in spreads ([`super::widths`]; not the
//! thesis's); and, when the image has an OCR word, combined with the OCR
//! side, the normalised q-gram similarity S_q of the OCR word and the
//! query (eq. 7.29), as λC·image + (1 − λC)·S_q + R (eq. 7.30 with R
//! added).
//!
//! **An exact reading first.** R is 1 when the OCR word reads the query
//! (S_q = 1: the same bigrams, word ends included) and the OCR counts at
//! all (λC < 1), else 0. Eq. 7.30 alone lets a near reading with a likely
//! image ("then" for "the") pass an image the OCR read exactly, and so
//! ranked a book face the OCR reads right below the OCR alone (rendered
//! EB Garamond with noise: combined MAP 0.984 against 0.992). With R the
//! images the OCR reads as the query come first at any λC under 1
//! (unless an image's width is far from the word's), ordered by the mix,
//! and the mix orders the rest, where the OCR misread or boxed no word.
//! There the images know more than the OCR's near readings wherever the
//! OCR misreads much, so λC is 0.9 by default (benches/README.md, "The
//! rest ranked by the images"): on CI's rendered handwriting, combined
//! MAP rose from 0.800 at λC = ½ (where R weighed ½) to 0.864, above the
//! images alone (0.822), and on the book faces it moved by 0.002 at most
//! (down on the cleanest, where S_q finds the few misreadings best). The
//! images alone (λC = 1) and the OCR alone (λC = 0, R only lifting what
//! S_q already ranks first) rank as before.
//!
//! **Case.** By default a query matches as typed: "fanny" is not "Fanny",
//! whose capital looks different on the page. With
//! [`SpotOptions::ignore_case`] an image is scored as each form the word
//! takes in running text (as typed, in small letters, capitalised:
//! "fanny" and "Fanny"), and keeps its best image score; the OCR side
//! compares the query's and the OCR word's bigrams folded to small
//! letters. Taking the best of each bigram's case variants instead (a
//! per-bigram "fa", "Fa", "fA" or "FA") lifted every image's score with
//! forms no word has: on rendered blackletter, case-ignoring images-alone
//! MAP was 0.779 that way and 0.798 by forms (`stemmata eval-images`; a
//! capital form "FANNY" as well changed nothing).

use super::bigrams::{
    bigrams, bigrams_into, fold_case, folded_bigrams, qgram_similarity, Bigram, CLASSES,
};
use super::likelihood::StoredRow;
use super::model::Model;
use super::widths::WordWidths;
use crate::error::Result;
use std::ops::Range;

/// How the parts of a score are mixed.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpotOptions {
    /// λM: the likelihood part's weight against the order part.
    pub likelihood_weight: f64,
    /// λC: the image score's weight against the OCR similarity; 1 ranks by
    /// the images alone, 0 by the OCR words alone. Default 1 −
    /// [`OCR_WEIGHT`].
    pub image_weight: f64,
    /// Match the query whatever the case of its letters, on the image side
    /// and the OCR side (see the module docs). Off by default.
    #[serde(default)]
    pub ignore_case: bool,
    /// β: the weight of the width part, which holds an image's width
    /// against the query's expected width ([`super::widths`]); 0 leaves
    /// it out. Default [`WIDTH_WEIGHT`].
    #[serde(default = "default_width_weight")]
    pub width_weight: f64,
}

/// The OCR similarity's default weight, 1 − λC. At any weight above 0
/// the OCR's exact readings come first; the weight sets how much the
/// OCR's near readings count against the images in what follows. Chosen on CI's
/// rendered sets from 0.5, 0.4, 0.3, 0.2, 0.1 and 0.05, and checked on
/// fifteen sets of other texts, faces and degradations
/// (benches/README.md, "The rest ranked by the images").
pub const OCR_WEIGHT: f64 = 0.1;

/// The default β. Chosen on CI's rendered sets from 0.1 and 0.03 (0.1
/// took from the book face's images alone), then checked on eight sets
/// of other texts, faces and degradations: images-alone MAP rose on all
/// of them (benches/README.md, "Word widths").
pub const WIDTH_WEIGHT: f64 = 0.03;

fn default_width_weight() -> f64 {
    WIDTH_WEIGHT
}

impl Default for SpotOptions {
    fn default() -> Self {
        SpotOptions {
            likelihood_weight: 0.5,
            image_weight: 1.0 - OCR_WEIGHT,
            ignore_case: false,
            width_weight: WIDTH_WEIGHT,
        }
    }
}

impl SpotOptions {
    /// The default options with the OCR similarity weighing `ocr_weight`
    /// in the score (image weight 1 − `ocr_weight`: 0 ranks by the images
    /// alone, 1 by the OCR words alone); `None` outside 0..=1.
    pub fn with_ocr_weight(ocr_weight: f64) -> Option<SpotOptions> {
        (0.0..=1.0).contains(&ocr_weight).then(|| SpotOptions {
            image_weight: 1.0 - ocr_weight,
            ..SpotOptions::default()
        })
    }

    /// These options with the width part weighing `width_weight` (β);
    /// `None` unless it is a number of 0 or more.
    pub fn with_width_weight(self, width_weight: f64) -> Option<SpotOptions> {
        (width_weight >= 0.0 && width_weight.is_finite()).then_some(SpotOptions {
            width_weight,
            ..self
        })
    }
}

/// A query word as the scorer needs it.
#[derive(Debug, Clone)]
pub struct Query {
    /// Its bigrams in order (folded to small letters when case is
    /// ignored): what the OCR side compares.
    pub bigrams: Vec<Bigram>,
    /// The case forms an image is scored as, each its bigrams' columns in
    /// the model (`None`: not modelled), as many as [`Query::bigrams`]:
    /// the word as typed, and with case ignored its small and capitalised
    /// forms too (those that differ).
    pub forms: Vec<Vec<Option<u16>>>,
    /// Whether case is ignored.
    pub ignore_case: bool,
    /// Each form's text, in the order of [`Query::forms`].
    form_words: Vec<String>,
    /// The widths the images are held to, each with each form's expected
    /// width: first the collection's ([`Query::with_widths`]), then each
    /// book's own ([`Query::with_book_widths`]), as [`Rows::width_set`]
    /// numbers them; none held: no width part.
    widths: Vec<Option<(WordWidths, Vec<f32>)>>,
}

impl Query {
    /// The query for `word` under `model`, case ignored or not; `None`
    /// when the word has no letter or digit.
    pub fn new(word: &str, model: &Model, ignore_case: bool) -> Option<Query> {
        Query::with_classes(word, model.classes(), ignore_case)
    }

    /// The query for `word` over a model of the modelled `classes`
    /// (ascending), case ignored or not; `None` when the word has no
    /// letter or digit.
    pub fn with_classes(word: &str, classes: &[Bigram], ignore_case: bool) -> Option<Query> {
        let columns = |form: &str| -> Vec<Option<u16>> {
            let column = |b: &Bigram| classes.binary_search(b).ok().map(|c| c as u16);
            bigrams(form).iter().map(column).collect()
        };
        let compared = compared_bigrams(word, ignore_case);
        if compared.is_empty() {
            return None;
        }
        let (forms, form_words) = match ignore_case {
            false => (vec![columns(word)], vec![word.to_string()]),
            true => {
                let (mut forms, mut words): (Vec<Vec<Option<u16>>>, Vec<String>) =
                    Default::default();
                for form in case_forms(word) {
                    let columns = columns(&form);
                    if !forms.contains(&columns) {
                        forms.push(columns);
                        words.push(form);
                    }
                }
                (forms, words)
            }
        };
        Some(Query {
            bigrams: compared,
            forms,
            ignore_case,
            form_words,
            widths: Vec::new(),
        })
    }

    /// The query with its images held to `widths`, the collection's
    /// (none: no width part), in place of any held before.
    pub fn with_widths(mut self, widths: Option<&WordWidths>) -> Query {
        self.widths = vec![self.expecting(widths)];
        self
    }

    /// The query with the images of width set `n` ([`Rows::width_set`])
    /// held to the `n`-th of `own`, the widths of the books that have
    /// widths of their own, after the collection's ([`Query::with_widths`],
    /// none if not given). A query computes its expected widths once for
    /// each book that has some, not for every book of the collection.
    pub fn with_book_widths<'a>(mut self, own: impl IntoIterator<Item = &'a WordWidths>) -> Query {
        self.widths.truncate(1);
        self.widths.resize(1, None);
        for widths in own {
            let expecting = self.expecting(Some(widths));
            self.widths.push(expecting);
        }
        self
    }

    /// `widths` with each form's expected width under them.
    fn expecting(&self, widths: Option<&WordWidths>) -> Option<(WordWidths, Vec<f32>)> {
        widths.map(|w| {
            let expected = self.form_words.iter().map(|f| w.expected(f)).collect();
            (*w, expected)
        })
    }

    /// The width part's loss, before its weight, of an image of stored
    /// width `stored` held to width set `set`, scored as form `form`.
    fn width_loss(&self, form: usize, (stored, set): ImageWidth) -> f64 {
        match self.widths.get(set) {
            Some(Some((widths, expected))) => {
                expected.get(form).map_or(0.0, |&e| widths.loss(stored, e))
            }
            _ => 0.0,
        }
    }
}

/// The bigrams of `word` the OCR side compares: folded to small letters
/// when case is ignored.
fn compared_bigrams(word: &str, ignore_case: bool) -> Vec<Bigram> {
    match ignore_case {
        true => folded_bigrams(word),
        false => bigrams(word),
    }
}

/// The forms of `word` in running text: as typed, in small letters and
/// capitalised, in ASCII letters (the alphabet's only letters with two
/// cases), so every form has the word's bigrams' count.
fn case_forms(word: &str) -> [String; 3] {
    let small = word.to_ascii_lowercase();
    let mut capitalised = small.clone();
    if let Some(first) = capitalised.find(|c: char| c.is_ascii_alphabetic()) {
        capitalised[first..=first].make_ascii_uppercase();
    }
    [word.to_string(), small, capitalised]
}

/// The parts of one image's score.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Scores {
    /// NMRF_vq.
    pub likelihood: f64,
    /// MRF_qq.
    pub order: f64,
    /// What the image's width takes: β·r²/2 ([`super::widths`]), 0
    /// without widths.
    pub width: f64,
    /// λM·likelihood + (1 − λM)·order − width.
    pub image: f64,
    /// S_q of the OCR word (0 without one).
    pub ocr: f64,
    /// λC·image + (1 − λC)·ocr + R, R 1 where the OCR word reads the
    /// query (`ocr` is 1) and λC < 1, else 0: at most 2.
    pub combined: f64,
}

/// The scores of an image whose values for the query's bigrams are
/// `values` (one per bigram: a 16-bit value and a position, or none for a
/// bigram the model does not know), with OCR similarity `ocr`.
pub fn score(values: &[BigramValue], ocr: f64, options: &SpotOptions) -> Scores {
    let cells: Vec<Cell> = values.iter().map(|v| Cell::of(*v)).collect();
    score_cells(&cells, ocr, 0.0, options)
}

/// One image's value for one query bigram, packed: the value, and the
/// position plus one (0: no position; the class not kept, or not
/// modelled when `modelled` is false).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Cell {
    value: u16,
    position: u16,
    modelled: bool,
}

impl Cell {
    fn of(value: Option<(u16, Option<u8>)>) -> Cell {
        match value {
            None => Cell::default(),
            Some((value, position)) => Cell {
                value,
                position: position.map_or(0, |p| p as u16 + 1),
                modelled: true,
            },
        }
    }
}

/// The scores of one form's `cells`, with OCR similarity `ocr` and
/// width loss `width_loss` (before its weight).
fn score_cells(cells: &[Cell], ocr: f64, width_loss: f64, options: &SpotOptions) -> Scores {
    if cells.is_empty() {
        return Scores::default();
    }
    mix(
        likelihood_of(cells),
        order_of(cells),
        width_loss,
        ocr,
        options,
    )
}

/// NMRF_vq of one form's cells: the mean of their values as fractions of
/// the scale (an unmodelled bigram counts 0). The values are added as
/// integers, so the sum is exact whatever their order.
fn likelihood_of(cells: &[Cell]) -> f64 {
    let total: u64 = (cells.iter())
        .filter(|c| c.modelled)
        .map(|c| u64::from(c.value))
        .sum();
    total as f64 / u16::MAX as f64 / cells.len().max(1) as f64
}

/// MRF_qq of one form's cells: the share of their pairs whose positions
/// are in the query's order (a pair with a cell not kept is not).
fn order_of(cells: &[Cell]) -> f64 {
    let n = cells.len();
    let mut in_order = 0usize;
    for (i, a) in cells.iter().enumerate() {
        if a.position == 0 {
            continue;
        }
        for b in &cells[i + 1..] {
            // A pair best at one window (a tie) counts as in order.
            // Counting a tie as half stops short images (every bigram
            // best at one window) ranking high for long queries, but
            // lowered images-alone MAP on rendered blackletter and
            // handwriting (0.818 → 0.810, 0.700 → 0.692, `stemmata
            // eval-images`), where most queries are short words.
            in_order += usize::from(b.position != 0 && a.position <= b.position);
        }
    }
    let pairs = n * n.saturating_sub(1) / 2;
    if pairs == 0 {
        0.0
    } else {
        in_order as f64 / pairs as f64
    }
}

/// The scores of an image whose parts are `likelihood`, `order`, the
/// width loss `width_loss` and `ocr`.
fn mix(likelihood: f64, order: f64, width_loss: f64, ocr: f64, options: &SpotOptions) -> Scores {
    let weights = Weights::of(options);
    let width = options.width_weight.max(0.0) * width_loss;
    let image = weights.image(likelihood, order) - width;
    Scores {
        likelihood,
        order,
        width,
        image,
        ocr,
        combined: weights.combined(image, ocr),
    }
}

/// The weights of a score's parts, each within 0..=1.
#[derive(Debug, Clone, Copy)]
struct Weights {
    /// λM.
    likelihood: f64,
    /// λC.
    image: f64,
}

impl Weights {
    fn of(options: &SpotOptions) -> Weights {
        Weights {
            likelihood: options.likelihood_weight.clamp(0.0, 1.0),
            image: options.image_weight.clamp(0.0, 1.0),
        }
    }

    /// λM·likelihood + (1 − λM)·order.
    #[inline]
    fn image(&self, likelihood: f64, order: f64) -> f64 {
        self.likelihood * likelihood + (1.0 - self.likelihood) * order
    }

    /// λC·image + (1 − λC)·ocr + R, R 1 where `ocr` is 1 (the OCR word
    /// reads the query) and the OCR counts (λC < 1), else 0: monotone in
    /// both parts.
    #[inline]
    fn combined(&self, image: f64, ocr: f64) -> f64 {
        let reading = if ocr >= 1.0 && self.image < 1.0 {
            1.0
        } else {
            0.0
        };
        self.image * image + (1.0 - self.image) * ocr + reading
    }
}

/// A bound on the combined score [`best_form`] gives an image, cheaper
/// than the score: each form scored with its order part as if every pair
/// of its kept bigrams were in order (a pair with a bigram not kept never
/// is: k kept of n bigrams bound it by k(k−1)/2 of the n(n−1)/2 pairs,
/// divided as the score divides), its likelihood part a product in place
/// of two quotients, raised by far more than their rounding, and no width
/// part (which only takes). Every other step of the score is monotone in
/// its parts, floating point included, so the bound is never under the
/// score. Where the images weigh most (λC near 1), the order part's
/// slack is most of the bound's: taking it as 1 whenever two bigrams were
/// kept let through to full scoring every image that kept two.
struct Bound {
    /// Bigrams a form.
    n: usize,
    /// The form's pairs of bigrams, n(n−1)/2, as [`order_of`] counts them.
    pairs: usize,
    /// Over 1/(u16::MAX·n).
    per_value: f64,
    weights: Weights,
}

impl Bound {
    fn new(n: usize, options: &SpotOptions) -> Bound {
        Bound {
            n,
            pairs: n * n.saturating_sub(1) / 2,
            per_value: 1.0 / (u16::MAX as f64 * n.max(1) as f64) * (1.0 + 1e-9),
            weights: Weights::of(options),
        }
    }

    /// The bound for an image whose forms add up to `sums`, with OCR
    /// similarity `ocr`.
    #[inline]
    fn of(&self, sums: &[FormSum], ocr: f64) -> f64 {
        if self.n == 0 {
            return f64::INFINITY;
        }
        let form_image = |sum: &FormSum| {
            let kept = sum.kept as usize;
            let order = match self.pairs {
                0 => 0.0,
                pairs => (kept * kept.saturating_sub(1) / 2) as f64 / pairs as f64,
            };
            self.weights.image(sum.total as f64 * self.per_value, order)
        };
        let mut forms = sums.iter().map(form_image);
        let first = forms.next().unwrap_or(f64::NEG_INFINITY);
        self.weights.combined(forms.fold(first, f64::max), ocr)
    }
}

/// An image's value for one query bigram, as [`score`] takes it: a
/// 16-bit value and a position, or none for a bigram the model does not
/// know.
pub type BigramValue = Option<(u16, Option<u8>)>;

/// The values of a stored row for the bigrams of each of the query's
/// case forms, as [`score`] takes them.
pub fn row_values(query: &Query, row: &StoredRow) -> Vec<Vec<BigramValue>> {
    (query.forms.iter())
        .map(|form| form.iter().map(|c| c.map(|c| row.get(c))).collect())
        .collect()
}

/// An image's stored width ([`Rows::width`], 0: none) and the widths it
/// is held to ([`Rows::width_set`]).
type ImageWidth = (u16, usize);

/// The scores of a stored row for the query, with OCR similarity `ocr`,
/// of an image of stored width `width` (0: none) held to the collection's
/// widths: the scores of its best case form.
pub fn row_scores(
    query: &Query,
    row: &StoredRow,
    ocr: f64,
    width: u16,
    options: &SpotOptions,
) -> Scores {
    let cells: Vec<Cell> = row_values(query, row)
        .into_iter()
        .flatten()
        .map(Cell::of)
        .collect();
    best_form(query, &cells, ocr, (width, 0), options)
}

/// The scores of one image of stored width and width set `width` whose cells are
/// `cells`, one per bigram of each of `query`'s case forms: the form with
/// the highest image score (the first of equals).
fn best_form(
    query: &Query,
    cells: &[Cell],
    ocr: f64,
    width: ImageWidth,
    options: &SpotOptions,
) -> Scores {
    let mut best: Option<Scores> = None;
    for (f, form) in cells.chunks(query.bigrams.len().max(1)).enumerate() {
        let scores = score_cells(form, ocr, query.width_loss(f, width), options);
        if best.is_none_or(|b| scores.image > b.image) {
            best = Some(scores);
        }
    }
    best.unwrap_or_else(|| score_cells(&[], ocr, 0.0, options))
}

/// S_q of an OCR word and the query (both folded when the query ignores
/// case).
pub fn ocr_similarity(query: &Query, ocr_word: &str) -> f64 {
    qgram_similarity(
        &query.bigrams,
        &compared_bigrams(ocr_word, query.ignore_case),
    )
}

/// The stored rows of a collection of word images, numbered from 0, as a
/// query reads them: each image's floor and OCR word, and per modelled
/// class (by column) the images that keep it. [`Matrix`] holds them in
/// memory; the index's search file reads them in place.
pub trait Rows: Sync {
    /// Number of word images.
    fn len(&self) -> usize;
    /// True when there is no image.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The floor of image `image`'s row.
    fn floor(&self, image: usize) -> u16;
    /// Image `image`'s box width in units, as stored
    /// ([`super::widths::stored_width`]); 0 when not known.
    fn width(&self, image: usize) -> u16;
    /// The widths image `image` is held to, as [`Query`] numbers them: 0
    /// the collection's, `n` the `n`-th widths of books' own
    /// ([`Query::with_book_widths`]). 0 unless overridden.
    fn width_set(&self, image: usize) -> usize {
        let _ = image;
        0
    }
    /// The index of image `image`'s OCR word in [`Rows::ocr_words`].
    fn ocr_id(&self, image: usize) -> usize;
    /// The distinct OCR words.
    fn ocr_words(&self) -> &[String];
    /// The distinct OCR words' bigrams, inverted.
    fn ocr_index(&self) -> &OcrIndex;
    /// Calls `f` with (image, value, position) for every image of
    /// `images` that keeps `column`, by image.
    fn for_each_kept_in(
        &self,
        column: u16,
        images: Range<u32>,
        f: impl FnMut(u32, u16, u8),
    ) -> Result<()>;
}

/// Every image's scores for `query`, by image.
pub fn scores_of<R: Rows + ?Sized>(
    rows: &R,
    query: &Query,
    options: &SpotOptions,
) -> Result<Vec<Scores>> {
    let similarity = rows.ocr_index().similarities_of(query);
    let mut block = Block::new(query);
    let mut cells = Vec::new();
    block.fill(rows, 0..rows.len() as u32, &similarity)?;
    Ok((0..rows.len())
        .map(|i| {
            block.cells_into(i, &mut cells);
            let (ocr, width) = block.image(i);
            best_form(query, &cells, ocr, (width, rows.width_set(i)), options)
        })
        .collect())
}

/// A run of images as a query reads them: per image its floor, its OCR
/// word's similarity to the query, and per slot (the query's case forms'
/// bigrams, form by form) the value and position of a column that keeps
/// it; and per image and form what a [`Bound`] needs, kept as the columns
/// are read.
struct Block {
    /// Per slot: its column, if modelled.
    slots: Vec<Option<u16>>,
    /// Bigrams a form.
    n: usize,
    /// Per form: its modelled slots.
    modelled: Vec<u32>,
    floors: Vec<u16>,
    ocr: Vec<f64>,
    widths: Vec<u16>,
    /// Per image and slot: what its column keeps.
    kept: Vec<Kept>,
    /// Per image and form: its values and kept slots.
    sums: Vec<FormSum>,
}

/// What a column keeps of an image.
#[derive(Debug, Clone, Copy, Default)]
struct Kept {
    /// The position plus one; 0 when the column does not keep the image.
    position: u16,
    /// The value, where a position is kept.
    value: u16,
}

/// An image's cells of one form, added up.
#[derive(Debug, Clone, Copy)]
struct FormSum {
    /// The values of its modelled cells.
    total: u32,
    /// Its cells kept by their columns.
    kept: u32,
}

impl Block {
    fn new(query: &Query) -> Block {
        let slots: Vec<Option<u16>> = query.forms.iter().flatten().copied().collect();
        let n = query.bigrams.len().max(1);
        Block {
            modelled: (slots.chunks(n))
                .map(|form| form.iter().filter(|c| c.is_some()).count() as u32)
                .collect(),
            slots,
            n,
            floors: Vec::new(),
            ocr: Vec::new(),
            widths: Vec::new(),
            kept: Vec::new(),
            sums: Vec::new(),
        }
    }

    /// Reads `images`, in place of the run held before, with the OCR
    /// words' `similarity` to the query.
    fn fill<R: Rows + ?Sized>(
        &mut self,
        rows: &R,
        images: Range<u32>,
        similarity: &[f64],
    ) -> Result<()> {
        self.read_images(rows, images.clone(), similarity);
        self.read_columns(rows, images)
    }

    /// Reads the floors, OCR similarities and widths of `images`, in
    /// place of the run held before.
    fn read_images<R: Rows + ?Sized>(&mut self, rows: &R, images: Range<u32>, similarity: &[f64]) {
        self.floors.clear();
        self.ocr.clear();
        self.widths.clear();
        for image in images {
            self.floors.push(rows.floor(image as usize));
            let ocr = similarity.get(rows.ocr_id(image as usize));
            self.ocr.push(ocr.copied().unwrap_or(0.0));
            self.widths.push(rows.width(image as usize));
        }
    }

    /// The run's `i`-th image's OCR similarity and stored width.
    fn image(&self, i: usize) -> (f64, u16) {
        let ocr = self.ocr.get(i).copied().unwrap_or(0.0);
        (ocr, self.widths.get(i).copied().unwrap_or(0))
    }

    /// Reads the columns of `images`, whose floors are read.
    fn read_columns<R: Rows + ?Sized>(&mut self, rows: &R, images: Range<u32>) -> Result<()> {
        let (per_image, forms, n) = (self.slots.len(), self.modelled.len(), self.n);
        self.sums.clear();
        for &floor in &self.floors {
            (self.sums).extend(self.modelled.iter().map(|&m| FormSum {
                total: m * u32::from(floor),
                kept: 0,
            }));
        }
        self.kept.clear();
        self.kept
            .resize(self.floors.len() * per_image, Kept::default());
        let first = images.start;
        for (j, column) in self.slots.iter().enumerate() {
            let Some(column) = *column else {
                continue;
            };
            let (floors, kept, sums) = (&self.floors, &mut self.kept, &mut self.sums);
            rows.for_each_kept_in(column, images.clone(), |image, value, position| {
                let i = image.wrapping_sub(first) as usize;
                let (Some(cell), Some(sum), Some(&floor)) = (
                    kept.get_mut(i * per_image + j),
                    sums.get_mut(i * forms + j / n),
                    floors.get(i),
                ) else {
                    return;
                };
                // A column lists an image once; were it listed again, the
                // later entry would replace the earlier, in the sum too.
                let replaced = if cell.position == 0 {
                    floor
                } else {
                    cell.value
                };
                sum.kept += u32::from(cell.position == 0);
                sum.total = (sum.total)
                    .wrapping_add(u32::from(value))
                    .wrapping_sub(u32::from(replaced));
                *cell = Kept {
                    position: u16::from(position) + 1,
                    value,
                };
            })?;
        }
        Ok(())
    }

    /// The cells of the run's `i`-th image, into `cells`.
    fn cells_into(&self, i: usize, cells: &mut Vec<Cell>) {
        let per_image = self.slots.len();
        let at = i * per_image;
        let floor = self.floors.get(i).copied().unwrap_or(0);
        let kept = self.kept.get(at..at + per_image).unwrap_or_default();
        cells.clear();
        cells.extend(self.slots.iter().zip(kept).map(|(column, kept)| Cell {
            value: match (kept.position, column) {
                (0, Some(_)) => floor,
                (0, None) => 0,
                _ => kept.value,
            },
            position: kept.position,
            modelled: column.is_some(),
        }));
    }

    /// The [`Bound`] of every image of the run, into `bounds`.
    fn bounds_into(&self, bound: &Bound, bounds: &mut Vec<f64>) {
        bounds.clear();
        let forms = self.modelled.len();
        if !self.slots.len().is_multiple_of(self.n) || forms == 0 {
            bounds.resize(self.floors.len(), f64::INFINITY);
            return;
        }
        let per_image = self.sums.chunks_exact(forms).zip(&self.ocr);
        bounds.extend(per_image.map(|(sums, &ocr)| bound.of(sums, ocr)));
    }
}

/// The letter bigrams of a collection's distinct OCR words, inverted: per
/// bigram class, the words holding it and how often, so that a query's
/// q-gram similarity to every word is a walk over its own bigrams' lists.
#[derive(Debug, Clone, Default)]
pub struct OcrIndex {
    /// Bigrams of each word.
    lengths: Vec<u32>,
    /// Per bigram class: (word, count), by word.
    postings: Vec<Vec<(u32, u16)>>,
    /// The same over the words' folded bigrams, made on the first query
    /// that ignores case.
    folded: std::sync::OnceLock<Box<OcrIndex>>,
}

impl OcrIndex {
    /// The index of `words` (word i = `words[i]`).
    pub fn new(words: &[String]) -> OcrIndex {
        let mut postings: Vec<Vec<(u32, u16)>> = vec![Vec::new(); CLASSES];
        let mut lengths = Vec::with_capacity(words.len());
        let mut buffer = Vec::new();
        for (w, word) in words.iter().enumerate() {
            bigrams_into(word, &mut buffer);
            lengths.push(buffer.len() as u32);
            buffer.sort_unstable();
            for run in buffer.chunk_by(|a, b| a == b) {
                if let Some(list) = postings.get_mut(run[0] as usize) {
                    list.push((w as u32, run.len().min(u16::MAX as usize) as u16));
                }
            }
        }
        OcrIndex {
            lengths,
            postings,
            folded: std::sync::OnceLock::new(),
        }
    }

    /// The index of the same words with their bigrams folded to small
    /// letters ([`fold_case`]): each class's postings are those of its
    /// case variants, added up per word. Folding keeps a word's bigram
    /// count.
    fn fold(&self) -> OcrIndex {
        let mut postings: Vec<Vec<(u32, u16)>> = vec![Vec::new(); self.postings.len()];
        for (class, list) in self.postings.iter().enumerate() {
            if let Some(target) = postings.get_mut(fold_case(class as Bigram) as usize) {
                target.extend_from_slice(list);
            }
        }
        for list in &mut postings {
            list.sort_unstable_by_key(|&(word, _)| word);
            let mut merged: Vec<(u32, u16)> = Vec::with_capacity(list.len());
            for &(word, count) in list.iter() {
                match merged.last_mut() {
                    Some((last, total)) if *last == word => *total = total.saturating_add(count),
                    _ => merged.push((word, count)),
                }
            }
            *list = merged;
        }
        OcrIndex {
            lengths: self.lengths.clone(),
            postings,
            folded: std::sync::OnceLock::new(),
        }
    }

    /// S_q of `query` and every word, by word: over the folded bigrams
    /// when the query ignores case.
    pub fn similarities_of(&self, query: &Query) -> Vec<f64> {
        match query.ignore_case {
            true => {
                (self.folded.get_or_init(|| Box::new(self.fold()))).similarities(&query.bigrams)
            }
            false => self.similarities(&query.bigrams),
        }
    }

    /// S_q ([`qgram_similarity`]) of `query`'s bigrams and every word, by
    /// word.
    pub fn similarities(&self, query: &[Bigram]) -> Vec<f64> {
        let mut sorted = query.to_vec();
        sorted.sort_unstable();
        let mut shared = vec![0u32; self.lengths.len()];
        for run in sorted.chunk_by(|a, b| a == b) {
            let count = run.len() as u32;
            for &(w, c) in self.postings.get(run[0] as usize).into_iter().flatten() {
                if let Some(s) = shared.get_mut(w as usize) {
                    *s += count.min(c as u32);
                }
            }
        }
        shared
            .iter()
            .zip(&self.lengths)
            .map(|(&s, &len)| {
                if s == 0 {
                    0.0
                } else {
                    2.0 * s as f64 / (query.len() + len as usize) as f64
                }
            })
            .collect()
    }
}

/// The best `k` images (all for 0) by combined score, ties by image.
///
/// Each core ranks a contiguous share of the images, a block of 8,192 at
/// a time (what it reads of them stays in the core's cache), and keeps
/// its best `k`. Once it holds `k`, an image whose score is bounded under
/// the worst of them (its order part taken as 1, which costs no pair of
/// bigrams) is passed over. The shares' best are merged, so the result is
/// the same for any number of cores.
pub fn rank<R: Rows + ?Sized>(
    rows: &R,
    query: &Query,
    options: &SpotOptions,
    k: usize,
) -> Result<Vec<(u32, Scores)>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(rows.len().div_ceil(MIN_IMAGES_PER_THREAD));
    Ranking::new(rows, query, options, k, BLOCK_IMAGES).on(threads)
}

/// One query's ranking of a collection's images.
pub(crate) struct Ranking<'a, R: ?Sized> {
    rows: &'a R,
    query: &'a Query,
    options: &'a SpotOptions,
    k: usize,
    /// Images a block.
    block_images: u32,
    /// Per OCR word: its similarity to the query.
    similarity: Vec<f64>,
    bound: Bound,
}

impl<'a, R: Rows + ?Sized> Ranking<'a, R> {
    /// The ranking of `rows` for `query`, `block_images` at a time.
    pub(crate) fn new(
        rows: &'a R,
        query: &'a Query,
        options: &'a SpotOptions,
        k: usize,
        block_images: u32,
    ) -> Self {
        Ranking {
            rows,
            query,
            options,
            k,
            block_images: block_images.max(1),
            similarity: rows.ocr_index().similarities_of(query),
            bound: Bound::new(query.bigrams.len(), options),
        }
    }

    /// The best `k` on `threads` cores, each ranking a contiguous share
    /// of the images.
    pub(crate) fn on(&self, threads: usize) -> Result<Vec<(u32, Scores)>> {
        let len = u32::try_from(self.rows.len()).unwrap_or(u32::MAX);
        let threads = u32::try_from(threads)
            .unwrap_or(u32::MAX)
            .clamp(1, len.max(1));
        let share = len.div_ceil(threads).max(1);
        let shares = (0..threads)
            .map(|t| t.saturating_mul(share).min(len)..(t + 1).saturating_mul(share).min(len));
        let mut ranked: Vec<Ranked> = if threads == 1 {
            self.best_in(0..len)?
        } else {
            let bests: Vec<Result<Vec<Ranked>>> = std::thread::scope(|scope| {
                let handles: Vec<_> = shares
                    .map(|images| scope.spawn(move || self.best_in(images)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
            let mut ranked = Vec::new();
            for best in bests {
                ranked.extend(best?);
            }
            ranked
        };
        ranked.sort_unstable();
        if self.k > 0 {
            ranked.truncate(self.k);
        }
        Ok(ranked.into_iter().map(|r| (r.image, r.scores)).collect())
    }

    /// The best `k` of `images`, a block at a time.
    fn best_in(&self, images: Range<u32>) -> Result<Vec<Ranked>> {
        let mut best = Best::new(self.k);
        let mut block = Block::new(self.query);
        let (mut bounds, mut cells) = (Vec::new(), Vec::new());
        let mut start = images.start;
        while start < images.end {
            let end = images.end.min(start.saturating_add(self.block_images));
            block.fill(self.rows, start..end, &self.similarity)?;
            block.bounds_into(&self.bound, &mut bounds);
            for ((i, image), &bound) in (start..end).enumerate().zip(&bounds) {
                if best.bar().is_some_and(|bar| bound < bar) {
                    continue;
                }
                block.cells_into(i, &mut cells);
                let (ocr, width) = block.image(i);
                let width = (width, self.rows.width_set(image as usize));
                best.offer(
                    image,
                    best_form(self.query, &cells, ocr, width, self.options),
                );
            }
            start = end;
        }
        Ok(best.into_vec())
    }
}

/// Images whose cells a query reads at once.
const BLOCK_IMAGES: u32 = 8192;

/// An image and its scores, ordered best first: by combined score, ties
/// by image.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    image: u32,
    scores: Scores,
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.scores.combined)
            .total_cmp(&self.scores.combined)
            .then(self.image.cmp(&other.image))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

/// The best `k` images offered so far (all for 0), the worst of them on
/// top.
struct Best {
    k: usize,
    heap: std::collections::BinaryHeap<Ranked>,
}

impl Best {
    fn new(k: usize) -> Best {
        Best {
            k,
            heap: std::collections::BinaryHeap::new(),
        }
    }

    /// The combined score an image must reach to be kept, once `k` are
    /// held.
    fn bar(&self) -> Option<f64> {
        match self.k > 0 && self.heap.len() >= self.k {
            true => self.heap.peek().map(|worst| worst.scores.combined),
            false => None,
        }
    }

    fn offer(&mut self, image: u32, scores: Scores) {
        let ranked = Ranked { image, scores };
        if self.k == 0 || self.heap.len() < self.k {
            self.heap.push(ranked);
        } else if self.heap.peek().is_some_and(|worst| ranked < *worst) {
            self.heap.pop();
            self.heap.push(ranked);
        }
    }

    fn into_vec(self) -> Vec<Ranked> {
        self.heap.into_vec()
    }
}

/// Images a query scores on one core before it uses another.
const MIN_IMAGES_PER_THREAD: usize = 16_384;

/// Word images held in memory for ranking: their stored rows' floors, OCR
/// words, and per modelled class the images that keep it (the columns of
/// the matrix), so that a query reads only its own bigrams' columns.
#[derive(Debug, Clone)]
pub struct Matrix {
    floors: Vec<u16>,
    /// Stored widths by image; none held: no image's width is known.
    widths: Vec<u16>,
    ocr_ids: Vec<usize>,
    ocr_words: Vec<String>,
    ocr_index: OcrIndex,
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
        let mut ids = std::collections::HashMap::new();
        let mut ocr_words = Vec::new();
        let ocr_ids = ocr
            .into_iter()
            .map(|word| {
                *ids.entry(word.clone()).or_insert_with(|| {
                    ocr_words.push(word);
                    ocr_words.len() - 1
                })
            })
            .collect();
        Matrix {
            floors: rows.iter().map(|r| r.floor).collect(),
            widths: Vec::new(),
            ocr_ids,
            ocr_index: OcrIndex::new(&ocr_words),
            ocr_words,
            columns: by_column,
        }
    }

    /// The matrix with its images' stored widths (image i =
    /// `widths[i]`, [`super::widths::stored_width`]).
    pub fn with_widths(mut self, widths: Vec<u16>) -> Matrix {
        self.widths = widths;
        self
    }

    /// The matrix's columns: per modelled class, (image, value, position)
    /// by image.
    pub fn columns(&self) -> &[Vec<(u32, u16, u8)>] {
        &self.columns
    }

    /// Every image's scores for `query`, by image.
    pub fn scores(&self, query: &Query, options: &SpotOptions) -> Vec<Scores> {
        scores_of(self, query, options).unwrap_or_default()
    }

    /// The best `k` images (all for 0) by combined score, ties by image.
    pub fn top(&self, query: &Query, options: &SpotOptions, k: usize) -> Vec<(u32, Scores)> {
        rank(self, query, options, k).unwrap_or_default()
    }
}

impl Rows for Matrix {
    fn len(&self) -> usize {
        self.floors.len()
    }

    fn floor(&self, image: usize) -> u16 {
        self.floors.get(image).copied().unwrap_or(0)
    }

    fn width(&self, image: usize) -> u16 {
        self.widths.get(image).copied().unwrap_or(0)
    }

    fn ocr_id(&self, image: usize) -> usize {
        self.ocr_ids.get(image).copied().unwrap_or(usize::MAX)
    }

    fn ocr_words(&self) -> &[String] {
        &self.ocr_words
    }

    fn ocr_index(&self) -> &OcrIndex {
        &self.ocr_index
    }

    fn for_each_kept_in(
        &self,
        column: u16,
        images: Range<u32>,
        mut f: impl FnMut(u32, u16, u8),
    ) -> Result<()> {
        let entries = self
            .columns
            .get(column as usize)
            .map_or(&[][..], Vec::as_slice);
        let from = entries.partition_point(|&(image, _, _)| image < images.start);
        for &(image, value, position) in entries.get(from..).unwrap_or_default() {
            if image >= images.end {
                break;
            }
            f(image, value, position);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::images::likelihood::{Likelihoods, PlacedTerm};
    use crate::images::model::{Example, Learning, ModelOptions};
    use proptest::prelude::*;

    #[test]
    fn the_ocr_weight_is_the_rest_of_the_image_weight_within_0_to_1() {
        let default = SpotOptions::default();
        let images_alone = SpotOptions::with_ocr_weight(0.0).unwrap();
        assert_eq!(images_alone.image_weight, 1.0);
        assert_eq!(images_alone.likelihood_weight, default.likelihood_weight);
        assert_eq!(SpotOptions::with_ocr_weight(1.0).unwrap().image_weight, 0.0);
        assert_eq!(
            SpotOptions::with_ocr_weight(0.25).unwrap().image_weight,
            0.75
        );
        for outside in [-0.1, 1.5, f64::NAN] {
            assert_eq!(SpotOptions::with_ocr_weight(outside), None);
        }
    }

    #[test]
    fn the_width_weight_is_any_number_of_0_or_more() {
        let options = SpotOptions::with_ocr_weight(0.25).unwrap();
        let off = options.with_width_weight(0.0).unwrap();
        assert_eq!((off.width_weight, off.image_weight), (0.0, 0.75));
        assert_eq!(options.with_width_weight(2.5).unwrap().width_weight, 2.5);
        for refused in [-0.01, f64::NAN, f64::INFINITY] {
            assert_eq!(options.with_width_weight(refused), None);
        }
    }

    #[test]
    fn order_counts_pairs_in_the_query_order() {
        let options = SpotOptions {
            likelihood_weight: 0.0,
            image_weight: 1.0,
            ..SpotOptions::default()
        };
        let at = |p: &[u8]| -> Vec<Option<(u16, Option<u8>)>> {
            p.iter().map(|&x| Some((0, Some(x)))).collect()
        };
        assert_eq!(score(&at(&[0, 1, 2, 3]), 0.0, &options).order, 1.0);
        assert_eq!(score(&at(&[3, 2, 1, 0]), 0.0, &options).order, 0.0);
        assert_eq!(score(&at(&[0, 2, 1]), 0.0, &options).order, 2.0 / 3.0);
        let missing = vec![Some((0, Some(0))), Some((0, None)), None];
        assert_eq!(score(&missing, 0.0, &options).order, 0.0);
        assert_eq!(score(&at(&[1, 1, 1]), 0.0, &options).order, 1.0);
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
                ..SpotOptions::default()
            },
        );
        assert!((s.likelihood - 0.5).abs() < 1e-12);
        assert_eq!(s.order, 1.0);
        assert!((s.image - 0.75).abs() < 1e-12);
        assert!((s.combined - (0.8 * 0.75 + 0.2 * 0.25)).abs() < 1e-12);
    }

    #[test]
    fn an_exact_reading_ranks_first_unless_the_images_rank_alone() {
        // One image the OCR read as the query, its ink unlike it; one read
        // nearly, its ink very like it.
        let unlike = vec![Some((0, Some(1))), Some((0, Some(0)))];
        let like = vec![Some((u16::MAX, Some(0))), Some((u16::MAX, Some(1)))];
        let ranks_read_first = |image_weight: f64| {
            let options = SpotOptions::with_ocr_weight(1.0 - image_weight).unwrap();
            let read = score(&unlike, 1.0, &options);
            let near = score(&like, 0.9, &options);
            read.combined > near.combined
        };
        for image_weight in [0.0, 0.5, 1.0 - OCR_WEIGHT, 0.99] {
            assert!(ranks_read_first(image_weight), "{image_weight}");
        }
        assert!(!ranks_read_first(1.0), "the images alone");
        // Without the reading's lift, eq. 7.30 would rank the near reading
        // first at the default weight: 0.9·0 + 0.1·1 < 0.9·1 + 0.1·0.9.
        let default = SpotOptions::default();
        assert_eq!(default.image_weight, 0.9);
        let read = score(&unlike, 1.0, &default);
        assert!((read.combined - 1.1).abs() < 1e-12);
        assert!((score(&like, 0.9, &default).combined - 0.99).abs() < 1e-12);
    }

    #[test]
    fn ignoring_case_finds_a_capitalised_word_by_its_ocr() {
        let model = model();
        let row = StoredRow::of(&Likelihoods::of(&model, &[], 6.0), 0.05);
        let ocr = vec!["Fanny".to_string(), "fann".to_string()];
        let matrix = Matrix::new(&[row.clone(), row], ocr, model.classes().len());
        let ocr_alone = |ignore_case| SpotOptions {
            image_weight: 0.0,
            ignore_case,
            ..SpotOptions::default()
        };
        let best = |ignore_case: bool| {
            let query = Query::new("fanny", &model, ignore_case).unwrap();
            matrix.top(&query, &ocr_alone(ignore_case), 1)[0]
        };
        // As typed, "fann" shares more bigrams with "fanny" than "Fanny".
        assert_eq!(best(false).0, 1);
        let (image, scores) = best(true);
        assert_eq!((image, scores.ocr), (0, 1.0));
    }

    #[test]
    fn ignoring_case_scores_an_image_as_each_case_form_of_the_word() {
        let classes: Vec<Bigram> = {
            let mut c: Vec<Bigram> = ["Fa", "fa", "an", "fA"]
                .iter()
                .map(|w| bigrams(w)[1])
                .collect();
            c.sort_unstable();
            c
        };
        let column_of = |text: &str| {
            classes
                .binary_search(&bigrams(text)[1])
                .ok()
                .map(|c| c as u16)
        };
        let sensitive = Query::with_classes("fan", &classes, false).unwrap();
        assert_eq!(sensitive.forms.len(), 1);
        assert_eq!(sensitive.forms[0][1], column_of("fa"));
        // "fAN" as typed, "fan" and "Fan".
        let folded = Query::with_classes("fAN", &classes, true).unwrap();
        let second: Vec<Option<u16>> = folded.forms.iter().map(|f| f[1]).collect();
        assert_eq!(second, [column_of("fA"), column_of("fa"), column_of("Fa")]);
        assert_eq!(folded.bigrams, bigrams("fan"));
        // Typed in small letters: "fan" and "Fan".
        assert_eq!(
            Query::with_classes("fan", &classes, true)
                .unwrap()
                .forms
                .len(),
            2
        );
        // An image keeping "Fa" scores as "Fan", its best form.
        let row = StoredRow {
            floor: 3,
            kept: vec![(column_of("Fa").unwrap(), 900, 0)],
        };
        let options = SpotOptions::with_ocr_weight(0.0).unwrap();
        let best = row_scores(&folded, &row, 0.0, 0, &options);
        let as_capitalised = score(&row_values(&folded, &row)[2], 0.0, &options);
        assert_eq!(best, as_capitalised);
        assert!(best.image > row_scores(&sensitive, &row, 0.0, 0, &options).image);
        // A word without letters has one form.
        assert_eq!(
            Query::with_classes("1847", &classes, true)
                .unwrap()
                .forms
                .len(),
            1
        );
    }

    /// Widths of 0.3 units for a word's ends and 0.5 a letter, spread ¼.
    fn word_widths() -> WordWidths {
        let mut symbols = [0.5; crate::images::bigrams::SYMBOLS];
        symbols[0] = 0.3;
        WordWidths::from_parts(symbols, 0.25).unwrap()
    }

    #[test]
    fn an_image_as_wide_as_the_query_outranks_an_equal_one_twice_as_wide() {
        let model = model();
        let row = StoredRow {
            floor: 100,
            kept: Vec::new(),
        };
        let as_wide = crate::images::widths::stored_width(1.8);
        let matrix = Matrix::new(&[row.clone(), row], vec![String::new(); 2], 1)
            .with_widths(vec![2 * as_wide, as_wide]);
        let options = SpotOptions::with_ocr_weight(0.0).unwrap();
        let query = Query::new("the", &model, false).unwrap();
        let held = query.clone().with_widths(Some(&word_widths()));
        let ranked = matrix.top(&held, &options, 0);
        assert_eq!(ranked[0].0, 1, "{ranked:?}");
        assert!(
            ranked[0].1.width < 1e-6,
            "as wide as expected: nothing taken"
        );
        let r = 2f64.ln() / 0.25;
        assert!((ranked[1].1.width - options.width_weight * r * r / 2.0).abs() < 1e-3);
        assert_eq!(
            matrix.top(&query, &options, 0)[0].0,
            0,
            "without widths a tie"
        );
        let unweighted = SpotOptions {
            width_weight: 0.0,
            ..options
        };
        assert_eq!(matrix.top(&held, &unweighted, 0)[0].0, 0, "β = 0: a tie");
    }

    #[test]
    fn an_image_of_a_book_of_its_own_widths_is_held_to_them() {
        let model = model();
        let own = WordWidths::from_parts([0.25; crate::images::bigrams::SYMBOLS], 0.25).unwrap();
        // Width set 1: the first book with widths of its own.
        let query = (Query::new("the", &model, false).unwrap())
            .with_widths(Some(&word_widths()))
            .with_book_widths([&own]);
        // "the": 0.3 + 3 × 0.5 units by the collection's widths, 4 × 0.25
        // by width set 1's.
        let (collection_s, own_s) = {
            use crate::images::widths::stored_width;
            (stored_width(1.8), stored_width(1.0))
        };
        assert!(query.width_loss(0, (collection_s, 0)) < 1e-6);
        assert!(query.width_loss(0, (own_s, 1)) < 1e-6);
        let r = 1.8f64.ln() / 0.25;
        assert!((query.width_loss(0, (collection_s, 1)) - r * r / 2.0).abs() < 1e-2);
        assert!(query.width_loss(0, (own_s, 0)) > 1.0);
        assert_eq!(query.width_loss(0, (own_s, 2)), 0.0, "no such set, no loss");
        // The collection's widths set again: no book's are held any more.
        let again = query.with_widths(Some(&word_widths()));
        assert_eq!(again.width_loss(0, (own_s, 1)), 0.0);
    }

    fn model() -> Model {
        let words = [
            "the", "there", "other", "then", "hat", "that", "this", "these", "he", "her", "The",
            "Then", "THE", "Her",
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
        /// The inverted OCR words give every word the q-gram similarity
        /// computed from the two words' bigrams.
        #[test]
        fn ocr_index_similarities_equal_qgram_similarity(
            words in prop::collection::vec("[a-cA.é1 ]{0,7}", 0..20),
            query in "[a-cA.é1]{1,7}",
        ) {
            let index = OcrIndex::new(&words);
            let q = bigrams(&query);
            let got = index.similarities(&q);
            prop_assert_eq!(got.len(), words.len());
            for (word, s) in words.iter().zip(got) {
                prop_assert_eq!(s, qgram_similarity(&q, &bigrams(word)), "{}", word);
            }
        }

        /// With case ignored too: the folded index gives the q-gram
        /// similarity of the folded bigrams.
        #[test]
        fn folded_ocr_index_similarities_equal_folded_qgram_similarity(
            words in prop::collection::vec("[a-cA-C.é1 ]{0,7}", 0..20),
            query in "[a-cA-C.é1]{0,6}[a-cA-C]",
        ) {
            let index = OcrIndex::new(&words);
            let q = Query::with_classes(&query, &[], true).unwrap();
            let got = index.similarities_of(&q);
            prop_assert_eq!(got.len(), words.len());
            for (word, s) in words.iter().zip(got) {
                prop_assert_eq!(s, ocr_similarity(&q, word), "{}", word);
                prop_assert_eq!(s, ocr_similarity(&q, &word.to_lowercase()), "{}", word);
            }
        }

        /// The bound is never under the score, whichever bigrams an image
        /// keeps and in whatever order.
        #[test]
        fn the_bound_is_never_under_the_score(
            cells in prop::collection::vec((any::<u16>(), any::<bool>(), 0u8..8, any::<bool>()), 1..9),
            ocr in prop_oneof![Just(1.0), 0f64..1.0],
            weights in (0f64..=1.0, 0f64..=1.0),
        ) {
            let options = SpotOptions { likelihood_weight: weights.0, image_weight: weights.1, ..SpotOptions::default() };
            let cells: Vec<Cell> = (cells.iter())
                .map(|&(value, kept, position, modelled)| match modelled {
                    true => Cell { value, position: if kept { u16::from(position) + 1 } else { 0 }, modelled },
                    false => Cell::default(),
                })
                .collect();
            let sum = FormSum {
                total: cells.iter().filter(|c| c.modelled).map(|c| u32::from(c.value)).sum(),
                kept: cells.iter().filter(|c| c.position != 0).count() as u32,
            };
            let bound = Bound::new(cells.len(), &options).of(&[sum], ocr);
            let scores = score_cells(&cells, ocr, 0.0, &options);
            prop_assert!(bound >= scores.combined, "{bound} < {scores:?}");
        }

        /// A ranking, in blocks of any size on any number of cores, is the
        /// first `k` of every image's scores sorted by combined score
        /// (ties by image): passing over images by their bound loses none.
        #[test]
        fn a_ranking_is_the_best_k_of_every_image_scored(
            images in prop::collection::vec(
                prop::collection::vec((0u32..97, 0f32..6.0), 0..40), 1..40),
            copies in 1usize..4,
            query in "[a-zA-Z]{1,6}",
            weights in (0f64..=1.0, 0f64..=1.0, 0f64..=1.0),
            ignore_case in any::<bool>(),
            k in 0usize..12,
            block in 1u32..9,
            threads in 1usize..4,
        ) {
            let model = model();
            let rows: Vec<StoredRow> = images
                .iter()
                .map(|terms| {
                    let placed: Vec<PlacedTerm> = terms.iter().map(|&(term, x)| PlacedTerm { term, x }).collect();
                    StoredRow::of(&Likelihoods::of(&model, &placed, 6.0), 0.05)
                })
                .collect();
            // Copies of the rows tie: the first image of equals ranks first.
            let rows: Vec<StoredRow> = (0..copies).flat_map(|_| rows.iter().cloned()).collect();
            let ocr: Vec<String> = (0..rows.len()).map(|i| ["the", "Then", "xyz", "hat"][i % 4].to_string()).collect();
            let widths = (0..rows.len()).map(|i| (i as u16 * 997) % 6000).collect();
            let matrix = Matrix::new(&rows, ocr, model.classes().len()).with_widths(widths);
            let options = SpotOptions { likelihood_weight: weights.0, image_weight: weights.1, ignore_case, width_weight: weights.2 };
            let q = Query::new(&query, &model, ignore_case).unwrap().with_widths(Some(&word_widths()));
            let mut every: Vec<Ranked> = (matrix.scores(&q, &options).into_iter().enumerate())
                .map(|(image, scores)| Ranked { image: image as u32, scores })
                .collect();
            every.sort();
            if k > 0 {
                every.truncate(k);
            }
            let expected: Vec<(u32, Scores)> = every.into_iter().map(|r| (r.image, r.scores)).collect();
            let ranked = Ranking::new(&matrix, &q, &options, k, block).on(threads).unwrap();
            prop_assert_eq!(&ranked, &expected);
            prop_assert_eq!(matrix.top(&q, &options, k), expected);
        }

        /// Scores read through the matrix's columns equal scores computed
        /// from each image's own row.
        #[test]
        fn matrix_scores_equal_row_scores(
            images in prop::collection::vec(
                prop::collection::vec((0u32..97, 0f32..6.0), 0..40), 1..12),
            query in "[a-zA-Z]{1,6}",
            weights in (0f64..=1.0, 0f64..=1.0, 0f64..=1.0),
            ignore_case in any::<bool>(),
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
            let ocr: Vec<String> = (0..rows.len()).map(|i| ["the", "Then", "xyz"][i % 3].to_string()).collect();
            let widths: Vec<u16> = (0..rows.len()).map(|i| (i as u16 * 997) % 6000).collect();
            let matrix = Matrix::new(&rows, ocr.clone(), model.classes().len()).with_widths(widths.clone());
            let options = SpotOptions { likelihood_weight: weights.0, image_weight: weights.1, ignore_case, width_weight: weights.2 };
            let q = Query::new(&query, &model, ignore_case).unwrap().with_widths(Some(&word_widths()));
            let from_matrix = matrix.scores(&q, &options);
            for (i, row) in rows.iter().enumerate() {
                let direct = row_scores(&q, row, ocr_similarity(&q, &ocr[i]), widths[i], &options);
                prop_assert_eq!(direct, from_matrix[i]);
            }
        }
    }
}
