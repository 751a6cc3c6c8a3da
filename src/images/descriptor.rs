//! Local descriptors of a word image (thesis 7.1): SIFT-like histograms
//! of gradient orientation in 4×4 cells of a square patch, at dense points
//! of the word's ink, orientation fixed (scanned lines are level). Each
//! point keeps its x position from the box's left edge in the word's
//! *unit*, the coordinate the letter-bigram model slides its window along.
//!
//! The word is first resampled so that its unit is [`NORMAL_HEIGHT`]
//! pixels high: every descriptor then costs the same whatever the scan's
//! resolution, and the patch is always [`NORMAL_HEIGHT`] pixels wide.
//! [`Normalisation`] says what the unit is. A multiple of the x-height
//! (the default) gives every word of a line one scale and one band,
//! centred on the x-height band, whatever its ascenders and descenders;
//! the box's height (what indexes of format 18 and before were described
//! with) puts "ace" at about twice the scale of "fly". Points lie on a
//! grid of [`GRID_STEP`] pixels over the box's width and the unit's rows;
//! a point is kept when the cell around it holds ink (darker than the
//! word's Otsu threshold), as the thesis keeps the ink pixels of a
//! downsampled page.

use image::GrayImage;

use super::ink::{otsu_split, x_band};
use super::WordBox;

/// Height in pixels a word's unit is resampled to.
pub const NORMAL_HEIGHT: u32 = 32;
/// Spacing of the dense points, in pixels of the resampled word (an
/// eighth of its height).
pub const GRID_STEP: u32 = 4;
/// Dimensions of a descriptor: 4 × 4 cells × 8 orientations.
pub const DIMENSIONS: usize = 128;

const CELLS_PER_SIDE: usize = 4;
const ORIENTATIONS: usize = 8;
/// Margin added around the unit's band before resampling, as a share of
/// its height: a patch centred on the band's edge reads half a patch
/// outside.
const MARGIN: f32 = 0.5;
/// Widest word accepted, in units: a box wider than this is cut to it (a
/// merged line, not a word).
const MAX_ASPECT: f32 = 40.0;

/// What a word image's unit is: the height its descriptors' patches and
/// positions are scaled to. A vocabulary is learned from descriptors of
/// one normalisation, and every word it quantises is described the same
/// way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Normalisation {
    /// The box's height, centred on the box (formats 9 to 18).
    BoxHeight,
    /// [`X_HEIGHTS_PER_UNIT`] times the word's x-height, centred on its
    /// x-height band (format 19 on), rounded to a pixel and kept within
    /// [`MIN_UNIT_SHARE`]..=[`MAX_UNIT_SHARE`] of the box's height; the
    /// box's height where the box shows no ink to read the band from.
    XHeight,
}

impl Normalisation {
    /// What new vocabularies are learned with.
    pub const DEFAULT: Normalisation = Normalisation::XHeight;

    /// The byte a vocabulary file stores it as.
    pub fn to_byte(self) -> u8 {
        match self {
            Normalisation::BoxHeight => 0,
            Normalisation::XHeight => 1,
        }
    }

    /// The normalisation stored as `byte`, if any.
    pub fn from_byte(byte: u8) -> Option<Normalisation> {
        match byte {
            0 => Some(Normalisation::BoxHeight),
            1 => Some(Normalisation::XHeight),
            _ => None,
        }
    }
}

impl std::fmt::Display for Normalisation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Normalisation::BoxHeight => "the box's height",
            Normalisation::XHeight => "1.6 x-heights",
        })
    }
}

