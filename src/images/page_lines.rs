//! The page's text lines found from its own ink, and the words along them
//! that no word box of the page holds.
//!
//! [`super::ink`] and [`super::lines`] mend the OCR's boxes within the
//! OCR's own words and lines. Where the OCR's lines fail too, no such
//! mending reaches the words: on slanted handwriting Tesseract gives one
//! line to two text lines and one box to a word of each, and leaves words
//! out. The lines here come from the ink alone.
//!
//! The page's ink is what is darker than the page's Otsu threshold, less
//! isolated specks, as [`super::ink`] tells it. It is counted along rows
//! laid at each slope within ±[`MAX_SLOPE`] in steps of [`SLOPE_STEP`]
//! (an askew scan); the slope whose row counts are the most uneven (the
//! greatest sum of squares) lies along the lines. Along it, a text line's
//! x-height band is a run of rows holding at least [`ROW_SHARE`] of a busy
//! row's ink (the [`BUSY_ROW`] quantile of the rows holding ink), runs
//! closer than [`JOIN`] of their median height joined (a blank row inside
//! a line of capitals), each at least half of it high. The bands' median
//! height is the page's x-height; bands lower than [`MIN_BAND_SHARE`] of
//! the page's median word box are not x-height bands, and the page gives
//! no word.
//!
//! Each band's letters are found as [`super::lines`] finds the letters of
//! an OCR line's band. The blanks between consecutive letters, measured
//! inside the band, are of two kinds, within words and between them: the
//! page's word gap is Otsu's split of their logarithms (sizes differ by a
//! factor more than by an amount), or [`WORD_GAP`] x-heights where the
//! page shows fewer than [`MIN_GAPS`] blanks. Letters closer than it are
//! one word, kept when at least 0.7 x-heights high (lower, it is
//! punctuation or a speck).
//!
//! A word so found is a word image of its own, one the OCR boxed
//! otherwise or not at all, with nothing the OCR read in it, unless a box
//! of the page is that word already (an intersection over union of
//! [`SAME_WORD_OVERLAP`] or more) or holds it (0.8 of its area) while
//! running through the x-height band of one line only: such a box is
//! that line's word, and the ink's a part of it (a capital's bar above
//! the band, the digits of a year, a hyphen). A box through two lines'
//! bands holds a word of each.

use image::GrayImage;

use super::ink::{despeckled, otsu_split, runs, MIN_CONTRAST, WORD_GAP};
use super::lines::{letters_along, lies_in, words_of, Band, Stroke, SAME_WORD_OVERLAP};
use super::WordBox;

/// Steepest slope of the page's lines looked for, in rows a column
/// (about 2°: a scan laid askew).
pub const MAX_SLOPE: f32 = 0.035;
/// Step between the slopes tried, in rows a column (a row over 400
/// columns).
pub const SLOPE_STEP: f32 = 0.0025;
/// Share of a busy row's ink a row of a text line's x-height band holds.
pub const ROW_SHARE: f32 = 0.4;
/// Quantile of the rows holding ink that is a busy row.
pub const BUSY_ROW: f32 = 0.95;
/// Blank rows, as a share of the bands' median height, across which two
/// runs of dense rows are one band.
pub const JOIN: f32 = 0.3;
/// Least height of the bands, as a share of the median height of the
/// page's word boxes, for them to be x-height bands: lower ones are rows
/// of the letters' tops or feet, where the ink of their bodies is too
/// sparse to tell lines by.
pub const MIN_BAND_SHARE: f32 = 0.25;
/// Fewest blanks between letters on a page for its word gap to be learned
/// from them.
pub const MIN_GAPS: usize = 16;
/// Largest share of a page that is dark for its ink to be read as text
/// (an inverted or blank scan is not).
const MAX_DARK_SHARE: f32 = 0.5;
/// Histogram bins a unit of a blank's natural logarithm.
const BINS_PER_LOG: f32 = 16.0;
/// Bins of the blanks' histogram (blanks of up to e^16 pixels).
const GAP_BINS: usize = 256;

