//! A load killed at any moment (SIGKILL) loses at most its uncommitted
//! batch: the index opens, verifies, keeps every earlier book unchanged and
//! holds whole batches of the killed load, each with the right sequence and
//! page signatures (the generated books have pages).

mod common;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stemmata::repr::{MinHashSig, UniqueWordSeq};
use stemmata::Index;

const BATCH: usize = 10;

/// About 200 small generated books split into two directories of .txt
/// files; returns the keys of each half in load order: by file name, which
/// differs from key order ("w00001-e1.txt" < "w00001.txt").
fn two_halves(root: &Path) -> (Vec<String>, Vec<String>) {
    let collection = common::small_collection(90, 7, 200, 500);
    let mut books: Vec<(String, String)> = collection
        .books
        .iter()
        .take(200)
        .map(|b| (b.key.clone(), b.text.clone()))
        .collect();
    assert_eq!(books.len(), 200);
    let second = books.split_off(100);
    common::write_txt_books(&root.join("first"), &books);
    common::write_txt_books(&root.join("second"), &second);
    let sorted = |half: &[(String, String)]| {
        let mut keys: Vec<String> = half.iter().map(|(k, _)| k.clone()).collect();
        keys.sort_by_key(|k| format!("{k}.txt"));
        keys
    };
    (sorted(&books), sorted(&second))
}

