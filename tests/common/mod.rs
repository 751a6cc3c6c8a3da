//! Helpers shared by the integration tests of the library and of the
//! command line (`cli/tests/common` adds the binary): small generated
//! collections, loading, reference sequences, fixtures and the corpus.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stemmata::repr::UniqueWordSeq;
use stemmata::{Document, Index, LoadOptions};
use stemmata_synth::{generate, SynthCollection, SynthOptions};

/// A generated collection of small books (works of `min..=max` words).
pub fn small_collection(families: usize, seed: u64, min: usize, max: usize) -> SynthCollection {
    let options = SynthOptions {
        min_words: min,
        max_words: max,
        vocab_size: 20_000,
        ..SynthOptions::with_families(families, seed)
    };
    generate(&options)
}

/// Documents for every book of `collection`, with titles and authors.
pub fn documents(collection: &SynthCollection) -> Vec<Document> {
    collection
        .books
        .iter()
        .map(|b| {
            Document::new(b.key.clone(), b.text.as_bytes())
                .with_title(b.title.clone())
                .with_author(b.author.clone())
        })
        .collect()
}

/// Loads `docs` with a loader that commits every `batch_books` books.
pub fn load_docs(index: &Index, docs: Vec<Document>, batch_books: usize) -> stemmata::LoadStats {
    let mut loader = index
        .bulk_loader(LoadOptions::default().batch_books(batch_books))
        .expect("loader");
    for doc in docs {
        loader.add(doc).expect("add");
    }
    let stats = loader.finish().expect("finish");
    assert!(
        stats.skipped.is_empty(),
        "unexpected skipped documents: {:?}",
        stats.skipped
    );
    stats
}

/// Loads `docs` in loads of `per_load` books, one after the other: each
/// load writes one segment, and a load of one segment merges nothing
/// while at most 8 are listed, so the index ends with a segment per load.
pub fn load_in_loads(index: &Index, docs: Vec<Document>, per_load: usize) {
    for chunk in docs.chunks(per_load) {
        load_docs(index, chunk.to_vec(), per_load);
    }
}

/// The sequence every key gets in a fresh index with default options.
pub fn reference_sequences(docs: &[Document]) -> BTreeMap<String, Vec<UniqueWordSeq>> {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    load_docs(&index, docs.to_vec(), 1000);
    sequences_of(&index)
}

/// Every key with its parts' sequences in a reader of `index`.
pub fn sequences_of(index: &Index) -> BTreeMap<String, Vec<UniqueWordSeq>> {
    let reader = index.reader().unwrap();
    reader
        .books()
        .iter()
        .map(|b| (b.key.clone(), reader.parts(&b.key).unwrap()))
        .collect()
}

/// Word `i` of a vocabulary of distinct pseudo-words in no alphabetical
/// order (so the alphabetical-list guard leaves them alone).
pub fn word(i: u32) -> String {
    letters(i.wrapping_mul(0x9E37_79B1))
}

/// Words `from..from + n` of [`word`]: ranges that overlap share text.
pub fn text(from: u32, n: u32) -> String {
    (from..from + n).map(word).collect::<Vec<_>>().join(" ")
}

/// The repository's root (the `stemmata` package, with `tests/fixtures`),
/// whichever package of the workspace these helpers are built in.
pub fn repo_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.ancestors().find(|d| d.join("tests/fixtures").is_dir());
    root.unwrap_or(here).to_path_buf()
}

/// Runs `command` to completion, capturing its output.
pub fn run(command: &mut Command) -> Output {
    command.output().expect("stemmata runs")
}

