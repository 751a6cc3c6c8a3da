//! Document sources: a directory of `.txt` files, and JSON Lines.
//!
//! Each yields `Result<Document>`: a document that cannot be read is an
//! `Err` naming its file (and line), which a loader records and skips.

use serde::Deserialize;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::Document;
use crate::error::IoContext;
use crate::{Error, Result};

/// Longest JSON Lines line accepted (256 MiB): a longer one is skipped.
pub const MAX_JSON_LINE_BYTES: usize = 256 << 20;

/// The `.txt` files of `dir` (not recursive), in name order; key = file
/// stem (see [`read_text_file`]).
pub fn text_files(dir: &Path) -> Result<impl Iterator<Item = Result<Document>>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .at(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "txt") && p.is_file())
        .collect();
    paths.sort();
    Ok(paths.into_iter().map(|path| read_text_file(&path)))
}

/// Reads one text file as a document keyed by its file stem. A file whose
/// stem is not valid UTF-8 is a `BadDocument`, not read: made lossy, two
/// such names could become one key.
pub fn read_text_file(path: &Path) -> Result<Document> {
    let key = match path.file_stem().map(|s| s.to_str()) {
        Some(Some(stem)) => stem.to_string(),
        Some(None) => {
            return Err(Error::BadDocument {
                source_name: path.display().to_string(),
                reason: "file name is not valid UTF-8, so it cannot be a key: rename the file, \
                         or load it through JSON Lines with its key given"
                    .into(),
            })
        }
        None => String::new(),
    };
    let text = std::fs::read(path).at(path)?;
    Ok(Document {
        key,
        text,
        source_name: path.display().to_string(),
        ..Document::default()
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonDocument {
    key: String,
    // Missing or null: empty.
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    author: Option<String>,
    #[serde(default)]
    language: Option<String>,
    text: Option<String>,
    pages: Option<Vec<String>>,
}

/// Parses one JSON Lines record: `{"key", "title"?, "author"?, "language"?,
/// and exactly one of "text" or "pages": [..]}`. Pages are joined with form
/// feeds; a title, author or language that is `null` is empty. `source_name`
/// names the line in errors.
pub fn parse_json_document(line: &[u8], source_name: &str) -> Result<Document> {
    let bad = |reason: String| Error::BadDocument {
        source_name: source_name.to_string(),
        reason,
    };
    let parsed: JsonDocument =
        serde_json::from_slice(line).map_err(|e| bad(format!("invalid JSON: {e}")))?;
    let text = match (parsed.text, parsed.pages) {
        (Some(text), None) => text,
        (None, Some(pages)) => pages.join("\x0c"),
        _ => return Err(bad("needs exactly one of \"text\" or \"pages\"".into())),
    };
    Ok(Document {
        key: parsed.key,
        title: parsed.title.unwrap_or_default(),
        author: parsed.author.unwrap_or_default(),
        language: parsed.language.unwrap_or_default(),
        text: text.into_bytes(),
        source_name: source_name.to_string(),
    })
}

/// The documents of a JSON Lines file, one per non-blank line.
pub fn json_lines(path: &Path) -> Result<impl Iterator<Item = Result<Document>>> {
    let file = File::open(path).at(path)?;
    Ok(json_lines_from_reader(
        BufReader::with_capacity(1 << 20, file),
        path,
    ))
}

/// The documents of JSON Lines read from `reader` (a `BufReader`, a byte
/// slice, locked standard input), one per non-blank line; a UTF-8
/// byte-order mark at the start of the input is skipped. `name` stands for
/// the source in messages, as `name:line`, and in I/O errors. After an I/O
/// error the iterator ends.
pub fn json_lines_from_reader<R: BufRead>(
    reader: R,
    name: &Path,
) -> impl Iterator<Item = Result<Document>> {
    JsonLines {
        reader,
        path: name.to_path_buf(),
        line_number: 0,
        buffer: Vec::new(),
        failed: false,
    }
}

struct JsonLines<R> {
    reader: R,
    path: PathBuf,
    line_number: u64,
    buffer: Vec<u8>,
    failed: bool,
}

/// What [`JsonLines::read_line`] found.
enum Line {
    /// End of input.
    End,
    /// A line, in the buffer (with its newline, if it had one).
    Complete,
    /// A line longer than [`MAX_JSON_LINE_BYTES`], consumed and dropped.
    Overlong,
}

impl<R: BufRead> JsonLines<R> {
    /// Reads the next line into `buffer`. A line whose content (newline not
    /// counted) exceeds the limit is consumed to its end and reported.
    fn read_line(&mut self) -> std::io::Result<Line> {
        self.buffer.clear();
        let limit = MAX_JSON_LINE_BYTES as u64 + 1;
        let read = (&mut self.reader)
            .take(limit)
            .read_until(b'\n', &mut self.buffer)?;
        if read == 0 {
            return Ok(Line::End);
        }
        let has_newline = self.buffer.last() == Some(&b'\n');
        if self.buffer.len() - has_newline as usize <= MAX_JSON_LINE_BYTES {
            return Ok(Line::Complete);
        }
        if !has_newline {
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let n = (&mut self.reader)
                    .take(1 << 20)
                    .read_until(b'\n', &mut rest)?;
                if n == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
        }
        Ok(Line::Overlong)
    }
}

impl<R: BufRead> Iterator for JsonLines<R> {
    type Item = Result<Document>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.failed {
                return None;
            }
            let line = match self.read_line() {
                Ok(line) => line,
                Err(source) => {
                    self.failed = true;
                    return Some(Err(Error::Io {
                        path: self.path.clone(),
                        source,
                    }));
                }
            };
            if let Line::End = line {
                return None;
            }
            self.line_number += 1;
            let source_name = format!("{}:{}", self.path.display(), self.line_number);
            if let Line::Overlong = line {
                return Some(Err(Error::BadDocument {
                    source_name,
                    reason: format!("line longer than {MAX_JSON_LINE_BYTES} bytes"),
                }));
            }
            let mut line = self.buffer.as_slice();
            if self.line_number == 1 {
                line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            }
            if line.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            return Some(parse_json_document(line, &source_name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn json_lines_accepts_text_or_pages_and_names_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("books.jsonl");
        let mut file = File::create(&path).unwrap();
        writeln!(file, r#"{{"key":"a","title":"T","text":"hello world"}}"#).unwrap();
        writeln!(file).unwrap();
        writeln!(file, r#"{{"key":"b","pages":["one","two"]}}"#).unwrap();
        writeln!(file, r#"{{"key":"c"}}"#).unwrap();
        writeln!(file, "not json").unwrap();
        drop(file);
        let items: Vec<_> = json_lines(&path).unwrap().collect();
        assert_eq!(items.len(), 4);
        let a = items[0].as_ref().unwrap();
        assert_eq!((a.key.as_str(), a.title.as_str()), ("a", "T"));
        assert_eq!(items[1].as_ref().unwrap().text, b"one\x0ctwo");
        let message = items[2].as_ref().unwrap_err().to_string();
        assert!(message.contains("books.jsonl:4") && message.contains("exactly one"));
        assert!(items[3].as_ref().unwrap_err().to_string().contains(":5"));
    }

    #[test]
    fn json_lines_from_reader_reads_in_memory_lines() {
        let input: &[u8] =
            b"{\"key\":\"a\",\"text\":\"x\"}\r\n \t\n[1]\n{\"key\":\"b\",\"text\":\"y\"}";
        let items: Vec<_> = json_lines_from_reader(input, Path::new("mem")).collect();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].as_ref().unwrap().source_name, "mem:1");
        assert!(items[1]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("mem:3"));
        assert_eq!(items[2].as_ref().unwrap().key, "b");
    }

    #[test]
    fn text_files_are_keyed_by_stem_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.txt"), "bee").unwrap();
        std::fs::write(dir.path().join("a.txt"), "ay").unwrap();
        std::fs::write(dir.path().join("skip.md"), "no").unwrap();
        let keys: Vec<String> = text_files(dir.path())
            .unwrap()
            .map(|d| d.unwrap().key)
            .collect();
        assert_eq!(keys, ["a", "b"]);
    }

    #[test]
    fn json_lines_skip_a_byte_order_mark_and_read_nulls_as_empty() {
        let input: &[u8] = b"\xEF\xBB\xBF{\"key\":\"a\",\"text\":\"x\"}\n\
            {\"key\":\"b\",\"title\":null,\"author\":null,\"language\":null,\"text\":\"y\"}\n\
            \xEF\xBB\xBF{\"key\":\"c\",\"text\":\"z\"}\n";
        let items: Vec<_> = json_lines_from_reader(input, Path::new("mem")).collect();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].as_ref().unwrap().key, "a");
        let b = items[1].as_ref().unwrap();
        assert_eq!(
            (b.key.as_str(), b.title.as_str(), b.author.as_str()),
            ("b", "", "")
        );
        assert!(b.language.is_empty());
        // A mark anywhere but at the start of the input is not skipped.
        let message = items[2].as_ref().unwrap_err().to_string();
        assert!(message.starts_with("mem:3") && message.contains("invalid JSON"));
        // A mark alone on the first line is a blank line.
        let input: &[u8] = b"\xEF\xBB\xBF\n{\"key\":\"d\",\"text\":\"w\"}\n";
        let items: Vec<_> = json_lines_from_reader(input, Path::new("mem")).collect();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].as_ref().unwrap().source_name, "mem:2");
    }

    #[cfg(unix)]
    #[test]
    fn text_files_whose_names_are_not_utf8_are_skipped_not_merged() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        for name in [&b"a\xff.txt"[..], b"a\xfe.txt", "a\u{FFFD}.txt".as_bytes()] {
            let path = dir.path().join(std::ffi::OsStr::from_bytes(name));
            std::fs::write(path, "words").unwrap();
        }
        let items: Vec<_> = text_files(dir.path()).unwrap().collect();
        assert_eq!(items.len(), 3);
        let keys: Vec<&str> = items
            .iter()
            .filter_map(|d| d.as_ref().ok())
            .map(|d| d.key.as_str())
            .collect();
        assert_eq!(keys, ["a\u{FFFD}"]);
        for item in items.iter().filter(|d| d.is_err()) {
            let message = item.as_ref().unwrap_err().to_string();
            assert!(
                message.contains("not valid UTF-8") && message.contains("rename"),
                "{message}"
            );
        }
    }
}
