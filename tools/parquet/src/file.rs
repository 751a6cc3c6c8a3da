//! Features files: written with their metadata, read back with every check.

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::ChunkReader;
use stemmata::batch::{BookFeatures, FeatureOptions};

use crate::convert::{check_schema, from_record_batch, schema, to_record_batch};
use crate::error::{Error, Result};
use crate::pages::{check_footer_schema, check_pages};
use crate::{options_json, CHECKSUM_KEY, LAYOUT_VERSION, OPTIONS_KEY, VERSION_KEY};

/// Rows per row group of a written file: a row group is held in memory
/// until it is written, and a row holds a whole book's features (about
/// 60 KB for a book of 20,000 words).
pub const ROWS_PER_GROUP: usize = 1024;

/// The checksum of a file's rows, in order: XXH3-64 of each row's id and
/// values (strings as their length and bytes, lists as their length and
/// values, integers little-endian), whatever their Parquet encoding.
#[derive(Clone)]
pub struct RowDigest(xxhash_rust::xxh3::Xxh3);

impl std::fmt::Debug for RowDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RowDigest({:016x})", self.value())
    }
}

impl Default for RowDigest {
    fn default() -> Self {
        RowDigest(xxhash_rust::xxh3::Xxh3::new())
    }
}

impl RowDigest {
    /// Adds a row.
    pub fn add(&mut self, id: u64, book: &BookFeatures) {
        let h = &mut self.0;
        h.update(&id.to_le_bytes());
        for s in [
            &book.key,
            &book.title,
            &book.author,
            &book.language,
            &book.encoding,
        ] {
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        }
        for n in [
            book.words,
            u64::from(book.pages),
            book.bytes,
            u64::from(book.distinct_words),
            book.invalid_utf8_sequences,
        ] {
            h.update(&n.to_le_bytes());
        }
        h.update(&book.simhash.0.to_le_bytes());
        let mut list = |values: &mut dyn Iterator<Item = u64>| {
            let mut n = 0u64;
            for v in values {
                h.update(&v.to_le_bytes());
                n += 1;
            }
            h.update(&n.to_le_bytes());
        };
        list(&mut book.minhash.0.iter().copied());
        list(&mut book.page_minhashes.iter().flat_map(|p| p.0.iter().copied()));
        list(&mut book.parts.iter().map(|p| p.hashes.len() as u64));
        list(
            &mut book
                .parts
                .iter()
                .flat_map(|p| p.hashes.iter().map(|&v| u64::from(v))),
        );
        list(
            &mut book
                .parts
                .iter()
                .flat_map(|p| p.positions.iter().map(|&v| u64::from(v))),
        );
        for keys in &book.keys {
            list(&mut keys.iter().copied());
        }
    }

    /// The checksum of the rows added.
    pub fn value(&self) -> u64 {
        self.0.digest()
    }
}

/// Rows converted to Arrow at a time, by the writer and the reader.
const ROWS_PER_BATCH: usize = 256;

/// Writes one features file: rows in the order given, zstd-compressed,
/// with the layout's metadata. Nothing is readable until
/// [`finish`](Self::finish); a writer dropped before leaves a file that
/// readers refuse.
pub struct FeaturesWriter {
    path: PathBuf,
    writer: ArrowWriter<File>,
    rows: Vec<(u64, BookFeatures)>,
    written: u64,
    digest: RowDigest,
}

impl std::fmt::Debug for FeaturesWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeaturesWriter")
            .field("path", &self.path)
            .field("rows", &(self.written + self.rows.len() as u64))
            .finish_non_exhaustive()
    }
}