/// Standard error of `output` as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Writes each book as `DIR/KEY.txt`.
pub fn write_txt_books(dir: &Path, books: &[(String, String)]) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    books
        .iter()
        .map(|(key, text)| {
            let path = dir.join(format!("{key}.txt"));
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect()
}

/// Every file under `dir` (recursively) with its bytes.
pub fn snapshot_files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// What the index in `dir` holds: every file but the catalog byte for byte,
/// and what the catalog lists (opened read-only). Opening an index for
/// writing and closing it rewrites bookkeeping pages of the catalog
/// database without changing what it holds; this compares what it holds.
pub fn snapshot_index(dir: &Path) -> (BTreeMap<PathBuf, Vec<u8>>, String) {
    let mut files = snapshot_files(dir);
    files.remove(&dir.join("catalog.redb"));
    let index = Index::open_read_only(dir).unwrap();
    let reader = index.reader().unwrap();
    let listed = format!("{:?} {:?}", index.stats().unwrap(), reader.books());
    (files, listed)
}

/// Opens the old-format index in `dir` for writing and checks that loading
/// `doc` and deleting `delete_key` are both `OldFormat` (found `version`)
/// and that neither the open nor the refused writes changed a byte of it.
pub fn assert_writes_refused(dir: &Path, version: u16, doc: Document, delete_key: &str) {
    let before = snapshot_files(dir);
    let index = Index::open(dir).unwrap();
    for (what, result) in [
        ("load", index.load([Ok(doc)]).map(|_| ())),
        ("delete", index.delete(&[delete_key]).map(|_| ())),
    ] {
        match result {
            Err(stemmata::Error::OldFormat { path, found, .. }) => {
                assert_eq!((path.as_path(), found), (dir, version), "{what}")
            }
            other => panic!("{what}: expected OldFormat, got {other:?}"),
        }
    }
    assert!(index.is_read_only(), "an old format opens for reading only");
    drop(index);
    assert!(
        snapshot_files(dir) == before,
        "an open for writing or a refused write changed the index"
    );
}

/// Appends to the append-only file at `path` what a crash in the middle of
/// an append leaves: the first `copied` bytes of its first record, then
/// `noise` bytes of noise. Returns the file's new length.
pub fn append_torn_tail(path: &Path, copied: usize, noise: u32) -> u64 {
    use std::io::Write;
    let mut tail = std::fs::read(path).unwrap()[16..16 + copied].to_vec();
    tail.extend((0..noise).map(|i| (i * 31 % 251) as u8));
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(&tail).unwrap();
    file.metadata().unwrap().len()
}

/// The path of barrel `n` of the index in `dir`.
pub fn barrel(dir: &Path, n: u32) -> PathBuf {
    dir.join("barrels").join(format!("{n:06}.brl"))
}

/// Every pair `pairs` reports under `options`, keyed by `key(book a, book b)`,
/// with its score; a pair reported twice fails the test.
pub fn collect_pairs<K: Ord + std::fmt::Debug>(
    reader: &stemmata::Reader,
    options: &stemmata::PairsOptions,
    key: impl Fn(&stemmata::BookInfo, &stemmata::BookInfo) -> K,
) -> BTreeMap<K, f64> {
    let mut found = BTreeMap::new();
    reader
        .for_each_pair(
            options,
            |pair| {
                let k = key(pair.a, pair.b);
                if let Some(old) = found.insert(k, pair.score) {
                    panic!("pair reported twice (score {old})");
                }
                Ok(())
            },
            |_| {},
        )
        .unwrap();
    found
}

/// The labelled corpus at `../shared/corpus` (beside the repository), or
/// `None` (with a message) when it is missing; a missing corpus fails when
/// `CI` is set.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/corpus");
    if dir.join("pairs.tsv").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but the corpus is missing at {}",
        dir.display()
    );
    eprintln!("skipped: no corpus at {}", dir.display());
    None
}

/// Copies the directory tree `from` to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A copy of the fixture index of format `version` ("v1" .. "v4") in a
/// new temporary directory, upgraded in place (`Index::upgrade`): its
/// catalog converted to the current redb file format, and formats 3 and 4
/// made the current format.
pub fn upgraded_fixture(version: &str) -> tempfile::TempDir {
    let dir = fixture_copy(version);
    Index::upgrade(dir.path()).unwrap();
    dir
}

/// A copy of the fixture index of format `version` ("v1" .. "v5") in a
/// new temporary directory, as it is.
pub fn fixture_copy(version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = repo_root()
        .join("tests/fixtures")
        .join(version)
        .join("index");
    copy_dir(&fixture, dir.path());
    dir
}

