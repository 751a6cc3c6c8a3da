//! The contact sheet of a word-image search (`stemmata spot --html`): one
//! self-contained HTML page showing the crops of the hits in a grid, each
//! with its rank, score, book, page and OCR word, for people who would
//! rather look than read.
//!
//! This module owns the page's markup and style, the HTML escaping of every
//! text that comes from the index or the query, and the embedding of the
//! crops as PNG data URLs (base64 by a small encoder of its own). The page
//! loads nothing: no network, no other file. The same hits always give the
//! same bytes.
//!
//! It uses nothing else of the crate: `cli/tests/contact_sheet_chromium.rs`
//! compiles this file into a browser test of its own.

use std::fmt::Write as _;

use image::codecs::png::PngEncoder;
use image::{ExtendedColorType, ImageEncoder};

/// The height, in CSS pixels, at which every crop is shown.
pub const CROP_HEIGHT: u32 = 48;

/// One hit as the contact sheet shows it.
pub struct SheetHit {
    /// 1-based rank.
    pub rank: usize,
    /// The book's key.
    pub book: String,
    /// 1-based page number.
    pub page: u32,
    /// The page image's file name.
    pub page_name: String,
    /// x0, y0, x1, y1 in page pixels.
    pub bbox: [u32; 4],
    /// The OCR word ("" when none).
    pub ocr: String,
    /// Combined score.
    pub score: f64,
    /// The word image.
    pub crop: image::GrayImage,
}

