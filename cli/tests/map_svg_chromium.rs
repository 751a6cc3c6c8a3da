//! A portion map's SVG as a browser shows it: headless Chromium renders the
//! picture to a PNG, and the PNG must have the map's colours in about the
//! areas the map gives them — the matched bins in green, the rest of the
//! bars in red, the bands joining matched regions in pale green — and the
//! dark pixels of the labels.
//!
//! Skipped with a message when `/usr/bin/chromium` is missing; fails then
//! when the environment variable `CI` is set (`.ci/run` installs it).

mod common;

use common::chromium::{chromium_available, pixels, screenshot};

use stemmata::relate::svg::{BAR_COLOUR, MATCHED_COLOUR};
use stemmata::relate::{MapBook, MapOptions, PortionMap};

fn rgb(hex: &str) -> [u8; 3] {
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
    [byte(1), byte(3), byte(5)]
}

fn count_near(pixels: &[[u8; 3]], colour: [u8; 3]) -> usize {
    pixels
        .iter()
        .filter(|p| p.iter().zip(colour).all(|(&a, b)| a.abs_diff(b) <= 6))
        .count()
}

/// `colour` drawn at `opacity` over white.
fn over_white(colour: [u8; 3], opacity: f64) -> [u8; 3] {
    colour.map(|c| (255.0 - (255.0 - f64::from(c)) * opacity).round() as u8)
}

fn assert_about(what: &str, got: usize, expected: f64) {
    let (low, high) = (0.85 * expected, 1.15 * expected);
    assert!(
        (low..=high).contains(&(got as f64)),
        "{what}: {got} pixels, expected about {expected:.0}"
    );
}

#[test]
fn chromium_renders_the_map_with_its_colours() {
    if !chromium_available() {
        return;
    }
    // B (2000 words) is words 4000..6000 of A (10 000 words).
    let map = PortionMap::build(
        MapBook::full_text(10_000),
        MapBook::full_text(2_000),
        [(4_000..6_000, 0..2_000)],
        &MapOptions::default(),
    )
    .unwrap();
    let svg = map.to_svg("Collected <Works> & more", "One story");
    let dir = tempfile::tempdir().unwrap();
    let (file, png) = (dir.path().join("map.svg"), dir.path().join("map.png"));
    std::fs::write(&file, &svg).unwrap();
    screenshot(&file, &png, &dir.path().join("profile"), 1000, 250);
    let (pixels, width) = pixels(&png);
    assert_eq!(width, 1000);
    // 960 px for 10 000 words; bars 24 px high.
    let matched = count_near(&pixels, rgb(MATCHED_COLOUR));
    let bar = count_near(&pixels, rgb(BAR_COLOUR));
    let band = count_near(&pixels, over_white(rgb(MATCHED_COLOUR), 0.25));
    let dark = pixels.iter().filter(|p| p.iter().all(|&c| c < 100)).count();
    println!("matched {matched}, bar {bar}, band {band}, dark {dark}");
    assert_about(
        "matched bins (A 192 px + B 192 px wide)",
        matched,
        2.0 * 192.0 * 24.0,
    );
    assert_about("unmatched bar (A 768 px wide)", bar, 768.0 * 24.0);
    // The band is a parallelogram 192 px wide and 112 px high.
    assert_about("band joining the region", band, 192.0 * 112.0);
    assert!(dark > 500, "labels missing: {dark} dark pixels");
}
