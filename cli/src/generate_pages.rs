//! `stemmata generate-pages`: book texts set as page images with their word
//! boxes (`truth.tsv`) and Tesseract's OCR of each page, a test collection
//! for word-image search.

use clap::{Args, ValueEnum};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use stemmata::{Error, Result};
use stemmata_pages::{
    degrade, draw_page, layout_pages, load_font, page_file_name, write_page_image,
};
use stemmata_pages::{FontVec, Layout, PageLayout, Preset, TruthWriter};

use crate::generate::check_empty;
use crate::output::bar;

pub const ABOUT: &str = "Set book texts as scanned-looking page images, record the box of every \
word, and run Tesseract on each page, so that word-image search can be tested on really noisy \
OCR.

Each --text is set in --font on 1000x1500 px pages, a book page at 150 dpi: every font scaled to \
a 14 px x-height, 40 px from baseline to baseline; words split on whitespace, kerned, wrapped \
into lines, a paragraph (ended by a blank line) starting on an indented line. A typographic \
character the font lacks is replaced by a plain one (curly quotes by straight ones, dashes by a \
hyphen); a word with another missing character is left out.

--degrade makes the pages look scanned, each page's random choices drawn from --seed:
  clean      none
  blur       out of focus: a Gaussian blur of sigma 1 px
  noise      dust and dropouts: salt-and-pepper pixels, dark and white specks
  bleed      ink bleed: strokes thickened, narrow gaps closed
  skew       the page rotated by 0.3-1 degree; a word's box becomes the box around its
             rotated corners
  contrast   uneven light: grey ink, a smooth shading across the page and broad shadows
  heavy      bleed, contrast, skew, blur and three times the noise, at half the resolution

Writes, in --out (created; must be missing or empty):
  pages/<name>-0001.png ...   the pages, <name> the text file's name without extension
  pages/<name>-0001.hocr      Tesseract's hOCR of the page (--ocr hocr; .xml for --ocr alto)
  truth.tsv                   page, x0, y0, x1, y1, word: one word a line, the box in pixels \
(right and bottom edges excluded), the page its image file name

OCR runs `tesseract PAGE.png PAGE --dpi 150 -l eng hocr` (or alto), two pages at a time, each \
with OMP_THREAD_LIMIT=1; it needs Debian's tesseract-ocr and tesseract-ocr-eng packages. The \
same options always write the same pages.";

/// The font used when none is given (Debian's fonts-dejavu-core).
const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf";

/// Pages read by Tesseract at once.
const OCR_JOBS: usize = 2;

