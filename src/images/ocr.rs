//! Reading the OCR of scanned pages: each page's size and image, and its
//! words with their boxes, from hOCR (the XHTML of `tesseract IMG OUT
//! hocr`) or ALTO XML (`tesseract IMG OUT alto`, and the output of most
//! digitisation workflows, versions 2 to 4). [`read_ocr`] tells the two
//! apart by content ([`detect_format`]).
//!
//! **hOCR.** A page is an element of class `ocr_page`: its size is the
//! `bbox` of its `title`, its image the title's `image`. A word is an
//! element of class `ocrx_word` (or `ocr_word`) inside a page: its box is
//! the `bbox` of its title, its confidence the title's `x_wconf`, and its
//! text all the text inside it (Tesseract puts `<strong>` and `<em>` in
//! words), entities decoded (XML's, numeric ones and HTML's named ones),
//! its ends trimmed. A word's line is the element of class `ocr_line` (or
//! `ocrx_line`, `ocr_textfloat`, `ocr_header`, `ocr_caption`) started last
//! before it on its page. The document must be well-formed XML, as
//! Tesseract's XHTML is: HTML that is not XML (an unclosed `<meta>`) is
//! refused.
//!
//! **ALTO.** A page is a `Page` element, of size `WIDTH` × `HEIGHT`. A
//! word is a `String` inside it: its box is `HPOS`, `VPOS`, `WIDTH` and
//! `HEIGHT`, its text `CONTENT`, its confidence `WC` (0 to 1, given here
//! as 0 to 100), its line the `TextLine` started last before it. Decimal values are rounded to the nearest pixel, a box's
//! right and bottom edges after the addition. Namespaces are ignored
//! (elements and attributes are matched by local name), so ALTO v2, v3 and
//! v4 read alike. Coordinates must be pixels (`MeasurementUnit` `pixel`,
//! the default): `mm10` and `inch1200` would need the image's resolution,
//! which ALTO does not give, and are refused. ALTO names one image per
//! file (`sourceImageInformation/fileName`; Tesseract, writing several
//! pages to one file, names the first page's): it is the first page's.
//!
//! **Damage.** Nothing is read from a damaged file: it is
//! [`Error::Corrupted`], naming the file and, when the fault is at one
//! place, its byte offset. Bytes that are not UTF-8, malformed or truncated
//! XML, an unknown entity, a coordinate that is not a number, a word box
//! inverted or outside its page, a word outside any page and a file
//! without pages are damage. A word whose text is empty is skipped. The
//! work is bounded: a file of more than [`MAX_PAGES`] pages or
//! [`MAX_WORDS`] words, a page of more than [`MAX_PAGE_WORDS`] words, a
//! word longer than [`MAX_WORD_BYTES`] or a coordinate beyond
//! [`MAX_COORDINATE`] is refused.

use std::path::Path;

use quick_xml::escape::{resolve_predefined_entity, unescape};
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::Reader;

use super::WordBox;
use crate::error::{Error, Result};

/// Most pages one OCR file may hold.
pub const MAX_PAGES: usize = 10_000;

/// Most words one OCR file may hold.
pub const MAX_WORDS: usize = 1_000_000;

/// Most words one page may hold: a dense broadsheet newspaper page holds
/// about 10,000; a page of more boxes is not a page of words.
pub const MAX_PAGE_WORDS: usize = 20_000;

/// Longest text of a word, in bytes (UTF-8).
pub const MAX_WORD_BYTES: usize = 1024;

/// Largest coordinate or size, in pixels.
pub const MAX_COORDINATE: u32 = 1_000_000;

/// One word of a page's OCR.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrWord {
    /// The text read: entities decoded, ends trimmed, never empty.
    pub text: String,
    /// Its box, within its page.
    pub bbox: WordBox,
    /// The OCR engine's confidence in the text, 0 to 100 (hOCR `x_wconf`,
    /// ALTO `WC` × 100), when the file gives it.
    pub confidence: Option<f32>,
    /// The line it is in: the number of line elements started on its
    /// page before it, less one (0 for a word before any line).
    pub line: u32,
}

/// The OCR of one page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageOcr {
    /// The image file the OCR names (hOCR title `image`, ALTO
    /// `sourceImageInformation/fileName`), as written: often relative to
    /// where the OCR engine ran.
    pub image: Option<String>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Its words, in file order.
    pub words: Vec<OcrWord>,
}

/// The format of an OCR file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OcrFormat {
    /// hOCR: (X)HTML whose elements carry OCR classes and titles.
    Hocr,
    /// ALTO XML.
    Alto,
}

/// The format of an OCR file, told by its content: ALTO when its root
/// element is `alto` (in any namespace), hOCR when its root is another
/// element and it mentions `ocr_page`. `None` for anything else, bytes
/// that are not UTF-8 and XML malformed before the root.
pub fn detect_format(bytes: &[u8]) -> Option<OcrFormat> {
    format_of(std::str::from_utf8(bytes).ok()?)
}

/// The pages of an OCR file in hOCR or ALTO, whichever it is
/// ([`detect_format`]); `source` names it in errors.
pub fn read_ocr(bytes: &[u8], source: &Path) -> Result<Vec<PageOcr>> {
    let text = utf8(bytes, source)?;
    match format_of(text) {
        Some(OcrFormat::Hocr) => hocr_pages(text, source),
        Some(OcrFormat::Alto) => alto_pages(text, source),
        None => Err(Error::corrupted(
            source,
            "neither hOCR (no ocr_page) nor ALTO (the root element is not alto)",
        )),
    }
}

/// The pages of an hOCR file, in file order (see the module docs);
/// `source` names it in errors.
pub fn read_hocr(bytes: &[u8], source: &Path) -> Result<Vec<PageOcr>> {
    hocr_pages(utf8(bytes, source)?, source)
}

/// The pages of an ALTO file, in file order (see the module docs);
/// `source` names it in errors.
pub fn read_alto(bytes: &[u8], source: &Path) -> Result<Vec<PageOcr>> {
    alto_pages(utf8(bytes, source)?, source)
}

fn utf8<'a>(bytes: &'a [u8], source: &Path) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        Error::corrupted_at(
            source,
            e.valid_up_to() as u64,
            "not UTF-8 (hOCR and ALTO are read as UTF-8)",
        )
    })
}

