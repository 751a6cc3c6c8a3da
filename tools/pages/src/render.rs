//! Setting a text on pages: words shaped in the font, wrapped into lines
//! and pages, then drawn, each word's box the union of its glyphs' pixel
//! bounds.

use ab_glyph::{
    point, Font, FontVec, Glyph, GlyphId, OutlinedGlyph, PxScale, PxScaleFont, ScaleFont,
};
use image::{GrayImage, Luma};
use stemmata::images::WordBox;

/// The page and type sizes, in pixels. The default is a book page scanned
/// at 150 dpi: 1000×1500 px, a 14 px x-height (30 px type in DejaVu
/// Serif), 40 px from one baseline to the next.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Page width.
    pub width: u32,
    /// Page height.
    pub height: u32,
    /// Blank border on every side.
    pub margin: u32,
    /// Type size, as the height of a lower-case x: every font is scaled
    /// to it, since faces of one nominal size differ (DKG handwriting's x
    /// is half as high as DejaVu Serif's).
    pub x_height: f32,
    /// Distance from one baseline to the next.
    pub line_height: f32,
    /// Indent of a paragraph's first line.
    pub indent: f32,
    /// The resolution the page stands for, told to OCR.
    pub dpi: u32,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            width: 1000,
            height: 1500,
            margin: 90,
            x_height: 14.0,
            line_height: 40.0,
            indent: 45.0,
            dpi: 150,
        }
    }
}

/// A word on a page and the box of its ink: the ground truth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruthWord {
    /// The box of the word's glyphs.
    pub bbox: WordBox,
    /// The word as drawn (after any character replaced, see the crate doc).
    pub text: String,
}

/// A page image (white 255 paper, black ink) and its words in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The page.
    pub image: GrayImage,
    /// Its words, line by line, left to right.
    pub words: Vec<TruthWord>,
}

/// Where each word of a page goes, before drawing: [`layout_pages`] sets a
/// whole book cheaply, and [`draw_page`] draws only the pages wanted.
#[derive(Debug, Clone, Default)]
pub struct PageLayout {
    words: Vec<PlacedWord>,
}

impl PageLayout {
    /// The number of words on the page.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }
}

/// A word at its place: its glyphs positioned on the page.
#[derive(Debug, Clone)]
struct PlacedWord {
    text: String,
    glyphs: Vec<Glyph>,
}

/// A word in the font: the text drawn, each glyph's x offset from the
/// word's start, and the word's advance.
struct ShapedWord {
    text: String,
    glyphs: Vec<(GlyphId, f32)>,
    advance: f32,
}

/// `text` set in `font` on pages of `layout`, drawn.
pub fn render(text: &str, font: &FontVec, layout: &Layout) -> Vec<Page> {
    layout_pages(text, font, layout)
        .iter()
        .map(|page| draw_page(page, font, layout))
        .collect()
}

/// Where the words of `text` go on pages of `layout`: words split on
/// whitespace, paragraphs (ended by a blank line) starting on a new,
/// indented line. A word wider than a line is left out.
pub fn layout_pages(text: &str, font: &FontVec, layout: &Layout) -> Vec<PageLayout> {
    let scaled = font.as_scaled(type_scale(font, layout.x_height));
    let mut setter = Setter::new(&scaled, layout);
    for paragraph in paragraphs(text) {
        setter.start_paragraph();
        for word in paragraph {
            if let Some(shaped) = shape_word(word, &scaled) {
                setter.place(shaped);
            }
        }
    }
    setter.finish()
}

/// The scale at which `font`'s lower-case x is `x_height` pixels high (its
/// em 2.2 times that for a font without an x).
fn type_scale(font: &FontVec, x_height: f32) -> PxScale {
    let height = font.height_unscaled();
    let x_units = font
        .outline(font.glyph_id('x'))
        .map(|x| (x.bounds.max.y - x.bounds.min.y).abs())
        .filter(|&units| units > 0.0)
        .unwrap_or(height / 2.2);
    PxScale::from(x_height * height / x_units)
}

/// The words of each paragraph of `text`; paragraphs end at blank lines.
fn paragraphs(text: &str) -> Vec<Vec<&str>> {
    let mut paragraphs = Vec::new();
    let mut words = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !words.is_empty() {
                paragraphs.push(std::mem::take(&mut words));
            }
        } else {
            words.extend(line.split_whitespace());
        }
    }
    if !words.is_empty() {
        paragraphs.push(words);
    }
    paragraphs
}

/// `word` in `font` with kerning, or `None` when it has a character the
/// font lacks and no plain replacement for, or no ink at all.
fn shape_word(word: &str, font: &PxScaleFont<&FontVec>) -> Option<ShapedWord> {
    let text = drawable_text(word, font)?;
    let mut glyphs = Vec::new();
    let mut x = 0.0;
    let mut previous: Option<GlyphId> = None;
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(before) = previous {
            x += font.kern(before, id);
        }
        glyphs.push((id, x));
        x += font.h_advance(id);
        previous = Some(id);
    }
    let has_ink = glyphs
        .iter()
        .any(|&(id, _)| font.font.outline(id).is_some());
    has_ink.then_some(ShapedWord {
        text,
        glyphs,
        advance: x,
    })
}

/// `word` with each character the font lacks replaced by a plain one, or
/// `None` when one has no replacement the font has.
fn drawable_text(word: &str, font: &PxScaleFont<&FontVec>) -> Option<String> {
    let mut text = String::with_capacity(word.len());
    for c in word.chars() {
        if has_glyph(font, c) {
            text.push(c);
        } else {
            let plain = plain_replacement(c)?;
            if !plain.chars().all(|p| has_glyph(font, p)) {
                return None;
            }
            text.push_str(plain);
        }
    }
    Some(text)
}