/// `stemmata load INDEX INPUT --batch-books 10 -q` and the given extra arguments.
fn load_command(index: &Path, input: &Path, extra: &[&str]) -> Command {
    let mut command = common::cli();
    command
        .arg("load")
        .arg(index)
        .arg(input)
        .args(["--batch-books", &BATCH.to_string(), "-q"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

fn load_to_end(index: &Path, input: &Path, extra: &[&str]) -> Duration {
    let started = Instant::now();
    let output = load_command(index, input, extra).output().unwrap();
    assert!(output.status.success(), "{}", common::stderr(&output));
    started.elapsed()
}

/// Starts a load and kills it after `delay`; true when it was killed
/// before finishing.
fn load_and_kill(index: &Path, input: &Path, extra: &[&str], delay: Duration) -> bool {
    let mut child = load_command(index, input, extra).spawn().unwrap();
    std::thread::sleep(delay);
    let _ = child.kill();
    let status = child.wait().unwrap();
    assert!(
        status.success() || status.signal() == Some(9),
        "load failed by itself: {status:?}"
    );
    !status.success()
}

/// What a book holds: its sequence and page signatures.
type Stored = (Vec<UniqueWordSeq>, Vec<MinHashSig>);

/// Opens and verifies the index; returns its books' sequences and page
/// signatures.
fn open_and_verify(dir: &Path) -> BTreeMap<String, Stored> {
    let index = Index::open(dir).expect("the index opens after a kill");
    let verified = index.verify().expect("the index verifies after a kill");
    let reader = index.reader().unwrap();
    let books: BTreeMap<String, Stored> = common::sequences_of(&index)
        .into_iter()
        .map(|(key, sequence)| {
            let pages = reader.pages(&key).unwrap();
            (key, (sequence, pages))
        })
        .collect();
    assert_eq!(verified.books as usize, books.len());
    let paged = books
        .values()
        .filter(|(_, pages)| !pages.is_empty())
        .count();
    assert_eq!(verified.paged_books as usize, paged);
    books
}

/// `n` delays from a few ms to `until` times the expected load time.
fn delays(expected: Duration, n: u32, until: f64) -> Vec<Duration> {
    (0..n)
        .map(|i| Duration::from_millis(3) + expected.mul_f64(i as f64 * until / (n - 1) as f64))
        .collect()
}

#[test]
fn a_load_killed_at_any_moment_keeps_earlier_books_and_whole_batches() {
    let root = tempfile::tempdir().unwrap();
    let (first_keys, second_keys) = two_halves(root.path());
    let (first, second) = (root.path().join("first"), root.path().join("second"));
    // One worker thread: books are written in file order, so what a killed
    // load committed is a prefix of the second half.
    let serial = ["--threads", "1"];

    let reference_dir = root.path().join("reference");
    load_to_end(&reference_dir, &first, &["--create"]);
    let expected = load_to_end(&reference_dir, &second, &serial);
    let reference = open_and_verify(&reference_dir);
    assert_eq!(reference.len(), 200);
    let paged = reference.values().filter(|(_, p)| !p.is_empty()).count();
    assert!(paged >= 100, "only {paged} of 200 books have pages");

    let dir = root.path().join("index");
    load_to_end(&dir, &first, &["--create"]);
    let loaded = open_and_verify(&dir);
    let mut keys = first_keys.clone();
    keys.sort();
    assert_eq!(
        loaded.keys().collect::<Vec<_>>(),
        keys.iter().collect::<Vec<_>>()
    );
    let mut present = 0;
    let mut kills = 0;
    // Each load starts over from the first file, so later kills reach further.
    for (i, delay) in delays(expected, 8, 0.6).into_iter().enumerate() {
        let killed = load_and_kill(&dir, &second, &serial, delay);
        let sequences = open_and_verify(&dir);
        for key in &first_keys {
            assert_eq!(
                sequences.get(key),
                Some(&reference[key]),
                "iteration {i}: {key}"
            );
        }
        let second_present: Vec<&String> = second_keys
            .iter()
            .filter(|k| sequences.contains_key(*k))
            .collect();
        let n = second_present.len();
        assert_eq!(sequences.len(), 100 + n, "iteration {i}: unknown books");
        assert!(
            n.is_multiple_of(BATCH) || n == second_keys.len(),
            "iteration {i}: {n} books of the killed load: half a batch"
        );
        assert_eq!(
            second_present,
            second_keys[..n].iter().collect::<Vec<_>>(),
            "iteration {i}: not a prefix"
        );
        assert!(
            n >= present,
            "iteration {i}: books were lost ({present} -> {n})"
        );
        for key in second_present {
            assert_eq!(sequences[key], reference[key], "iteration {i}: {key}");
        }
        present = n;
        kills += killed as u32;
        if !killed {
            assert_eq!(n, second_keys.len(), "a finished load committed everything");
        }
    }
    assert!(
        kills >= 2,
        "only {kills} loads were killed (a load takes {expected:?})"
    );

    // A clean load completes over whatever the kills left.
    load_to_end(&dir, &second, &[]);
    let sequences = open_and_verify(&dir);
    assert_eq!(sequences, reference);
    let output = common::run(common::cli().arg("verify").arg(&dir));
    assert!(output.status.success(), "{}", common::stderr(&output));
}

fn copy_index(from: &Path, to: &Path) {
    common::copy_dir(from, to);
}

#[test]
fn a_load_with_parallel_workers_killed_mid_way_commits_whole_batches_only() {
    let root = tempfile::tempdir().unwrap();
    let (first_keys, second_keys) = two_halves(root.path());
    let (first, second) = (root.path().join("first"), root.path().join("second"));
    let base = root.path().join("base");
    load_to_end(&base, &first, &["--create"]);
    let reference_dir = root.path().join("reference");
    copy_index(&base, &reference_dir);
    let expected = load_to_end(&reference_dir, &second, &["--threads", "2"]);
    let reference = open_and_verify(&reference_dir);

    // Attempts until two kills have landed between commits, each from the
    // first half alone, so the count of second-half books is exactly what
    // that load committed. The delay adapts: later after a kill that came
    // before the first commit, earlier after a load that got everything in.
    let mut partial = 0;
    let mut attempts = 0;
    let mut delay = expected / 2;
    while partial < 2 && attempts < 30 {
        let i = attempts;
        attempts += 1;
        let dir = root.path().join(format!("attempt{i}"));
        copy_index(&base, &dir);
        let killed = load_and_kill(&dir, &second, &["--threads", "2"], delay);
        let sequences = open_and_verify(&dir);
        assert!(first_keys.iter().all(|k| sequences[k] == reference[k]));
        let n = sequences.len() - first_keys.len();
        assert!(
            n.is_multiple_of(BATCH) || n == second_keys.len(),
            "attempt {i}: {n} books committed: half a batch"
        );
        for (key, sequence) in &sequences {
            assert_eq!(sequence, &reference[key], "attempt {i}: {key}");
        }
        if n == 0 {
            delay = delay.mul_f64(1.5);
        } else if n == second_keys.len() {
            delay = delay.mul_f64(0.6);
        } else {
            partial += killed as u32;
        }
        // The next load over the damage completes.
        load_to_end(&dir, &second, &[]);
        assert_eq!(open_and_verify(&dir), reference);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(
        partial >= 2,
        "only {partial} of {attempts} kills landed between commits ({expected:?})"
    );
}
