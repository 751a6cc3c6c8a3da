//! Scanned-looking pages of real book text, with their ground truth: the
//! test collection of stemmata's word-image search
//! ([`stemmata::images`]).
//!
//! A text is set in a TrueType/OpenType font on book-like pages
//! ([`render`]: words split on whitespace, kerned, wrapped into lines and
//! pages, each paragraph's first line indented), and the exact box of every
//! word's ink is recorded ([`TruthWord`]). The pages are then degraded as
//! scans are ([`degrade`]: blur, speckle, ink bleed, skew, uneven light, or
//! all of them at once), deterministically from a seed, the boxes following
//! the skew. [`write_pages`] writes them as `DIR/pages/<prefix>-0001.png`…
//! with `DIR/truth.tsv`; `stemmata generate-pages` adds Tesseract's OCR of
//! each page beside it, so that the OCR labels are really noisy.
//!
//! # Fonts
//!
//! Any TrueType/OpenType file works ([`load_font`]). The test collection
//! uses these Debian packages' files:
//!
//! | package | file | face |
//! | --- | --- | --- |
//! | `fonts-dejavu-core` | `/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf` | DejaVu Serif |
//! | `fonts-liberation` | `/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf` | Liberation Serif |
//! | `fonts-ebgaramond` | `/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Regular.otf` | EB Garamond, a book face |
//! | `fonts-blankenburg` | `/usr/share/fonts/truetype/blankenburg/Blankenburg_UNZ1A.ttf` | Blankenburg, a blackletter |
//! | `fonts-dkg-handwriting` | `/usr/share/fonts/truetype/fifthhorseman/dkg.ttf` | DKG handwriting |
//!
//! A character the font lacks is replaced by a plain one where that is
//! close (curly quotes by straight ones, dashes by a hyphen, an ellipsis by
//! three full stops); a word that still has one is left out, so that the
//! truth text is always the ink on the page.
mod degrade;
mod error;
mod font;
mod render;
mod write;

pub use ab_glyph::FontVec;
pub use degrade::{degrade, Preset};
pub use error::Error;
pub use font::load_font;
pub use render::{draw_page, layout_pages, render, Layout, Page, PageLayout, TruthWord};
pub use write::{page_file_name, write_page_image, write_pages, TruthWriter};
