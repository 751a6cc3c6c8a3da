//! `stemmata images add|list` and `stemmata spot`: the word images of
//! scanned books in an index, and text queries over them.

use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

use stemmata::images::learn::LearnOptions;
use stemmata::images::model::Learning;
use stemmata::images::pages::{read_pages, PageFiles};
use stemmata::images::spot::{SpotOptions, OCR_WEIGHT, WIDTH_WEIGHT};
use stemmata::{Error, ImageBookInfo, ImageModel, ImagesProgress, Index, Result, SpotHit};

use crate::messages::{count, no_index};
use crate::output::{bar, print_json, refuse_inside_index};

/// Long help of `stemmata images`.
pub const ABOUT: &str = "\
Add the page images of scanned books to an index, so that their words can be
searched by `stemmata spot` even where the OCR misread them.

Each page is an image (PNG, TIFF or JPEG) with its OCR beside it: the same
name with .hocr or .html (hOCR, as `tesseract page.png page hocr` writes) or
.xml / .alto.xml (ALTO). Every OCR word box becomes a word image. Its box is
found from the ink inside the OCR's: tightened to the ink's rows and columns,
on the text line its OCR line runs along where the box reaches into the next,
grown along that line where the OCR boxed part of a word, and split where the
OCR read two words as one and the ink shows the gap (the OCR's box is kept
beside it). The page's own text lines are then found from its ink, and a word
along them that no box is already, and no box of one line holds, becomes a
word image too, with no OCR word: slanted handwriting's OCR can give one line
to two, and one box to a word of each. Its visual terms (dense SIFT-like descriptors quantised by a
vocabulary learned from the index's first book), its OCR word and a small
crop are stored in the index (images/); the page images themselves are not
needed afterwards.

The letter-bigram model that turns a word image's visual terms into
likelihoods of letter pairs is learned from the index's own word images and
their OCR words. While it has been learned from fewer than --learn-from word
images (20,000 by default, about two books of 30 pages), each add learns it
again from every book and recomputes every row. After that an add keeps the
model and every row, and computes only the new book's rows, by the model
learned from the books the model was learned from and the new one: adding a
book costs the same however large the collection. A book of at least
--learn-alone word images (1,000 by default, about 3 pages), added to an
index that holds another book, is described by a visual vocabulary learned
from its own pages and scored by a model learned from its own word images
alone, its words held to that model's widths of letters: a vocabulary and a
model learned mostly from other faces or hands tell its words apart poorly.
`stemmata images relearn` learns the model again from every book of the
index's vocabulary (`images list` marks the books it was learned from), and
scores alone each book of at least its --learn-alone word images (give the
one the books were added with) and each book of a vocabulary of its own.

A bad or mismatched file (an image that does not decode, OCR of another page
size, no OCR file) stops the command with nothing written.";

#[derive(Args)]
pub struct ImagesArgs {
    #[command(subcommand)]
    pub command: ImagesCommand,
}

#[derive(Subcommand)]
pub enum ImagesCommand {
    /// Add a scanned book: its page images, each with its OCR file beside
    /// it. A book of the same key is replaced.
    Add(AddArgs),
    /// List the books of word images: key, pages, word images, bytes, and
    /// whether the model was learned from it.
    List(ListArgs),
    /// Learn the letter-bigram model again from every book of word images
    /// and recompute every row (a book of at least --learn-alone word
    /// images by a model learned from its own alone).
    Relearn(RelearnArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum LearningArg {
    /// Every term of every image holding a bigram (thesis eq. 7.22).
    Union,
    /// Terms shared by pairs of images holding a bigram (eq. 7.25).
    Intersection,
}

#[derive(Args)]
pub struct AddArgs {
    /// The index directory.
    pub index: PathBuf,
    /// The book's key.
    #[arg(long)]
    pub key: String,
    /// Page images (PNG, TIFF, JPEG), in page order, or directories of
    /// them (taken in file-name order).
    #[arg(required = true, value_name = "PAGES")]
    pub pages: Vec<PathBuf>,
    /// Branching of the visual vocabulary's two levels (branching² terms);
    /// used when the index learns its vocabulary (its first book).
    #[arg(long, default_value_t = LearnOptions::default().branching)]
    pub branching: usize,
    /// How the letter-bigram model learns; set by the index's first book.
    #[arg(long, value_enum, default_value_t = LearningArg::Intersection)]
    pub learning: LearningArg,
    /// Learn the model again from every book, this one included, while it
    /// was learned from fewer word images than this; else keep it and
    /// compute only this book's rows (by the model learned from the books
    /// it was learned from and this one).
    #[arg(long, default_value_t = LearnOptions::default().learn_from, value_name = "IMAGES")]
    pub learn_from: u64,
    /// Describe this book by a vocabulary learned from its own pages and
    /// score it by a model learned from its own word images alone when it
    /// holds at least this many and the index another book (over the
    /// index's classes); a smaller book by the index's vocabulary and the
    /// model learned with the other books.
    #[arg(long, default_value_t = LearnOptions::default().learn_alone, value_name = "IMAGES")]
    pub learn_alone: u64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Print the book added as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct RelearnArgs {
    /// The index directory.
    pub index: PathBuf,
    /// A book described by the index's vocabulary and of at least this many
    /// word images, beside another book, is scored by a model learned from
    /// its own word images alone (a book of a vocabulary of its own always
    /// is). Give the --learn-alone its books were added with.
    #[arg(long, default_value_t = LearnOptions::default().learn_alone, value_name = "IMAGES")]
    pub learn_alone: u64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Print the model as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ListArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Long help of `stemmata spot`.
pub const SPOT_ABOUT: &str = "\
Rank the index's word images for a text word (word spotting): each image is
scored by the letter bigrams of the word — how likely each is somewhere in the
image, and whether they come in the word's order (read from the likelihood
rows the index stores) — mixed with how alike the image's OCR word and the
query are (normalised letter-bigram overlap), the OCR's by --ocr-weight. An
image whose OCR word reads the query exactly gains 1, so the OCR's exact
readings come first, ordered by their images, and the rest follow, where the
OCR misread or boxed no word: at the default weight ranked mostly by their
images, which know more than the OCR's near readings wherever it misreads
much. The score runs up to 2. --ocr-weight 0 ranks by the images alone, 1 by
the OCR words alone.
An image's score also loses --width-weight times half the square of how far
its width lies from the width the model expects of the word (in the spreads
of the widths it learned), so `the` ranks an image of `the` above one of
`there`; 0 leaves widths out.
Punctuation is ignored; case matters unless --ignore-case: then `fanny` finds
`Fanny` too (each image is scored as the word as typed, in small letters and
capitalised, keeping the best, and OCR words are compared in small letters,
so an OCR word `FANNY` matches as well).

Each hit names the book, page (number and image file), the word's box on the
page (x0,y0,x1,y1 pixels, found from the ink) and its OCR word. --html writes
a contact sheet of the hits' crops to look at.";

#[derive(Args)]
pub struct SpotArgs {
    /// The index directory.
    pub index: PathBuf,
    /// The word to find.
    pub word: String,
    /// How many hits (0: every word image).
    #[arg(short, long, default_value_t = 20)]
    pub k: usize,
    /// Weight of the OCR words' similarity against the images' score, 0 to 1.
    #[arg(long, default_value_t = OCR_WEIGHT)]
    pub ocr_weight: f64,
    /// Weight of the width part (0 or more; 0 leaves widths out).
    #[arg(long, default_value_t = WIDTH_WEIGHT)]
    pub width_weight: f64,
    /// Match the word whatever the case of its letters. Off by default:
    /// the two cases look different on the page, and a query typed with a
    /// capital usually means one (a name, a sentence's first word).
    #[arg(long, short = 'i')]
    pub ignore_case: bool,
    /// Print the hits as JSON Lines.
    #[arg(long)]
    pub json: bool,
    /// Also write a contact sheet of the hits' crops to this HTML file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

pub fn run(args: ImagesArgs) -> Result<ExitCode> {
    match args.command {
        ImagesCommand::Add(args) => add(args),
        ImagesCommand::List(args) => list(args),
        ImagesCommand::Relearn(args) => relearn(args),
    }
}

fn describe(book: &ImageBookInfo) -> String {
    format!(
        "{}  {}, {} ({}){}",
        book.key,
        count(book.pages as u64, "page"),
        count(book.words, "word image"),
        count(book.bytes, "byte"),
        if book.model_book { "; model book" } else { "" }
    )
}

/// What the model of an add or relearn is, in a line.
fn describe_model(model: &ImageModel) -> String {
    format!(
        "model {} from {} of {}",
        if model.relearned {
            "learned"
        } else {
            "kept, learned"
        },
        count(model.images, "word image"),
        count(model.books as u64, "book")
    )
}

fn add(args: AddArgs) -> Result<ExitCode> {
    let pages = PageFiles::of_paths(&args.pages)?;
    let mut options = LearnOptions {
        branching: args.branching,
        learn_from: args.learn_from,
        learn_alone: args.learn_alone,
        ..LearnOptions::default()
    };
    options.model.learning = match args.learning {
        LearningArg::Union => Learning::Union,
        LearningArg::Intersection => Learning::Intersection,
    };
    // The index checked and every page read before the index is opened for
    // writing: a refused page leaves the catalog's bytes as they were.
    let normalisation = Index::open_read_only(&args.index)
        .map_err(|e| no_index(e, &args.index, false))?
        .word_image_normalisation()?;
    Index::check_word_images(&args.key, pages.len(), &options)?;
    let progress = bar(pages.len() as u64, "pages", args.quiet);
    let read = read_pages(&pages, normalisation, &|done| {
        progress.set_position(done as u64)
    });
    let read = match read {
        Ok(read) => read,
        Err(error) => {
            progress.finish_and_clear();
            return Err(error);
        }
    };
    let index = Index::open(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let info = index.add_read_word_images(&args.key, read, &options, &|event| match event {
        ImagesProgress::Pages { done, .. } => progress.set_position(done as u64),
        ImagesProgress::Vocabulary => progress.set_message("vocabulary"),
        ImagesProgress::Model { images } => {
            progress.set_message(format!("model of {images} word images"))
        }
        ImagesProgress::Writing => progress.set_message("writing"),
        _ => {}
    });
    progress.finish_and_clear();
    let info = info?;
    for warning in &info.warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        print_json(&info)?;
    } else {
        outln!("added {}", describe(&info))?;
        if let Some(model) = &info.model {
            outln!("{}", describe_model(model))?;
        }
        if info.own_model == Some(true) {
            outln!("its terms by a vocabulary of its own, its rows by a model learned from its own word images alone")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn relearn(args: RelearnArgs) -> Result<ExitCode> {
    let index = Index::open(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let progress = bar(0, "model", args.quiet || args.json);
    let outcome = index.relearn_word_images(args.learn_alone, &|event| match event {
        ImagesProgress::Model { images } => {
            progress.set_message(format!("model of {images} word images"))
        }
        ImagesProgress::Writing => progress.set_message("writing"),
        _ => {}
    });
    progress.finish_and_clear();
    let (model, warnings) = outcome?;
    for warning in &warnings {
        eprintln!("warning: {warning}");
    }
    if args.json {
        print_json(&model)?;
    } else {
        outln!("{}", describe_model(&model))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn list(args: ListArgs) -> Result<ExitCode> {
    let index = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let books = index.image_books()?;
    if args.json {
        print_json(&books)?;
    } else if books.is_empty() {
        outln!("no books of word images")?;
    } else {
        for book in &books {
            outln!("{}", describe(book))?;
        }
        let search = index.word_images()?;
        if search.is_some_and(|s| !s.has_word_widths()) {
            outln!(
                "no word widths: the model was learned from too few read words, or \
                 before format 22; `stemmata images relearn` learns them"
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn spot(args: SpotArgs) -> Result<ExitCode> {
    let options = SpotOptions {
        ignore_case: args.ignore_case,
        ..SpotOptions::with_ocr_weight(args.ocr_weight)
            .ok_or_else(|| {
                Error::InvalidArgument(format!("--ocr-weight {} outside 0..=1", args.ocr_weight))
            })?
            .with_width_weight(args.width_weight)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "--width-weight {} is not a number of 0 or more",
                    args.width_weight
                ))
            })?
    };
    if let Some(html) = &args.html {
        refuse_inside_index(html, &args.index)?;
    }
    let index = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let search = index.word_images()?.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{}: the index has no word images (add some with `stemmata images add`)",
            args.index.display()
        ))
    })?;
    let hits = search.spot(&args.word, &options, args.k)?;
    if args.json {
        for (rank, hit) in hits.iter().enumerate() {
            print_json(&JsonHit {
                rank: rank + 1,
                hit,
            })?;
        }
    } else {
        print_hits(&hits)?;
    }
    if let Some(html) = &args.html {
        let crops = search.crops(&hits)?;
        let sheet: Vec<crate::contact_sheet::SheetHit> = hits
            .iter()
            .zip(crops)
            .enumerate()
            .map(|(rank, (hit, crop))| crate::contact_sheet::SheetHit {
                rank: rank + 1,
                book: hit.key.clone(),
                page: hit.page,
                page_name: hit.page_name.clone(),
                bbox: [hit.bbox.x0, hit.bbox.y0, hit.bbox.x1, hit.bbox.y1],
                ocr: hit.ocr.clone(),
                score: hit.scores.combined,
                crop,
            })
            .collect();
        let page = crate::contact_sheet::contact_sheet(&args.word, &sheet);
        std::fs::write(html, page).map_err(|source| Error::Io {
            path: html.clone(),
            source,
        })?;
        if !args.json {
            outln!("contact sheet: {}", html.display())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(serde::Serialize)]
struct JsonHit<'a> {
    rank: usize,
    #[serde(flatten)]
    hit: &'a SpotHit,
}

fn print_hits(hits: &[SpotHit]) -> stemmata::Result<()> {
    if hits.is_empty() {
        outln!("no word image")?;
        return Ok(());
    }
    outln!(
        "{:>4}  {:>6}  {:>6}  {:>6}  {:<20} {:>5}  {:<24} ocr word",
        "rank",
        "score",
        "image",
        "ocr",
        "book",
        "page",
        "box"
    )?;
    for (rank, hit) in hits.iter().enumerate() {
        let bbox = format!(
            "{},{},{},{}",
            hit.bbox.x0, hit.bbox.y0, hit.bbox.x1, hit.bbox.y1
        );
        outln!(
            "{:>4}  {:>6.4}  {:>6.4}  {:>6.4}  {:<20} {:>5}  {:<24} {}",
            rank + 1,
            hit.scores.combined,
            hit.scores.image,
            hit.scores.ocr,
            hit.key,
            hit.page,
            bbox,
            hit.ocr
        )?;
    }
    Ok(())
}