fn format_of(text: &str) -> Option<OcrFormat> {
    let mut reader = Reader::from_str(text);
    loop {
        match reader.read_event().ok()? {
            Event::Start(root) | Event::Empty(root) if root.local_name().as_ref() == "alto" => {
                return Some(OcrFormat::Alto)
            }
            Event::Start(_) | Event::Empty(_) => {
                return text.contains("ocr_page").then_some(OcrFormat::Hocr)
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

/// A document's XML events, each with the byte offset where it starts;
/// errors name the file. It counts the open elements, so that a truncated
/// document is an error rather than a shorter document.
struct Xml<'a> {
    reader: Reader<&'a [u8]>,
    source: &'a Path,
    open: usize,
}

impl<'a> Xml<'a> {
    fn new(text: &'a str, source: &'a Path) -> Xml<'a> {
        Xml {
            reader: Reader::from_str(text),
            source,
            open: 0,
        }
    }

    fn next(&mut self) -> Result<(u64, Event<'a>)> {
        let offset = self.reader.buffer_position();
        let event = match self.reader.read_event() {
            Ok(event) => event,
            Err(e) => return Err(self.malformed(e)),
        };
        match &event {
            Event::Start(_) => self.open += 1,
            // The reader refuses an end tag that closes nothing.
            Event::End(_) => self.open = self.open.saturating_sub(1),
            Event::Eof if self.open > 0 => {
                return Err(self.fault(
                    offset,
                    format!(
                        "the document ends before its elements close ({} open): truncated?",
                        self.open
                    ),
                ))
            }
            _ => {}
        }
        Ok((offset, event))
    }

    /// The text inside the element `start` (at `offset`) opened, entities
    /// decoded and ends trimmed; reads past its end tag.
    fn text_of(&mut self, start: &BytesStart, offset: u64) -> Result<String> {
        let text = match self.reader.read_text(start.name()) {
            Ok(text) => text,
            Err(e) => return Err(self.malformed(e)),
        };
        self.open = self.open.saturating_sub(1);
        unescape(&text)
            .map(|text| text.trim().to_string())
            .map_err(|e| self.fault(offset, format!("in {}: {e}", start.local_name().as_ref())))
    }

    /// The value of the attribute of `element` (at `offset`) whose local
    /// name is `name`, entities decoded.
    fn attribute(&self, element: &BytesStart, name: &str, offset: u64) -> Result<Option<String>> {
        for attribute in element.attributes() {
            let attribute =
                attribute.map_err(|e| self.fault(offset, format!("malformed attribute: {e}")))?;
            if attribute.key.local_name().as_ref() == name {
                return unescape(&attribute.value)
                    .map(|value| Some(value.into_owned()))
                    .map_err(|e| self.fault(offset, format!("attribute {name}: {e}")));
            }
        }
        Ok(None)
    }

    /// Appends to `text` what the entity or character reference at
    /// `offset` stands for.
    fn push_reference(&self, reference: &BytesRef, offset: u64, text: &mut String) -> Result<()> {
        let name: &str = reference;
        match reference.resolve_char_ref() {
            Ok(Some(c)) => text.push(c),
            Ok(None) => match resolve_predefined_entity(name) {
                Some(value) => text.push_str(value),
                None => return Err(self.fault(offset, format!("unknown entity &{name};"))),
            },
            Err(e) => return Err(self.fault(offset, format!("&{name};: {e}"))),
        }
        Ok(())
    }

    fn fault(&self, offset: u64, what: impl Into<String>) -> Error {
        Error::corrupted_at(self.source, offset, what)
    }

    fn malformed(&self, error: quick_xml::Error) -> Error {
        self.fault(
            self.reader.error_position(),
            format!("malformed XML: {error}"),
        )
    }
}

/// The pages read so far, holding a file to its bounds.
struct Pages<'a> {
    pages: Vec<PageOcr>,
    words: usize,
    /// Line elements started on the last page.
    lines: u32,
    source: &'a Path,
}

impl<'a> Pages<'a> {
    fn new(source: &'a Path) -> Pages<'a> {
        Pages {
            pages: Vec::new(),
            words: 0,
            lines: 0,
            source,
        }
    }

    /// Starts `page`, found at `offset`.
    fn start(&mut self, page: PageOcr, offset: u64) -> Result<()> {
        if self.pages.len() == MAX_PAGES {
            return Err(Error::corrupted_at(
                self.source,
                offset,
                format!("more than {MAX_PAGES} pages in one file"),
            ));
        }
        self.pages.push(page);
        self.lines = 0;
        Ok(())
    }

    /// Starts a line of the last page started: the words after it are on
    /// it.
    fn start_line(&mut self) {
        self.lines = self.lines.saturating_add(1);
    }

    /// Adds `word`, found at `offset`, to the last page started.
    fn add(&mut self, mut word: OcrWord, offset: u64) -> Result<()> {
        let fault = |what: String| Error::corrupted_at(self.source, offset, what);
        if self.words == MAX_WORDS {
            return Err(fault(format!("more than {MAX_WORDS} words in one file")));
        }
        if word.text.len() > MAX_WORD_BYTES {
            return Err(fault(format!(
                "a word of {} bytes, longer than the {MAX_WORD_BYTES} a word may have",
                word.text.len()
            )));
        }
        let Some(page) = self.pages.last_mut() else {
            return Err(fault(format!("word {:?} is outside any page", word.text)));
        };
        if page.words.len() == MAX_PAGE_WORDS {
            return Err(fault(format!(
                "more than {MAX_PAGE_WORDS} words on one page"
            )));
        }
        if let Some(what) = box_fault(&word, page) {
            return Err(fault(what));
        }
        word.line = self.lines.saturating_sub(1);
        page.words.push(word);
        self.words += 1;
        Ok(())
    }

    /// The pages; an error when there are none (`missing` says what was
    /// looked for).
    fn finish(self, missing: &str) -> Result<Vec<PageOcr>> {
        if self.pages.is_empty() {
            return Err(Error::corrupted(
                self.source,
                format!("no page found: {missing}"),
            ));
        }
        Ok(self.pages)
    }
}

/// What is wrong with the box of `word` on `page`, if anything.
fn box_fault(word: &OcrWord, page: &PageOcr) -> Option<String> {
    let WordBox { x0, y0, x1, y1 } = word.bbox;
    let text = &word.text;
    if x1 < x0 || y1 < y0 {
        Some(format!(
            "word {text:?}: its box (bbox {x0} {y0} {x1} {y1}) is inverted, its right or \
             bottom edge before its left or top"
        ))
    } else if x1 > page.width || y1 > page.height {
        Some(format!(
            "word {text:?}: its box (bbox {x0} {y0} {x1} {y1}) lies outside its page of \
             {}×{} pixels",
            page.width, page.height
        ))
    } else {
        None
    }
}

/// The word of `text` (ends trimmed); `None` when the text is empty.
fn word(text: &str, bbox: WordBox, confidence: Option<f32>) -> Option<OcrWord> {
    let text = text.trim();
    (!text.is_empty()).then(|| OcrWord {
        text: text.to_string(),
        bbox,
        confidence,
        line: 0,
    })
}

/// A coordinate or size named `name`, as written (decimals allowed): a
/// number from 0 to [`MAX_COORDINATE`].
fn measure(name: &str, text: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value < 0.0 => Err(format!("{name} {text:?} is negative")),
        Ok(value) if value > f64::from(MAX_COORDINATE) => Err(format!(
            "{name} {text:?} is beyond {MAX_COORDINATE}, the largest coordinate read"
        )),
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err(format!("{name} {text:?} is not a number")),
    }
}

/// `value` rounded to the nearest pixel.
fn pixel(value: f64) -> u32 {
    // At most twice MAX_COORDINATE (a position plus a size): no overflow.
    value.round() as u32
}

/// A confidence named `name`, written on a scale of 0 to `scale`, on the
/// scale of 0 to 100.
fn confidence(name: &str, text: &str, scale: f64) -> std::result::Result<f32, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if (0.0..=scale).contains(&value) => Ok((value * 100.0 / scale) as f32),
        _ => Err(format!(
            "{name} {text:?} is not a confidence from 0 to {scale}"
        )),
    }
}

