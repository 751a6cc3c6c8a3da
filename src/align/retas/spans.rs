//! From word matches to spans: runs of consecutive matches that hold an
//! anchor or are long enough are fixed exact spans; everything between two
//! fixed runs is aligned by characters as one stretch, shorter runs
//! included, and cut into exact and edited pieces.

use std::ops::Range;

use super::anchors::WordMatch;
use super::chars::{CharAligner, Group};
use super::words::WordTexts;
use super::{AlignedSpan, RetasOptions, RetasStats, SpanKind};

/// The spans of the alignment of the words `area.0` of A with the words
/// `area.1` of B whose word matches (all within the area) are `matches`.
pub fn build(
    texts: &WordTexts,
    area: (Range<u32>, Range<u32>),
    matches: &[WordMatch],
    options: &RetasOptions,
    stats: &mut RetasStats,
) -> Vec<AlignedSpan> {
    SpanBuilder {
        texts,
        options,
        chars: CharAligner::default(),
        groups: Vec::new(),
        spans: Vec::new(),
        stats,
    }
    .build(area, matches)
}

/// Runs of consecutive word matches with fewer words than this and no
/// anchor are not taken as they are: the character alignment of the
/// stretch around them decides. In a noisy stretch the LCS of words pairs
/// common short words with the wrong occurrence as readily as with the
/// right one.
const FIXED_RUN_WORDS: u32 = 3;

/// Consecutive word matches: words `a..a + words` of A match `b..b + words`
/// of B.
#[derive(Debug, Clone, Copy)]
struct Run {
    a: u32,
    b: u32,
    words: u32,
    anchor: bool,
}

/// Word indexes in A and B.
type Pair = (u32, u32);

/// What [`SpanBuilder::region`] still has to do, last item first.
enum Piece<'r> {
    Region {
        start: Pair,
        end: Pair,
        loose: &'r [Run],
    },
    Run(Run),
}

/// The loose run to cut the region from `start` to `end` at: among the runs
/// in the middle half of the region in A (or all, when none is), the one
/// nearest its diagonal. Runs far off the diagonal are likely common words
/// paired with the wrong occurrence.
fn split_at(start: Pair, end: Pair, loose: &[Run]) -> usize {
    let (len_a, len_b) = (i128::from(end.0 - start.0), i128::from(end.1 - start.1));
    let offset = |run: &Run| (i128::from(run.a - start.0), i128::from(run.b - start.1));
    let deviation = |run: &Run| {
        let (a, b) = offset(run);
        (a * len_b - b * len_a).abs()
    };
    let in_middle = |run: &Run| (len_a..=3 * len_a).contains(&(4 * offset(run).0));
    let nearest = |middle_only: bool| {
        (0..loose.len())
            .filter(|&k| !middle_only || in_middle(&loose[k]))
            .min_by_key(|&k| deviation(&loose[k]))
    };
    nearest(true).or_else(|| nearest(false)).unwrap_or(0)
}

/// The runs of consecutive matches in `matches`.
fn runs(matches: &[WordMatch]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for m in matches {
        match runs.last_mut() {
            Some(run) if run.a + run.words == m.a && run.b + run.words == m.b => {
                run.words += 1;
                run.anchor |= m.anchor;
            }
            _ => runs.push(Run {
                a: m.a,
                b: m.b,
                words: 1,
                anchor: m.anchor,
            }),
        }
    }
    runs
}

/// Turns word matches into spans: fixed runs of matches (with an anchor,
/// or long) are exact spans; the stretches between them are aligned by
/// characters.
struct SpanBuilder<'a> {
    texts: &'a WordTexts,
    options: &'a RetasOptions,
    chars: CharAligner,
    groups: Vec<Group>,
    spans: Vec<AlignedSpan>,
    stats: &'a mut RetasStats,
}

