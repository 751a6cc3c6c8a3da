//! One word's posting list in a segment's book sections (format 10 on):
//! the parts whose sequence holds the word, strictly increasing, each with
//! the index of the word's element in that part.
//!
//! A list is encoded as (`storage-format.md`, section 4.5):
//!
//! ```text
//! varint L                 entries, at least 1
//! F = L / 128 full blocks; when F > 0, a skip table:
//!   F × (u32 last part, u32 end)    end: bytes of blocks 0..=k
//! F full blocks of 128 entries, then, when L mod 128 > 0, a tail block
//! of L mod 128; a block of t entries:
//!   u8 gap width g, u8 index width x, varint first gap,
//!   t − 1 gaps bit-packed at g bits, t indexes bit-packed at x bits
//! ```
//!
//! An entry's gap is its part less the previous entry's part less one (the
//! first entry's is its part), so a word in every part has gaps of zero.
//! A list's bytes end where the word table says (its list end), so the
//! last block's end is the list's.
//! Decoding goes a block at a time (two bit-packed arrays); a reader that
//! wants only the entries past one part starts at the block the skip table
//! names.
//!
//! Readers never panic: a list whose counts cannot fit its bytes reads as
//! empty, and bits past the bytes read as zero (wrong answers from damaged
//! values, which `Segment::check` refuses).

use super::packed;

/// Entries in a full block of a posting list.
pub const LIST_BLOCK: usize = 128;

/// Entries of a list short enough to decode without a whole block's
/// scratch.
const SHORT_LIST: usize = 16;

/// Bytes of a skip-table row.
const SKIP_ROW: usize = 8;
/// The fewest bytes a block takes: its two widths and a one-byte first
/// gap.
const MIN_BLOCK: usize = 3;

/// Appends the list of `entries` (parts strictly increasing; at least one
/// entry).
pub fn encode(entries: &[(u32, u32)], out: &mut Vec<u8>) {
    let full = entries.len() / LIST_BLOCK;
    let mut blocks = Vec::new();
    let mut skip = Vec::with_capacity(full * SKIP_ROW);
    let mut previous: Option<u32> = None;
    let mut gaps = Vec::with_capacity(LIST_BLOCK);
    for (k, chunk) in entries.chunks(LIST_BLOCK).enumerate() {
        gaps.clear();
        for &(part, _) in chunk {
            gaps.push(gap(previous, part));
            previous = Some(part);
        }
        let rest = gaps.get(1..).unwrap_or(&[]);
        let gap_width = rest.iter().map(|&g| packed::bits(g)).max().unwrap_or(0);
        let index_width = chunk
            .iter()
            .map(|&(_, i)| packed::bits(i))
            .max()
            .unwrap_or(0);
        blocks.push(gap_width);
        blocks.push(index_width);
        packed::put_varint(&mut blocks, u64::from(gaps.first().copied().unwrap_or(0)));
        packed::pack(rest.iter().copied(), gap_width, &mut blocks);
        packed::pack(chunk.iter().map(|&(_, i)| i), index_width, &mut blocks);
        if k < full {
            skip.extend_from_slice(&previous.unwrap_or(0).to_le_bytes());
            skip.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
        }
    }
    packed::put_varint(out, entries.len() as u64);
    out.extend_from_slice(&skip);
    out.extend_from_slice(&blocks);
}

/// The gap of an entry of `part` after one of `previous`.
fn gap(previous: Option<u32>, part: u32) -> u32 {
    match previous {
        Some(previous) => part.wrapping_sub(previous).wrapping_sub(1),
        None => part,
    }
}

/// The part of an entry `gap` after one of `previous`.
#[inline]
fn next_part(previous: Option<u32>, gap: u32) -> u32 {
    match previous {
        Some(previous) => previous.wrapping_add(gap).wrapping_add(1),
        None => gap,
    }
}

/// A posting list read in place.
#[derive(Debug, Clone, Copy, Default)]
pub struct List<'a> {
    /// The bytes after `L`, up to the end of the bytes it was read from.
    body: &'a [u8],
    len: u32,
}

