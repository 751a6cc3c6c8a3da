//! What both alignments of two files (`align_cmds` in one language,
//! `align_translation` across two) share: reading a text file, writing
//! the portion map, listing its largest regions.

use std::path::{Path, PathBuf};

use stemmata::relate::PortionMap;
use stemmata::{Error, Result};

/// A text file read for alignment.
pub struct TextFile {
    pub path: PathBuf,
    pub text: String,
}

/// Reads a text file, refusing what the loader refuses: an empty file,
/// binary data, a text without words.
pub fn read_text(path: &Path) -> Result<TextFile> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(TextFile {
        path: path.to_path_buf(),
        text: crate::input::decode_text(path, &bytes)?,
    })
}

/// Writes the map as SVG, or as an HTML page holding it.
pub fn write_map(path: &Path, map: &PortionMap, a: &TextFile, b: &TextFile) -> Result<()> {
    let label = |file: &TextFile| {
        file.path.file_name().map_or_else(
            || file.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let svg = map.to_svg(&label(a), &label(b));
    let is_html = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
    let contents = if is_html {
        format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{} / {}</title></head>\n<body>\n{svg}\n</body></html>\n",
            stemmata::relate::svg::escape_xml(&label(a)),
            stemmata::relate::svg::escape_xml(&label(b)),
        )
    } else {
        svg
    };
    std::fs::write(path, contents).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Matched regions the summary lists, largest first.
const LARGEST_REGIONS: usize = 5;

/// The largest matched regions of `map` (of texts of `words_a` and
/// `words_b` words), or why there are none.
pub fn print_regions(map: &PortionMap, words_a: u32, words_b: u32) -> stemmata::Result<()> {
    let bins = format!(
        "{}-word bins at least {:.0}% aligned in both texts",
        map.options.bin_words,
        100.0 * map.options.min_share
    );
    if map.regions.is_empty() {
        outln!("no matched regions: no run of {bins} (the spans are scattered matches)")?;
        return Ok(());
    }
    let mut regions: Vec<_> = map.regions.iter().collect();
    regions.sort_by_key(|r| std::cmp::Reverse(r.a_words.len().max(r.b_words.len())));
    let shown = regions.len().min(LARGEST_REGIONS);
    outln!(
        "largest matched regions ({shown} of {}; runs of {bins}):",
        regions.len()
    )?;
    let percent = |words: u32, of: u32| 100.0 * f64::from(words) / f64::from(of.max(1));
    for r in &regions[..shown] {
        outln!(
            "  A words {}..{} ({:.0}%-{:.0}%)  <->  B words {}..{} ({:.0}%-{:.0}%)",
            r.a_words.start,
            r.a_words.end,
            percent(r.a_words.start, words_a),
            percent(r.a_words.end, words_a),
            r.b_words.start,
            r.b_words.end,
            percent(r.b_words.start, words_b),
            percent(r.b_words.end, words_b),
        )?;
    }
    Ok(())
}

/// The line saying where the map went and what it shows.
pub fn print_map_written(map: &PortionMap, path: &Path) -> stemmata::Result<()> {
    outln!(
        "map: {} matched regions; {:.1}% of A and {:.1}% of B in matched bins; written to {}",
        map.regions.len(),
        100.0 * map.a.coverage,
        100.0 * map.b.coverage,
        path.display()
    )?;
    Ok(())
}
