//! Page files (format 4): append-only files ([`super::append`]) of page
//! signature records ([`super::pages`]), one record per book of more than
//! one page, and the 16-byte locator the catalog's `pages` table keeps for
//! each: file number, offset and record length.
//!
//! A record is read alone, by a positioned read of its bytes: page files
//! grow with the collection and are never held in memory. The records of
//! deleted or replaced books stay in their file as dead bytes until a
//! compaction (`crate::compact`) copies the live ones into a new file.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::append::{self, AppendWriter};
use super::codec::{put_u32, put_u64, Cursor, Decode, Encode};
use super::format::{FileKind, HEADER_LEN};
use super::pages;
use crate::error::{Error, Result};
use crate::repr::MinHashSig;

/// Bytes of a [`PageLocator`] in the catalog.
pub const LOCATOR_LEN: usize = 16;

/// Where the page signatures of one book are: the catalog's `pages` value
/// in format 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PageLocator {
    /// Number of the page file.
    pub file: u32,
    /// Byte offset of the record in the file.
    pub offset: u64,
    /// Bytes of the record.
    pub len: u32,
}

/// The 16 catalog bytes: u32 file, u64 offset, u32 length.
impl Encode for PageLocator {
    fn encode_into(&self, out: &mut Vec<u8>) {
        put_u32(out, self.file);
        put_u64(out, self.offset);
        put_u32(out, self.len);
    }
}

impl Decode for PageLocator {
    fn decode(c: &mut Cursor<'_>) -> Result<Self> {
        Ok(PageLocator {
            file: c.u32()?,
            offset: c.u64()?,
            len: c.u32()?,
        })
    }
}

/// Appends page-signature records to one page file.
#[derive(Debug)]
pub struct PageFileWriter {
    number: u32,
    file: AppendWriter,
}

impl PageFileWriter {
    /// Starts page file `number` at `path`, replacing any uncommitted file or
    /// link there (a link is removed, never followed).
    pub fn create(path: &Path, number: u32) -> Result<Self> {
        let file = AppendWriter::create(path, FileKind::Pages)?;
        Ok(PageFileWriter { number, file })
    }

    /// Reopens page file `number` for appending after its last committed
    /// record, cutting off any torn tail beyond `committed_len`.
    pub fn append_to(path: &Path, number: u32, committed_len: u64) -> Result<Self> {
        let file = AppendWriter::append_to(path, FileKind::Pages, committed_len)?;
        Ok(PageFileWriter { number, file })
    }

    /// Appends `record` ([`pages::encode_record`]); returns its locator, or
    /// `InvalidArgument` for a record of 4 GiB or more. Buffered until
    /// [`sync`](Self::sync).
    pub fn append(&mut self, record: &[u8]) -> Result<PageLocator> {
        let len = u32::try_from(record.len()).map_err(|_| {
            Error::InvalidArgument(format!(
                "page signatures of {} bytes; a record holds less than 4 GiB",
                record.len()
            ))
        })?;
        let (offset, _) = self.file.append(|out| out.extend_from_slice(record));
        Ok(PageLocator {
            file: self.number,
            offset,
            len,
        })
    }

    /// The file's number.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// Writes buffered records and syncs them to disk; returns the length to commit.
    pub fn sync(&mut self) -> Result<u64> {
        self.file.sync()
    }
}

/// Reads records from the committed prefix of one page file.
#[derive(Debug)]
pub struct PageFileReader {
    path: PathBuf,
    file: File,
    committed_len: u64,
}

impl PageFileReader {
    /// Opens the page file at `path` and checks its header and that it
    /// holds its `committed_len` bytes. Reads no record.
    pub fn open(path: &Path, committed_len: u64) -> Result<Self> {
        let file = append::open_checked(path, FileKind::Pages, committed_len)?;
        Ok(PageFileReader {
            path: path.to_path_buf(),
            file,
            committed_len,
        })
    }