/// Checks that the index in `dir`, written by a format before 5, is
/// `UpgradeRequired` whether opened for writing or reading, and that
/// neither open changed a byte of it.
pub fn assert_upgrade_required_and_untouched(dir: &Path) {
    let before = snapshot_files(dir);
    for result in [Index::open(dir), Index::open_read_only(dir)] {
        match result {
            Err(stemmata::Error::UpgradeRequired(path)) => assert_eq!(path, dir),
            other => panic!("expected UpgradeRequired, got {:?}", other.err()),
        }
    }
    assert!(snapshot_files(dir) == before, "a refused open wrote");
}

/// A distinct lower-case pseudo-word for `n` (base-26 letters).
pub fn letters(mut n: u32) -> String {
    let mut out = String::new();
    loop {
        out.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            return out;
        }
    }
}

/// Checks the fixture index in `dir`, written by format `version` (9 on:
/// four books, a dictionary and a book of word images, as
/// `tests/fixtures/v9/README.md` makes them): it opens read-only without
/// writing a byte, verifies, its files carry the version, the book of
/// word images is listed and searched, and a book is found inside the
/// volume in both modes.
pub fn assert_word_image_fixture_reads(dir: &Path, version: u16) {
    assert_word_image_fixture_reads_books(dir, version, &[("scan", true)], 32);
}

/// [`assert_word_image_fixture_reads`] of a fixture whose books of word
/// images are `books`, by key, each the fixture page, with whether it is
/// a model book.
pub fn assert_word_image_fixture_reads_books(
    dir: &Path,
    version: u16,
    books: &[(&str, bool)],
    words_per_book: u64,
) {
    use stemmata::images::spot::SpotOptions;
    use stemmata::storage::format::MAGIC;
    use stemmata::{Mode, QueryOptions};
    let before = snapshot_files(dir);
    let index = Index::open_read_only(dir).unwrap();
    assert_eq!(index.format_version(), version);
    let verified = index.verify().unwrap();
    assert_eq!(
        (
            verified.books,
            verified.records,
            verified.segments,
            verified.dictionaries,
            verified.image_books,
        ),
        (4, 8, 1, 1, books.len() as u64)
    );
    for (sub, kinds) in [
        ("barrels", &[1u8][..]),
        ("segments", &[2]),
        ("pages", &[3]),
        ("dictionaries", &[4]),
        ("images", &[5, 6, 7]),
    ] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            assert_eq!(
                (&bytes[..8], &bytes[8..10]),
                (&MAGIC[..], &version.to_le_bytes()[..])
            );
            assert!(kinds.contains(&bytes[10]), "{sub}: kind {}", bytes[10]);
        }
    }
    let listed: Vec<(&str, u32, u64, bool)> = books
        .iter()
        .map(|&(key, model)| (key, 1, words_per_book, model))
        .collect();
    let found = index.image_books().unwrap();
    let found: Vec<(&str, u32, u64, bool)> = (found.iter())
        .map(|b| (b.key.as_str(), b.pages, b.words, b.model_book))
        .collect();
    assert_eq!(found, listed);
    let search = index.word_images().unwrap().unwrap();
    assert_eq!(
        (search.books(), search.images()),
        (books.len(), words_per_book as usize * books.len())
    );
    let hits = search.spot("garden", &SpotOptions::default(), 2).unwrap();
    assert!(hits.iter().all(|h| h.ocr.starts_with("garden")), "{hits:?}");
    assert!(hits.iter().all(|h| books.iter().any(|b| b.0 == h.key)
        && h.page == 1
        && h.page_name == "scan-0001.png"));
    let crops = search.crops(&hits).unwrap();
    assert!(crops.iter().all(|c| c.height() == 32 && c.width() > 100));
    drop(search);
    let reader = index.reader().unwrap();
    let keys: Vec<&str> = reader.books().iter().map(|b| b.key.as_str()).collect();
    assert_eq!(keys, ["alpha", "beta", "gamma", "volume"]);
    for mode in [Mode::Exact, Mode::Approximate] {
        let hits = reader
            .query_key("alpha", &QueryOptions::default().mode(mode))
            .unwrap()
            .hits;
        assert!(hits.iter().any(|h| h.key == "volume"), "{mode:?}");
    }
    drop(reader);
    drop(index);
    assert!(snapshot_files(dir) == before, "a read-only open wrote");
}

