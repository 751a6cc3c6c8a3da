//! Text queries over an index's word images: the search file read in
//! place, each query ranked by [`super::spot`]'s score through the stored
//! matrix's columns, and the hits named by book, page, box and OCR word;
//! their crops are read from the books' files on demand.

use std::collections::BTreeMap;
use std::sync::Arc;

use image::GrayImage;

use crate::error::{Error, Result};
use crate::images::spot::{rank, Query, Rows, Scores, SpotOptions};
use crate::images::WordBox;
use crate::storage::image_search::SearchFile;
use crate::store::word_images::{book_path, read_book, search_path};
use crate::store::Store;

/// One word image found for a query.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SpotHit {
    /// The book's key.
    pub key: String,
    /// Its page, counted from 1.
    pub page: u32,
    /// The page image's file name.
    pub page_name: String,
    /// The word's box on the page, in pixels.
    pub bbox: WordBox,
    /// The word the OCR read there; empty for a word found from the ink
    /// alone, where the OCR boxed it otherwise or not at all.
    pub ocr: String,
    /// The score and its parts.
    pub scores: Scores,
    /// The word image's number in the index's search file.
    #[serde(skip)]
    pub image: u32,
}

/// The word images of an index, opened for queries (`Index::word_images`).
#[derive(Debug)]
pub struct WordImageSearch {
    store: Arc<Store>,
    file: SearchFile,
}

impl WordImageSearch {
    /// The word images of the index `store`, opened: the search file the
    /// catalog lists mapped and its layout checked; `None` when the index
    /// has no word images.
    pub(crate) fn open(store: &Arc<Store>) -> Result<Option<WordImageSearch>> {
        let Some(files) = store.catalog().snapshot()?.image_files()? else {
            return Ok(None);
        };
        let path = search_path(store, files.search.file);
        let file = SearchFile::open(&path)?;
        if file.len_bytes() as u64 != files.search.bytes {
            return Err(Error::corrupted(
                &path,
                format!(
                    "{} bytes where the catalog lists {}",
                    file.len_bytes(),
                    files.search.bytes
                ),
            ));
        }
        Ok(Some(WordImageSearch {
            store: store.clone(),
            file,
        }))
    }

    /// Number of word images.
    pub fn images(&self) -> usize {
        Rows::len(&self.file)
    }

    /// Number of books of word images.
    pub fn books(&self) -> usize {
        self.file.books().len()
    }

    /// Whether the model holds the widths expected of letters, which a
    /// query holds each image's width against: not when too few images
    /// had a read word, nor in an index upgraded from format 21 until
    /// its model is relearned.
    pub fn has_word_widths(&self) -> bool {
        self.file.widths().is_some()
    }

    /// Letter-bigram classes the model knows.
    pub fn classes(&self) -> usize {
        self.file.classes().len()
    }

    /// The distinct OCR words of the word images, ascending.
    pub fn ocr_words(&self) -> &[String] {
        Rows::ocr_words(&self.file)
    }

    /// Bytes of the search file (the stored matrix, the images' boxes and
    /// OCR words).
    pub fn search_bytes(&self) -> usize {
        self.file.len_bytes()
    }

    /// Everything the search file holds, read back (every record and
    /// entry): for tools that build other collections from it.
    #[cfg(feature = "internals")]
    pub fn contents(&self) -> Result<crate::storage::image_search::SearchContents> {
        self.file.contents()
    }

    /// The best `k` word images for the text `word` (all for 0), by
    /// combined score, ties by position in the index; `InvalidArgument`
    /// when the word has no letter or digit, or is longer than any word
    /// the OCR may give ([`crate::images::ocr::MAX_WORD_BYTES`]).
    pub fn spot(&self, word: &str, options: &SpotOptions, k: usize) -> Result<Vec<SpotHit>> {
        let most = crate::images::ocr::MAX_WORD_BYTES;
        if word.len() > most {
            return Err(Error::InvalidArgument(format!(
                "a query word of {} bytes: no word image is read as more than {most}",
                word.len()
            )));
        }
        let query = Query::with_classes(word, self.file.classes(), options.ignore_case)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{word:?} has no letter or digit: nothing to search for"
                ))
            })?
            .with_widths(self.file.widths())
            .with_book_widths(self.file.own_widths());
        rank(&self.file, &query, options, k)?
            .into_iter()
            .map(|(image, scores)| self.hit(image, scores))
            .collect()
    }

    fn hit(&self, image: u32, scores: Scores) -> Result<SpotHit> {
        let record = self.file.image(image as usize)?;
        let (book, _) = self
            .file
            .book_of(image)
            .ok_or_else(|| Error::InvalidArgument(format!("no word image {image} in the index")))?;
        let page_name = book.pages.get(record.page as usize).ok_or_else(|| {
            Error::corrupted(
                book_path(&self.store, book.file),
                format!(
                    "word image {image} on page {} of {}",
                    record.page,
                    book.pages.len()
                ),
            )
        })?;
        Ok(SpotHit {
            key: book.key.clone(),
            page: record.page + 1,
            page_name: page_name.clone(),
            bbox: record.bbox,
            ocr: self
                .file
                .ocr_word(record.ocr)
                .unwrap_or_default()
                .to_string(),
            scores,
            image,
        })
    }

    /// The crops of `hits`' word images, in order: each book file read
    /// (and checked) once, each page's crops decompressed once.
    pub fn crops(&self, hits: &[SpotHit]) -> Result<Vec<GrayImage>> {
        let entries: BTreeMap<String, _> = self
            .store
            .catalog()
            .snapshot()?
            .word_images()?
            .into_iter()
            .collect();
        let mut books = BTreeMap::new();
        let mut pages: BTreeMap<(String, u32), Vec<GrayImage>> = BTreeMap::new();
        let mut out = Vec::with_capacity(hits.len());
        for hit in hits {
            let (_, within) = self.file.book_of(hit.image).ok_or_else(|| {
                Error::InvalidArgument(format!("no word image {} in the index", hit.image))
            })?;
            let entry = entries
                .get(&hit.key)
                .filter(|e| {
                    self.file
                        .book_of(hit.image)
                        .is_some_and(|(b, _)| b.file == e.file)
                })
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "the word images of {:?} changed since the index was opened",
                        hit.key
                    ))
                })?;
            let book = match books.entry(hit.key.clone()) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(read_book(&self.store, &hit.key, entry)?)
                }
            };
            let page = hit.page.checked_sub(1).ok_or_else(|| {
                Error::InvalidArgument(format!("page 0 of {:?}: pages count from 1", hit.key))
            })?;
            let crops = match pages.entry((hit.key.clone(), page)) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(book.page_crops(page, &book_path(&self.store, entry.file))?)
                }
            };
            let first_on_page = book.words.iter().take_while(|w| w.page < page).count();
            let crop = (within as usize)
                .checked_sub(first_on_page)
                .and_then(|i| crops.get(i))
                .cloned()
                .ok_or_else(|| {
                    Error::corrupted(
                        book_path(&self.store, entry.file),
                        format!("no crop for word {within}"),
                    )
                })?;
            out.push(crop);
        }
        Ok(out)
    }
}