impl SpanBuilder<'_> {
    fn build(mut self, area: (Range<u32>, Range<u32>), matches: &[WordMatch]) -> Vec<AlignedSpan> {
        let mut next = (area.0.start, area.1.start);
        let mut loose = Vec::new();
        for run in runs(matches) {
            if run.anchor || run.words >= FIXED_RUN_WORDS {
                self.region(next, (run.a, run.b), &loose);
                loose.clear();
                self.push_run(&run);
                next = (run.a + run.words, run.b + run.words);
            } else {
                loose.push(run);
            }
        }
        self.region(next, (area.0.end, area.1.end), &loose);
        self.spans
    }

    /// The words from `start` to `end` (word indexes in A and B) between
    /// two fixed runs, holding the runs `loose`: aligned by characters as
    /// one stretch when the table fits, else cut in two at the loose run
    /// nearest the middle of its diagonal, again and again.
    fn region(&mut self, start: Pair, end: Pair, loose: &[Run]) {
        let mut work = vec![Piece::Region { start, end, loose }];
        while let Some(piece) = work.pop() {
            let (start, end, loose) = match piece {
                Piece::Run(run) => {
                    self.push_run(&run);
                    continue;
                }
                Piece::Region { start, end, loose } => (start, end, loose),
            };
            if loose.is_empty() {
                self.stretch(start.0..end.0, start.1..end.1);
                continue;
            }
            if self.char_aligned(start.0..end.0, start.1..end.1) {
                continue;
            }
            let k = split_at(start, end, loose);
            let run = loose[k];
            let after = (run.a + run.words, run.b + run.words);
            work.push(Piece::Region {
                start: after,
                end,
                loose: &loose[k + 1..],
            });
            work.push(Piece::Run(run));
            work.push(Piece::Region {
                start,
                end: (run.a, run.b),
                loose: &loose[..k],
            });
        }
    }

    fn push_run(&mut self, run: &Run) {
        let (a, b) = (run.a..run.a + run.words, run.b..run.b + run.words);
        self.push(a, b, SpanKind::Exact);
    }

    /// Aligns a stretch without fixed word matches by characters, or leaves
    /// it unaligned when its table would be too large.
    fn stretch(&mut self, a: Range<u32>, b: Range<u32>) {
        if a.is_empty() || b.is_empty() {
            return;
        }
        let (words_a, words_b) = (a.len() as u32, b.len() as u32);
        if !self.char_aligned(a, b) {
            self.stats.capped_stretches += 1;
            self.stats.capped_words_a += words_a;
            self.stats.capped_words_b += words_b;
        }
    }

    /// Aligns `a` with `b` (both non-empty) by characters and pushes the
    /// exact and edited pieces; false, without aligning, when the table
    /// would exceed the cap.
    fn char_aligned(&mut self, a: Range<u32>, b: Range<u32>) -> bool {
        self.groups.clear();
        let cap = self.options.max_dp_cells;
        match self.chars.align(self.texts, a, b, cap, &mut self.groups) {
            Some(cells) => self.stats.dp_cells += cells,
            None => return false,
        }
        let groups = std::mem::take(&mut self.groups);
        for group in &groups {
            let operations = group.edits.operations();
            let longer = group.chars_a.max(group.chars_b) as f64;
            let kind = if operations == 0 {
                SpanKind::Exact
            } else if operations as f64 <= self.options.max_edit_share * longer {
                SpanKind::Edited {
                    distance: group.edits.distance(),
                    edits: group.edits,
                }
            } else {
                continue;
            };
            self.push(group.a.clone(), group.b.clone(), kind);
        }
        self.groups = groups;
        true
    }

    /// Appends a span, merged into the last one when both are of the same
    /// kind and adjacent in both texts.
    fn push(&mut self, a: Range<u32>, b: Range<u32>, kind: SpanKind) {
        if let Some(last) = self.spans.last_mut() {
            if last.a_words.end == a.start && last.b_words.end == b.start {
                let merged = match (&mut last.kind, kind) {
                    (SpanKind::Exact, SpanKind::Exact) => true,
                    (
                        SpanKind::Edited { distance, edits },
                        SpanKind::Edited {
                            distance: more,
                            edits: more_edits,
                        },
                    ) => {
                        *distance += more;
                        edits.add(&more_edits);
                        true
                    }
                    _ => false,
                };
                if merged {
                    last.a_words.end = a.end;
                    last.b_words.end = b.end;
                    last.a_bytes = self.texts.a.byte_range(&last.a_words);
                    last.b_bytes = self.texts.b.byte_range(&last.b_words);
                    return;
                }
            }
        }
        self.spans.push(AlignedSpan {
            a_bytes: self.texts.a.byte_range(&a),
            b_bytes: self.texts.b.byte_range(&b),
            a_words: a,
            b_words: b,
            kind,
            moved: false,
        });
    }
}