/// Adding the scanned page of the word-image fixture `fixture` (format 9
/// on: `fixture/pages/scan-0001.png` and its hOCR) to `index` as book
/// `again`.
pub fn add_fixture_page_again(index: &Index, fixture: &Path) -> stemmata::Result<()> {
    let page = fixture.join("pages/scan-0001.png");
    let files = [stemmata::images::pages::PageFiles::beside(&page).unwrap()];
    let options = stemmata::images::learn::LearnOptions::default();
    index
        .add_word_images("again", &files, &options, &|_| {})
        .map(drop)
}

/// The word images this build finds on the fixtures' page: its 32 OCR
/// words, "through:the" split in two where the ink shows the gap (format
/// 18 on; the book files of earlier fixtures hold 32).
pub const FIXTURE_PAGE_WORDS: usize = 33;

/// Reads the first book file (`scan`) of a word-image fixture of format
/// 18 on, in `fixture`, and asserts that it holds
/// [`FIXTURE_PAGE_WORDS`] word images, each box inside its OCR's box, the
/// OCR's "through:the" split in two where the ink shows the gap; returns
/// the book.
pub fn assert_fixture_book_keeps_split_words(
    fixture: &Path,
) -> stemmata::storage::word_images::ImageBook {
    use stemmata::images::WordBox;
    let path = fixture.join("index/images/000002.wib");
    let bytes = std::fs::read(&path).unwrap();
    let book = stemmata::storage::word_images::decode_book(&bytes, &path).unwrap();
    assert_eq!(book.key, "scan");
    assert_eq!(book.words.len(), FIXTURE_PAGE_WORDS);
    let joined = WordBox {
        x0: 91,
        y0: 179,
        x1: 251,
        y1: 206,
    };
    let split: Vec<_> = (book.words.iter())
        .filter(|w| w.ocr_box == joined)
        .map(|w| (w.ocr.as_str(), w.bbox))
        .collect();
    assert_eq!(split.len(), 2, "{split:?}");
    assert_eq!((split[0].0, split[1].0), ("through:", "the"));
    assert!(split[0].1.x1 < split[1].1.x0, "{split:?}");
    for word in &book.words {
        let (b, o) = (word.bbox, word.ocr_box);
        assert!(o.x0 <= b.x0 && o.y0 <= b.y0 && b.x1 <= o.x1 && b.y1 <= o.y1);
    }
    book
}

/// The fixture page added again ([`add_fixture_page_again`]) to a copy of
/// a word-image fixture: one book more, of [`FIXTURE_PAGE_WORDS`] word
/// images, the query `garden` finds `garden` words with the fixture's
/// vocabulary (branching 4, not relearned), and the index verifies.
pub fn assert_takes_fixture_page_again(index: &Index, fixture: &Path) {
    use stemmata::images::spot::SpotOptions;
    let books = index.image_books().unwrap().len() + 1;
    let before = index.word_images().unwrap().map_or(0, |s| s.images());
    add_fixture_page_again(index, fixture).unwrap();
    let search = index.word_images().unwrap().unwrap();
    assert_eq!(
        (search.books(), search.images()),
        (books, before + FIXTURE_PAGE_WORDS)
    );
    let hits = search.spot("garden", &SpotOptions::default(), 4).unwrap();
    assert!(hits.iter().all(|h| h.ocr.starts_with("garden")), "{hits:?}");
    drop(search);
    assert_eq!(index.verify().unwrap().image_books, books as u64);
}

/// A copy of the fixture `version` (of format `from`, files in `fixture`)
/// refuses a write until it is upgraded; the upgrade, one catalog
/// transaction, keeps its segments, and the upgraded copy then takes the
/// fixture's page of word images again.
pub fn assert_upgrade_keeps_segments_and_takes_a_page(version: &str, from: u16, fixture: &Path) {
    let dir = fixture_copy(version);
    let refused = add_fixture_page_again(&Index::open(dir.path()).unwrap(), fixture);
    assert!(
        matches!(refused, Err(stemmata::Error::OldFormat { found, .. }) if found == from),
        "{refused:?}"
    );
    let segments = dir.path().join("segments");
    let before = snapshot_files(&segments);
    let (index, stats) = Index::upgrade(dir.path()).unwrap();
    assert_eq!(
        (stats.from_version, stats.to_version),
        (from, stemmata::storage::format::FORMAT_VERSION)
    );
    assert_eq!(snapshot_files(&segments), before, "segments kept");
    assert_takes_fixture_page_again(&index, fixture);
}