impl<'a> List<'a> {
    /// The list whose bytes start `bytes` (which may run past its end: a
    /// list's blocks say where they end). A list whose header is cut short
    /// or whose counts cannot fit the bytes reads as empty.
    #[inline]
    pub fn read(bytes: &'a [u8]) -> List<'a> {
        let mut at = 0;
        let Some(len) = packed::read_varint32(bytes, &mut at) else {
            return List::default();
        };
        let body = bytes.get(at..).unwrap_or(&[]);
        let blocks = (len as usize).div_ceil(LIST_BLOCK);
        let least = (len as usize / LIST_BLOCK) * SKIP_ROW + blocks * MIN_BLOCK;
        match least <= body.len() {
            true => List { body, len },
            false => List::default(),
        }
    }

    /// Entries.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether it has no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn skip_row(&self, k: usize) -> (u32, usize) {
        let value = |at: usize| match self.body.get(at..at + 4) {
            Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
            _ => 0,
        };
        (value(k * SKIP_ROW), value(k * SKIP_ROW + 4) as usize)
    }

    /// Calls `f` with each entry's part and index, in order, from the
    /// first whose part is past `after` (every entry when `None`).
    #[inline]
    pub fn for_each(&self, after: Option<u32>, mut f: impl FnMut(u32, u32)) {
        self.walk::<true>(after, |_| true, |part, index| f(part, index));
    }

    /// Calls `f` with the part and index of each entry past `after` whose
    /// part `keep` keeps: the indexes of the others are not decoded.
    #[inline]
    pub fn for_each_kept(
        &self,
        after: Option<u32>,
        keep: impl FnMut(u32) -> bool,
        f: impl FnMut(u32, u32),
    ) {
        self.walk::<true>(after, keep, f);
    }

    /// Calls `f` with each entry's part, in order, from the first past
    /// `after`; indexes are not decoded.
    #[inline]
    pub fn for_each_part(&self, after: Option<u32>, mut f: impl FnMut(u32)) {
        self.walk::<false>(after, |_| true, |part, _| f(part));
    }

    /// Every entry, in order.
    pub fn to_vec(&self) -> Vec<(u32, u32)> {
        let mut entries = Vec::with_capacity(self.len as usize);
        self.for_each(None, |part, index| entries.push((part, index)));
        entries
    }

    #[inline]
    fn walk<const INDEXES: bool>(
        &self,
        after: Option<u32>,
        mut keep: impl FnMut(u32) -> bool,
        mut f: impl FnMut(u32, u32),
    ) {
        let len = self.len as usize;
        let full = len / LIST_BLOCK;
        let skip_len = full * SKIP_ROW;
        let blocks = self.body.get(skip_len..).unwrap_or(&[]);
        // The first block holding a part past `after`: only full blocks
        // are in the skip table, the tail block follows them.
        let first = match (after, full) {
            (_, 0) | (None, _) => 0,
            (Some(after), _) => partition(full, |k| self.skip_row(k).0 <= after),
        };
        let mut previous = first.checked_sub(1).map(|k| self.skip_row(k).0);
        let mut at = first.checked_sub(1).map_or(0, |k| self.skip_row(k).1);
        // Most lists are short: their parts fit a small array, which is
        // cheaper to make than a whole block's.
        let mut small = [0u32; SHORT_LIST];
        let mut whole;
        let parts: &mut [u32] = match len <= SHORT_LIST {
            true => &mut small,
            false => {
                whole = [0u32; LIST_BLOCK];
                &mut whole
            }
        };
        for k in first..len.div_ceil(LIST_BLOCK) {
            let count = (len - k * LIST_BLOCK).min(LIST_BLOCK);
            let end = match k < full {
                true => self.skip_row(k).1,
                false => blocks.len(),
            };
            let bytes = blocks.get(at..).unwrap_or(&[]);
            let block = &mut parts[..count];
            let (last, indexes, index_width) = decode_parts(bytes, block, previous);
            previous = Some(last);
            let from = match after {
                Some(after) => block.partition_point(|&p| p <= after),
                None => 0,
            };
            for (i, &part) in block.iter().enumerate().skip(from) {
                if keep(part) {
                    let index = match INDEXES {
                        true => packed::get(indexes, i, index_width),
                        false => 0,
                    };
                    f(part, index);
                }
            }
            at = end;
        }
    }
}

