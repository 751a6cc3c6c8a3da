//! Word-image book files (`images/NNNNNN.wib`, file kind 5) and the
//! vocabulary file (`images/NNNNNN.wiv`, file kind 6), format 9: what an
//! index keeps of a scanned book's pages (their names and sizes; each
//! word's page, boxes, unit, OCR word, visual terms and a small crop of
//! its image) and the visual vocabulary its terms come from, each file with
//! one checksum (layout in storage-format.md, section 6.8). The search
//! file built from them is in [`super::image_search`].

use std::path::Path;

use image::GrayImage;

use super::codec::{
    decompress_claimed, put_str, put_u16, put_u32, put_u64, Cursor, Decode, Encode,
};
use super::format::{checked_body, checksum, FileHeader, FileKind, CHECKSUM_LEN, HEADER_LEN};
use crate::error::{Error, Result};
use crate::images::codebook::Codebook;
use crate::images::descriptor::{Described, Normalisation, DIMENSIONS, MAX_UNIT_SHARE};
use crate::images::likelihood::PlacedTerm;
use crate::images::ocr::{MAX_COORDINATE, MAX_WORD_BYTES};
use crate::images::WordBox;

pub use crate::images::pages::{CROP_HEIGHT, MAX_CROP_WIDTH};
/// Most visual terms one word image may hold.
pub const MAX_TERMS_PER_WORD: usize = u16::MAX as usize;
/// Most terms a vocabulary may have: terms are stored as u16.
pub const MAX_VOCABULARY_TERMS: usize = 1 << 16;

/// One page of a stored book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPage {
    /// The page image's file name, as given when it was added.
    pub name: String,
    /// Width of the page image in pixels.
    pub width: u32,
    /// Height of the page image in pixels.
    pub height: u32,
}

/// One word image of a stored book.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredWord {
    /// Its page (index into the book's pages).
    pub page: u32,
    /// Its box on the page: the ink's, found inside the OCR's box, or
    /// grown past it along its line to the whole word (from format 20).
    pub bbox: WordBox,
    /// The box the OCR gave, which `bbox` crosses (stored from format 18,
    /// where it holds `bbox` up to format 19; an older book file's words
    /// read their one box as both); `bbox` itself for a word found from
    /// the ink alone.
    pub ocr_box: WordBox,
    /// Its unit in pixels, the height its descriptors were scaled to
    /// (stored from format 19; an older book file's words read their box's
    /// height).
    pub unit: u32,
    /// The word the OCR read in it; empty for a word found along the
    /// page's text lines from the ink alone (from format 21).
    pub ocr: String,
    /// Its visual terms with their positions in units.
    pub terms: Vec<PlacedTerm>,
    /// Width of its crop in pixels ([`CROP_HEIGHT`] high).
    pub crop_width: u16,
}

impl StoredWord {
    /// Box width in units: the width its likelihood row slides over.
    pub fn width_in_units(&self) -> f32 {
        Described::width_in_units(self.bbox, self.unit)
    }
}

/// A stored book of word images: the content of one book file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageBook {
    /// The book's key.
    pub key: String,
    /// Terms of the vocabulary its terms come from.
    pub vocabulary_terms: u32,
    /// Its terms come from a vocabulary of its own, learned from its own
    /// descriptors when it was added and not kept (files from format 23;
    /// before, and otherwise, from the index's vocabulary).
    pub own_vocabulary: bool,
    /// Its pages, in the order given.
    pub pages: Vec<StoredPage>,
    /// Its word images, by page, then in the OCR's order.
    pub words: Vec<StoredWord>,
    /// Per page, the zstd frame of its words' crops, one after the other,
    /// each [`CROP_HEIGHT`] rows of its `crop_width` pixels.
    pub crops: Vec<Vec<u8>>,
}