/// X-heights in a unit of [`Normalisation::XHeight`]. Measured with
/// `stemmata eval-images` on rendered blackletter and handwriting sets (30
/// and 60 pages), images alone, MAP: 1.3 x-heights gave the most but the
/// least combined with the OCR, 2 and 2.5 less of both (benches/README.md,
/// "Word images described by their x-height").
pub const X_HEIGHTS_PER_UNIT: f32 = 1.6;
/// Least unit, as a share of the box's height: where the x-height band
/// reads too thin for its box (a speck taken for the band's ink), the word
/// is described at half its box's height.
pub const MIN_UNIT_SHARE: f32 = 0.5;
/// Greatest unit, as a share of the box's height.
pub const MAX_UNIT_SHARE: f32 = 2.0;

/// A word image described: its points and its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Described {
    /// Its dense points, positions in units.
    pub keypoints: Vec<Keypoint>,
    /// The unit in pixels of the page: the box's height, or what
    /// [`Normalisation::XHeight`] found.
    pub unit: u32,
}

impl Described {
    /// The box's width in units: the width a likelihood row slides over.
    pub fn width_in_units(bbox: WordBox, unit: u32) -> f32 {
        bbox.width() as f32 / unit.max(1) as f32
    }
}

/// One dense point of a word image.
#[derive(Debug, Clone, PartialEq)]
pub struct Keypoint {
    /// x of the point from the box's left edge, in units.
    pub x: f32,
    /// The descriptor, each value 0..=255 (SIFT's scaling).
    pub descriptor: [u8; DIMENSIONS],
}

/// The word in `bbox` on `page` described under `normalisation`: no
/// points for a box that is empty, outside the page, or holds no ink.
pub fn describe(page: &GrayImage, bbox: WordBox, normalisation: Normalisation) -> Described {
    let (middle, unit) = unit_band(page, bbox, normalisation);
    Described {
        keypoints: points(page, bbox, middle, unit),
        unit,
    }
}

/// The row (of the page, in pixels) the unit's band is centred on, and
/// the unit in pixels.
fn unit_band(page: &GrayImage, bbox: WordBox, normalisation: Normalisation) -> (f32, u32) {
    let box_band = ((bbox.y0 + bbox.y1) as f32 / 2.0, bbox.height());
    match normalisation {
        Normalisation::BoxHeight => box_band,
        Normalisation::XHeight => match x_band(page, bbox) {
            Some((middle, x_height)) => {
                let height = bbox.height() as f32;
                let least = (MIN_UNIT_SHARE * height).ceil() as u32;
                let most = (MAX_UNIT_SHARE * height) as u32;
                let unit = (X_HEIGHTS_PER_UNIT * x_height as f32).round() as u32;
                (middle, unit.clamp(least.max(1), most.max(1)))
            }
            None => box_band,
        },
    }
}

/// The points of the word in `bbox`, its unit `unit` pixels high centred
/// on row `middle`.
fn points(page: &GrayImage, bbox: WordBox, middle: f32, unit: u32) -> Vec<Keypoint> {
    let Some(word) = Normalised::of(page, bbox, middle, unit) else {
        return Vec::new();
    };
    let gradients = Gradients::of(&word);
    let threshold = otsu_threshold(&word.pixels);
    let mut points = Vec::new();
    let half = GRID_STEP / 2;
    let mut y = word.top + half;
    while y < word.top + NORMAL_HEIGHT {
        let mut x = word.left + half;
        while x < word.left + word.box_width {
            if word.has_ink_near(x, y, half, threshold) {
                points.push(Keypoint {
                    x: (x - word.left) as f32 / NORMAL_HEIGHT as f32,
                    descriptor: gradients.descriptor(x, y),
                });
            }
            x += GRID_STEP;
        }
        y += GRID_STEP;
    }
    points
}

/// A word's box across, its unit's band high, with their margin,
/// resampled so that the unit is [`NORMAL_HEIGHT`] pixels (bilinear), as
/// floats 0 (white) ..= 1 (black ink).
struct Normalised {
    pixels: Vec<f32>,
    width: u32,
    height: u32,
    /// Where the box's left edge and the band's top are in the resampled
    /// image.
    left: u32,
    top: u32,
    box_width: u32,
}

