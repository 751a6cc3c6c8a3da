//! `stemmata eval-images`: MAP of text queries over the word images of a
//! rendered page set (`stemmata generate-pages` writes one), ranking by
//! the OCR words alone, by the images alone (union and intersection
//! models) and by both ([`stemmata_eval::images`]), and checks the
//! quality gates of `.ci/run` on each set.

use clap::Args;
use indicatif::ProgressBar;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use stemmata::images::descriptor::Normalisation;
use stemmata::images::model::ModelOptions;
use stemmata::images::spot::SpotOptions;
use stemmata::Result;
use stemmata_eval::images::{evaluate, read_set, EvalOptions, GateCheck, Gates, ImageEval};

use crate::output::{bar, print_json};

pub const ABOUT: &str = "MAP of text queries over the word images of rendered page sets \
(stemmata generate-pages writes them): ranked by the OCR words alone, by the images alone \
(union and intersection models) and by both, with Tesseract's word accuracy (ocr wa) on the \
searched pages, and two recall ceilings: the share of the searched pages' truth words that a \
box overlaps at an intersection over union of 1/2, for the OCR's boxes (ceil o) and for the \
word images' boxes, found from the ink inside the OCR's as `images add` finds them (ceil, the \
recall a full ranking reaches). Each MAP is over the word images a truth word's box overlaps (as above), so a word no box holds is not asked for; the last three columns (all ocr, all img, all cmb: the intersection model's) are MAP over every occurrence of the query in the searched pages, where a word no box holds counts as never found, the measure by which to compare two ways of finding boxes. Each set has two rows: with case kept (queries and truth words as written) and \
with case ignored (queries and truth in small letters, searched as `spot --ignore-case` does).

