//! Writing pages: `DIR/pages/<prefix>-0001.png`… and `DIR/truth.tsv`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Page};

/// The header line of `truth.tsv`.
const TRUTH_HEADER: &str = "page\tx0\ty0\tx1\ty1\tword";

/// The image file name of page `number` (from 1) of `prefix`:
/// `prefix-0001.png`.
pub fn page_file_name(prefix: &str, number: usize) -> String {
    format!("{prefix}-{number:04}.png")
}

/// Writes `pages` as `dir/pages/<prefix>-0001.png`… and their words to
/// `dir/truth.tsv` (replaced); returns the image paths.
pub fn write_pages(dir: &Path, pages: &[Page], prefix: &str) -> Result<Vec<PathBuf>, Error> {
    let mut truth = TruthWriter::create(dir)?;
    let mut paths = Vec::with_capacity(pages.len());
    for (index, page) in pages.iter().enumerate() {
        let name = page_file_name(prefix, index + 1);
        paths.push(write_page_image(dir, &name, page)?);
        truth.add_page(&name, page)?;
    }
    truth.finish()?;
    Ok(paths)
}

/// Writes `page`'s image as `dir/pages/<name>` (the folder created if
/// missing); returns its path.
pub fn write_page_image(dir: &Path, name: &str, page: &Page) -> Result<PathBuf, Error> {
    let folder = dir.join("pages");
    std::fs::create_dir_all(&folder).map_err(|source| Error::Io {
        path: folder.clone(),
        source,
    })?;
    let path = folder.join(name);
    page.image.save(&path).map_err(|source| Error::Image {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// `dir/truth.tsv`, written page by page: a header line, then one word a
/// line with its page's image file name and box.
pub struct TruthWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl TruthWriter {
    /// Creates (or replaces) `dir/truth.tsv`, `dir` too if missing, and
    /// writes its header.
    pub fn create(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join("truth.tsv");
        let file = File::create(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let mut writer = TruthWriter {
            path,
            out: BufWriter::new(file),
        };
        writer.line(TRUTH_HEADER)?;
        Ok(writer)
    }

    /// Adds the words of `page`, whose image is the file `name`.
    pub fn add_page(&mut self, name: &str, page: &Page) -> Result<(), Error> {
        for word in &page.words {
            let b = word.bbox;
            let line = format!(
                "{name}\t{}\t{}\t{}\t{}\t{}",
                b.x0, b.y0, b.x1, b.y1, word.text
            );
            self.line(&line)?;
        }
        Ok(())
    }

    /// Flushes the file.
    pub fn finish(mut self) -> Result<(), Error> {
        self.out.flush().map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }

    fn line(&mut self, line: &str) -> Result<(), Error> {
        writeln!(self.out, "{line}").map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }
}