const STYLE: &str = "\
body { margin: 16px; background: #fff; color: #222; font-family: sans-serif; }
h1 { margin: 0 0 4px; font-size: 20px; font-weight: normal; overflow-wrap: anywhere; }
p.count { margin: 0 0 16px; font-size: 13px; color: #555; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 12px; }
figure { margin: 0; padding: 8px; border: 1px solid #ccc; border-radius: 4px; min-width: 0; }
figure img { display: block; height: 48px; width: auto; max-width: 100%; object-fit: contain; }
figure .missing { height: 48px; line-height: 48px; font-size: 12px; color: #777; }
figcaption { margin-top: 6px; font-size: 12px; line-height: 1.35; overflow-wrap: anywhere; }
figcaption .rank { font-weight: bold; }
figcaption .ocr { font-family: monospace; }
figcaption .box { color: #666; }
";

/// A self-contained HTML page (no network, no external files): the query,
/// then a grid of the hits' crops, each with its rank, score, book, page and OCR word.
pub fn contact_sheet(query: &str, hits: &[SheetHit]) -> String {
    let query = escape(query);
    let mut html = String::new();
    html.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         img-src data:; style-src 'unsafe-inline'\">\n",
    );
    let _ = writeln!(html, "<title>stemmata spot: {query}</title>");
    let _ = write!(html, "<style>\n{STYLE}</style>\n</head>\n<body>\n");
    let _ = writeln!(html, "<h1>Word images for \u{201c}{query}\u{201d}</h1>");
    if hits.is_empty() {
        html.push_str("<p class=\"none\">No word image matched.</p>\n");
    } else {
        let plural = if hits.len() == 1 { "" } else { "s" };
        let _ = writeln!(html, "<p class=\"count\">{} hit{plural}</p>", hits.len());
        html.push_str("<div class=\"grid\">\n");
        for hit in hits {
            figure(&mut html, hit);
        }
        html.push_str("</div>\n");
    }
    html.push_str("</body>\n</html>\n");
    html
}

/// One hit's cell of the grid.
fn figure(html: &mut String, hit: &SheetHit) {
    let book = escape(&hit.book);
    let page_name = escape(&hit.page_name);
    let ocr = escape(&hit.ocr);
    let [x0, y0, x1, y1] = hit.bbox;
    let place = format!(
        "{book}, page {} ({page_name}), box x {x0}\u{2013}{x1}, y {y0}\u{2013}{y1}",
        hit.page
    );
    html.push_str("<figure>\n");
    match png_data_url(&hit.crop) {
        Some(url) => {
            let _ = writeln!(
                html,
                "<img src=\"{url}\" width=\"{}\" height=\"{CROP_HEIGHT}\" alt=\"{ocr}\" title=\"{place}\">",
                display_width(&hit.crop),
            );
        }
        None => {
            let _ = writeln!(
                html,
                "<div class=\"missing\" title=\"{place}\">no image</div>"
            );
        }
    }
    let _ = write!(
        html,
        "<figcaption><span class=\"rank\">#{}</span> \u{b7} {:.3}<br>\n\
         {book}<br>\n\
         page {} \u{b7} {page_name}<br>\n",
        hit.rank, hit.score, hit.page
    );
    if hit.ocr.is_empty() {
        html.push_str("OCR: <i>none</i><br>\n");
    } else {
        let _ = writeln!(html, "OCR: <span class=\"ocr\">{ocr}</span><br>");
    }
    let _ = writeln!(
        html,
        "<span class=\"box\">box ({x0},{y0})\u{2013}({x1},{y1})</span></figcaption>\n</figure>"
    );
}

/// The width of `crop` shown [`CROP_HEIGHT`] pixels high, rounded, at least 1.
fn display_width(crop: &image::GrayImage) -> u32 {
    let (w, h) = crop.dimensions();
    let scaled = (u64::from(w) * u64::from(CROP_HEIGHT) + u64::from(h) / 2) / u64::from(h.max(1));
    u32::try_from(scaled).unwrap_or(u32::MAX).max(1)
}

/// `crop` as a `data:image/png;base64,...` URL; `None` for an empty crop
/// (PNG has no images without pixels).
fn png_data_url(crop: &image::GrayImage) -> Option<String> {
    let (w, h) = crop.dimensions();
    if w == 0 || h == 0 {
        return None;
    }
    let mut png = Vec::new();
    PngEncoder::new(&mut png)
        .write_image(crop.as_raw(), w, h, ExtendedColorType::L8)
        .ok()?;
    Some(format!("data:image/png;base64,{}", base64(&png)))
}

/// `text` with the characters HTML gives a meaning escaped, safe both
/// between tags and inside a double- or single-quoted attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Standard base64 (RFC 4648 §4) with `=` padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{GrayImage, Luma};

    fn hit(rank: usize, book: &str, crop: GrayImage) -> SheetHit {
        SheetHit {
            rank,
            book: book.to_string(),
            page: 7,
            page_name: "p0007.png".to_string(),
            bbox: [10, 20, 110, 60],
            ocr: "word".to_string(),
            score: 0.875,
            crop,
        }
    }

    fn bar_crop(w: u32, h: u32) -> GrayImage {
        GrayImage::from_fn(w, h, |x, y| {
            Luma([if x > 2 && x < w - 3 && y > h / 4 && y < 3 * h / 4 {
                0
            } else {
                255
            }])
        })
    }

    /// The decoded bytes of a standard padded base64 string.
    fn decode_base64(text: &str) -> Vec<u8> {
        let value = |c: u8| -> u32 {
            match c {
                b'A'..=b'Z' => u32::from(c - b'A'),
                b'a'..=b'z' => u32::from(c - b'a') + 26,
                b'0'..=b'9' => u32::from(c - b'0') + 52,
                b'+' => 62,
                b'/' => 63,
                _ => panic!("not base64: {c}"),
            }
        };
        assert_eq!(text.len() % 4, 0);
        let mut out = Vec::new();
        for quad in text.as_bytes().chunks(4) {
            let pad = quad.iter().filter(|&&c| c == b'=').count();
            let n = quad[..4 - pad]
                .iter()
                .enumerate()
                .fold(0, |n, (i, &c)| n | value(c) << (18 - 6 * i));
            out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
        }
        out
    }

    fn data_urls(html: &str) -> Vec<&str> {
        const PREFIX: &str = "src=\"data:image/png;base64,";
        html.match_indices(PREFIX)
            .map(|(at, _)| {
                let rest = &html[at + PREFIX.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect()
    }

    #[test]
    fn base64_matches_the_rfc_4648_test_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected, "{input:?}");
        }
        // Every 6-bit value, and the two characters beyond the letters and digits.
        assert_eq!(base64(&[0xfb, 0xff, 0xbf]), "+/+/");
        assert_eq!(base64(&[0, 0x10, 0x83]), "ABCD");
    }

    #[test]
    fn base64_round_trips_every_byte_and_length() {
        let bytes: Vec<u8> = (0..=255).collect();
        for len in 0..bytes.len() {
            assert_eq!(decode_base64(&base64(&bytes[..len])), &bytes[..len]);
        }
    }

    #[test]
    fn escape_replaces_the_characters_html_gives_a_meaning() {
        assert_eq!(
            escape(r#"<script>alert("x's & y")</script>"#),
            "&lt;script&gt;alert(&quot;x&#39;s &amp; y&quot;)&lt;/script&gt;"
        );
        assert_eq!(escape("plain Übung"), "plain Übung");
        assert_eq!(escape("&amp;"), "&amp;amp;");
    }

    #[test]
    fn every_text_from_the_index_and_the_query_is_escaped() {
        let hostile = r#"<script>alert('x')</script>" onerror="&"#;
        let mut one = hit(1, hostile, bar_crop(30, 12));
        one.page_name = format!("{hostile}.png");
        one.ocr = hostile.to_string();
        let html = contact_sheet(hostile, &[one]);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("onerror=\""), "{html}");
        assert!(!html.contains("'x'"), "{html}");
        let escaped = escape(hostile);
        // Query in title and heading; book, page name and OCR word in the
        // tooltip and caption; the OCR word in the alt text.
        assert_eq!(html.matches(&escaped).count(), 8, "{html}");
        // The only quotes and ampersands are the page's own.
        for (at, _) in html.match_indices('&') {
            let entity = &html[at..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .iter()
                    .any(|e| entity.starts_with(e)),
                "bare ampersand at {at}: {}",
                &entity[..entity.len().min(20)]
            );
        }
    }

    #[test]
    fn the_same_hits_give_the_same_bytes() {
        let hits = || {
            (1..=4)
                .map(|rank| {
                    hit(
                        rank,
                        &format!("book {rank}"),
                        bar_crop(20 * rank as u32, 16),
                    )
                })
                .collect::<Vec<_>>()
        };
        let first = contact_sheet("word", &hits());
        assert_eq!(first, contact_sheet("word", &hits()));
        assert_ne!(first, contact_sheet("other", &hits()));
    }

    #[test]
    fn the_data_url_decodes_to_the_crop() {
        let crops = [
            bar_crop(37, 13),
            GrayImage::from_fn(64, 21, |x, y| Luma([(x * 4 + y * 7) as u8])),
            GrayImage::from_pixel(1, 1, Luma([200])),
        ];
        let hits: Vec<SheetHit> = crops
            .iter()
            .enumerate()
            .map(|(i, crop)| hit(i + 1, "b", crop.clone()))
            .collect();
        let html = contact_sheet("w", &hits);
        let urls = data_urls(&html);
        assert_eq!(urls.len(), crops.len());
        for (url, crop) in urls.iter().zip(&crops) {
            let png = decode_base64(url);
            let decoded = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
                .unwrap()
                .into_luma8();
            assert_eq!(&decoded, crop);
        }
    }

    #[test]
    fn a_page_lists_each_hit_with_its_caption() {
        let mut one = hit(3, "smith-1851", bar_crop(40, 20));
        one.page = 12;
        one.page_name = "smith_0012.tif".to_string();
        one.bbox = [101, 202, 303, 240];
        one.ocr = "Kirche".to_string();
        one.score = 0.123_456;
        let html = contact_sheet("Kirche", &[one]);
        for part in [
            "#3</span> \u{b7} 0.123",
            "smith-1851<br>",
            "page 12 \u{b7} smith_0012.tif",
            "<span class=\"ocr\">Kirche</span>",
            "box (101,202)\u{2013}(303,240)",
            "title=\"smith-1851, page 12 (smith_0012.tif), box x 101\u{2013}303, y 202\u{2013}240\"",
            // 40×20 shown 48 px high.
            "width=\"96\" height=\"48\"",
            "1 hit</p>",
        ] {
            assert!(html.contains(part), "missing {part:?} in\n{html}");
        }
        assert!(!html.contains("No word image matched"));
    }

    #[test]
    fn a_hit_without_ocr_word_or_pixels_still_has_its_cell() {
        let mut one = hit(1, "b", GrayImage::new(0, 0));
        one.ocr = String::new();
        let html = contact_sheet("w", &[one]);
        assert!(html.contains("OCR: <i>none</i>"));
        assert!(html.contains("class=\"missing\""));
        assert!(data_urls(&html).is_empty());
    }

    #[test]
    fn no_hits_give_a_page_saying_so() {
        let html = contact_sheet("nothing", &[]);
        assert!(html.contains("No word image matched."));
        assert!(html.contains("nothing"));
        assert!(!html.contains("<figure>"));
        assert!(!html.contains("hit"), "{html}");
    }

    #[test]
    fn the_page_loads_nothing_from_outside() {
        let html = contact_sheet("w", &[hit(1, "b", bar_crop(30, 10))]);
        for word in [
            "http:", "https:", "//", "url(", "@import", "<script", "<link",
        ] {
            assert!(!html.contains(word), "{word} in\n{html}");
        }
    }
}
