//! Features written to Parquet read back the same, and files that are not
//! what the layout says are refused with an error naming the file and the
//! column or row.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use proptest::prelude::*;
use stemmata::batch::{self, BookFeatures, FeatureOptions};
use stemmata::repr::{BandLayout, MinHashSig, SimHash128, UniqueWordSeq};
use stemmata::Document;
use stemmata_parquet::{
    options_json, schema, to_record_batch, Error, FeaturesReader, FeaturesWriter, OPTIONS_KEY,
    VERSION_KEY,
};

fn write(path: &Path, rows: &[(u64, BookFeatures)], options: &FeatureOptions) -> u64 {
    let mut writer = FeaturesWriter::create(path, options).unwrap();
    for (id, features) in rows {
        writer.write(*id, features.clone()).unwrap();
    }
    writer.finish().unwrap()
}

fn read(path: &Path) -> (FeatureOptions, Vec<(u64, BookFeatures)>) {
    let reader = FeaturesReader::open(path).unwrap();
    let options = *reader.options();
    (options, reader.collect::<Result<_, _>>().unwrap())
}

fn arbitrary_book(window_hashes: usize) -> impl Strategy<Value = BookFeatures> {
    let text = "\\PC{0,12}";
    let parts = prop::collection::vec(
        prop::collection::vec((any::<u32>(), any::<u32>()), 0..20),
        0..4,
    );
    let signature = |n: usize| prop::collection::vec(any::<u64>(), n).prop_map(MinHashSig);
    (
        (text, text, text, text, text),
        (
            any::<u64>(),
            any::<u32>(),
            any::<u64>(),
            any::<u32>(),
            any::<u64>(),
        ),
        parts,
        prop::collection::vec(prop::collection::vec(any::<u64>(), 0..6), 4),
        any::<u128>(),
        signature(7),
        prop::collection::vec(signature(window_hashes), 0..4),
    )
        .prop_map(
            move |(strings, counts, parts, keys, simhash, minhash, page_minhashes)| BookFeatures {
                key: strings.0,
                title: strings.1,
                author: strings.2,
                language: strings.3,
                encoding: strings.4,
                words: counts.0 >> 1,
                pages: counts.1 >> 1,
                bytes: counts.2 >> 1,
                distinct_words: counts.3 >> 1,
                invalid_utf8_sequences: counts.4 >> 1,
                parts: parts
                    .into_iter()
                    .map(|p| UniqueWordSeq {
                        hashes: p.iter().map(|e| e.0).collect(),
                        positions: p.iter().map(|e| e.1).collect(),
                    })
                    .collect(),
                keys: [
                    keys[0].clone(),
                    keys[1].clone(),
                    keys[2].clone(),
                    keys[3].clone(),
                ],
                simhash: SimHash128(simhash),
                minhash,
                page_minhashes,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn any_rows_read_back_as_written(
        books in prop::collection::vec(arbitrary_book(34), 0..12),
        first_id in 0u64..1 << 40,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.parquet");
        let options = FeatureOptions::default();
        let rows: Vec<(u64, BookFeatures)> = books
            .into_iter()
            .enumerate()
            .map(|(i, b)| (first_id + i as u64, b))
            .collect();
        write(&path, &rows, &options);
        let (found_options, found) = read(&path);
        prop_assert_eq!(found_options, options);
        prop_assert_eq!(found, rows);
    }
}

fn documents(n: usize) -> Vec<Document> {
    let collection = stemmata_synth::generate(&stemmata_synth::SynthOptions {
        min_words: 1_000,
        max_words: 3_000,
        vocab_size: 5_000,
        ..stemmata_synth::SynthOptions::with_families(n, 3)
    });
    collection
        .books
        .iter()
        .map(|b| Document::new(b.key.clone(), b.text.as_bytes()).with_title(b.title.clone()))
        .collect()
}

#[test]
fn features_of_documents_read_back_as_written_over_several_batches() {
    let options = FeatureOptions::default();
    let books: Vec<BookFeatures> = documents(6)
        .into_iter()
        .map(|d| batch::features(d, &options).unwrap())
        .collect();
    // More rows than the reader's and writer's batches of 256.
    let rows: Vec<(u64, BookFeatures)> = (0..600u64)
        .map(|i| (3 * i, books[i as usize % books.len()].clone()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("features.parquet");
    let bytes = write(&path, &rows, &options);
    assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
    let reader = FeaturesReader::open(&path).unwrap();
    assert_eq!(reader.rows(), rows.len() as u64);
    assert_eq!(read(&path).1, rows);
}

#[test]
fn the_record_batch_has_the_documented_schema() {
    let book = BookFeatures::default();
    let batch = to_record_batch(&[(0, &book)]).unwrap();
    let schema = schema();
    assert_eq!(batch.schema(), schema);
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        names,
        [
            "id",
            "key",
            "title",
            "author",
            "language",
            "words",
            "pages",
            "bytes",
            "distinct_words",
            "invalid_utf8_sequences",
            "encoding",
            "simhash_low",
            "simhash_high",
            "minhash",
            "page_minhashes",
            "part_lengths",
            "hashes",
            "positions",
            "book_keys",
            "window_keys",
            "simhash_keys",
            "value_keys"
        ]
    );
    assert!(schema.fields().iter().all(|f| !f.is_nullable()));
    assert_eq!(
        schema.field_with_name("simhash_high").unwrap().data_type(),
        &DataType::Int64
    );
}

/// Writes `batch` as Parquet with `metadata`, not through the crate's writer.
fn write_raw(path: &Path, batch: &RecordBatch, metadata: Vec<(&str, String)>) {
    let properties = WriterProperties::builder()
        .set_key_value_metadata(Some(
            metadata
                .into_iter()
                .map(|(k, v)| KeyValue::new(k.to_string(), v))
                .collect(),
        ))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

fn good_metadata() -> Vec<(&'static str, String)> {
    vec![
        (VERSION_KEY, "1".to_string()),
        (OPTIONS_KEY, options_json(&FeatureOptions::default())),
    ]
}

/// A one-row batch of `book` with column `name` replaced by `column`
/// (removed when `None`).
fn batch_with(name: &str, column: Option<(DataType, bool, ArrayRef)>) -> RecordBatch {
    let book = BookFeatures {
        minhash: MinHashSig(vec![1; 100]),
        ..BookFeatures::default()
    };
    let good = to_record_batch(&[(0, &book)]).unwrap();
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (field, array) in good.schema().fields().iter().zip(good.columns()) {
        if field.name() != name {
            fields.push(field.as_ref().clone());
            columns.push(array.clone());
        } else if let Some((data_type, nullable, array)) = column.clone() {
            fields.push(Field::new(name, data_type, nullable));
            columns.push(array);
        }
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

fn open_error(batch: &RecordBatch, metadata: Vec<(&str, String)>) -> Error {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.parquet");
    write_raw(&path, batch, metadata);
    match FeaturesReader::open(&path) {
        Err(error) => error,
        Ok(reader) => reader
            .into_iter()
            .find_map(Result::err)
            .expect("an error reading the rows"),
    }
}

#[test]
fn a_missing_column_is_named() {
    let error = open_error(&batch_with("hashes", None), good_metadata());
    assert!(
        matches!(&error, Error::Schema { column, problem, .. } if column == "hashes" && problem == "missing"),
        "{error}"
    );
    assert!(error.to_string().contains("bad.parquet"), "{error}");
}

#[test]
fn a_column_of_another_type_is_named() {
    let words: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["7"]));
    let error = open_error(
        &batch_with("words", Some((DataType::Utf8, false, words))),
        good_metadata(),
    );
    assert!(
        matches!(&error, Error::Schema { column, .. } if column == "words"),
        "{error}"
    );
}

#[test]
fn a_null_is_named_with_its_row() {
    let words: ArrayRef = Arc::new(Int64Array::from(vec![None::<i64>]));
    let error = open_error(
        &batch_with("words", Some((DataType::Int64, true, words))),
        good_metadata(),
    );
    assert!(
        matches!(&error, Error::Row { column, row: 0, problem, .. } if column == "words" && problem == "null"),
        "{error}"
    );
}

#[test]
fn a_negative_count_is_named_with_its_row() {
    let words: ArrayRef = Arc::new(Int64Array::from(vec![-3]));
    let error = open_error(
        &batch_with("words", Some((DataType::Int64, false, words))),
        good_metadata(),
    );
    assert!(
        matches!(&error, Error::Row { column, .. } if column == "words"),
        "{error}"
    );
}

#[test]
fn a_file_without_metadata_is_read_with_the_default_options() {
    // As Spark writes the features of the job: no key-value metadata.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("part-00000.parquet");
    write_raw(&path, &batch_with("none", None), vec![]);
    let reader = FeaturesReader::open(&path).unwrap();
    assert_eq!(reader.options(), &FeatureOptions::default());
    assert_eq!(reader.into_iter().map(Result::unwrap).count(), 1);
}

#[test]
fn missing_or_bad_metadata_is_refused() {
    let batch = batch_with("none", None);
    let error = open_error(
        &batch,
        vec![(OPTIONS_KEY, options_json(&FeatureOptions::default()))],
    );
    assert!(
        matches!(&error, Error::Metadata { problem, .. } if problem.contains("not a features file")),
        "{error}"
    );
    let error = open_error(&batch, vec![(VERSION_KEY, "1".into())]);
    assert!(matches!(&error, Error::Metadata { .. }), "{error}");
    let error = open_error(
        &batch,
        vec![
            (VERSION_KEY, "1".into()),
            (OPTIONS_KEY, "{\"extract\":1}".into()),
        ],
    );
    assert!(
        matches!(&error, Error::Metadata { problem, .. } if problem.contains("does not parse")),
        "{error}"
    );
    let error = open_error(&batch, vec![(VERSION_KEY, "one".into())]);
    assert!(matches!(&error, Error::Metadata { .. }), "{error}");
}

#[test]
fn options_out_of_range_are_refused_at_open() {
    let mut no_rows = FeatureOptions::default();
    no_rows.sketch.book_layout = BandLayout::Bands { bands: 4, rows: 0 };
    // More super-shingle pairs than any signature of the options has values:
    // deriving a row's keys would take hours.
    let mut too_many_pairs = FeatureOptions::default();
    too_many_pairs.sketch.book.num_hashes = 1 << 20;
    too_many_pairs.sketch.book_layout = BandLayout::SuperShingles {
        rows: 1,
        groups: u16::MAX,
    };
    let mut no_term = FeatureOptions::default();
    no_term.extract.max_term_freq = 0;
    for (options, field) in [
        (no_rows, "band layout"),
        (too_many_pairs, "num_hashes"),
        (no_term, "max_term_freq"),
    ] {
        let mut metadata = good_metadata();
        metadata[1].1 = options_json(&options);
        let error = open_error(&batch_with("none", None), metadata);
        assert!(
            matches!(&error, Error::Metadata { problem, .. }
                if problem.contains(field) && !problem.contains("invalid argument")),
            "{error}"
        );
    }
}

#[test]
fn a_newer_layout_is_refused() {
    let mut metadata = good_metadata();
    metadata[0].1 = "2".into();
    let error = open_error(&batch_with("none", None), metadata);
    assert!(
        matches!(
            error,
            Error::NewerLayout {
                found: 2,
                newest: 1,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn damaged_files_are_errors_not_panics() {
    let options = FeatureOptions::default();
    let rows: Vec<(u64, BookFeatures)> = documents(4)
        .into_iter()
        .enumerate()
        .map(|(i, d)| (i as u64, batch::features(d, &options).unwrap()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.parquet");
    write(&path, &rows, &options);
    let bytes = std::fs::read(&path).unwrap();
    let damaged = dir.path().join("damaged.parquet");
    let mut errors = 0;
    for cut in [0, 4, bytes.len() / 2, bytes.len() - 9, bytes.len() - 1] {
        std::fs::write(&damaged, &bytes[..cut]).unwrap();
        assert!(FeaturesReader::open(&damaged).is_err(), "cut at {cut}");
        errors += 1;
    }
    for at in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x5a;
        std::fs::write(&damaged, &flipped).unwrap();
        if let Ok(reader) = FeaturesReader::open(&damaged) {
            for row in reader {
                if row.is_err() {
                    errors += 1;
                }
            }
        } else {
            errors += 1;
        }
    }
    assert!(errors > 5);
}

/// The fuzz target's seeds (`fuzz/seeds/parquet_features/`): one small
/// row, written as an engine without Arrow's schema in its metadata (Spark,
/// say) writes it, without statistics, so that it fits the fuzz runs'
/// 4,096-byte input limit, once uncompressed and once Snappy-compressed (so
/// that the fuzzer reaches the decompression): the reader takes both.
/// With `STEMMATA_WRITE_FUZZ_SEED` set, the test writes them there.
#[test]
fn a_file_without_the_arrow_schema_or_statistics_reads_and_fits_the_fuzz_limit() {
    let book = BookFeatures {
        key: "pg1".into(),
        title: "A".into(),
        language: "eng".into(),
        words: 3,
        pages: 1,
        distinct_words: 3,
        encoding: "UTF-8".into(),
        parts: vec![UniqueWordSeq {
            hashes: vec![7, 9, 11],
            positions: vec![0, 1, 2],
        }],
        keys: [vec![1, 2], vec![3], vec![4], vec![5, 6]],
        simhash: SimHash128(0x1234),
        minhash: MinHashSig(vec![1, 2, 3]),
        ..BookFeatures::default()
    };
    let batch = to_record_batch(&[(0, &book)]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, compression) in [
        ("one_row.parquet", Compression::UNCOMPRESSED),
        ("one_row_snappy.parquet", Compression::SNAPPY),
    ] {
        let properties = WriterProperties::builder()
            .set_compression(compression)
            .set_statistics_enabled(EnabledStatistics::None)
            .set_key_value_metadata(Some(
                good_metadata()
                    .into_iter()
                    .map(|(k, v)| KeyValue::new(k.to_string(), v))
                    .collect(),
            ))
            .build();
        let path = dir.path().join(name);
        let options = ArrowWriterOptions::new()
            .with_properties(properties)
            .with_skip_arrow_metadata(true);
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = ArrowWriter::try_new_with_options(file, batch.schema(), options).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let bytes = std::fs::metadata(&path).unwrap().len();
        assert!(bytes < 4096, "{name}: {bytes} bytes");
        assert_eq!(read(&path).1, vec![(0, book.clone())], "{name}");
        if std::env::var_os("STEMMATA_WRITE_FUZZ_SEED").is_some() {
            let seeds =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/parquet_features");
            std::fs::create_dir_all(&seeds).unwrap();
            std::fs::copy(&path, seeds.join(name)).unwrap();
        }
    }
}

/// Inputs the fuzz target found that panicked inside the Parquet library,
/// or made it reserve a gigabyte: each is an error naming the file.
#[test]
fn files_that_trip_the_parquet_library_are_errors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    for path in paths {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let error = match FeaturesReader::open(&path) {
            Err(error) => error,
            Ok(reader) => reader.into_iter().find_map(Result::err).expect("an error"),
        };
        assert!(error.to_string().contains(&name), "{error}");
    }
}

/// A group of the footer's schema that claims more children than the
/// schema has elements (here 457 million, for which the library would
/// reserve 3.6 GB) is refused before the library reads the schema.
#[test]
fn a_schema_group_of_more_children_than_elements_is_refused() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions/schema_group_of_457m_children.parquet");
    let error = FeaturesReader::open(&path).expect_err("refused");
    let text = error.to_string();
    assert!(
        text.contains("children, of") && text.contains("schema_group"),
        "{text}"
    );
}

/// The position of page header field 2 (the decompressed size, a varint)
/// in the header at `at`: the header opens with field 1 (the page type)
/// then field 2, each a one-byte field header and a varint.
fn decompressed_size_field(bytes: &[u8], at: usize) -> std::ops::Range<usize> {
    let varint_end =
        |from: usize| from + bytes[from..].iter().position(|b| b & 0x80 == 0).unwrap() + 1;
    assert_eq!(bytes[at], 0x15, "field 1, an i32");
    let field_2 = varint_end(at + 1);
    assert_eq!(bytes[field_2], 0x15, "field 2, an i32");
    field_2 + 1..varint_end(field_2 + 1)
}

/// A varint of exactly `len` bytes holding the zigzag of `value`.
fn padded_zigzag(value: i32, len: usize) -> Vec<u8> {
    let mut v = ((value << 1) ^ (value >> 31)) as u32;
    let mut out = Vec::new();
    for i in 0..len {
        let more = if i + 1 < len { 0x80 } else { 0 };
        out.push((v & 0x7f) as u8 | more);
        v >>= 7;
    }
    assert_eq!(v, 0, "{value} fits in {len} bytes");
    out
}

/// A page whose header declares far more bytes decompressed than its
/// file holds is refused before the Parquet library reserves them; a
/// page of 3 MiB that compresses to a few kilobytes is read.
#[test]
fn a_page_declaring_more_than_it_can_hold_is_refused_before_it_is_read() {
    let book = BookFeatures {
        key: "pg1".into(),
        title: "a".repeat(3 << 20),
        language: "eng".into(),
        encoding: "UTF-8".into(),
        ..BookFeatures::default()
    };
    let options = FeatureOptions::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long-title.parquet");
    let stored = write(&path, &[(0, book.clone())], &options);
    assert!(stored < 64 << 10, "{stored} bytes");
    assert_eq!(read(&path).1, vec![(0, book)]);

    let mut bytes = std::fs::read(&path).unwrap();
    let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&bytes::Bytes::from(bytes.clone()))
        .unwrap();
    let title = (metadata.row_group(0).columns().iter())
        .find(|c| c.column_path().string() == "title")
        .unwrap();
    let page = title.dictionary_page_offset().unwrap() as usize;
    let field = decompressed_size_field(&bytes, page);
    assert_eq!(field.len(), 4, "3 MiB takes a four-byte varint");
    let declared = (1 << 27) - 1;
    bytes.splice(field.clone(), padded_zigzag(declared, field.len()));
    let bomb = dir.path().join("bomb.parquet");
    std::fs::write(&bomb, &bytes).unwrap();
    let error = FeaturesReader::open(&bomb).unwrap_err().to_string();
    assert!(error.contains("bomb.parquet"), "{error}");
    assert!(
        error.contains("page 0: with it, the file's pages declare"),
        "{error}"
    );
    assert!(error.contains("bytes decompressed, more than"), "{error}");
    // What the fuzz target found: a page whose header declares 1.1 GB,
    // which the library would reserve.
    let found = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions/page_declaring_1_gib.parquet");
    let error = FeaturesReader::open(&found).unwrap_err().to_string();
    assert!(error.contains("the file's pages declare"), "{error}");
}
