//! A storage backend for redb that reads a file opened read-only and keeps
//! every write in memory: the way to read a catalog whose last writer
//! crashed (redb repairs its bookkeeping on open, and the repair lands in
//! memory, not in the file), and to run redb's integrity check without
//! touching the file.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::sync::Mutex;

use redb::StorageBackend;

/// Bytes per block of the overlay.
const BLOCK: u64 = 4096;

/// A read-only file seen through the writes made to it in memory.
#[derive(Debug)]
pub(crate) struct MemoryOverlay {
    file: File,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// The length writers see.
    len: u64,
    /// The length of the file on disk when opened: bytes past it read as
    /// zero until written.
    file_len: u64,
    /// Written blocks by number, each `BLOCK` bytes.
    blocks: BTreeMap<u64, Vec<u8>>,
}

impl MemoryOverlay {
    /// An overlay over `file`, which is only ever read.
    pub(crate) fn new(file: File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(MemoryOverlay {
            file,
            state: Mutex::new(State {
                len,
                file_len: len,
                blocks: BTreeMap::new(),
            }),
        })
    }

    fn state(&self) -> io::Result<std::sync::MutexGuard<'_, State>> {
        self.state
            .lock()
            .map_err(|_| io::Error::other("overlay lock poisoned"))
    }

    /// Block `number` as the file and earlier writes make it.
    fn block(&self, state: &State, number: u64) -> io::Result<Vec<u8>> {
        if let Some(block) = state.blocks.get(&number) {
            return Ok(block.clone());
        }
        let mut block = vec![0u8; BLOCK as usize];
        let start = number * BLOCK;
        if start < state.file_len {
            let end = (start + BLOCK).min(state.file_len);
            read_exact_at(
                &self.file,
                span_mut(&mut block, 0, (end - start) as usize)?,
                start,
            )?;
        }
        Ok(block)
    }
}

impl StorageBackend for MemoryOverlay {
    fn len(&self) -> io::Result<u64> {
        Ok(self.state()?.len)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let state = self.state()?;
        let end = offset
            .checked_add(out.len() as u64)
            .filter(|&end| end <= state.len)
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        let mut at = offset;
        while at < end {
            let number = at / BLOCK;
            let within = (at % BLOCK) as usize;
            let n = ((BLOCK as usize) - within).min((end - at) as usize);
            let done = (at - offset) as usize;
            let into = span_mut(out, done, n)?;
            match state.blocks.get(&number) {
                Some(block) => into.copy_from_slice(span(block, within, n)?),
                None => into.copy_from_slice(span(&self.block(&state, number)?, within, n)?),
            }
            at += n as u64;
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = self.state()?;
        if len < state.len {
            // Bytes cut off read as zero if the file grows again.
            let first_cut = len / BLOCK;
            if !len.is_multiple_of(BLOCK) {
                let mut block = self.block(&state, first_cut)?;
                let cut = (len % BLOCK) as usize;
                span_mut(&mut block, cut, BLOCK as usize - cut)?.fill(0);
                state.blocks.insert(first_cut, block);
            }
            let from = len.div_ceil(BLOCK);
            state.blocks.retain(|&number, _| number < from);
            state.file_len = state.file_len.min(len);
        }
        state.len = len;
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut state = self.state()?;
        let end = offset
            .checked_add(data.len() as u64)
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        let mut at = offset;
        while at < end {
            let number = at / BLOCK;
            let within = (at % BLOCK) as usize;
            let n = ((BLOCK as usize) - within).min((end - at) as usize);
            let mut block = self.block(&state, number)?;
            let done = (at - offset) as usize;
            span_mut(&mut block, within, n)?.copy_from_slice(span(data, done, n)?);
            state.blocks.insert(number, block);
            at += n as u64;
        }
        state.len = state.len.max(end);
        Ok(())
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, offset)
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<()> {
    let mut done = 0;
    while done < out.len() {
        let n =
            std::os::windows::fs::FileExt::seek_read(file, &mut out[done..], offset + done as u64)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        done += n;
    }
    Ok(())
}

/// The `n` bytes of `bytes` from `from`; an I/O error, not a panic, if the
/// block arithmetic ever pointed outside them.
fn span(bytes: &[u8], from: usize, n: usize) -> io::Result<&[u8]> {
    from.checked_add(n)
        .and_then(|end| bytes.get(from..end))
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))
}

/// [`span`], mutable.
fn span_mut(bytes: &mut [u8], from: usize, n: usize) -> io::Result<&mut [u8]> {
    from.checked_add(n)
        .and_then(|end| bytes.get_mut(from..end))
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn writes_stay_in_memory_and_reads_see_them() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let original: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        file.write_all(&original).unwrap();
        let overlay = MemoryOverlay::new(File::open(file.path()).unwrap()).unwrap();
        overlay.write(4090, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        overlay.write(12_000, &[9; 10]).unwrap();
        assert_eq!(overlay.len().unwrap(), 12_010);
        let mut out = vec![0u8; 12_010];
        overlay.read(0, &mut out).unwrap();
        let mut expected = original.clone();
        expected[4090..4098].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        expected.resize(12_000, 0);
        expected.extend([9; 10]);
        assert_eq!(out, expected);
        overlay.set_len(4092).unwrap();
        overlay.set_len(5000).unwrap();
        let mut out = vec![0u8; 5000];
        overlay.read(0, &mut out).unwrap();
        assert_eq!(&out[..4090], &original[..4090]);
        assert_eq!(&out[4090..4092], &[1, 2]);
        assert!(out[4092..].iter().all(|&b| b == 0));
        assert!(overlay.read(4999, &mut [0u8; 2]).is_err());
        assert_eq!(std::fs::read(file.path()).unwrap(), original);
    }
}
