//! Word boxes grown along the OCR's lines to the whole word the ink
//! shows.
//!
//! An OCR engine can box part of a word: a handwritten "of" boxed round
//! its "o", the f's loops outside. Such a box, tightened to its ink
//! ([`super::ink`]), stays part of a word. The OCR's lines are better than
//! its words: each line (hOCR `ocr_line`, ALTO `TextLine`) runs along an
//! x-height band, found here from the x-height bands of its words' boxes
//! ([`x_band`]): the band's height is their median, its middle the
//! least-squares line through theirs (its slope within ±[`MAX_SLOPE`]).
//! Where a line's band runs at each of its words ([`lines_at`]) also tells
//! [`super::ink`] which text line an OCR box spanning two holds.
//!
//! The ink around a band ([`REACH`] x-heights above, below and past its
//! ends: ascenders and descenders) is parted into connected strokes
//! (8-connected dark pixels, as `ink` tells them). A stroke is a letter
//! of the band it stands in most, if it stands in [`CROSSING`] of its
//! height or more (a descender from the line above only grazes it). The letters of a band
//! closer than its word gap are one word: half the median blank between
//! the line's boxes, at least [`WORD_GAP`] x-heights, measured inside the
//! band, where a slanted letter's ascender or descender does not reach
//! over its neighbour. A word standing lower than 0.7 x-heights is
//! punctuation or a speck.
//!
//! A word so found grows the one box of its line that lies in it
//! ([`LIES_IN`]) and covers less than half of it, when no other box of the
//! line crosses it ([`CROSSING_SHARE`]) and no box is already the word
//! ([`SAME_WORD_OVERLAP`]). Everywhere else the OCR's parting of the line
//! is kept: a word the ink runs together with its neighbour, a box
//! holding several words, a word the OCR left out. The grown box keeps the
//! OCR's text.

use std::collections::BTreeMap;

use image::GrayImage;

use super::ink::{x_band, Ink, LineAt, EDGE, LETTER_HEIGHT, WORD_GAP};
use super::WordBox;

/// Intersection over union with a box of the page at or above which a
/// word found along a line is that box's word already.
pub const SAME_WORD_OVERLAP: f32 = 0.5;
/// Steepest slope of a line's band, in rows a column (about 6°).
pub const MAX_SLOPE: f32 = 0.1;
/// Share of a band's height a stroke stands in for it to be one of the
/// band's letters.
pub const CROSSING: f32 = 0.25;
/// How far a line's ink reaches beyond its band, in x-heights: above it
/// (ascenders), below it (descenders) and past its first and last word.
pub const REACH: f32 = 1.5;
/// Share of a box's area inside a word found along its line, for a box
/// of the line that neither lies in the word nor holds it, at or above
/// which the OCR and the ink part the line differently there.
pub const CROSSING_SHARE: f32 = 0.05;
/// Share of a box's area inside a word for it to lie in the word.
pub const LIES_IN: f32 = 0.8;

/// Where the OCR's line of each of `words` (the OCR's boxes, each with
/// the number of its line, all within `page`) runs at it, in the order of
/// `words`: `None` for a word whose line shows no ink.
pub fn lines_at(page: &GrayImage, words: &[(u32, WordBox)]) -> Vec<Option<LineAt>> {
    let bands = line_bands(page, words);
    (words.iter())
        .map(|(line, bbox)| {
            let band = bands.get(line)?;
            Some(LineAt {
                middle: band.middle_at((bbox.x0 + bbox.x1) as f32 / 2.0),
                x_height: band.x_height,
            })
        })
        .collect()
}

/// The boxes of `words` that grow along their lines to the whole word
/// (see the module docs): each box's number in `words` with its new box,
/// in line order and left to right. `words` are the page's word boxes,
/// each with the number of its OCR line, all within `page`.
pub fn grown_words(page: &GrayImage, words: &[(u32, WordBox)]) -> Vec<(usize, WordBox)> {
    let (lines, bands): (Vec<u32>, Vec<Band>) = line_bands(page, words).into_iter().unzip();
    let mut boxes: Vec<(u32, WordBox)> = words.to_vec();
    let mut grown = Vec::new();
    for (band, &line) in lines.iter().enumerate() {
        for whole in words_along(page, &bands, band) {
            if let Some(word) = grown_box(&boxes, line, &whole) {
                boxes[word].1 = whole;
                grown.push((word, whole));
            }
        }
    }
    grown
}

