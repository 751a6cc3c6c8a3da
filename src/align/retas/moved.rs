//! The second, non-monotone pass of RETAS: passages that the in-order
//! alignment left unaligned in A and in B and that match each other out of
//! order, as when a passage was moved between two editions.
//!
//! 1. **Remainders**: the words of A and of B outside the in-order spans,
//!    as the gaps between those spans (gap `k` lies before span `k`, in A
//!    and in B). Gaps of fewer than [`RetasOptions::min_moved_words`] words
//!    cannot hold a block and are left out.
//! 2. **Anchors**: the words that occur exactly once in the remainder of A
//!    and once in that of B, and have a matching neighbour (the word before
//!    or after matches too): a lone shared word is as likely chance.
//! 3. **Runs**: anchors that follow each other in A and whose positions in
//!    B follow each other too (consecutive among the anchors in both
//!    texts: one diagonal), within one gap of A and one gap of B. Runs of
//!    fewer than [`MIN_RUN_ANCHORS`] anchors are dropped.
//! 4. **Blocks**: each run, from its first anchor to its last, widened at
//!    both ends over the words that match exactly, is aligned like two
//!    texts: recursion, leaves and characters, with the same options and
//!    caps. A block whose spans hold fewer than `min_moved_words` words of
//!    A is dropped: a common phrase is not a moved passage.
//!
//! A block in gap `k` of both texts that lies after the earlier blocks of
//! that gap in B is in order: the in-order alignment missed it, and its
//! spans are not marked moved. The spans of every other block are.

use std::ops::Range;

use super::anchors::WordAligner;
use super::spans;
use super::words::WordTexts;
use super::{AlignedSpan, RetasOptions, RetasStats};

/// Fewest anchors in a run that is aligned as a block.
pub const MIN_RUN_ANCHORS: usize = 3;

/// An anchor: a word of A at `a` matching a word of B at `b`, with the
/// gaps (indexes into the remainders) they lie in.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    a: u32,
    b: u32,
    gap_a: usize,
    gap_b: usize,
}

/// A run of anchors widened into a pair of word ranges to align.
#[derive(Debug, Clone)]
struct Block {
    a: Range<u32>,
    b: Range<u32>,
    gap_a: usize,
    gap_b: usize,
}

/// Word ranges of the remainders: the gaps between the in-order spans in
/// A and in B.
type Gaps = (Vec<Range<u32>>, Vec<Range<u32>>);

/// The spans of the second pass over the texts whose in-order spans are
/// `in_order` (see the module docs), in order of A, overlapping neither
/// `in_order` nor each other in either text. Counts the moved spans and
/// the work in `stats`.
pub fn find(
    texts: &WordTexts,
    in_order: &[AlignedSpan],
    options: &RetasOptions,
    stats: &mut RetasStats,
) -> Vec<AlignedSpan> {
    let gaps = (
        gaps(in_order, texts.a.len(), |s| &s.a_words),
        gaps(in_order, texts.b.len(), |s| &s.b_words),
    );
    let min_words = options.min_moved_words.max(1);
    let anchors = anchors(texts, &gaps, min_words);
    let mut aligner = WordAligner::new(texts.vocabulary.len(), options);
    let mut found = Vec::new();
    let mut in_order_end = None;
    for block in blocks(texts, &anchors, &gaps) {
        let area = (block.a.clone(), block.b.clone());
        let matches = aligner.matches(&texts.a.ids, &texts.b.ids, area.0.clone(), area.1.clone());
        let mut spans = spans::build(texts, area, &matches, options, stats);
        let words: u32 = spans.iter().map(|s| s.a_words.len() as u32).sum();
        if words < min_words {
            continue;
        }
        if !is_in_order(&block, &spans, &mut in_order_end) {
            mark_moved(&mut spans, stats);
        }
        found.append(&mut spans);
    }
    add_work(stats, &aligner.stats());
    found
}