#[derive(Args)]
pub struct GeneratePagesArgs {
    /// Plain-text book to set (UTF-8); repeat or list several.
    #[arg(long = "text", value_name = "FILE", required = true, num_args = 1..)]
    pub texts: Vec<PathBuf>,
    /// TrueType/OpenType font file to set the texts in.
    #[arg(long, value_name = "FILE", default_value = DEFAULT_FONT)]
    pub font: PathBuf,
    /// How the pages are degraded: clean, blur, noise, bleed, skew,
    /// contrast or heavy (see above).
    #[arg(long, value_name = "NAME", default_value_t = Preset::Clean)]
    pub degrade: Preset,
    /// Directory to write (created; must be missing or empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// At most N pages of each text [default: all].
    #[arg(long, value_name = "N")]
    pub pages: Option<usize>,
    /// Seed of the degradations' random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// OCR written beside each page: Tesseract's hOCR (.hocr), its ALTO
    /// (.xml), or none.
    #[arg(long, value_enum, default_value_t = Ocr::Hocr)]
    pub ocr: Ocr,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The OCR output format.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Ocr {
    None,
    Hocr,
    Alto,
}

impl Ocr {
    /// Tesseract's config name and the extension of the file it writes.
    fn tesseract_config(self) -> Option<(&'static str, &'static str)> {
        match self {
            Ocr::None => None,
            Ocr::Hocr => Some(("hocr", "hocr")),
            Ocr::Alto => Some(("alto", "xml")),
        }
    }
}

/// A text set on pages: the name its page files start with and its pages.
struct SetText {
    name: String,
    pages: Vec<PageLayout>,
}

pub fn run(args: GeneratePagesArgs) -> Result<ExitCode> {
    check_empty(&args.out)?;
    if args.ocr != Ocr::None {
        check_tesseract()?;
    }
    let font = load_font(&args.font).map_err(pages_error)?;
    let layout = Layout::default();
    let texts = set_texts(&args, &font, &layout)?;
    let started = Instant::now();
    let (images, words) = write_all(&args, &font, &layout, &texts)?;
    let render_seconds = started.elapsed().as_secs_f64();
    outln!(
        "{} pages, {words} words from {} texts in {} ({:.1} pages/s)",
        images.len(),
        texts.len(),
        args.out.display(),
        images.len() as f64 / render_seconds.max(1e-9)
    )?;
    if let Some((config, extension)) = args.ocr.tesseract_config() {
        let ocr = ocr_all(&images, config, extension, layout.dpi, args.quiet)?;
        outln!(
            "tesseract {config}: {:.2} s a page ({OCR_JOBS} at a time)",
            ocr.as_secs_f64() / images.len().max(1) as f64
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The texts of `args` set on pages, the first `--pages` of each, named
/// by their file names.
fn set_texts(args: &GeneratePagesArgs, font: &FontVec, layout: &Layout) -> Result<Vec<SetText>> {
    let mut seen: HashMap<String, &Path> = HashMap::new();
    let mut texts = Vec::with_capacity(args.texts.len());
    for path in &args.texts {
        let name = text_name(path)?;
        if let Some(other) = seen.insert(name.clone(), path) {
            return Err(Error::InvalidArgument(format!(
                "{} and {} would both write pages named {name}-0001.png…; rename one",
                other.display(),
                path.display()
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let mut pages = layout_pages(&text, font, layout);
        pages.truncate(args.pages.unwrap_or(usize::MAX));
        texts.push(SetText { name, pages });
    }
    Ok(texts)
}

/// The file name of `path` without its extension.
fn text_name(path: &Path) -> Result<String> {
    path.file_stem()
        .and_then(|stem| stem.to_str())
        .map(str::to_string)
        .ok_or_else(|| Error::InvalidArgument(format!("{}: no usable file name", path.display())))
}

/// Draws and writes every page of `texts` with `truth.tsv`; returns the
/// image paths and the number of words.
fn write_all(
    args: &GeneratePagesArgs,
    font: &FontVec,
    layout: &Layout,
    texts: &[SetText],
) -> Result<(Vec<PathBuf>, usize)> {
    let total: usize = texts.iter().map(|t| t.pages.len()).sum();
    let progress = bar(total as u64, "render", args.quiet);
    let mut truth = TruthWriter::create(&args.out).map_err(pages_error)?;
    let mut images = Vec::with_capacity(total);
    let mut words = 0;
    for (text_index, text) in texts.iter().enumerate() {
        for (index, layout_of_page) in text.pages.iter().enumerate() {
            let seed = page_seed(args.seed, text_index, index);
            let page = degrade(&draw_page(layout_of_page, font, layout), args.degrade, seed);
            let name = page_file_name(&text.name, index + 1);
            images.push(write_page_image(&args.out, &name, &page).map_err(pages_error)?);
            truth.add_page(&name, &page).map_err(pages_error)?;
            words += page.words.len();
            progress.inc(1);
        }
    }
    truth.finish().map_err(pages_error)?;
    progress.finish_and_clear();
    Ok((images, words))
}

/// The seed of the degradation of page `page` of text `text`: distinct
/// for every page.
fn page_seed(seed: u64, text: usize, page: usize) -> u64 {
    let place = ((text as u64) << 32) | page as u64;
    seed ^ place.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Fails unless `tesseract` runs and has its English model.
fn check_tesseract() -> Result<()> {
    let output = tesseract()
        .arg("--list-langs")
        .output()
        .map_err(tesseract_missing)?;
    let languages = String::from_utf8_lossy(&output.stdout);
    if !languages.lines().any(|line| line.trim() == "eng") {
        return Err(Error::InvalidArgument(
            "tesseract has no English model (eng): install Debian's tesseract-ocr-eng, or \
             pass --ocr none"
                .to_string(),
        ));
    }
    Ok(())
}

fn tesseract() -> Command {
    let mut command = Command::new("tesseract");
    command.env("OMP_THREAD_LIMIT", "1");
    command
}

fn tesseract_missing(source: std::io::Error) -> Error {
    let hint = if source.kind() == std::io::ErrorKind::NotFound {
        "not found: install Debian's tesseract-ocr (apt-get install tesseract-ocr), or pass --ocr none"
            .to_string()
    } else {
        format!("cannot be run ({source}); pass --ocr none to write the pages without OCR")
    };
    Error::Io {
        path: "tesseract".into(),
        source: std::io::Error::new(source.kind(), hint),
    }
}

/// Runs Tesseract on every image, [`OCR_JOBS`] at a time; returns the
/// time taken by all the runs together.
fn ocr_all(
    images: &[PathBuf],
    config: &str,
    extension: &str,
    dpi: u32,
    quiet: bool,
) -> Result<Duration> {
    let progress = bar(images.len() as u64, "ocr", quiet);
    let next = AtomicUsize::new(0);
    let worker = || -> Result<Duration> {
        let mut spent = Duration::ZERO;
        while let Some(image) = images.get(next.fetch_add(1, Ordering::Relaxed)) {
            let started = Instant::now();
            if let Err(error) = ocr_page(image, config, extension, dpi) {
                next.store(images.len(), Ordering::Relaxed);
                return Err(error);
            }
            spent += started.elapsed();
            progress.inc(1);
        }
        Ok(spent)
    };
    let results: Vec<Result<Duration>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..OCR_JOBS).map(|_| scope.spawn(worker)).collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    progress.finish_and_clear();
    results.into_iter().sum()
}

/// Runs Tesseract on `image`, writing its OCR beside it with `extension`.
fn ocr_page(image: &Path, config: &str, extension: &str, dpi: u32) -> Result<()> {
    let base = image.with_extension("");
    let output = tesseract()
        .arg(image)
        .arg(&base)
        .args(["--dpi", &dpi.to_string(), "-l", "eng", config])
        .output()
        .map_err(tesseract_missing)?;
    let written = image.with_extension(extension);
    if !output.status.success() || !written.is_file() {
        return Err(Error::InvalidArgument(format!(
            "tesseract failed on {} ({}): {}",
            image.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(())
}

/// The command line's error for an error of the pages crate.
fn pages_error(error: stemmata_pages::Error) -> Error {
    match error {
        stemmata_pages::Error::Io { path, source } => Error::Io { path, source },
        stemmata_pages::Error::Font { path, reason } => Error::Io {
            path,
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not a TrueType/OpenType font ({reason})"),
            ),
        },
        stemmata_pages::Error::Image { path, source } => Error::Io {
            path,
            source: std::io::Error::other(source.to_string()),
        },
    }
}