/// The band of each line of `words` (boxes on `page`, each with the number
/// of its line) that shows ink, by line number.
fn line_bands(page: &GrayImage, words: &[(u32, WordBox)]) -> BTreeMap<u32, Band> {
    let mut by_line: BTreeMap<u32, Vec<WordBox>> = BTreeMap::new();
    for &(line, bbox) in words {
        by_line.entry(line).or_default().push(bbox);
    }
    (by_line.iter())
        .filter_map(|(&line, boxes)| Some((line, Band::of(page, boxes)?)))
        .collect()
}

/// The box of `boxes` that the word `whole` found along `line` grows,
/// if one does (see the module docs).
fn grown_box(boxes: &[(u32, WordBox)], line: u32, whole: &WordBox) -> Option<usize> {
    if (boxes.iter()).any(|(_, bbox)| bbox.overlap(whole) >= f64::from(SAME_WORD_OVERLAP)) {
        return None;
    }
    let crossing = (boxes.iter()).any(|&(other_line, bbox)| {
        other_line == line
            && !lies_in(&bbox, whole)
            && !lies_in(whole, &bbox)
            && bbox.intersection(whole) as f32 >= CROSSING_SHARE * bbox.area() as f32
    });
    let mut inside = (0..boxes.len()).filter(|&i| lies_in(&boxes[i].1, whole));
    match (inside.next(), inside.next()) {
        (Some(word), None)
            if boxes[word].0 == line && !crossing && 2 * boxes[word].1.area() < whole.area() =>
        {
            Some(word)
        }
        _ => None,
    }
}

/// True when at least [`LIES_IN`] of `part`'s area is inside `whole`.
pub(super) fn lies_in(part: &WordBox, whole: &WordBox) -> bool {
    part.intersection(whole) as f32 >= LIES_IN * part.area() as f32 && !part.is_empty()
}

/// A line's x-height band and how far its words run.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Band {
    /// Middle row of the band at column 0.
    pub(super) middle: f32,
    /// Rows the middle moves a column.
    pub(super) slope: f32,
    /// Its height.
    pub(super) x_height: f32,
    /// Least blank columns between two words of the line.
    pub(super) word_gap: f32,
    /// Left edge of its first word.
    pub(super) x0: u32,
    /// Right edge of its last word.
    pub(super) x1: u32,
}

impl Band {
    /// The band of the line whose words have `boxes`; `None` when none of
    /// them shows ink.
    fn of(page: &GrayImage, boxes: &[WordBox]) -> Option<Band> {
        let points: Vec<(f32, f32, u32)> = (boxes.iter())
            .filter_map(|bbox| {
                let (middle, rows) = x_band(page, *bbox)?;
                Some(((bbox.x0 + bbox.x1) as f32 / 2.0, middle, rows))
            })
            .collect();
        let mut heights: Vec<u32> = points.iter().map(|&(_, _, rows)| rows).collect();
        heights.sort_unstable();
        let x_height = (*heights.get(heights.len() / 2)?).max(1) as f32;
        let n = points.len() as f32;
        let mean_x = points.iter().map(|p| p.0).sum::<f32>() / n;
        let mean_y = points.iter().map(|p| p.1).sum::<f32>() / n;
        let spread: f32 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
        let slope = match spread > 0.0 {
            true => {
                points
                    .iter()
                    .map(|p| (p.0 - mean_x) * (p.1 - mean_y))
                    .sum::<f32>()
                    / spread
            }
            false => 0.0,
        }
        .clamp(-MAX_SLOPE, MAX_SLOPE);
        Some(Band {
            middle: mean_y - slope * mean_x,
            slope,
            x_height,
            word_gap: word_gap(boxes).max(WORD_GAP * x_height),
            x0: boxes.iter().map(|b| b.x0).min()?,
            x1: boxes.iter().map(|b| b.x1).max()?,
        })
    }

