//! Reading scanned pages: a page image (PNG, TIFF, JPEG) with its OCR
//! (hOCR or ALTO, the file beside it), checked against each other, into
//! the word images search needs: each word's box (the ink's, found inside
//! the OCR's box, [`super::ink`], and grown along its OCR line where the
//! box held part of the word, [`super::lines`]; the words the OCR boxed
//! otherwise or not at all found along the page's own text lines,
//! [`super::page_lines`]), word, descriptors (under the
//! [`Normalisation`] of the vocabulary they will be quantised by) and a
//! small crop for showing it.
//!
//! A page's OCR is the file with the image's stem and the extension
//! `.hocr`, `.html`, `.xml` or `.alto.xml` beside it, the first that
//! exists, unless given. The OCR must describe one page of the image's
//! size (when it gives a size); word boxes are clipped to the image, and
//! words whose box holds no pixel are left out.

use std::path::{Path, PathBuf};

use image::imageops::FilterType;
use image::GrayImage;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::descriptor::{describe, Keypoint, Normalisation};
use super::ink::ink_words;
use super::lines::{grown_words, lines_at};
use super::ocr::{read_ocr, OcrWord, MAX_COORDINATE};
use super::page_lines::words_left_out;
use super::WordBox;
use crate::error::{Error, IoContext, Result};

/// Height in pixels of every word's crop.
pub const CROP_HEIGHT: u32 = 32;
/// Widest crop, in pixels (40 box heights).
pub const MAX_CROP_WIDTH: u32 = 40 * CROP_HEIGHT;

/// Largest page image file read, in bytes.
pub const MAX_IMAGE_BYTES: u64 = 512 << 20;
/// Most words of the pages of one book read at once (one add): 1,000
/// pages of 250 words. Each word image is held with its descriptors (about
/// 25 KB for a word of five letters) until the book is described.
pub const MAX_BOOK_WORDS: usize = 250_000;

/// Largest OCR file read, in bytes.
pub const MAX_OCR_BYTES: u64 = 256 << 20;

/// The extensions an OCR file beside its page image may have, in the
/// order they are looked for.
pub const OCR_EXTENSIONS: [&str; 4] = ["hocr", "html", "alto.xml", "xml"];

/// A page image and its OCR file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFiles {
    /// The page image.
    pub image: PathBuf,
    /// Its OCR (hOCR or ALTO).
    pub ocr: PathBuf,
}

impl PageFiles {
    /// The page image `image` with the OCR file beside it (see the module
    /// docs); `InvalidArgument` naming the image when there is none.
    pub fn beside(image: &Path) -> Result<PageFiles> {
        let stem = image
            .file_stem()
            .ok_or_else(|| Error::InvalidArgument(format!("{}: not a file", image.display())))?;
        for extension in OCR_EXTENSIONS {
            let mut name = stem.to_os_string();
            name.push(".");
            name.push(extension);
            let ocr = image.with_file_name(name);
            if ocr.is_file() && ocr != image {
                return Ok(PageFiles {
                    image: image.to_path_buf(),
                    ocr,
                });
            }
        }
        Err(Error::InvalidArgument(format!(
            "{}: no OCR file beside it (the same name with .{})",
            image.display(),
            OCR_EXTENSIONS.join(", .")
        )))
    }

    /// The pages of `paths`: a file is a page image, a directory gives its
    /// page images (by extension, [`IMAGE_EXTENSIONS`]) in name order;
    /// each with the OCR file beside it ([`PageFiles::beside`]).
    /// `InvalidArgument` for a directory without page images, `Io` for one
    /// that cannot be read.
    pub fn of_paths(paths: &[impl AsRef<Path>]) -> Result<Vec<PageFiles>> {
        let mut images = Vec::new();
        for path in paths {
            let path = path.as_ref();
            if path.is_dir() {
                images.extend(images_in(path)?);
            } else {
                images.push(path.to_path_buf());
            }
        }
        images
            .iter()
            .map(|image| PageFiles::beside(image))
            .collect()
    }
}

/// The extensions of the page images a directory gives (any case).
pub const IMAGE_EXTENSIONS: [&str; 5] = ["png", "tif", "tiff", "jpg", "jpeg"];

/// The page images of a directory, by name.
fn images_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).at(dir)? {
        let path = entry.at(dir)?.path();
        let image = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
        if image && path.is_file() {
            out.push(path);
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{}: no page image (.{}) in this directory",
            dir.display(),
            IMAGE_EXTENSIONS.join(", .")
        )));
    }
    Ok(out)
}