impl Normalised {
    fn of(page: &GrayImage, bbox: WordBox, middle: f32, unit: u32) -> Option<Normalised> {
        let (page_w, page_h) = page.dimensions();
        if bbox.is_empty() || bbox.x1 > page_w || bbox.y1 > page_h || unit == 0 {
            return None;
        }
        let scale = NORMAL_HEIGHT as f32 / unit as f32;
        let top = middle - unit as f32 / 2.0;
        let max_width = (MAX_ASPECT * NORMAL_HEIGHT as f32) as u32;
        let box_width = ((bbox.width() as f32 * scale).round() as u32).clamp(1, max_width);
        let margin = (MARGIN * NORMAL_HEIGHT as f32) as u32;
        let (width, height) = (box_width + 2 * margin, NORMAL_HEIGHT + 2 * margin);
        let mut pixels = Vec::with_capacity((width * height) as usize);
        for y in 0..height {
            let source_y = top + (y as f32 - margin as f32 + 0.5) / scale - 0.5;
            for x in 0..width {
                let source_x = bbox.x0 as f32 + (x as f32 - margin as f32 + 0.5) / scale - 0.5;
                pixels.push(1.0 - sample(page, source_x, source_y) / 255.0);
            }
        }
        Some(Normalised {
            pixels,
            width,
            height,
            left: margin,
            top: margin,
            box_width,
        })
    }

    fn at(&self, x: u32, y: u32) -> f32 {
        self.pixels[(y * self.width + x) as usize]
    }

    /// Whether a pixel within `radius` of (x, y) is at least `threshold`.
    fn has_ink_near(&self, x: u32, y: u32, radius: u32, threshold: f32) -> bool {
        let (x0, x1) = (x.saturating_sub(radius), (x + radius).min(self.width - 1));
        let (y0, y1) = (y.saturating_sub(radius), (y + radius).min(self.height - 1));
        (y0..=y1).any(|yy| (x0..=x1).any(|xx| self.at(xx, yy) >= threshold))
    }
}

/// The page's grey value at a real position, bilinear, white outside.
fn sample(page: &GrayImage, x: f32, y: f32) -> f32 {
    let (w, h) = page.dimensions();
    let value = |xi: i64, yi: i64| -> f32 {
        if xi < 0 || yi < 0 || xi >= w as i64 || yi >= h as i64 {
            255.0
        } else {
            page.get_pixel(xi as u32, yi as u32).0[0] as f32
        }
    };
    let (fx, fy) = (x.floor(), y.floor());
    let (dx, dy) = (x - fx, y - fy);
    let (xi, yi) = (fx as i64, fy as i64);
    let top = value(xi, yi) * (1.0 - dx) + value(xi + 1, yi) * dx;
    let bottom = value(xi, yi + 1) * (1.0 - dx) + value(xi + 1, yi + 1) * dx;
    top * (1.0 - dy) + bottom * dy
}

/// Otsu's threshold of ink values in 0..=1 (64 bins): the value splitting
/// them into the two classes of least spread. Never below a quarter, so
/// that a blank box has no ink.
fn otsu_threshold(values: &[f32]) -> f32 {
    const BINS: usize = 64;
    let mut histogram = [0u64; BINS];
    for &v in values {
        histogram[((v.clamp(0.0, 1.0)) * (BINS - 1) as f32).round() as usize] += 1;
    }
    let split = otsu_split(&histogram).map_or(BINS / 2, |last_low| last_low + 1);
    (split as f32 / (BINS - 1) as f32).max(0.25)
}

/// Each pixel's gradient magnitude split between its two nearest
/// orientation bins.
struct Gradients {
    width: u32,
    height: u32,
    /// Per pixel: (lower bin, its weight × magnitude, upper weight × magnitude).
    binned: Vec<(u8, f32, f32)>,
    /// Gaussian weight by offset from the patch centre, per axis.
    window: Vec<f32>,
}