The gates, each optional, check the intersection model (the library's default) on each set, in \
both case modes:
  --gate-combined-margin M   combined MAP >= OCR-alone MAP + M on every degraded set, one
                             whose ocr wa is under --degraded-below (0.93); where Tesseract
                             reads more (book faces, clean or with dust, bleed or uneven
                             light: ocr wa 0.95-1.00) its MAP is 0.99 or more and leaves
                             nothing to gain, so those sets are held to combined MAP >=
                             OCR-alone MAP: the images must not take from it
  --gate-ignore-case-margin M
                             the same margin with case ignored, where it differs: the OCR
                             alone finds more then, and leaves the images less to add
  --gate-images X            images-alone MAP >= X on every set whose ocr wa is under
                             --images-below (0.90): where the OCR fails, the images must find
                             the words by themselves (case kept only: with case ignored each
                             form of a word is relevant, \"the\" and \"The\", and images alone
                             find both less well)
  --gate-intersection        images-alone MAP of the intersection model >= the union model's,
                             on every set
  --gate-ceiling X           the word images' boxes reach a recall ceiling (ceil) >= X on
                             every set
Every gate checked is printed after the table with its set and figures; a failed one is also \
named on stderr, and the command exits 1. Run the command once per group of sets to hold \
groups to different gates: .ci/run holds its handwriting set (DKG, ocr wa about 0.5) to \
--gate-images 0.78 instead of 0.80, as images alone reach about 0.82 MAP there (benches/README.md, \
\"Word widths\").

Word images are described as a new index describes them, by 1.6 x-heights; --box-height \
describes them by their boxes' heights, as indexes of format 18 and before did, to compare.";

#[derive(Args)]
pub struct EvalImagesArgs {
    /// Rendered sets: directories with pages/*.png, their OCR (.hocr or
    /// ALTO .xml) and truth.tsv. Repeatable.
    #[arg(long, value_name = "DIR", required = true, num_args = 1..)]
    pub set: Vec<PathBuf>,
    /// Share of each set's pages, first by name, that train the vocabulary
    /// and the model; the rest are searched.
    #[arg(long, default_value_t = 0.8)]
    pub train_share: f64,
    /// Branching of the vocabulary tree's two levels (branching² visual terms).
    #[arg(long, default_value_t = stemmata::images::learn::LearnOptions::default().branching)]
    pub branching: usize,
    /// λS: weight of a bigram's own term distribution against the prior.
    #[arg(long)]
    pub smoothing: Option<f64>,
    /// λM: weight of the likelihood part against the order part.
    #[arg(long)]
    pub likelihood_weight: Option<f64>,
    /// λC: weight of the image score against the OCR word's similarity.
    #[arg(long)]
    pub image_weight: Option<f64>,
    /// Fail (exit 1) unless, on every degraded set, combined MAP reaches
    /// OCR-alone MAP plus this.
    #[arg(long, value_name = "MARGIN")]
    pub gate_combined_margin: Option<f64>,
    /// The margin of --gate-combined-margin with case ignored, where it
    /// differs (default: the same).
    #[arg(long, value_name = "MARGIN", requires = "gate_combined_margin")]
    pub gate_ignore_case_margin: Option<f64>,
    /// OCR word accuracy under which a set is degraded
    /// (--gate-combined-margin).
    #[arg(long, value_name = "WA", default_value_t = Gates::default().degraded_below)]
    pub degraded_below: f64,
    /// Fail (exit 1) unless images-alone MAP (intersection model) reaches
    /// this on every set whose OCR word accuracy is under --images-below.
    #[arg(long, value_name = "MAP")]
    pub gate_images: Option<f64>,
    /// OCR word accuracy under which --gate-images applies.
    #[arg(long, value_name = "WA", default_value_t = Gates::default().images_below)]
    pub images_below: f64,
    /// Fail (exit 1) unless the intersection model's images-alone MAP
    /// reaches the union model's on every set.
    #[arg(long)]
    pub gate_intersection: bool,
    /// Fail (exit 1) unless the recall ceiling of the word images' boxes
    /// (ceil: the share of the searched pages' truth words a box overlaps
    /// at an intersection over union of 1/2) reaches this on every set.
    #[arg(long, value_name = "SHARE")]
    pub gate_ceiling: Option<f64>,
    /// Fail (exit 1) unless combined MAP reaches images-alone MAP
    /// (intersection model) on every set, in both case modes.
    #[arg(long)]
    pub gate_combined_over_images: bool,
    /// Sets evaluated at once (the vocabulary's k-means runs on one core;
    /// each set in flight holds its pages and descriptors in memory, some
    /// 300-600 MB for 30-40 pages).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub jobs: usize,
    /// Measure through the index instead: each set added to a new
    /// temporary index as one book (`stemmata images add`, every page
    /// training by its OCR words) and searched with `stemmata spot`, MAP
    /// by the OCR words alone, the images alone and both.
    #[arg(long)]
    pub through_index: bool,
    /// With --through-index: fail (exit 1) unless, on every degraded set,
    /// the combined MAP reaches the OCR-alone MAP plus this, with case
    /// kept (the figures with case ignored are reported beside them).
    #[arg(long, value_name = "MARGIN", requires = "through_index")]
    pub gate_index_margin: Option<f64>,
    /// With --through-index: add these sets first, each as a book, then
    /// the set, each by its own `images add`; MAP counts the set's word
    /// images alone. What a book added to a library scores.
    #[arg(long, value_name = "DIR", requires = "through_index")]
    pub add_first: Vec<PathBuf>,
    /// With --through-index: each add learns the model again while it was
    /// learned from fewer word images than this, else keeps it (`images
    /// add --learn-from`).
    #[arg(long, value_name = "IMAGES", requires = "through_index",
          default_value_t = stemmata::images::learn::LearnOptions::default().learn_from)]
    pub learn_from: u64,
    /// With --through-index: a book of at least this many word images is
    /// scored by a model learned from its own word images alone (`images
    /// add --learn-alone`).
    #[arg(long, value_name = "IMAGES", requires = "through_index",
          default_value_t = stemmata::images::learn::LearnOptions::default().learn_alone)]
    pub learn_alone: u64,
    /// Describe word images by their box's height, as indexes of format
    /// 18 and before did, instead of by 1.6 x-heights: to compare
    /// the two (in memory only; an index describes its pages as its
    /// vocabulary says).
    #[arg(long, conflicts_with = "through_index")]
    pub box_height: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the report as JSON (one object per set).
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Report {
    set: String,
    #[serde(flatten)]
    eval: ImageEval,
    /// The gates checked on the set.
    gates: Vec<GateCheck>,
}

