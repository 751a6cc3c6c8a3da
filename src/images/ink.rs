//! Word boxes from the ink: the OCR engine's box of a word tightened to
//! the ink's extent inside it, and split where the OCR joined words and
//! the ink shows a word's gap.
//!
//! OCR engines give a word the box of what they segmented, which on a
//! noisy line can be the height of the whole line or span two words
//! ("nami¢.of"). The word image is cropped and described from the box
//! found here instead, and a hit reports it; the OCR's box is kept beside
//! it for reference.
//!
//! Inside the OCR box, ink is what is darker than the box's Otsu
//! threshold, less isolated specks (a dark pixel needs two dark
//! neighbours). A box can span two text lines, where loops and descenders
//! join them and no blank row parts them (Tesseract on dense or slanted
//! handwriting): told where the word's OCR line runs ([`LineAt`]), the
//! box is cut to the text line whose x-height band lies nearest it, the
//! bands found from the box's own rows (runs of rows with at least 0.4 of
//! the busiest row's ink, closer than an x-height joined) and parted at
//! the sparsest row between them. The word's rows are then the run of ink
//! rows holding the most ink, joined with the runs within half an
//! x-height of it (an i's dot, an accent; a speck further off is left
//! out). Its columns are the ink columns of those rows. A box is split
//! only when its OCR text holds more than one word (runs of letters and
//! digits parted by other characters, an apostrophe between letters
//! joining them), at the widest blank gaps between letters of at least
//! [`WORD_GAP`] x-heights, one cut fewer than the text's words at most;
//! each cut parts the text at the word boundary nearest its place. The
//! box found keeps one pixel around the ink, the strokes' anti-aliased
//! edge, inside the OCR box. A box without ink contrast, or larger than
//! any word ([`MAX_INK_PIXELS`]), is kept as it is.
//!
//! The descriptors read their unit's band from here too ([`x_band`]), and
//! share the Otsu split of what is ink.

use std::ops::Range;

use image::GrayImage;

use super::WordBox;

/// Least spread of grey values, darkest to lightest, in an OCR box for
/// its ink to be told from the paper; a flatter box is kept as it is.
pub const MIN_CONTRAST: u8 = 40;
/// Blank rows, in x-heights, across which a run of ink rows joins the
/// word's body (never fewer than [`MIN_ROW_GAP`]).
pub const ROW_GAP: f32 = 0.5;
/// Blank rows across which ink always joins the body.
pub const MIN_ROW_GAP: usize = 2;
/// Least blank columns between letters, in x-heights, for the gap to
/// part two words.
pub const WORD_GAP: f32 = 0.4;
/// Share of the busiest row's ink a row holds inside the x-height band.
const X_HEIGHT_ROW_SHARE: f32 = 0.4;
/// Height, in x-heights, under which a run of ink columns is punctuation
/// (a quote, a comma, a dot), never a word of its own.
pub(super) const LETTER_HEIGHT: f32 = 0.7;
/// Pixels kept around the ink's extent: the anti-aliased edge of its
/// strokes, lighter than the threshold.
pub const EDGE: u32 = 1;
/// Largest OCR box, in pixels, whose ink is looked at (a line of 3,000 by
/// 1,400 pixels); a larger one, no word at any scanning resolution, is
/// kept as it is, so that a hostile OCR file cannot make every word cost
/// a page.
pub const MAX_INK_PIXELS: u64 = 1 << 22;
/// Least dark pixels in a dark pixel's 3×3 neighbourhood (itself
/// included) for it to be ink.
const INK_NEIGHBOURHOOD: u8 = 3;

/// A word found in an OCR box: its box on the page and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InkWord {
    /// The ink's box.
    pub bbox: WordBox,
    /// Its share of the OCR text (the whole text when not split).
    pub text: String,
}