    /// Every record of the committed prefix in file order, each checked
    /// (checksum and layout) and given to `f` with its locator, book id and
    /// page signatures;
    /// the first damaged record, or bytes that are not a whole record, stop
    /// the walk with an error naming the file and the offset.
    pub fn each_record(
        &mut self,
        file_number: u32,
        mut f: impl FnMut(PageLocator, u32, Vec<MinHashSig>) -> Result<()>,
    ) -> Result<()> {
        let mut offset = HEADER_LEN as u64;
        while offset < self.committed_len {
            let head = append::read_committed(
                &mut self.file,
                &self.path,
                self.committed_len,
                offset,
                pages::RECORD_HEAD_LEN as u32,
            )?;
            let head: [u8; pages::RECORD_HEAD_LEN] = head.try_into().map_err(|_| {
                Error::corrupted_at(&self.path, offset, "page-file record head cut short")
            })?;
            let (book_id, len) = pages::record_head(&head);
            let locator = PageLocator {
                file: file_number,
                offset,
                len: len.ok_or_else(|| {
                    Error::corrupted_at(
                        self.path.clone(),
                        offset,
                        "a page-file record longer than 4 GiB",
                    )
                })?,
            };
            let signatures = self.read(&locator, book_id)?;
            f(locator, book_id, signatures)?;
            offset += u64::from(locator.len);
        }
        Ok(())
    }

    /// The page signatures of book `book_id` in the record `locator`
    /// points at, which must lie in the committed prefix.
    pub fn read(&mut self, locator: &PageLocator, book_id: u32) -> Result<Vec<MinHashSig>> {
        let bytes = append::read_committed(
            &mut self.file,
            &self.path,
            self.committed_len,
            locator.offset,
            locator.len,
        )?;
        pages::decode_record(&bytes, &self.path, locator.offset, book_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repr::minhash::page_codes;

    /// Page signatures as they read back (codes).
    fn signatures(seed: u64, pages: usize) -> Vec<MinHashSig> {
        (0..pages as u64)
            .map(|p| MinHashSig(vec![(seed + p) << 32, u64::MAX, (seed * p) << 32]))
            .map(|page| page_codes(&page))
            .collect()
    }

    #[test]
    fn locators_round_trip_and_other_lengths_are_refused() {
        let locator = PageLocator {
            file: 3,
            offset: 1 << 40,
            len: 9_806,
        };
        let bytes = locator.encode();
        assert_eq!(bytes.len(), LOCATOR_LEN);
        assert_eq!(
            PageLocator::decode_all(&bytes, Path::new("c")).unwrap(),
            locator
        );
        for len in [0, 15, 17] {
            let bytes = vec![0u8; len];
            assert!(PageLocator::decode_all(&bytes, Path::new("c")).is_err());
        }
    }

    #[test]
    fn records_read_back_from_the_committed_prefix_and_a_torn_tail_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.pgs");
        let mut writer = PageFileWriter::create(&path, 1).unwrap();
        let first = writer
            .append(&pages::encode_record(4, &signatures(1, 3), 3))
            .unwrap();
        let committed = writer.sync().unwrap();
        let torn = writer
            .append(&pages::encode_record(5, &signatures(2, 2), 3))
            .unwrap();
        writer.sync().unwrap();
        drop(writer);

        let mut reader = PageFileReader::open(&path, committed).unwrap();
        assert_eq!(
            (first.file, first.offset, u64::from(first.len)),
            (1, 16, committed - 16)
        );
        let read = reader.read(&first, 4).unwrap();
        assert_eq!(read, signatures(1, 3));
        assert!(reader.read(&first, 5).is_err(), "a record of another book");
        assert!(
            reader.read(&torn, 5).is_err(),
            "a record past the committed length"
        );

        let mut writer = PageFileWriter::append_to(&path, 1, committed).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), committed);
        let second = writer
            .append(&pages::encode_record(6, &signatures(3, 4), 3))
            .unwrap();
        assert_eq!(second.offset, committed);
        let committed = writer.sync().unwrap();
        let mut reader = PageFileReader::open(&path, committed).unwrap();
        assert_eq!(reader.read(&second, 6).unwrap(), signatures(3, 4));
        assert_eq!(reader.read(&first, 4).unwrap(), signatures(1, 3));
    }

    #[test]
    fn a_file_shorter_than_its_committed_length_or_of_another_kind_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.pgs");
        let mut writer = PageFileWriter::create(&path, 1).unwrap();
        writer
            .append(&pages::encode_record(4, &signatures(1, 3), 3))
            .unwrap();
        let committed = writer.sync().unwrap();
        let error = PageFileReader::open(&path, committed + 1).unwrap_err();
        assert!(
            error.to_string().contains("page file is shorter"),
            "{error}"
        );
        let barrel = dir.path().join("000001.brl");
        crate::storage::barrel::BarrelWriter::create(&barrel).unwrap();
        assert!(PageFileReader::open(&barrel, 16).is_err());
    }
}