    /// Page row of the band's middle at column `x`.
    fn middle_at(&self, x: f32) -> f32 {
        self.middle + self.slope * x
    }

    /// Rows of `bbox`, at its middle column, inside the band (0 when it
    /// misses the band).
    pub(super) fn rows_over(&self, bbox: &WordBox) -> f32 {
        let middle = self.middle_at((bbox.x0 + bbox.x1) as f32 / 2.0);
        let (top, bottom) = (middle - self.x_height / 2.0, middle + self.x_height / 2.0);
        (bottom.min(bbox.y1 as f32) - top.max(bbox.y0 as f32)).max(0.0)
    }

    /// The part of a `width` × `height` page its ink can reach.
    fn reach(&self, width: u32, height: u32) -> WordBox {
        let reach = REACH * self.x_height;
        let row = |x: u32| self.middle + self.slope * x as f32;
        let (left, right) = (row(self.x0), row(self.x1));
        let top = left.min(right) - self.x_height / 2.0 - reach;
        let bottom = left.max(right) + self.x_height / 2.0 + reach;
        let pixel = |value: f32, most: u32| value.round().clamp(0.0, most as f32) as u32;
        WordBox {
            x0: pixel(self.x0 as f32 - reach, width),
            y0: pixel(top, height),
            x1: pixel(self.x1 as f32 + reach, width),
            y1: pixel(bottom, height),
        }
    }
}

/// The words along band `line` of `bands`, left to right: its letters
/// ([`letters_along`]) grouped across gaps narrower than its word gap.
fn words_along(page: &GrayImage, bands: &[Band], line: usize) -> Vec<WordBox> {
    let (letters, reach) = letters_along(page, bands, line);
    words_of(letters, &bands[line], &reach)
}

/// The letters of band `line` of `bands` (see the module docs), left to
/// right, with the part of the page they were looked for in.
pub(super) fn letters_along(
    page: &GrayImage,
    bands: &[Band],
    line: usize,
) -> (Vec<Stroke>, WordBox) {
    let band = &bands[line];
    let reach = band.reach(page.width(), page.height());
    let Some(ink) = Ink::of(page, reach) else {
        return (Vec::new(), reach);
    };
    let mut letters: Vec<Stroke> = (strokes(&ink, band).into_iter())
        .filter(|stroke| {
            let here = band.rows_over(&stroke.bbox);
            here >= CROSSING * band.x_height
                && (bands.iter().enumerate())
                    .all(|(other, b)| other == line || b.rows_over(&stroke.bbox) < here)
        })
        .collect();
    letters.sort_by_key(|stroke| (stroke.core, stroke.bbox.y0));
    (letters, reach)
}

/// The words `letters` (of `band`, left to right, found inside `reach`)
/// make: letters whose columns inside the band stand less than its word
/// gap apart are one word, measured inside the band, where a
/// slanted letter's ascender or descender does not reach over its
/// neighbour. A word lower than [`LETTER_HEIGHT`] x-heights is left out.
pub(super) fn words_of(letters: Vec<Stroke>, band: &Band, reach: &WordBox) -> Vec<WordBox> {
    let mut words: Vec<Stroke> = Vec::new();
    for letter in letters {
        match words.last_mut() {
            Some(word) if (letter.core.0 as f32) - (word.core.1 as f32) < band.word_gap => {
                word.bbox = union(&word.bbox, &letter.bbox);
                word.core.1 = word.core.1.max(letter.core.1);
            }
            _ => words.push(letter),
        }
    }
    (words.into_iter())
        .map(|word| word.bbox)
        .filter(|word| word.height() as f32 >= LETTER_HEIGHT * band.x_height)
        .map(|word| WordBox {
            x0: word.x0.saturating_sub(EDGE).max(reach.x0),
            y0: word.y0.saturating_sub(EDGE).max(reach.y0),
            x1: (word.x1 + EDGE).min(reach.x1),
            y1: (word.y1 + EDGE).min(reach.y1),
        })
        .collect()
}