impl ImageBook {
    /// A book of `pages` whose words are `words` with their crops (by
    /// page, in order), their terms of a vocabulary of `vocabulary_terms`
    /// (its own when `own_vocabulary`): the crops are compressed per page.
    pub fn new(
        key: String,
        (vocabulary_terms, own_vocabulary): (u32, bool),
        pages: Vec<StoredPage>,
        words: Vec<(StoredWord, GrayImage)>,
    ) -> Result<ImageBook> {
        let mut raw: Vec<Vec<u8>> = vec![Vec::new(); pages.len()];
        let mut stored = Vec::with_capacity(words.len());
        for (mut word, crop) in words {
            let pixels = raw.get_mut(word.page as usize).ok_or_else(|| {
                Error::InvalidArgument(format!("word on page {} of {}", word.page, pages.len()))
            })?;
            word.crop_width = crop.width() as u16;
            debug_assert_eq!(crop.height(), CROP_HEIGHT);
            pixels.extend_from_slice(crop.as_raw());
            stored.push(word);
        }
        let crops = raw
            .iter()
            .map(|pixels| zstd::bulk::compress(pixels, 3))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(|e| Error::InvalidArgument(format!("compressing crops: {e}")))?;
        Ok(ImageBook {
            key,
            vocabulary_terms,
            own_vocabulary,
            pages,
            words: stored,
            crops,
        })
    }