/// The words found along the text lines of `page` that none of `boxes`
/// (the page's word boxes) is already (see the module docs), top to
/// bottom and left to right.
pub fn words_left_out(page: &GrayImage, boxes: &[WordBox]) -> Vec<WordBox> {
    let Some(dark) = dark_pixels(page) else {
        return Vec::new();
    };
    let slope = page_slope(&dark, page.width());
    let mut bands = text_bands(&dark, slope, page.dimensions());
    let Some(x_height) = bands.first().map(|band| band.x_height) else {
        return Vec::new();
    };
    if x_height < MIN_BAND_SHARE * median_box_height(boxes) {
        return Vec::new();
    }
    let found: Vec<(Vec<Stroke>, WordBox)> = (0..bands.len())
        .map(|line| letters_along(page, &bands, line))
        .collect();
    let word_gap = word_gap(found.iter().map(|(letters, _)| letters.as_slice()))
        .unwrap_or(WORD_GAP * x_height);
    for band in &mut bands {
        band.word_gap = word_gap;
    }
    (found.into_iter().zip(&bands))
        .flat_map(|((letters, reach), band)| words_of(letters, band, &reach))
        .filter(|word| (boxes.iter()).all(|bbox| !holds_already(bbox, word, &bands)))
        .collect()
}

/// True when the page's box `bbox` is the word `word` found along one of
/// `bands` already (see the module docs), or holds it as a part of the
/// one text line it holds.
fn holds_already(bbox: &WordBox, word: &WordBox, bands: &[Band]) -> bool {
    bbox.overlap(word) >= f64::from(SAME_WORD_OVERLAP)
        || (lies_in(word, bbox) && lines_held(bbox, bands) < 2)
}

/// How many of `bands` run through `bbox` at its middle column with at
/// least half their height.
fn lines_held(bbox: &WordBox, bands: &[Band]) -> usize {
    (bands.iter())
        .filter(|band| 2.0 * band.rows_over(bbox) >= band.x_height)
        .count()
}

/// The page's dark pixels `(x, y)`, row by row: darker than its Otsu
/// threshold, specks removed. `None` when its grey values spread less than
/// [`MIN_CONTRAST`] or more than [`MAX_DARK_SHARE`] of it is dark.
fn dark_pixels(page: &GrayImage) -> Option<Vec<(u32, u32)>> {
    let mut histogram = [0u64; 256];
    for pixel in page.pixels() {
        histogram[pixel.0[0] as usize] += 1;
    }
    let darkest = histogram.iter().position(|&n| n > 0)?;
    let lightest = histogram.iter().rposition(|&n| n > 0)?;
    if lightest - darkest < usize::from(MIN_CONTRAST) {
        return None;
    }
    let threshold = otsu_split(&histogram)? as u8;
    let (width, height) = (page.width() as usize, page.height() as usize);
    let raw: Vec<bool> = page.pixels().map(|p| p.0[0] <= threshold).collect();
    let ink = despeckled(&raw, width, height);
    let dark: Vec<(u32, u32)> = (ink.iter().enumerate())
        .filter(|(_, &d)| d)
        .map(|(i, _)| ((i % width) as u32, (i / width) as u32))
        .collect();
    (dark.len() as f32 <= MAX_DARK_SHARE * ink.len() as f32).then_some(dark)
}

/// Rows added above the page so that every row laid at a slope within
/// ±[`MAX_SLOPE`] over `width` columns has a place.
fn row_shift(width: u32) -> usize {
    (MAX_SLOPE * width as f32).ceil() as usize + 1
}

/// Dark pixels of each row laid at `slope` (the row a pixel falls in:
/// its row less `slope` times its column, plus [`row_shift`]).
fn row_counts(dark: &[(u32, u32)], slope: f32, width: u32, height: u32) -> Vec<u32> {
    let shift = row_shift(width);
    let mut counts = vec![0u32; height as usize + 2 * shift];
    for &(x, y) in dark {
        let row = (y as f32 - slope * x as f32).round() as isize + shift as isize;
        if let Some(count) = usize::try_from(row).ok().and_then(|r| counts.get_mut(r)) {
            *count += 1;
        }
    }
    counts
}

/// The slope, among those tried, along which the page's rows of ink are
/// the most uneven; the level one first among equals, then the slopes
/// nearer it.
fn page_slope(dark: &[(u32, u32)], width: u32) -> f32 {
    let height = dark.last().map_or(0, |&(_, y)| y + 1);
    let steps = (MAX_SLOPE / SLOPE_STEP).round() as i32;
    let tried = (0..=steps).flat_map(|k| if k == 0 { vec![0] } else { vec![-k, k] });
    let unevenness = |slope: f32| -> u64 {
        (row_counts(dark, slope, width, height).iter())
            .map(|&n| u64::from(n) * u64::from(n))
            .sum()
    };
    let (mut best, mut best_slope) = (0u64, 0.0f32);
    for k in tried {
        let slope = k as f32 * SLOPE_STEP;
        let score = unevenness(slope);
        if score > best {
            (best, best_slope) = (score, slope);
        }
    }
    best_slope
}

