//! Headless Chromium for the tests that check a picture as a browser
//! shows it: whether it is there (required when `CI` is set), a
//! screenshot of a file, and the screenshot's pixels.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const CHROMIUM: &str = "/usr/bin/chromium";
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// True when Chromium is installed; skipped with a message when it is
/// not, a failure then when `CI` is set.
pub fn chromium_available() -> bool {
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
pub fn screenshot(file: &Path, png: &Path, profile: &Path, width: u32, height: u32) {
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
pub fn pixels(png: &Path) -> (Vec<[u8; 3]>, u32) {
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
