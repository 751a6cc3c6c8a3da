//! A word-image contact sheet as a browser shows it: headless Chromium
//! renders the page to a PNG, and the PNG must show each hit's crop, in rank
//! order, in a grid of rows. Every crop is a black bar of its own width on
//! white, so each is one solid dark rectangle in the screenshot, 48 px
//! high crops scaling the bar by 48/40; the text of the captions is there
//! too, as small dark glyphs that are no such rectangles.
//!
//! A book key is hostile markup that would black out the whole window if it
//! were not escaped.
//!
//! Skipped with a message when `/usr/bin/chromium` is missing; fails then
//! when the environment variable `CI` is set (`.ci/run` installs it).

// The command line is a binary crate: its module is compiled into this test
// as it is (it uses nothing else of the crate). Its unit tests come along
// and run here too.
#[path = "../src/contact_sheet.rs"]
mod contact_sheet;

mod common;

use common::chromium::{chromium_available, pixels, screenshot};

use contact_sheet::{contact_sheet, SheetHit, CROP_HEIGHT};
use image::{GrayImage, Luma};

/// A connected set of dark pixels: its bounding box and pixel count.
#[derive(Debug)]
struct Blob {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
    area: u32,
}

impl Blob {
    fn width(&self) -> u32 {
        self.x1 - self.x0 + 1
    }
    fn height(&self) -> u32 {
        self.y1 - self.y0 + 1
    }
    /// The share of its bounding box the blob fills.
    fn fill(&self) -> f64 {
        f64::from(self.area) / f64::from(self.width() * self.height())
    }
}

