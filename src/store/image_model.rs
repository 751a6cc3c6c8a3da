//! Which letter-bigram models a search file's rows are computed by, and the
//! search file an add or a relearn writes.
//!
//! The index's model is learned from the word images of the search file's
//! *model books*: it sets the classes (the columns), the scale rows are
//! quantised against, and the widths a query expects of a word's letters
//! ([`crate::images::widths`]). An add learns it again from every book,
//! the new one included (every book then a model book, every row
//! recomputed), while the model books hold fewer word images than
//! [`LearnOptions::learn_from`] or the add replaces one of them; otherwise
//! it keeps the model: the old file's rows are carried over, and only the
//! new book's are computed (see [`with_book`]). The widths are learned with
//! the model and kept with it: a search file written before format 22 has
//! none until the model is learned again. A relearn ([`relearned`] of
//! every book) makes every book a model book again.
//!
//! A book's own rows are computed by a model that has seen its face or
//! hand: a book of at least [`LearnOptions::learn_alone`] word images by
//! the model learned from its own word images alone, a smaller one by the
//! index's model (or, at a kept add, by the model learned from the model
//! books and the book). Either model's rows are taken over the index's
//! classes; the book's own model quantises them against its own scale. A
//! model learned mostly from other faces tells a book's words apart
//! poorly: in a library of three roman-type books, a handwritten book's
//! images alone scored 0.24 by such a model and 0.61 by its own
//! (benches/README.md, "A book scored by its own model"). An add thus
//! costs in proportion to the model books and the new book at most, not
//! to the collection.
//!
//! [`LearnOptions::learn_from`]: crate::images::learn::LearnOptions::learn_from
//! [`LearnOptions::learn_alone`]: crate::images::learn::LearnOptions::learn_alone

use std::collections::BTreeMap;

use crate::images::bigrams::Bigram;
use crate::images::codebook::Codebook;
use crate::images::learn::{par_map, widths_of, Learned, TermImage};
use crate::images::likelihood::StoredRow;
use crate::images::model::ModelOptions;
use crate::images::widths::stored_width;
use crate::storage::image_search::{SearchBook, SearchContents, SearchFile, SearchImage};
use crate::storage::word_images::ImageBook;

/// The model of a search file: whether the write that made it learned it
/// again, and what it was learned from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ImageModel {
    /// The model was learned again, and every row recomputed.
    pub relearned: bool,
    /// Books it was learned from (the model books).
    pub books: u32,
    /// Word images it was learned from.
    pub images: u64,
}

impl ImageModel {
    /// The model of `contents`.
    pub(crate) fn of(contents: &SearchContents, relearned: bool) -> ImageModel {
        ImageModel {
            relearned,
            books: contents.books.iter().filter(|b| b.model_book).count() as u32,
            images: model_images(&contents.books),
        }
    }
}

/// Whether an add of the book `key` keeps the model of `old`: its model
/// books hold at least `learn_from` word images, none of them under `key`.
pub(crate) fn keeps_model(old: &SearchFile, key: &str, learn_from: u64) -> bool {
    let replaces_a_model_book = (old.books().iter()).any(|b| b.model_book && b.key == key);
    model_images(old.books()) >= learn_from && !replaces_a_model_book
}

/// The word images of the model books among `books`.
fn model_images(books: &[SearchBook]) -> u64 {
    (books.iter())
        .filter(|b| b.model_book)
        .map(|b| u64::from(b.images))
        .sum()
}

/// The word images of `books` as the model learns from them and rows are
/// computed from them, in order.
fn term_images<'a>(books: impl IntoIterator<Item = &'a ImageBook>) -> Vec<TermImage> {
    (books.into_iter())
        .flat_map(|b| &b.words)
        .map(|w| TermImage {
            terms: w.terms.clone(),
            width: w.width_in_units(),
            ocr: w.ocr.clone(),
        })
        .collect()
}

/// Whether `book`'s rows are computed by a model learned from its own
/// word images alone: it holds at least `learn_alone`.
pub(crate) fn learns_alone(book: &ImageBook, learn_alone: u64) -> bool {
    book.words.len() as u64 >= learn_alone
}

/// The rows of `own`, one book's word images, by the model learned from
/// them alone, over `classes`, quantised against that model's scale.
fn rows_alone(
    codebook: &Codebook,
    own: &[TermImage],
    classes: &[Bigram],
    options: ModelOptions,
) -> Vec<StoredRow> {
    let learned = Learned::from_terms(codebook.clone(), own, options);
    par_map(own, |image| learned.row_over(image, classes, learned.scale))
}

