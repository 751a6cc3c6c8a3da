//! The one way the index directory is written: creating a file
//! (exclusively, never through a symbolic link), reopening a committed file
//! for appending (never through a link, regular files only), writing,
//! syncing a file or a directory, truncating, renaming, removing a file and
//! creating a directory. Read-only opens do not pass here.
//!
//! Every operation first calls [`before`] with what it is about to do and
//! the path it does it to. In the crate's own tests, `before` is the hook
//! of fault injection (the `faults` module): a test arms a directory and the N-th
//! operation under it fails, as an I/O error or as a crash after which
//! nothing more reaches the disk. In every other build it does nothing and
//! compiles away. The catalog's storage backend calls it too, so its
//! writes and syncs count among the operations.
//!
//! An index never holds links: a file about to be created where a link (or
//! a stale file a crashed writer left) lies is removed first, and a link in
//! place of a committed file or of one of the index's subdirectories is
//! refused with an error naming it.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::IoContext;
use crate::error::{Error, Result};

/// A write-side file operation, as [`before`] is told of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Creating a new file.
    Create,
    /// Opening an existing file for writing.
    Open,
    /// Writing bytes to a file.
    Write,
    /// Syncing a file's data, or a directory.
    Sync,
    /// Setting a file's length.
    Truncate,
    /// Renaming a file (the path is the one renamed).
    Rename,
    /// Removing a file.
    Remove,
    /// Creating a directory.
    CreateDir,
}

impl Op {
    /// The operation in messages.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Create => "create",
            Op::Open => "open for writing",
            Op::Write => "write",
            Op::Sync => "sync",
            Op::Truncate => "truncate",
            Op::Rename => "rename",
            Op::Remove => "remove",
            Op::CreateDir => "create directory",
        }
    }
}

/// Called before every write-side operation on the index directory: `op`
/// on `path`. Does nothing outside the crate's tests; there, it fails the
/// operation when a test armed a fault for it (`faults::arm`).
#[cfg(not(test))]
#[inline(always)]
pub(crate) fn before(_op: Op, _path: &Path) -> io::Result<()> {
    Ok(())
}

/// Called before every write-side operation on the index directory: `op`
/// on `path`. Fails it when a test armed a fault for it ([`faults::arm`]).
#[cfg(test)]
pub(crate) fn before(op: Op, path: &Path) -> io::Result<()> {
    faults::before(op, path)
}

/// The error for a symbolic link where the index keeps a file or a
/// directory of its own.
fn link_error(path: &Path) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: io::Error::other(
            "is a symbolic link; stemmata never writes through a link inside an index: \
             put the real file or directory in its place (or remove the link) and retry",
        ),
    }
}

/// `Err` naming `path` when it is a symbolic link; `Ok` when it is
/// anything else or does not exist. For the index's subdirectories, which
/// a writer must not follow out of the index.
pub(crate) fn refuse_link(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(link_error(path)),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).at(path),
    }
}

/// Refuses a symbolic link in place of the directory holding `path`.
fn refuse_linked_parent(path: &Path) -> Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => refuse_link(dir),
        _ => Ok(()),
    }
}

/// Options that never follow a link in the last component of a path.
fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options
}

/// Maps the error of an open that refused to follow a link (`ELOOP`) to
/// [`link_error`].
fn open_error(error: io::Error, path: &Path) -> Error {
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::ELOOP) {
        return link_error(path);
    }
    Error::Io {
        path: path.to_path_buf(),
        source: error,
    }
}

/// A file of the index opened for writing: every write, sync and length
/// change passes through the seam. Reads and seeks are plain.
#[derive(Debug)]
pub(crate) struct WriteFile {
    file: File,
    path: PathBuf,
}