/// The words in the OCR box `ocr_box` of `page`, read as `text` by the
/// OCR: one word with the ink's box, or several where the OCR joined
/// words (see the module docs); the OCR box itself when it holds no ink
/// to find. `ocr_box` must lie within the page.
pub fn ink_words(
    page: &GrayImage,
    ocr_box: WordBox,
    text: &str,
    line: Option<LineAt>,
) -> Vec<InkWord> {
    let unchanged = || {
        vec![InkWord {
            bbox: ocr_box,
            text: text.to_string(),
        }]
    };
    let Some(ink) = Ink::of(page, ocr_box) else {
        return unchanged();
    };
    let all_rows = ink.row_counts(0..ink.width);
    let rows = match line {
        Some(line) => line_of_the_word(&all_rows, ocr_box.y0, line),
        None => 0..all_rows.len(),
    };
    let words = words_in_rows(&ink, &all_rows, rows, text);
    if words.is_empty() {
        return unchanged();
    }
    words
}

/// The words of `ink` (whose rows hold `all_rows` dark pixels) within the
/// rows `line`, read as `text` by the OCR: the word's body among those
/// rows, parted at its word gaps where the text holds several words.
fn words_in_rows(ink: &Ink, all_rows: &[u32], line: Range<usize>, text: &str) -> Vec<InkWord> {
    let Some(body_rows) = body(&all_rows[line.clone()]) else {
        return Vec::new();
    };
    let rows = shifted(body_rows, line.start);
    let x_height = x_height(&all_rows[rows.clone()]) as f32;
    let column_runs = runs(&ink.column_counts(rows.clone()));
    let boundaries = word_starts(text);
    let cuts = widest_word_gaps(
        ink,
        rows.clone(),
        &column_runs,
        x_height,
        boundaries.len() - 1,
    );
    let pieces = pieces_between(&column_runs, &cuts);
    let texts = split_text(text, &boundaries, &cuts_at(&column_runs, &cuts));
    (pieces.into_iter().zip(texts))
        .filter_map(|(columns, text)| {
            let part = ink.row_counts(columns.clone());
            let rows = shifted(body(&part[line.clone()])?, line.start);
            Some(InkWord {
                bbox: ink.page_box(columns, rows),
                text,
            })
        })
        .collect()
}

/// `rows` moved `by` rows down: a range within a slice starting at `by`,
/// as a range of the whole.
fn shifted(rows: Range<usize>, by: usize) -> Range<usize> {
    rows.start + by..rows.end + by
}

/// Where the OCR's line of a word runs at the word: the middle row of its
/// x-height band there, on the page, and the band's height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineAt {
    /// Page row of the band's middle at the word's middle column.
    pub middle: f32,
    /// The band's height in rows.
    pub x_height: f32,
}

/// The rows of a box's ink `rows` (dark pixels a row; the box's top at
/// page row `top`) that hold the word of `line`: all of them when the box
/// holds one text line, else the text line whose x-height band lies
/// nearest the line's middle (see [`text_lines`]).
fn line_of_the_word(rows: &[u32], top: u32, line: LineAt) -> Range<usize> {
    let lines = text_lines(rows, line.x_height);
    let distance = |(_, middle): &(Range<usize>, f32)| (top as f32 + middle - line.middle).abs();
    (lines.into_iter())
        .min_by(|a, b| distance(a).total_cmp(&distance(b)))
        .map_or(0..rows.len(), |(rows, _)| rows)
}