/// One word image of a page.
#[derive(Debug, Clone)]
pub struct PageWord {
    /// Its box, within the page image: the ink's extent inside the OCR's
    /// box ([`ink_words`]), grown along its line where that held part of
    /// the word ([`grown_words`]).
    pub bbox: WordBox,
    /// The OCR's box it was found from (clipped to the page), for
    /// reference: several words share it where the OCR joined them, and a
    /// box grown along its line reaches past it; a word found from the
    /// ink alone has its own box here.
    pub ocr_box: WordBox,
    /// The word the OCR read (its share of the OCR's text when the OCR
    /// joined words); empty for a word found from the ink alone.
    pub ocr: String,
    /// Its descriptors, positions in units.
    pub keypoints: Vec<Keypoint>,
    /// Its unit in pixels: the height its descriptors are scaled to.
    pub unit: u32,
    /// Its crop, [`CROP_HEIGHT`] pixels high.
    pub crop: GrayImage,
}

/// A page read and described.
#[derive(Debug, Clone)]
pub struct Page {
    /// The image file's name (without its directory).
    pub name: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Its word images, in the OCR's order.
    pub words: Vec<PageWord>,
    /// How its words were described.
    pub normalisation: Normalisation,
}

/// Reads the page `files` names: decodes the image, reads the OCR, checks
/// that they describe one page of one size, and describes every word
/// under `normalisation`.
pub fn read_page(files: &PageFiles, normalisation: Normalisation) -> Result<Page> {
    read_counted_page(files, normalisation, &AtomicUsize::new(0))
}

/// [`read_page`], adding its words to `book_words`, the words of the
/// book's pages read so far: more than [`MAX_BOOK_WORDS`] is an error
/// naming this page's OCR file, before its words are described.
fn read_counted_page(
    files: &PageFiles,
    normalisation: Normalisation,
    book_words: &AtomicUsize,
) -> Result<Page> {
    let image = read_image(&files.image)?;
    let ocr_bytes = read_bounded(&files.ocr, MAX_OCR_BYTES)?;
    let pages = read_ocr(&ocr_bytes, &files.ocr)?;
    let [ocr] = pages.as_slice() else {
        return Err(Error::corrupted(
            &files.ocr,
            format!(
                "{} pages of OCR; give one OCR file per page image",
                pages.len()
            ),
        ));
    };
    let words_so_far = book_words.fetch_add(ocr.words.len(), Ordering::Relaxed) + ocr.words.len();
    if words_so_far > MAX_BOOK_WORDS {
        return Err(Error::InvalidArgument(format!(
            "{}: the pages of one book hold more than {MAX_BOOK_WORDS} words (this page brings \
             them to {words_so_far}); add the book in parts",
            files.ocr.display()
        )));
    }
    let (width, height) = image.dimensions();
    if ocr.width != 0 && ocr.height != 0 && (ocr.width, ocr.height) != (width, height) {
        return Err(Error::InvalidArgument(format!(
            "{}: the OCR describes a page of {}×{} pixels, but its image {} has {width}×{height}",
            files.ocr.display(),
            ocr.width,
            ocr.height,
            files.image.display()
        )));
    }
    let words = (found_words(&image, &ocr.words).into_iter())
        .map(|found| {
            let described = describe(&image, found.bbox, normalisation);
            PageWord {
                bbox: found.bbox,
                ocr_box: found.ocr_box,
                ocr: found.text,
                keypoints: described.keypoints,
                unit: described.unit,
                crop: crop(&image, found.bbox),
            }
        })
        .collect();
    Ok(Page {
        name: files
            .image
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        width,
        height,
        words,
        normalisation,
    })
}

/// A word found on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundWord {
    /// Its box: the ink's.
    pub bbox: WordBox,
    /// The OCR's box it was found from, clipped to the page; its own box
    /// for a word found from the ink alone.
    pub ocr_box: WordBox,
    /// Its share of what the OCR read in that box; empty for a word found
    /// from the ink alone.
    pub text: String,
}