/// The x-height bands of the page's text lines along `slope` (see the
/// module docs), top to bottom, each spanning the page; their word gap is
/// left at 0.
fn text_bands(dark: &[(u32, u32)], slope: f32, (width, height): (u32, u32)) -> Vec<Band> {
    let counts = row_counts(dark, slope, width, height);
    let mut inked: Vec<u32> = counts.iter().copied().filter(|&n| n > 0).collect();
    inked.sort_unstable();
    let Some(&busy) =
        inked.get(((inked.len() as f32 * BUSY_ROW) as usize).min(inked.len().saturating_sub(1)))
    else {
        return Vec::new();
    };
    let least = ROW_SHARE * busy as f32;
    let dense: Vec<u32> = (counts.iter())
        .map(|&n| u32::from(n as f32 >= least))
        .collect();
    let dense_runs: Vec<(usize, usize)> = (runs(&dense).into_iter())
        .map(|run| (run.start, run.end))
        .collect();
    let Some(typical) = median_height(&dense_runs) else {
        return Vec::new();
    };
    let mut bands: Vec<(usize, usize)> = Vec::new();
    for run in dense_runs {
        match bands.last_mut() {
            Some(band) if ((run.0 - band.1) as f32) < JOIN * typical => band.1 = run.1,
            _ => bands.push(run),
        }
    }
    bands.retain(|&(top, bottom)| 2.0 * (bottom - top) as f32 >= typical);
    let Some(x_height) = median_height(&bands) else {
        return Vec::new();
    };
    let shift = row_shift(width) as f32;
    (bands.into_iter())
        .map(|(top, bottom)| Band {
            middle: (top + bottom) as f32 / 2.0 - shift,
            slope,
            x_height,
            word_gap: 0.0,
            x0: 0,
            x1: width,
        })
        .collect()
}

/// The median height of `boxes` (0 without any).
fn median_box_height(boxes: &[WordBox]) -> f32 {
    median(boxes.iter().map(|b| b.height() as usize).collect()).unwrap_or(0.0)
}

/// The median height of runs of rows `(top, bottom)`; `None` without any.
fn median_height(runs: &[(usize, usize)]) -> Option<f32> {
    median(runs.iter().map(|&(top, bottom)| bottom - top).collect())
}

/// The upper median of `values`; `None` without any.
fn median(mut values: Vec<usize>) -> Option<f32> {
    values.sort_unstable();
    values.get(values.len() / 2).map(|&v| v as f32)
}