/// `old` with the book `key` (its book file numbered `file`) added, or put
/// in place of the book of that key, not a model book: its rows computed
/// over `old`'s classes by its own model when it [`learns_alone`] with
/// `learn_alone` (`model_books` are then not needed, and may be empty),
/// else by the model learned from `model_books` (`old`'s model books, in
/// key order) and the book itself, quantised against `old`'s scale. So a
/// book of a face or hand the model books lack is scored by a model that
/// has seen it, and each such book's rows depend on the model books and
/// itself alone, whatever the order of the adds.
pub(crate) fn with_book(
    codebook: Codebook,
    old: &SearchFile,
    model_books: &[ImageBook],
    learn_alone: u64,
    key: &str,
    file: u32,
    book: &ImageBook,
) -> crate::Result<SearchContents> {
    let own = term_images([book]);
    let rows = if learns_alone(book, learn_alone) {
        rows_alone(&codebook, &own, old.classes(), old.model())
    } else {
        let mut training = term_images(model_books);
        training.extend(own.iter().cloned());
        let learned = Learned::from_terms(codebook, &training, old.model());
        drop(training);
        par_map(&own, |image| {
            learned.row_over(image, old.classes(), old.scale())
        })
    };
    let mut contents = old.contents()?;
    contents.remove_book(key);
    let words = (book.words.iter())
        .map(|w| {
            (
                w.page,
                w.bbox,
                w.ocr.as_str(),
                stored_width(w.width_in_units()),
            )
        })
        .collect::<Vec<_>>();
    contents.insert_book(search_book(key, file, book, false), &words, &rows);
    Ok(contents)
}

/// The search file of `books` (by key, each with its book file's number):
/// the model learned from all their word images with `options`, every
/// image's stored row (by its book's own model where the book
/// [`learns_alone`] with `learn_alone` and is not the only one), and the
/// columns; every book a model book.
pub(crate) fn relearned(
    codebook: Codebook,
    books: &BTreeMap<String, (u32, ImageBook)>,
    options: ModelOptions,
    learn_alone: u64,
) -> SearchContents {
    let terms = term_images(books.values().map(|(_, b)| b));
    let vocabulary_terms = codebook.terms() as u32;
    let learned = Learned::from_terms(codebook, &terms, options);
    let classes = learned.model.classes().to_vec();
    let mut rows = Vec::with_capacity(terms.len());
    let mut rest = terms.as_slice();
    for (_, book) in books.values() {
        let (own, after) = rest.split_at(book.words.len().min(rest.len()));
        rest = after;
        if books.len() > 1 && learns_alone(book, learn_alone) {
            rows.extend(rows_alone(&learned.codebook, own, &classes, options));
        } else {
            rows.extend(par_map(own, |image| learned.row(image)));
        }
    }
    let mut columns = vec![Vec::new(); classes.len()];
    for (image, row) in rows.iter().enumerate() {
        for &(c, value, position) in &row.kept {
            if let Some(list) = columns.get_mut(c as usize) {
                list.push((image as u32, value, position));
            }
        }
    }
    let mut ocr_ids: BTreeMap<&str, u32> = terms.iter().map(|i| (i.ocr.as_str(), 0)).collect();
    for (i, id) in ocr_ids.values_mut().enumerate() {
        *id = i as u32;
    }
    let mut search_books = Vec::with_capacity(books.len());
    let mut images = Vec::with_capacity(terms.len());
    for (key, (file, book)) in books {
        search_books.push(SearchBook {
            first_image: images.len() as u32,
            images: book.words.len() as u32,
            ..search_book(key, *file, book, true)
        });
        for word in &book.words {
            images.push(SearchImage {
                page: word.page,
                bbox: word.bbox,
                ocr: ocr_ids.get(word.ocr.as_str()).copied().unwrap_or(0),
                floor: rows.get(images.len()).map_or(0, |r| r.floor),
                width: stored_width(word.width_in_units()),
            });
        }
    }
    SearchContents {
        model: options,
        scale: learned.scale,
        widths: widths_of(&terms),
        vocabulary_terms,
        classes,
        books: search_books,
        ocr_words: ocr_ids.into_keys().map(str::to_string).collect(),
        images,
        columns,
    }
}

/// The search file's record of `book`, before [`SearchContents::insert_book`]
/// numbers its images.
fn search_book(key: &str, file: u32, book: &ImageBook, model_book: bool) -> SearchBook {
    SearchBook {
        key: key.to_string(),
        file,
        first_image: 0,
        images: 0,
        pages: book.pages.iter().map(|p| p.name.clone()).collect(),
        model_book,
    }
}
