//! The common file header, format versions and the checksum.

use byteorder::{ByteOrder, LittleEndian};
use std::path::Path;

use super::codec::{put_u16, put_u32, Cursor, Decode, Encode};
use crate::error::{Error, Result};

/// Magic bytes opening every stemmata file: "\x89STM\r\n\x1a\n". The high-bit
/// byte and the line-ending bytes expose text-mode transfer damage.
pub const MAGIC: [u8; 8] = [0x89, b'S', b'T', b'M', b'\r', b'\n', 0x1a, b'\n'];

/// The format version this build writes.
pub const FORMAT_VERSION: u16 = FormatVersion::CURRENT.number();

/// The oldest format version this build reads.
pub const OLDEST_SUPPORTED_FORMAT_VERSION: u16 = FormatVersion::OLDEST.number();

/// A format version this build reads, named by what it stores. Code asks
/// a version what it has (`has_page_files`) instead of comparing numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FormatVersion(u16);

impl FormatVersion {
    /// The format this build writes.
    pub const CURRENT: FormatVersion = FormatVersion(crate::version::CURRENT_FORMAT);
    /// The oldest format this build reads.
    pub const OLDEST: FormatVersion = FormatVersion(crate::version::OLDEST_FORMAT);

    /// The version numbered `found`, read from `path`;
    /// `UnsupportedVersion` outside [`Self::OLDEST`]..=[`Self::CURRENT`].
    pub fn checked(found: u16, path: &Path) -> Result<FormatVersion> {
        if (Self::OLDEST.0..=Self::CURRENT.0).contains(&found) {
            Ok(FormatVersion(found))
        } else {
            Err(Error::UnsupportedVersion {
                path: path.to_path_buf(),
                found,
                oldest: Self::OLDEST.0,
                newest: Self::CURRENT.0,
            })
        }
    }

    /// The version's number, as written on disk.
    pub const fn number(self) -> u16 {
        self.0
    }

    /// The format this build writes: the only one loads and deletes accept.
    pub fn is_current(self) -> bool {
        self == Self::CURRENT
    }

    /// Sketch segments and the catalog's `sketch_options` (from format 2).
    pub fn has_sketches(self) -> bool {
        self.0 >= 2
    }

    /// Segments hold the min-hash value table (from format 3; a version-2
    /// segment has three key tables).
    pub fn has_value_table(self) -> bool {
        self.0 >= 3
    }

    /// Page signatures for every book of more than one page (from format 3).
    pub fn has_page_signatures(self) -> bool {
        self.0 >= 3
    }

    /// Page signatures held in the catalog's `pages` table (format 3 only).
    pub fn has_catalog_pages(self) -> bool {
        self.0 == 3
    }

    /// Page signatures held in page files, the catalog holding locators
    /// (from format 4).
    pub fn has_page_files(self) -> bool {
        self.0 >= 4
    }

    /// Books longer than a threshold stored as overlapping parts, a book's
    /// entry spanning one barrel record per part, and the catalog's
    /// `part_options` (from format 6; before, every book is one record).
    pub fn has_parts(self) -> bool {
        self.0 >= 6
    }

    /// Segments hold every book's catalog entry, unique-word sequences and
    /// unique-word postings, read in place (from format 7; before, a reader
    /// read every book's sequence from the barrels at open).
    pub fn has_segment_books(self) -> bool {
        self.0 >= 7
    }

    /// Segments hold each part's sequence once, as bit-packed word
    /// numbers, and posting lists of delta-coded, bit-packed blocks (from
    /// format 10; formats 7 to 9 held fixed-width arrays, which this build
    /// skips, reading such an index as one before format 7).
    pub fn has_compact_postings(self) -> bool {
        self.0 >= 10
    }

    /// Barrel records of word positions alone (from format 11; a barrel
    /// created before may hold records with the element hashes too).
    pub fn has_positions_only_records(self) -> bool {
        self.0 >= 11
    }

    /// Segments hold a second unit set beside the parts: each book's
    /// passages, runs of [`crate::repr::passages::PASSAGE_WORDS`] words with
    /// the words unique in each (from format 12).
    pub fn has_passages(self) -> bool {
        self.0 >= 12
    }

    /// Segments store each band and value key once, book after book, with
    /// a bit-packed key order for lookups, and bit-pack their list ends
    /// (from format 13; before, each key was stored twice, in its book's
    /// list and in its table, and list ends were `u32`s); barrel records
    /// hold variable-length position deltas.
    pub fn has_keys_once(self) -> bool {
        self.0 >= 13
    }