/// The words of the page image `page` whose OCR words are `ocr`, in the
/// OCR's order: the ink of each OCR box on its OCR line's text line
/// ([`lines_at`], [`ink_words`]), a box grown along its line where it
/// holds part of a word ([`grown_words`]); then the words found along the
/// page's own text lines that no box holds ([`words_left_out`]), without
/// text. A box is clipped to the page, and one that holds no pixel is
/// left out.
pub fn found_words(page: &GrayImage, ocr: &[OcrWord]) -> Vec<FoundWord> {
    let (width, height) = page.dimensions();
    let boxed: Vec<(&OcrWord, WordBox)> = (ocr.iter())
        .map(|word| (word, word.bbox.clipped_to(width, height)))
        .filter(|(_, ocr_box)| !ocr_box.is_empty())
        .collect();
    let ocr_lined: Vec<(u32, WordBox)> = (boxed.iter())
        .map(|(word, ocr_box)| (word.line, *ocr_box))
        .collect();
    let mut words = Vec::with_capacity(boxed.len());
    let mut lined = Vec::with_capacity(boxed.len());
    for ((word, ocr_box), line) in boxed.into_iter().zip(lines_at(page, &ocr_lined)) {
        for found in ink_words(page, ocr_box, &word.text, line) {
            lined.push((word.line, found.bbox));
            words.push(FoundWord {
                bbox: found.bbox,
                ocr_box,
                text: found.text,
            });
        }
    }
    for (word, bbox) in grown_words(page, &lined) {
        words[word].bbox = bbox;
    }
    let boxes: Vec<WordBox> = words.iter().map(|word| word.bbox).collect();
    words.extend(
        (words_left_out(page, &boxes).into_iter()).map(|bbox| FoundWord {
            bbox,
            ocr_box: bbox,
            text: String::new(),
        }),
    );
    words
}

fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let len = std::fs::metadata(path).at(path)?.len();
    if len > limit {
        return Err(Error::InvalidArgument(format!(
            "{}: {len} bytes; at most {limit} are read",
            path.display()
        )));
    }
    std::fs::read(path).at(path)
}

/// Decodes a page image as 8-bit grey.
fn read_image(path: &Path) -> Result<GrayImage> {
    let bytes = read_bounded(path, MAX_IMAGE_BYTES)?;
    let bad = |what: String| Error::BadDocument {
        source_name: path.display().to_string(),
        reason: what,
    };
    let format = image::guess_format(&bytes)
        .map_err(|_| bad("not a PNG, TIFF or JPEG image".to_string()))?;
    if !matches!(
        format,
        image::ImageFormat::Png | image::ImageFormat::Tiff | image::ImageFormat::Jpeg
    ) {
        return Err(bad(format!(
            "a {format:?} image; page images are PNG, TIFF or JPEG"
        )));
    }
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_COORDINATE);
    limits.max_image_height = Some(MAX_COORDINATE);
    reader.limits(limits);
    let decoded = reader
        .decode()
        .map_err(|e| bad(format!("the image does not decode: {e}")))?;
    Ok(decoded.into_luma8())
}

/// The word in `bbox` on `page`, scaled to [`CROP_HEIGHT`] pixels high
/// (at most [`MAX_CROP_WIDTH`] wide). A box more than twice the crop's
/// size is first sampled (nearest pixel) to twice the crop's size, so that
/// a crop costs the same whatever the size of its box.
pub fn crop(page: &GrayImage, bbox: WordBox) -> GrayImage {
    let (w, h) = (bbox.width().max(1), bbox.height().max(1));
    let width =
        ((w as f64 * CROP_HEIGHT as f64 / h as f64).round() as u32).clamp(1, MAX_CROP_WIDTH);
    let (sample_w, sample_h) = (w.min(2 * width), h.min(2 * CROP_HEIGHT));
    let view = if (sample_w, sample_h) == (w, h) {
        image::imageops::crop_imm(page, bbox.x0, bbox.y0, w, h).to_image()
    } else {
        let at = |i: u32, n: u32, len: u32| (u64::from(i) * u64::from(len) / u64::from(n)) as u32;
        GrayImage::from_fn(sample_w, sample_h, |x, y| {
            *page.get_pixel(bbox.x0 + at(x, sample_w, w), bbox.y0 + at(y, sample_h, h))
        })
    };
    image::imageops::resize(&view, width, CROP_HEIGHT, FilterType::Triangle)
}