    /// The crops of page `page`'s words, in word order; `path` names the
    /// file in errors.
    pub fn page_crops(&self, page: u32, path: &Path) -> Result<Vec<GrayImage>> {
        let widths: Vec<u32> = self
            .words
            .iter()
            .filter(|w| w.page == page)
            .map(|w| w.crop_width as u32)
            .collect();
        let expected: usize = widths.iter().map(|&w| (w * CROP_HEIGHT) as usize).sum();
        let frame = self
            .crops
            .get(page as usize)
            .ok_or_else(|| Error::corrupted(path, format!("no page {page}")))?;
        let pixels = decompress_claimed(frame, expected).map_err(|e| {
            Error::corrupted(
                path,
                format!("the crops of page {page} do not decompress: {e}"),
            )
        })?;
        if pixels.len() != expected {
            return Err(Error::corrupted(
                path,
                format!(
                    "the crops of page {page} hold {} bytes, its words need {expected}",
                    pixels.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(widths.len());
        let mut at = 0;
        for w in widths {
            let len = (w * CROP_HEIGHT) as usize;
            let crop = pixels
                .get(at..at + len)
                .and_then(|p| GrayImage::from_raw(w, CROP_HEIGHT, p.to_vec()))
                .ok_or_else(|| Error::corrupted(path, "crop of the wrong size"))?;
            out.push(crop);
            at += len;
        }
        Ok(out)
    }
}

/// The bytes of the book file holding `book`.
pub fn encode_book(book: &ImageBook) -> Vec<u8> {
    let mut out = Vec::new();
    FileHeader::new(FileKind::ImageBook).encode_into(&mut out);
    put_str(&mut out, &book.key);
    put_u32(&mut out, book.vocabulary_terms);
    out.push(u8::from(book.own_vocabulary));
    put_u32(&mut out, book.pages.len() as u32);
    for page in &book.pages {
        put_str(&mut out, &page.name);
        put_u32(&mut out, page.width);
        put_u32(&mut out, page.height);
    }
    put_u32(&mut out, book.words.len() as u32);
    for word in &book.words {
        put_u32(&mut out, word.page);
        for bbox in [word.bbox, word.ocr_box] {
            for v in [bbox.x0, bbox.y0, bbox.x1, bbox.y1] {
                put_u32(&mut out, v);
            }
        }
        put_u32(&mut out, word.unit);
        put_str(&mut out, &word.ocr);
        put_u16(&mut out, word.crop_width);
        put_u16(&mut out, word.terms.len() as u16);
        for t in &word.terms {
            put_u16(&mut out, t.term as u16);
            put_u32(&mut out, t.x.to_bits());
        }
    }
    for frame in &book.crops {
        put_u32(&mut out, frame.len() as u32);
        out.extend_from_slice(frame);
    }
    let sum = checksum(&out);
    put_u64(&mut out, sum);
    out
}

/// The stored checksum of a file's bytes (its last 8 bytes): the
/// dictionary files' rule, shared by every whole-file checksum.
pub use super::dictionary_file::stored_checksum;

/// The body of a checksummed file of `kind`: header and checksum checked.
fn body<'a>(bytes: &'a [u8], kind: FileKind, path: &'a Path) -> Result<(FileHeader, Cursor<'a>)> {
    let header = FileHeader::decode_from(bytes, kind, path)?;
    if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(Error::corrupted_at(
            path,
            0,
            format!(
                "{} of {} bytes is shorter than its header and checksum",
                kind.noun(),
                bytes.len()
            ),
        ));
    }
    let body = checked_body(bytes, path, 0)?;
    let cursor = Cursor::at(
        body.get(HEADER_LEN..).unwrap_or_default(),
        path,
        HEADER_LEN as u64,
    );
    Ok((header, cursor))
}

/// A u32 that must lie in `range`.
fn bounded(c: &mut Cursor<'_>, what: &str, range: std::ops::RangeInclusive<u32>) -> Result<u32> {
    let at = c.position();
    let value = c.u32()?;
    if !range.contains(&value) {
        return Err(c.error_at(
            at,
            format!("{what} {value} outside {}..={}", range.start(), range.end()),
        ));
    }
    Ok(value)
}

/// A count of items of at least `least` bytes each, checked against the
/// bytes left before anything is allocated.
fn count(c: &mut Cursor<'_>, what: &str, least: usize) -> Result<usize> {
    let at = c.position();
    let n = c.u32()? as usize;
    if n > c.remaining() / least.max(1) {
        return Err(c.error_at(at, format!("{n} {what} run past the end")));
    }
    Ok(n)
}

/// Decodes the book file `bytes` read from `path`: header, checksum, then
/// every field; `Corrupted` or `ChecksumMismatch` naming the file.
pub fn decode_book(bytes: &[u8], path: &Path) -> Result<ImageBook> {
    let (header, mut c) = body(bytes, FileKind::ImageBook, path)?;
    let layout = WordLayout {
        ocr_box: header.version.has_ink_boxes(),
        unit: header.version.has_word_units(),
        grown: header.version.has_grown_words(),
        unread: header.version.has_unread_words(),
    };
    let key = c.string("key")?;
    let vocabulary_terms = bounded(&mut c, "vocabulary of", 1..=MAX_VOCABULARY_TERMS as u32)?;
    let own_vocabulary = match header.version.has_own_vocabularies() {
        true => {
            let at = c.position();
            match c.u8()? {
                0 => false,
                1 => true,
                flag => return Err(c.error_at(at, format!("vocabulary flag {flag}, not 0 or 1"))),
            }
        }
        false => false,
    };
    let page_count = count(&mut c, "pages", 12)?;
    let mut pages = Vec::with_capacity(page_count);
    for _ in 0..page_count {
        let name = c.string("page name")?;
        let width = bounded(&mut c, "page width", 1..=MAX_COORDINATE)?;
        let height = bounded(&mut c, "page height", 1..=MAX_COORDINATE)?;
        pages.push(StoredPage {
            name,
            width,
            height,
        });
    }
    let word_count = count(&mut c, "words", 28)?;
    let mut words = Vec::with_capacity(word_count);
    for _ in 0..word_count {
        words.push(decode_word(&mut c, &pages, vocabulary_terms, layout)?);
    }
    let mut crops = Vec::with_capacity(pages.len());
    for _ in 0..pages.len() {
        let len = c.u32()? as usize;
        crops.push(c.take(len)?.to_vec());
    }
    c.finish()?;
    Ok(ImageBook {
        key,
        vocabulary_terms,
        own_vocabulary,
        pages,
        words,
        crops,
    })
}

/// A word box, checked to hold a pixel of its page.
fn decode_box(c: &mut Cursor<'_>, on: &StoredPage, what: &str) -> Result<WordBox> {
    let at = c.position();
    let bbox = WordBox {
        x0: c.u32()?,
        y0: c.u32()?,
        x1: c.u32()?,
        y1: c.u32()?,
    };
    if bbox.is_empty() || bbox.x1 > on.width || bbox.y1 > on.height {
        return Err(c.error_at(
            at,
            format!(
                "{what} {bbox:?} empty or outside its {}×{} page",
                on.width, on.height
            ),
        ));
    }
    Ok(bbox)
}

/// What a book file's word records hold besides their box, by version.
#[derive(Clone, Copy)]
struct WordLayout {
    /// The OCR's box after the word's (format 18 on).
    ocr_box: bool,
    /// The word's unit after its boxes (format 19 on).
    unit: bool,
    /// The word's box may reach past its OCR box, which it crosses
    /// (format 20 on; before, the OCR box held it).
    grown: bool,
    /// The OCR word may be empty: a word found from the ink alone (format
    /// 21 on).
    unread: bool,
}

/// One word record of a book file of `layout`.
fn decode_word(
    c: &mut Cursor<'_>,
    pages: &[StoredPage],
    vocabulary: u32,
    layout: WordLayout,
) -> Result<StoredWord> {
    let at = c.position();
    let page = c.u32()?;
    let Some(on) = pages.get(page as usize) else {
        return Err(c.error_at(at, format!("word on page {page} of {}", pages.len())));
    };
    let bbox = decode_box(c, on, "word box")?;
    let ocr_box = match layout.ocr_box {
        true => {
            let ocr_at = c.position();
            let ocr_box = decode_box(c, on, "OCR box")?;
            if layout.grown && ocr_box.intersection(&bbox) == 0 {
                return Err(c.error_at(
                    ocr_at,
                    format!("OCR box {ocr_box:?} does not cross its word's box {bbox:?}"),
                ));
            }
            if !layout.grown && !ocr_box.holds(&bbox) {
                return Err(c.error_at(
                    ocr_at,
                    format!("OCR box {ocr_box:?} does not hold its word's box {bbox:?}"),
                ));
            }
            ocr_box
        }
        false => bbox,
    };
    let unit = match layout.unit {
        true => decode_unit(c, bbox)?,
        false => bbox.height(),
    };
    let ocr_at = c.position();
    let ocr = c.string("OCR word")?;
    if (ocr.is_empty() && !layout.unread) || ocr.len() > MAX_WORD_BYTES {
        return Err(c.error_at(ocr_at, format!("OCR word of {} bytes", ocr.len())));
    }
    let crop_at = c.position();
    let crop_width = c.u16()?;
    if crop_width == 0 || u32::from(crop_width) > MAX_CROP_WIDTH {
        return Err(c.error_at(crop_at, format!("crop {crop_width} pixels wide")));
    }
    let term_count = c.u16()? as usize;
    let mut terms = Vec::with_capacity(term_count.min(c.remaining() / 6));
    for _ in 0..term_count {
        let term_at = c.position();
        let term = c.u16()? as u32;
        let x = f32::from_bits(c.u32()?);
        if term >= vocabulary || !x.is_finite() || x < 0.0 {
            return Err(c.error_at(
                term_at,
                format!("visual term {term} at x {x} (vocabulary of {vocabulary})"),
            ));
        }
        terms.push(PlacedTerm { term, x });
    }
    Ok(StoredWord {
        page,
        bbox,
        ocr_box,
        unit,
        ocr,
        terms,
        crop_width,
    })
}

/// A word's unit, checked to lie in 1..=[`MAX_UNIT_SHARE`] × its box's
/// height.
fn decode_unit(c: &mut Cursor<'_>, bbox: WordBox) -> Result<u32> {
    let at = c.position();
    let unit = c.u32()?;
    let most = (f64::from(MAX_UNIT_SHARE) * f64::from(bbox.height())) as u32;
    if !(1..=most).contains(&unit) {
        return Err(c.error_at(
            at,
            format!("unit of {unit} pixels for a box {} high", bbox.height()),
        ));
    }
    Ok(unit)
}

/// The bytes of the vocabulary file holding `codebook`.
pub fn encode_vocabulary(codebook: &Codebook) -> Vec<u8> {
    let (roots, leaves) = codebook.centres();
    let mut out = Vec::new();
    FileHeader::new(FileKind::Vocabulary).encode_into(&mut out);
    out.push(codebook.normalisation().to_byte());
    put_u16(&mut out, codebook.branching() as u16);
    put_u16(&mut out, roots.len() as u16);
    for (root, children) in roots.iter().zip(leaves) {
        put_centre(&mut out, root);
        put_u16(&mut out, children.len() as u16);
        for child in children {
            put_centre(&mut out, child);
        }
    }
    let sum = checksum(&out);
    put_u64(&mut out, sum);
    out
}

fn put_centre(out: &mut Vec<u8>, centre: &[f32; DIMENSIONS]) {
    for v in centre {
        put_u32(out, v.to_bits());
    }
}

fn centre(c: &mut Cursor<'_>) -> Result<[f32; DIMENSIONS]> {
    let at = c.position();
    let mut out = [0f32; DIMENSIONS];
    for v in &mut out {
        *v = f32::from_bits(c.u32()?);
        if !v.is_finite() {
            return Err(c.error_at(at, "centre with a value that is not a finite number"));
        }
    }
    Ok(out)
}

/// Decodes the vocabulary file `bytes` read from `path`.
pub fn decode_vocabulary(bytes: &[u8], path: &Path) -> Result<Codebook> {
    let (header, mut c) = body(bytes, FileKind::Vocabulary, path)?;
    let normalisation = match header.version.has_word_units() {
        true => {
            let at = c.position();
            let byte = c.u8()?;
            Normalisation::from_byte(byte)
                .ok_or_else(|| c.error_at(at, format!("descriptor normalisation {byte} unknown")))?
        }
        false => Normalisation::BoxHeight,
    };
    let at = c.position();
    let branching = c.u16()? as usize;
    let root_count = c.u16()? as usize;
    let mut roots = Vec::with_capacity(root_count.min(256));
    let mut leaves = Vec::with_capacity(root_count.min(256));
    for _ in 0..root_count {
        roots.push(centre(&mut c)?);
        let children = c.u16()? as usize;
        if children > branching {
            return Err(c.error(format!("{children} children, branching {branching}")));
        }
        let mut list = Vec::with_capacity(children);
        for _ in 0..children {
            list.push(centre(&mut c)?);
        }
        leaves.push(list);
    }
    c.finish()?;
    if branching * branching > MAX_VOCABULARY_TERMS {
        return Err(c.error_at(at, format!("branching {branching} over 256")));
    }
    Codebook::from_centres(branching, roots, leaves, normalisation).ok_or_else(|| {
        c.error_at(
            at,
            format!("centres that do not form a tree of branching {branching}"),
        )
    })
}

/// What the catalog's `word_images` table holds about one book, under its
/// key (storage-format.md, section 6.8).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImageBookEntry {
    /// Number of its book file in `images/`.
    pub file: u32,
    /// Its pages.
    pub pages: u32,
    /// Its word images.
    pub words: u64,
    /// Bytes of its file.
    pub bytes: u64,
    /// The checksum stored at the end of its file.
    pub checksum: u64,
}

impl Encode for ImageBookEntry {
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u32(out, self.file);
        put_u32(out, self.pages);
        for n in [self.words, self.bytes, self.checksum] {
            put_u64(out, n);
        }
    }
}

