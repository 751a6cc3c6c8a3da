//! `load --metadata FILE`: titles, authors and languages given beside the
//! texts, as a library's catalogue export gives them.
//!
//! The file is tab-separated with a header line. The column named `key`
//! (or `id`) names the book; the columns named `title`, `author` and
//! `language` (any others are ignored) give what the book's own file did
//! not, or replace what its Project Gutenberg header said.

use std::collections::HashMap;
use std::path::Path;

use stemmata::{Document, Error, Result};

/// Title, author and language by key.
#[derive(Debug, Default)]
pub struct Metadata {
    by_key: HashMap<String, [String; 3]>,
}

const FIELDS: [&str; 3] = ["title", "author", "language"];

impl Metadata {
    /// Reads the TSV file at `path`.
    pub fn read(path: &Path) -> Result<Metadata> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::InvalidArgument(format!(
                "{}: not UTF-8 (byte {}); metadata is UTF-8 tab-separated text",
                path.display(),
                e.utf8_error().valid_up_to()
            ))
        })?;
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
        let column = |name: &str| header.iter().position(|h| h.trim() == name);
        let key = column("key").or_else(|| column("id")).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{}: the header line names no `key` (or `id`) column; it has: {}",
                path.display(),
                header.join(", ")
            ))
        })?;
        let fields = FIELDS.map(column);
        let mut by_key = HashMap::new();
        for line in lines.filter(|line| !line.trim().is_empty()) {
            let cells: Vec<&str> = line.split('\t').collect();
            let Some(book) = cells.get(key) else {
                continue;
            };
            let value = |field: Option<usize>| {
                field
                    .and_then(|i| cells.get(i))
                    .map_or(String::new(), |cell| cell.trim().to_string())
            };
            by_key.insert(book.trim().to_string(), fields.map(value));
        }
        Ok(Metadata { by_key })
    }

    /// `document` with the title, author and language the file gives for
    /// its key (each only when the file's cell is not empty).
    pub fn apply(&self, document: Document) -> Document {
        let Some([title, author, language]) = self.by_key.get(&document.key) else {
            return document;
        };
        let mut document = document;
        if !title.is_empty() {
            document.title = title.clone();
        }
        if !author.is_empty() {
            document.author = author.clone();
        }
        if !language.is_empty() {
            document.language = language.clone();
        }
        document
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_the_books_it_lists_by_key_or_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("books.tsv");
        std::fs::write(
            &path,
            "id\tgutenberg_id\ttitle\tauthor\tlanguage\npg74\t74\tThe Adventures of Tom Sawyer\tTwain, Mark\ten\npg1\t1\t\t\t\n",
        )
        .unwrap();
        let metadata = Metadata::read(&path).unwrap();
        let tom = metadata.apply(Document::new("pg74", "text"));
        assert_eq!(tom.title, "The Adventures of Tom Sawyer");
        assert_eq!(tom.author, "Twain, Mark");
        assert_eq!(tom.language, "en");
        let kept = metadata.apply(Document::new("pg1", "text").with_title("From the header"));
        assert_eq!(kept.title, "From the header");
        assert_eq!(metadata.apply(Document::new("other", "text")).title, "");
    }

    #[test]
    fn a_header_without_a_key_column_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.tsv");
        std::fs::write(&path, "name\ttitle\nx\ty\n").unwrap();
        let error = Metadata::read(&path).unwrap_err().to_string();
        assert!(
            error.contains("meta.tsv") && error.contains("`key`"),
            "{error}"
        );
    }
}
