//! The load path writes the same bytes for the same input: the features,
//! sketches and band keys of a varied set of texts, and the barrel, page and
//! segment files of an index loaded with them, hash to digests recorded when
//! they were first computed. Ingest is optimised under this test: a faster
//! tokeniser, simhash or shingler must not change a stored value (the values
//! are specified in `docs/algorithms.md`; changing one is a format change).
//!
//! The texts cover what the fast paths special-case: ASCII and non-ASCII
//! letters (case folding that expands, Greek, combining marks, a mix inside
//! one 1 MiB chunk of the simhash), page breaks, hyphenated line ends, soft
//! hyphens and apostrophes, overlong tokens, windows-1252 and UTF-16 bytes,
//! texts shorter than a shingle or an n-gram, and books long enough to be
//! cut into parts and to span several simhash chunks.

use std::path::Path;

use stemmata::repr::parts::book_parts;
use stemmata::repr::unique_words::extract;
use stemmata::repr::{BookSketch, ExtractOptions, PartOptions, SketchOptions, Table};
use stemmata::text::decode;
use stemmata::{Document, Index, LoadOptions};
use stemmata_synth::{generate, ocr_noise, work_text, SynthOptions};
use xxhash_rust::xxh3::Xxh3;

/// The texts, as bytes, with their keys.
fn texts() -> Vec<(String, Vec<u8>)> {
    let mut texts: Vec<(String, Vec<u8>)> = Vec::new();
    let options = SynthOptions {
        min_words: 2_000,
        max_words: 9_000,
        vocab_size: 20_000,
        ..SynthOptions::with_families(4, 1414)
    };
    for book in generate(&options).books {
        texts.push((book.key, book.text.into_bytes()));
    }
    // Long books: several simhash chunks, cut into parts by default.
    let long = work_text(180_000, 7);
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(3);
    let noisy = ocr_noise(&long, 0.02, &mut rng);
    let accented =
        long.replacen(" the ", " thé Straße ", 3_000)
            .replacen(" and ", " ΣΟΦΙΑ İstanbul ", 2_000);
    let paged: String = long
        .split(". ")
        .enumerate()
        .map(|(i, s)| {
            if i % 40 == 39 {
                format!("{s}.\x0c")
            } else {
                format!("{s}. ")
            }
        })
        .collect();
    texts.push(("long".into(), long.into_bytes()));
    texts.push(("long-noisy".into(), noisy.into_bytes()));
    texts.push(("long-accented".into(), accented.into_bytes()));
    texts.push(("long-paged".into(), paged.into_bytes()));
    let handmade = [
        "The CAT, sat; on 42 mats. Page 17 ÉCOLE Straße ΣΟΦΙΑ",
        "an exam-\nple here, an exam-  \r\n   ple, well-known, end -\nnext trailing-\n\n",
        "don't co\u{ad}operate dogs' 'quoted' it\u{2019}s exam\u{2010}\nple",
        "one\x0ctwo three four five six\x0c\x0cseven eight nine ten eleven twelve",
        "a",
        "ab c",
        "İstanbul ǅemal ﬁne Ǆ ß ŉ ΐ",
        "e\u{301}cole cafe\u{301} na\u{ef}ve A\u{30a}ngstro\u{308}m",
        "Ωμέγα ΑΛΦΑ Ελληνικά κείμενα με τόνους και ΚΕΦΑΛΑΙΑ σε πολλές σελίδες",
        "Русский ТЕКСТ с буквами ЁЁ и ещё немного слов для шинглов и страниц",
        "mixed ASCII and 漢字かなカナ words 中文 text here and there",
    ];
    for (i, text) in handmade.iter().enumerate() {
        texts.push((format!("hand{i:02}"), text.as_bytes().to_vec()));
    }
    let overlong = format!("before {} after {}x", "x".repeat(100), "é".repeat(40));
    texts.push(("overlong".into(), overlong.into_bytes()));
    texts.push((
        "latin1".into(),
        b"\x8cuvres compl\xe8tes, caf\xe9, na\xefve \xc9COLE fa\xe7ade".to_vec(),
    ));
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(
            "Père Noël\x0cpage two of the UTF-16 text"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    texts.push(("utf16".into(), utf16));
    texts
}

fn feed_u64s(hasher: &mut Xxh3, values: &[u64]) {
    hasher.update(&(values.len() as u64).to_le_bytes());
    for value in values {
        hasher.update(&value.to_le_bytes());
    }
}

fn feed_u32s(hasher: &mut Xxh3, values: &[u32]) {
    hasher.update(&(values.len() as u64).to_le_bytes());
    for value in values {
        hasher.update(&value.to_le_bytes());
    }
}

/// Digests of every text's features and sketch with `sketch_options`:
/// (unique words and parts, min-hash signatures, simhash, band keys).
fn representation_digests(sketch_options: SketchOptions) -> [u64; 4] {
    let extract_options = ExtractOptions::default();
    let part_options = PartOptions::default();
    let mut digests: [Xxh3; 4] = std::array::from_fn(|_| Xxh3::new());
    for (key, bytes) in texts() {
        let text = decode(&bytes).text.into_owned();
        let features = extract(&text, &extract_options);
        let [words, sigs, simhash, keys] = &mut digests;
        words.update(key.as_bytes());
        for count in [
            features.words,
            u64::from(features.pages),
            u64::from(features.distinct_words),
            u64::from(features.alphabetical_dropped),
            features.token_stats.words,
            features.token_stats.page_breaks,
            features.token_stats.overlong_tokens,
        ] {
            words.update(&count.to_le_bytes());
        }
        let parts = book_parts(
            &text,
            features.words,
            features.sequence.clone(),
            &extract_options,
            &part_options,
        );
        for part in parts {
            feed_u32s(words, &part.hashes);
            feed_u32s(words, &part.positions);
        }
        let sketch = BookSketch::compute(&text, &sketch_options);
        sigs.update(key.as_bytes());
        feed_u64s(sigs, &sketch.book.0);
        for signature in sketch.windows.iter().chain(&sketch.pages) {
            feed_u64s(sigs, &signature.0);
        }
        simhash.update(key.as_bytes());
        simhash.update(&sketch.simhash.0.to_le_bytes());
        keys.update(key.as_bytes());
        for table in Table::ALL {
            feed_u64s(keys, &sketch.keys(table, &sketch_options));
        }
    }
    digests.map(|d| d.digest())
}

/// Digests of the files under `barrels/`, `pages/` and `segments/` of an
/// index loaded with every text.
fn file_digests(dir: &Path) -> [u64; 3] {
    ["barrels", "pages", "segments"].map(|sub| {
        let mut names: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        names.sort();
        let mut hasher = Xxh3::new();
        for path in names {
            let bytes = std::fs::read(&path).unwrap();
            hasher.update(path.file_name().unwrap().as_encoded_bytes());
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
        hasher.digest()
    })
}

#[test]
fn features_sketches_and_keys_are_the_recorded_ones() {
    let digests = representation_digests(SketchOptions::default());
    assert_eq!(
        digests.map(|d| format!("{d:016x}")),
        [
            "c79338c8276dc32f",
            "9f86f8569a61b267",
            "b00ebe5e96882361",
            "ad74800049c6de8a"
        ],
        "[unique words and parts, min-hash signatures, simhash, band keys]"
    );
}

/// The shingles of indexes created by formats 2 to 16 (joined words) stay
/// as they were: those indexes' new books and queries are sketched by them.
#[test]
fn joined_word_sketches_and_keys_are_the_recorded_ones() {
    let mut options = SketchOptions::default();
    options.book.shingle_hash = stemmata::repr::ShingleHash::JoinedWords;
    let digests = representation_digests(options);
    assert_eq!(
        digests.map(|d| format!("{d:016x}")),
        [
            "c79338c8276dc32f",
            "e41a804c6dcd6c93",
            "b00ebe5e96882361",
            "6f137c2c978c9d3d"
        ],
        "[unique words and parts, min-hash signatures, simhash, band keys]"
    );
}

/// The files' digests pin the format: an index of another format writes
/// other headers and segments, and its digests are recorded anew from a
/// build whose representations pass the test above. The load's batches of
/// 7 books write a segment each, which the end of the load merges into
/// one: the digest covers the batch writer and the merge.
#[test]
fn an_index_of_these_texts_holds_the_recorded_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let mut loader = index
        .bulk_loader(LoadOptions::default().threads(2).batch_books(7))
        .unwrap();
    for (key, bytes) in texts() {
        loader.add(Document::new(key, bytes)).unwrap();
    }
    let stats = loader.finish().unwrap();
    assert!(stats.skipped.is_empty(), "{:?}", stats.skipped);
    assert_eq!(index.format_version(), 23, "record this format's digests");
    let digests = file_digests(dir.path());
    assert_eq!(
        digests.map(|d| format!("{d:016x}")),
        ["d894b2047cd6eb00", "9efce95b710af951", "96b8ce6e6dc63677"],
        "[barrels, pages, segments]"
    );
}