    /// Segments store each table's keys in key order, with their books'
    /// positions and each book's places in that order (from format 14;
    /// format 13 stored them book after book, with the order as numbers).
    pub fn has_sorted_keys(self) -> bool {
        self.0 >= 14
    }

    /// Bilingual dictionaries in `dictionaries/` and the catalog's
    /// `dictionaries` table (from format 8).
    pub fn has_dictionaries(self) -> bool {
        self.0 >= 8
    }

    /// Word images of scanned pages in `images/` (book files, the
    /// vocabulary and the search file), the catalog's `word_images` table
    /// and `meta` entry (from format 9).
    pub fn has_word_images(self) -> bool {
        self.0 >= 9
    }

    /// The search file says of each book whether the letter-bigram model
    /// was learned from its word images (from format 16; before, every
    /// book's were).
    pub fn has_model_books(self) -> bool {
        self.0 >= 16
    }

    /// Word-image book files store each word's box found from the ink
    /// and the OCR's box it lies in (from format 18; before, one box, the
    /// OCR's).
    pub fn has_ink_boxes(self) -> bool {
        self.0 >= 18
    }

    /// Word-image book files store each word's unit (the height its
    /// descriptors are scaled to) and vocabulary files the normalisation
    /// their words are described under (from format 19; before, every
    /// word's unit was its box's height).
    pub fn has_word_units(self) -> bool {
        self.0 >= 19
    }

    /// A word-image book file's word box may reach past the OCR's box it
    /// was found from, grown along its line to the whole word the ink
    /// shows, and only crosses it (from format 20; before, the OCR's box
    /// held the word's box).
    pub fn has_grown_words(self) -> bool {
        self.0 >= 20
    }

    /// A word image may hold no OCR word: a word found along the page's
    /// text lines from the ink, where the OCR boxed it otherwise or not at
    /// all (from format 21; before, every word image held the OCR's text).
    pub fn has_unread_words(self) -> bool {
        self.0 >= 21
    }

    /// A word-image search file stores the widths its model expects of a
    /// word's letters and each image's width in units (from format 22;
    /// before, a query held no image to a width).
    pub fn has_word_widths(self) -> bool {
        self.0 >= 22
    }

    /// A word-image book file says whether its terms come from a
    /// vocabulary of its own, and a search file's book may hold widths of
    /// its own (from format 23; before, every book's terms came from the
    /// index's vocabulary, and every image was held to the file's widths).
    pub fn has_own_vocabularies(self) -> bool {
        self.0 >= 23
    }
}

impl std::fmt::Display for FormatVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Size of [`FileHeader`] on disk.
pub const HEADER_LEN: usize = 16;

/// Flag bit: records are zstd-compressed.
pub const FLAG_ZSTD: u32 = 1;
/// Flag bit: records carry an XXH3-64 checksum.
pub const FLAG_XXH3: u32 = 2;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum FileKind {
    /// A barrel of unique-word sequences.
    Barrel = 1,
    /// A segment of book sketches and band tables.
    Segment = 2,
    /// A page file of page signatures.
    Pages = 3,
    /// A bilingual dictionary (from format 8).
    Dictionary = 4,
    /// A book of word images (from format 9).
    ImageBook = 5,
    /// The visual vocabulary of the word images (from format 9).
    Vocabulary = 6,
    /// The word-image search file (from format 9).
    ImageSearch = 7,
}

impl FileKind {
    /// The flags files of this kind carry: barrels are zstd-compressed and
    /// checksummed; segments and page files are checksummed and stored raw,
    /// so they can be searched in place or read a record at a time.
    pub fn flags(self) -> u32 {
        match self {
            FileKind::Barrel => FLAG_ZSTD | FLAG_XXH3,
            FileKind::Segment
            | FileKind::Pages
            | FileKind::Dictionary
            | FileKind::ImageBook
            | FileKind::Vocabulary
            | FileKind::ImageSearch => FLAG_XXH3,
        }
    }

    /// What a file of this kind is called in messages.
    pub fn noun(self) -> &'static str {
        match self {
            FileKind::Barrel => "barrel",
            FileKind::Segment => "segment",
            FileKind::Pages => "page file",
            FileKind::Dictionary => "dictionary file",
            FileKind::ImageBook => "word-image book file",
            FileKind::Vocabulary => "vocabulary file",
            FileKind::ImageSearch => "word-image search file",
        }
    }
}

/// The 16-byte header at the start of every file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileHeader {
    /// Format version the file was written with.
    pub version: FormatVersion,
    /// What the file holds.
    pub kind: FileKind,
    /// Compression and checksum flags.
    pub flags: u32,
}