/// The page's word gap, from the letters of each of its lines (left to
/// right): Otsu's split of the logarithms of the blanks between
/// consecutive letters; `None` for fewer than [`MIN_GAPS`] blanks or no
/// split.
fn word_gap<'a>(lines: impl Iterator<Item = &'a [Stroke]>) -> Option<f32> {
    let mut histogram = [0u64; GAP_BINS];
    let mut blanks = 0usize;
    for letters in lines {
        let mut end: Option<u32> = None;
        for letter in letters {
            if let Some(last) = end.filter(|&last| letter.core.0 > last) {
                let bin = ((letter.core.0 - last) as f32).ln() * BINS_PER_LOG;
                histogram[(bin.round() as usize).min(GAP_BINS - 1)] += 1;
                blanks += 1;
            }
            end = Some(end.map_or(letter.core.1, |last| last.max(letter.core.1)));
        }
    }
    if blanks < MIN_GAPS {
        return None;
    }
    let split = otsu_split(&histogram)?;
    Some(((split as f32 + 0.5) / BINS_PER_LOG).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rectangle of ink: x0, y0, x1, y1.
    type Inked = (u32, u32, u32, u32);

    /// A white `width` × `height` page with black rectangles.
    fn page_with(width: u32, height: u32, inked: &[Inked]) -> GrayImage {
        GrayImage::from_fn(width, height, |x, y| {
            let dark = (inked.iter())
                .any(|&(x0, y0, x1, y1)| (x0..x1).contains(&x) && (y0..y1).contains(&y));
            image::Luma([if dark { 0 } else { 255 }])
        })
    }

    /// Lines of `words` words of four letters 8 px wide and 14 px high,
    /// 3 px apart within a word and 14 px between words, the first line's
    /// letters from row `top`, lines 40 rows apart, each row of a letter
    /// `slope` rows lower a column further right. Each word's box is
    /// returned with the letters.
    fn lines_of_words(lines: u32, words: u32, top: u32, slope: f32) -> (Vec<Inked>, Vec<WordBox>) {
        let (mut letters, mut boxes) = (Vec::new(), Vec::new());
        for line in 0..lines {
            for word in 0..words {
                let x = 20 + word * 58;
                let y = top + line * 40 + (slope * x as f32).round() as u32;
                for letter in 0..4 {
                    letters.push((x + letter * 11, y, x + letter * 11 + 8, y + 14));
                }
                boxes.push(WordBox {
                    x0: x - 1,
                    y0: y - 1,
                    x1: x + 42,
                    y1: y + 15,
                });
            }
        }
        (letters, boxes)
    }

    #[test]
    fn the_words_of_level_lines_are_found_from_the_ink_alone() {
        let (letters, boxes) = lines_of_words(3, 5, 30, 0.0);
        let page = page_with(320, 160, &letters);
        assert_eq!(words_left_out(&page, &[]), boxes);
    }

    #[test]
    fn a_word_a_box_already_is_or_holds_on_its_one_line_is_not_found_again() {
        let (letters, boxes) = lines_of_words(3, 5, 30, 0.0);
        let page = page_with(320, 160, &letters);
        // The OCR boxed every word a pixel off its ink, and the first word
        // of each line 40 rows higher: over the next line's first word for
        // the first two lines, over blank paper for the last.
        let mut ocr: Vec<WordBox> = boxes
            .iter()
            .map(|b| WordBox { x0: b.x0 + 1, ..*b })
            .collect();
        for first in [0, 5, 10] {
            ocr[first].y1 += 40;
        }
        assert_eq!(words_left_out(&page, &ocr), [boxes[0], boxes[5]]);
        // The first line's first word boxed with its neighbour.
        let mut ocr = boxes.clone();
        ocr[0].x1 = ocr[1].x1;
        ocr.remove(1);
        assert!(words_left_out(&page, &ocr).is_empty());
    }

    #[test]
    fn the_lines_of_a_page_laid_askew_are_followed_along_their_slope() {
        let (letters, boxes) = lines_of_words(3, 5, 20, 0.03);
        let page = page_with(320, 180, &letters);
        let dark = dark_pixels(&page).expect("the page shows ink");
        assert!((page_slope(&dark, 320) - 0.03).abs() < 1e-6);
        let found = words_left_out(&page, &[]);
        assert_eq!(found.len(), boxes.len());
        for (found, word) in found.iter().zip(&boxes) {
            assert!(found.overlap(word) >= 0.8, "{found:?} against {word:?}");
        }
    }

    #[test]
    fn the_word_gap_parts_the_blanks_within_words_from_those_between() {
        let letter = |x0: u32, x1: u32| Stroke {
            bbox: WordBox {
                x0,
                y0: 0,
                x1,
                y1: 10,
            },
            core: (x0, x1),
        };
        // Blanks of 2 and 3 px within words, 12 and 14 between.
        let mut line = Vec::new();
        let mut x = 0;
        for blank in [2, 3, 2, 12, 3, 2, 3, 14].repeat(3) {
            line.push(letter(x, x + 8));
            x += 8 + blank;
        }
        let gap = word_gap([line.as_slice()].into_iter()).expect("24 blanks");
        assert!(3.0 < gap && gap <= 12.0, "{gap}");
        assert_eq!(word_gap([&line[..4]].into_iter()), None, "three blanks");
    }

    #[test]
    fn letters_whose_bodies_hold_too_little_ink_give_no_line() {
        // Letters of a top and a foot bar, 3 rows each, 21 rows apart:
        // their bands are 3 rows high, under a quarter of the boxes' 22.
        let (_, boxes) = lines_of_words(3, 5, 30, 0.0);
        let bars: Vec<Inked> = (boxes.iter())
            .flat_map(|b| {
                [
                    (b.x0 + 1, b.y0 + 1, b.x1 - 1, b.y0 + 4),
                    (b.x0 + 1, b.y1 + 4, b.x1 - 1, b.y1 + 7),
                ]
            })
            .collect();
        let page = page_with(320, 170, &bars);
        let tall: Vec<WordBox> = (boxes.iter())
            .map(|b| WordBox { y1: b.y1 + 7, ..*b })
            .collect();
        assert!(words_left_out(&page, &tall).is_empty());
    }

    #[test]
    fn a_page_without_contrast_or_without_paper_shows_no_line() {
        let grey = GrayImage::from_pixel(200, 100, image::Luma([128]));
        assert!(words_left_out(&grey, &[]).is_empty());
        let black = page_with(200, 100, &[(0, 0, 200, 90)]);
        assert!(words_left_out(&black, &[]).is_empty());
        let blank = GrayImage::new(0, 0);
        assert!(words_left_out(&blank, &[]).is_empty());
    }
}