/// Decodes the parts of a block of `parts.len()` entries (`bytes`: its
/// bytes, then possibly more) after an entry of `previous` into `parts`;
/// returns its last part, and its packed indexes with their width.
#[inline]
fn decode_parts<'b>(
    bytes: &'b [u8],
    parts: &mut [u32],
    previous: Option<u32>,
) -> (u32, &'b [u8], u8) {
    let (gap_width, index_width, mut at) = match bytes {
        [g, x, ..] => (*g, *x, 2),
        _ => (0, 0, bytes.len()),
    };
    let first = packed::read_varint32(bytes, &mut at).unwrap_or(0);
    let gaps = bytes.get(at..).unwrap_or(&[]);
    let mut part = next_part(previous, first);
    let Some((head, rest)) = parts.split_first_mut() else {
        return (part, &[], 0);
    };
    packed::unpack(gaps, gap_width, rest);
    *head = part;
    for value in rest.iter_mut() {
        part = part.wrapping_add(*value).wrapping_add(1);
        *value = part;
    }
    let gaps_len = packed::packed_len(rest.len(), gap_width.min(32));
    (part, bytes.get(at + gaps_len..).unwrap_or(&[]), index_width)
}

/// The first of `0..n` for which `below` is false (`below` true on a prefix).
fn partition(n: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match below(mid) {
            true => lo = mid + 1,
            false => hi = mid,
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entries_strategy() -> impl Strategy<Value = Vec<(u32, u32)>> {
        (
            proptest::collection::vec((1u32..5000, 0u32..100_000), 1..700),
            prop_oneof![Just(0u32), 0u32..u32::MAX / 2],
        )
            .prop_map(|(steps, start)| {
                let mut part = start;
                steps
                    .into_iter()
                    .map(|(step, block)| {
                        part = part.saturating_add(step % 7 + (step % 3) * step);
                        (part, block)
                    })
                    .collect::<Vec<_>>()
            })
            .prop_map(|mut entries| {
                entries.dedup_by_key(|e| e.0);
                entries
            })
    }

    proptest! {
        #[test]
        fn lists_read_back_whole_and_past_any_part(entries in entries_strategy(), after in any::<proptest::sample::Index>()) {
            let mut bytes = Vec::new();
            encode(&entries, &mut bytes);
            let list = List::read(&bytes);
            prop_assert_eq!(list.len() as usize, entries.len());
            prop_assert_eq!(list.to_vec(), entries.clone());
            let after = entries[after.index(entries.len())].0;
            let mut past = Vec::new();
            list.for_each(Some(after), |p, b| past.push((p, b)));
            let expected: Vec<(u32, u32)> = entries.iter().copied().filter(|e| e.0 > after).collect();
            prop_assert_eq!(&past, &expected);
            let mut parts = Vec::new();
            list.for_each_part(after.checked_sub(1), |p| parts.push(p));
            prop_assert_eq!(parts.len(), entries.iter().filter(|e| Some(e.0) > after.checked_sub(1)).count());
        }

        #[test]
        fn any_bytes_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), after in any::<Option<u32>>()) {
            let list = List::read(&bytes);
            let mut count = 0u32;
            list.for_each(after, |_, _| count += 1);
            prop_assert!(count <= list.len());
        }
    }

    #[test]
    fn a_word_in_every_part_takes_little_more_than_its_indexes() {
        let entries: Vec<(u32, u32)> = (0..256).map(|p| (p, 3)).collect();
        let mut bytes = Vec::new();
        encode(&entries, &mut bytes);
        // L, two skip rows, two blocks of gap width 0 and index width 2.
        assert_eq!(bytes.len(), 2 + 2 * 8 + 2 * (3 + 32));
    }
}