impl Decode for ImageBookEntry {
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        Ok(ImageBookEntry {
            file: c.u32()?,
            pages: c.u32()?,
            words: c.u64()?,
            bytes: c.u64()?,
            checksum: c.u64()?,
        })
    }
}

/// A listed file: its number, length and stored checksum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ListedFile {
    /// Its number in `images/`.
    pub file: u32,
    /// Its length.
    pub bytes: u64,
    /// The checksum in its last 8 bytes.
    pub checksum: u64,
}

impl ListedFile {
    fn put(&self, out: &mut Vec<u8>) {
        put_u32(out, self.file);
        put_u64(out, self.bytes);
        put_u64(out, self.checksum);
    }

    fn get(c: &mut Cursor<'_>) -> Result<ListedFile> {
        Ok(ListedFile {
            file: c.u32()?,
            bytes: c.u64()?,
            checksum: c.u64()?,
        })
    }
}

/// The catalog's `meta` entry `word_images`: the vocabulary file and the
/// search file of the index's word images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageFiles {
    /// The vocabulary file.
    pub vocabulary: ListedFile,
    /// The search file.
    pub search: ListedFile,
}

impl Encode for ImageFiles {
    fn encode_into(&self, out: &mut Vec<u8>) {
        self.vocabulary.put(out);
        self.search.put(out);
    }
}

