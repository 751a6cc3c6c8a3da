//! hOCR: `read_hocr` must return an error or pages, never panic, on any
//! bytes. Every word it returns has text and a box within its page, and
//! `read_ocr` reads the same pages when it takes the input for hOCR.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::images::ocr::{detect_format, read_hocr, read_ocr, OcrFormat, PageOcr};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.hocr");
    let Ok(pages) = read_hocr(data, path) else {
        return;
    };
    check(&pages);
    if detect_format(data) == Some(OcrFormat::Hocr) {
        assert_eq!(read_ocr(data, path).ok(), Some(pages));
    }
});

fn check(pages: &[PageOcr]) {
    assert!(!pages.is_empty());
    for page in pages {
        for word in &page.words {
            let b = word.bbox;
            assert!(
                b.x0 <= b.x1 && b.x1 <= page.width,
                "{word:?} on {}",
                page.width
            );
            assert!(
                b.y0 <= b.y1 && b.y1 <= page.height,
                "{word:?} on {}",
                page.height
            );
            assert!(!word.text.is_empty() && word.text.trim() == word.text);
        }
    }
}