impl FeaturesWriter {
    /// Creates (or truncates) `path` for features computed with `options`.
    pub fn create(path: &Path, options: &FeatureOptions) -> Result<Self> {
        let file = File::create(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
            .set_key_value_metadata(Some(vec![
                KeyValue::new(VERSION_KEY.to_string(), LAYOUT_VERSION.to_string()),
                KeyValue::new(OPTIONS_KEY.to_string(), options_json(options)),
            ]))
            .build();
        let writer = ArrowWriter::try_new(file, schema(), Some(properties))
            .map_err(|e| parquet_error(path, e))?;
        Ok(FeaturesWriter {
            path: path.to_path_buf(),
            writer,
            rows: Vec::new(),
            written: 0,
            digest: RowDigest::default(),
        })
    }

    /// Adds the row of book `id`.
    pub fn write(&mut self, id: u64, features: BookFeatures) -> Result<()> {
        self.digest.add(id, &features);
        self.rows.push((id, features));
        if self.rows.len() >= ROWS_PER_BATCH {
            self.flush_rows()?;
        }
        Ok(())
    }

    /// Rows added so far.
    pub fn rows(&self) -> u64 {
        self.written + self.rows.len() as u64
    }

    /// Hands the buffered rows to the Parquet writer.
    fn flush_rows(&mut self) -> Result<()> {
        let rows = std::mem::take(&mut self.rows);
        let refs: Vec<(u64, &BookFeatures)> = rows.iter().map(|(id, f)| (*id, f)).collect();
        self.write_rows(&refs)?;
        self.written += rows.len() as u64;
        Ok(())
    }

    /// Writes `rows`, cut in halves while a batch of them overflows
    /// Arrow's list offsets.
    fn write_rows(&mut self, rows: &[(u64, &BookFeatures)]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        match to_record_batch(rows) {
            Some(batch) => self.write_batch(&batch),
            None if rows.len() > 1 => {
                let (first, second) = rows.split_at(rows.len() / 2);
                self.write_rows(first)?;
                self.write_rows(second)
            }
            None => Err(Error::Metadata {
                path: self.path.clone(),
                problem: format!(
                    "book {:?}: a list of its features holds 2^31 values or more",
                    rows[0].1.key
                ),
            }),
        }
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<()> {
        self.writer
            .write(batch)
            .map_err(|e| parquet_error(&self.path, e))
    }

    /// Writes what is buffered and the file's footer, and syncs the file:
    /// its length in bytes.
    pub fn finish(mut self) -> Result<u64> {
        self.flush_rows()?;
        self.writer.append_key_value_metadata(KeyValue::new(
            CHECKSUM_KEY.to_string(),
            format!("xxh3-64:{:016x}", self.digest.value()),
        ));
        let file = self
            .writer
            .into_inner()
            .map_err(|e| parquet_error(&self.path, e))?;
        let io = |source| Error::Io {
            path: self.path.clone(),
            source,
        };
        file.sync_all().map_err(io)?;
        Ok(file.metadata().map_err(io)?.len())
    }
}

/// Runs `f`, a call into the Parquet library on a file's bytes: a panic
/// there (some damaged files trip its assertions) is a `Parquet` error
/// naming the file, not a crash.
fn guarded<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(parquet_error(
                path,
                format!("the file is damaged (the Parquet reader failed: {message})"),
            ))
        }
    }
}