/// The rows of each text line a box's ink `rows` (dark pixels a row)
/// holds, top to bottom, each with the middle of its x-height band: one
/// range of all rows for a box of one line. A band is a run of rows
/// holding at least [`X_HEIGHT_ROW_SHARE`] of the busiest row's ink, runs
/// closer than `x_height` joined (a serif's rows, a descender's loop), at
/// least half `x_height` high. Two bands are parted at the sparsest row
/// between them.
fn text_lines(rows: &[u32], x_height: f32) -> Vec<(Range<usize>, f32)> {
    let middle = |band: &Range<usize>| (band.start + band.end) as f32 / 2.0;
    let whole = vec![(0..rows.len(), middle(&(0..rows.len())))];
    let busiest = rows.iter().copied().max().unwrap_or(0);
    let x_height = x_height.round() as usize;
    if busiest == 0 || x_height == 0 {
        return whole;
    }
    let least = X_HEIGHT_ROW_SHARE * busiest as f32;
    let dense: Vec<u32> = rows.iter().map(|&n| u32::from(n as f32 >= least)).collect();
    let mut bands: Vec<Range<usize>> = Vec::new();
    for core in runs(&dense) {
        match bands.last_mut() {
            Some(band) if core.start - band.end < x_height => band.end = core.end,
            _ => bands.push(core),
        }
    }
    bands.retain(|band| 2 * band.len() >= x_height);
    if bands.len() < 2 {
        return whole;
    }
    let mut lines = Vec::with_capacity(bands.len());
    let mut start = 0;
    for pair in bands.windows(2) {
        let between = pair[0].end..pair[1].start;
        let cut = between
            .clone()
            .min_by_key(|&y| (rows[y], y))
            .unwrap_or(between.start);
        lines.push((start..cut, middle(&pair[0])));
        start = cut;
    }
    lines.push((start..rows.len(), middle(&bands[bands.len() - 1])));
    lines
}

/// The x-height band of the word whose box is `bbox`: the page row its
/// rows are centred on (the middle of the first and last row holding at
/// least 0.4 of the busiest row's ink) and how many rows hold that much;
/// `None` where the box shows no ink (see [`ink_words`]).
pub fn x_band(page: &GrayImage, bbox: WordBox) -> Option<(f32, u32)> {
    let ink = Ink::of(page, bbox)?;
    let rows = ink.row_counts(0..ink.width);
    let busiest = rows.iter().copied().max().filter(|&n| n > 0)?;
    let least = X_HEIGHT_ROW_SHARE * busiest as f32;
    let band: Vec<usize> = (0..rows.len())
        .filter(|&y| rows[y] as f32 >= least)
        .collect();
    let (first, last) = (*band.first()?, *band.last()?);
    Some((
        bbox.y0 as f32 + (first + last + 1) as f32 / 2.0,
        band.len() as u32,
    ))
}

/// The dark pixels of a box, specks removed.
pub(super) struct Ink {
    /// The box on its page.
    pub(super) bbox: WordBox,
    /// Its width in pixels.
    pub(super) width: usize,
    /// Whether each pixel is ink, row by row.
    pub(super) dark: Vec<bool>,
}

impl Ink {
    /// The ink of `bbox` on `page`, or `None` when the box is empty,
    /// larger than [`MAX_INK_PIXELS`] or its grey values spread less than
    /// [`MIN_CONTRAST`].
    pub(super) fn of(page: &GrayImage, bbox: WordBox) -> Option<Ink> {
        let (page_w, page_h) = page.dimensions();
        let pixels = u64::from(bbox.width()) * u64::from(bbox.height());
        if bbox.is_empty() || bbox.x1 > page_w || bbox.y1 > page_h || pixels > MAX_INK_PIXELS {
            return None;
        }
        let (width, height) = (bbox.width() as usize, bbox.height() as usize);
        let mut grey = Vec::with_capacity(width * height);
        for y in bbox.y0..bbox.y1 {
            grey.extend((bbox.x0..bbox.x1).map(|x| page.get_pixel(x, y).0[0]));
        }
        let (darkest, lightest) = (grey.iter().min()?, grey.iter().max()?);
        if lightest - darkest < MIN_CONTRAST {
            return None;
        }
        let threshold = otsu_threshold(&grey);
        let raw: Vec<bool> = grey.iter().map(|&v| v <= threshold).collect();
        let dark = despeckled(&raw, width, height);
        Some(Ink { bbox, width, dark })
    }

    /// Dark pixels of each row, over `columns`.
    fn row_counts(&self, columns: Range<usize>) -> Vec<u32> {
        (self.dark.chunks_exact(self.width))
            .map(|row| row[columns.clone()].iter().map(|&d| u32::from(d)).sum())
            .collect()
    }