/// Whether the (non-empty) `spans` of `block` are in order: in gap `k` of
/// both texts, after the block in order before them in that gap, whose gap
/// and end in B `in_order_end` holds (and is set to this block's when true).
fn is_in_order(
    block: &Block,
    spans: &[AlignedSpan],
    in_order_end: &mut Option<(usize, u32)>,
) -> bool {
    let (Some(first), Some(last)) = (spans.first(), spans.last()) else {
        return false;
    };
    let in_order = block.gap_a == block.gap_b
        && in_order_end.is_none_or(|(gap, end)| gap != block.gap_a || first.b_words.start >= end);
    if in_order {
        *in_order_end = Some((block.gap_a, last.b_words.end));
    }
    in_order
}

/// The gaps between `spans` on one side (`words` picks it) of a text of
/// `len` words: gap `k` before span `k`, the last one after every span.
fn gaps(
    spans: &[AlignedSpan],
    len: u32,
    words: impl Fn(&AlignedSpan) -> &Range<u32>,
) -> Vec<Range<u32>> {
    let mut gaps = Vec::with_capacity(spans.len() + 1);
    let mut start = 0;
    for span in spans {
        gaps.push(start..words(span).start);
        start = words(span).end;
    }
    gaps.push(start..len);
    gaps
}

/// The anchors of the remainders (gaps of at least `min_words` words), in
/// order of A.
fn anchors(texts: &WordTexts, gaps: &Gaps, min_words: u32) -> Vec<Anchor> {
    let long = |gap: &(usize, &Range<u32>)| gap.1.len() as u32 >= min_words;
    let position_b = unique_in_both(texts, gaps, long);
    let mut anchors = Vec::new();
    for (gap_a, range_a) in gaps.0.iter().enumerate().filter(long) {
        for (i, &id) in range_a.clone().zip(words_of(&texts.a.ids, range_a)) {
            let j = position_b[id as usize];
            if j == NOT_UNIQUE {
                continue;
            }
            let gap_b = gaps.1.partition_point(|g| g.end <= j);
            if has_matching_neighbour(texts, (i, j), (range_a, &gaps.1[gap_b])) {
                anchors.push(Anchor {
                    a: i,
                    b: j,
                    gap_a,
                    gap_b,
                });
            }
        }
    }
    anchors
}

/// Marks a word that does not occur exactly once in both remainders.
const NOT_UNIQUE: u32 = u32::MAX;

/// For each vocabulary id, its position in B when it occurs exactly once in
/// the gaps of A and once in those of B that `long` keeps; else
/// [`NOT_UNIQUE`].
fn unique_in_both(
    texts: &WordTexts,
    gaps: &Gaps,
    long: impl Fn(&(usize, &Range<u32>)) -> bool,
) -> Vec<u32> {
    let mut count_a = vec![0u8; texts.vocabulary.len()];
    for (_, gap) in gaps.0.iter().enumerate().filter(&long) {
        for &id in words_of(&texts.a.ids, gap) {
            count_a[id as usize] = count_a[id as usize].saturating_add(1);
        }
    }
    let mut position_b = vec![NOT_UNIQUE; texts.vocabulary.len()];
    let mut count_b = vec![0u8; texts.vocabulary.len()];
    for (_, gap) in gaps.1.iter().enumerate().filter(&long) {
        for (j, &id) in gap.clone().zip(words_of(&texts.b.ids, gap)) {
            count_b[id as usize] = count_b[id as usize].saturating_add(1);
            position_b[id as usize] = j;
        }
    }
    for (id, position) in position_b.iter_mut().enumerate() {
        if count_a[id] != 1 || count_b[id] != 1 {
            *position = NOT_UNIQUE;
        }
    }
    position_b
}

/// Whether the word before or after `(i, j)` matches too, within the gaps
/// `ranges` of A and B the pair lies in.
fn has_matching_neighbour(
    texts: &WordTexts,
    (i, j): (u32, u32),
    ranges: (&Range<u32>, &Range<u32>),
) -> bool {
    let (a, b) = (&texts.a.ids, &texts.b.ids);
    let (i, j) = (i as usize, j as usize);
    let before = i > ranges.0.start as usize && j > ranges.1.start as usize && a[i - 1] == b[j - 1];
    let after =
        i + 1 < ranges.0.end as usize && j + 1 < ranges.1.end as usize && a[i + 1] == b[j + 1];
    before || after
}

