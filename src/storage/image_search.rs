//! The word-image search file (`images/NNNNNN.wis`, file kind 7, format
//! 9): everything a text query over the index's word images reads, laid
//! out to be read in place. The model's options and scale, its modelled
//! bigram classes, the books (keys, files, page names, and from format
//! 16 whether the model was learned from each) and their images'
//! pages, boxes, OCR words and floors (and from format 22 the widths the
//! model expects of letters, and each image's width in units), and the
//! stored matrix by column:
//! per modelled class, the images that keep it with their value and
//! position (layout in storage-format.md, section 6.8).
//!
//! [`SearchFile::open`] maps the file, checks its layout (every section
//! inside the file, the books tiling the images, the column starts
//! ascending), not its checksum or entries, so that opening costs the
//! same whatever the number of images, and inverts its distinct OCR words'
//! bigrams for the OCR side of queries (in proportion to the distinct
//! words, not the images); [`SearchFile::check`] checks the rest, and a
//! query meeting a bad entry returns `Corrupted`.

use std::ops::Range;
use std::path::{Path, PathBuf};

use byteorder::{ByteOrder, LittleEndian};

use super::codec::{put_str, put_u16, put_u32, put_u64, Cursor, Encode};
use super::format::{
    checked_body, checksum, FileHeader, FileKind, FormatVersion, CHECKSUM_LEN, HEADER_LEN,
};
use super::mapped::MappedBytes;
use crate::error::{Error, Result};
use crate::images::bigrams::{Bigram, CLASSES, SYMBOLS};
use crate::images::likelihood::StoredRow;
use crate::images::model::{Learning, ModelOptions};
use crate::images::ocr::{MAX_COORDINATE, MAX_WORD_BYTES};
use crate::images::spot::{OcrIndex, Rows};
use crate::images::widths::WordWidths;
use crate::images::WordBox;

/// Bytes of an image's record: page, box, OCR word, floor; from format 22
/// its width too ([`IMAGE_RECORD`]).
const IMAGE_RECORD_BEFORE_WIDTHS: usize = 4 + 16 + 4 + 2;
/// Bytes of an image's record: page, box, OCR word, floor, width.
const IMAGE_RECORD: usize = IMAGE_RECORD_BEFORE_WIDTHS + 2;
/// Bytes of a column entry: image, value, position.
const ENTRY: usize = 4 + 2 + 1;
/// Book flag bit: the model was learned from its word images.
const MODEL_BOOK: u8 = 1;
/// Book flag bit (format 23 on): its own widths follow the flags.
const OWN_WIDTHS: u8 = 2;
/// Search files shorter than this are read rather than mapped.
const MAP_AT_LEAST: u64 = 64 * 1024;

/// One book of the search file.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchBook {
    /// Its key.
    pub key: String,
    /// Number of its book file.
    pub file: u32,
    /// Its first image's number.
    pub first_image: u32,
    /// Its images.
    pub images: u32,
    /// Its pages' image file names.
    pub pages: Vec<String>,
    /// Whether the model was learned from its word images (a model book);
    /// another book's rows were computed by the model learned from the
    /// model books and that book.
    pub model_book: bool,
    /// The widths its images are held to, when its rows were computed by
    /// a model learned from its own word images alone (learned with that
    /// model, format 23 on); else the file's ([`SearchContents::widths`]).
    pub widths: Option<WordWidths>,
}

/// One word image as the search file records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchImage {
    /// Its page in its book.
    pub page: u32,
    /// Its box on the page.
    pub bbox: WordBox,
    /// Its OCR word (index into the OCR words).
    pub ocr: u32,
    /// The value of every modelled class its row does not keep.
    pub floor: u16,
    /// Its box's width in units, as stored
    /// ([`crate::images::widths::stored_width`]); 0 when not known (files
    /// before format 22).
    pub width: u16,
}

/// What a search file holds, for writing.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchContents {
    /// The model's options.
    pub model: ModelOptions,
    /// The scale stored values are fractions of.
    pub scale: f32,
    /// The widths the model expects of letters, learned from the model
    /// books; none when they hold too few read words.
    pub widths: Option<WordWidths>,
    /// Terms of the vocabulary.
    pub vocabulary_terms: u32,
    /// The modelled classes, ascending.
    pub classes: Vec<Bigram>,
    /// The books, their images numbered in this order.
    pub books: Vec<SearchBook>,
    /// The distinct OCR words.
    pub ocr_words: Vec<String>,
    /// Every image, by number.
    pub images: Vec<SearchImage>,
    /// Per class (by column): (image, value, position), by image.
    pub columns: Vec<Vec<(u32, u16, u8)>>,
}

impl SearchContents {
    /// Removes the book `key`, if there is one, with its images and their
    /// entries; later images are numbered down, and OCR words no image
    /// holds any more are dropped.
    pub fn remove_book(&mut self, key: &str) {
        let Some(at) = self.books.iter().position(|b| b.key == key) else {
            return;
        };
        let book = self.books.remove(at);
        let (first, n) = (book.first_image, book.images);
        let end = first + n;
        self.images.drain(first as usize..end as usize);
        for later in self.books.iter_mut().skip(at) {
            later.first_image -= n;
        }
        for column in &mut self.columns {
            column.retain(|&(image, _, _)| !(first..end).contains(&image));
            for entry in column.iter_mut().filter(|e| e.0 >= end) {
                entry.0 -= n;
            }
        }
        self.renumber_ocr_words(&[]);
    }