    /// Dark pixels of each column, over `rows`.
    fn column_counts(&self, rows: Range<usize>) -> Vec<u32> {
        let mut counts = vec![0u32; self.width];
        for row in self
            .dark
            .chunks_exact(self.width)
            .take(rows.end)
            .skip(rows.start)
        {
            for (count, &d) in counts.iter_mut().zip(row) {
                *count += u32::from(d);
            }
        }
        counts
    }

    /// Rows of `columns` within `rows` holding ink: how high the ink of
    /// those columns stands.
    fn ink_height(&self, columns: Range<usize>, rows: Range<usize>) -> usize {
        let counts = self.row_counts(columns);
        let inked: Vec<usize> = (rows.clone()).filter(|&y| counts[y] > 0).collect();
        match (inked.first(), inked.last()) {
            (Some(&top), Some(&bottom)) => bottom + 1 - top,
            _ => 0,
        }
    }

    /// The page box of `columns` × `rows` of this box, with [`EDGE`] pixels around it inside this box.
    fn page_box(&self, columns: Range<usize>, rows: Range<usize>) -> WordBox {
        let b = self.bbox;
        WordBox {
            x0: (b.x0 + columns.start as u32).saturating_sub(EDGE).max(b.x0),
            y0: (b.y0 + rows.start as u32).saturating_sub(EDGE).max(b.y0),
            x1: (b.x0 + columns.end as u32 + EDGE).min(b.x1),
            y1: (b.y0 + rows.end as u32 + EDGE).min(b.y1),
        }
    }
}

/// Otsu's threshold of grey values: the value at or below which a pixel
/// is dark, the split that best parts the two classes.
fn otsu_threshold(grey: &[u8]) -> u8 {
    let mut histogram = [0u64; 256];
    for &v in grey {
        histogram[v as usize] += 1;
    }
    otsu_split(&histogram).map_or(127, |last_dark| last_dark as u8)
}

/// Otsu's split of a histogram: the last bin of the lower of the two
/// classes that part it with the greatest between-class variance; `None`
/// when no split parts it (fewer than two bins occupied).
pub(super) fn otsu_split(histogram: &[u64]) -> Option<usize> {
    let total: f64 = histogram.iter().map(|&n| n as f64).sum();
    let sum_all: f64 = (histogram.iter().enumerate())
        .map(|(i, &n)| i as f64 * n as f64)
        .sum();
    let (mut best, mut split) = (0.0f64, None);
    let (mut weight_low, mut sum_low) = (0.0f64, 0.0f64);
    for (i, &n) in histogram.iter().enumerate() {
        weight_low += n as f64;
        sum_low += i as f64 * n as f64;
        let weight_high = total - weight_low;
        if weight_low == 0.0 || weight_high == 0.0 {
            continue;
        }
        let (mean_low, mean_high) = (sum_low / weight_low, (sum_all - sum_low) / weight_high);
        let between = weight_low * weight_high * (mean_low - mean_high).powi(2);
        if between > best {
            (best, split) = (between, Some(i));
        }
    }
    split
}

/// `raw` less the dark pixels with fewer than [`INK_NEIGHBOURHOOD`] dark
/// pixels in their 3×3 neighbourhood.
pub(super) fn despeckled(raw: &[bool], width: usize, height: usize) -> Vec<bool> {
    let at = |x: usize, y: usize| raw[y * width + x];
    let mut out = vec![false; raw.len()];
    for y in 0..height {
        for x in 0..width {
            if !at(x, y) {
                continue;
            }
            let mut dark = 0u8;
            for ny in y.saturating_sub(1)..(y + 2).min(height) {
                for nx in x.saturating_sub(1)..(x + 2).min(width) {
                    dark += u8::from(at(nx, ny));
                }
            }
            out[y * width + x] = dark >= INK_NEIGHBOURHOOD;
        }
    }
    out
}