fn hocr_pages(text: &str, source: &Path) -> Result<Vec<PageOcr>> {
    let mut xml = Xml::new(text, source);
    let mut pages = Pages::new(source);
    let mut open_word: Option<HocrWord> = None;
    loop {
        let (offset, event) = xml.next()?;
        if let Some(open) = open_word.as_mut() {
            if open.take(&xml, event, offset)? {
                if let Some((word, at)) = open_word.take().and_then(HocrWord::finish) {
                    pages.add(word, at)?;
                }
            }
            continue;
        }
        match event {
            Event::Start(element) => open_word = hocr_element(&xml, &element, offset, &mut pages)?,
            Event::Empty(element) => {
                // An empty word element has no text, and a word without
                // text is skipped.
                hocr_element(&xml, &element, offset, &mut pages)?;
            }
            Event::Eof => return pages.finish("no element of class ocr_page"),
            _ => {}
        }
    }
}

/// A word element being read: its box and confidence, from its title, its
/// text so far, and how many elements inside it are open.
struct HocrWord {
    bbox: WordBox,
    confidence: Option<f32>,
    text: String,
    depth: usize,
    offset: u64,
}

impl HocrWord {
    /// Takes `event`, at `offset`, inside the word; true when it closes
    /// the word.
    fn take(&mut self, xml: &Xml, event: Event, offset: u64) -> Result<bool> {
        match event {
            Event::Start(_) => self.depth += 1,
            Event::End(_) if self.depth == 0 => return Ok(true),
            Event::End(_) => self.depth -= 1,
            Event::Text(text) => self.text.push_str(&text),
            Event::CData(text) => self.text.push_str(&text),
            Event::GeneralRef(reference) => {
                xml.push_reference(&reference, offset, &mut self.text)?
            }
            _ => {}
        }
        Ok(false)
    }

    /// The word read and its offset; `None` when its text is empty.
    fn finish(self) -> Option<(OcrWord, u64)> {
        word(&self.text, self.bbox, self.confidence).map(|word| (word, self.offset))
    }
}

/// The hOCR classes of a line of words.
const HOCR_LINE_CLASSES: [&str; 5] = [
    "ocr_line",
    "ocrx_line",
    "ocr_textfloat",
    "ocr_header",
    "ocr_caption",
];

/// Starts a page, a line or a word at `element`, by its class: the word,
/// when it is one.
fn hocr_element(
    xml: &Xml,
    element: &BytesStart,
    offset: u64,
    pages: &mut Pages,
) -> Result<Option<HocrWord>> {
    let Some(class) = xml.attribute(element, "class", offset)? else {
        return Ok(None);
    };
    let has_class = |wanted: &[&str]| class.split_ascii_whitespace().any(|c| wanted.contains(&c));
    if has_class(&["ocr_page"]) {
        let title = xml.attribute(element, "title", offset)?.unwrap_or_default();
        pages.start(hocr_page(xml, &title, offset)?, offset)?;
    } else if has_class(&HOCR_LINE_CLASSES) {
        pages.start_line();
    } else if has_class(&["ocrx_word", "ocr_word"]) {
        let title = xml.attribute(element, "title", offset)?.unwrap_or_default();
        return hocr_word(xml, &title, offset).map(Some);
    }
    Ok(None)
}

/// A page from the title of its `ocr_page` element, at `offset`.
fn hocr_page(xml: &Xml, title: &str, offset: u64) -> Result<PageOcr> {
    let Some(bbox) = title_bbox(xml, title, offset)? else {
        return Err(xml.fault(offset, "ocr_page without a bbox in its title"));
    };
    if bbox.x1 < bbox.x0 || bbox.y1 < bbox.y0 {
        return Err(xml.fault(offset, format!("ocr_page bbox {title:?} is inverted")));
    }
    let image = title_property(title, "image")
        .map(|value| value.trim_matches('"'))
        .filter(|name| !name.is_empty())
        .map(str::to_string);
    Ok(PageOcr {
        image,
        width: bbox.x1,
        height: bbox.y1,
        words: Vec::new(),
    })
}

/// A word from the title of its element, at `offset`.
fn hocr_word(xml: &Xml, title: &str, offset: u64) -> Result<HocrWord> {
    let Some(bbox) = title_bbox(xml, title, offset)? else {
        return Err(xml.fault(offset, "word without a bbox in its title"));
    };
    let confidence = title_property(title, "x_wconf")
        .map(|value| confidence("x_wconf", value, 100.0))
        .transpose()
        .map_err(|what| xml.fault(offset, what))?;
    Ok(HocrWord {
        bbox,
        confidence,
        text: String::new(),
        depth: 0,
        offset,
    })
}

/// The `bbox` of an hOCR title (of the element at `offset`); `None` when
/// it has none.
fn title_bbox(xml: &Xml, title: &str, offset: u64) -> Result<Option<WordBox>> {
    let Some(value) = title_property(title, "bbox") else {
        return Ok(None);
    };
    let mut numbers = value.split_ascii_whitespace();
    let mut edge = || -> Result<u32> {
        let number = numbers.next().ok_or_else(|| {
            xml.fault(
                offset,
                format!("bbox {value:?} has fewer than four numbers"),
            )
        })?;
        measure("bbox", number)
            .map(pixel)
            .map_err(|what| xml.fault(offset, what))
    };
    let bbox = WordBox {
        x0: edge()?,
        y0: edge()?,
        x1: edge()?,
        y1: edge()?,
    };
    if numbers.next().is_some() {
        return Err(xml.fault(offset, format!("bbox {value:?} has more than four numbers")));
    }
    Ok(Some(bbox))
}