fn has_glyph(font: &PxScaleFont<&FontVec>, c: char) -> bool {
    font.glyph_id(c).0 != 0
}

/// A plain-ASCII stand-in for a typographic character.
fn plain_replacement(c: char) -> Option<&'static str> {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => Some("'"),
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' | '\u{AB}' | '\u{BB}' => Some("\""),
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' => Some("-"),
        '\u{2026}' => Some("..."),
        _ => None,
    }
}

/// Places shaped words line by line, page by page.
struct Setter<'a> {
    font: &'a PxScaleFont<&'a FontVec>,
    layout: &'a Layout,
    lines_per_page: usize,
    pages: Vec<PageLayout>,
    page: PageLayout,
    line: usize,
    x: f32,
    line_is_empty: bool,
}

impl<'a> Setter<'a> {
    fn new(font: &'a PxScaleFont<&'a FontVec>, layout: &'a Layout) -> Self {
        let room = layout.height as f32 - 2.0 * layout.margin as f32;
        let lines_per_page = ((room / layout.line_height).floor() as usize).max(1);
        Setter {
            font,
            layout,
            lines_per_page,
            pages: Vec::new(),
            page: PageLayout::default(),
            line: 0,
            x: layout.margin as f32,
            line_is_empty: true,
        }
    }

    fn left(&self) -> f32 {
        self.layout.margin as f32
    }

    fn right(&self) -> f32 {
        (self.layout.width - self.layout.margin) as f32
    }

    /// The baseline of the current line: three quarters down its height.
    fn baseline(&self) -> f32 {
        self.layout.margin as f32 + (self.line as f32 + 0.75) * self.layout.line_height
    }

    fn start_paragraph(&mut self) {
        if !self.line_is_empty {
            self.new_line();
        }
        self.x = self.left() + self.layout.indent;
    }

    fn place(&mut self, word: ShapedWord) {
        if word.advance > self.right() - self.left() - self.layout.indent {
            return;
        }
        if !self.line_is_empty {
            let space = self.font.h_advance(self.font.glyph_id(' '));
            if self.x + space + word.advance > self.right() {
                self.new_line();
            } else {
                self.x += space;
            }
        }
        let (scale, baseline) = (self.font.scale, self.baseline());
        let glyphs = word
            .glyphs
            .iter()
            .map(|&(id, dx)| id.with_scale_and_position(scale, point(self.x + dx, baseline)))
            .collect();
        self.page.words.push(PlacedWord {
            text: word.text,
            glyphs,
        });
        self.x += word.advance;
        self.line_is_empty = false;
    }

    fn new_line(&mut self) {
        self.line += 1;
        self.x = self.left();
        self.line_is_empty = true;
        if self.line == self.lines_per_page {
            self.pages.push(std::mem::take(&mut self.page));
            self.line = 0;
        }
    }

    fn finish(mut self) -> Vec<PageLayout> {
        if self.page.word_count() > 0 {
            self.pages.push(self.page);
        }
        self.pages
    }
}

/// `page` drawn in `font` on white paper of `layout`'s size.
pub fn draw_page(page: &PageLayout, font: &FontVec, layout: &Layout) -> Page {
    let mut image = GrayImage::from_pixel(layout.width, layout.height, Luma([255]));
    let words = page
        .words
        .iter()
        .filter_map(|word| draw_word(&mut image, font, word))
        .collect();
    Page { image, words }
}

/// Draws `word` and returns its truth: the union of its glyphs' pixel
/// bounds, clamped to the page (`None` if nothing of it is on the page).
fn draw_word(image: &mut GrayImage, font: &FontVec, word: &PlacedWord) -> Option<TruthWord> {
    let mut bounds: Option<(f32, f32, f32, f32)> = None;
    for glyph in &word.glyphs {
        let Some(outlined) = font.outline_glyph(glyph.clone()) else {
            continue;
        };
        draw_glyph(image, &outlined);
        let r = outlined.px_bounds();
        bounds = Some(match bounds {
            None => (r.min.x, r.min.y, r.max.x, r.max.y),
            Some((x0, y0, x1, y1)) => (
                x0.min(r.min.x),
                y0.min(r.min.y),
                x1.max(r.max.x),
                y1.max(r.max.y),
            ),
        });
    }
    let (x0, y0, x1, y1) = bounds?;
    let bbox = clamped_box(x0, y0, x1, y1, image.width(), image.height());
    (!bbox.is_empty()).then(|| TruthWord {
        bbox,
        text: word.text.clone(),
    })
}

/// The pixels `x0..x1` × `y0..y1` (rounded outwards) inside a page of
/// `width` × `height`.
pub(crate) fn clamped_box(x0: f32, y0: f32, x1: f32, y1: f32, width: u32, height: u32) -> WordBox {
    let clamp = |v: f32, most: u32| v.clamp(0.0, most as f32) as u32;
    WordBox {
        x0: clamp(x0.floor(), width),
        y0: clamp(y0.floor(), height),
        x1: clamp(x1.ceil(), width),
        y1: clamp(y1.ceil(), height),
    }
}

/// Darkens the pixels `glyph` covers (ink over ink stays the darker).
fn draw_glyph(image: &mut GrayImage, glyph: &OutlinedGlyph) {
    let origin = glyph.px_bounds().min;
    let (width, height) = (image.width() as i64, image.height() as i64);
    glyph.draw(|dx, dy, coverage| {
        let x = origin.x as i64 + dx as i64;
        let y = origin.y as i64 + dy as i64;
        if (0..width).contains(&x) && (0..height).contains(&y) {
            let ink = (coverage.min(1.0) * 255.0).round() as u8;
            let pixel = image.get_pixel_mut(x as u32, y as u32);
            pixel.0[0] = pixel.0[0].min(255 - ink);
        }
    });
}