/// The maximal runs of non-zero counts.
pub(super) fn runs(counts: &[u32]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &n) in counts.iter().enumerate() {
        match (n > 0, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..counts.len());
    }
    out
}

/// Rows holding at least [`X_HEIGHT_ROW_SHARE`] of the busiest row's ink:
/// the x-height band's height in rows (0 for no ink).
fn x_height(rows: &[u32]) -> usize {
    let busiest = rows.iter().copied().max().unwrap_or(0);
    if busiest == 0 {
        return 0;
    }
    let least = X_HEIGHT_ROW_SHARE * busiest as f32;
    rows.iter().filter(|&&n| n as f32 >= least).count()
}

/// The word's rows among ink `rows` (dark pixels a row): the run of ink
/// rows holding the most ink, joined across blank gaps of at most
/// [`ROW_GAP`] x-heights with the runs beside it; `None` without ink.
fn body(rows: &[u32]) -> Option<Range<usize>> {
    let row_runs = runs(rows);
    let ink = |run: &Range<usize>| rows[run.clone()].iter().map(|&n| u64::from(n)).sum::<u64>();
    // The first of the heaviest runs, for a deterministic choice.
    let heaviest = (0..row_runs.len())
        .rev()
        .max_by_key(|&i| ink(&row_runs[i]))?;
    let gap = ((ROW_GAP * x_height(rows) as f32) as usize).max(MIN_ROW_GAP);
    let (mut first, mut last) = (heaviest, heaviest);
    while first > 0 && row_runs[first].start - row_runs[first - 1].end <= gap {
        first -= 1;
    }
    while last + 1 < row_runs.len() && row_runs[last + 1].start - row_runs[last].end <= gap {
        last += 1;
    }
    Some(row_runs[first].start..row_runs[last].end)
}

/// Where each word of `text` starts (byte offsets; one for a text of no
/// word): a word is a run of letters and digits, an apostrophe between
/// two of them joining them.
fn word_starts(text: &str) -> Vec<usize> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let is_apostrophe = |c: char| matches!(c, '\'' | '\u{2019}');
    let in_word = |i: usize| {
        let (_, c) = chars[i];
        c.is_alphanumeric()
            || (is_apostrophe(c)
                && i > 0
                && i + 1 < chars.len()
                && chars[i - 1].1.is_alphanumeric()
                && chars[i + 1].1.is_alphanumeric())
    };
    let mut starts: Vec<usize> = (0..chars.len())
        .filter(|&i| in_word(i) && (i == 0 || !in_word(i - 1)))
        .map(|i| chars[i].0)
        .collect();
    if starts.is_empty() {
        starts.push(0);
    }
    starts
}

/// Up to `most` cuts, each the place `m` in `column_runs` of a blank gap
/// (between runs `m` and `m + 1`) of at least [`WORD_GAP`] x-heights that
/// parts two letters, the widest first, returned in the order of the
/// line. Between two letters the cut is the widest gap among those their
/// punctuation leaves.
fn widest_word_gaps(
    ink: &Ink,
    rows: Range<usize>,
    column_runs: &[Range<usize>],
    x_height: f32,
    most: usize,
) -> Vec<usize> {
    if most == 0 || column_runs.len() < 2 {
        return Vec::new();
    }
    let letters: Vec<usize> = (0..column_runs.len())
        .filter(|&i| {
            ink.ink_height(column_runs[i].clone(), rows.clone()) as f32 >= LETTER_HEIGHT * x_height
        })
        .collect();
    let gap = |m: usize| column_runs[m + 1].start - column_runs[m].end;
    let mut candidates: Vec<(usize, usize)> = (letters.windows(2))
        .filter_map(|pair| {
            let widest = (pair[0]..pair[1]).max_by_key(|&m| (gap(m), std::cmp::Reverse(m)))?;
            (gap(widest) as f32 >= WORD_GAP * x_height).then_some((gap(widest), widest))
        })
        .collect();
    candidates.sort_by_key(|&(width, m)| (std::cmp::Reverse(width), m));
    let mut cuts: Vec<usize> = candidates.into_iter().take(most).map(|(_, m)| m).collect();
    cuts.sort_unstable();
    cuts
}