fn parquet_error(path: &Path, error: impl std::fmt::Display) -> Error {
    Error::Parquet {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

/// Reads one features file, row by row as (id, features), after checking
/// its metadata and schema at open. Each row is converted and checked as
/// it is read: an error names the file, the row and the column, and ends
/// the reading.
pub struct FeaturesReader {
    path: PathBuf,
    options: FeatureOptions,
    rows: u64,
    batches: Option<ParquetRecordBatchReader>,
    /// The row in the file of the next batch's first row.
    next_row: u64,
    pending: VecDeque<(u64, BookFeatures)>,
    /// The checksum the metadata holds, if any, and that of the rows read.
    checksum: Option<u64>,
    digest: RowDigest,
}

impl std::fmt::Debug for FeaturesReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeaturesReader")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl FeaturesReader {
    /// Opens `path`: `Parquet` when it is not a readable Parquet file,
    /// `Metadata` when it lacks the layout's metadata or its options do
    /// not parse or are out of range, `NewerLayout` for a newer layout,
    /// `Schema` for a column missing or of another type.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_chunks(file, path)
    }

    /// Reads a file held in memory, named `path` in errors; checked as
    /// [`open`](Self::open) checks a file.
    pub fn from_bytes(bytes: Vec<u8>, path: &Path) -> Result<Self> {
        Self::from_chunks(bytes::Bytes::from(bytes), path)
    }

    fn from_chunks<T: ChunkReader + 'static>(chunks: T, path: &Path) -> Result<Self> {
        guarded(path, || Self::open_chunks(chunks, path))
    }

    fn open_chunks<T: ChunkReader + 'static>(chunks: T, path: &Path) -> Result<Self> {
        check_footer_schema(&chunks)
            .map_err(|problem| parquet_error(path, format!("the file is damaged: {problem}")))?;
        let parquet = ArrowReaderMetadata::load(&chunks, ArrowReaderOptions::default())
            .map_err(|e| parquet_error(path, e))?;
        let metadata = parquet.metadata().file_metadata();
        let value = |key: &str| {
            metadata
                .key_value_metadata()
                .and_then(|kv| kv.iter().find(|kv| kv.key == key))
                .and_then(|kv| kv.value.as_deref())
        };
        let meta_error = |problem: String| Error::Metadata {
            path: path.to_path_buf(),
            problem,
        };
        let (version, options) = match (value(VERSION_KEY), value(OPTIONS_KEY)) {
            // A file an engine wrote without metadata (Spark writes none):
            // this layout, computed with the default options.
            (None, None) => (LAYOUT_VERSION, FeatureOptions::default()),
            (None, Some(_)) => {
                return Err(meta_error(format!(
                    "not a features file: its metadata has {OPTIONS_KEY:?} but no {VERSION_KEY:?}"
                )))
            }
            (Some(_), None) => {
                return Err(meta_error(format!("its metadata has no {OPTIONS_KEY:?}")))
            }
            (Some(version), Some(options)) => {
                let version: u32 = version.trim().parse().map_err(|_| {
                    meta_error(format!(
                        "{VERSION_KEY:?} is {version:?}, not a layout version"
                    ))
                })?;
                let options: FeatureOptions = serde_json::from_str(options)
                    .map_err(|e| meta_error(format!("{OPTIONS_KEY:?} does not parse: {e}")))?;
                (version, options)
            }
        };
        if version == 0 || version > LAYOUT_VERSION {
            return Err(Error::NewerLayout {
                path: path.to_path_buf(),
                found: version,
                newest: LAYOUT_VERSION,
            });
        }
        // Rows are checked against these options: out of range (a band
        // layout of 0 rows, or of more super-shingle pairs than a
        // signature has values), they would fail or take unbounded time.
        options.validate().map_err(|e| {
            let why = match e {
                stemmata::Error::InvalidArgument(why) => why,
                other => other.to_string(),
            };
            meta_error(format!("{OPTIONS_KEY:?}: {why}"))
        })?;
        let checksum = match value(CHECKSUM_KEY) {
            None => None,
            Some(text) => Some(
                text.strip_prefix("xxh3-64:")
                    .and_then(|hex| u64::from_str_radix(hex, 16).ok())
                    .ok_or_else(|| {
                        meta_error(format!("{CHECKSUM_KEY:?} is {text:?}, not xxh3-64:HEX"))
                    })?,
            ),
        };
        let rows = u64::try_from(metadata.num_rows()).unwrap_or(0);
        check_schema(parquet.schema(), path)?;
        // Before the library reads a page, which reserves what its header
        // declares; after the schema, whose types the check counts on.
        check_pages(parquet.metadata(), &chunks)
            .map_err(|problem| parquet_error(path, format!("the file is damaged: {problem}")))?;
        let batches = ParquetRecordBatchReaderBuilder::new_with_metadata(chunks, parquet)
            .with_batch_size(ROWS_PER_BATCH)
            .build()
            .map_err(|e| parquet_error(path, e))?;
        Ok(FeaturesReader {
            path: path.to_path_buf(),
            options,
            rows,
            batches: Some(batches),
            next_row: 0,
            pending: VecDeque::new(),
            checksum,
            digest: RowDigest::default(),
        })
    }

    /// The options the features were computed with.
    pub fn options(&self) -> &FeatureOptions {
        &self.options
    }

    /// Rows of the file, as its footer gives them.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next batch's rows into `pending`; `false` at the end.
    fn read_batch(&mut self) -> Result<bool> {
        let Some(batches) = self.batches.as_mut() else {
            return Ok(false);
        };
        let next = match guarded(&self.path, || Ok(batches.next())) {
            Ok(next) => next,
            Err(error) => {
                self.batches = None;
                return Err(error);
            }
        };
        let batch = match next {
            None => {
                self.batches = None;
                return match self.checksum {
                    Some(expected) if expected != self.digest.value() => {
                        Err(Error::ChecksumMismatch {
                            path: self.path.clone(),
                            expected,
                            found: self.digest.value(),
                        })
                    }
                    _ => Ok(false),
                };
            }
            Some(Err(e)) => {
                self.batches = None;
                return Err(parquet_error(&self.path, e));
            }
            Some(Ok(batch)) => batch,
        };
        let first = self.next_row;
        self.next_row += batch.num_rows() as u64;
        let window_hashes = self.options.sketch.window_hashes;
        match from_record_batch(&batch, window_hashes, &self.path, first) {
            Ok(rows) => {
                for (id, features) in &rows {
                    self.digest.add(*id, features);
                }
                self.pending.extend(rows);
                Ok(true)
            }
            Err(error) => {
                self.batches = None;
                Err(error)
            }
        }
    }
}

impl Iterator for FeaturesReader {
    type Item = Result<(u64, BookFeatures)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(row) = self.pending.pop_front() {
                return Some(Ok(row));
            }
            match self.read_batch() {
                Ok(true) => continue,
                Ok(false) => return None,
                Err(error) => return Some(Err(error)),
            }
        }
    }
}
