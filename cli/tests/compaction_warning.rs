//! A compaction runs after the commit that made a load's books durable: when
//! it fails, the load still succeeds, with the failure as a warning, and
//! the index stays valid.
//!
//! The failure is made by planting a directory where the compaction will
//! write its merged segment, once the load has taken its segment numbers
//! (a loader removes unlisted segment files when it starts and numbers
//! past any it cannot remove).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use stemmata::{Document, Index, LoadEvent, LoadOptions};

/// Nine books, each its own batch: nine segments, one more than a load
/// leaves uncompacted, so the load ends by merging them into segment 10.
fn docs(prefix: &str) -> Vec<Document> {
    (0..9u32)
        .map(|i| Document::new(format!("{prefix}{i}"), common::text(i * 200, 400)))
        .collect()
}

fn segment(dir: &Path, n: u32) -> PathBuf {
    dir.join("segments").join(format!("{n:06}.seg"))
}

fn one_book_per_batch() -> LoadOptions {
    LoadOptions::default().batch_books(1).threads(1)
}

#[test]
fn a_compaction_failing_after_the_last_commit_is_a_warning_and_the_index_stays_valid() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path()).unwrap();
    let plant = segment(dir.path(), 10);
    let mut loader = index.bulk_loader(one_book_per_batch()).unwrap();
    let target = plant.clone();
    loader.on_progress(move |event| {
        if let LoadEvent::Committed { books: 9 } = event {
            std::fs::create_dir(&target).unwrap();
        }
    });
    for doc in docs("a") {
        loader.add(doc).unwrap();
    }
    let stats = loader.finish().expect("every book was committed");
    assert_eq!((stats.books, stats.commits), (9, 9));
    let [warning] = &stats.warnings[..] else {
        panic!("one warning expected: {:?}", stats.warnings);
    };
    assert!(
        warning.contains("every book was committed, but compacting the sketch segments failed")
            && warning.contains(&plant.display().to_string())
            && warning.contains("the next load or delete compacts again"),
        "{warning}"
    );
    assert!(plant.is_dir(), "the planted directory was left alone");
    assert_eq!(index.stats().unwrap().segments, 9);
    assert_eq!(index.verify().unwrap().books, 9);
    drop(index);

    // Reopened, the index holds every book, and the next load compacts.
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.reader().unwrap().len(), 9);
    std::fs::remove_dir(&plant).unwrap();
    let stats = common::load_docs(&index, docs("b")[..1].to_vec(), 1);
    assert!(stats.warnings.is_empty(), "{:?}", stats.warnings);
    assert_eq!(index.stats().unwrap().segments, 1);
    assert_eq!(index.verify().unwrap().books, 10);
}

/// Makes a named pipe at `path`.
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c_path` is a valid NUL-terminated path that outlives the call.
    let made = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
    assert_eq!(made, 0, "mkfifo {}", path.display());
}

/// Opens the pipe at `path` for writing once `child` has opened it for
/// reading, failing if `child` exits first or takes over a minute.
fn open_for_writing(path: &Path, child: &mut std::process::Child) -> std::fs::File {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let started = std::time::Instant::now();
    loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(file) => {
                // SAFETY: fcntl on an open descriptor owned by `file`.
                let cleared = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, 0) };
                assert_eq!(cleared, 0);
                return file;
            }
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("stemmata exited before reading its input: {status}");
                }
                assert!(
                    started.elapsed().as_secs() < 60,
                    "stemmata never read its input"
                );
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn the_command_line_prints_the_warning_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let index_dir = dir.path().join("index");
    drop(Index::create(&index_dir).unwrap());
    let input = dir.path().join("books.jsonl");
    mkfifo(&input);
    let mut child = common::cli()
        .args(["load", "--batch-books", "1", "--threads", "1", "-q"])
        .arg(&index_dir)
        .arg(&input)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = open_for_writing(&input, &mut child);
    for doc in docs("a") {
        let text = String::from_utf8(doc.text).unwrap();
        let line = serde_json::json!({ "key": doc.key, "text": text });
        writeln!(pipe, "{line}").unwrap();
    }
    // A blank line larger than the pipe's buffer: once it is written, the
    // loader is reading, so it has taken its segment numbers, and it cannot
    // compact before the input ends.
    pipe.write_all(&vec![b' '; 1 << 20]).unwrap();
    pipe.write_all(b"\n").unwrap();
    let plant = segment(&index_dir, 10);
    std::fs::create_dir(&plant).unwrap();
    drop(pipe);
    let output = child.wait_with_output().unwrap();
    let stderr = common::stderr(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("warning: every book was committed, but compacting")
            && stderr.contains(&plant.display().to_string()),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("loaded 9 books"));
    let index = Index::open(&index_dir).unwrap();
    assert_eq!(index.verify().unwrap().books, 9);
}
