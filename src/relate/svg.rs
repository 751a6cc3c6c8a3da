//! A portion map drawn as a self-contained SVG picture, like the thesis's
//! figures 4.8 and 4.9: two horizontal bars whose lengths are proportional to
//! the books' word counts, matched bins in green on the red bar of unmatched
//! text, and translucent bands joining each matched region of A to its
//! region of B. Each bar is labelled with the caller's label (key or title),
//! the word count and the share of the book matched.
//!
//! The output depends only on the map and the labels: coordinates are
//! printed with two decimals, no date or random id is written, and labels are
//! escaped for XML.

use std::fmt::Write;

use super::map::{BookMap, PortionMap};

/// Colour of matched bins.
pub const MATCHED_COLOUR: &str = "#2ca02c";
/// Colour of the bar (text that is not matched).
pub const BAR_COLOUR: &str = "#d62728";
/// Colour of the bands joining matched regions (drawn translucent).
pub const REGION_COLOUR: &str = "#2ca02c";

const WIDTH: f64 = 1000.0;
const MARGIN: f64 = 20.0;
const BAR_HEIGHT: f64 = 24.0;
const BAR_A_Y: f64 = 40.0;
const BAR_B_Y: f64 = 176.0;
const HEIGHT: f64 = 250.0;

/// `text` with `&`, `<`, `>`, `"` and `'` escaped for XML, and control
/// characters (not allowed in XML 1.0) dropped.
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

impl PortionMap {
    /// The map as a standalone SVG document (see the module docs);
    /// `a_label` and `b_label` name the books.
    pub fn to_svg(&self, a_label: &str, b_label: &str) -> String {
        let longest = self.a.words.max(self.b.words).max(1);
        let scale = (WIDTH - 2.0 * MARGIN) / f64::from(longest);
        let x = |word: u32| MARGIN + f64::from(word) * scale;
        let mut svg = String::new();
        let _ = write!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"13\">\n<title>{} / {}</title>\n<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>\n",
            escape_xml(a_label),
            escape_xml(b_label)
        );
        for region in &self.regions {
            let (a0, a1) = (x(region.a_words.start), x(region.a_words.end));
            let (b0, b1) = (x(region.b_words.start), x(region.b_words.end));
            let (top, bottom) = (BAR_A_Y + BAR_HEIGHT, BAR_B_Y);
            let _ = writeln!(
                svg,
                "<polygon points=\"{a0:.2},{top:.2} {a1:.2},{top:.2} {b1:.2},{bottom:.2} {b0:.2},{bottom:.2}\" fill=\"{REGION_COLOUR}\" fill-opacity=\"0.25\"/>"
            );
        }
        bar(&mut svg, &self.a, BAR_A_Y, &x);
        bar(&mut svg, &self.b, BAR_B_Y, &x);
        label(&mut svg, "A", a_label, &self.a, BAR_A_Y - 8.0);
        label(&mut svg, "B", b_label, &self.b, BAR_B_Y + BAR_HEIGHT + 18.0);
        let _ = writeln!(
            svg,
            "<text x=\"{MARGIN}\" y=\"{:.2}\" fill=\"#555555\" font-size=\"11\">bins of {} words; green: at least {:.0}% of a bin's eligible words aligned; {} matched regions</text>\n</svg>",
            HEIGHT - 12.0,
            self.options.bin_words,
            self.options.min_share * 100.0,
            self.regions.len()
        );
        svg
    }
}

/// One book's bar: the whole book in the bar colour, runs of matched bins
/// in the matched colour on top.
fn bar(svg: &mut String, book: &BookMap, y: f64, x: &impl Fn(u32) -> f64) {
    let _ = writeln!(
        svg,
        "<rect x=\"{:.2}\" y=\"{y:.2}\" width=\"{:.2}\" height=\"{BAR_HEIGHT}\" fill=\"{BAR_COLOUR}\"/>",
        x(0),
        x(book.words) - x(0)
    );
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for bin in book.bins.iter().filter(|b| b.matched) {
        match runs.last_mut() {
            Some(run) if run.1 == bin.words.start => run.1 = bin.words.end,
            _ => runs.push((bin.words.start, bin.words.end)),
        }
    }
    for (start, end) in runs {
        let _ = writeln!(
            svg,
            "<rect x=\"{:.2}\" y=\"{y:.2}\" width=\"{:.2}\" height=\"{BAR_HEIGHT}\" fill=\"{MATCHED_COLOUR}\"/>",
            x(start),
            x(end) - x(start)
        );
    }
}

/// The label line of one book.
fn label(svg: &mut String, side: &str, name: &str, book: &BookMap, y: f64) {
    let _ = writeln!(
        svg,
        "<text x=\"{MARGIN}\" y=\"{y:.2}\">{side}: {} — {} words, {:.1}% matched</text>",
        escape_xml(name),
        book.words,
        book.coverage * 100.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relate::map::{MapBook, MapOptions};

    fn contained_map() -> PortionMap {
        PortionMap::build(
            MapBook::full_text(10_000),
            MapBook::full_text(2_000),
            [(4_000..6_000, 0..2_000)],
            &MapOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(escape_xml("a<b>&\"c'\u{7}"), "a&lt;b&gt;&amp;&quot;c&apos;");
        let svg = contained_map().to_svg("Tom & Huck <1>", "x\"y");
        assert!(svg.contains("A: Tom &amp; Huck &lt;1&gt; — 10000 words, 20.0% matched"));
        assert!(svg.contains("B: x&quot;y — 2000 words, 100.0% matched"));
        assert!(!svg.contains("Tom & Huck"));
    }

    #[test]
    fn matched_runs_and_regions_are_drawn_to_scale() {
        let svg = contained_map().to_svg("a", "b");
        // 960 px for 10 000 words: A's matched run is words 4000..6000.
        assert!(svg.contains(&format!("<rect x=\"404.00\" y=\"40.00\" width=\"192.00\" height=\"24\" fill=\"{MATCHED_COLOUR}\"/>")));
        // B's bar is 2000 words long.
        assert!(svg.contains(&format!(
            "<rect x=\"20.00\" y=\"176.00\" width=\"192.00\" height=\"24\" fill=\"{BAR_COLOUR}\"/>"
        )));
        assert!(svg
            .contains("<polygon points=\"404.00,64.00 596.00,64.00 212.00,176.00 20.00,176.00\""));
        assert_eq!(svg.matches("<polygon").count(), 1);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn output_is_deterministic() {
        assert_eq!(
            contained_map().to_svg("a", "b"),
            contained_map().to_svg("a", "b")
        );
    }

    #[test]
    fn books_without_words_still_draw() {
        let map = PortionMap::build(
            MapBook::full_text(0),
            MapBook::full_text(0),
            [],
            &MapOptions::default(),
        )
        .unwrap();
        let svg = map.to_svg("", "");
        assert!(svg.contains("0 words, 0.0% matched"));
    }
}
