//! Rendering: deterministic pages whose truth boxes hold each word's ink
//! and nothing between words.

mod common;

use common::{dejavu, sample_text, small_layout};
use image::GrayImage;
use stemmata::images::WordBox;
use stemmata_pages::{load_font, render, write_pages, Page};

fn sample_pages() -> Vec<Page> {
    render(&sample_text(), &dejavu(), &small_layout())
}

fn has_ink(image: &GrayImage, x0: u32, y0: u32, x1: u32, y1: u32) -> bool {
    (y0..y1).any(|y| (x0..x1).any(|x| image.get_pixel(x, y).0[0] < 255))
}

fn overlap(a: &WordBox, b: &WordBox) -> bool {
    a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

#[test]
fn rendering_is_deterministic() {
    let (first, second) = (sample_pages(), sample_pages());
    assert!(first.len() > 1, "the sample fills several small pages");
    assert_eq!(first, second);
}

#[test]
fn every_word_is_set_in_order_with_plain_text_for_what_the_font_has() {
    let text = sample_text();
    let pages = sample_pages();
    let set: Vec<&str> = pages
        .iter()
        .flat_map(|p| p.words.iter().map(|w| w.text.as_str()))
        .collect();
    let given: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(set, given, "DejaVu Serif has every character of the sample");
}

#[test]
fn truth_boxes_are_non_empty_inside_the_page_and_disjoint() {
    for page in sample_pages() {
        let (width, height) = page.image.dimensions();
        for (i, word) in page.words.iter().enumerate() {
            let b = word.bbox;
            assert!(!b.is_empty(), "{word:?}");
            assert!(b.x1 <= width && b.y1 <= height, "{word:?}");
            for other in &page.words[i + 1..] {
                assert!(!overlap(&b, &other.bbox), "{word:?} overlaps {other:?}");
            }
        }
    }
}

#[test]
fn each_box_holds_ink_and_the_gap_between_words_of_a_line_none() {
    let mut gaps = 0;
    for page in sample_pages() {
        for word in &page.words {
            let b = word.bbox;
            assert!(has_ink(&page.image, b.x0, b.y0, b.x1, b.y1), "{word:?}");
        }
        for pair in page.words.windows(2) {
            let (a, b) = (pair[0].bbox, pair[1].bbox);
            let same_line = a.y0 < b.y1 && b.y0 < a.y1 && a.x1 <= b.x0;
            if same_line {
                let (y0, y1) = (a.y0.min(b.y0), a.y1.max(b.y1));
                assert!(
                    !has_ink(&page.image, a.x1, y0, b.x0, y1),
                    "{:?} {:?}",
                    pair[0],
                    pair[1]
                );
                gaps += 1;
            }
        }
    }
    assert!(gaps > 100, "{gaps} gaps checked");
}

#[test]
fn a_file_that_is_not_a_font_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.ttf");
    std::fs::write(&path, "not a font at all").unwrap();
    let message = load_font(&path).unwrap_err().to_string();
    assert!(message.contains("notes.ttf"), "{message}");
    assert!(
        message.contains("not a TrueType/OpenType font"),
        "{message}"
    );

    let missing = dir.path().join("missing.otf");
    let message = load_font(&missing).unwrap_err().to_string();
    assert!(message.contains("missing.otf"), "{message}");
}

#[test]
fn written_pages_are_the_images_and_truth_tsv_lists_their_words() {
    let dir = tempfile::tempdir().unwrap();
    let pages = sample_pages();
    let paths = write_pages(dir.path(), &pages, "book").unwrap();
    assert_eq!(paths.len(), pages.len());
    assert_eq!(paths[0], dir.path().join("pages/book-0001.png"));
    let read = image::open(&paths[0]).unwrap().to_luma8();
    assert_eq!(read, pages[0].image);

    let truth = std::fs::read_to_string(dir.path().join("truth.tsv")).unwrap();
    let mut lines = truth.lines();
    assert_eq!(lines.next(), Some("page\tx0\ty0\tx1\ty1\tword"));
    let first = &pages[0].words[0];
    let b = first.bbox;
    let expected = format!(
        "book-0001.png\t{}\t{}\t{}\t{}\t{}",
        b.x0, b.y0, b.x1, b.y1, first.text
    );
    assert_eq!(lines.next(), Some(expected.as_str()));
    let words: usize = pages.iter().map(|p| p.words.len()).sum();
    assert_eq!(lines.count() + 1, words);
}

#[test]
fn a_word_with_a_character_the_font_lacks_is_left_out() {
    let pages = render(
        "a \u{4E2D}\u{6587} word, and \u{201C}quoted\u{201D}",
        &dejavu(),
        &small_layout(),
    );
    let words: Vec<&str> = pages[0].words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(words, ["a", "word,", "and", "\u{201C}quoted\u{201D}"]);
}
