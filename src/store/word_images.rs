//! The word images of an index (format 9): adding a scanned book's pages,
//! listing the books, opening the search file and checking the files.
//!
//! Adding a book reads and describes every page first (an error leaves
//! the index as it was), then writes, in `images/`, numbered above every
//! listed and present file: the vocabulary file when the index has none
//! yet (learned from this book's descriptors; later books are quantised
//! by it), the book's file, and a new search file built from every
//! listed book and this one (the letter-bigram model is learned again
//! from all their word images and OCR words, and every image's row
//! recomputed). Each file is synced, then one catalog transaction lists
//! the book under its key and the vocabulary and search files in `meta`:
//! that transaction is the moment the index changes. The book file and
//! search file it replaces are removed after it. A file nothing lists was
//! left by an add that stopped before its transaction: readers never read
//! it, and the next writer removes it ([`crate::store::unlisted`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, IoContext, Result};
use crate::images::codebook::{Codebook, Vector};
use crate::images::learn::{par_map, LearnOptions, Learned, TermImage};
use crate::images::likelihood::PlacedTerm;
use crate::images::pages::{read_pages, Page, PageFiles};
use crate::keys::invalid_key;
use crate::storage::catalog::CatalogSnapshot;
use crate::storage::format::sync_parent_dir;
use crate::storage::fs;
use crate::storage::image_search::{self, SearchBook, SearchContents, SearchFile, SearchImage};
use crate::storage::word_images::{
    self as files, ImageBook, ImageBookEntry, ImageFiles, ListedFile, StoredPage, StoredWord,
};
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
    /// Learning the visual vocabulary (the index's first book).
    Vocabulary,
    /// Learning the model from the collection's word images.
    Model {
        /// Word images of the collection.
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
    let read = read_pages(pages, &|done| {
        progress(ImagesProgress::Pages { done, total })
    })?;
    add_read(store, key, read, options, progress)
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
        Some(f) => (read_vocabulary(store, &f.vocabulary)?, f.vocabulary),
        None => {
            progress(ImagesProgress::Vocabulary);
            let codebook = learn_vocabulary(&read, options)?;
            let bytes = files::encode_vocabulary(&codebook);
            let listed = numbers.write(store, "wiv", &bytes)?;
            (codebook, listed)
        }
    };
    let book = describe_book(key, &codebook, read)?;
    let book_bytes = files::encode_book(&book);
    let book_file = numbers.write(store, "wib", &book_bytes)?;

    let mut books: BTreeMap<String, (u32, ImageBook)> = BTreeMap::new();
    for (other, entry) in &listed {
        if other != key {
            books.insert(other.clone(), (entry.file, read_book(store, other, entry)?));
        }
    }
    let entry = ImageBookEntry {
        file: book_file.file,
        pages: book.pages.len() as u32,
        words: book.words.len() as u64,
        bytes: book_file.bytes,
        checksum: book_file.checksum,
    };
    books.insert(key.to_string(), (book_file.file, book));
    let model_options = match &listed_files {
        Some(f) => SearchFile::open(&search_path(store, f.search.file))?.model(),
        None => options.model,
    };
    let images: usize = books.values().map(|(_, b)| b.words.len()).sum();
    progress(ImagesProgress::Model { images });
    let contents = search_contents(codebook, &books, model_options);
    progress(ImagesProgress::Writing);
    let search = numbers.write(store, "wis", &image_search::encode(&contents))?;
    fs::sync_dir(&dir)?;
    let files = ImageFiles { vocabulary, search };
    let (old_entry, old_files) = store.catalog().put_word_images(key, &entry, &files)?;
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

/// The vocabulary learned from up to `options.sample` descriptors taken
/// evenly from the pages' words.
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
    Ok(Codebook::train(&sample, options.branching))
}

/// The book of `pages`, its words quantised by `codebook` on every core.
fn describe_book(key: &str, codebook: &Codebook, pages: Vec<Page>) -> Result<ImageBook> {
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
                ocr: word.ocr.clone(),
                terms,
                crop_width: 0,
            },
            word.crop.clone(),
        )
    });
    ImageBook::new(
        key.to_string(),
        codebook.terms() as u32,
        stored_pages,
        stored,
    )
}

/// The search file of `books` (by key): the model learned from all their
/// word images, every image's stored row, and the columns.
fn search_contents(
    codebook: Codebook,
    books: &BTreeMap<String, (u32, ImageBook)>,
    options: crate::images::model::ModelOptions,
) -> SearchContents {
    let terms: Vec<TermImage> = books
        .values()
        .flat_map(|(_, b)| &b.words)
        .map(|w| TermImage {
            terms: w.terms.clone(),
            width: w.aspect(),
            ocr: w.ocr.clone(),
        })
        .collect();
    let vocabulary_terms = codebook.terms() as u32;
    let learned = Learned::from_terms(codebook, &terms, options);
    let rows = par_map(&terms, |image| learned.row(image));
    let classes = learned.model.classes().to_vec();
    let mut columns = vec![Vec::new(); classes.len()];
    for (image, row) in rows.iter().enumerate() {
        for &(c, value, position) in &row.kept {
            if let Some(list) = columns.get_mut(c as usize) {
                list.push((image as u32, value, position));
            }
        }
    }
    let mut ocr_ids: BTreeMap<&str, u32> = BTreeMap::new();
    for image in &terms {
        ocr_ids.insert(&image.ocr, 0);
    }
    for (i, id) in ocr_ids.values_mut().enumerate() {
        *id = i as u32;
    }
    let mut search_books = Vec::with_capacity(books.len());
    let mut images = Vec::with_capacity(terms.len());
    for (key, (file, book)) in books {
        search_books.push(SearchBook {
            key: key.clone(),
            file: *file,
            first_image: images.len() as u32,
            images: book.words.len() as u32,
            pages: book.pages.iter().map(|p| p.name.clone()).collect(),
        });
        for word in &book.words {
            images.push(SearchImage {
                page: word.page,
                bbox: word.bbox,
                ocr: ocr_ids.get(word.ocr.as_str()).copied().unwrap_or(0),
                floor: rows.get(images.len()).map_or(0, |r| r.floor),
            });
        }
    }
    SearchContents {
        model: options,
        scale: learned.scale,
        vocabulary_terms,
        classes,
        books: search_books,
        ocr_words: ocr_ids.into_keys().map(str::to_string).collect(),
        images,
        columns,
    }
}

/// Every book of word images of the index, by key.
pub(crate) fn list(store: &Store) -> Result<Vec<ImageBookInfo>> {
    Ok(store
        .catalog()
        .snapshot()?
        .word_images()?
        .into_iter()
        .map(|(key, e)| ImageBookInfo {
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
