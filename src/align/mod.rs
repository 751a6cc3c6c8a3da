//! Alignment of unique-word sequences: the LCS through the longest
//! increasing subsequence, the naive dynamic-programming LCS it replaces,
//! and the scores and bounds the planner prunes with.

mod lcs;
mod score;

pub use lcs::{lcs_len_dp, lis_indices, lis_len, lis_len_by, Overlap, SequenceIndex};
pub use score::Score;