/// Asserts that each live book of a fixture's `segment` whose text is in
/// `fixture`'s `texts/` or `later/` has one passage, the unique first six
/// letters of its words (as many as its whole-book sequence's elements).
pub fn assert_fixture_passages(segment: &stemmata::storage::segment::Segment, fixture: &Path) {
    use stemmata::repr::passages::book_passages;
    use stemmata::repr::unique_words::extract;
    use stemmata::repr::ExtractOptions;
    assert!(segment.stores_passages());
    let passages = segment.passage_view().unwrap();
    let mut checked = 0;
    for (position, entry, text) in fixture_books_with_texts(segment, fixture) {
        let expected = book_passages(&text, &ExtractOptions::default());
        let range = passages.book_parts(position);
        assert_eq!((range.len(), expected.len()), (1, 1), "{}", entry.key);
        assert_eq!(
            passages.part_hashes(range.start).to_vec(),
            expected[0].hashes,
            "{}",
            entry.key
        );
        // Its words' first six letters are as distinct as its words here:
        // as many elements as the whole-book sequence.
        let whole = extract(&text, &ExtractOptions::default()).sequence;
        assert_eq!(expected[0].len(), whole.len(), "{}", entry.key);
        checked += 1;
    }
    assert!(checked >= 4, "{checked} books checked");
}

/// A copy of fixture `version`, upgraded, into which one more book was
/// loaded (with passages: the fixtures hold a dictionary): the index, and
/// its fixture segment and the load's new one, each checked whole.
pub fn upgraded_fixture_with_a_new_segment(
    version: &str,
) -> (
    tempfile::TempDir,
    Index,
    stemmata::storage::segment::Segment,
    stemmata::storage::segment::Segment,
) {
    use stemmata::storage::segment::Segment;
    let dir = fixture_copy(version);
    let (index, _) = Index::upgrade(dir.path()).unwrap();
    let text = "A lighthouse keeper writes letters to the sea every night.";
    index.load([Ok(Document::new("epsilon", text))]).unwrap();
    let segments = dir.path().join("segments");
    let old = Segment::open_checked(&segments.join("000001.seg")).unwrap();
    let new: Vec<PathBuf> = std::fs::read_dir(&segments)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("000001.seg"))
        .collect();
    assert_eq!(new.len(), 1, "{new:?}");
    let new = Segment::open_checked(&new[0]).unwrap();
    (dir, index, old, new)
}

/// Every (table, key, book id) of `segment`'s books, sorted, and whether a
/// lookup of each key lists its book.
pub fn keys_found(segment: &stemmata::storage::segment::Segment) -> (Vec<(usize, u64, u32)>, bool) {
    use stemmata::repr::sketch::Table;
    let ids: Vec<u32> = segment.books().map(|(id, _, _)| id).collect();
    let mut keys = Vec::new();
    let mut found = true;
    for (slot, &id) in ids.iter().enumerate() {
        for table in Table::ALL {
            for key in segment.book_keys(slot, table) {
                found &= segment.lookup(table, key).any(|b| b == id);
                keys.push((table as usize, key, id));
            }
        }
    }
    keys.sort_unstable();
    (keys, found)
}

/// The fixture `version`, upgraded, and a book loaded into it: its old
/// segment merged with the new one (of the current format) keeps every
/// book's keys, each found again, and the compaction of the index does the
/// same merge.
pub fn assert_merge_with_a_current_segment_keeps_every_key(version: &str, from: u16) {
    use stemmata::storage::format::FORMAT_VERSION;
    use stemmata::storage::segment::Segment;
    use stemmata::storage::segment_merge::{merge, Fate};
    let (_dir, mut index, old, new) = upgraded_fixture_with_a_new_segment(version);
    assert_eq!(
        (old.version().number(), new.version().number()),
        (from, FORMAT_VERSION)
    );
    let bytes = merge(&[&old, &new], |_| Fate::Keep).unwrap();
    let merged = Segment::decode(bytes, Path::new("merged")).unwrap();
    assert_eq!(merged.version().number(), FORMAT_VERSION);
    let (old_keys, old_found) = keys_found(&old);
    let (new_keys, new_found) = keys_found(&new);
    let (merged_keys, merged_found) = keys_found(&merged);
    assert!(old_found && new_found && merged_found);
    let mut expected = [old_keys, new_keys].concat();
    expected.sort_unstable();
    assert_eq!(merged_keys, expected);
    assert!(expected.len() > 5 * 100, "{} keys", expected.len());
    index.compact().unwrap();
    assert_eq!(index.verify().unwrap().books, 5);
}

