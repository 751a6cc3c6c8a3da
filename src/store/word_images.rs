//! The word images of an index (format 9 on): adding a scanned book's
//! pages, relearning the model, listing the books, opening the search file
//! and checking the files.
//!
//! Adding a book reads and describes every page first (an error leaves
//! the index as it was), under the normalisation of the index's
//! vocabulary ([`normalisation`]: the default for an index without one),
//! then writes, in `images/`, numbered above every listed and present
//! file: the vocabulary file when the index has none
//! yet (learned from this book's descriptors; later books are quantised
//! by it, but for a book scored alone, quantised by a vocabulary learned
//! from its own descriptors with the index's branching and not kept:
//! only its terms are needed again), the book's file, and a new search
//! file: learned again from the books of the index's vocabulary, or the
//! old one with this book's rows added under the kept model, as
//! [`crate::store::image_model`] decides. Each file is synced,
//! then one catalog transaction lists the book under its key and the
//! vocabulary and search files in `meta`: that transaction is the moment
//! the index changes. The book file and search file it replaces are
//! removed after it. A file nothing lists was left by an add that stopped
//! before its transaction: readers never read it, and the next writer
//! removes it ([`crate::store::unlisted`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, IoContext, Result};
use crate::images::codebook::{Codebook, Vector};
use crate::images::descriptor::Normalisation;
use crate::images::learn::LearnOptions;
use crate::images::likelihood::PlacedTerm;
use crate::images::pages::{read_pages, Page, PageFiles};
use crate::images::parallel::par_map;
use crate::keys::invalid_key;
use crate::storage::catalog::CatalogSnapshot;
use crate::storage::format::sync_parent_dir;
use crate::storage::fs;
use crate::storage::image_search::{self, SearchFile};
use crate::storage::word_images::{
    self as files, ImageBook, ImageBookEntry, ImageFiles, ListedFile, StoredPage, StoredWord,
};
use crate::store::image_model::{self, ImageModel};
use crate::store::layout::IMAGE_DIR;
use crate::store::Store;

/// What the index holds about one book of word images.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ImageBookInfo {
    /// Its key.
    pub key: String,
    /// Its pages.
    pub pages: u32,
    /// Its word images.
    pub words: u64,
    /// Bytes of its book file.
    pub bytes: u64,
    /// Whether the model was learned from its word images.
    pub model_book: bool,
    /// The model after an add: learned again, or kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<ImageModel>,
    /// After an add: whether it was described by a vocabulary of its own
    /// and its rows computed by a model learned from its own word images
    /// alone, its images held to that model's widths (it holds at least
    /// the add's `learn_alone`, and the index another book; see
    /// storage-format.md 6.8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_model: Option<bool>,
    /// What went wrong after the add was committed (a replaced file not
    /// removed); empty but after an add.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Where adding a book of word images is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImagesProgress {
    /// Pages read and described so far, of the total.
    Pages {
        /// Read.
        done: usize,
        /// Given.
        total: usize,
    },
    /// Learning a visual vocabulary: the index's (its first book), or
    /// the book's own (a book scored alone).
    Vocabulary,
    /// Learning the model: from every book's word images, or, when the
    /// add keeps the model, from the model books' and the new book's.
    Model {
        /// Word images it learns from.
        images: usize,
    },
    /// Writing the files.
    Writing,
}

/// Kinds of numbered files in `images/`, by extension.
const EXTENSIONS: [&str; 3] = ["wib", "wiv", "wis"];

fn dir_of(store: &Store) -> PathBuf {
    store.dir().join(IMAGE_DIR)
}

/// The path of file `number` with `extension` in `images/`.
fn file_path(store: &Store, number: u32, extension: &str) -> PathBuf {
    dir_of(store).join(format!("{number:06}.{extension}"))
}

pub(crate) fn book_path(store: &Store, number: u32) -> PathBuf {
    file_path(store, number, "wib")
}

fn vocabulary_path(store: &Store, number: u32) -> PathBuf {
    file_path(store, number, "wiv")
}

pub(crate) fn search_path(store: &Store, number: u32) -> PathBuf {
    file_path(store, number, "wis")
}