impl Gradients {
    fn of(word: &Normalised) -> Gradients {
        let (w, h) = (word.width, word.height);
        let mut binned = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let gx = word.at((x + 1).min(w - 1), y) - word.at(x.saturating_sub(1), y);
                let gy = word.at(x, (y + 1).min(h - 1)) - word.at(x, y.saturating_sub(1));
                let magnitude = (gx * gx + gy * gy).sqrt();
                let turn = gy.atan2(gx).rem_euclid(std::f32::consts::TAU);
                let position = turn / std::f32::consts::TAU * ORIENTATIONS as f32;
                let lower = (position.floor() as usize) % ORIENTATIONS;
                let upper_share = position - position.floor();
                binned.push((
                    lower as u8,
                    magnitude * (1.0 - upper_share),
                    magnitude * upper_share,
                ));
            }
        }
        let sigma = NORMAL_HEIGHT as f32 / 2.0;
        let half = NORMAL_HEIGHT as i32 / 2;
        let window = (-half..half)
            .map(|d| {
                let offset = d as f32 + 0.5;
                (-(offset * offset) / (2.0 * sigma * sigma)).exp()
            })
            .collect();
        Gradients {
            width: w,
            height: h,
            binned,
            window,
        }
    }

    /// The descriptor of the patch centred at (cx, cy): orientation
    /// histograms of 4×4 cells, each pixel shared bilinearly between the
    /// cells around it, Gaussian-weighted; normalised, clipped at 0.2 and
    /// normalised again (SIFT), then scaled to bytes.
    fn descriptor(&self, cx: u32, cy: u32) -> [u8; DIMENSIONS] {
        let mut histogram = [0f32; DIMENSIONS];
        let side = NORMAL_HEIGHT as i32;
        let cell = side as f32 / CELLS_PER_SIDE as f32;
        for dy in 0..side {
            let y = cy as i32 - side / 2 + dy;
            if y < 0 || y >= self.height as i32 {
                continue;
            }
            let row_weight = self.window[dy as usize];
            let (row_cell, row_share) = cell_position(dy as f32 + 0.5, cell);
            for dx in 0..side {
                let x = cx as i32 - side / 2 + dx;
                if x < 0 || x >= self.width as i32 {
                    continue;
                }
                let (bin, low, high) = self.binned[(y as u32 * self.width + x as u32) as usize];
                let weight = row_weight * self.window[dx as usize];
                if low + high == 0.0 {
                    continue;
                }
                let (column_cell, column_share) = cell_position(dx as f32 + 0.5, cell);
                for (r, r_share) in [(row_cell, 1.0 - row_share), (row_cell + 1, row_share)] {
                    for (c, c_share) in [
                        (column_cell, 1.0 - column_share),
                        (column_cell + 1, column_share),
                    ] {
                        if !(0..CELLS_PER_SIDE as i32).contains(&r)
                            || !(0..CELLS_PER_SIDE as i32).contains(&c)
                        {
                            continue;
                        }
                        let share = weight * r_share * c_share;
                        let base = (r as usize * CELLS_PER_SIDE + c as usize) * ORIENTATIONS;
                        histogram[base + bin as usize] += share * low;
                        histogram[base + (bin as usize + 1) % ORIENTATIONS] += share * high;
                    }
                }
            }
        }
        to_bytes(&mut histogram)
    }
}

/// The cell left of (or at) a coordinate within the patch, and the share
/// that goes to the next cell: cells are centred at (i + ½)·cell.
fn cell_position(offset: f32, cell: f32) -> (i32, f32) {
    let position = offset / cell - 0.5;
    let lower = position.floor();
    (lower as i32, position - lower)
}