/// The column ranges the `cuts` part `column_runs` into.
fn pieces_between(column_runs: &[Range<usize>], cuts: &[usize]) -> Vec<Range<usize>> {
    let (Some(first), Some(last)) = (column_runs.first(), column_runs.last()) else {
        return Vec::new();
    };
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut start = first.start;
    for &m in cuts {
        pieces.push(start..column_runs[m].end);
        start = column_runs[m + 1].start;
    }
    pieces.push(start..last.end);
    pieces
}

/// Where each cut falls, as a share of the ink's width (its gap's middle).
fn cuts_at(column_runs: &[Range<usize>], cuts: &[usize]) -> Vec<f32> {
    let (Some(first), Some(last)) = (column_runs.first(), column_runs.last()) else {
        return Vec::new();
    };
    let width = (last.end - first.start).max(1) as f32;
    (cuts.iter())
        .map(|&m| {
            let middle = (column_runs[m].end + column_runs[m + 1].start) as f32 / 2.0;
            (middle - first.start as f32) / width
        })
        .collect()
}

/// `text` parted at word starts `starts` (from [`word_starts`]) for cuts
/// at shares `cuts` of the ink's width (fewer cuts than starts): each cut
/// takes, in order, the start nearest its share of the text's characters
/// that leaves a start for each cut after it. A part holds its word and
/// the characters up to the next part's word.
fn split_text(text: &str, starts: &[usize], cuts: &[f32]) -> Vec<String> {
    let chars = text.chars().count().max(1) as f32;
    let share = |byte: usize| text[..byte].chars().count() as f32 / chars;
    let mut chosen: Vec<usize> = Vec::with_capacity(cuts.len());
    let mut next = 1;
    for (i, &at) in cuts.iter().enumerate() {
        let last_free = starts.len() - (cuts.len() - i);
        let nearest = (next..=last_free)
            .min_by(|&a, &b| {
                (share(starts[a]) - at)
                    .abs()
                    .total_cmp(&(share(starts[b]) - at).abs())
            })
            .unwrap_or(next);
        chosen.push(starts[nearest]);
        next = nearest + 1;
    }
    let mut parts = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for byte in chosen {
        parts.push(text[from..byte].to_string());
        from = byte;
    }
    parts.push(text[from..].to_string());
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white page with black rectangles (x0, y0, x1, y1).
    fn page_with(width: u32, height: u32, inked: &[(u32, u32, u32, u32)]) -> GrayImage {
        GrayImage::from_fn(width, height, |x, y| {
            let dark = (inked.iter())
                .any(|&(x0, y0, x1, y1)| (x0..x1).contains(&x) && (y0..y1).contains(&y));
            image::Luma([if dark { 0 } else { 255 }])
        })
    }

    fn boxed(x0: u32, y0: u32, x1: u32, y1: u32) -> WordBox {
        WordBox { x0, y0, x1, y1 }
    }

    /// Three "letters" 14 px high (the x-height) with 3-px gaps from
    /// `x`, on the line at y 40..54.
    fn letters_at(x: u32) -> Vec<(u32, u32, u32, u32)> {
        (0..3)
            .map(|i| (x + i * 11, 40, x + i * 11 + 8, 54))
            .collect()
    }

    #[test]
    fn a_box_as_high_as_its_line_is_tightened_to_the_ink() {
        let page = page_with(200, 100, &letters_at(20));
        let words = ink_words(&page, boxed(10, 20, 70, 80), "run", None);
        assert_eq!(
            words,
            [InkWord {
                bbox: boxed(19, 39, 51, 55),
                text: "run".into()
            }]
        );
    }

    #[test]
    fn the_edge_around_the_ink_stays_inside_the_ocr_box() {
        let page = page_with(200, 100, &letters_at(20));
        let words = ink_words(&page, boxed(20, 40, 50, 54), "run", None);
        assert_eq!(words[0].bbox, boxed(20, 40, 50, 54));
    }

    #[test]
    fn a_far_speck_is_left_out_and_a_near_dot_kept() {
        let mut inked = letters_at(20);
        inked.push((30, 22, 33, 25)); // 15 rows above: a speck
        inked.push((44, 36, 47, 38)); // 2 rows above: a dot
        let page = page_with(200, 100, &inked);
        let words = ink_words(&page, boxed(10, 20, 70, 80), "run", None);
        assert_eq!(words[0].bbox, boxed(19, 35, 51, 55));
    }

    #[test]
    fn single_dark_pixels_are_not_ink() {
        let mut inked = letters_at(20);
        inked.extend([(12, 70, 13, 71), (65, 25, 66, 26), (60, 45, 61, 46)]);
        let page = page_with(200, 100, &inked);
        assert_eq!(
            ink_words(&page, boxed(10, 20, 70, 80), "run", None)[0].bbox,
            boxed(19, 39, 51, 55)
        );
    }

    #[test]
    fn joined_words_are_split_at_the_ink_s_gap_and_their_text_at_its_separator() {
        let mut inked = letters_at(20);
        inked.extend(letters_at(60)); // a 12-px gap: a word space
        let page = page_with(200, 100, &inked);
        let words = ink_words(&page, boxed(15, 30, 100, 60), "nami¢.of", None);
        assert_eq!(
            words,
            [
                InkWord {
                    bbox: boxed(19, 39, 51, 55),
                    text: "nami¢.".into()
                },
                InkWord {
                    bbox: boxed(59, 39, 91, 55),
                    text: "of".into()
                },
            ]
        );
        // One word in the text: never split, whatever the gap.
        let whole = ink_words(&page, boxed(15, 30, 100, 60), "nameof", None);
        assert_eq!(
            whole,
            [InkWord {
                bbox: boxed(19, 39, 91, 55),
                text: "nameof".into()
            }]
        );
    }

    #[test]
    fn an_apostrophe_or_a_quote_mark_does_not_split() {
        let mut inked = letters_at(20);
        inked.push((58, 40, 60, 46)); // a quote mark after a wide gap
        let page = page_with(200, 100, &inked);
        let words = ink_words(&page, boxed(15, 30, 70, 60), "cutters.'", None);
        assert_eq!(words.len(), 1);
        let words = ink_words(&page, boxed(15, 30, 70, 60), "hedge-cutters.'", None);
        assert_eq!(words.len(), 1, "a quote mark is no word of its own");
        assert_eq!(word_starts("I'll"), [0]);
        assert_eq!(word_starts("there\u{2019}s"), [0]);
        assert_eq!(word_starts("'I'll"), [1]);
        assert_eq!(word_starts("nami¢.of"), [0, 7]);
    }

    #[test]
    fn fewer_gaps_than_words_cut_the_text_where_they_fall() {
        let mut inked = letters_at(20);
        inked.extend(letters_at(60));
        let page = page_with(200, 100, &inked);
        // Three words read, one gap seen: it falls half way, so the text
        // parts at the word start nearest half way.
        let words = ink_words(&page, boxed(15, 30, 100, 60), "ab.cdef.gh", None);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["ab.", "cdef.gh"]);
        assert_eq!(
            split_text("ab.cdef.gh", &[0, 3, 8], &[0.9]),
            ["ab.cdef.", "gh"]
        );
    }

    /// The letters of `letters_at(20)` and the same 40 rows lower, joined
    /// by a 2-px stroke (an "f"'s loop reaching the next line), so that no
    /// blank row parts the two lines.
    fn two_touching_lines() -> GrayImage {
        let mut inked = letters_at(20);
        inked.extend((letters_at(20).iter()).map(|&(x0, y0, x1, y1)| (x0, y0 + 40, x1, y1 + 40)));
        inked.push((30, 54, 32, 80));
        page_with(200, 120, &inked)
    }

    #[test]
    fn a_box_across_two_lines_keeps_the_line_of_its_ocr_line() {
        let page = two_touching_lines();
        let ocr_box = boxed(15, 30, 60, 100);
        let upper = LineAt {
            middle: 47.0,
            x_height: 14.0,
        };
        assert_eq!(
            ink_words(&page, ocr_box, "run", Some(upper)),
            [InkWord {
                bbox: boxed(19, 39, 51, 55),
                text: "run".into()
            }]
        );
        // The lower line's word keeps the stroke that reaches up from it.
        let lower = LineAt {
            middle: 87.0,
            ..upper
        };
        let words = ink_words(&page, ocr_box, "run", Some(lower));
        assert_eq!(words.len(), 1);
        assert_eq!((words[0].bbox.x0, words[0].bbox.y1), (19, 95));
        assert!((53..80).contains(&words[0].bbox.y0), "{words:?}");
        // Without its line the box is both lines' ink.
        assert_eq!(
            ink_words(&page, ocr_box, "run", None)[0].bbox,
            boxed(19, 39, 51, 95)
        );
    }

    #[test]
    fn heavy_serifs_are_one_line() {
        // Letters of bars 3 rows high at the top and bottom of the
        // x-height band, and 1-px stems: the rows between hold a quarter of
        // a bar's ink.
        let inked: Vec<(u32, u32, u32, u32)> = (letters_at(20).iter())
            .flat_map(|&(x0, y0, x1, y1)| {
                [
                    (x0, y0, x1, y0 + 3),
                    (x0, y1 - 3, x1, y1),
                    (x0, y0, x0 + 1, y1),
                    (x1 - 1, y0, x1, y1),
                ]
            })
            .collect();
        let page = page_with(200, 100, &inked);
        let line = LineAt {
            middle: 47.0,
            x_height: 14.0,
        };
        assert_eq!(
            ink_words(&page, boxed(10, 20, 70, 80), "run", Some(line))[0].bbox,
            boxed(19, 39, 51, 55)
        );
        let rows = [8, 8, 8, 2, 2, 2, 2, 2, 2, 2, 2, 8, 8, 8];
        assert_eq!(text_lines(&rows, 14.0).len(), 1);
        // Were the line's x-height a third as high, the bars would be two
        // lines.
        assert_eq!(text_lines(&rows, 5.0).len(), 2);
    }

    #[test]
    fn a_flat_or_empty_box_is_kept_as_it_is() {
        let page = GrayImage::from_pixel(50, 50, image::Luma([200]));
        let bbox = boxed(5, 5, 30, 30);
        assert_eq!(
            ink_words(&page, bbox, "x", None),
            [InkWord {
                bbox,
                text: "x".into()
            }]
        );
        let empty = boxed(5, 5, 5, 30);
        assert_eq!(ink_words(&page, empty, "x", None)[0].bbox, empty);
    }

    #[test]
    fn a_box_larger_than_any_word_is_kept_as_it_is() {
        let page = page_with(2100, 2100, &letters_at(20));
        let whole = boxed(0, 0, 2100, 2100);
        assert!(u64::from(whole.width()) * u64::from(whole.height()) > MAX_INK_PIXELS);
        assert_eq!(ink_words(&page, whole, "run", None)[0].bbox, whole);
        let line = boxed(0, 0, 2100, 100);
        assert_eq!(
            ink_words(&page, line, "run", None)[0].bbox,
            boxed(19, 39, 51, 55)
        );
    }

    #[test]
    fn grey_paper_and_grey_ink_are_told_apart() {
        let page = GrayImage::from_fn(120, 80, |x, y| {
            let ink = (20..50).contains(&x) && (30..44).contains(&y) && (x - 20) % 11 < 8;
            image::Luma([if ink { 110 } else { 170 + (x % 7) as u8 }])
        });
        assert_eq!(
            ink_words(&page, boxed(10, 10, 70, 70), "run", None)[0].bbox,
            boxed(19, 29, 51, 45)
        );
    }
}