/// The 4-connected blobs of `dark` pixels in a `width`-wide picture.
fn blobs(dark: &[bool], width: u32) -> Vec<Blob> {
    let w = width as usize;
    let mut seen = vec![false; dark.len()];
    let mut found = Vec::new();
    for start in 0..dark.len() {
        if !dark[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        let mut stack = vec![start];
        let (x, y) = ((start % w) as u32, (start / w) as u32);
        let mut blob = Blob {
            x0: x,
            y0: y,
            x1: x,
            y1: y,
            area: 0,
        };
        while let Some(i) = stack.pop() {
            let (x, y) = ((i % w) as u32, (i / w) as u32);
            blob.area += 1;
            blob.x0 = blob.x0.min(x);
            blob.x1 = blob.x1.max(x);
            blob.y0 = blob.y0.min(y);
            blob.y1 = blob.y1.max(y);
            let mut visit = |j: usize| {
                if dark[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            };
            if i % w > 0 {
                visit(i - 1);
            }
            if i % w + 1 < w {
                visit(i + 1);
            }
            if i >= w {
                visit(i - w);
            }
            if i + w < dark.len() {
                visit(i + w);
            }
        }
        found.push(blob);
    }
    found
}

/// Crop height and the bar in it: the bar is 20 of the crop's 40 rows, and
/// 10 px of white on its left and right.
const CROP_H: u32 = 40;
const BAR_H: u32 = 20;

/// The width of hit `i`'s bar (0-based): every bar a different width.
fn bar_width(i: usize) -> u32 {
    12 + 12 * i as u32
}

fn crop(bar: u32) -> GrayImage {
    GrayImage::from_fn(bar + 20, CROP_H, |x, y| {
        let inside = (10..10 + bar).contains(&x) && (10..10 + BAR_H).contains(&y);
        Luma([if inside { 0 } else { 255 }])
    })
}

#[test]
fn chromium_shows_each_crop_in_rank_order_in_a_grid() {
    if !chromium_available() {
        return;
    }
    const HITS: usize = 7;
    let hostile = r#"<div style="position:fixed;inset:0;background:#000"></div>"#;
    let hits: Vec<SheetHit> = (0..HITS)
        .map(|i| SheetHit {
            rank: i + 1,
            book: if i == 2 {
                hostile.to_string()
            } else {
                format!("book-{i} & <co>")
            },
            page: 3 + i as u32,
            page_name: format!("page \"{i}\".png"),
            bbox: [100 * i as u32, 50, 100 * i as u32 + 80, 90],
            ocr: if i == 4 {
                String::new()
            } else {
                format!("word{i}")
            },
            score: 1.0 - 0.1 * i as f64,
            crop: crop(bar_width(i)),
        })
        .collect();
    let html = contact_sheet(hostile, &hits);
    let dir = tempfile::tempdir().unwrap();
    let (file, png) = (dir.path().join("sheet.html"), dir.path().join("sheet.png"));
    std::fs::write(&file, &html).unwrap();
    // 968 px inside the body's margins: five 184 px columns with 12 px gaps,
    // so the seven hits fill one row and two cells of the next.
    let (width, height) = (1000, 700);
    screenshot(&file, &png, &dir.path().join("profile"), width, height);
    let (pixels, got_width) = pixels(&png);
    assert_eq!(got_width, width);
    assert_eq!(pixels.len(), (width * height) as usize);

    let white = pixels.iter().filter(|p| p.iter().all(|&c| c > 240)).count();
    assert!(
        white > pixels.len() / 2,
        "the page is not mostly white: {white} of {} pixels",
        pixels.len()
    );
    let dark: Vec<bool> = pixels.iter().map(|p| p.iter().all(|&c| c < 60)).collect();
    let all = blobs(&dark, width);
    // The bars: solid rectangles at least 12 × 20 px. Glyphs of the text are
    // smaller or far from filling their box.
    let (mut bars, text): (Vec<&Blob>, Vec<&Blob>) = all
        .iter()
        .partition(|b| b.width() >= 12 && b.height() >= 20 && b.fill() > 0.9);
    let text_pixels: u32 = text.iter().map(|b| b.area).sum();
    println!(
        "{} bars {:?}; {} text blobs, {text_pixels} px",
        bars.len(),
        bars.iter()
            .map(|b| (b.x0, b.y0, b.width(), b.height()))
            .collect::<Vec<_>>(),
        text.len()
    );
    assert_eq!(bars.len(), HITS, "one dark rectangle per hit: {bars:?}");
    assert!(
        text.len() > 100 && text_pixels > 1000,
        "the captions are missing: {} dark glyphs, {text_pixels} px",
        text.len()
    );

    // Reading order: by row (tops within a few pixels), then left to right.
    bars.sort_by_key(|b| b.y0);
    let rows: Vec<Vec<&Blob>> = bars
        .chunk_by(|a, b| a.y0.abs_diff(b.y0) <= 3)
        .map(|row| {
            let mut row = row.to_vec();
            row.sort_by_key(|b| b.x0);
            row
        })
        .collect();
    let lengths: Vec<usize> = rows.iter().map(Vec::len).collect();
    assert_eq!(lengths, [5, 2], "rows of the grid: {rows:?}");
    assert!(
        rows[1][0].y0 > rows[0][0].y1 + 48,
        "the second row is not below the first: {rows:?}"
    );
    for (row, next) in rows.iter().zip(&rows[1..]) {
        for (above, below) in row.iter().zip(next) {
            assert!(
                above.x0.abs_diff(below.x0) <= 1,
                "columns not aligned: {above:?} above {below:?}"
            );
        }
    }
    let scale = f64::from(CROP_HEIGHT) / f64::from(CROP_H);
    for (i, bar) in rows.iter().flatten().enumerate() {
        let (expected_w, expected_h) = (f64::from(bar_width(i)) * scale, f64::from(BAR_H) * scale);
        assert!(
            (f64::from(bar.width()) - expected_w).abs() <= 3.0
                && (f64::from(bar.height()) - expected_h).abs() <= 3.0,
            "hit {} shows a {}×{} bar, expected about {expected_w:.0}×{expected_h:.0}",
            i + 1,
            bar.width(),
            bar.height()
        );
    }
    // Cells 196 px apart (column width plus gap).
    for pair in rows[0].windows(2) {
        let step = pair[1].x0 - pair[0].x0;
        assert!(
            (194..=198).contains(&step),
            "columns {step} px apart: {pair:?}"
        );
    }
}