/// The number of a numbered file's name (`000012.wib`).
fn number_of(name: &std::ffi::OsStr) -> Option<u32> {
    let (stem, extension) = name.to_str()?.split_once('.')?;
    if !EXTENSIONS.contains(&extension)
        || stem.is_empty()
        || !stem.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    stem.parse().ok()
}

/// Adds the book `key` of `pages` (see the module docs); a book of that
/// key already there is replaced.
pub(crate) fn add(
    store: &Arc<Store>,
    key: &str,
    pages: &[PageFiles],
    options: &LearnOptions,
    progress: &(dyn Fn(ImagesProgress) + Sync),
) -> Result<ImageBookInfo> {
    check_add(key, pages.len(), options)?;
    let total = pages.len();
    progress(ImagesProgress::Pages { done: 0, total });
    let read = read_pages(pages, normalisation(store)?, &|done| {
        progress(ImagesProgress::Pages { done, total })
    })?;
    add_read(store, key, read, options, progress)
}

/// How the pages of the next add must be described: as the words the
/// index's vocabulary quantises ([`Normalisation::BoxHeight`] for one
/// learned by format 18 or before), [`Normalisation::DEFAULT`] when the
/// index has no vocabulary yet.
pub(crate) fn normalisation(store: &Store) -> Result<Normalisation> {
    match store.catalog().snapshot()?.image_files()? {
        Some(files) => Ok(read_vocabulary(store, &files.vocabulary)?.normalisation()),
        None => Ok(Normalisation::DEFAULT),
    }
}

/// Refuses what an add of `pages` pages under `key` with `options` would
/// refuse before reading them: a bad key, no page, a branching outside
/// 1..=256.
pub(crate) fn check_add(key: &str, pages: usize, options: &LearnOptions) -> Result<()> {
    if let Some(error) = invalid_key(key) {
        return Err(error);
    }
    if pages == 0 {
        return Err(Error::InvalidArgument(format!(
            "no page images given for {key:?}"
        )));
    }
    if !(1..=256).contains(&options.branching) {
        return Err(Error::InvalidArgument(format!(
            "vocabulary branching {} outside 1..=256",
            options.branching
        )));
    }
    Ok(())
}

