//! Degradations: deterministic, the page size kept, and under skew every
//! word's ink inside its moved box.

mod common;

use common::{dejavu, sample_text, small_layout};
use image::{GrayImage, Luma};
use stemmata::images::WordBox;
use stemmata_pages::{degrade, render, Page, Preset};

fn first_page() -> Page {
    render(&sample_text(), &dejavu(), &small_layout()).remove(0)
}

/// `page` with only the ink inside `word`'s box, and only that word.
fn only_word(page: &Page, word: usize) -> Page {
    let b = page.words[word].bbox;
    let inside = |x: u32, y: u32| (b.x0..b.x1).contains(&x) && (b.y0..b.y1).contains(&y);
    let image = GrayImage::from_fn(page.image.width(), page.image.height(), |x, y| {
        if inside(x, y) {
            *page.image.get_pixel(x, y)
        } else {
            Luma([255])
        }
    });
    Page {
        image,
        words: vec![page.words[word].clone()],
    }
}

/// The ink pixels of `image` outside `bbox` grown by one pixel.
fn ink_outside(image: &GrayImage, bbox: WordBox) -> usize {
    let grown_x = bbox.x0.saturating_sub(1)..bbox.x1 + 1;
    let grown_y = bbox.y0.saturating_sub(1)..bbox.y1 + 1;
    image
        .enumerate_pixels()
        .filter(|(x, y, p)| p.0[0] < 255 && !(grown_x.contains(x) && grown_y.contains(y)))
        .count()
}

#[test]
fn every_preset_keeps_the_page_size_and_is_deterministic() {
    let page = first_page();
    for preset in Preset::ALL {
        let degraded = degrade(&page, preset, 7);
        assert_eq!(
            degraded.image.dimensions(),
            page.image.dimensions(),
            "{preset}"
        );
        assert_eq!(degraded, degrade(&page, preset, 7), "{preset}");
        assert!(!degraded.words.is_empty(), "{preset}");
        if preset != Preset::Clean {
            assert_ne!(degraded.image, page.image, "{preset}");
        }
    }
}

#[test]
fn presets_other_than_skew_and_heavy_keep_the_boxes() {
    let page = first_page();
    for preset in [Preset::Blur, Preset::Noise, Preset::Bleed, Preset::Contrast] {
        assert_eq!(degrade(&page, preset, 3).words, page.words, "{preset}");
    }
}

#[test]
fn skew_keeps_every_words_ink_inside_its_moved_box() {
    let page = first_page();
    for seed in [1, 2] {
        let moved = degrade(&page, Preset::Skew, seed);
        assert_eq!(moved.words.len(), page.words.len());
        let mut shifted = 0;
        for (index, word) in moved.words.iter().enumerate() {
            assert_eq!(word.text, page.words[index].text);
            let alone = degrade(&only_word(&page, index), Preset::Skew, seed);
            assert_eq!(alone.words[0], *word);
            let stray = ink_outside(&alone.image, word.bbox);
            assert_eq!(stray, 0, "seed {seed}: {stray} ink pixels outside {word:?}");
            shifted += usize::from(word.bbox != page.words[index].bbox);
        }
        assert!(
            shifted > moved.words.len() / 2,
            "the boxes moved with the page"
        );
    }
}

#[test]
fn preset_names_read_back_and_an_unknown_one_lists_them() {
    for preset in Preset::ALL {
        assert_eq!(preset.name().parse::<Preset>(), Ok(preset));
    }
    let message = "smudge".parse::<Preset>().unwrap_err();
    assert!(message.contains("smudge"), "{message}");
    assert!(
        message.contains("clean, blur, noise, bleed, skew, contrast, heavy"),
        "{message}"
    );
}