/// Asserts that the index of `fixture` makes its shingles by `scheme`: its
/// sketch options say so, and each stored book whose text is in `texts/`
/// or `later/` holds the book signature of that text by `scheme` (and not
/// by the other one).
pub fn assert_sketch_of_text_is_stored(fixture: &Path, scheme: stemmata::repr::ShingleHash) {
    use stemmata::repr::{book_signature, ShingleHash};
    let index = Index::open_read_only(fixture.join("index")).unwrap();
    let mut options = index.sketch_options().unwrap().book;
    assert_eq!(options.shingle_hash, scheme);
    let segment = stemmata::storage::segment::Segment::open_checked(
        &fixture.join("index/segments/000001.seg"),
    )
    .unwrap();
    let mut checked = 0;
    for (position, entry, text) in fixture_books_with_texts(&segment, fixture) {
        let stored = segment.minhash(position);
        assert_eq!(stored, book_signature(&text, &options), "{}", entry.key);
        options.shingle_hash = match scheme {
            ShingleHash::JoinedWords => ShingleHash::WordHashes,
            ShingleHash::WordHashes => ShingleHash::JoinedWords,
        };
        assert_ne!(stored, book_signature(&text, &options), "{}", entry.key);
        options.shingle_hash = scheme;
        checked += 1;
    }
    assert!(checked >= 3, "{checked} books checked");
}

/// Each book of a fixture's `segment` whose text is in `fixture`'s `texts/`
/// or `later/`: its position, its entry and its text.
fn fixture_books_with_texts(
    segment: &stemmata::storage::segment::Segment,
    fixture: &Path,
) -> Vec<(usize, stemmata::storage::catalog::BookEntry, String)> {
    (0..segment.book_count())
        .filter_map(|position| {
            let (entry, _) = segment.entry(position).unwrap();
            let path = ["texts", "later"]
                .iter()
                .map(|dir| fixture.join(dir).join(format!("{}.txt", entry.key)))
                .find(|path| path.exists())?;
            let text = std::fs::read_to_string(path).unwrap();
            Some((position, entry, text))
        })
        .collect()
}

/// Every image's combined and images-alone scores for `word`, by book and
/// box.
fn spot_scores(index: &Index, word: &str) -> Vec<(String, [u32; 4], [u64; 2])> {
    use stemmata::images::spot::SpotOptions;
    let search = index.word_images().unwrap().unwrap();
    let mut out: Vec<_> = (search.spot(word, &SpotOptions::default(), 0).unwrap())
        .into_iter()
        .map(|h| {
            let b = h.bbox;
            let scores = [h.scores.combined.to_bits(), h.scores.image.to_bits()];
            (h.key, [b.x0, b.y0, b.x1, b.y1], scores)
        })
        .collect();
    out.sort_unstable();
    out
}

/// Adds the fixture's page as `scan-again` to `index` (a writable copy of
/// the fixture without that book, or with it) under the model kept from
/// `scan`, and asserts that every image scores as the fixture's index
/// holds them (two books).
pub fn assert_adds_the_book_under_the_kept_model_as_held(index: &Index, fixture: &Path) {
    let options = stemmata::images::learn::LearnOptions {
        learn_from: 1,
        ..Default::default()
    };
    assert_adds_the_book_as_held(index, fixture, "scan-again", &options, 2);
    let info = index.image_books().unwrap();
    assert!(info.iter().any(|b| b.key == "scan-again" && !b.model_book));
}

