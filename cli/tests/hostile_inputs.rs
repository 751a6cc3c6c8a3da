//! Hostile inputs are refused, or handled, within bounded memory and time:
//! run under a 256 MiB address-space limit (`ulimit -v`), each either does
//! its work or ends with an error naming the file, never running out of
//! memory.
#![cfg(target_os = "linux")]

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Output;

/// Runs `stemmata args` in `dir` with at most 256 MiB of address space.
fn run_bounded(args: &[&str], dir: &Path) -> Output {
    common::run(
        std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 262144; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_stemmata"))
            .args(args)
            .current_dir(dir),
    )
}

/// `NAME.index` holding one entry of `len` bytes at `offset`, beside a
/// `NAME.dict.dz` of 512 MiB of zeros (half a megabyte compressed).
fn zero_bomb(dir: &Path, name: &str, offset: u64, len: u64) {
    let digits = |n: u64| stemmata_synth::dictd::number(n as usize);
    let index = format!("house\t{}\t{}\n", digits(offset), digits(len));
    std::fs::write(dir.join(format!("{name}.index")), index).unwrap();
    let file = std::fs::File::create(dir.join(format!("{name}.dict.dz"))).unwrap();
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..512 {
        gz.write_all(&zeros).unwrap();
    }
    gz.finish().unwrap();
}

#[test]
fn a_dictionary_of_compressed_zeros_is_read_only_as_far_as_its_index_reaches() {
    let dir = tempfile::tempdir().unwrap();
    common::run_ok(&["create", "idx"], dir.path());
    zero_bomb(dir.path(), "freedict-eng-fra", 0, 40);
    let output = run_bounded(
        &["dictionary", "add", "idx", "freedict-eng-fra.index"],
        dir.path(),
    );
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("freedict-eng-fra.index: corrupted: no entry with a one-word headword"),
        "{stderr}"
    );
    // An index reaching far into the zeros is refused before any is read.
    zero_bomb(dir.path(), "freedict-eng-deu", (512 << 20) - 100, 40);
    let output = run_bounded(
        &["dictionary", "add", "idx", "freedict-eng-deu.index"],
        dir.path(),
    );
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("freedict-eng-deu.index: corrupted: its entries (1) reach byte"),
        "{stderr}"
    );
}

/// A copy of the format-9 fixture's page image (1000×1500) with an hOCR of
/// `boxes` word boxes, each covering the whole page.
fn page_of_boxes(dir: &Path, boxes: usize) {
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    let fixture = common::repo_root().join("tests/fixtures/v9/pages/scan-0001.png");
    std::fs::copy(fixture, pages.join("scan-0001.png")).unwrap();
    let word = "<span class='ocrx_word' title='bbox 0 0 1000 1500'>w</span>";
    let hocr = format!(
        "<html><body><div class='ocr_page' title='bbox 0 0 1000 1500'>{}</div></body></html>",
        word.repeat(boxes)
    );
    std::fs::write(pages.join("scan-0001.hocr"), hocr).unwrap();
}

#[test]
fn a_page_of_200000_word_boxes_is_refused_naming_its_ocr_file() {
    let dir = tempfile::tempdir().unwrap();
    common::run_ok(&["create", "idx"], dir.path());
    page_of_boxes(dir.path(), 200_000);
    let output = run_bounded(&["images", "add", "idx", "--key", "k", "pages"], dir.path());
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("scan-0001.hocr: corrupted at byte")
            && stderr.contains("more than 20000 words on one page"),
        "{stderr}"
    );
}

#[test]
fn a_query_word_longer_than_any_word_image_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&common::repo_root().join("tests/fixtures/v9"), dir.path());
    let word = "garden".repeat(16_667);
    let output = run_bounded(&["spot", "index", &word], dir.path());
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("a query word of 100002 bytes: no word image is read as more than 1024"),
        "{stderr}"
    );
    // The longest word an OCR may give is still searched.
    let longest = "g".repeat(1024);
    common::run_ok(&["spot", "index", &longest, "-k", "1"], dir.path());
}
