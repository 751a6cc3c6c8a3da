//! The errors of this crate, each naming its file.

use std::fmt;
use std::path::PathBuf;

/// A file that could not be read, parsed or written.
#[derive(Debug)]
pub enum Error {
    /// Reading or writing `path` failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// `path` is not a TrueType/OpenType font this crate can read.
    Font {
        /// The font file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Encoding or writing the image `path` failed.
    Image {
        /// The image file.
        path: PathBuf,
        /// What the encoder said.
        source: image::ImageError,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Font { path, reason } => write!(
                f,
                "{}: not a TrueType/OpenType font ({reason})",
                path.display()
            ),
            Error::Image { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Font { .. } => None,
            Error::Image { source, .. } => Some(source),
        }
    }
}
