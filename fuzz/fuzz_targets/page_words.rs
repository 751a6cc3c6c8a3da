//! Word boxes from a page's ink: `found_words` must never panic on any
//! page image and OCR boxes, whatever their place, size or lines, and
//! every word it finds lies in the page, holds a pixel, shares a pixel
//! with the OCR box it was found from (storage-format.md 6.8) and keeps
//! text, but a word found from the ink alone, whose OCR box is its own and
//! whose text is empty.
//!
//! The input is read as: the page's width and height (a byte each, 1 to
//! 256 pixels), a count of OCR words (a byte, at most 32), each word as
//! four coordinates (a byte each, so that boxes may reach past the page or
//! be inverted), its line (a byte) and which of a few texts it holds (a
//! byte); the rest are the page's grey values, repeated over the page
//! (white when none are left).
#![no_main]

use image::GrayImage;
use libfuzzer_sys::fuzz_target;
use stemmata::images::ocr::OcrWord;
use stemmata::images::pages::found_words;
use stemmata::images::WordBox;

const TEXTS: [&str; 4] = ["of", "two words", "a.b", "it's"];

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.iter().copied();
    let mut next = || bytes.next().unwrap_or(0);
    let (width, height) = (u32::from(next()) + 1, u32::from(next()) + 1);
    let count = usize::from(next() % 33);
    let ocr: Vec<OcrWord> = (0..count)
        .map(|_| {
            let bbox = WordBox {
                x0: u32::from(next()),
                y0: u32::from(next()),
                x1: u32::from(next()),
                y1: u32::from(next()),
            };
            let line = u32::from(next() % 4);
            OcrWord {
                text: TEXTS[usize::from(next()) % TEXTS.len()].to_string(),
                bbox,
                confidence: None,
                line,
            }
        })
        .collect();
    let grey: Vec<u8> = bytes.collect();
    let page = GrayImage::from_fn(width, height, |x, y| {
        let at = (y * width + x) as usize;
        image::Luma([match grey.len() {
            0 => 255,
            n => grey[at % n],
        }])
    });
    for word in found_words(&page, &ocr) {
        let b = word.bbox;
        assert!(!b.is_empty() && b.x1 <= width && b.y1 <= height, "{word:?}");
        assert!(word.ocr_box.intersection(&b) > 0, "{word:?}");
        assert!(!word.text.is_empty() || word.ocr_box == b, "{word:?}");
    }
});