fn words_of<'t>(ids: &'t [u32], range: &Range<u32>) -> &'t [u32] {
    &ids[range.start as usize..range.end as usize]
}

/// The blocks of the runs of `anchors` (in order of A), not overlapping
/// in either text.
fn blocks(texts: &WordTexts, anchors: &[Anchor], (gaps_a, gaps_b): &Gaps) -> Vec<Block> {
    let rank = ranks_in_b(anchors);
    let mut blocks = Vec::new();
    let mut start = 0;
    for end in 1..=anchors.len() {
        let continues = anchors.get(end).is_some_and(|next| {
            let last = &anchors[end - 1];
            rank[end] == rank[end - 1] + 1 && (next.gap_a, next.gap_b) == (last.gap_a, last.gap_b)
        });
        if continues {
            continue;
        }
        if end - start >= MIN_RUN_ANCHORS {
            let (first, last) = (&anchors[start], &anchors[end - 1]);
            let limits = (&gaps_a[first.gap_a], &gaps_b[first.gap_b]);
            blocks.push(widened(texts, first, last, limits));
        }
        start = end;
    }
    clip_overlaps(&mut blocks);
    blocks
}

/// The rank of each anchor's position in B among all anchors.
fn ranks_in_b(anchors: &[Anchor]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..anchors.len() as u32).collect();
    order.sort_unstable_by_key(|&k| anchors[k as usize].b);
    let mut rank = vec![0; anchors.len()];
    for (r, &k) in order.iter().enumerate() {
        rank[k as usize] = r as u32;
    }
    rank
}

/// The block from anchor `first` to anchor `last`, widened over the words
/// that match exactly before and after them, within the gaps `limits`.
fn widened(
    texts: &WordTexts,
    first: &Anchor,
    last: &Anchor,
    limits: (&Range<u32>, &Range<u32>),
) -> Block {
    let (a, b) = (&texts.a.ids, &texts.b.ids);
    let room_before = (first.a - limits.0.start).min(first.b - limits.1.start);
    let before = (1..=room_before)
        .take_while(|&k| a[(first.a - k) as usize] == b[(first.b - k) as usize])
        .count() as u32;
    let room_after = (limits.0.end - last.a).min(limits.1.end - last.b) - 1;
    let after = (1..=room_after)
        .take_while(|&k| a[(last.a + k) as usize] == b[(last.b + k) as usize])
        .count() as u32;
    Block {
        a: first.a - before..last.a + 1 + after,
        b: first.b - before..last.b + 1 + after,
        gap_a: first.gap_a,
        gap_b: first.gap_b,
    }
}

/// Cuts each block's start back to the end of the block before it, in A
/// and in B: only where both were widened into the same words.
fn clip_overlaps(blocks: &mut [Block]) {
    for k in 1..blocks.len() {
        let end = blocks[k - 1].a.end;
        let block = &mut blocks[k];
        block.a.start = block.a.start.max(end).min(block.a.end);
    }
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_unstable_by_key(|&k| blocks[k].b.start);
    for pair in order.windows(2) {
        let end = blocks[pair[0]].b.end;
        let block = &mut blocks[pair[1]];
        block.b.start = block.b.start.max(end).min(block.b.end);
    }
}

/// Marks `spans` moved and counts them.
fn mark_moved(spans: &mut [AlignedSpan], stats: &mut RetasStats) {
    for span in spans {
        span.moved = true;
        stats.moved_spans += 1;
        stats.moved_words_a += span.a_words.len() as u32;
        stats.moved_words_b += span.b_words.len() as u32;
    }
}

/// Adds the work counts of the word stages of this pass to `stats`.
fn add_work(stats: &mut RetasStats, pass: &RetasStats) {
    stats.depth = stats.depth.max(pass.depth);
    stats.leaves += pass.leaves;
    stats.dp_cells += pass.dp_cells;
    stats.capped_stretches += pass.capped_stretches;
    stats.capped_words_a += pass.capped_words_a;
    stats.capped_words_b += pass.capped_words_b;
}
