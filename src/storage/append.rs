//! Append-only files, the common ground of barrels and page files: the
//! 16-byte header of their kind, then records back to back. Only the first
//! *committed length* bytes count, the length a catalog commit recorded
//! after the bytes were synced; bytes past it (a torn tail) are never read
//! and are cut off when the next writer reopens the file.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::codec::Encode;
use super::format::{sync_parent_dir, FileHeader, FileKind, HEADER_LEN};
use super::fs::{self, WriteFile};
use crate::error::IoContext;
use crate::error::{Error, Result};

/// Opens the file of `kind` at `path` for reading, checking that it holds
/// at least its `committed_len` bytes and starts with a header of that
/// kind; the file is left positioned after the header.
pub(crate) fn open_checked(path: &Path, kind: FileKind, committed_len: u64) -> Result<File> {
    open_with_header(path, kind, committed_len).map(|(file, _)| file)
}

/// [`open_checked`], with the file's header.
pub(crate) fn open_with_header(
    path: &Path,
    kind: FileKind,
    committed_len: u64,
) -> Result<(File, FileHeader)> {
    let mut file = File::open(path).at(path)?;
    let on_disk = file.metadata().at(path)?.len();
    let header = check_opened(&mut file, on_disk, path, kind, committed_len)?;
    Ok((file, header))
}

/// Checks the just opened `file` at `path`, `on_disk` bytes long: at least
/// its `committed_len` bytes, and a header of `kind`, which it reads.
fn check_opened(
    file: &mut impl Read,
    on_disk: u64,
    path: &Path,
    kind: FileKind,
    committed_len: u64,
) -> Result<FileHeader> {
    if on_disk < committed_len {
        return Err(Error::corrupted_at(
            path.to_path_buf(),
            on_disk,
            format!(
                "{} is shorter than its committed length {committed_len}",
                kind.noun()
            ),
        ));
    }
    let mut header = [0u8; HEADER_LEN];
    file.read_exact(&mut header).at(path)?;
    FileHeader::decode_from(&header, kind, path)
}

/// Reads the `len` bytes at `offset` of `file` (at `path`), which must lie
/// in its committed prefix after the header (`committed_len` bytes):
/// `Corrupted` otherwise, naming the file. The one positioned read of
/// barrels and page files.
pub(crate) fn read_committed(
    file: &mut File,
    path: &Path,
    committed_len: u64,
    offset: u64,
    len: u32,
) -> Result<Vec<u8>> {
    let end = offset.checked_add(u64::from(len));
    if offset < HEADER_LEN as u64 || end.is_none_or(|end| end > committed_len) {
        return Err(Error::corrupted_at(path.to_path_buf(), offset, format!(
                "a record of {len} bytes at {offset} lies outside the committed {committed_len} bytes"
            )));
    }
    let mut bytes = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(offset)).at(path)?;
    file.read_exact(&mut bytes).at(path)?;
    Ok(bytes)
}

/// Checks a committed file the way opening an index does: its length and
/// its header, nothing more.
pub fn check(path: &Path, kind: FileKind, committed_len: u64) -> Result<()> {
    open_checked(path, kind, committed_len).map(drop)
}

/// Appends records to one file, buffering them until [`sync`](Self::sync).
#[derive(Debug)]
pub struct AppendWriter {
    file: WriteFile,
    len: u64,
    pending: Vec<u8>,
}

impl AppendWriter {
    /// Starts a new file of `kind` at `path`, a path no commit lists: any
    /// file there (left by a writer that stopped before its commit) or
    /// link (planted: never followed, its target is left alone) is removed
    /// first, then the file is created exclusively.
    pub fn create(path: &Path, kind: FileKind) -> Result<Self> {
        fs::remove_stale(path)?;
        let mut file = WriteFile::create_new(path)?;
        let mut header = Vec::with_capacity(HEADER_LEN);
        FileHeader::new(kind).encode_into(&mut header);
        file.write_all(&header)?;
        sync_parent_dir(path)?;
        Ok(AppendWriter {
            file,
            len: HEADER_LEN as u64,
            pending: Vec::new(),
        })
    }

    /// Reopens a file of `kind` for appending after its last committed
    /// record, cutting off any torn tail beyond `committed_len`. Only a
    /// regular file is reopened, never through a link.
    pub fn append_to(path: &Path, kind: FileKind, committed_len: u64) -> Result<Self> {
        let mut file = WriteFile::open_existing(path)?;
        let on_disk = file.len_on_disk()?;
        check_opened(&mut file, on_disk, path, kind, committed_len)?;
        file.set_len(committed_len)?;
        file.seek(SeekFrom::Start(committed_len)).at(path)?;
        Ok(AppendWriter {
            file,
            len: committed_len,
            pending: Vec::new(),
        })
    }

    /// Appends the record `encode` writes into the buffer; returns its
    /// offset and length.
    pub fn append(&mut self, encode: impl FnOnce(&mut Vec<u8>)) -> (u64, u64) {
        let (offset, start) = (self.len, self.pending.len());
        encode(&mut self.pending);
        let len = (self.pending.len() - start) as u64;
        self.len += len;
        (offset, len)
    }

    /// Length the file will have once synced.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when only the header is written.
    pub fn is_empty(&self) -> bool {
        self.len == HEADER_LEN as u64
    }

    /// Writes buffered records and syncs them to disk; returns the length to commit.
    pub fn sync(&mut self) -> Result<u64> {
        self.file.write_all(&self.pending)?;
        self.pending.clear();
        self.file.sync_data()?;
        Ok(self.len)
    }
}