/// Adds the book `key` of pages already read ([`read_pages`]); see
/// [`add`].
pub(crate) fn add_read(
    store: &Arc<Store>,
    key: &str,
    read: Vec<Page>,
    options: &LearnOptions,
    progress: &(dyn Fn(ImagesProgress) + Sync),
) -> Result<ImageBookInfo> {
    check_add(key, read.len(), options)?;
    let word_count: usize = read.iter().map(|p| p.words.len()).sum();
    if word_count == 0 {
        return Err(Error::InvalidArgument(format!(
            "the OCR of the {} pages given for {key:?} has no word box",
            read.len()
        )));
    }
    let _writer = store.lock_writer()?;
    let snapshot = store.catalog().snapshot()?;
    let listed = snapshot.word_images()?;
    let listed_files = snapshot.image_files()?;
    drop(snapshot);
    let dir = dir_of(store);
    fs::refuse_link(&dir)?;
    if !dir.is_dir() {
        fs::create_dir_all(&dir)?;
        sync_parent_dir(&dir)?;
    }
    let mut numbers = Numbers::above(store, &listed, listed_files.as_ref())?;

    let (codebook, vocabulary) = match listed_files {
        Some(f) => {
            let codebook = read_vocabulary(store, &f.vocabulary)?;
            let vocabulary = "the index's vocabulary quantises words described";
            refuse_other_normalisation(&read, codebook.normalisation(), vocabulary)?;
            (codebook, f.vocabulary)
        }
        None => {
            progress(ImagesProgress::Vocabulary);
            let codebook = learn_vocabulary(&read, options)?;
            let bytes = files::encode_vocabulary(&codebook);
            let listed = numbers.write(store, "wiv", &bytes)?;
            (codebook, listed)
        }
    };
    let own_model = listed_files.is_some()
        && listed.iter().any(|(other, _)| other != key)
        && image_model::learns_alone(word_count, options.learn_alone);
    let book = match own_model {
        true => {
            progress(ImagesProgress::Vocabulary);
            let like_the_index = LearnOptions {
                branching: codebook.branching(),
                ..*options
            };
            let own = learn_vocabulary(&read, &like_the_index)?;
            describe_book(key, (&own, true), read)?
        }
        false => describe_book(key, (&codebook, false), read)?,
    };
    let book_bytes = files::encode_book(&book);
    let book_file = numbers.write(store, "wib", &book_bytes)?;
    let entry = ImageBookEntry {
        file: book_file.file,
        pages: book.pages.len() as u32,
        words: book.words.len() as u64,
        bytes: book_file.bytes,
        checksum: book_file.checksum,
    };
    // The old search file's layout says whether the add keeps its model;
    // only then is it read whole, checked, and carried over.
    let old = match &listed_files {
        Some(f) => Some(SearchFile::open(&search_path(store, f.search.file))?),
        None => None,
    };
    let kept = match (&old, &listed_files) {
        (Some(old), Some(f))
            if image_model::keeps_model(old, key, options.learn_from, own_model) =>
        {
            let old = read_search(store, &f.search)?;
            let model_books = match own_model {
                true => Vec::new(),
                false => read_model_books(store, &listed, &old)?,
            };
            progress(ImagesProgress::Model {
                images: (model_books.iter().chain([&book]))
                    .map(|b| b.words.len())
                    .sum(),
            });
            let codebook = codebook.clone();
            Some(image_model::with_book(
                codebook,
                &old,
                &model_books,
                options.learn_alone,
                key,
                entry.file,
                &book,
            )?)
        }
        _ => None,
    };
    let relearned = kept.is_none();
    let contents = match kept {
        Some(contents) => contents,
        None => {
            let mut books = read_books(store, &listed, Some(key))?;
            books.insert(key.to_string(), (entry.file, book));
            let model = old.as_ref().map_or(options.model, SearchFile::model);
            progress(ImagesProgress::Model {
                images: books.values().map(|(_, b)| b.words.len()).sum(),
            });
            image_model::relearned(codebook, &books, model, options.learn_alone)
        }
    };
    drop(old);
    progress(ImagesProgress::Writing);
    let search = numbers.write(store, "wis", &image_search::encode(&contents))?;
    fs::sync_dir(&dir)?;
    let files = ImageFiles { vocabulary, search };
    let (old_entry, old_files) = store
        .catalog()
        .put_word_images(Some((key, &entry)), &files)?;
    let mut replaced: Vec<PathBuf> = old_entry
        .map(|old| book_path(store, old.file))
        .into_iter()
        .collect();
    if let Some(old) = old_files {
        replaced.push(search_path(store, old.search.file));
        if old.vocabulary.file != vocabulary.file {
            replaced.push(vocabulary_path(store, old.vocabulary.file));
        }
    }
    Ok(ImageBookInfo {
        key: key.to_string(),
        pages: entry.pages,
        words: entry.words,
        bytes: entry.bytes,
        model_book: (contents.books.iter()).any(|b| b.key == key && b.model_book),
        model: Some(ImageModel::of(&contents, relearned)),
        own_model: Some(own_model),
        warnings: crate::store::unlisted::remove_after_commit(replaced),
    })
}

/// The numbers of new files: above every listed and present one.
struct Numbers {
    next: u32,
    dir: PathBuf,
}

impl Numbers {
    /// Numbers new files above every listed and present one (the writer
    /// role removed the unlisted ones).
    fn above(
        store: &Store,
        listed: &[(String, ImageBookEntry)],
        files: Option<&ImageFiles>,
    ) -> Result<Numbers> {
        let mut next = listed.iter().map(|(_, e)| e.file).max().unwrap_or(0);
        if let Some(f) = files {
            next = next.max(f.vocabulary.file).max(f.search.file);
        }
        let dir = dir_of(store);
        for entry in std::fs::read_dir(&dir).at(&dir)? {
            if let Some(n) = number_of(&entry.at(&dir)?.file_name()) {
                next = next.max(n);
            }
        }
        Ok(Numbers { next, dir })
    }