/// The value of the property `name` in an hOCR title (`image "p.png";
/// bbox 0 0 10 10`): what follows the name up to the next `;` outside
/// double quotes, trimmed.
fn title_property<'t>(title: &'t str, name: &str) -> Option<&'t str> {
    let mut quoted = false;
    let separator = move |c: char| {
        if c == '"' {
            quoted = !quoted;
        }
        c == ';' && !quoted
    };
    title.split(separator).find_map(|property| {
        let rest = property.trim_start().strip_prefix(name)?;
        (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
    })
}

fn alto_pages(text: &str, source: &Path) -> Result<Vec<PageOcr>> {
    let mut xml = Xml::new(text, source);
    let mut pages = Pages::new(source);
    let mut image = None;
    let mut in_image_information = false;
    loop {
        let (offset, event) = xml.next()?;
        match event {
            Event::Start(element) => match element.local_name().as_ref() {
                "MeasurementUnit" => {
                    let unit = xml.text_of(&element, offset)?;
                    check_unit(&xml, &unit, offset)?;
                }
                "fileName" if in_image_information => {
                    image = Some(xml.text_of(&element, offset)?).filter(|name| !name.is_empty());
                }
                "sourceImageInformation" => in_image_information = true,
                _ => alto_element(&xml, &element, offset, &mut pages)?,
            },
            Event::Empty(element) => alto_element(&xml, &element, offset, &mut pages)?,
            Event::End(element) if element.local_name().as_ref() == "sourceImageInformation" => {
                in_image_information = false;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let mut pages = pages.finish("no Page element")?;
    if let Some(first) = pages.first_mut() {
        first.image = image;
    }
    Ok(pages)
}

/// Refuses coordinates in any unit but pixels (see the module docs).
fn check_unit(xml: &Xml, unit: &str, offset: u64) -> Result<()> {
    match unit {
        "pixel" => Ok(()),
        "mm10" | "inch1200" => Err(xml.fault(
            offset,
            format!(
                "MeasurementUnit {unit}: ALTO gives no image resolution to turn {unit} into \
                 pixels, and pixel coordinates are needed"
            ),
        )),
        _ => Err(xml.fault(
            offset,
            format!("unknown MeasurementUnit {unit:?} (ALTO's are pixel, mm10 and inch1200)"),
        )),
    }
}

/// Starts a page or a line at `element`, or adds a word, when it is one.
fn alto_element(xml: &Xml, element: &BytesStart, offset: u64, pages: &mut Pages) -> Result<()> {
    match element.local_name().as_ref() {
        "Page" => pages.start(alto_page(xml, element, offset)?, offset),
        "TextLine" => {
            pages.start_line();
            Ok(())
        }
        "String" => match alto_word(xml, element, offset)? {
            Some(word) => pages.add(word, offset),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// A page from its `Page` element, at `offset`.
fn alto_page(xml: &Xml, element: &BytesStart, offset: u64) -> Result<PageOcr> {
    Ok(PageOcr {
        image: None,
        width: pixel(alto_measure(xml, element, "WIDTH", offset)?),
        height: pixel(alto_measure(xml, element, "HEIGHT", offset)?),
        words: Vec::new(),
    })
}

/// A word from its `String` element, at `offset`; `None` when its text is
/// empty.
fn alto_word(xml: &Xml, element: &BytesStart, offset: u64) -> Result<Option<OcrWord>> {
    let number = |name| alto_measure(xml, element, name, offset);
    let (left, top) = (number("HPOS")?, number("VPOS")?);
    let (width, height) = (number("WIDTH")?, number("HEIGHT")?);
    let bbox = WordBox {
        x0: pixel(left),
        y0: pixel(top),
        x1: pixel(left + width),
        y1: pixel(top + height),
    };
    let confidence = xml
        .attribute(element, "WC", offset)?
        .map(|value| confidence("WC", &value, 1.0))
        .transpose()
        .map_err(|what| xml.fault(offset, what))?;
    let text = xml
        .attribute(element, "CONTENT", offset)?
        .unwrap_or_default();
    Ok(word(&text, bbox, confidence))
}

/// The coordinate or size in the attribute `name` of `element`, at
/// `offset`, which must have it.
fn alto_measure(xml: &Xml, element: &BytesStart, name: &str, offset: u64) -> Result<f64> {
    let element_name = element.local_name();
    let Some(value) = xml.attribute(element, name, offset)? else {
        return Err(xml.fault(offset, format!("{} without {name}", element_name.as_ref())));
    };
    measure(name, &value)
        .map_err(|what| xml.fault(offset, format!("{}: {what}", element_name.as_ref())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tesseract list.txt multi -l eng hocr` (Tesseract 5.3.0) on two
    /// pages rendered by `text2image`: `Tom's <b> & café "quoted"` and
    /// `Hello world 1876.` on the first, `Second page` on the second.
    const TESSERACT_HOCR: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
 <head>
  <title></title>
  <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>
  <meta name='ocr-system' content='tesseract 5.3.0' />
  <meta name='ocr-capabilities' content='ocr_page ocr_carea ocr_par ocr_line ocrx_word ocrp_wconf'/>
 </head>
 <body>
  <div class='ocr_page' id='page_1' title='image "page.tif"; bbox 0 0 800 300; ppageno 0; scan_res 300 300'>
   <div class='ocr_carea' id='block_1_1' title="bbox 20 23 425 95">
    <p class='ocr_par' id='par_1_1' lang='eng' title="bbox 20 23 425 95">
     <span class='ocr_line' id='line_1_1' title="bbox 20 23 425 55; baseline 0.005 -8; x_size 31; x_descenders 6; x_ascenders 7">
      <span class='ocrx_word' id='word_1_1' title='bbox 20 24 105 48; x_wconf 96'>Tom&#39;s</span>
      <span class='ocrx_word' id='word_1_2' title='bbox 118 25 180 48; x_wconf 93'>&lt;b&gt;</span>
      <span class='ocrx_word' id='word_1_3' title='bbox 193 25 216 48; x_wconf 92'>&amp;</span>
      <span class='ocrx_word' id='word_1_4' title='bbox 227 23 287 48; x_wconf 93'>café</span>
      <span class='ocrx_word' id='word_1_5' title='bbox 298 25 425 55; x_wconf 91'>“quoted&quot;</span>
     </span>
     <span class='ocr_line' id='line_1_2' title="bbox 22 71 284 95; baseline 0 0; x_size 30; x_descenders 5.9999995; x_ascenders 6">
      <span class='ocrx_word' id='word_1_6' title='bbox 22 71 97 95; x_wconf 96'>Hello</span>
      <span class='ocrx_word' id='word_1_7' title='bbox 108 72 191 95; x_wconf 96'>world</span>
      <span class='ocrx_word' id='word_1_8' title='bbox 205 72 284 95; x_wconf 96'>1876.</span>
     </span>
    </p>
   </div>
  </div>
  <div class='ocr_page' id='page_2' title='image "page2.tif"; bbox 0 0 400 120; ppageno 1; scan_res 300 300'>
   <div class='ocr_carea' id='block_2_1' title="bbox 22 25 209 54">
    <p class='ocr_par' id='par_2_1' lang='eng' title="bbox 22 25 209 54">
     <span class='ocr_line' id='line_2_1' title="bbox 22 25 209 54; baseline 0.005 -6; x_size 28; x_descenders 5; x_ascenders 6">
      <span class='ocrx_word' id='word_2_1' title='bbox 22 25 128 48; x_wconf 96'>Second</span>
      <span class='ocrx_word' id='word_2_2' title='bbox 139 31 209 54; x_wconf 96'>page</span>
     </span>
    </p>
   </div>
  </div>
 </body>
</html>
"##;

    /// The same two pages, `tesseract list.txt multi -l eng alto`.
    const TESSERACT_ALTO: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.loc.gov/standards/alto/ns-v3# http://www.loc.gov/alto/v3/alto-3-0.xsd">
	<Description>
		<MeasurementUnit>pixel</MeasurementUnit>
		<sourceImageInformation>
			<fileName>page.tif</fileName>
		</sourceImageInformation>
		<OCRProcessing ID="OCR_0">
			<ocrProcessingStep>
				<processingSoftware>
					<softwareName>tesseract 5.3.0</softwareName>
				</processingSoftware>
			</ocrProcessingStep>
		</OCRProcessing>
	</Description>
	<Layout>
		<Page WIDTH="800" HEIGHT="300" PHYSICAL_IMG_NR="0" ID="page_0">
			<PrintSpace HPOS="0" VPOS="0" WIDTH="800" HEIGHT="300">
				<ComposedBlock ID="cblock_0" HPOS="20" VPOS="23" WIDTH="405" HEIGHT="72">
					<TextBlock ID="block_0" HPOS="20" VPOS="23" WIDTH="405" HEIGHT="72">
						<TextLine ID="line_0" HPOS="20" VPOS="23" WIDTH="405" HEIGHT="32">
							<String ID="string_0" HPOS="20" VPOS="24" WIDTH="85" HEIGHT="24" WC="0.96" CONTENT="Tom&#39;s"/><SP WIDTH="13" VPOS="24" HPOS="105"/>
							<String ID="string_1" HPOS="118" VPOS="25" WIDTH="62" HEIGHT="23" WC="0.93" CONTENT="&lt;b&gt;"/><SP WIDTH="13" VPOS="25" HPOS="180"/>
							<String ID="string_2" HPOS="193" VPOS="25" WIDTH="23" HEIGHT="23" WC="0.92" CONTENT="&amp;"/><SP WIDTH="11" VPOS="25" HPOS="216"/>
							<String ID="string_3" HPOS="227" VPOS="23" WIDTH="60" HEIGHT="25" WC="0.93" CONTENT="café"/><SP WIDTH="11" VPOS="23" HPOS="287"/>
							<String ID="string_4" HPOS="298" VPOS="25" WIDTH="127" HEIGHT="30" WC="0.91" CONTENT="“quoted&quot;"/>
						</TextLine>
						<TextLine ID="line_1" HPOS="22" VPOS="71" WIDTH="262" HEIGHT="24">
							<String ID="string_5" HPOS="22" VPOS="71" WIDTH="75" HEIGHT="24" WC="0.96" CONTENT="Hello"/><SP WIDTH="11" VPOS="71" HPOS="97"/>
							<String ID="string_6" HPOS="108" VPOS="72" WIDTH="83" HEIGHT="23" WC="0.96" CONTENT="world"/><SP WIDTH="14" VPOS="72" HPOS="191"/>
							<String ID="string_7" HPOS="205" VPOS="72" WIDTH="79" HEIGHT="23" WC="0.96" CONTENT="1876."/>
						</TextLine>
					</TextBlock>
				</ComposedBlock>
			</PrintSpace>
		</Page>
		<Page WIDTH="400" HEIGHT="120" PHYSICAL_IMG_NR="1" ID="page_1">
			<PrintSpace HPOS="0" VPOS="0" WIDTH="400" HEIGHT="120">
				<ComposedBlock ID="cblock_0" HPOS="22" VPOS="25" WIDTH="187" HEIGHT="29">
					<TextBlock ID="block_0" HPOS="22" VPOS="25" WIDTH="187" HEIGHT="29">
						<TextLine ID="line_0" HPOS="22" VPOS="25" WIDTH="187" HEIGHT="29">
							<String ID="string_0" HPOS="22" VPOS="25" WIDTH="106" HEIGHT="23" WC="0.96" CONTENT="Second"/><SP WIDTH="11" VPOS="25" HPOS="128"/>
							<String ID="string_1" HPOS="139" VPOS="31" WIDTH="70" HEIGHT="23" WC="0.96" CONTENT="page"/>
						</TextLine>
					</TextBlock>
				</ComposedBlock>
			</PrintSpace>
		</Page>
	</Layout>
</alto>
"##;

    fn texts(page: &PageOcr) -> Vec<&str> {
        page.words.iter().map(|w| w.text.as_str()).collect()
    }

    fn lines(page: &PageOcr) -> Vec<u32> {
        page.words.iter().map(|w| w.line).collect()
    }

    fn bbox(x0: u32, y0: u32, x1: u32, y1: u32) -> WordBox {
        WordBox { x0, y0, x1, y1 }
    }

    /// Asserts that `result` is `Corrupted`, naming the file `path`, with a
    /// message holding `fragment`; returns its offset.
    #[track_caller]
    fn corrupted(result: Result<Vec<PageOcr>>, path: &str, fragment: &str) -> Option<u64> {
        let error = result.expect_err("damage is an error");
        let message = error.to_string();
        assert!(message.starts_with(&format!("{path}: ")), "{message}");
        assert!(message.contains(fragment), "{message}");
        match error {
            Error::Corrupted { offset, .. } => offset,
            other => panic!("not Corrupted: {other:?}"),
        }
    }

    fn hocr_page(body: &str) -> String {
        format!(
            "<html><body><div class='ocr_page' title='bbox 0 0 100 50'>{body}</div></body></html>"
        )
    }

    fn alto_page(body: &str) -> String {
        format!(
            "<alto xmlns=\"http://www.loc.gov/standards/alto/ns-v4#\"><Layout>\
             <Page WIDTH=\"100\" HEIGHT=\"50\">{body}</Page></Layout></alto>"
        )
    }

    #[test]
    fn reads_tesseract_hocr_of_two_pages() {
        let pages = read_hocr(TESSERACT_HOCR.as_bytes(), Path::new("multi.hocr")).unwrap();
        assert_eq!(pages.len(), 2);
        let first = &pages[0];
        assert_eq!(first.image.as_deref(), Some("page.tif"));
        assert_eq!((first.width, first.height), (800, 300));
        assert_eq!(
            texts(first),
            [
                "Tom's",
                "<b>",
                "&",
                "café",
                "“quoted\"",
                "Hello",
                "world",
                "1876."
            ]
        );
        assert_eq!(first.words[0].bbox, bbox(20, 24, 105, 48));
        assert_eq!(first.words[0].confidence, Some(96.0));
        assert_eq!(first.words[4].confidence, Some(91.0));
        assert_eq!(lines(first), [0, 0, 0, 0, 0, 1, 1, 1]);
        let second = &pages[1];
        assert_eq!(lines(second), [0, 0]);
        assert_eq!(second.image.as_deref(), Some("page2.tif"));
        assert_eq!((second.width, second.height), (400, 120));
        assert_eq!(texts(second), ["Second", "page"]);
        assert_eq!(second.words[1].bbox, bbox(139, 31, 209, 54));
    }

    #[test]
    fn reads_nested_text_entities_and_both_quotes_in_hocr() {
        // Older Tesseracts put <strong> and <em> in words; XHTML allows
        // HTML's named entities; a title may quote a `;`.
        let hocr = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
            <!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\"\n\
            \x20   \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">\n\
            <html xmlns=\"http://www.w3.org/1999/xhtml\"><body>\n\
            <div class=\"ocr_page\" title=\"image &quot;scans/a;b.png&quot;; bbox 0 0 640 480; ppageno 0\">\n\
            <span class='ocr_line' title='bbox 10 10 600 40'>\
            <span class='ocrx_word' title='bbox 10 10 60 40; x_wconf 87'><strong><em>Bold</em>er</strong></span> \
            <span class='ocrx_word' title=\"bbox 70 10 120 40;x_wconf 55\"> Tom&#39;s&#x2019;&nbsp;</span> \
            <span class='ocr_word' title='bbox 130 10 180 40'>&eacute;t&eacute;</span> \
            <span class='ocrx_word' title='bbox 190 10 200 40; x_wconf 3'>  </span>\
            <span class='ocrx_word' title='bbox 200 10 210 40'/>\
            <span class='ocrx_word' title='bbox 210 10 260 40'><![CDATA[a<b]]></span>\
            </span></div></body></html>";
        let pages = read_hocr(hocr.as_bytes(), Path::new("nested.hocr")).unwrap();
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].image.as_deref(), Some("scans/a;b.png"));
        assert_eq!((pages[0].width, pages[0].height), (640, 480));
        assert_eq!(texts(&pages[0]), ["Bolder", "Tom's’", "été", "a<b"]);
        assert_eq!(pages[0].words[1].bbox, bbox(70, 10, 120, 40));
        assert_eq!(pages[0].words[1].confidence, Some(55.0));
        assert_eq!(pages[0].words[2].confidence, None);
    }

    #[test]
    fn reads_tesseract_alto_v3() {
        let pages = read_alto(TESSERACT_ALTO.as_bytes(), Path::new("multi.xml")).unwrap();
        assert_eq!(pages.len(), 2);
        // ALTO names one image per file: Tesseract's is the first page's.
        assert_eq!(pages[0].image.as_deref(), Some("page.tif"));
        assert_eq!(pages[1].image, None);
        assert_eq!((pages[0].width, pages[0].height), (800, 300));
        assert_eq!(
            texts(&pages[0]),
            [
                "Tom's",
                "<b>",
                "&",
                "café",
                "“quoted\"",
                "Hello",
                "world",
                "1876."
            ]
        );
        // Tesseract's ALTO and hOCR boxes agree.
        let hocr = read_hocr(TESSERACT_HOCR.as_bytes(), Path::new("multi.hocr")).unwrap();
        for (alto_page, hocr_page) in pages.iter().zip(&hocr) {
            let boxes = |page: &PageOcr| page.words.iter().map(|w| w.bbox).collect::<Vec<_>>();
            assert_eq!(boxes(alto_page), boxes(hocr_page));
            assert_eq!(lines(alto_page), lines(hocr_page));
        }
        let confidence = pages[0].words[1].confidence.unwrap();
        assert!((confidence - 93.0).abs() < 1e-4, "{confidence}");
        assert_eq!((pages[1].width, pages[1].height), (400, 120));
        assert_eq!(texts(&pages[1]), ["Second", "page"]);
    }

    #[test]
    fn reads_alto_v2_prefixed_with_decimals() {
        let alto = "\u{feff}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
            <alto:alto xmlns:alto=\"http://www.loc.gov/standards/alto/ns-v2#\">\n\
            <alto:Description><alto:MeasurementUnit> pixel </alto:MeasurementUnit>\
            <alto:sourceImageInformation><alto:fileName>0001.jp2</alto:fileName>\
            </alto:sourceImageInformation></alto:Description>\n\
            <alto:Layout><alto:Page ID=\"P1\" PHYSICAL_IMG_NR=\"1\" HEIGHT=\"3000.4\" WIDTH=\"1999.6\">\
            <alto:PrintSpace><alto:TextBlock ID=\"TB1\"><alto:TextLine>\
            <alto:String ID=\"S1\" HPOS=\"100.4\" VPOS=\"200.5\" WIDTH=\"120.2\" HEIGHT=\"40\" \
            CONTENT=\"Gutenberg&apos;s\" WC=\"0.87\"/><alto:SP WIDTH=\"10\"/>\
            <alto:String ID=\"S2\" HPOS='231' VPOS='200' WIDTH='50.5' HEIGHT='40.49' CONTENT='Bible'>\
            <alto:ALTERNATIVE>Bihle</alto:ALTERNATIVE></alto:String>\
            <alto:HYP CONTENT=\"-\"/><alto:String HPOS=\"1\" VPOS=\"1\" WIDTH=\"1\" HEIGHT=\"1\" CONTENT=\" \"/>\
            </alto:TextLine></alto:TextBlock></alto:PrintSpace></alto:Page></alto:Layout></alto:alto>\n";
        let pages = read_alto(alto.as_bytes(), Path::new("0001.xml")).unwrap();
        assert_eq!(pages.len(), 1);
        let page = &pages[0];
        assert_eq!(page.image.as_deref(), Some("0001.jp2"));
        assert_eq!((page.width, page.height), (2000, 3000));
        assert_eq!(texts(page), ["Gutenberg's", "Bible"]);
        // Edges are rounded after adding: 100.4 + 120.2 = 220.6.
        assert_eq!(page.words[0].bbox, bbox(100, 201, 221, 241));
        assert_eq!(page.words[1].bbox, bbox(231, 200, 282, 240));
        assert_eq!(page.words[0].confidence, Some(87.0));
        assert_eq!(page.words[1].confidence, None);
    }

    #[test]
    fn reads_alto_v4_pages_without_a_unit() {
        let alto = "<?xml version='1.0'?><alto xmlns='http://www.loc.gov/standards/alto/ns-v4#'>\
            <Layout><Page WIDTH='50' HEIGHT='20'/>\
            <Page WIDTH='60.5' HEIGHT='30'><String HPOS='0' VPOS='0' WIDTH='60.4' HEIGHT='30' \
            CONTENT='whole' WC='1'/></Page></Layout></alto>";
        let pages = read_alto(alto.as_bytes(), Path::new("v4.xml")).unwrap();
        assert_eq!(pages.len(), 2);
        assert!(pages[0].words.is_empty());
        assert_eq!(pages[0].image, None);
        assert_eq!((pages[1].width, pages[1].height), (61, 30));
        assert_eq!(pages[1].words[0].bbox, bbox(0, 0, 60, 30));
        assert_eq!(pages[1].words[0].confidence, Some(100.0));
    }

    #[test]
    fn read_ocr_tells_the_formats_apart() {
        assert_eq!(
            detect_format(TESSERACT_HOCR.as_bytes()),
            Some(OcrFormat::Hocr)
        );
        assert_eq!(
            detect_format(TESSERACT_ALTO.as_bytes()),
            Some(OcrFormat::Alto)
        );
        assert_eq!(detect_format(b"<html><body>ocr</body></html>"), None);
        assert_eq!(detect_format(b"ocr_page"), None);
        assert_eq!(detect_format(b"\xff<alto/>"), None);
        let hocr = read_ocr(TESSERACT_HOCR.as_bytes(), Path::new("a.hocr")).unwrap();
        let alto = read_ocr(TESSERACT_ALTO.as_bytes(), Path::new("a.xml")).unwrap();
        assert_eq!(texts(&hocr[0]), texts(&alto[0]));
        // Only ALTO names just the first page's image.
        assert_eq!(hocr[1].image.as_deref(), Some("page2.tif"));
        assert_eq!(alto[1].image, None);
        assert_eq!(texts(&hocr[1]), texts(&alto[1]));
        let offset = corrupted(
            read_ocr(b"<html><p>no pages</p></html>", Path::new("plain.html")),
            "plain.html",
            "neither hOCR",
        );
        assert_eq!(offset, None);
    }

    #[test]
    fn malformed_and_truncated_xml_is_refused_at_its_offset() {
        let bad = hocr_page("<span class='ocrx_word' title='bbox 1 1 2 2'>a</em>");
        let offset = corrupted(
            read_hocr(bad.as_bytes(), Path::new("bad.hocr")),
            "bad.hocr",
            "malformed XML",
        );
        assert_eq!(offset, bad.find("</em>").map(|at| at as u64));
        let cut = &TESSERACT_HOCR[..TESSERACT_HOCR.find("Second").unwrap()];
        corrupted(
            read_hocr(cut.as_bytes(), Path::new("cut.hocr")),
            "cut.hocr",
            "truncated",
        );
        let cut = &TESSERACT_ALTO[..TESSERACT_ALTO.find("</Layout>").unwrap()];
        corrupted(
            read_alto(cut.as_bytes(), Path::new("cut.xml")),
            "cut.xml",
            "truncated",
        );
        let cut = &TESSERACT_ALTO[..TESSERACT_ALTO.find("CONTENT=\"Sec").unwrap() + 12];
        corrupted(
            read_alto(cut.as_bytes(), Path::new("cut.xml")),
            "cut.xml",
            "malformed XML",
        );
        let bad = alto_page("<String HPOS=\"1 VPOS=\"1\"/>");
        corrupted(
            read_alto(bad.as_bytes(), Path::new("bad.xml")),
            "bad.xml",
            "malformed",
        );
        let bad = hocr_page("<span class='ocrx_word' title='bbox 1 1 2 2'>&bogus;</span>");
        corrupted(
            read_hocr(bad.as_bytes(), Path::new("ent.hocr")),
            "ent.hocr",
            "unknown entity &bogus;",
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused() {
        let mut bytes =
            hocr_page("<span class='ocrx_word' title='bbox 1 1 2 2'>caf</span>").into_bytes();
        let at = bytes.windows(3).position(|w| w == b"caf").unwrap() + 3;
        bytes.insert(at, 0xe9);
        let offset = corrupted(
            read_hocr(&bytes, Path::new("latin1.hocr")),
            "latin1.hocr",
            "not UTF-8",
        );
        assert_eq!(offset, Some(at as u64));
        corrupted(
            read_ocr(&bytes, Path::new("latin1.hocr")),
            "latin1.hocr",
            "not UTF-8",
        );
        corrupted(
            read_alto(&bytes, Path::new("latin1.xml")),
            "latin1.xml",
            "not UTF-8",
        );
    }

    #[test]
    fn boxes_outside_their_page_or_inverted_are_refused() {
        let outside = hocr_page("<span class='ocrx_word' title='bbox 90 10 101 20'>wide</span>");
        let offset = corrupted(
            read_hocr(outside.as_bytes(), Path::new("p.hocr")),
            "p.hocr",
            "word \"wide\": its box (bbox 90 10 101 20) lies outside its page of 100×50 pixels",
        );
        assert_eq!(offset, outside.find("<span").map(|at| at as u64));
        let inverted = hocr_page("<span class='ocrx_word' title='bbox 30 10 20 20'>back</span>");
        corrupted(
            read_hocr(inverted.as_bytes(), Path::new("p.hocr")),
            "p.hocr",
            "is inverted",
        );
        let below =
            alto_page("<String HPOS='0' VPOS='40' WIDTH='10' HEIGHT='10.6' CONTENT='low'/>");
        corrupted(
            read_alto(below.as_bytes(), Path::new("p.xml")),
            "p.xml",
            "outside its page",
        );
        let orphan = "<alto><String HPOS='0' VPOS='0' WIDTH='1' HEIGHT='1' CONTENT='lost'/></alto>";
        corrupted(
            read_alto(orphan.as_bytes(), Path::new("p.xml")),
            "p.xml",
            "outside any page",
        );
    }

    #[test]
    fn numbers_that_are_not_coordinates_are_refused() {
        let cases = [
            ("bbox 1 2 x 4", "bbox \"x\" is not a number"),
            ("bbox 1 2 3", "fewer than four numbers"),
            ("bbox 1 2 3 4 5", "more than four numbers"),
            ("bbox 1 -2 3 4", "is negative"),
            ("bbox 1 2 3 1000001", "beyond 1000000"),
            ("bbox 1 2 3 NaN", "not a number"),
            (
                "bbox 1 2 3 4; x_wconf 101",
                "x_wconf \"101\" is not a confidence from 0 to 100",
            ),
            ("x_wconf 90", "word without a bbox"),
        ];
        for (title, fragment) in cases {
            let hocr = hocr_page(&format!("<span class='ocrx_word' title='{title}'>w</span>"));
            corrupted(
                read_hocr(hocr.as_bytes(), Path::new("n.hocr")),
                "n.hocr",
                fragment,
            );
        }
        let cases = [
            (
                "HPOS='abc' VPOS='0' WIDTH='1' HEIGHT='1'",
                "String: HPOS \"abc\" is not a number",
            ),
            ("VPOS='0' WIDTH='1' HEIGHT='1'", "String without HPOS"),
            (
                "HPOS='0' VPOS='0' WIDTH='1' HEIGHT='1' WC='96'",
                "WC \"96\" is not a confidence from 0 to 1",
            ),
            ("HPOS='0' VPOS='0' WIDTH='1e7' HEIGHT='1'", "beyond 1000000"),
        ];
        for (attributes, fragment) in cases {
            let alto = alto_page(&format!("<String {attributes} CONTENT='w'/>"));
            corrupted(
                read_alto(alto.as_bytes(), Path::new("n.xml")),
                "n.xml",
                fragment,
            );
        }
        let big_page = "<alto><Page WIDTH='2000000' HEIGHT='1'/></alto>";
        corrupted(
            read_alto(big_page.as_bytes(), Path::new("n.xml")),
            "n.xml",
            "Page: WIDTH",
        );
        let no_size = "<html><div class='ocr_page' title='image \"a.png\"'/></html>";
        corrupted(
            read_hocr(no_size.as_bytes(), Path::new("n.hocr")),
            "n.hocr",
            "ocr_page without a bbox",
        );
    }

    #[test]
    fn files_without_pages_are_refused() {
        let no_page =
            "<html><body><span class='ocrx_word' title='bbox 0 0 1 1'>w</span></body></html>";
        corrupted(
            read_hocr(no_page.as_bytes(), Path::new("e.hocr")),
            "e.hocr",
            "outside any page",
        );
        let empty = "<html><body><p>text</p></body></html>";
        let offset = corrupted(
            read_hocr(empty.as_bytes(), Path::new("e.hocr")),
            "e.hocr",
            "no page found: no element of class ocr_page",
        );
        assert_eq!(offset, None);
        corrupted(
            read_hocr(b"", Path::new("e.hocr")),
            "e.hocr",
            "no page found",
        );
        let alto = "<alto><Description/><Layout/></alto>";
        corrupted(
            read_alto(alto.as_bytes(), Path::new("e.xml")),
            "e.xml",
            "no page found: no Page element",
        );
    }

    #[test]
    fn units_other_than_pixels_are_refused() {
        for unit in ["mm10", "inch1200"] {
            let alto = format!(
                "<alto><Description><MeasurementUnit>{unit}</MeasurementUnit></Description>\
                 <Layout><Page WIDTH='10' HEIGHT='10'/></Layout></alto>"
            );
            corrupted(
                read_alto(alto.as_bytes(), Path::new("u.xml")),
                "u.xml",
                &format!("MeasurementUnit {unit}: ALTO gives no image resolution to turn {unit} into pixels, and pixel coordinates are needed"),
            );
        }
        let alto = "<alto><Description><MeasurementUnit>cm</MeasurementUnit></Description></alto>";
        corrupted(
            read_alto(alto.as_bytes(), Path::new("u.xml")),
            "u.xml",
            "unknown MeasurementUnit \"cm\"",
        );
    }

    #[test]
    fn files_beyond_the_bounds_are_refused() {
        let long = "x".repeat(MAX_WORD_BYTES + 1);
        let hocr = hocr_page(&format!(
            "<span class='ocrx_word' title='bbox 0 0 1 1'>{long}</span>"
        ));
        corrupted(
            read_hocr(hocr.as_bytes(), Path::new("b.hocr")),
            "b.hocr",
            "a word of 1025 bytes",
        );
        let longest = "x".repeat(MAX_WORD_BYTES);
        let hocr = hocr_page(&format!(
            "<span class='ocrx_word' title='bbox 0 0 1 1'>{longest}</span>"
        ));
        assert!(read_hocr(hocr.as_bytes(), Path::new("b.hocr")).is_ok());

        let page = "<Page WIDTH='1' HEIGHT='1'/>";
        let alto = format!("<alto>{}</alto>", page.repeat(MAX_PAGES + 1));
        corrupted(
            read_alto(alto.as_bytes(), Path::new("b.xml")),
            "b.xml",
            "more than 10000 pages",
        );
        let alto = format!("<alto>{}</alto>", page.repeat(MAX_PAGES));
        assert_eq!(
            read_alto(alto.as_bytes(), Path::new("b.xml"))
                .unwrap()
                .len(),
            MAX_PAGES
        );

        // A million words make a file of tens of megabytes: the count is
        // set rather than read.
        let source = Path::new("b.xml");
        let mut pages = Pages::new(source);
        let page = PageOcr {
            image: None,
            width: 10,
            height: 10,
            words: Vec::new(),
        };
        pages.start(page, 0).unwrap();
        let word = OcrWord {
            text: "w".into(),
            bbox: bbox(0, 0, 1, 1),
            confidence: None,
            line: 0,
        };
        pages.add(word.clone(), 1).unwrap();
        pages.words = MAX_WORDS;
        corrupted(
            pages.add(word, 2).map(|()| Vec::new()),
            "b.xml",
            "more than 1000000 words",
        );
    }

    #[test]
    fn a_page_of_more_words_than_the_bound_is_refused_where_the_word_past_it_starts() {
        let word = "<span class='ocrx_word' title='bbox 1 1 9 9'>w</span>";
        let full = hocr_page(&word.repeat(MAX_PAGE_WORDS));
        assert_eq!(
            read_hocr(full.as_bytes(), Path::new("p.hocr")).unwrap()[0]
                .words
                .len(),
            MAX_PAGE_WORDS
        );
        let over = hocr_page(&word.repeat(MAX_PAGE_WORDS + 1));
        let offset = corrupted(
            read_hocr(over.as_bytes(), Path::new("p.hocr")),
            "p.hocr",
            "more than 20000 words on one page",
        );
        let last = over.rfind("<span").unwrap() as u64;
        assert_eq!(offset, Some(last));
    }

    #[test]
    fn no_prefix_of_a_document_panics() {
        let path = Path::new("cut");
        for document in [TESSERACT_HOCR, TESSERACT_ALTO] {
            for end in 0..=document.len() {
                let bytes = &document.as_bytes()[..end];
                let read = [
                    read_ocr(bytes, path),
                    read_hocr(bytes, path),
                    read_alto(bytes, path),
                ];
                for page in read.iter().flatten().flatten() {
                    for word in &page.words {
                        assert!(word.bbox.x1 <= page.width && word.bbox.y1 <= page.height);
                    }
                }
            }
        }
    }
}
