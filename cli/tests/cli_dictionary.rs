//! `stemmata dictionary add|list|remove` and dictionaries in `stats`:
//! importing dictd files, and refusing bad ones with an error naming the
//! file, the index unchanged.

mod common;

use common::{run_ok, write_dictd};
use serde_json::Value;
use std::path::Path;

fn run_err(args: &[&str], dir: &Path) -> String {
    let output = common::run(common::cli().args(args).current_dir(dir));
    assert!(!output.status.success(), "{args:?} succeeded");
    common::stderr(&output)
}

const ENG_DEU: &[(&str, &str)] = &[
    ("00databaseshort", "00-database-short\n  English - German\n"),
    (
        "house",
        "house /haʊs/\nHaus <neut>, Gebäude <neut> [arch.]\n see: {houses}\n",
    ),
    (
        "go",
        "go /ɡəʊ/ <v>\ngehen <v, intr>, vor sich gehen\n      \"he goes\"  - er geht\n",
    ),
    ("give up", "give up\naufgeben\n"),
];

#[test]
fn add_list_stats_and_remove() {
    let dir = tempfile::tempdir().unwrap();
    write_dictd(dir.path(), "freedict-eng-deu", ENG_DEU);
    write_dictd(
        dir.path(),
        "freedict-fra-eng",
        &[("chat", "chat <n>\n1. cat\n2. tomcat\n")],
    );
    run_ok(&["create", "idx"], dir.path());
    let added = run_ok(
        &[
            "dictionary",
            "add",
            "idx",
            "freedict-eng-deu.index",
            "freedict-fra-eng.dict.dz",
        ],
        dir.path(),
    );
    assert!(
        added.contains("added freedict-eng-deu  eng->deu  2 headwords, 3 translation pairs"),
        "{added}"
    );
    let listed: Value = serde_json::from_str(&run_ok(
        &["dictionary", "list", "idx", "--json"],
        dir.path(),
    ))
    .unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert_eq!(listed[1]["name"], "freedict-fra-eng");
    assert_eq!(
        (&listed[1]["from"], &listed[1]["to"]),
        (&"fra".into(), &"eng".into())
    );
    assert_eq!(
        (&listed[1]["headwords"], &listed[1]["pairs"]),
        (&1.into(), &2.into())
    );
    let stats = run_ok(&["stats", "idx"], dir.path());
    assert!(stats.contains("dictionaries   2 ("), "{stats}");
    assert!(stats.contains("  freedict-fra-eng  fra->eng"), "{stats}");
    let stats: Value =
        serde_json::from_str(&run_ok(&["stats", "idx", "--json"], dir.path())).unwrap();
    assert_eq!(stats["dictionaries"], 2);
    assert_eq!(stats["dictionary_list"][0]["name"], "freedict-eng-deu");
    let verified = run_ok(&["verify", "idx"], dir.path());
    assert!(verified.contains("2 dictionaries"), "{verified}");
    run_ok(
        &["dictionary", "remove", "idx", "freedict-eng-deu"],
        dir.path(),
    );
    let error = run_err(
        &["dictionary", "remove", "idx", "freedict-eng-deu"],
        dir.path(),
    );
    assert!(
        error.contains("no dictionary named") && error.contains("freedict-fra-eng"),
        "{error}"
    );
    let listed = run_ok(&["dictionary", "list", "idx"], dir.path());
    assert_eq!(listed.lines().count(), 1, "{listed}");
}

#[test]
fn bad_files_are_refused_naming_them_and_the_index_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    run_ok(&["create", "idx"], dir.path());
    write_dictd(dir.path(), "freedict-fra-eng", &[("chat", "chat\ncat\n")]);
    run_ok(
        &["dictionary", "add", "idx", "freedict-fra-eng.index"],
        dir.path(),
    );
    let before = common::snapshot_files(&dir.path().join("idx/dictionaries"));
    // A missing .dict.dz.
    write_dictd(dir.path(), "freedict-spa-eng", &[("casa", "casa\nhouse\n")]);
    std::fs::remove_file(dir.path().join("freedict-spa-eng.dict.dz")).unwrap();
    // A truncated index: its last line lost its length.
    let cut = write_dictd(dir.path(), "freedict-ita-eng", &[("casa", "casa\nhouse\n")]);
    let text = std::fs::read_to_string(&cut).unwrap();
    std::fs::write(&cut, &text[..text.rfind('\t').unwrap()]).unwrap();
    // A garbled index, a garbled .dict.dz, and not a dictionary at all.
    write_dictd(dir.path(), "freedict-deu-eng", &[("Haus", "Haus\nhouse\n")]);
    std::fs::write(dir.path().join("freedict-deu-eng.index"), "Haus\t#?\tB\n").unwrap();
    write_dictd(dir.path(), "freedict-eng-fra", &[("cat", "cat\nchat\n")]);
    std::fs::write(dir.path().join("freedict-eng-fra.dict.dz"), "not gzip").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    for (file, named, what) in [
        (
            "freedict-spa-eng.index",
            "freedict-spa-eng.dict.dz",
            "No such file",
        ),
        ("freedict-ita-eng.index", "freedict-ita-eng.index", "line 1"),
        ("freedict-deu-eng.index", "freedict-deu-eng.index", "base64"),
        ("freedict-eng-fra.index", "freedict-eng-fra.dict.dz", "gzip"),
        ("notes.txt", "notes.txt", "not a dictd dictionary"),
    ] {
        let error = run_err(&["dictionary", "add", "idx", file], dir.path());
        assert!(
            error.contains(named) && error.contains(what),
            "{file}: {error}"
        );
    }
    assert!(common::snapshot_files(&dir.path().join("idx/dictionaries")) == before);
    let listed = run_ok(&["dictionary", "list", "idx"], dir.path());
    assert_eq!(listed.lines().count(), 1, "{listed}");
}

#[test]
fn help_explains_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let help = run_ok(&["dictionary", "--help"], dir.path());
    assert!(
        help.contains("/usr/share/dictd") && help.contains("freedict-XXX-YYY"),
        "{help}"
    );
    let help = run_ok(&["dictionary", "add", "--help"], dir.path());
    assert!(help.contains(".index, .dict.dz or .dict"), "{help}");
}