    /// Writes `bytes` as the next numbered file with `extension`, synced.
    fn write(&mut self, store: &Store, extension: &str, bytes: &[u8]) -> Result<ListedFile> {
        self.next = self.next.checked_add(1).ok_or_else(|| {
            Error::InvalidArgument(format!("{}: no file number left", self.dir.display()))
        })?;
        let path = file_path(store, self.next, extension);
        let mut file = fs::WriteFile::create_new(&path)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        Ok(ListedFile {
            file: self.next,
            bytes: bytes.len() as u64,
            checksum: files::stored_checksum(bytes).unwrap_or_default(),
        })
    }
}

/// Reads a listed file whole and checks its length and stored checksum
/// against the catalog's.
fn read_listed(path: &Path, listed: &ListedFile, what: &str) -> Result<Vec<u8>> {
    let bytes = std::fs::read(path).at(path)?;
    if bytes.len() as u64 != listed.bytes {
        return Err(Error::corrupted(
            path,
            format!(
                "{} bytes where the catalog lists {} for {what}",
                bytes.len(),
                listed.bytes
            ),
        ));
    }
    if files::stored_checksum(&bytes) != Some(listed.checksum) {
        return Err(Error::corrupted(
            path,
            format!("its checksum differs from the catalog's for {what}"),
        ));
    }
    Ok(bytes)
}

fn read_vocabulary(store: &Store, listed: &ListedFile) -> Result<Codebook> {
    let path = vocabulary_path(store, listed.file);
    let bytes = read_listed(&path, listed, "the vocabulary")?;
    files::decode_vocabulary(&bytes, &path)
}

/// Reads and checks the book file of `key`, listed with `entry`.
pub(crate) fn read_book(store: &Store, key: &str, entry: &ImageBookEntry) -> Result<ImageBook> {
    let path = book_path(store, entry.file);
    let listed = ListedFile {
        file: entry.file,
        bytes: entry.bytes,
        checksum: entry.checksum,
    };
    let bytes = read_listed(&path, &listed, &format!("book {key:?}"))?;
    let book = files::decode_book(&bytes, &path)?;
    let found = (
        book.key.as_str(),
        book.pages.len() as u32,
        book.words.len() as u64,
    );
    if found != (key, entry.pages, entry.words) {
        return Err(Error::corrupted(
            &path,
            format!(
                "it holds {found:?} (key, pages, words), the catalog lists ({key:?}, {}, {})",
                entry.pages, entry.words
            ),
        ));
    }
    Ok(book)
}

/// Reads and checks the search file listed as `listed` whole.
fn read_search(store: &Store, listed: &ListedFile) -> Result<SearchFile> {
    let path = search_path(store, listed.file);
    SearchFile::decode(read_listed(&path, listed, "the search file")?, &path)
}

/// Reads every listed book but the one of `except` (when given), by key,
/// each with its book file's number.
fn read_books(
    store: &Store,
    listed: &[(String, ImageBookEntry)],
    except: Option<&str>,
) -> Result<BTreeMap<String, (u32, ImageBook)>> {
    let mut books = BTreeMap::new();
    for (key, entry) in listed
        .iter()
        .filter(|(key, _)| Some(key.as_str()) != except)
    {
        books.insert(key.clone(), (entry.file, read_book(store, key, entry)?));
    }
    Ok(books)
}

/// Reads the model books of the search file `search`, in key order, each
/// checked against its catalog entry.
fn read_model_books(
    store: &Store,
    listed: &[(String, ImageBookEntry)],
    search: &SearchFile,
) -> Result<Vec<ImageBook>> {
    let mut books = Vec::new();
    for in_search in search.books().iter().filter(|b| b.model_book) {
        let entry = listed
            .iter()
            .find(|(key, _)| *key == in_search.key)
            .map(|(_, entry)| entry)
            .filter(|entry| entry.file == in_search.file)
            .ok_or_else(|| {
                Error::corrupted(
                    search.path(),
                    format!("book {:?} differs from the catalog's", in_search.key),
                )
            })?;
        books.push(read_book(store, &in_search.key, entry)?);
    }
    Ok(books)
}