    /// Inserts `book` in key order (no book of its key may be there), its
    /// images `words` (page, box, OCR word, stored width) with their
    /// `rows`, numbered from where it stands: later images are numbered
    /// up.
    pub fn insert_book(
        &mut self,
        mut book: SearchBook,
        words: &[(u32, WordBox, &str, u16)],
        rows: &[StoredRow],
    ) {
        let at = self.books.partition_point(|b| b.key < book.key);
        let first = self
            .books
            .get(at)
            .map_or(self.images.len() as u32, |b| b.first_image);
        let n = words.len() as u32;
        for later in self.books.iter_mut().skip(at) {
            later.first_image += n;
        }
        book.first_image = first;
        book.images = n;
        self.books.insert(at, book);
        let ids = self.renumber_ocr_words(&words.iter().map(|w| w.2).collect::<Vec<_>>());
        let new_images = words
            .iter()
            .zip(&ids)
            .enumerate()
            .map(|(k, (w, &ocr))| SearchImage {
                page: w.0,
                bbox: w.1,
                ocr,
                floor: rows.get(k).map_or(0, |r| r.floor),
                width: w.3,
            });
        self.images.splice(
            first as usize..first as usize,
            new_images.collect::<Vec<_>>(),
        );
        let mut added = vec![Vec::new(); self.columns.len()];
        for (k, row) in rows.iter().enumerate() {
            for &(c, value, position) in &row.kept {
                if let Some(list) = added.get_mut(c as usize) {
                    list.push((first + k as u32, value, position));
                }
            }
        }
        for (column, added) in self.columns.iter_mut().zip(added) {
            let p = column.partition_point(|e| e.0 < first);
            for entry in column.iter_mut().skip(p) {
                entry.0 += n;
            }
            column.splice(p..p, added);
        }
    }

    /// Makes the OCR words those of the images and `extra`, ascending and
    /// distinct, the images' numbers following; returns each of `extra`'s
    /// numbers.
    fn renumber_ocr_words(&mut self, extra: &[&str]) -> Vec<u32> {
        let mut words: Vec<&str> = (self.images.iter())
            .filter_map(|i| self.ocr_words.get(i.ocr as usize).map(String::as_str))
            .chain(extra.iter().copied())
            .collect();
        words.sort_unstable();
        words.dedup();
        let number = |word: &str| words.binary_search(&word).unwrap_or(0) as u32;
        let renumbered: Vec<u32> = (self.images.iter())
            .map(|i| self.ocr_words.get(i.ocr as usize).map_or(0, |w| number(w)))
            .collect();
        let extra_numbers = extra.iter().map(|w| number(w)).collect();
        let words: Vec<String> = words.into_iter().map(str::to_string).collect();
        for (image, ocr) in self.images.iter_mut().zip(renumbered) {
            image.ocr = ocr;
        }
        self.ocr_words = words;
        extra_numbers
    }
}

/// The bytes of the search file holding `contents`.
pub fn encode(contents: &SearchContents) -> Vec<u8> {
    encode_as(contents, FileHeader::new(FileKind::ImageSearch))
}

/// The bytes of the search file holding `contents`, under `header`: the
/// widths written only from format 22, as that format lays them out.
fn encode_as(contents: &SearchContents, header: FileHeader) -> Vec<u8> {
    let with_widths = header.version.has_word_widths();
    let with_own_widths = header.version.has_own_vocabularies();
    let entries: usize = contents.columns.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(
        HEADER_LEN
            + 64
            + contents.images.len() * IMAGE_RECORD
            + entries * ENTRY
            + (contents.columns.len() + 1) * 8,
    );
    header.encode_into(&mut out);
    out.push(match contents.model.learning {
        Learning::Union => 0,
        Learning::Intersection => 1,
    });
    put_u64(&mut out, contents.model.smoothing.to_bits());
    put_u32(&mut out, contents.model.min_examples);
    put_u32(&mut out, contents.scale.to_bits());
    if with_widths {
        put_widths(&mut out, contents.widths.as_ref());
    }
    put_u32(&mut out, contents.vocabulary_terms);
    put_u32(&mut out, contents.classes.len() as u32);
    for &class in &contents.classes {
        put_u16(&mut out, class);
    }
    put_u32(&mut out, contents.books.len() as u32);
    for book in &contents.books {
        put_str(&mut out, &book.key);
        put_u32(&mut out, book.file);
        put_u32(&mut out, book.first_image);
        put_u32(&mut out, book.images);
        let own_widths = book.widths.as_ref().filter(|_| with_own_widths);
        let flag = |set: bool, bit: u8| if set { bit } else { 0 };
        out.push(flag(book.model_book, MODEL_BOOK) | flag(own_widths.is_some(), OWN_WIDTHS));
        if own_widths.is_some() {
            put_widths(&mut out, own_widths);
        }
        put_u32(&mut out, book.pages.len() as u32);
        for page in &book.pages {
            put_str(&mut out, page);
        }
    }
    put_u32(&mut out, contents.ocr_words.len() as u32);
    for word in &contents.ocr_words {
        put_str(&mut out, word);
    }
    put_u32(&mut out, contents.images.len() as u32);
    for image in &contents.images {
        put_u32(&mut out, image.page);
        for v in [image.bbox.x0, image.bbox.y0, image.bbox.x1, image.bbox.y1] {
            put_u32(&mut out, v);
        }
        put_u32(&mut out, image.ocr);
        put_u16(&mut out, image.floor);
        if with_widths {
            put_u16(&mut out, image.width);
        }
    }
    let mut start = 0u64;
    put_u64(&mut out, start);
    for column in &contents.columns {
        start += column.len() as u64;
        put_u64(&mut out, start);
    }
    for column in &contents.columns {
        for &(image, value, position) in column {
            put_u32(&mut out, image);
            put_u16(&mut out, value);
            out.push(position);
        }
    }
    let sum = checksum(&out);
    put_u64(&mut out, sum);
    out
}

/// A search file whose layout was checked, read in place.
#[derive(Debug)]
pub struct SearchFile {
    path: PathBuf,
    bytes: MappedBytes,
    model: ModelOptions,
    scale: f32,
    widths: Option<WordWidths>,
    vocabulary_terms: u32,
    classes: Vec<Bigram>,
    books: Vec<SearchBook>,
    /// Per book, the width set its images are held to: 0 the file's
    /// widths, `n` the `n`-th book's own widths among the books that have
    /// some ([`SearchFile::own_widths`]). Empty when no book has any.
    width_sets: Vec<u32>,
    ocr_words: Vec<String>,
    ocr_index: OcrIndex,
    image_count: usize,
    images_at: usize,
    /// Bytes of an image's record in this file's version.
    image_record: usize,
    starts_at: usize,
    entries_at: usize,
    entry_count: usize,
}

