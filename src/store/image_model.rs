//! Which letter-bigram models a search file's rows are computed by, and the
//! search file an add or a relearn writes.
//!
//! The index's model is learned from the word images of the search file's
//! *model books*, the books whose terms come from the index's vocabulary:
//! it sets the classes (the columns), the scale rows are quantised
//! against, and the widths a query expects of a word's letters
//! ([`crate::images::widths`]). An add learns it again from those books,
//! the new one included (each then a model book, every row recomputed),
//! while the model books hold fewer word images than
//! [`LearnOptions::learn_from`] or the add replaces one of them; otherwise
//! it keeps the model: the old file's rows are carried over, and only the
//! new book's are computed (see [`with_book`]). The widths are learned with
//! the model and kept with it: a search file written before format 22 has
//! none until the model is learned again. A relearn ([`relearned`]) makes
//! every book of the index's vocabulary a model book again.
//!
//! A book is scored by a model that has seen its face or hand. A book of
//! at least [`LearnOptions::learn_alone`] word images added to an index
//! that holds another is described by a vocabulary learned from its own
//! pages (`store::word_images`; its book file says so, format 23 on), and
//! its rows are computed by the model learned from its own word images
//! alone, over the index's classes, quantised against that model's own
//! scale; the search file holds that model's widths for its images. Such
//! a book is never a model book (its terms mean nothing under the index's
//! vocabulary), so its add keeps the model whatever `learn_from`. A book
//! of the index's vocabulary that holds `learn_alone` word images beside
//! another book is scored alone too at a relearn. A smaller book is scored
//! by the index's model (or, at a kept add, by the model learned from the
//! model books and the book). In a library of three roman-type books, a
//! handwritten book's images alone scored 0.24 by the roman books' model,
//! 0.61 by its own under the first book's vocabulary and widths, and 0.83
//! by its own vocabulary, model and widths, against 0.84 in an index of
//! its own (benches/README.md, "A book scored by its own model"). An add
//! thus costs in proportion to the model books and the new book at most,
//! not to the collection.
//!
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
use crate::images::learn::{widths_of, Learned, TermImage};
use crate::images::likelihood::StoredRow;
use crate::images::model::ModelOptions;
use crate::images::parallel::par_map;
use crate::images::widths::{stored_width, WordWidths};
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

