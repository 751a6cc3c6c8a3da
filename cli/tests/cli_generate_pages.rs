//! `stemmata generate-pages`: page images and truth.tsv from a short text,
//! and errors that name the file at fault.

use std::process::Command;

const DEJAVU_SERIF: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf";

fn stemmata() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stemmata"))
}

/// A short text of about 400 words in a few paragraphs.
fn write_text(dir: &std::path::Path) -> std::path::PathBuf {
    let paragraph = "It is a truth universally acknowledged, that a single man in possession \
of a good fortune, must be in want of a wife. However little known the feelings or views of \
such a man may be on his first entering a neighbourhood, this truth is so well fixed in the \
minds of the surrounding families, that he is considered the rightful property of some one \
or other of their daughters.";
    let path = dir.join("austen.txt");
    std::fs::write(&path, [paragraph; 6].join("\n\n")).unwrap();
    path
}

#[test]
fn generate_pages_writes_pages_and_their_truth_without_ocr() {
    assert!(
        std::path::Path::new(DEJAVU_SERIF).is_file(),
        "this test needs Debian's fonts-dejavu-core ({DEJAVU_SERIF})"
    );
    let dir = tempfile::tempdir().unwrap();
    let text = write_text(dir.path());
    let out = dir.path().join("pages-out");
    let output = stemmata()
        .args([
            "generate-pages",
            "--ocr",
            "none",
            "--quiet",
            "--font",
            DEJAVU_SERIF,
            "--text",
        ])
        .arg(&text)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let truth = std::fs::read_to_string(out.join("truth.tsv")).unwrap();
    let mut lines = truth.lines();
    assert_eq!(lines.next(), Some("page\tx0\ty0\tx1\ty1\tword"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    let words: Vec<&str> = rows.iter().map(|r| r[5]).collect();
    let given = std::fs::read_to_string(&text).unwrap();
    assert_eq!(words, given.split_whitespace().collect::<Vec<_>>());
    for row in &rows {
        let image = out.join("pages").join(row[0]);
        assert!(image.is_file(), "{}", image.display());
        let [x0, y0, x1, y1] = [1, 2, 3, 4].map(|i| row[i].parse::<u32>().unwrap());
        assert!(x0 < x1 && y0 < y1 && x1 <= 1000 && y1 <= 1500, "{row:?}");
    }
    let first = std::fs::File::open(out.join("pages/austen-0001.png")).unwrap();
    let reader = png::Decoder::new(first).read_info().unwrap();
    assert_eq!((reader.info().width, reader.info().height), (1000, 1500));
    assert!(!out.join("pages/austen-0001.hocr").exists());
}

#[test]
fn generate_pages_names_a_font_file_that_is_not_a_font() {
    let dir = tempfile::tempdir().unwrap();
    let text = write_text(dir.path());
    let font = dir.path().join("fake.ttf");
    std::fs::write(&font, "plain text").unwrap();
    let output = stemmata()
        .args(["generate-pages", "--ocr", "none", "--quiet", "--text"])
        .arg(&text)
        .arg("--font")
        .arg(&font)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("fake.ttf"), "{message}");
    assert!(
        message.contains("not a TrueType/OpenType font"),
        "{message}"
    );
}

#[test]
fn generate_pages_degrades_by_a_named_preset_and_refuses_an_unknown_one() {
    let dir = tempfile::tempdir().unwrap();
    let text = write_text(dir.path());
    let run = |preset: &str, out: &str| {
        stemmata()
            .args([
                "generate-pages",
                "--ocr",
                "none",
                "--quiet",
                "--degrade",
                preset,
            ])
            .args(["--seed", "5", "--text"])
            .arg(&text)
            .arg("--out")
            .arg(dir.path().join(out))
            .output()
            .unwrap()
    };
    let heavy = run("heavy", "heavy");
    assert!(
        heavy.status.success(),
        "{}",
        String::from_utf8_lossy(&heavy.stderr)
    );
    assert!(dir.path().join("heavy/pages/austen-0001.png").is_file());
    let again = run("heavy", "again");
    assert!(again.status.success());
    let read =
        |out: &str| std::fs::read(dir.path().join(out).join("pages/austen-0001.png")).unwrap();
    assert_eq!(
        read("heavy"),
        read("again"),
        "the same seed writes the same page"
    );

    let unknown = run("smudge", "smudge");
    assert!(!unknown.status.success());
    let message = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        message.contains("clean, blur, noise, bleed, skew, contrast, heavy"),
        "{message}"
    );
}

#[test]
fn generate_pages_without_tesseract_says_which_package_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let text = write_text(dir.path());
    let empty_path = dir.path().join("no-programs");
    std::fs::create_dir(&empty_path).unwrap();
    let output = stemmata()
        .env("PATH", &empty_path)
        .args(["generate-pages", "--quiet", "--ocr", "hocr", "--text"])
        .arg(&text)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("tesseract-ocr"), "{message}");
    assert!(message.contains("--ocr none"), "{message}");
}