impl FileHeader {
    /// A header for a new file of `kind` in the current format.
    pub fn new(kind: FileKind) -> Self {
        FileHeader {
            version: FormatVersion::CURRENT,
            kind,
            flags: kind.flags(),
        }
    }

    /// Decodes and checks a header of `expected` kind at the start of
    /// `bytes`, the start of the file `path`.
    pub fn decode_from(bytes: &[u8], expected: FileKind, path: &Path) -> Result<Self> {
        let header = FileHeader::decode(&mut Cursor::at(bytes, path, 0))?;
        if header.kind != expected {
            return Err(Error::corrupted_at(
                path,
                10,
                format!(
                    "file kind {}, expected {} ({expected:?})",
                    header.kind as u16, expected as u16
                ),
            ));
        }
        Ok(header)
    }
}

/// The 16 header bytes: magic, u16 version, u16 kind, u32 flags.
impl Encode for FileHeader {
    fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&MAGIC);
        put_u16(out, self.version.number());
        put_u16(out, self.kind as u16);
        put_u32(out, self.flags);
    }
}

impl Decode for FileHeader {
    /// Checks the magic, that this build reads the version, and that the
    /// kind is known and carries its flags.
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        if c.remaining() < HEADER_LEN {
            return Err(c.error(format!(
                "file of {} bytes is shorter than its 16-byte header",
                c.remaining()
            )));
        }
        let start = c.position();
        if c.take(MAGIC.len())? != MAGIC {
            return Err(c.error_at(start, "bad magic: not a stemmata file"));
        }
        let version = FormatVersion::checked(c.u16()?, c.path())?;
        let kind = match c.u16()? {
            1 => FileKind::Barrel,
            2 => FileKind::Segment,
            3 => FileKind::Pages,
            4 => FileKind::Dictionary,
            5 => FileKind::ImageBook,
            6 => FileKind::Vocabulary,
            7 => FileKind::ImageSearch,
            other => return Err(c.error_at(start + 10, format!("unknown file kind {other}"))),
        };
        let flags = c.u32()?;
        if flags != kind.flags() {
            return Err(c.error_at(start + 12, format!("unknown flags {flags:#x}")));
        }
        Ok(FileHeader {
            version,
            kind,
            flags,
        })
    }
}

/// Syncs the directory holding `path`, making a newly created file's name
/// durable (a no-op where directories cannot be opened, as on Windows).
pub fn sync_parent_dir(path: &Path) -> Result<()> {
    match path.parent() {
        Some(dir) => super::fs::sync_dir(dir),
        None => Ok(()),
    }
}

/// The checksum of stored bytes: XXH3-64 with seed 0.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Bytes of a trailing [`checksum`] of everything before it.
pub const CHECKSUM_LEN: usize = 8;

/// The bytes of `bytes`, found at byte `offset` of `path`, before its
/// trailing checksum, when that checksum matches them; else
/// `ChecksumMismatch` naming `path`, at the checksum's offset in the file.
/// The caller has checked that `bytes` holds at least [`CHECKSUM_LEN`]
/// bytes.
pub(crate) fn checked_body<'a>(bytes: &'a [u8], path: &Path, offset: u64) -> Result<&'a [u8]> {
    let (body, stored) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
    let expected = LittleEndian::read_u64(stored);
    let got = checksum(body);
    if got != expected {
        return Err(Error::ChecksumMismatch {
            path: path.to_path_buf(),
            offset: offset + body.len() as u64,
            expected,
            got,
        });
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_damage() {
        let path = Path::new("x.brl");
        let mut bytes = Vec::new();
        FileHeader::new(FileKind::Barrel).encode_into(&mut bytes);
        assert_eq!(bytes.len(), HEADER_LEN);
        assert_eq!(
            FileHeader::decode_from(&bytes, FileKind::Barrel, path).unwrap(),
            FileHeader::new(FileKind::Barrel)
        );
        let mut newer = bytes.clone();
        newer[8] = (FORMAT_VERSION + 1) as u8;
        assert!(matches!(
            FileHeader::decode_from(&newer, FileKind::Barrel, path),
            Err(Error::UnsupportedVersion { found, .. }) if found == FORMAT_VERSION + 1
        ));
        let mut bad_magic = bytes.clone();
        bad_magic[4] = b'\n';
        assert!(FileHeader::decode_from(&bad_magic, FileKind::Barrel, path).is_err());
        assert!(FileHeader::decode_from(&bytes[..10], FileKind::Barrel, path).is_err());
    }
}