pub fn run(args: EvalImagesArgs) -> Result<ExitCode> {
    let mut options = EvalOptions {
        train_share: args.train_share,
        ..EvalOptions::default()
    };
    if args.box_height {
        options.normalisation = Normalisation::BoxHeight;
    }
    options.learn.branching = args.branching;
    options.learn.learn_from = args.learn_from;
    options.learn.learn_alone = args.learn_alone;
    let defaults = ModelOptions::default();
    options.learn.model.smoothing = args.smoothing.unwrap_or(defaults.smoothing);
    let spot = SpotOptions::default();
    options.spot = SpotOptions {
        likelihood_weight: args.likelihood_weight.unwrap_or(spot.likelihood_weight),
        image_weight: args.image_weight.unwrap_or(spot.image_weight),
        ..spot
    };
    if args.through_index {
        return through_index(&args, &options);
    }
    let gates = Gates {
        combined_margin: args.gate_combined_margin,
        ignore_case_margin: args.gate_ignore_case_margin,
        degraded_below: args.degraded_below,
        images: args.gate_images,
        images_below: args.images_below,
        intersection: args.gate_intersection,
        ceiling: args.gate_ceiling,
        combined_over_images: args.gate_combined_over_images,
    };
    if !args.json {
        outln!(
            "{:<28} {:>7} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
            "set",
            "case",
            "pages",
            "images",
            "ocr wa",
            "ceil o",
            "ceil",
            "queries",
            "ocr",
            "union",
            "inter",
            "comb u",
            "comb i",
            "all ocr",
            "all img",
            "all cmb"
        )?;
    }
    let progress = bar(args.set.len() as u64, "sets", args.quiet || args.json);
    let evals = evaluate_all(&args.set, &options, args.jobs, &progress);
    progress.finish_and_clear();
    let mut checked = Vec::new();
    for (dir, eval) in args.set.iter().zip(evals) {
        let eval = eval?;
        let set = dir.display().to_string();
        // The table names a set by its directory's name (JSON by its path).
        let name = dir
            .file_name()
            .map_or_else(|| set.clone(), |n| n.to_string_lossy().into_owned());
        let checks = gates.check(&eval);
        checked.extend(checks.iter().map(|c| (name.clone(), c.clone())));
        if args.json {
            print_json(&Report {
                set,
                eval,
                gates: checks,
            })?;
        } else {
            for (case, maps) in [("kept", &eval.as_typed), ("ignored", &eval.ignore_case)] {
                outln!(
                    "{:<28} {:>7} {:>5} {:>6} {:>6.3} {:>6.3} {:>6.3} {:>6} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
                    name,
                    case,
                    eval.pages.0 + eval.pages.1,
                    eval.images,
                    eval.ocr_word_accuracy,
                    eval.ocr_box_ceiling,
                    eval.ceiling,
                    maps.queries,
                    maps.ocr,
                    maps.union,
                    maps.intersection,
                    maps.combined_union,
                    maps.combined_intersection,
                    maps.every_occurrence.ocr,
                    maps.every_occurrence.images,
                    maps.every_occurrence.combined
                )?;
            }
        }
    }
    if !args.json {
        for (set, check) in &checked {
            outln!(
                "gate {}: {set} {:.3} against {:.3} {}",
                check.gate,
                check.figure,
                check.needed,
                if check.passed { "ok" } else { "FAILED" }
            )?;
        }
    }
    let failed: Vec<&(String, GateCheck)> = checked.iter().filter(|(_, c)| !c.passed).collect();
    for (set, check) in &failed {
        eprintln!(
            "gate: {set}: {} failed ({:.3}, needs {:.3})",
            check.gate, check.figure, check.needed
        );
    }
    Ok(match failed.is_empty() {
        true => ExitCode::SUCCESS,
        false => ExitCode::FAILURE,
    })
}