/// Each book's width set: the books with widths of their own numbered
/// from 1 in book order, the others 0; empty when no book has widths of
/// its own.
fn width_sets(books: &[SearchBook]) -> Vec<u32> {
    if books.iter().all(|b| b.widths.is_none()) {
        return Vec::new();
    }
    let mut next = 0;
    (books.iter())
        .map(|b| match b.widths {
            Some(_) => {
                next += 1;
                next
            }
            None => 0,
        })
        .collect()
}

impl SearchFile {
    /// Opens the search file at `path` and checks its layout (see the
    /// module docs).
    pub fn open(path: &Path) -> Result<SearchFile> {
        SearchFile::layout(MappedBytes::open(path, MAP_AT_LEAST)?, path)
    }

    /// A search file over `bytes` held in memory, named `path` in errors;
    /// its layout is checked, as [`Self::open`] checks it.
    pub fn in_memory(bytes: Vec<u8>, path: &Path) -> Result<SearchFile> {
        SearchFile::layout(MappedBytes::Owned(bytes), path)
    }

    /// Checks `bytes` as a search file read from `path`: layout, checksum
    /// and every entry ([`Self::check`]).
    pub fn decode(bytes: Vec<u8>, path: &Path) -> Result<SearchFile> {
        let file = SearchFile::layout(MappedBytes::Owned(bytes), path)?;
        file.check()?;
        Ok(file)
    }

    fn layout(bytes: MappedBytes, path: &Path) -> Result<SearchFile> {
        let header = FileHeader::decode_from(&bytes, FileKind::ImageSearch, path)?;
        let Some(body_len) = bytes.len().checked_sub(CHECKSUM_LEN + HEADER_LEN) else {
            return Err(Error::corrupted_at(
                path,
                0,
                format!(
                    "search file of {} bytes is shorter than its header and checksum",
                    bytes.len()
                ),
            ));
        };
        let body = bytes
            .get(HEADER_LEN..HEADER_LEN + body_len)
            .unwrap_or_default();
        let mut c = Cursor::at(body, path, HEADER_LEN as u64);
        let model = model_options(&mut c)?;
        let scale = f32::from_bits(c.u32()?);
        if !(scale.is_finite() && scale > 0.0) {
            return Err(c.error(format!("scale {scale}")));
        }
        let with_widths = header.version.has_word_widths();
        let widths = if with_widths { widths(&mut c)? } else { None };
        let image_record = match with_widths {
            true => IMAGE_RECORD,
            false => IMAGE_RECORD_BEFORE_WIDTHS,
        };
        let vocabulary_terms = c.u32()?;
        let classes = classes(&mut c)?;
        let books = books(&mut c, header.version)?;
        let ocr_words = ocr_words(&mut c, header.version.has_unread_words())?;
        let image_count = c.u32()? as usize;
        let images_at = c.skip(image_count, image_record, "image records")?;
        let expected: u64 = books.iter().map(|b| b.images as u64).sum();
        if expected != image_count as u64 {
            return Err(c.error_at(
                images_at,
                format!("{image_count} images, the books hold {expected}"),
            ));
        }
        let starts_at = c.skip(classes.len() + 1, 8, "column starts")?;
        let starts = body.get(starts_at..c.position()).unwrap_or_default();
        let mut previous = 0;
        for (i, start) in starts
            .chunks_exact(8)
            .map(LittleEndian::read_u64)
            .enumerate()
        {
            if start < previous || (i == 0 && start != 0) {
                return Err(c.error_at(starts_at + 8 * i, "column starts out of order"));
            }
            previous = start;
        }
        let entry_count = usize::try_from(previous)
            .map_err(|_| c.error_at(starts_at, "column entries past any file"))?;
        let entries_at = c.skip(entry_count, ENTRY, "column entries")?;
        c.finish()?;
        Ok(SearchFile {
            path: path.to_path_buf(),
            bytes,
            model,
            scale,
            widths,
            vocabulary_terms,
            classes,
            width_sets: width_sets(&books),
            books,
            ocr_index: OcrIndex::new(&ocr_words),
            ocr_words,
            image_count,
            images_at: HEADER_LEN + images_at,
            image_record,
            starts_at: HEADER_LEN + starts_at,
            entries_at: HEADER_LEN + entries_at,
            entry_count,
        })
    }

