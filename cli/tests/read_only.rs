//! Reading needs only read access: `stats`, `query`, `pairs` and `verify`
//! never write a byte of the index, work on a read-only file system, and
//! run in many processes at once, beside a running load.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};

use stemmata::Index;

/// An index of a small generated collection in `dir`, loaded in batches of
/// 10; returns the keys.
fn small_index(dir: &Path) -> Vec<String> {
    let collection = common::small_collection(8, 3, 300, 600);
    let docs = common::documents(&collection);
    let keys = docs.iter().map(|d| d.key.clone()).collect();
    let index = Index::create(dir).unwrap();
    common::load_docs(&index, docs, 10);
    keys
}

/// Starts `stemmata load` of a second generated collection (seed `seed`,
/// written as .txt files under `scratch`) into `index`, one thread,
/// `batch` books per commit; returns the process and how many books it
/// loads.
fn start_load(index: &Path, scratch: &Path, seed: u64, batch: usize) -> (Child, usize) {
    let more = common::small_collection(60, seed, 2_000, 4_000);
    let texts = scratch.join("more");
    let books: Vec<(String, String)> = more
        .books
        .iter()
        .map(|b| (format!("more-{}", b.key), b.text.clone()))
        .collect();
    common::write_txt_books(&texts, &books);
    let load = common::cli()
        .arg("load")
        .arg(index)
        .arg(&texts)
        .args(["--batch-books", &batch.to_string(), "--threads", "1", "-q"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (load, books.len())
}

/// The read-only commands on the index in `dir`, for a book `key`.
fn read_commands(dir: &Path, key: &str) -> Vec<Command> {
    let mut commands = Vec::new();
    for args in [
        vec!["stats"],
        vec!["verify"],
        vec!["query", "--key", key],
        vec![
            "query",
            "--key",
            key,
            "--mode",
            "approximate",
            "--relations",
        ],
        vec!["pairs", "--relations"],
    ] {
        let mut command = common::cli();
        command.arg(args[0]).arg(dir).args(&args[1..]);
        commands.push(command);
    }
    commands
}

#[test]
fn read_only_commands_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let keys = small_index(dir.path());
    assert_read_commands_succeed_and_write_nothing(dir.path(), &keys[0]);
}

/// Runs every read-only command on the index in `dir` (for book `key`):
/// each succeeds and leaves every file of the index as it was.
fn assert_read_commands_succeed_and_write_nothing(dir: &Path, key: &str) {
    let before = common::snapshot_files(dir);
    for mut command in read_commands(dir, key) {
        let output = common::run(&mut command);
        assert!(
            output.status.success(),
            "{command:?}: {}",
            common::stderr(&output)
        );
        assert!(
            common::snapshot_files(dir) == before,
            "{command:?} wrote to the index"
        );
    }
}

/// Mounts `dir` read-only on `at` (a bind mount); false where this process
/// may not mount.
fn mount_read_only(dir: &Path, at: &Path) -> bool {
    let ok = |command: &mut Command| command.status().is_ok_and(|s| s.success());
    ok(Command::new("mount")
        .arg("--bind")
        .arg(dir)
        .arg(at)
        .stderr(Stdio::null()))
        && (ok(Command::new("mount")
            .args(["-o", "remount,ro,bind"])
            .arg(at)
            .stderr(Stdio::null()))
            || !ok(Command::new("umount").arg(at)))
}

#[test]
fn read_only_commands_work_on_a_read_only_file_system() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let keys = small_index(&index);
    let mount = dir.path().join("mount");
    std::fs::create_dir(&mount).unwrap();
    if !mount_read_only(&index, &mount) {
        // Mounting needs root: CI runs as root, so this is checked there.
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI must be able to mount a read-only file system"
        );
        eprintln!("skipped: this process may not mount a read-only file system");
        return;
    }
    let results: Vec<_> = read_commands(&mount, &keys[0])
        .iter_mut()
        .map(|command| (format!("{command:?}"), common::run(command)))
        .collect();
    let _ = Command::new("umount").arg(&mount).status();
    for (command, output) in results {
        assert!(
            output.status.success(),
            "{command}: {}",
            common::stderr(&output)
        );
    }
}

#[test]
fn many_processes_read_at_once_and_beside_a_load() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let keys = small_index(&index);
    let spawn_queries = |n: usize| -> Vec<std::process::Child> {
        (0..n)
            .map(|i| {
                common::cli()
                    .arg("query")
                    .arg(&index)
                    .args(["--key", &keys[i % keys.len()]])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect()
    };
    for child in spawn_queries(24) {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", common::stderr(&output));
    }

    // A load of a second collection runs while queries keep coming.
    let (mut load, more) = start_load(&index, dir.path(), 11, 5);
    let mut rounds = 0;
    while load.try_wait().unwrap().is_none() || rounds == 0 {
        for child in spawn_queries(4) {
            let output = child.wait_with_output().unwrap();
            assert!(output.status.success(), "{}", common::stderr(&output));
        }
        rounds += 1;
    }
    let output = load.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", common::stderr(&output));
    eprintln!("{rounds} rounds of 4 queries ran beside the load");
    let index = Index::open_read_only(&index).unwrap();
    assert_eq!(index.verify().unwrap().books as usize, keys.len() + more);
}

#[test]
fn readers_read_an_index_whose_writer_was_killed_without_writing_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let keys = small_index(&index);
    let (mut load, _) = start_load(&index, dir.path(), 12, 2);
    // Killed once it has committed a batch and while it still runs.
    let started = std::time::Instant::now();
    loop {
        let stored = Index::open_read_only(&index)
            .and_then(|i| i.stats())
            .map_or(0, |s| s.books as usize);
        if stored > keys.len() || started.elapsed().as_secs() > 60 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    load.kill().unwrap();
    let status = load.wait().unwrap();
    assert!(!status.success(), "the load finished before it was killed");

    assert_read_commands_succeed_and_write_nothing(&index, &keys[0]);
    // A writer then repairs it and goes on.
    let index = Index::open(&index).unwrap();
    assert!(index.verify().unwrap().books as usize > keys.len());
}