/// Whether an add of the book `key` keeps the model of `old`: it
/// replaces no model book, and the book's terms come from a vocabulary of
/// its own (the model could not learn from them) or the model books hold
/// at least `learn_from` word images.
pub(crate) fn keeps_model(
    old: &SearchFile,
    key: &str,
    learn_from: u64,
    own_vocabulary: bool,
) -> bool {
    let replaces_a_model_book = (old.books().iter()).any(|b| b.model_book && b.key == key);
    !replaces_a_model_book && (own_vocabulary || model_images(old.books()) >= learn_from)
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

/// Whether a book holds enough word images to be scored alone: at least
/// `learn_alone`. Such a book, added to an index that holds another, is
/// described by a vocabulary of its own.
pub(crate) fn learns_alone(book_images: usize, learn_alone: u64) -> bool {
    book_images as u64 >= learn_alone
}

/// Whether `book`'s rows are computed by a model learned from its own
/// word images alone: its terms come from a vocabulary of its own, or
/// `beside_others` (the search file holds other books) and it
/// [`learns_alone`] with `learn_alone`.
fn scored_alone(book: &ImageBook, beside_others: bool, learn_alone: u64) -> bool {
    book.own_vocabulary || (beside_others && learns_alone(book.words.len(), learn_alone))
}

/// The rows of `own`, one book's word images, by the model learned from
/// them alone, over `classes`, quantised against that model's scale; and
/// the widths learned with it. `vocabulary` is one of as many terms as
/// the book's (the index's, or one learned like it).
fn scored_by_own_model(
    vocabulary: &Codebook,
    own: &[TermImage],
    classes: &[Bigram],
    options: ModelOptions,
) -> (Vec<StoredRow>, Option<WordWidths>) {
    let learned = Learned::from_terms(vocabulary.clone(), own, options);
    let rows = par_map(own, |image| learned.row_over(image, classes, learned.scale));
    (rows, widths_of(own))
}

/// `old` with the book `key` (its book file numbered `file`) added, or put
/// in place of the book of that key, not a model book: its rows computed
/// over `old`'s classes by its own model, its images held to that model's
/// widths, when its terms come from its own vocabulary or it
/// [`learns_alone`] with `learn_alone` (`model_books` are then not
/// needed, and may be empty); else by the model learned from
/// `model_books` (`old`'s model books, in key order) and the book itself,
/// quantised against `old`'s scale. So a book of a face or hand the model
/// books lack is scored by a model that has seen it, and each such book's
/// rows depend on the model books and itself alone, whatever the order of
/// the adds.
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
    let (rows, widths) = if scored_alone(book, true, learn_alone) {
        scored_by_own_model(&codebook, &own, old.classes(), old.model())
    } else {
        let mut training = term_images(model_books);
        training.extend(own.iter().cloned());
        let learned = Learned::from_terms(codebook, &training, old.model());
        drop(training);
        let rows = par_map(&own, |image| {
            learned.row_over(image, old.classes(), old.scale())
        });
        (rows, None)
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
    let in_search = SearchBook {
        widths,
        ..search_book(key, file, book, false)
    };
    contents.insert_book(in_search, &words, &rows);
    Ok(contents)
}

/// The search file of `books` (by key, each with its book file's number):
/// the model learned with `options` from the word images of the books
/// whose terms come from the index's vocabulary (every book when none
/// does), its widths, and every image's stored row, by the model of its
/// book when the book is scored alone (its terms come from its own
/// vocabulary, or it [`learns_alone`] with `learn_alone` and is not the
/// only book), its images then held to that model's widths; the model
/// books are those the model was learned from.
pub(crate) fn relearned(
    codebook: Codebook,
    books: &BTreeMap<String, (u32, ImageBook)>,
    options: ModelOptions,
    learn_alone: u64,
) -> SearchContents {
    let in_index_vocabulary = books.values().any(|(_, b)| !b.own_vocabulary);
    let model_book = |book: &ImageBook| !book.own_vocabulary || !in_index_vocabulary;
    let training = term_images(books.values().map(|(_, b)| b).filter(|b| model_book(b)));
    let vocabulary_terms = codebook.terms() as u32;
    let widths = widths_of(&training);
    let learned = Learned::from_terms(codebook, &training, options);
    drop(training);
    let classes = learned.model.classes().to_vec();
    let mut rows = Vec::new();
    let mut search_books = Vec::with_capacity(books.len());
    for (key, (file, book)) in books {
        let own = term_images([book]);
        let (book_rows, own_widths) = match scored_alone(book, books.len() > 1, learn_alone) {
            true => scored_by_own_model(&learned.codebook, &own, &classes, options),
            false => (par_map(&own, |image| learned.row(image)), None),
        };
        search_books.push(SearchBook {
            first_image: rows.len() as u32,
            images: book.words.len() as u32,
            widths: own_widths,
            ..search_book(key, *file, book, model_book(book))
        });
        rows.extend(book_rows);
    }
    let mut columns = vec![Vec::new(); classes.len()];
    for (image, row) in rows.iter().enumerate() {
        for &(c, value, position) in &row.kept {
            if let Some(list) = columns.get_mut(c as usize) {
                list.push((image as u32, value, position));
            }
        }
    }
    let words = || books.values().flat_map(|(_, b)| &b.words);
    let mut ocr_ids: BTreeMap<&str, u32> = words().map(|w| (w.ocr.as_str(), 0)).collect();
    for (i, id) in ocr_ids.values_mut().enumerate() {
        *id = i as u32;
    }
    let images = (words().zip(&rows))
        .map(|(word, row)| SearchImage {
            page: word.page,
            bbox: word.bbox,
            ocr: ocr_ids.get(word.ocr.as_str()).copied().unwrap_or(0),
            floor: row.floor,
            width: stored_width(word.width_in_units()),
        })
        .collect();
    SearchContents {
        model: options,
        scale: learned.scale,
        widths,
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
        widths: None,
    }
}
