//! The bytes of an immutable file read in place: mapped read-only when
//! large, read into memory when small or built in memory.

use std::path::Path;

use crate::error::{IoContext, Result};

/// A file's bytes: mapped from the file, or held in memory.
pub enum MappedBytes {
    /// The file, mapped read-only.
    Mapped(memmap2::Mmap),
    /// Bytes in memory (a small file read whole, or bytes built in memory).
    Owned(Vec<u8>),
}

impl MappedBytes {
    /// The bytes of the file at `path`: mapped when it holds at least
    /// `map_at_least` bytes, else read. The caller's file kind must be
    /// immutable once written: writers replace such files, never change
    /// them, and removing a mapped file leaves the mapping valid.
    pub fn open(path: &Path, map_at_least: u64) -> Result<MappedBytes> {
        let file = std::fs::File::open(path).at(path)?;
        let len = file.metadata().at(path)?.len();
        if len >= map_at_least {
            // Safety: see above; the files mapped are never written in place.
            #[allow(unsafe_code)]
            let map = unsafe { memmap2::Mmap::map(&file) }.at(path)?;
            Ok(MappedBytes::Mapped(map))
        } else {
            Ok(MappedBytes::Owned(std::fs::read(path).at(path)?))
        }
    }
}

impl std::ops::Deref for MappedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            MappedBytes::Mapped(map) => map,
            MappedBytes::Owned(bytes) => bytes,
        }
    }
}

impl std::fmt::Debug for MappedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self {
            MappedBytes::Mapped(_) => "mapped",
            MappedBytes::Owned(_) => "owned",
        };
        write!(f, "{how} {} bytes", self.len())
    }
}
