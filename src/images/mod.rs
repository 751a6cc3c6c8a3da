//! Word images: searching the words of scanned pages by their images, for
//! a text query, where OCR lost them (thesis chapter 7, 7.1 and 7.3).
//!
//! A page comes as an image with its OCR: word boxes and the words read in
//! them (hOCR or ALTO). Each word image becomes a set of visual terms
//! (quantised local descriptors with their x positions, scaled to the
//! word's x-height or its box's height); a model learned from the
//! collection's own noisy OCR words relates letter bigrams to visual
//! terms; and for every word image and every letter-bigram class the best
//! likelihood and its position are computed once, so that a query is a few
//! lookups and an order check per image.

pub mod ocr;

/// A word's box on its page, in pixels: `x0..x1` × `y0..y1` (the right and
/// bottom edges excluded), the origin at the page's top left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct WordBox {
    /// Left edge.
    pub x0: u32,
    /// Top edge.
    pub y0: u32,
    /// Right edge, excluded.
    pub x1: u32,
    /// Bottom edge, excluded.
    pub y1: u32,
}

impl WordBox {
    /// Width in pixels (0 for an inverted box).
    pub fn width(&self) -> u32 {
        self.x1.saturating_sub(self.x0)
    }

    /// Height in pixels (0 for an inverted box).
    pub fn height(&self) -> u32 {
        self.y1.saturating_sub(self.y0)
    }

    /// True when the box holds no pixel.
    pub fn is_empty(&self) -> bool {
        self.width() == 0 || self.height() == 0
    }

    /// The box cut to a `width` × `height` page.
    pub fn clipped_to(&self, width: u32, height: u32) -> WordBox {
        WordBox {
            x0: self.x0.min(width),
            y0: self.y0.min(height),
            x1: self.x1.min(width),
            y1: self.y1.min(height),
        }
    }

    /// Its area in pixels.
    pub fn area(&self) -> u64 {
        u64::from(self.width()) * u64::from(self.height())
    }

    /// Pixels it shares with `other`.
    pub fn intersection(&self, other: &WordBox) -> u64 {
        let width = self.x1.min(other.x1).saturating_sub(self.x0.max(other.x0));
        let height = self.y1.min(other.y1).saturating_sub(self.y0.max(other.y0));
        u64::from(width) * u64::from(height)
    }

    /// Intersection over union with `other` (0 for two empty boxes).
    pub fn overlap(&self, other: &WordBox) -> f64 {
        let inter = self.intersection(other);
        match self.area() + other.area() - inter {
            0 => 0.0,
            union => inter as f64 / union as f64,
        }
    }

    /// True when `inner` lies within the box.
    pub fn holds(&self, inner: &WordBox) -> bool {
        self.x0 <= inner.x0 && self.y0 <= inner.y0 && inner.x1 <= self.x1 && inner.y1 <= self.y1
    }
}

pub mod bigrams;
pub mod codebook;
pub mod descriptor;
pub mod ink;
pub mod learn;
pub mod likelihood;
pub mod lines;
pub mod model;
pub mod page_lines;
pub mod pages;
pub mod parallel;
pub mod spot;
pub mod widths;