/// Reads `pages` on every core, in order, describing their words under
/// `normalisation`; the first error stops it. `done` is called after each
/// page with the number read so far.
pub fn read_pages(
    pages: &[PageFiles],
    normalisation: Normalisation,
    done: &(dyn Fn(usize) + Sync),
) -> Result<Vec<Page>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let book_words = AtomicUsize::new(0);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<Page>>> = (0..pages.len()).map(|_| None).collect();
    let results = std::sync::Mutex::new(&mut slots);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(pages.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(files) = pages.get(i) else { break };
                let page = read_counted_page(files, normalisation, &book_words);
                let failed = page.is_err();
                if let Ok(mut slots) = results.lock() {
                    slots[i] = Some(page);
                }
                done(finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
                if failed {
                    next.store(pages.len(), std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    let mut out = Vec::with_capacity(pages.len());
    for (slot, files) in slots.into_iter().zip(pages) {
        match slot {
            Some(page) => out.push(page?),
            None => {
                return Err(Error::InvalidArgument(format!(
                    "{}: not read (an earlier page failed)",
                    files.image.display()
                )))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The format-9 fixture's page.
    fn fixture_page() -> PageFiles {
        let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v9/pages");
        PageFiles {
            image: pages.join("scan-0001.png"),
            ocr: pages.join("scan-0001.hocr"),
        }
    }

    #[test]
    fn a_page_taking_a_book_past_its_word_bound_is_refused_naming_its_ocr_file() {
        let files = fixture_page();
        let words = read_page(&files, Normalisation::DEFAULT)
            .unwrap()
            .words
            .len();
        assert!(words > 1);
        let book_words = AtomicUsize::new(MAX_BOOK_WORDS - words);
        assert_eq!(
            read_counted_page(&files, Normalisation::DEFAULT, &book_words)
                .unwrap()
                .words
                .len(),
            words
        );
        let message = read_counted_page(&files, Normalisation::DEFAULT, &book_words)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("scan-0001.hocr: the pages of one book hold more than 250000 words"),
            "{message}"
        );
    }

    #[test]
    fn a_box_across_two_lines_is_cut_to_the_line_the_ocr_read_it_in() {
        // Two lines of words of three 8×14 letters; the second word of the
        // first line reaches the one below it by a stroke, and the OCR
        // boxed it with both.
        let letters = |x: u32, y: u32| (0..3).map(move |i| (x + i * 11, y, x + i * 11 + 8, y + 14));
        let mut inked: Vec<(u32, u32, u32, u32)> = (letters(20, 40).chain(letters(100, 40)))
            .chain(letters(160, 40))
            .chain(letters(20, 80).chain(letters(100, 80)))
            .collect();
        inked.push((110, 54, 112, 80));
        let page = GrayImage::from_fn(240, 120, |x, y| {
            let dark = (inked.iter())
                .any(|&(x0, y0, x1, y1)| (x0..x1).contains(&x) && (y0..y1).contains(&y));
            image::Luma([if dark { 0 } else { 255 }])
        });
        let word = |text: &str, line: u32, (x0, y0, x1, y1): (u32, u32, u32, u32)| OcrWord {
            text: text.into(),
            bbox: WordBox { x0, y0, x1, y1 },
            confidence: None,
            line,
        };
        let ocr = [
            word("one", 0, (19, 39, 51, 55)),
            word("two", 0, (95, 30, 140, 100)),
            word("three", 0, (159, 39, 191, 55)),
            word("six", 1, (19, 79, 51, 95)),
            word("ten", 1, (99, 79, 131, 95)),
        ];
        let found = found_words(&page, &ocr);
        let two = found.iter().find(|w| w.text == "two").unwrap();
        // Its box starts at its own letters and ends before the letters of
        // the line below (rows 80 to 94): the stroke's rows above them may
        // stay, as a descender would.
        assert_eq!(
            (two.bbox.x0, two.bbox.y0, two.bbox.x1),
            (99, 39, 131),
            "{found:?}"
        );
        assert!(two.bbox.y1 <= 80, "{found:?}");
        assert_eq!(two.ocr_box, ocr[1].bbox);
    }

    #[test]
    fn a_box_far_larger_than_its_crop_is_sampled_to_the_crop_s_size() {
        let page = GrayImage::from_fn(3000, 2000, |x, _| {
            image::Luma([if x < 1500 { 0 } else { 255 }])
        });
        let whole = WordBox {
            x0: 0,
            y0: 0,
            x1: 3000,
            y1: 2000,
        };
        let cropped = crop(&page, whole);
        assert_eq!(cropped.dimensions(), (48, CROP_HEIGHT));
        assert_eq!(cropped.get_pixel(0, 10).0[0], 0);
        assert_eq!(cropped.get_pixel(47, 10).0[0], 255);
        // A box within twice the crop's size is resized as it is.
        let small = WordBox {
            x0: 1480,
            y0: 0,
            x1: 1520,
            y1: 40,
        };
        let direct = image::imageops::crop_imm(&page, 1480, 0, 40, 40).to_image();
        let expected = image::imageops::resize(&direct, 32, CROP_HEIGHT, FilterType::Triangle);
        assert_eq!(crop(&page, small), expected);
    }
}
