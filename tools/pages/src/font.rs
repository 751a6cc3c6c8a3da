//! Loading a font file.

use ab_glyph::FontVec;
use std::path::Path;

use crate::Error;

/// The TrueType/OpenType font in `path` (its first face for a collection).
pub fn load_font(path: &Path) -> Result<FontVec, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    FontVec::try_from_vec(bytes).map_err(|e| Error::Font {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}
