//! A portion map's SVG as a browser shows it: headless Chromium renders the
//! picture to a PNG, and the PNG must have the map's colours in about the
//! areas the map gives them — the matched bins in green, the rest of the
//! bars in red, the bands joining matched regions in pale green — and the
//! dark pixels of the labels.
//!
//! Skipped with a message when `/usr/bin/chromium` is missing; fails then
//! when the environment variable `CI` is set (`.ci/run` installs it).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stemmata::relate::svg::{BAR_COLOUR, MATCHED_COLOUR};
use stemmata::relate::{MapBook, MapOptions, PortionMap};

const CHROMIUM: &str = "/usr/bin/chromium";
const TIME_LIMIT: Duration = Duration::from_secs(120);

fn chromium_available() -> bool {
    if Path::new(CHROMIUM).exists() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{CHROMIUM} is missing (required when CI is set)"
    );
    eprintln!("skipped: {CHROMIUM} is missing (apt-get install chromium)");
    false
}

/// Renders `file` with headless Chromium into a `width`×`height` PNG.
fn screenshot(file: &Path, png: &Path, profile: &Path, width: u32, height: u32) {
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("file://{}", file.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let started = Instant::now();
    while child.try_wait().expect("wait for chromium").is_none() {
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            panic!("chromium took more than {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(png.exists(), "chromium wrote no screenshot");
}

/// The RGB pixels of a PNG, with its width.
fn pixels(png: &Path) -> (Vec<[u8; 3]>, u32) {
    let decoder = png::Decoder::new(std::fs::File::open(png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    assert!(
        channels >= 3,
        "unexpected PNG colour type {:?}",
        info.color_type
    );
    let rgb = buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (rgb, info.width)
}

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