/// `--through-index`: each set added to a temporary index and searched
/// with `spot`, one set after the other (an add uses every core).
fn through_index(args: &EvalImagesArgs, options: &EvalOptions) -> Result<ExitCode> {
    if !args.json {
        outln!(
            "{:<28} {:>7} {:>5} {:>6} {:>6} {:>6} {:>6} {:>7} {:>7} {:>7} {:>7}",
            "set",
            "case",
            "pages",
            "images",
            "ocr wa",
            "ceil o",
            "ceil",
            "queries",
            "ocr",
            "images",
            "comb"
        )?;
    }
    let progress = bar(args.set.len() as u64, "sets", args.quiet || args.json);
    let mut failed = false;
    for dir in &args.set {
        let temp = crate::output::temp_dir()?;
        let eval = stemmata_eval::images::evaluate_index(
            dir,
            &args.add_first,
            &temp.path().join("index"),
            options,
        )?;
        progress.inc(1);
        let name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let modes = [("kept", &eval.as_typed), ("ignored", &eval.ignore_case)];
        let gates: Vec<Option<(f64, bool)>> = (modes.iter())
            .map(|(case, maps)| {
                (args.gate_index_margin)
                    .filter(|_| *case == "kept" && eval.ocr_word_accuracy < args.degraded_below)
                    .map(|margin| (maps.ocr + margin, maps.combined >= maps.ocr + margin))
            })
            .collect();
        if args.json {
            #[derive(serde::Serialize)]
            struct IndexReport<'a> {
                set: String,
                #[serde(flatten)]
                eval: &'a stemmata_eval::images::IndexEval,
                gate_passed: Option<bool>,
            }
            let passed = (gates.iter().flatten()).fold(None, |all: Option<bool>, &(_, passed)| {
                Some(all.unwrap_or(true) && passed)
            });
            print_json(&IndexReport {
                set: dir.display().to_string(),
                eval: &eval,
                gate_passed: passed,
            })?;
        } else {
            for (case, maps) in modes {
                outln!(
                    "{:<28} {:>7} {:>5} {:>6} {:>6.3} {:>6.3} {:>6.3} {:>7} {:>7.3} {:>7.3} {:>7.3}",
                    name,
                    case,
                    eval.pages,
                    eval.images,
                    eval.ocr_word_accuracy,
                    eval.ocr_box_ceiling,
                    eval.ceiling,
                    maps.queries,
                    maps.ocr,
                    maps.images_alone,
                    maps.combined
                )?;
            }
        }
        for ((case, maps), gate) in modes.iter().zip(&gates) {
            let Some((needed, passed)) = *gate else {
                continue;
            };
            if !args.json {
                outln!(
                    "gate combined >= ocr + margin (through the index, case {case}): {name} {:.3} against {needed:.3} {}",
                    maps.combined,
                    if passed { "ok" } else { "FAILED" }
                )?;
            }
            if !passed {
                eprintln!(
                    "gate: {name}: combined {:.3} under {needed:.3} through the index, case {case}",
                    maps.combined
                );
                failed = true;
            }
        }
    }
    progress.finish_and_clear();
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Reads and evaluates every set in `dirs`, `jobs` at a time; the results
/// in the order of `dirs`.
fn evaluate_all(
    dirs: &[PathBuf],
    options: &EvalOptions,
    jobs: usize,
    progress: &ProgressBar,
) -> Vec<Result<ImageEval>> {
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<ImageEval>>>> =
        dirs.iter().map(|_| Mutex::new(None)).collect();
    let worker = || loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        let Some(dir) = dirs.get(index) else {
            break;
        };
        let eval = read_set(dir).map(|pages| evaluate(&pages, options));
        *results[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(eval);
        progress.inc(1);
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.clamp(1, dirs.len().max(1)))
            .map(|_| scope.spawn(worker))
            .collect();
        for w in workers {
            w.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every set evaluated")
        })
        .collect()
}