/// Learns the model again from every book of word images of the index and
/// writes the search file of their rows (see [`image_model`]; a book of
/// the index's vocabulary of at least `learn_alone` word images scored
/// alone beside others), listed by one catalog transaction; the replaced
/// search file is removed after it.
/// `InvalidArgument` when the index has no word images.
pub(crate) fn relearn(
    store: &Arc<Store>,
    learn_alone: u64,
    progress: &(dyn Fn(ImagesProgress) + Sync),
) -> Result<(ImageModel, Vec<String>)> {
    let _writer = store.lock_writer()?;
    let snapshot = store.catalog().snapshot()?;
    let listed = snapshot.word_images()?;
    let listed_files = snapshot.image_files()?;
    drop(snapshot);
    let Some(old_files) = listed_files else {
        return Err(Error::InvalidArgument(format!(
            "{}: the index has no word images to learn a model from",
            store.dir().display()
        )));
    };
    let dir = dir_of(store);
    fs::refuse_link(&dir)?;
    let mut numbers = Numbers::above(store, &listed, Some(&old_files))?;
    let codebook = read_vocabulary(store, &old_files.vocabulary)?;
    let model = SearchFile::open(&search_path(store, old_files.search.file))?.model();
    let books = read_books(store, &listed, None)?;
    progress(ImagesProgress::Model {
        images: books.values().map(|(_, b)| b.words.len()).sum(),
    });
    let contents = image_model::relearned(codebook, &books, model, learn_alone);
    progress(ImagesProgress::Writing);
    let search = numbers.write(store, "wis", &image_search::encode(&contents))?;
    fs::sync_dir(&dir)?;
    let files = ImageFiles {
        vocabulary: old_files.vocabulary,
        search,
    };
    store.catalog().put_word_images(None, &files)?;
    let warnings =
        crate::store::unlisted::remove_after_commit([search_path(store, old_files.search.file)]);
    Ok((ImageModel::of(&contents, true), warnings))
}

/// Refuses pages described otherwise than `wanted`, the normalisation of
/// `whose` descriptors.
fn refuse_other_normalisation(pages: &[Page], wanted: Normalisation, whose: &str) -> Result<()> {
    match pages.iter().find(|p| p.normalisation != wanted) {
        Some(page) => Err(Error::InvalidArgument(format!(
            "page {}: its words were described by {}, but {whose} by {wanted}; read the pages \
             again for this index (Index::word_image_normalisation)",
            page.name, page.normalisation
        ))),
        None => Ok(()),
    }
}

/// The vocabulary learned from up to `options.sample` descriptors taken
/// evenly from the pages' words, under their normalisation.
fn learn_vocabulary(pages: &[Page], options: &LearnOptions) -> Result<Codebook> {
    let total: usize = pages
        .iter()
        .flat_map(|p| &p.words)
        .map(|w| w.keypoints.len())
        .sum();
    if total == 0 {
        return Err(Error::InvalidArgument(
            "no word box of these pages holds ink: there is nothing to learn a vocabulary from"
                .to_string(),
        ));
    }
    let stride = total.div_ceil(options.sample.max(1)).max(1);
    let sample: Vec<Vector> = pages
        .iter()
        .flat_map(|p| &p.words)
        .flat_map(|w| &w.keypoints)
        .step_by(stride)
        .map(|k| k.descriptor)
        .collect();
    let normalisation = pages
        .first()
        .map_or(Normalisation::DEFAULT, |p| p.normalisation);
    refuse_other_normalisation(pages, normalisation, "the first page's were")?;
    Ok(Codebook::train(&sample, options.branching, normalisation))
}

/// The book of `pages`, its words quantised by `codebook` (its own
/// vocabulary, learned from these pages, when `own`) on every core.
fn describe_book(
    key: &str,
    (codebook, own): (&Codebook, bool),
    pages: Vec<Page>,
) -> Result<ImageBook> {
    let stored_pages = pages
        .iter()
        .map(|p| StoredPage {
            name: p.name.clone(),
            width: p.width,
            height: p.height,
        })
        .collect();
    let words: Vec<(u32, crate::images::pages::PageWord)> = pages
        .into_iter()
        .enumerate()
        .flat_map(|(i, p)| p.words.into_iter().map(move |w| (i as u32, w)))
        .collect();
    let stored = par_map(&words, |(page, word)| {
        let mut terms: Vec<PlacedTerm> = word
            .keypoints
            .iter()
            .map(|k| PlacedTerm {
                term: codebook.quantise(&k.descriptor),
                x: k.x,
            })
            .collect();
        terms.truncate(files::MAX_TERMS_PER_WORD);
        (
            StoredWord {
                page: *page,
                bbox: word.bbox,
                ocr_box: word.ocr_box,
                unit: word.unit,
                ocr: word.ocr.clone(),
                terms,
                crop_width: 0,
            },
            word.crop.clone(),
        )
    });
    ImageBook::new(
        key.to_string(),
        (codebook.terms() as u32, own),
        stored_pages,
        stored,
    )
}

