//! The Parquet layout of stemmata's book features: the "Features" table of
//! `docs/batch-format.md`, one row per book
//! ([`stemmata::batch::BookFeatures`]).
//!
//! - [`schema`]: the table's Arrow schema, columns in the document's order;
//! - [`to_record_batch`] and [`from_record_batch`]: rows to an Arrow
//!   record batch and back, unsigned values stored by their bits;
//! - [`FeaturesWriter`]: a Parquet file (zstd) with the file metadata
//!   `stemmata.features` = `1` and `stemmata.options` = the options as
//!   JSON;
//! - [`FeaturesReader`]: such a file read back with every check: what
//!   its pages declare, before the Parquet library reserves memory by it
//!   ([`MAX_EXPANSION`] and the limits beside it), the layout version,
//!   the options, each column's presence and type, nulls and values out of
//!   range, each an [`Error`] naming the file and the column or row, never
//!   a panic. Whether a row is what a document gives
//!   (distinct hashes, keys of its signature, …) is the engine's check,
//!   [`BookFeatures::check`].
//!
//! The engine itself stays free of Arrow and Parquet: this crate is the
//! only one of the workspace that depends on them.

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod convert;
mod error;
mod file;
mod pages;

pub use convert::{from_record_batch, schema, to_record_batch, Kind, COLUMNS, MAX_LIST_VALUES};
pub use error::{Error, Result};
pub use file::{FeaturesReader, FeaturesWriter, RowDigest, ROWS_PER_GROUP};
pub use pages::{
    decompressed_limit, MAX_EXPANSION, MIN_DECOMPRESSED_LIMIT, MIN_VALUE_BYTES, VALUE_BYTES,
};

pub use stemmata::batch::{BookFeatures, FeatureOptions};

/// The file-metadata key holding the layout's version.
pub const VERSION_KEY: &str = "stemmata.features";
/// The file-metadata key holding the options, as JSON.
pub const OPTIONS_KEY: &str = "stemmata.options";
/// The file-metadata key holding the checksum of the rows: `xxh3-64:`
/// then 16 hexadecimal digits (see [`RowDigest`]). Optional: a file
/// without it (written by another engine) is read unchecked.
pub const CHECKSUM_KEY: &str = "stemmata.checksum";
/// The layout's version this crate writes and the newest it reads.
pub const LAYOUT_VERSION: u32 = 1;

/// The options as the file metadata holds them: JSON (the serde form of
/// [`FeatureOptions`]).
pub fn options_json(options: &FeatureOptions) -> String {
    serde_json::to_string(options).expect("options serialise")
}