impl Decode for ImageFiles {
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        Ok(ImageFiles {
            vocabulary: ListedFile::get(c)?,
            search: ListedFile::get(c)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(x0: u32, y0: u32, x1: u32, y1: u32) -> WordBox {
        WordBox { x0, y0, x1, y1 }
    }

    /// A book of one page and two words found in one OCR box.
    fn joined_words_book() -> ImageBook {
        let page = StoredPage {
            name: "p-0001.png".into(),
            width: 100,
            height: 60,
        };
        let ocr_box = boxed(10, 10, 90, 50);
        let word = |bbox: WordBox, ocr: &str| StoredWord {
            page: 0,
            bbox,
            ocr_box,
            unit: 2 * bbox.height() - 1,
            ocr: ocr.into(),
            terms: vec![PlacedTerm { term: 3, x: 0.5 }],
            crop_width: 0,
        };
        let crop = GrayImage::from_pixel(20, CROP_HEIGHT, image::Luma([90]));
        let words = vec![
            (word(boxed(12, 20, 40, 40), "nami."), crop.clone()),
            (word(boxed(50, 20, 88, 40), "of"), crop),
        ];
        ImageBook::new("book".into(), (16, false), vec![page], words).unwrap()
    }

    #[test]
    fn a_book_file_keeps_each_word_s_box_and_the_ocr_s_box_it_was_found_in() {
        let book = joined_words_book();
        let bytes = encode_book(&book);
        let back = decode_book(&bytes, Path::new("000001.wib")).unwrap();
        assert_eq!(back, book);
        assert_eq!(back.words[1].bbox, boxed(50, 20, 88, 40));
        assert_eq!(back.words[1].ocr_box, boxed(10, 10, 90, 50));
    }

    /// `bytes` with the checksum of their body written again.
    fn resummed(mut bytes: Vec<u8>) -> Vec<u8> {
        let body = bytes.len() - CHECKSUM_LEN;
        let sum = checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn a_book_file_keeps_each_word_s_unit_and_refuses_one_over_twice_its_box() {
        let book = joined_words_book();
        let back = decode_book(&encode_book(&book), Path::new("000001.wib")).unwrap();
        assert_eq!(back.words[0].unit, 39);
        assert_eq!(back.words[0].width_in_units(), 28.0 / 39.0);
        // The first word's unit, after its page and two boxes.
        let at = HEADER_LEN + (4 + 4) + 4 + 1 + 4 + (4 + 10 + 8) + 4 + 4 + 32;
        for (unit, refused) in [(40u32, false), (41, true), (0, true)] {
            let mut bytes = encode_book(&book);
            assert_eq!(&bytes[at..at + 4], &39u32.to_le_bytes());
            bytes[at..at + 4].copy_from_slice(&unit.to_le_bytes());
            let decoded = decode_book(&resummed(bytes), Path::new("000001.wib"));
            match refused {
                false => assert_eq!(decoded.unwrap().words[0].unit, unit),
                true => {
                    let message = decoded.unwrap_err().to_string();
                    assert!(message.contains("000001.wib"), "{message}");
                    assert!(
                        message.contains(&format!("unit of {unit} pixels")),
                        "{message}"
                    );
                }
            }
        }
    }

    /// A vocabulary of one root and one leaf under `normalisation`.
    fn tiny_vocabulary(normalisation: Normalisation) -> Codebook {
        let centre = [1.0f32; DIMENSIONS];
        Codebook::from_centres(2, vec![centre], vec![vec![centre]], normalisation).unwrap()
    }

    #[test]
    fn a_vocabulary_file_keeps_its_normalisation_and_an_older_one_reads_box_heights() {
        let path = Path::new("000001.wiv");
        for n in [Normalisation::BoxHeight, Normalisation::XHeight] {
            let back = decode_vocabulary(&encode_vocabulary(&tiny_vocabulary(n)), path).unwrap();
            assert_eq!(back.normalisation(), n);
        }
        // Version 18: no normalisation byte; its words were described by
        // their box's height.
        let mut older = encode_vocabulary(&tiny_vocabulary(Normalisation::XHeight));
        older.remove(HEADER_LEN);
        older[8..10].copy_from_slice(&18u16.to_le_bytes());
        let back = decode_vocabulary(&resummed(older), path).unwrap();
        assert_eq!(back.normalisation(), Normalisation::BoxHeight);
        assert_eq!(back.branching(), 2);
        // A byte this build does not know.
        let mut unknown = encode_vocabulary(&tiny_vocabulary(Normalisation::BoxHeight));
        unknown[HEADER_LEN] = 7;
        let message = decode_vocabulary(&resummed(unknown), path)
            .unwrap_err()
            .to_string();
        assert!(message.contains("000001.wiv"), "{message}");
        assert!(message.contains("normalisation 7 unknown"), "{message}");
    }

    /// Where a book file's vocabulary flag (format 23 on) lies: after the
    /// header, the key "book" and V.
    const VOCABULARY_FLAG_AT: usize = HEADER_LEN + (4 + 4) + 4;

    /// The book file `bytes` as format `version` lays it out (before
    /// format 23 without the vocabulary flag), its checksum written again.
    fn as_version(mut bytes: Vec<u8>, version: u16) -> Vec<u8> {
        if version < 23 {
            bytes.remove(VOCABULARY_FLAG_AT);
        }
        bytes[8..10].copy_from_slice(&version.to_le_bytes());
        resummed(bytes)
    }

    /// The book file of `joined_words_book` of header `version` with the
    /// second word's OCR box x0 (after the header, key, V, the vocabulary
    /// flag, P, the page, W, the first word and the second word's page and
    /// box) set to `x0`.
    fn with_second_ocr_box_x0(version: u16, x0: u32) -> Result<ImageBook> {
        let mut bytes = encode_book(&joined_words_book());
        let first_word = 4 + 16 + 16 + 4 + (4 + 5) + 2 + 2 + 6;
        let at = VOCABULARY_FLAG_AT + 1 + 4 + (4 + 10 + 8) + 4 + first_word + 4 + 16;
        assert_eq!(&bytes[at..at + 4], &10u32.to_le_bytes());
        bytes[at..at + 4].copy_from_slice(&x0.to_le_bytes());
        decode_book(&as_version(bytes, version), Path::new("000001.wib"))
    }

    #[test]
    fn a_book_file_says_whether_its_terms_come_from_its_own_vocabulary_from_format_23() {
        let path = Path::new("000001.wib");
        let mut book = joined_words_book();
        for own in [false, true] {
            book.own_vocabulary = own;
            let bytes = encode_book(&book);
            assert_eq!(bytes[VOCABULARY_FLAG_AT], u8::from(own));
            assert_eq!(decode_book(&bytes, path).unwrap(), book);
        }
        // Format 22: no flag; its terms came from the index's vocabulary.
        let older = decode_book(&as_version(encode_book(&book), 22), path).unwrap();
        assert!(!older.own_vocabulary);
        assert_eq!(older.words, book.words);
        let mut unknown = encode_book(&book);
        unknown[VOCABULARY_FLAG_AT] = 2;
        let message = decode_book(&resummed(unknown), path)
            .unwrap_err()
            .to_string();
        assert!(message.contains("000001.wib"), "{message}");
        assert!(message.contains("vocabulary flag 2"), "{message}");
    }

    #[test]
    fn a_word_found_from_the_ink_alone_holds_no_ocr_word_from_format_21() {
        let mut book = joined_words_book();
        book.words[1].ocr = String::new();
        book.words[1].ocr_box = book.words[1].bbox;
        let bytes = encode_book(&book);
        let path = Path::new("000001.wib");
        assert_eq!(decode_book(&bytes, path).unwrap(), book);
        let message = decode_book(&as_version(bytes, 20), path)
            .unwrap_err()
            .to_string();
        assert!(message.contains("000001.wib"), "{message}");
        assert!(message.contains("OCR word of 0 bytes"), "{message}");
    }

    #[test]
    fn a_word_grown_past_its_ocr_box_must_still_cross_it() {
        // The second word's box is x 50..88: an OCR box from x 60 holds
        // part of it, as a box grown along its line leaves it.
        let grown = with_second_ocr_box_x0(20, 60).unwrap();
        assert_eq!(grown.words[1].ocr_box, boxed(60, 10, 90, 50));
        assert_eq!(grown.words[1].bbox, boxed(50, 20, 88, 40));
        for (version, x0, refusal) in [
            (20, 88, "does not cross its word's box"),
            (19, 60, "does not hold its word's box"),
        ] {
            let message = with_second_ocr_box_x0(version, x0).unwrap_err().to_string();
            assert!(message.contains("000001.wib"), "{message}");
            assert!(message.contains(refusal), "{version}: {message}");
        }
    }
}
