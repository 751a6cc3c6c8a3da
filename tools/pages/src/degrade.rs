//! Degradations of a rendered page as a scan shows them, deterministic
//! from a seed. Each keeps the page size; only the skew moves the ink, and
//! it moves the truth boxes with it.

use std::f32::consts::PI;
use std::fmt;
use std::str::FromStr;

use image::imageops::{resize, FilterType};
use image::{GrayImage, Luma};
use imageproc::filter::gaussian_blur_f32;
use imageproc::geometric_transformations::{
    rotate_about_center, Border, Interpolation, Projection,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::render::clamped_box;
use crate::{Page, TruthWord};

/// A named degradation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    /// None: the page as rendered.
    Clean,
    /// Out of focus: a Gaussian blur of σ 1 px.
    Blur,
    /// Dust and dropouts: salt and pepper on 0.2% of the pixels each, and
    /// small dark and white specks.
    Noise,
    /// Ink bleed: strokes thickened and their gaps closed.
    Bleed,
    /// A page laid askew: rotated by 0.3–1°.
    Skew,
    /// Uneven light: a smooth shading field over grey ink on grey paper.
    Contrast,
    /// Bleed, uneven light, skew, half the resolution, a slighter blur and
    /// three times the noise, at once: harsh enough that Tesseract's word
    /// accuracy drops well below 90%.
    Heavy,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 7] = [
        Preset::Clean,
        Preset::Blur,
        Preset::Noise,
        Preset::Bleed,
        Preset::Skew,
        Preset::Contrast,
        Preset::Heavy,
    ];

    /// The preset's name, as [`FromStr`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Clean => "clean",
            Preset::Blur => "blur",
            Preset::Noise => "noise",
            Preset::Bleed => "bleed",
            Preset::Skew => "skew",
            Preset::Contrast => "contrast",
            Preset::Heavy => "heavy",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Preset::ALL
            .into_iter()
            .find(|preset| preset.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
                format!("unknown degradation `{name}`; one of {}", names.join(", "))
            })
    }
}

/// `page` degraded by `preset`, the random choices drawn from `seed`.
pub fn degrade(page: &Page, preset: Preset, seed: u64) -> Page {
    let mut rng = SmallRng::seed_from_u64(seed);
    let image = &page.image;
    match preset {
        Preset::Clean => page.clone(),
        Preset::Blur => with_image(page, blur(image, 1.0)),
        Preset::Noise => with_image(page, speckle(image, &mut rng, 0.002)),
        Preset::Bleed => with_image(page, bleed(image, 1.0, 170)),
        Preset::Skew => skew(page, random_angle(&mut rng, 0.3, 1.0)),
        Preset::Contrast => with_image(page, uneven_light(image, &mut rng, 0.45, 70.0)),
        Preset::Heavy => heavy(page, &mut rng),
    }
}

/// The harsh combination: ink bleed, uneven light, skew, half resolution,
/// blur and dense noise.
fn heavy(page: &Page, rng: &mut SmallRng) -> Page {
    let bled = bleed(&page.image, 1.0, 170);
    let lit = with_image(page, uneven_light(&bled, rng, 0.4, 70.0));
    let skewed = skew(&lit, random_angle(rng, 0.5, 1.0));
    let coarse = half_resolution(&skewed.image);
    let noisy = speckle(&blur(&coarse, 0.8), rng, 0.006);
    with_image(&skewed, noisy)
}

fn with_image(page: &Page, image: GrayImage) -> Page {
    Page {
        image,
        words: page.words.clone(),
    }
}

/// A Gaussian blur of `sigma` pixels.
fn blur(image: &GrayImage, sigma: f32) -> GrayImage {
    gaussian_blur_f32(image, sigma)
}

/// Salt and pepper on a `density` share of the pixels each, and specks of
/// 1–2 px radius on a fiftieth of that share: dark ones (dust) and white
/// ones (ink dropouts).
fn speckle(image: &GrayImage, rng: &mut SmallRng, density: f64) -> GrayImage {
    let mut out = image.clone();
    for pixel in out.pixels_mut() {
        let draw: f64 = rng.random();
        if draw < density {
            pixel.0[0] = rng.random_range(0..60);
        } else if draw < 2.0 * density {
            pixel.0[0] = rng.random_range(200..=255);
        }
    }
    let specks = (image.width() as f64 * image.height() as f64 * density / 50.0) as usize;
    for _ in 0..specks {
        let x = rng.random_range(0..image.width()) as i64;
        let y = rng.random_range(0..image.height()) as i64;
        let tone = if rng.random_bool(0.5) { 30 } else { 255 };
        dot(&mut out, x, y, rng.random_range(1..=2), tone);
    }
    out
}

/// A disc of `tone` and `radius` at `x`, `y` (clipped to the image).
fn dot(image: &mut GrayImage, x: i64, y: i64, radius: i64, tone: u8) {
    for dy in -radius..=radius {
        for dx in -radius..=radius {
            let (px, py) = (x + dx, y + dy);
            let inside =
                px >= 0 && py >= 0 && px < image.width() as i64 && py < image.height() as i64;
            if inside && dx * dx + dy * dy <= radius * radius {
                image.put_pixel(px as u32, py as u32, Luma([tone]));
            }
        }
    }
}