/// Half the median blank between consecutive boxes of a line, left to
/// right (0 without two boxes apart): its own words say how far apart its
/// words stand.
fn word_gap(boxes: &[WordBox]) -> f32 {
    let mut sorted = boxes.to_vec();
    sorted.sort_by_key(|b| (b.x0, b.x1));
    let mut gaps: Vec<u32> = (sorted.windows(2))
        .filter_map(|pair| pair[1].x0.checked_sub(pair[0].x1).filter(|&gap| gap > 0))
        .collect();
    gaps.sort_unstable();
    gaps.get(gaps.len() / 2)
        .map_or(0.0, |&gap| gap as f32 / 2.0)
}

/// The smallest box holding both.
fn union(a: &WordBox, b: &WordBox) -> WordBox {
    WordBox {
        x0: a.x0.min(b.x0),
        y0: a.y0.min(b.y0),
        x1: a.x1.max(b.x1),
        y1: a.y1.max(b.y1),
    }
}

/// A connected stroke of ink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stroke {
    /// Its page box.
    pub(super) bbox: WordBox,
    /// The page columns its pixels inside a band span, `(first, last + 1)`
    /// (its box's columns when none is inside).
    pub(super) core: (u32, u32),
}

/// The 8-connected runs of `ink`'s dark pixels, in the order of their
/// first pixel (row by row), with their columns inside `band`.
fn strokes(ink: &Ink, band: &Band) -> Vec<Stroke> {
    let width = ink.width;
    let height = ink.dark.len() / width.max(1);
    let (left, top) = (ink.bbox.x0 as f32, ink.bbox.y0 as f32);
    let inside = |x: usize, y: usize| {
        let middle = band.middle + band.slope * (left + x as f32);
        ((top + y as f32 + 0.5) - middle).abs() <= band.x_height / 2.0
    };
    let mut seen = vec![false; ink.dark.len()];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..ink.dark.len() {
        if !ink.dark[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (width, height, 0, 0);
        let (mut core0, mut core1) = (width, 0);
        while let Some(at) = stack.pop() {
            let (x, y) = (at % width, at / width);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
            if inside(x, y) {
                (core0, core1) = (core0.min(x), core1.max(x + 1));
            }
            for ny in y.saturating_sub(1)..(y + 2).min(height) {
                for nx in x.saturating_sub(1)..(x + 2).min(width) {
                    let next = ny * width + nx;
                    if ink.dark[next] && !seen[next] {
                        seen[next] = true;
                        stack.push(next);
                    }
                }
            }
        }
        if core0 >= core1 {
            (core0, core1) = (x0, x1);
        }
        let b = ink.bbox;
        out.push(Stroke {
            bbox: WordBox {
                x0: b.x0 + x0 as u32,
                y0: b.y0 + y0 as u32,
                x1: b.x0 + x1 as u32,
                y1: b.y0 + y1 as u32,
            },
            core: (b.x0 + core0 as u32, b.x0 + core1 as u32),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white page with black rectangles (x0, y0, x1, y1).
    fn page_with(inked: &[(u32, u32, u32, u32)]) -> GrayImage {
        GrayImage::from_fn(240, 120, |x, y| {
            let dark = (inked.iter())
                .any(|&(x0, y0, x1, y1)| (x0..x1).contains(&x) && (y0..y1).contains(&y));
            image::Luma([if dark { 0 } else { 255 }])
        })
    }

    fn boxed(x0: u32, y0: u32, x1: u32, y1: u32) -> WordBox {
        WordBox { x0, y0, x1, y1 }
    }

    /// Three letters of x-height 14 (rows 40..54) with 3-px gaps from `x`.
    fn word_at(x: u32) -> Vec<(u32, u32, u32, u32)> {
        (0..3)
            .map(|i| (x + i * 11, 40, x + i * 11 + 8, 54))
            .collect()
    }

    /// A line of three words: one at x 20, an "of" at x 100 (an "o" of
    /// x-height, then an "f" from an ascender to a descender, 3 px
    /// apart) and one at x 160.
    fn line_with_of() -> Vec<(u32, u32, u32, u32)> {
        let mut inked = word_at(20);
        inked.extend([(100, 40, 108, 54), (111, 26, 117, 68)]);
        inked.extend(word_at(160));
        inked
    }

    #[test]
    fn a_box_round_part_of_a_word_grows_to_the_whole_word_along_its_line() {
        let page = page_with(&line_with_of());
        let words = [
            (0, boxed(19, 39, 51, 55)),
            (0, boxed(99, 39, 109, 55)),
            (0, boxed(159, 39, 191, 55)),
        ];
        assert_eq!(grown_words(&page, &words), [(1, boxed(99, 25, 118, 69))]);
    }

    #[test]
    fn whole_words_and_words_the_ink_runs_together_keep_their_boxes() {
        let page = page_with(&line_with_of());
        let whole = [
            (0, boxed(19, 39, 51, 55)),
            (0, boxed(99, 25, 118, 69)),
            (0, boxed(159, 39, 191, 55)),
        ];
        assert!(grown_words(&page, &whole).is_empty());
        // Two words 3 px apart, boxed apart: the ink runs them together,
        // and the OCR's boxes cover most of it.
        let mut inked = word_at(20);
        inked.extend(word_at(54));
        let page = page_with(&inked);
        let apart = [(0, boxed(19, 39, 51, 55)), (0, boxed(53, 39, 85, 55))];
        assert!(grown_words(&page, &apart).is_empty());
    }

    #[test]
    fn a_box_of_the_line_that_the_whole_word_would_cross_stops_it() {
        let page = page_with(&line_with_of());
        // The OCR read the "f" with the next word.
        let words = [
            (0, boxed(19, 39, 51, 55)),
            (0, boxed(99, 39, 109, 55)),
            (0, boxed(112, 26, 191, 68)),
        ];
        assert!(grown_words(&page, &words).is_empty());
    }

    #[test]
    fn a_descender_of_the_line_above_is_not_a_letter_of_the_line_below() {
        // The upper line's "f" reaches 4 rows into the lower line's band,
        // 3 px right of the lower line's "o": it stands in its own band
        // most, so the "o" keeps its box.
        let mut inked = word_at(20);
        inked.extend([(100, 40, 108, 54), (111, 26, 117, 84)]);
        inked.extend(
            word_at(20)
                .iter()
                .map(|&(x0, y0, x1, y1)| (x0, y0 + 40, x1, y1 + 40)),
        );
        inked.push((100, 80, 108, 94));
        let page = page_with(&inked);
        let words = [
            (0, boxed(19, 39, 51, 55)),
            (0, boxed(99, 25, 118, 85)),
            (1, boxed(19, 79, 51, 95)),
            (1, boxed(99, 79, 109, 95)),
        ];
        assert!(grown_words(&page, &words).is_empty());
    }

    #[test]
    fn each_word_is_told_where_its_line_runs() {
        // Two level lines of x-height 14, the first at rows 40..54, the
        // second at 80..94; the OCR's box of the first line's second word
        // reaches into the second.
        let mut inked = word_at(20);
        inked.extend(word_at(160));
        inked.extend([(100, 40, 130, 54), (100, 80, 108, 94)]);
        let page = page_with(&inked);
        let words = [
            (0, boxed(19, 39, 51, 55)),
            (0, boxed(99, 39, 131, 95)),
            (0, boxed(159, 39, 191, 55)),
            (1, boxed(99, 79, 109, 95)),
            (7, boxed(200, 0, 210, 10)),
        ];
        let lines = lines_at(&page, &words);
        assert_eq!(lines.len(), words.len());
        let first = lines[1].expect("the first line shows ink");
        assert_eq!(first.x_height, 14.0);
        assert!((first.middle - 47.0).abs() < 1.5, "{first:?}");
        let second = lines[3].expect("the second line shows ink");
        assert_eq!(second.middle, 87.0);
        assert_eq!(lines[4], None, "a line of blank paper");
    }

    #[test]
    fn a_band_follows_its_words_slope_and_height() {
        let page = page_with(&[(20, 40, 40, 54), (120, 50, 140, 64)]);
        let band = Band::of(&page, &[boxed(19, 39, 41, 55), boxed(119, 49, 141, 65)]).unwrap();
        assert_eq!(band.x_height, 14.0);
        assert!((band.slope - 0.1).abs() < 1e-4, "{band:?}");
        assert!(
            (band.middle + band.slope * 30.0 - 47.0).abs() < 1e-3,
            "{band:?}"
        );
    }
}