/// Every book of word images of the index, by key.
pub(crate) fn list(store: &Store) -> Result<Vec<ImageBookInfo>> {
    let snapshot = store.catalog().snapshot()?;
    let listed = snapshot.word_images()?;
    let model_books: std::collections::BTreeSet<String> = match snapshot.image_files()? {
        Some(files) => (SearchFile::open(&search_path(store, files.search.file))?.books())
            .iter()
            .filter(|b| b.model_book)
            .map(|b| b.key.clone())
            .collect(),
        None => Default::default(),
    };
    Ok(listed
        .into_iter()
        .map(|(key, e)| ImageBookInfo {
            model_book: model_books.contains(&key),
            model: None,
            own_model: None,
            warnings: Vec::new(),
            key,
            pages: e.pages,
            words: e.words,
            bytes: e.bytes,
        })
        .collect())
}

/// Checks every file of the word images of `snapshot`: each book file
/// against its entry, the vocabulary, and the search file whole (its
/// books equal the listed ones, its images their words); returns the
/// books and the bytes of all files.
pub(crate) fn verify(store: &Store, snapshot: &CatalogSnapshot<'_>) -> Result<(u64, u64)> {
    let listed = snapshot.word_images()?;
    let Some(files) = snapshot.image_files()? else {
        if let Some((key, _)) = listed.first() {
            return Err(Error::corrupted(
                store.dir().join("catalog.redb"),
                format!("book of word images {key:?} listed without a search file"),
            ));
        }
        return Ok((0, 0));
    };
    let codebook = read_vocabulary(store, &files.vocabulary)?;
    let search_file = search_path(store, files.search.file);
    let search = SearchFile::decode(
        read_listed(&search_file, &files.search, "the search file")?,
        &search_file,
    )?;
    let mismatch = |what: String| Err(Error::corrupted(&search_file, what));
    if search.vocabulary_terms() != codebook.terms() as u32 {
        return mismatch(format!(
            "rows of a vocabulary of {} terms, the vocabulary has {}",
            search.vocabulary_terms(),
            codebook.terms()
        ));
    }
    if search.books().len() != listed.len() {
        return mismatch(format!(
            "{} books, the catalog lists {}",
            search.books().len(),
            listed.len()
        ));
    }
    let mut bytes = files.vocabulary.bytes + files.search.bytes;
    for ((key, entry), in_search) in listed.iter().zip(search.books()) {
        let book = read_book(store, key, entry)?;
        bytes += entry.bytes;
        if (&in_search.key, in_search.file, in_search.images as u64)
            != (key, entry.file, entry.words)
            || in_search.pages.len() != book.pages.len()
        {
            return mismatch(format!(
                "its book {:?} differs from the catalog's",
                in_search.key
            ));
        }
        if book.vocabulary_terms != codebook.terms() as u32 {
            return Err(Error::corrupted(
                book_path(store, entry.file),
                "terms of another vocabulary",
            ));
        }
        for (i, word) in book.words.iter().enumerate() {
            let image = search.image(in_search.first_image as usize + i)?;
            if (image.page, image.bbox, search.ocr_word(image.ocr))
                != (word.page, word.bbox, Some(word.ocr.as_str()))
            {
                return mismatch(format!(
                    "word {i} of book {key:?} differs from its book file"
                ));
            }
        }
        for page in 0..book.pages.len() as u32 {
            book.page_crops(page, &book_path(store, entry.file))?;
        }
    }
    Ok((listed.len() as u64, bytes))
}
