//! Document sources: a directory tree of text files (`.txt`, `.text`), and
//! JSON Lines.
//!
//! Each yields `Result<Document>`: a document that cannot be read is an
//! `Err` naming its file (and line), which a loader records and skips.

use serde::Deserialize;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::Document;
use crate::error::IoContext;
use crate::error::{Error, Result};

/// Longest JSON Lines line accepted (256 MiB): a longer one is skipped.
pub const MAX_JSON_LINE_BYTES: usize = 256 << 20;

/// The text files under `dir` and its subdirectories (see
/// [`text_file_paths`]), in path order; key = file stem (see
/// [`read_text_file`]). Two files with the same stem in different folders
/// have the same key: a loader reports the later as replacing the earlier.
pub fn text_files(dir: &Path) -> Result<impl Iterator<Item = Result<Document>>> {
    Ok(text_file_paths(dir)?
        .into_iter()
        .map(|path| read_text_file(&path)))
}

/// Whether `path` names a text file: its extension is `txt` or `text`, in
/// any case (`.TXT`, `.Text`).
fn is_text_file_name(path: &Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| ext.eq_ignore_ascii_case("txt") || ext.eq_ignore_ascii_case("text"))
}

/// The paths of the text files (extension `txt` or `text`, in any case:
/// `.TXT`, `.Text`) under `dir`,
/// searched recursively, sorted by path. Symbolic links are followed; a
/// directory reached twice (a link loop) is read once, and a dangling link is
/// passed over. A directory that cannot be read is an error naming it.
pub fn text_file_paths(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut visited = HashSet::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        if let Ok(real) = std::fs::canonicalize(&current) {
            if !visited.insert(real) {
                continue;
            }
        }
        for entry in std::fs::read_dir(&current).at(&current)? {
            let path = entry.at(&current)?.path();
            let Ok(metadata) = std::fs::metadata(&path) else {
                continue;
            };
            if metadata.is_dir() {
                pending.push(path);
            } else if metadata.is_file() && is_text_file_name(&path) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Reads one text file as a document keyed by its file stem. A file whose
/// stem is not valid UTF-8 is a `BadDocument`, not read: made lossy, two
/// such names could become one key. Title and author come from a Project
/// Gutenberg header when the file has one: the `Title:` and `Author:` lines
/// (with their indented continuation lines) found before a
/// `*** START OF ... GUTENBERG ...` line in the first 100 lines; a text
/// without that marker gets none, whatever its body says. The text is the
/// whole file, header included.
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
    let header = gutenberg_header(&text).unwrap_or_default();
    Ok(Document {
        key,
        title: header.title,
        author: header.author,
        language: header.language,
        text,
        source_name: path.display().to_string(),
        ..Document::default()
    })
}

/// How many lines from the start of a text a Project Gutenberg start marker
/// is looked for in.
const GUTENBERG_HEADER_LINES: usize = 100;

/// How many bytes from the start of a text are decoded to look for a header.
const GUTENBERG_HEADER_BYTES: usize = 64 << 10;

/// Title and author read from a Project Gutenberg header.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct GutenbergHeader {
    /// The `Title:` field, its continuation lines joined with spaces; empty
    /// when the header has none.
    title: String,
    /// The `Author:` field, continuation lines (further authors) joined
    /// with `"; "`; empty when the header has none.
    author: String,
    /// The `Language:` field (`English`, `German`); empty when the header
    /// has none.
    language: String,
}