/// SIFT's normalisation: unit length, values clipped at 0.2, unit length
/// again, scaled by 512 into bytes.
fn to_bytes(histogram: &mut [f32; DIMENSIONS]) -> [u8; DIMENSIONS] {
    normalise(histogram);
    for v in histogram.iter_mut() {
        *v = v.min(0.2);
    }
    normalise(histogram);
    let mut bytes = [0u8; DIMENSIONS];
    for (b, v) in bytes.iter_mut().zip(histogram.iter()) {
        *b = (v * 512.0).round().min(255.0) as u8;
    }
    bytes
}

fn normalise(values: &mut [f32]) {
    let length = values.iter().map(|v| v * v).sum::<f32>().sqrt();
    if length > 0.0 {
        for v in values.iter_mut() {
            *v /= length;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// A white page with black rectangles ("letters") at the given x ranges
    /// inside the box 20..20+h.
    fn page_with_bars(bars: &[(u32, u32)], h: u32) -> GrayImage {
        let mut page = GrayImage::from_pixel(400, 100, Luma([255]));
        for &(x0, x1) in bars {
            for x in x0..x1 {
                for y in 25..20 + h - 5 {
                    page.put_pixel(x, y, Luma([0]));
                }
            }
        }
        page
    }

    /// The points of `bbox` described by its height.
    fn by_box(page: &GrayImage, bbox: WordBox) -> Vec<Keypoint> {
        describe(page, bbox, Normalisation::BoxHeight).keypoints
    }

    #[test]
    fn points_lie_on_the_ink_with_positions_in_box_heights() {
        let page = page_with_bars(&[(50, 60), (150, 160)], 40);
        let bbox = WordBox {
            x0: 40,
            y0: 20,
            x1: 170,
            y1: 60,
        };
        let points = by_box(&page, bbox);
        assert!(!points.is_empty());
        // The bars are at 10..20 and 110..120 px from the box's left, i.e.
        // 0.25..0.5 and 2.75..3 box heights; points lie near them only.
        for p in &points {
            let near = |a: f32, b: f32| p.x >= a - 0.1 && p.x <= b + 0.1;
            assert!(near(0.25, 0.5) || near(2.75, 3.0), "x {}", p.x);
        }
        assert!(points.iter().any(|p| p.x < 1.0) && points.iter().any(|p| p.x > 2.0));
    }

    #[test]
    fn a_blank_or_bad_box_has_no_points() {
        let page = page_with_bars(&[], 40);
        assert!(by_box(
            &page,
            WordBox {
                x0: 40,
                y0: 20,
                x1: 170,
                y1: 60
            }
        )
        .is_empty());
        assert!(by_box(
            &page,
            WordBox {
                x0: 40,
                y0: 20,
                x1: 40,
                y1: 60
            }
        )
        .is_empty());
        assert!(by_box(
            &page,
            WordBox {
                x0: 390,
                y0: 20,
                x1: 500,
                y1: 60
            }
        )
        .is_empty());
    }

    #[test]
    fn descriptors_do_not_depend_on_scale_or_ink_darkness() {
        // The same shape at twice the size, in grey ink: the same number of
        // points and nearly the same descriptors.
        let small = page_with_bars(&[(50, 60)], 40);
        let mut large = GrayImage::from_pixel(800, 200, Luma([255]));
        for x in 100..120 {
            for y in 50..110 {
                large.put_pixel(x, y, Luma([90]));
            }
        }
        let a = by_box(
            &small,
            WordBox {
                x0: 40,
                y0: 20,
                x1: 80,
                y1: 60,
            },
        );
        let b = by_box(
            &large,
            WordBox {
                x0: 80,
                y0: 40,
                x1: 160,
                y1: 120,
            },
        );
        assert_eq!(a.len(), b.len());
        for (p, q) in a.iter().zip(&b) {
            assert!((p.x - q.x).abs() < 1e-6);
            let distance: i32 = p
                .descriptor
                .iter()
                .zip(&q.descriptor)
                .map(|(&u, &v)| (u as i32 - v as i32).abs())
                .sum();
            assert!(distance < 400, "L1 distance {distance}");
        }
    }

    #[test]
    fn descriptors_tell_vertical_from_horizontal_strokes() {
        let vertical = page_with_bars(&[(50, 54)], 40);
        let mut horizontal = GrayImage::from_pixel(400, 100, Luma([255]));
        for x in 40..80 {
            for y in 38..42 {
                horizontal.put_pixel(x, y, Luma([0]));
            }
        }
        let bbox = WordBox {
            x0: 40,
            y0: 20,
            x1: 80,
            y1: 60,
        };
        let centre = |points: Vec<Keypoint>| {
            points
                .into_iter()
                .min_by(|a, b| (a.x - 0.3).abs().total_cmp(&(b.x - 0.3).abs()))
                .unwrap()
                .descriptor
        };
        let (v, h) = (
            centre(by_box(&vertical, bbox)),
            centre(by_box(&horizontal, bbox)),
        );
        // Orientation bins 0 and 4 (horizontal gradient) dominate a vertical
        // stroke; 2 and 6 a horizontal one.
        let energy = |d: &[u8; DIMENSIONS], bins: [usize; 2]| -> u32 {
            d.chunks(ORIENTATIONS)
                .map(|c| bins.iter().map(|&b| c[b] as u32).sum::<u32>())
                .sum()
        };
        assert!(energy(&v, [0, 4]) > 2 * energy(&v, [2, 6]));
        assert!(energy(&h, [2, 6]) > 2 * energy(&h, [0, 4]));
    }

    #[test]
    fn the_x_height_gives_the_words_of_a_line_one_unit() {
        // Letters 14 px high on rows 40..54; the second word also has an
        // ascender (rows 18..54) far to the right of its first letter.
        let mut page = GrayImage::from_pixel(400, 100, Luma([255]));
        let mut ink = |x0: u32, x1: u32, y0: u32| {
            for x in x0..x1 {
                for y in y0..54 {
                    page.put_pixel(x, y, Luma([0]));
                }
            }
        };
        for x in [50, 62, 200, 212, 224] {
            ink(x, x + 6, 40);
        }
        ink(290, 296, 18);
        let short = WordBox {
            x0: 46,
            y0: 38,
            x1: 72,
            y1: 56,
        };
        let tall = WordBox {
            x0: 196,
            y0: 16,
            x1: 300,
            y1: 56,
        };
        let by_x_height = |bbox| describe(&page, bbox, Normalisation::XHeight);
        let (a, b) = (by_x_height(short), by_x_height(tall));
        assert_eq!((a.unit, b.unit), (22, 22), "1.6 x-heights of 14 rows");
        assert_ne!(
            describe(&page, short, Normalisation::BoxHeight).unit,
            describe(&page, tall, Normalisation::BoxHeight).unit
        );
        // The patches that reach no further than the second letter read
        // alike in both words: the same scale, the same band.
        let first = |d: &Described| {
            (d.keypoints.iter())
                .filter(|k| k.x < 0.45)
                .map(|k| (k.x.to_bits(), k.descriptor))
                .collect::<Vec<_>>()
        };
        assert!(!first(&a).is_empty());
        assert_eq!(first(&a), first(&b));
        assert_eq!(Described::width_in_units(tall, b.unit), 104.0 / 22.0);
    }

    #[test]
    fn a_box_without_ink_is_described_by_its_height() {
        let page = page_with_bars(&[], 40);
        let bbox = WordBox {
            x0: 40,
            y0: 20,
            x1: 170,
            y1: 60,
        };
        let described = describe(&page, bbox, Normalisation::XHeight);
        assert_eq!(described.unit, 40);
        assert!(described.keypoints.is_empty());
    }

    #[test]
    fn normalisations_round_trip_through_their_byte() {
        for n in [Normalisation::BoxHeight, Normalisation::XHeight] {
            assert_eq!(Normalisation::from_byte(n.to_byte()), Some(n));
        }
        assert_eq!(Normalisation::from_byte(2), None);
    }
}