impl WriteFile {
    /// Creates a new file at `path`: exclusively (an existing file or link
    /// there is an error) and never through a link, in a directory that is
    /// not a link.
    pub(crate) fn create_new(path: &Path) -> Result<WriteFile> {
        refuse_linked_parent(path)?;
        before(Op::Create, path).at(path)?;
        let file = no_follow(OpenOptions::new().read(true).write(true).create_new(true))
            .open(path)
            .map_err(|e| open_error(e, path))?;
        Ok(WriteFile {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Opens the existing regular file at `path` for reading and writing,
    /// never through a link: a link, a directory or any other kind of file
    /// there is an error naming it.
    pub(crate) fn open_existing(path: &Path) -> Result<WriteFile> {
        refuse_linked_parent(path)?;
        refuse_link(path)?;
        before(Op::Open, path).at(path)?;
        let file = no_follow(OpenOptions::new().read(true).write(true))
            .open(path)
            .map_err(|e| open_error(e, path))?;
        if !file.metadata().at(path)?.is_file() {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source: io::Error::other(
                    "is not a regular file; the index expects one of its files here",
                ),
            });
        }
        Ok(WriteFile {
            file,
            path: path.to_path_buf(),
        })
    }

    /// The file's length on disk.
    pub(crate) fn len_on_disk(&self) -> Result<u64> {
        Ok(self.file.metadata().at(&self.path)?.len())
    }

    /// Writes all of `bytes` at the current position.
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        before(Op::Write, &self.path).at(&self.path)?;
        self.file.write_all(bytes).at(&self.path)
    }

    /// Syncs the file's data (and the metadata needed to read it back).
    pub(crate) fn sync_data(&self) -> Result<()> {
        before(Op::Sync, &self.path).at(&self.path)?;
        self.file.sync_data().at(&self.path)
    }

    /// Syncs the file's data and metadata.
    pub(crate) fn sync_all(&self) -> Result<()> {
        before(Op::Sync, &self.path).at(&self.path)?;
        self.file.sync_all().at(&self.path)
    }

    /// Cuts or extends the file to `len` bytes.
    pub(crate) fn set_len(&self, len: u64) -> Result<()> {
        before(Op::Truncate, &self.path).at(&self.path)?;
        self.file.set_len(len).at(&self.path)
    }
}

impl Read for WriteFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.read(buf)
    }
}

impl Seek for WriteFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

/// Removes the file (or link: never its target) at `path`.
pub(crate) fn remove_file(path: &Path) -> Result<()> {
    before(Op::Remove, path).at(path)?;
    std::fs::remove_file(path).at(path)
}

/// Removes whatever file or link lies at `path`, where a writer is about
/// to create a new file that no commit lists yet: what is there was left
/// by a writer that stopped before its commit, or planted. Nothing there
/// is fine; a directory is an error.
pub(crate) fn remove_stale(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Err(Error::Io {
            path: path.to_path_buf(),
            source: io::Error::other(
                "is a directory where the index is about to create a file: remove it and retry",
            ),
        }),
        Ok(_) => remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).at(path),
    }
}

/// Renames `from` to `to`, replacing any file at `to`.
#[allow(dead_code)] // The seam's complete set; atomic replacement will use it.
pub(crate) fn rename(from: &Path, to: &Path) -> Result<()> {
    before(Op::Rename, from).at(from)?;
    std::fs::rename(from, to).at(from)
}

/// Creates the directory `path` and any missing parents; an existing
/// directory is fine, a link in its place is refused.
pub(crate) fn create_dir_all(path: &Path) -> Result<()> {
    refuse_link(path)?;
    if path.is_dir() {
        return Ok(());
    }
    before(Op::CreateDir, path).at(path)?;
    std::fs::create_dir_all(path).at(path)
}

/// Syncs the directory `dir`, making the names of files created in it
/// durable (a no-op where directories cannot be opened, as on Windows).
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    if !cfg!(unix) {
        return Ok(());
    }
    before(Op::Sync, dir).at(dir)?;
    match File::open(dir) {
        Ok(handle) => handle.sync_all().at(dir),
        Err(_) => Ok(()),
    }
}

