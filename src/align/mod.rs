//! Alignment: of unique-word sequences (the LCS through the longest
//! increasing subsequence, the naive dynamic-programming LCS it replaces,
//! and the scores and bounds the planner prunes with), and of whole texts
//! (RETAS, and the OCR accuracy measured through it). RTA, the alignment of
//! a text with its translation, runs RETAS's word stages with another
//! relation between words ([`crate::translate::rta`]).

mod accuracy;
mod lcs;
mod retas;
mod score;

pub use accuracy::{ocr_accuracy, OcrAccuracy, STOP_WORDS};
pub(crate) use lcs::ElementIndex;
pub use lcs::{
    lcs_len_dp, lis_indices, lis_len, lis_len_by, lis_span, trim_strays, AlignScratch, Overlap,
    SequenceIndex, MIN_STRAY_GAP, STRAY_GAP_FACTOR,
};
pub use retas::{
    align_texts, AlignedSpan, Alignment, CharEdits, RetasOptions, RetasStats, SpanKind, WordMatch,
};
pub(crate) use retas::{byte_range, WordAligner, WordRelation, WordTexts};
pub(crate) use score::lcs_beyond_chance;
pub use score::{Score, MIN_SPAN_SHARE};