/// Adds the fixture's page as `key` to `index` (a writable copy of the
/// fixture) with `options`, the model kept, and asserts that every image
/// of its `books` books of word images scores as the fixture's index holds
/// them.
pub fn assert_adds_the_book_as_held(
    index: &Index,
    fixture: &Path,
    key: &str,
    options: &stemmata::images::learn::LearnOptions,
    books: usize,
) {
    let fixture_index = Index::open_read_only(fixture.join("index")).unwrap();
    let page = fixture.join("pages/scan-0001.png");
    let files = [stemmata::images::pages::PageFiles::beside(&page).unwrap()];
    let info = index
        .add_word_images(key, &files, options, &|_| {})
        .unwrap();
    assert!(!info.model_book && !info.model.unwrap().relearned);
    for word in ["garden", "the"] {
        let (held, made) = (spot_scores(&fixture_index, word), spot_scores(index, word));
        assert_eq!(held.len(), books * FIXTURE_PAGE_WORDS);
        assert_eq!(held, made, "{word}");
    }
}

/// A writable copy of a fixture of two books of word images takes the
/// fixture's page again and then learns the model again from its three
/// books, `images` word images in all.
pub fn assert_takes_a_book_and_relearns(index: &Index, fixture: &Path, images: u64) {
    assert_takes_fixture_page_again(index, fixture);
    let (model, _) = index
        .relearn_word_images(
            stemmata::images::learn::LearnOptions::default().learn_alone,
            &|_| {},
        )
        .unwrap();
    assert_eq!(
        (model.relearned, model.books, model.images),
        (true, 3, images)
    );
    assert!(index.image_books().unwrap().iter().all(|b| b.model_book));
    assert_eq!(index.verify().unwrap().image_books, 3);
}

/// The fixture index of `fixture` describes its words by 1.6 x-heights:
/// its vocabulary says so, and each word's unit lies within half to twice
/// its box's height, more than it for some words and less for others.
pub fn assert_fixture_words_described_by_x_height(fixture: &Path) {
    use stemmata::images::descriptor::Normalisation;
    let path = fixture.join("index/images/000001.wiv");
    let bytes = std::fs::read(&path).unwrap();
    let vocabulary = stemmata::storage::word_images::decode_vocabulary(&bytes, &path).unwrap();
    assert_eq!(vocabulary.normalisation(), Normalisation::XHeight);
    let index = Index::open_read_only(fixture.join("index")).unwrap();
    assert_eq!(
        index.word_image_normalisation().unwrap(),
        Normalisation::XHeight
    );
    let path = fixture.join("index/images/000002.wib");
    let bytes = std::fs::read(&path).unwrap();
    let book = stemmata::storage::word_images::decode_book(&bytes, &path).unwrap();
    // Units within half to twice each box's height: a word of small
    // letters alone gets more than its box, one with an ascender or a
    // descender less.
    assert!(book.words.iter().all(|w| {
        let h = w.bbox.height();
        (h.div_ceil(2)..=2 * h).contains(&w.unit)
    }));
    let taller = book
        .words
        .iter()
        .filter(|w| w.unit > w.bbox.height())
        .count();
    assert!(taller > 0 && taller < book.words.len(), "{taller}");
}

/// The index in `dir`, a writable copy of `fixture`'s whose words are
/// described by 1.6 x-heights, refuses the fixture's page read by its
/// box's height, naming the page, and leaves its word images as they were.
pub fn assert_refuses_pages_described_otherwise(dir: &Path, fixture: &Path) {
    use stemmata::images::descriptor::Normalisation;
    use stemmata::images::pages::{read_pages, PageFiles};
    let images = dir.join("images");
    let before = snapshot_files(&images);
    let page = fixture.join("pages/scan-0001.png");
    let files = [PageFiles::beside(&page).unwrap()];
    let read = read_pages(&files, Normalisation::BoxHeight, &|_| {}).unwrap();
    let index = Index::open(dir).unwrap();
    let books = index.image_books().unwrap().len();
    let options = stemmata::images::learn::LearnOptions::default();
    let refused = index
        .add_read_word_images("again", read, &options, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("scan-0001.png")
            && refused.contains("described by the box's height")
            && refused.contains("described by 1.6 x-heights"),
        "{refused}"
    );
    assert_eq!(index.image_books().unwrap().len(), books);
    drop(index);
    assert!(snapshot_files(&images) == before, "a refused add wrote");
}