/// Fault injection for the crate's tests: a registry of armed directories.
/// Every seam operation on a path under an armed directory counts; the
/// planned one fails, and after a [`Fault::Crash`] every later one fails
/// too, until the guard is dropped. Directories not armed are untouched,
/// so tests on other directories run in parallel unaffected.
#[cfg(test)]
pub(crate) mod faults {
    use super::Op;
    use std::io;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Mutex, MutexGuard};

    /// How the planned operation fails.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Fault {
        /// It returns an I/O error; later operations work.
        Error,
        /// It and every later operation fail: the process is dead as far
        /// as the disk is concerned.
        Crash,
    }

    /// Which operation fails, and how.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct FaultPlan {
        /// The failing operation, counted from 1 under the armed directory.
        pub at: u64,
        /// How it fails.
        pub kind: Fault,
    }

    struct Armed {
        id: u64,
        dirs: Vec<PathBuf>,
        plan: Option<FaultPlan>,
        operations: Vec<String>,
        fired: Option<(u64, String)>,
    }

    static REGISTRY: Mutex<Vec<Armed>> = Mutex::new(Vec::new());
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);

    fn registry() -> MutexGuard<'static, Vec<Armed>> {
        REGISTRY
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// An armed directory; dropping it disarms it.
    pub(crate) struct Guard {
        id: u64,
    }

    impl Guard {
        fn with<T>(&self, f: impl FnOnce(&Armed) -> T) -> T {
            let registry = registry();
            let armed = registry
                .iter()
                .find(|a| a.id == self.id)
                .expect("an armed directory stays registered until its guard drops");
            f(armed)
        }

        /// Operations counted so far.
        pub(crate) fn operations(&self) -> u64 {
            self.with(|a| a.operations.len() as u64)
        }

        /// Every operation counted so far, as "op path", in order.
        pub(crate) fn log(&self) -> Vec<String> {
            self.with(|a| a.operations.clone())
        }

        /// The planned operation, once it failed: its number and "op path".
        pub(crate) fn fired(&self) -> Option<(u64, String)> {
            self.with(|a| a.fired.clone())
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            registry().retain(|a| a.id != self.id);
        }
    }

    fn register(dir: &Path, plan: Option<FaultPlan>) -> Guard {
        let mut dirs = vec![dir.to_path_buf()];
        if let Ok(canonical) = dir.canonicalize() {
            if canonical != dir {
                dirs.push(canonical);
            }
        }
        let mut registry = registry();
        assert!(
            !registry.iter().any(|a| a
                .dirs
                .iter()
                .any(|d| d.starts_with(dir) || dir.starts_with(d))),
            "{} overlaps a directory armed already",
            dir.display()
        );
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        registry.push(Armed {
            id,
            dirs,
            plan,
            operations: Vec::new(),
            fired: None,
        });
        Guard { id }
    }

    /// Arms `dir`: the `plan.at`-th operation under it fails as planned.
    pub(crate) fn arm(dir: &Path, plan: FaultPlan) -> Guard {
        assert!(plan.at >= 1, "operations count from 1");
        register(dir, Some(plan))
    }

    /// Counts the operations under `dir` without failing any.
    pub(crate) fn count(dir: &Path) -> Guard {
        register(dir, None)
    }

    /// The hook: counts `op` on `path` under an armed directory, and fails
    /// it when it is the planned one or comes after a crash.
    pub(super) fn before(op: Op, path: &Path) -> io::Result<()> {
        let mut registry = registry();
        let Some(armed) = registry
            .iter_mut()
            .find(|a| a.dirs.iter().any(|d| path.starts_with(d)))
        else {
            return Ok(());
        };
        let what = format!("{} {}", op.name(), path.display());
        armed.operations.push(what.clone());
        let n = armed.operations.len() as u64;
        match (armed.plan, &armed.fired) {
            (Some(plan), None) if plan.at == n => {
                armed.fired = Some((n, what.clone()));
                Err(io::Error::other(format!(
                    "injected fault at operation {n}: {what}"
                )))
            }
            (
                Some(FaultPlan {
                    kind: Fault::Crash, ..
                }),
                Some((at, _)),
            ) => Err(io::Error::other(format!(
                "operation {n} ({what}) after an injected crash at operation {at}"
            ))),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::faults::{arm, count, Fault, FaultPlan};
    use super::*;

    /// Creates, writes, syncs, truncates, renames and removes one file in
    /// `dir`: nine operations.
    fn exercise(dir: &Path) -> Result<()> {
        create_dir_all(&dir.join("sub"))?;
        let path = dir.join("sub/a");
        let mut file = WriteFile::create_new(&path)?;
        file.write_all(b"hello")?;
        file.sync_data()?;
        sync_dir(&dir.join("sub"))?;
        drop(file);
        let file = WriteFile::open_existing(&path)?;
        file.set_len(2)?;
        rename(&path, &dir.join("sub/b"))?;
        remove_file(&dir.join("sub/b"))
    }

    #[test]
    fn operations_count_and_the_planned_one_fails_with_its_number_and_path() {
        let dir = tempfile::tempdir().unwrap();
        let counter = count(dir.path());
        exercise(dir.path()).unwrap();
        assert_eq!(counter.operations(), 9, "{:#?}", counter.log());
        assert!(counter.log()[2].starts_with("write "));
        assert!(counter.fired().is_none());
        drop(counter);

        for at in 1..=9 {
            let dir = tempfile::tempdir().unwrap();
            let armed = arm(
                dir.path(),
                FaultPlan {
                    at,
                    kind: Fault::Error,
                },
            );
            let error = exercise(dir.path()).unwrap_err().to_string();
            assert!(
                error.contains(&format!("injected fault at operation {at}: ")),
                "{error}"
            );
            let (fired, what) = armed.fired().unwrap();
            assert_eq!(fired, at);
            assert!(error.contains(&what), "{error} / {what}");
            assert_eq!(armed.operations(), at, "the operation stopped at the fault");
        }
    }

    #[test]
    fn an_error_fails_one_operation_and_a_crash_every_later_one_until_disarmed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let armed = arm(
            dir.path(),
            FaultPlan {
                at: 2,
                kind: Fault::Error,
            },
        );
        let mut file = WriteFile::create_new(&path).unwrap();
        assert!(file.write_all(b"x").is_err());
        file.write_all(b"y").unwrap();
        file.sync_data().unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"y",
            "the failed write wrote nothing"
        );
        drop(armed);

        let armed = arm(
            dir.path(),
            FaultPlan {
                at: 2,
                kind: Fault::Crash,
            },
        );
        let mut file = WriteFile::open_existing(&path).unwrap();
        assert!(file.write_all(b"z").is_err());
        let later = file.sync_data().unwrap_err().to_string();
        assert!(
            later.contains("after an injected crash at operation 2"),
            "{later}"
        );
        assert!(remove_file(&path).is_err());
        assert!(path.exists());
        drop(armed);
        file.write_all(b"z").unwrap();
        remove_file(&path).unwrap();
    }

    #[test]
    fn other_directories_are_not_counted_or_failed() {
        let (armed_dir, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let armed = arm(
            armed_dir.path(),
            FaultPlan {
                at: 1,
                kind: Fault::Crash,
            },
        );
        exercise(other.path()).unwrap();
        assert_eq!(armed.operations(), 0);
        assert!(exercise(armed_dir.path()).is_err());
        exercise(other.path().join("x").as_path()).unwrap();
        assert_eq!(armed.operations(), 1);
    }

    #[test]
    fn the_hook_counts_callers_outside_the_seam() {
        let dir = tempfile::tempdir().unwrap();
        let armed = arm(
            dir.path(),
            FaultPlan {
                at: 2,
                kind: Fault::Error,
            },
        );
        let path = dir.path().join("catalog.redb");
        assert!(before(Op::Write, &path).is_ok());
        let error = before(Op::Sync, &path).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("injected fault at operation 2: sync {}", path.display())
        );
        assert_eq!(armed.operations(), 2);
    }

    #[test]
    fn new_files_are_exclusive_and_never_made_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        WriteFile::create_new(&path).unwrap();
        assert!(WriteFile::create_new(&path).is_err(), "an existing file");
        remove_stale(&path).unwrap();
        assert!(!path.exists());
        remove_stale(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let error = remove_stale(&path).unwrap_err().to_string();
        assert!(error.contains("is a directory"), "{error}");
        assert!(WriteFile::open_existing(&path).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_refused_or_removed_and_their_targets_never_written() {
        use std::os::unix::fs::symlink;
        let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let target = outside.path().join("target");
        std::fs::write(&target, b"precious").unwrap();
        let link = dir.path().join("link");
        symlink(&target, &link).unwrap();

        assert!(WriteFile::create_new(&link).is_err());
        let error = WriteFile::open_existing(&link).unwrap_err().to_string();
        assert!(error.contains("is a symbolic link"), "{error}");
        remove_stale(&link).unwrap();
        assert!(
            std::fs::symlink_metadata(&link).is_err(),
            "the link is gone"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");
        WriteFile::create_new(&link)
            .unwrap()
            .write_all(b"new")
            .unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");

        let linked_dir = dir.path().join("sub");
        symlink(outside.path(), &linked_dir).unwrap();
        let error = create_dir_all(&linked_dir).unwrap_err().to_string();
        assert!(error.contains("sub: is a symbolic link"), "{error}");
        let error = WriteFile::create_new(&linked_dir.join("new"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("sub: is a symbolic link"), "{error}");
        assert!(WriteFile::open_existing(&linked_dir.join("target")).is_err());
        assert!(!outside.path().join("new").exists());
        assert!(refuse_link(&linked_dir).is_err());
        assert!(refuse_link(dir.path()).is_ok());
        assert!(refuse_link(&dir.path().join("missing")).is_ok());
    }
}