    /// Checks the checksum and every image record and column entry: boxes
    /// inside the page limits, OCR words and pages that exist, entries of
    /// existing images, ascending within a column, no value under the
    /// image's floor.
    pub fn check(&self) -> Result<()> {
        checked_body(&self.bytes, &self.path, 0)?;
        for (b, book) in self.books.iter().enumerate() {
            for i in book.first_image..book.first_image + book.images {
                let image = self.image(i as usize)?;
                if image.page as usize >= book.pages.len() {
                    return Err(self.image_error(
                        i as usize,
                        format!("page {} of book {b}'s {}", image.page, book.pages.len()),
                    ));
                }
            }
        }
        for column in 0..self.classes.len() {
            let mut previous: Option<u32> = None;
            self.for_each_entry(column as u16, &mut |image, value, _| {
                if previous.is_some_and(|p| p >= image) {
                    return Err(format!("images out of order in column {column}"));
                }
                previous = Some(image);
                let floor = self.floor_at(image as usize);
                if value < floor {
                    return Err(format!(
                        "value {value} under image {image}'s floor {floor} in column {column}"
                    ));
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    /// The model's options.
    pub fn model(&self) -> ModelOptions {
        self.model
    }

    /// Everything the file holds, read back as [`encode`] was given it:
    /// what an add that keeps the model extends. Reads every image record
    /// and column entry; a bad one is `Corrupted`.
    pub fn contents(&self) -> Result<SearchContents> {
        let images = (0..self.image_count)
            .map(|i| self.image(i))
            .collect::<Result<Vec<_>>>()?;
        let mut columns = Vec::with_capacity(self.classes.len());
        for column in 0..self.classes.len() {
            let mut entries = Vec::new();
            self.for_each_entry(column as u16, &mut |image, value, position| {
                entries.push((image, value, position));
                Ok(())
            })?;
            columns.push(entries);
        }
        Ok(SearchContents {
            model: self.model,
            scale: self.scale,
            widths: self.widths,
            vocabulary_terms: self.vocabulary_terms,
            classes: self.classes.clone(),
            books: self.books.clone(),
            ocr_words: self.ocr_words.clone(),
            images,
            columns,
        })
    }

    /// The scale stored values are fractions of.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// The widths the model expects of letters; none in a file before
    /// format 22, or when the model books held too few read words.
    pub fn widths(&self) -> Option<&WordWidths> {
        self.widths.as_ref()
    }

    /// Terms of the vocabulary the rows were computed with.
    pub fn vocabulary_terms(&self) -> u32 {
        self.vocabulary_terms
    }

    /// The modelled classes, ascending.
    pub fn classes(&self) -> &[Bigram] {
        &self.classes
    }

    /// The books, by image number.
    pub fn books(&self) -> &[SearchBook] {
        &self.books
    }

    /// The OCR word numbered `id`.
    pub fn ocr_word(&self, id: u32) -> Option<&str> {
        self.ocr_words.get(id as usize).map(String::as_str)
    }

    /// Column entries stored.
    pub fn entry_count(&self) -> usize {
        self.entry_count
    }

    /// Where it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes of the file.
    pub fn len_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// The book holding image `image` (by number) and the image's number
    /// within it.
    pub fn book_of(&self, image: u32) -> Option<(&SearchBook, u32)> {
        let book = self.books.get(self.book_index(image)?)?;
        Some((book, image - book.first_image))
    }

    /// The index in [`SearchFile::books`] of the book holding image
    /// `image`.
    fn book_index(&self, image: u32) -> Option<usize> {
        let i = (self.books).partition_point(|b| b.first_image + b.images <= image);
        let book = self.books.get(i)?;
        (image >= book.first_image).then_some(i)
    }

    /// The widths of the books that have widths of their own, in book
    /// order: width sets 1, 2, … of [`Rows::width_set`], as
    /// [`Query::with_book_widths`](crate::images::spot::Query::with_book_widths)
    /// takes them.
    pub fn own_widths(&self) -> impl Iterator<Item = &WordWidths> {
        self.books.iter().filter_map(|b| b.widths.as_ref())
    }

    /// Image `i`'s record.
    pub fn image(&self, i: usize) -> Result<SearchImage> {
        let record = self.record(i)?;
        let u32_at = |k: usize| LittleEndian::read_u32(record.get(k..k + 4).unwrap_or(&[0; 4]));
        let bbox = WordBox {
            x0: u32_at(4),
            y0: u32_at(8),
            x1: u32_at(12),
            y1: u32_at(16),
        };
        let ocr = u32_at(20);
        if bbox.is_empty() || bbox.x1 > MAX_COORDINATE || bbox.y1 > MAX_COORDINATE {
            return Err(self.image_error(i, format!("box {bbox:?}")));
        }
        if ocr as usize >= self.ocr_words.len() {
            return Err(self.image_error(i, format!("OCR word {ocr} of {}", self.ocr_words.len())));
        }
        Ok(SearchImage {
            page: u32_at(0),
            bbox,
            ocr,
            floor: self.floor_at(i),
            width: self.width_at(i),
        })
    }

    fn record(&self, i: usize) -> Result<&[u8]> {
        if i >= self.image_count {
            return Err(Error::corrupted(
                &self.path,
                format!("image {i} of {}", self.image_count),
            ));
        }
        let at = self.images_at + i * self.image_record;
        Ok(self
            .bytes
            .get(at..at + self.image_record)
            .unwrap_or_default())
    }

    fn image_error(&self, i: usize, what: String) -> Error {
        Error::corrupted_at(
            &self.path,
            (self.images_at + i * self.image_record) as u64,
            format!("image {i}: {what}"),
        )
    }

    fn floor_at(&self, i: usize) -> u16 {
        let at = self.images_at + i * self.image_record + IMAGE_RECORD_BEFORE_WIDTHS - 2;
        self.bytes.get(at..at + 2).map_or(0, LittleEndian::read_u16)
    }

    /// Image `i`'s stored width: 0 in a file before format 22.
    fn width_at(&self, i: usize) -> u16 {
        if self.image_record < IMAGE_RECORD {
            return 0;
        }
        let at = self.images_at + i * self.image_record + IMAGE_RECORD_BEFORE_WIDTHS;
        self.bytes.get(at..at + 2).map_or(0, LittleEndian::read_u16)
    }

    fn ocr_at(&self, i: usize) -> u32 {
        let at = self.images_at + i * self.image_record + 20;
        self.bytes.get(at..at + 4).map_or(0, LittleEndian::read_u32)
    }

    fn column_range(&self, column: u16) -> Option<(usize, usize)> {
        let at = self.starts_at + column as usize * 8;
        let bytes = self.bytes.get(at..at + 16)?;
        let start = LittleEndian::read_u64(bytes.get(..8)?) as usize;
        let end = LittleEndian::read_u64(bytes.get(8..)?) as usize;
        Some((start, end))
    }

    /// The bytes of `column`'s entries (none for a column the file does not
    /// have).
    fn column_entries(&self, column: u16) -> &[u8] {
        let Some((start, end)) = self.column_range(column) else {
            return &[];
        };
        let at = |entry: usize| self.entries_at.saturating_add(entry.saturating_mul(ENTRY));
        self.bytes.get(at(start)..at(end)).unwrap_or_default()
    }

    /// `Corrupted` at entry `k` of `column`.
    fn entry_error(&self, column: u16, k: usize, what: String) -> Error {
        let start = self.column_range(column).map_or(0, |(start, _)| start);
        Error::corrupted_at(
            &self.path,
            (self.entries_at + (start + k) * ENTRY) as u64,
            what,
        )
    }

    /// Calls `f` with every entry of `column`; stops at the first error
    /// `f` returns or the first entry of an image that does not exist,
    /// as `Corrupted` at the entry.
    fn for_each_entry(
        &self,
        column: u16,
        f: &mut dyn FnMut(u32, u16, u8) -> std::result::Result<(), String>,
    ) -> Result<()> {
        for (k, entry) in self.column_entries(column).chunks_exact(ENTRY).enumerate() {
            let image = LittleEndian::read_u32(entry);
            let value = LittleEndian::read_u16(entry.get(4..6).unwrap_or(&[0; 2]));
            let position = entry.get(6).copied().unwrap_or(0);
            let outcome = if image as usize >= self.image_count {
                Err(format!("entry of image {image} of {}", self.image_count))
            } else {
                f(image, value, position)
            };
            if let Err(what) = outcome {
                return Err(self.entry_error(column, k, what));
            }
        }
        Ok(())
    }
}

impl Rows for SearchFile {
    fn len(&self) -> usize {
        self.image_count
    }

    fn floor(&self, image: usize) -> u16 {
        self.floor_at(image)
    }

    fn width(&self, image: usize) -> u16 {
        self.width_at(image)
    }

    fn width_set(&self, image: usize) -> usize {
        if self.width_sets.is_empty() {
            return 0;
        }
        let book = u32::try_from(image).ok().and_then(|i| self.book_index(i));
        let set = book.and_then(|b| self.width_sets.get(b));
        set.map_or(0, |&set| set as usize)
    }

    fn ocr_id(&self, image: usize) -> usize {
        (self.ocr_at(image) as usize).min(self.ocr_words.len().saturating_sub(1))
    }

    fn ocr_words(&self) -> &[String] {
        &self.ocr_words
    }

    fn ocr_index(&self) -> &OcrIndex {
        &self.ocr_index
    }

    /// Finds the column's first entry of `images` by binary search, then
    /// reads on to the first entry past them. An entry of an image that
    /// does not exist (read when `images` ends at the last image) or out
    /// of order is `Corrupted`.
    fn for_each_kept_in(
        &self,
        column: u16,
        images: Range<u32>,
        mut f: impl FnMut(u32, u16, u8),
    ) -> Result<()> {
        let entries = self.column_entries(column).as_chunks::<ENTRY>().0;
        let image_of = |&[a, b, c, d, ..]: &[u8; ENTRY]| u32::from_le_bytes([a, b, c, d]);
        let from = entries.partition_point(|entry| image_of(entry) < images.start);
        let mut previous = images.start;
        for (k, entry) in entries.get(from..).unwrap_or_default().iter().enumerate() {
            let &[.., low, high, position] = entry;
            let image = image_of(entry);
            if image >= images.end && (image as usize) < self.image_count {
                break;
            }
            if image as usize >= self.image_count || image < previous {
                let what = match image < previous {
                    true => format!("images out of order in column {column}"),
                    false => format!("entry of image {image} of {}", self.image_count),
                };
                return Err(self.entry_error(column, from + k, what));
            }
            previous = image;
            f(image, u16::from_le_bytes([low, high]), position);
        }
        Ok(())
    }
}

fn model_options(c: &mut Cursor<'_>) -> Result<ModelOptions> {
    let at = c.position();
    let learning = match c.u8()? {
        0 => Learning::Union,
        1 => Learning::Intersection,
        other => return Err(c.error_at(at, format!("learning {other} (0 union, 1 intersection)"))),
    };
    let smoothing = f64::from_bits(c.u64()?);
    if !(0.0..=1.0).contains(&smoothing) {
        return Err(c.error_at(at + 1, format!("smoothing {smoothing}")));
    }
    Ok(ModelOptions {
        learning,
        smoothing,
        min_examples: c.u32()?,
    })
}

/// Writes `widths`: the spread (0 for none), then every symbol's width,
/// each an `f32`'s bits.
fn put_widths(out: &mut Vec<u8>, widths: Option<&WordWidths>) {
    let spread = widths.map_or(0.0, WordWidths::spread);
    put_u32(out, spread.to_bits());
    let symbols = widths.map_or([0.0; SYMBOLS], |w| *w.symbols());
    for width in symbols {
        put_u32(out, width.to_bits());
    }
}

/// The widths [`put_widths`] wrote: none for a spread of 0.
fn widths(c: &mut Cursor<'_>) -> Result<Option<WordWidths>> {
    let at = c.position();
    let spread = f32::from_bits(c.u32()?);
    let mut symbols = [0f32; SYMBOLS];
    for width in symbols.iter_mut() {
        *width = f32::from_bits(c.u32()?);
    }
    if spread == 0.0 && symbols.iter().all(|&w| w == 0.0) {
        return Ok(None);
    }
    match WordWidths::from_parts(symbols, spread) {
        Some(widths) => Ok(Some(widths)),
        None => Err(c.error_at(
            at,
            format!("widths of spread {spread}, not finite or not positive"),
        )),
    }
}

fn classes(c: &mut Cursor<'_>) -> Result<Vec<Bigram>> {
    let at = c.position();
    let n = c.u32()? as usize;
    if n > CLASSES {
        return Err(c.error_at(at, format!("{n} classes of {CLASSES}")));
    }
    let mut out: Vec<Bigram> = Vec::with_capacity(n);
    for _ in 0..n {
        let class_at = c.position();
        let class = c.u16()?;
        if class as usize >= CLASSES || out.last().is_some_and(|&last| last >= class) {
            return Err(c.error_at(class_at, format!("class {class} out of order or range")));
        }
        out.push(class);
    }
    Ok(out)
}

/// The books; `flagged`: each says whether it is a model book (format
/// 16), else every one is.
/// The books, their flags read from format 16 on and their own widths
/// from format 23 on.
fn books(c: &mut Cursor<'_>, version: FormatVersion) -> Result<Vec<SearchBook>> {
    let flagged = version.has_model_books();
    let known_flags = match version.has_own_vocabularies() {
        true => MODEL_BOOK | OWN_WIDTHS,
        false => MODEL_BOOK,
    };
    let at = c.position();
    let n = c.u32()? as usize;
    if n > c.remaining() / 20 {
        return Err(c.error_at(at, format!("{n} books run past the end")));
    }
    let mut out: Vec<SearchBook> = Vec::with_capacity(n);
    let mut next_image = 0u64;
    for _ in 0..n {
        let book_at = c.position();
        let key = c.string("key")?;
        let file = c.u32()?;
        let first_image = c.u32()?;
        let images = c.u32()?;
        if u64::from(first_image) != next_image || out.last().is_some_and(|last| last.key >= key) {
            return Err(c.error_at(
                book_at,
                format!("book {key:?} out of order (first image {first_image})"),
            ));
        }
        next_image += u64::from(images);
        let flags = if flagged { c.u8()? } else { MODEL_BOOK };
        if flags & !known_flags != 0 {
            return Err(c.error_at(book_at, format!("book {key:?}: unknown flags {flags}")));
        }
        let model_book = flags & MODEL_BOOK != 0;
        let widths = match flags & OWN_WIDTHS != 0 {
            true => Some(widths(c)?.ok_or_else(|| {
                c.error_at(book_at, format!("book {key:?}: own widths of spread 0"))
            })?),
            false => None,
        };
        let page_count = c.u32()? as usize;
        if page_count > c.remaining() / 4 {
            return Err(c.error_at(book_at, format!("{page_count} pages run past the end")));
        }
        let mut pages = Vec::with_capacity(page_count);
        for _ in 0..page_count {
            pages.push(c.string("page name")?);
        }
        out.push(SearchBook {
            key,
            file,
            first_image,
            images,
            pages,
            model_book,
            widths,
        });
    }
    if next_image > u64::from(u32::MAX) {
        return Err(c.error_at(at, "more images than numbers"));
    }
    Ok(out)
}

/// The distinct OCR words; one may be empty where `unread_words` (format
/// 21 on: the word images found from the ink alone).
fn ocr_words(c: &mut Cursor<'_>, unread_words: bool) -> Result<Vec<String>> {
    let at = c.position();
    let n = c.u32()? as usize;
    if n > c.remaining() / 4 {
        return Err(c.error_at(at, format!("{n} OCR words run past the end")));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let word_at = c.position();
        let word = c.string("OCR word")?;
        if (word.is_empty() && !unread_words) || word.len() > MAX_WORD_BYTES {
            return Err(c.error_at(word_at, format!("OCR word of {} bytes", word.len())));
        }
        out.push(word);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::images::likelihood::StoredRow;
    use crate::images::spot::{
        ocr_similarity, rank, row_scores, scores_of, Query, Ranking, Scores, SpotOptions,
    };
    use proptest::prelude::*;

    /// A search file of `rows` (one book), with OCR words `ocr`.
    fn contents(classes: &[Bigram], rows: &[StoredRow], ocr: &[String]) -> SearchContents {
        let mut words: Vec<String> = ocr.to_vec();
        words.sort();
        words.dedup();
        let mut columns = vec![Vec::new(); classes.len()];
        for (image, row) in rows.iter().enumerate() {
            for &(c, value, position) in &row.kept {
                columns[c as usize].push((image as u32, value, position));
            }
        }
        SearchContents {
            model: ModelOptions::default(),
            scale: 0.5,
            widths: WordWidths::from_parts([0.4; SYMBOLS], 0.2),
            vocabulary_terms: 16,
            classes: classes.to_vec(),
            books: vec![SearchBook {
                key: "k".into(),
                file: 1,
                first_image: 0,
                images: rows.len() as u32,
                pages: vec!["p.png".into()],
                model_book: true,
                widths: None,
            }],
            images: (rows.iter().zip(ocr).enumerate())
                .map(|(i, (row, word))| SearchImage {
                    page: 0,
                    bbox: WordBox {
                        x0: 1,
                        y0: 1,
                        x1: 9,
                        y1: 5,
                    },
                    ocr: words.binary_search(word).unwrap() as u32,
                    floor: row.floor,
                    width: 512 + (i as u16 * 701) % 4096,
                })
                .collect(),
            ocr_words: words,
            columns,
        }
    }

    /// A generated row: its floor, and its kept classes' values and
    /// positions by column.
    type GeneratedRow = (u16, std::collections::BTreeMap<u16, (u16, u8)>);

    /// Generated rows as stored rows.
    fn stored_rows(kept: &[GeneratedRow]) -> Vec<StoredRow> {
        kept.iter()
            .map(|(floor, kept)| StoredRow {
                floor: *floor,
                kept: kept.iter().map(|(&c, &(v, p))| (c, v, p)).collect(),
            })
            .collect()
    }

    /// `rows` generated rows over 12 classes, each keeping up to 8.
    fn generated_rows(rows: std::ops::Range<usize>) -> impl Strategy<Value = Vec<GeneratedRow>> {
        let kept = prop::collection::btree_map(0u16..12, (300u16..u16::MAX, any::<u8>()), 0..8);
        prop::collection::vec((0u16..300, kept), rows)
    }

    proptest! {
        /// Scores read from a stored search file, in place, equal scores
        /// computed from each image's own row on the fly.
        #[test]
        fn search_file_scores_equal_row_scores(
            kept in generated_rows(1..20),
            ocr in prop::collection::vec("(the|then|tea|xyz|The|THEN)", 20),
            query in "[ehtaxEH]{1,6}",
            weights in (0f64..=1.0, 0f64..=1.0, 0f64..=1.0),
            ignore_case in any::<bool>(),
        ) {
            let classes: Vec<Bigram> = (0..12).map(|c| c * 300 + 7).collect();
            let rows = stored_rows(&kept);
            let ocr = &ocr[..rows.len()];
            let bytes = encode(&contents(&classes, &rows, ocr));
            let file = SearchFile::decode(bytes, Path::new("x.wis")).unwrap();
            let options = SpotOptions { likelihood_weight: weights.0, image_weight: weights.1, ignore_case, width_weight: weights.2 };
            let q = Query::with_classes(&query, &classes, ignore_case).unwrap().with_widths(file.widths());
            let stored = scores_of(&file, &q, &options).unwrap();
            for (i, row) in rows.iter().enumerate() {
                let width = file.image(i).unwrap().width;
                let direct = row_scores(&q, row, ocr_similarity(&q, &ocr[i]), width, &options);
                prop_assert_eq!(direct, stored[i]);
            }
        }

        /// A ranking read from a stored search file, in blocks of any size
        /// on any number of cores, is the first `k` of every image's
        /// scores.
        #[test]
        fn a_search_file_ranks_as_its_scores_sort(
            kept in generated_rows(1..30),
            ocr in prop::collection::vec("(the|then|tea|xyz|The|THEN)", 30),
            query in "[ehtaxEH]{1,6}",
            ignore_case in any::<bool>(),
            (k, block, threads) in (0usize..8, 1u32..7, 1usize..4),
        ) {
            let classes: Vec<Bigram> = (0..12).map(|c| c * 300 + 7).collect();
            let rows = stored_rows(&kept);
            let bytes = encode(&contents(&classes, &rows, &ocr[..rows.len()]));
            let file = SearchFile::decode(bytes, Path::new("x.wis")).unwrap();
            let options = SpotOptions { ignore_case, ..SpotOptions::default() };
            let q = Query::with_classes(&query, &classes, ignore_case).unwrap().with_widths(file.widths());
            let mut every: Vec<(u32, Scores)> = (scores_of(&file, &q, &options).unwrap().into_iter().enumerate())
                .map(|(image, scores)| (image as u32, scores))
                .collect();
            every.sort_by(|a, b| b.1.combined.total_cmp(&a.1.combined).then(a.0.cmp(&b.0)));
            if k > 0 {
                every.truncate(k);
            }
            prop_assert_eq!(Ranking::new(&file, &q, &options, k, block).on(threads).unwrap(), every);
        }

        /// A book inserted into the contents of the books before and after
        /// it, then read back from the file, is the contents built with it;
        /// removing it gives those contents back.
        #[test]
        fn a_book_inserted_and_removed_renumbers_images_words_and_entries(
            sizes in prop::collection::vec(1usize..6, 2..5),
            at in any::<prop::sample::Index>(),
            kept in prop::collection::vec(
                (0u16..300, prop::collection::btree_map(0u16..6, (300u16..u16::MAX, any::<u8>()), 0..4)),
                30),
            ocr in prop::collection::vec("(the|then|tea|xyz|sea)", 30),
        ) {
            let classes: Vec<Bigram> = (0..6).map(|c| c * 300 + 7).collect();
            let rows = stored_rows(&kept);
            let at = at.index(sizes.len());
            let mut whole = SearchContents { books: Vec::new(), images: Vec::new(), ocr_words: Vec::new(), ..contents(&classes, &[], &[]) };
            whole.columns = vec![Vec::new(); classes.len()];
            let mut without = whole.clone();
            let mut next = 0;
            let mut inserted = None;
            for (b, &size) in sizes.iter().enumerate() {
                let book = SearchBook { key: format!("k{b}"), file: b as u32 + 1, first_image: 0, images: 0, pages: vec!["p.png".into()], model_book: b != at, widths: None };
                let bbox = WordBox { x0: 1, y0: 1, x1: 9, y1: 5 };
                let words: Vec<(u32, WordBox, &str, u16)> = ocr[next..next + size].iter().map(|w| (0, bbox, w.as_str(), 1024)).collect();
                let own = &rows[next..next + size];
                next += size;
                whole.insert_book(book.clone(), &words, own);
                if b == at {
                    inserted = Some((book, words, own));
                } else {
                    without.insert_book(book, &words, own);
                }
            }
            let (book, words, own) = inserted.unwrap();
            let mut with = without.clone();
            with.insert_book(book, &words, own);
            prop_assert_eq!(&with, &whole);
            let read = SearchFile::decode(encode(&with), Path::new("x.wis")).unwrap().contents().unwrap();
            prop_assert_eq!(&read, &whole);
            with.remove_book(&format!("k{at}"));
            prop_assert_eq!(with, without);
        }
    }

    #[test]
    fn an_image_found_from_the_ink_alone_has_the_empty_ocr_word_from_format_21() {
        let classes: Vec<Bigram> = (0..2).map(|c| c * 300 + 7).collect();
        let rows = stored_rows(&vec![(5, Default::default()); 2]);
        let ocr = ["", "the"].map(String::from);
        let bytes = encode(&contents(&classes, &rows, &ocr));
        let file = SearchFile::decode(bytes.clone(), Path::new("x.wis")).unwrap();
        assert_eq!(file.ocr_word(file.image(0).unwrap().ocr), Some(""));
        let older = encode_as(&contents(&classes, &rows, &ocr), header_of(20));
        let Err(error) = SearchFile::decode(older, Path::new("x.wis")) else {
            panic!("an empty OCR word before format 21 was read");
        };
        let message = error.to_string();
        assert!(message.contains("OCR word of 0 bytes"), "{message}");
    }

    /// A search file's header of format `version`.
    fn header_of(version: u16) -> FileHeader {
        FileHeader {
            version: FormatVersion::checked(version, Path::new("x.wis")).unwrap(),
            ..FileHeader::new(FileKind::ImageSearch)
        }
    }

    #[test]
    fn widths_are_stored_from_format_22_and_a_file_before_holds_none() {
        let classes: Vec<Bigram> = (0..2).map(|c| c * 300 + 7).collect();
        let rows = stored_rows(&vec![(5, Default::default()); 3]);
        let ocr = ["the", "tea", "xyz"].map(String::from);
        let written = contents(&classes, &rows, &ocr);
        let file = SearchFile::decode(encode(&written), Path::new("x.wis")).unwrap();
        assert_eq!(file.widths(), written.widths.as_ref());
        assert_eq!(file.contents().unwrap(), written);
        assert_eq!(file.width(2), written.images[2].width);
        let older = encode_as(&written, header_of(21));
        assert_eq!(older.len(), encode(&written).len() - 4 - 64 * 4 - 3 * 2);
        let file = SearchFile::decode(older, Path::new("x.wis")).unwrap();
        assert_eq!(file.widths(), None);
        assert_eq!((0..3).map(|i| file.width(i)).collect::<Vec<_>>(), [0, 0, 0]);
        assert_eq!(file.image(1).unwrap().floor, 5, "records of 26 bytes");
        let without = SearchContents {
            widths: None,
            ..written.clone()
        };
        let read = SearchFile::decode(encode(&without), Path::new("x.wis")).unwrap();
        assert_eq!(read.widths(), None);
    }

    #[test]
    fn a_book_s_own_widths_are_stored_from_format_23_and_hold_its_images() {
        let classes: Vec<Bigram> = (0..2).map(|c| c * 300 + 7).collect();
        let rows = stored_rows(&vec![(5, Default::default()); 4]);
        let ocr = ["the", "tea", "xyz", "sea"].map(String::from);
        let mut written = contents(&classes, &rows, &ocr);
        let own = WordWidths::from_parts([0.7; SYMBOLS], 0.3);
        let book = written.books[0].clone();
        written.books = vec![
            SearchBook {
                key: "k".into(),
                images: 2,
                widths: own,
                ..book.clone()
            },
            SearchBook {
                key: "l".into(),
                first_image: 2,
                images: 2,
                model_book: false,
                ..book
            },
        ];
        let path = Path::new("x.wis");
        let file = SearchFile::decode(encode(&written), path).unwrap();
        assert_eq!(file.contents().unwrap(), written);
        assert_eq!(
            (0..4).map(|i| file.width_set(i)).collect::<Vec<_>>(),
            [1, 1, 0, 0]
        );
        // Width sets number only the books with widths of their own.
        let mut second_only = written.clone();
        second_only.books[1].widths = second_only.books[0].widths.take();
        let file = SearchFile::decode(encode(&second_only), path).unwrap();
        assert_eq!(
            (0..5).map(|i| file.width_set(i)).collect::<Vec<_>>(),
            [0, 0, 1, 1, 0]
        );
        assert_eq!(file.own_widths().collect::<Vec<_>>(), [&own.unwrap()]);
        // Format 22: no own widths; every image held to the file's.
        let older = encode_as(&written, header_of(22));
        assert_eq!(older.len(), encode(&written).len() - 4 - 64 * 4);
        let file = SearchFile::decode(older.clone(), path).unwrap();
        assert!(file.books().iter().all(|b| b.widths.is_none()));
        assert_eq!(
            (0..4).map(|i| file.width_set(i)).collect::<Vec<_>>(),
            [0; 4]
        );
        // Book k's flags, after the model, scale, widths, terms, classes,
        // the book count, its key, file, first image and images.
        let flags_at = HEADER_LEN + 13 + 4 + 4 + 64 * 4 + 4 + (4 + 2 * 2) + 4 + (4 + 1) + 12;
        let mut unknown = older;
        assert_eq!(unknown[flags_at], MODEL_BOOK);
        unknown[flags_at] = MODEL_BOOK | OWN_WIDTHS;
        let body = unknown.len() - CHECKSUM_LEN;
        let sum = checksum(&unknown[..body]);
        unknown[body..].copy_from_slice(&sum.to_le_bytes());
        let Err(error) = SearchFile::decode(unknown, path) else {
            panic!("own widths read from a version-22 file");
        };
        assert!(error.to_string().contains("unknown flags 3"), "{error}");
    }

    #[test]
    fn widths_not_finite_or_of_no_spread_are_corrupt() {
        let classes: Vec<Bigram> = (0..2).map(|c| c * 300 + 7).collect();
        let rows = stored_rows(&vec![(5, Default::default()); 1]);
        let mut bytes = encode(&contents(&classes, &rows, &["the".to_string()]));
        let spread_at = HEADER_LEN + 1 + 8 + 4 + 4;
        for spread in [0f32, -1.0, f32::NAN] {
            bytes[spread_at..spread_at + 4].copy_from_slice(&spread.to_bits().to_le_bytes());
            let body = bytes.len() - CHECKSUM_LEN;
            let sum = checksum(&bytes[..body]);
            bytes[body..].copy_from_slice(&sum.to_le_bytes());
            let Err(error) = SearchFile::decode(bytes.clone(), Path::new("x.wis")) else {
                panic!("a spread of {spread} was read");
            };
            assert!(error.to_string().contains("widths of spread"), "{error}");
        }
    }

    /// A file of three images whose column 0 lists `entries`, read for
    /// its layout only (as a query opens it).
    fn file_with_column(entries: Vec<(u32, u16, u8)>) -> SearchFile {
        let classes: Vec<Bigram> = (0..2).map(|c| c * 300 + 7).collect();
        let rows = stored_rows(&vec![(5, Default::default()); 3]);
        let ocr = ["the", "tea", "xyz"].map(String::from);
        let mut contents = contents(&classes, &rows, &ocr);
        contents.columns[0] = entries;
        SearchFile::in_memory(encode(&contents), Path::new("x.wis")).unwrap()
    }

    #[test]
    fn a_query_meeting_an_entry_of_no_image_or_out_of_order_is_refused() {
        let query = |file: &SearchFile| {
            // A two-letter word whose bigrams take column 0.
            let classes = file.classes();
            let takes_column_0 = |word: &String| {
                let q = Query::with_classes(word, classes, false);
                q.is_some_and(|q| q.forms[0].contains(&Some(0)))
            };
            let letters = (b'!'..=b'~').map(char::from);
            let mut words =
                letters.flat_map(|a| (b'!'..=b'~').map(move |b| format!("{a}{}", b as char)));
            let word = words.find(takes_column_0).expect("a word of column 0");
            let q = Query::with_classes(&word, classes, false).unwrap();
            rank(file, &q, &SpotOptions::default(), 2)
        };
        assert!(query(&file_with_column(vec![(0, 9, 0), (2, 9, 1)])).is_ok());
        for (entries, expected) in [
            (vec![(0, 9, 0), (3, 9, 1)], "entry of image 3 of 3"),
            (
                vec![(2, 9, 0), (1, 9, 1)],
                "images out of order in column 0",
            ),
        ] {
            match query(&file_with_column(entries)) {
                Err(Error::Corrupted { what, .. }) => assert!(what.contains(expected), "{what}"),
                other => panic!("{other:?}"),
            }
        }
    }
}