/// The title, author and language of a Project Gutenberg text, or `None` when it has
/// no header. The header is what comes before a `*** START OF ...
/// GUTENBERG ...` line found in the first 100 lines; `Title:` and `Author:`
/// and `Language:` fields are read from there only, so a text without that marker (one
/// whose header was cut off) gives `None` whatever its body says. A field
/// continues on the following indented lines. Bytes are decoded as the
/// loader decodes them (UTF-8, UTF-16 with a byte-order mark, or
/// windows-1252).
fn gutenberg_header(text: &[u8]) -> Option<GutenbergHeader> {
    let decoded = crate::text::decode(&text[..text.len().min(GUTENBERG_HEADER_BYTES)]);
    let lines: Vec<&str> = decoded.text.lines().take(GUTENBERG_HEADER_LINES).collect();
    let start = lines.iter().position(|line| is_start_marker(line))?;
    let header = &lines[..start];
    Some(GutenbergHeader {
        title: header_field(header, "title", " "),
        author: header_field(header, "author", "; "),
        language: header_field(header, "language", " "),
    })
}

fn is_start_marker(line: &str) -> bool {
    let line = line.trim().to_uppercase();
    line.starts_with("***") && line.contains("START OF") && line.contains("GUTENBERG")
}

/// The value of the first `name:` line of `header` (name in any case, at
/// the start of the line), with its indented continuation lines.
fn header_field(header: &[&str], name: &str, separator: &str) -> String {
    let mut lines = header.iter();
    let first = lines.by_ref().find_map(|line| {
        let (field, value) = line.split_once(':')?;
        field.eq_ignore_ascii_case(name).then_some(value)
    });
    let Some(first) = first else {
        return String::new();
    };
    let mut parts = vec![first.trim()];
    parts.extend(
        lines
            .take_while(|line| line.starts_with([' ', '\t']) && !line.trim().is_empty())
            .map(|line| line.trim()),
    );
    parts.retain(|part| !part.is_empty());
    parts.join(separator)
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

    #[test]
    fn text_files_are_found_recursively_with_any_case_of_txt_or_text() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub/deeper")).unwrap();
        std::fs::write(dir.path().join("sub/x.txt"), "ex").unwrap();
        std::fs::write(dir.path().join("sub/deeper/w.Text"), "double").unwrap();
        std::fs::write(dir.path().join("y.TXT"), "why").unwrap();
        std::fs::write(dir.path().join("z.text"), "zed").unwrap();
        std::fs::write(dir.path().join("skip.md"), "no").unwrap();
        std::fs::write(dir.path().join("sub/skip.txt.bak"), "no").unwrap();
        let keys: Vec<String> = text_files(dir.path())
            .unwrap()
            .map(|d| d.unwrap().key)
            .collect();
        assert_eq!(keys, ["w", "x", "y", "z"]);
        #[cfg(unix)]
        {
            // A link back up is read once, not forever.
            std::os::unix::fs::symlink(dir.path(), dir.path().join("sub/loop")).unwrap();
            assert_eq!(text_file_paths(dir.path()).unwrap().len(), 4);
        }
    }

    const MODERN_HEADER: &str =
        "\u{feff}The Project Gutenberg eBook of Kinder- und Hausmärchen\r\n\r\n\
        This ebook is for the use of anyone anywhere in the United States and\r\n\
        most other parts of the world at no cost.\r\n\r\n\
        Title: Kinder- und Hausmärchen\r\n        Gesammelt durch die Brüder Grimm\r\n\r\n\
        Author: Jacob Grimm\r\n        Wilhelm Grimm\r\n\r\n\
        Release date: June 1, 2004 [eBook #2591]\r\n\r\n\
        Language: German\r\n\r\n\
        *** START OF THE PROJECT GUTENBERG EBOOK KINDER- UND HAUSMÄRCHEN ***\r\n\r\n";

    const OLD_HEADER: &str =
        "The Project Gutenberg EBook of Pride and Prejudice, by Jane Austen\n\n\
        This eBook is for the use of anyone anywhere at no cost and with\n\
        almost no restrictions whatsoever.\n\n\
        Title: Pride and Prejudice\n\n\
        Author: Jane Austen\n\n\
        Posting Date: August 26, 2008 [EBook #1342]\n\n\
        ***START OF THIS PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE***\n\n";

    fn header_of(text: &str) -> Option<(String, String)> {
        gutenberg_header(text.as_bytes()).map(|h| (h.title, h.author))
    }

    #[test]
    fn gutenberg_headers_give_title_author_and_language() {
        let body = "Es war einmal ein König.\nTitle: Not this\nAuthor: Nor this\n";
        assert_eq!(
            header_of(&format!("{MODERN_HEADER}{body}")).unwrap(),
            (
                "Kinder- und Hausmärchen Gesammelt durch die Brüder Grimm".to_string(),
                "Jacob Grimm; Wilhelm Grimm".to_string()
            )
        );
        assert_eq!(
            header_of(&format!("{OLD_HEADER}{body}")).unwrap(),
            ("Pride and Prejudice".to_string(), "Jane Austen".to_string())
        );
        let modern = gutenberg_header(format!("{MODERN_HEADER}{body}").as_bytes()).unwrap();
        assert_eq!(modern.language, "German");
        assert_eq!(
            gutenberg_header(OLD_HEADER.as_bytes()).unwrap().language,
            ""
        );
        // A header in windows-1252 (an old etext) is decoded as the text is.
        let latin1: Vec<u8> = "Title: Les Mis\u{e9}rables\nAuthor: Victor Hugo\n\
             *** START OF THIS PROJECT GUTENBERG EBOOK LES MISERABLES ***\nLa suite"
            .chars()
            .map(|c| c as u8)
            .collect();
        let header = gutenberg_header(&latin1).unwrap();
        assert_eq!(
            (header.title.as_str(), header.author.as_str()),
            ("Les Misérables", "Victor Hugo")
        );
        // A header with a marker but no fields: empty, not body text.
        let fields = header_of(
            "The Project Gutenberg eBook\n\
             *** START OF THE PROJECT GUTENBERG EBOOK ***\nTitle: Body\nAuthor: Body\n",
        );
        assert_eq!(fields.unwrap(), (String::new(), String::new()));
    }

    #[test]
    fn texts_without_a_gutenberg_header_have_no_title_or_author() {
        // Fields with no start marker (a header cut off, or body text).
        assert_eq!(
            header_of("Author: Émile Zola\n\nTitle: Germinal\n\nLa plaine rase.\n"),
            None
        );
        assert_eq!(header_of(""), None);
        assert_eq!(header_of("Title: only a line"), None);
        // A marker past the first 100 lines is not a header's.
        let late = format!(
            "Title: Far\nAuthor: Away\n{}*** START OF THE PROJECT GUTENBERG EBOOK FAR ***\n",
            "a line of text\n".repeat(100)
        );
        assert_eq!(header_of(&late), None);
        // The same header within the limit is read.
        let near = format!(
            "Title: Near\nAuthor: By\n{}*** START OF THE PROJECT GUTENBERG EBOOK NEAR ***\n",
            "a line of text\n".repeat(90)
        );
        assert_eq!(header_of(&near).unwrap(), ("Near".into(), "By".into()));
        // An END marker or license text is not a start.
        assert_eq!(
            header_of("Title: T\n*** END OF THE PROJECT GUTENBERG EBOOK T ***\n"),
            None
        );
    }

    #[test]
    fn read_text_file_takes_title_and_author_and_keeps_the_text_whole() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{OLD_HEADER}It is a truth universally acknowledged.\n");
        let path = dir.path().join("pg1342.txt");
        std::fs::write(&path, &text).unwrap();
        let document = read_text_file(&path).unwrap();
        assert_eq!(document.key, "pg1342");
        assert_eq!(
            (document.title.as_str(), document.author.as_str()),
            ("Pride and Prejudice", "Jane Austen")
        );
        assert_eq!(document.text, text.as_bytes());
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, "Title: Not a header\nAuthor: Nobody\nwords").unwrap();
        let document = read_text_file(&plain).unwrap();
        assert_eq!(
            (document.title.as_str(), document.author.as_str()),
            ("", "")
        );
    }
}
