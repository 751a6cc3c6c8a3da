//! `stemmata eval-images`: MAP of text queries over the word images of a
//! rendered page set (`stemmata generate-pages` writes one), ranking by
//! the OCR words alone, by the images alone (union and intersection
//! models) and by both ([`stemmata_eval::images`]).

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

use stemmata::images::model::ModelOptions;
use stemmata::images::spot::SpotOptions;
use stemmata::Result;
use stemmata_eval::images::{evaluate, read_set, EvalOptions, ImageEval};

use crate::output::print_json;

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
    /// Print the report as JSON (one object per set).
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Report {
    set: String,
    #[serde(flatten)]
    eval: ImageEval,
}

pub fn run(args: EvalImagesArgs) -> Result<ExitCode> {
    let mut options = EvalOptions {
        train_share: args.train_share,
        ..EvalOptions::default()
    };
    options.learn.branching = args.branching;
    let defaults = ModelOptions::default();
    options.learn.model.smoothing = args.smoothing.unwrap_or(defaults.smoothing);
    let spot = SpotOptions::default();
    options.spot = SpotOptions {
        likelihood_weight: args.likelihood_weight.unwrap_or(spot.likelihood_weight),
        image_weight: args.image_weight.unwrap_or(spot.image_weight),
    };
    if !args.json {
        println!(
            "{:<28} {:>5} {:>6} {:>6} {:>6} {:>7} {:>7} {:>7} {:>7} {:>7}",
            "set",
            "pages",
            "images",
            "ocr wa",
            "queries",
            "ocr",
            "union",
            "inter",
            "comb u",
            "comb i"
        );
    }
    for dir in &args.set {
        let pages = read_set(dir)?;
        let eval = evaluate(&pages, &options);
        let set = dir.display().to_string();
        if args.json {
            print_json(&Report { set, eval })?;
        } else {
            println!(
                "{:<28} {:>5} {:>6} {:>6.3} {:>6} {:>7.3} {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
                set,
                eval.pages.0 + eval.pages.1,
                eval.images,
                eval.ocr_word_accuracy,
                eval.queries,
                eval.ocr,
                eval.union,
                eval.intersection,
                eval.combined_union,
                eval.combined_intersection
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