/// Ink bleed: a blur of `sigma` spreads the ink, then every pixel darker
/// than `threshold` turns black and the rest is stretched to white, so
/// that strokes thicken.
fn bleed(image: &GrayImage, sigma: f32, threshold: u8) -> GrayImage {
    let mut out = blur(image, sigma);
    let t = threshold as f32;
    for pixel in out.pixels_mut() {
        let v = pixel.0[0] as f32;
        pixel.0[0] = ((v - t) * 255.0 / (255.0 - t)).clamp(0.0, 255.0) as u8;
    }
    out
}

/// An angle of `least`–`most` degrees either way, in radians.
fn random_angle(rng: &mut SmallRng, least: f32, most: f32) -> f32 {
    let degrees = rng.random_range(least..=most);
    let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
    sign * degrees * PI / 180.0
}

/// `page` rotated clockwise by `theta` radians about its centre, each truth
/// box replaced by the box around its rotated corners.
fn skew(page: &Page, theta: f32) -> Page {
    let image = rotate_about_center(
        &page.image,
        theta,
        Interpolation::Bilinear,
        Border::Constant(Luma([255])),
    );
    let (width, height) = image.dimensions();
    let (cx, cy) = (width as f32 / 2.0, height as f32 / 2.0);
    let rotation =
        Projection::translate(cx, cy) * Projection::rotate(theta) * Projection::translate(-cx, -cy);
    let words = page
        .words
        .iter()
        .filter_map(|word| {
            let b = word.bbox;
            let corners = [(b.x0, b.y0), (b.x1, b.y0), (b.x0, b.y1), (b.x1, b.y1)];
            let moved = corners.map(|(x, y)| rotation * (x as f32, y as f32));
            let xs = moved.map(|(x, _)| x);
            let ys = moved.map(|(_, y)| y);
            let (x0, x1) = (
                xs.iter().copied().fold(f32::MAX, f32::min),
                xs.iter().copied().fold(f32::MIN, f32::max),
            );
            let (y0, y1) = (
                ys.iter().copied().fold(f32::MAX, f32::min),
                ys.iter().copied().fold(f32::MIN, f32::max),
            );
            let bbox = clamped_box(x0, y0, x1, y1, width, height);
            (!bbox.is_empty()).then(|| TruthWord {
                bbox,
                text: word.text.clone(),
            })
        })
        .collect();
    Page { image, words }
}

/// Uneven light: ink lightened to `ink` grey, then paper and ink shaded by
/// a smooth field that darkens by up to `strength` (0–1): a gradient across
/// the page in a random direction plus two broad shadows.
fn uneven_light(image: &GrayImage, rng: &mut SmallRng, strength: f32, ink: f32) -> GrayImage {
    let field = ShadingField::random(rng, image.width(), image.height());
    let mut out = image.clone();
    for (x, y, pixel) in out.enumerate_pixels_mut() {
        let tone = ink + (255.0 - ink) * pixel.0[0] as f32 / 255.0;
        let light = 1.0 - strength * field.darkness(x as f32, y as f32);
        pixel.0[0] = (tone * light).round().clamp(0.0, 255.0) as u8;
    }
    out
}

/// A smooth darkness field in 0–1 over the page.
struct ShadingField {
    /// Unit direction of the gradient, and where the page starts and how
    /// far it extends along it.
    direction: (f32, f32),
    start: f32,
    extent: f32,
    /// Broad shadows: centre and radius.
    shadows: [(f32, f32, f32); 2],
}

impl ShadingField {
    fn random(rng: &mut SmallRng, width: u32, height: u32) -> Self {
        let angle = rng.random_range(0.0..2.0 * PI);
        let direction = (angle.cos(), angle.sin());
        let (w, h) = (width as f32, height as f32);
        let start = (direction.0 * w).min(0.0) + (direction.1 * h).min(0.0);
        let extent = direction.0.abs() * w + direction.1.abs() * h;
        let shadows = [(); 2].map(|_| {
            (
                rng.random_range(0.0..w),
                rng.random_range(0.0..h),
                rng.random_range(0.25..0.6) * w,
            )
        });
        ShadingField {
            direction,
            start,
            extent,
            shadows,
        }
    }

    fn darkness(&self, x: f32, y: f32) -> f32 {
        let (dx, dy) = self.direction;
        let gradient = ((x * dx + y * dy - self.start) / self.extent).clamp(0.0, 1.0);
        let shadow = self
            .shadows
            .iter()
            .map(|&(sx, sy, r)| (-((x - sx).powi(2) + (y - sy).powi(2)) / (r * r)).exp())
            .fold(0.0, f32::max);
        (0.6 * gradient + 0.4 * shadow).clamp(0.0, 1.0)
    }
}

/// The image shrunk to half size and back: the detail of a 75 dpi scan.
fn half_resolution(image: &GrayImage) -> GrayImage {
    let (width, height) = image.dimensions();
    let small = resize(image, width / 2, height / 2, FilterType::Triangle);
    resize(&small, width, height, FilterType::Triangle)
}
