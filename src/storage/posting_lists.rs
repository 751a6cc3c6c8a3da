//! One word's posting list in a segment's book sections (format 10 on):
//! the parts whose sequence holds the word, **strictly decreasing**, each
//! with the fine block of the word's element in that part.
//!
//! The fine block of element `i` of a part of `n` elements is
//! `⌊i · FINE_BLOCKS / n⌋` ([`fine_block_of`]): where in the part the word
//! lies, to a sixty-fourth, which is all the exact join's bounds read; the
//! element's index itself is in the part's sequence, which alignment
//! reads.
//!
//! A list is encoded as (`storage-format.md`, section 4.5.1):
//!
//! ```text
//! varint L                 entries, at least 1
//! ⌈L / 128⌉ blocks of 128 entries, the last one shorter; a block of t:
//!   u8 width W, varint first gap, t values bit-packed at W bits
//! ```
//!
//! An entry's gap is the previous entry's part less its part less one
//! (the first entry's is its part), so a word in every part has gaps of
//! zero. An entry's value is `gap << 6 | fine block`, except the block's
//! first, whose gap is the varint and whose value is its fine block
//! alone; `W` is 6 plus the bits of the block's largest other gap.
//! Decoding goes a block at a time, one eight-byte load per entry.
//!
//! Parts decrease so that the entries past a part are the list's head: a
//! stored part probing the parts after its own (the all-pairs join) reads
//! each of its words' lists up to its own entry and stops, decoding
//! nothing it then drops.
//!
//! Readers never panic: a list whose count cannot fit its bytes reads as
//! empty, and bits past the bytes read as zero (wrong answers from damaged
//! values, which `Segment::check` refuses).

use super::packed;

/// Entries in a full block of a posting list.
pub const LIST_BLOCK: usize = 128;

/// Blocks per part in the grid of the exact join's bound: each entry
/// stores its element's block ([`fine_block_of`]).
pub const FINE_BLOCKS: usize = 64;

/// Bits of an entry's value that hold its fine block.
const BLOCK_BITS: u32 = 6;

/// The widest value a block's width may name: a gap of 32 bits above the
/// fine block.
const MAX_WIDTH: u8 = 32 + BLOCK_BITS as u8;

/// The most entries a list of `bytes` bytes can hold: every value takes
/// `BLOCK_BITS` bits or more (a list read from fewer bytes than its
/// count needs is damaged).
pub fn most_entries(bytes: usize) -> usize {
    bytes * 8 / BLOCK_BITS as usize
}

/// The fewest bytes a block takes: its width and a one-byte first gap.
const MIN_BLOCK: usize = 2;

/// One entry of a posting list: a part and the fine block of the word's
/// element in it.
pub type Entry = (u32, u8);

/// The fine block of element `index` of a part of `len` elements:
/// `index · FINE_BLOCKS / len`, at most `FINE_BLOCKS − 1`.
#[inline]
pub fn fine_block_of(index: u32, len: u32) -> u8 {
    (u64::from(index) * FINE_BLOCKS as u64 / u64::from(len.max(1))).min(FINE_BLOCKS as u64 - 1)
        as u8
}

/// Appends the list of `entries` (parts strictly decreasing, blocks below
/// [`FINE_BLOCKS`]; at least one entry).
pub fn encode(entries: &[Entry], out: &mut Vec<u8>) {
    packed::put_varint(out, entries.len() as u64);
    let mut previous: Option<u32> = None;
    let mut values = Vec::with_capacity(LIST_BLOCK);
    for chunk in entries.chunks(LIST_BLOCK) {
        values.clear();
        let mut first_gap = 0;
        for (i, &(part, block)) in chunk.iter().enumerate() {
            let gap = gap(previous, part);
            let block = u64::from(block) & ((1 << BLOCK_BITS) - 1);
            match i {
                0 => {
                    first_gap = gap;
                    values.push(block);
                }
                _ => values.push(u64::from(gap) << BLOCK_BITS | block),
            }
            previous = Some(part);
        }
        let widest = values.iter().copied().max().unwrap_or(0);
        let width = (u64::BITS - widest.leading_zeros()).max(BLOCK_BITS) as u8;
        out.push(width);
        packed::put_varint(out, u64::from(first_gap));
        packed::pack_wide(values.iter().copied(), width, out);
    }
}

/// The gap of an entry of `part` after one of `previous`.
fn gap(previous: Option<u32>, part: u32) -> u32 {
    match previous {
        Some(previous) => previous.wrapping_sub(part).wrapping_sub(1),
        None => part,
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
    /// or whose count cannot fit the bytes reads as empty.
    #[inline]
    pub fn read(bytes: &'a [u8]) -> List<'a> {
        let mut at = 0;
        let Some(len) = packed::read_varint32(bytes, &mut at) else {
            return List::default();
        };
        let body = bytes.get(at..).unwrap_or(&[]);
        let least = (len as usize).div_ceil(LIST_BLOCK) * MIN_BLOCK;
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

    /// Every entry, in order.
    pub fn to_vec(self) -> Vec<Entry> {
        let mut entries = Vec::with_capacity(self.len as usize);
        self.for_each(None, |part, block| entries.push((part, block)));
        entries
    }

    /// Calls `f` with each entry's part and fine block, in order (parts
    /// decreasing), up to the first whose part is not past `after` (every
    /// entry when `None`).
    #[inline]
    pub fn for_each(&self, after: Option<u32>, mut f: impl FnMut(u32, u8)) {
        let mut parts = [0; LIST_BLOCK];
        let mut blocks = [0; LIST_BLOCK];
        let mut walk = Walk::new(self, after);
        while let Some(n) = walk.next_block(&mut parts, &mut blocks) {
            for (&part, &block) in parts.iter().zip(&blocks).take(n) {
                f(part, block);
            }
        }
    }

    /// The entries [`for_each`](Self::for_each) would call with, written
    /// to the start of `parts` and `blocks` (as many as they hold, a block
    /// at a time by a loop that does nothing else): how many.
    #[inline]
    pub fn decode_into(&self, after: Option<u32>, parts: &mut [u32], blocks: &mut [u8]) -> usize {
        let mut walk = Walk::new(self, after);
        let mut n = 0;
        while let Some(written) = walk.next_block(
            parts.get_mut(n..).unwrap_or_default(),
            blocks.get_mut(n..).unwrap_or_default(),
        ) {
            n += written;
        }
        n
    }
}

/// A list read a block at a time, from its head to the first entry not
/// past a part.
struct Walk<'a> {
    body: &'a [u8],
    /// Entries of the blocks not yet read (none once a walk stops).
    left: usize,
    /// Where the next block starts in `body`.
    at: usize,
    /// The last part read.
    previous: Option<u32>,
    /// The least part the walk yields.
    from: u64,
}

impl<'a> Walk<'a> {
    #[inline]
    fn new(list: &List<'a>, after: Option<u32>) -> Self {
        Walk {
            body: list.body,
            left: list.len as usize,
            at: 0,
            previous: None,
            from: after.map_or(0, |a| u64::from(a) + 1),
        }
    }

    /// Decodes the next block's entries into the start of `parts` and
    /// `blocks` (as many as they hold); `None` when none is left.
    #[inline]
    fn next_block(&mut self, parts: &mut [u32], blocks: &mut [u8]) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        let count = self.left.min(LIST_BLOCK);
        let bytes = self.body.get(self.at..).unwrap_or(&[]);
        let (written, next) = decode_block(bytes, count, self.previous, self.from, parts, blocks);
        match next {
            Some((last, used)) => {
                self.previous = Some(last);
                self.at += used;
                self.left -= count;
            }
            None => self.left = 0,
        }
        Some(written)
    }
}

/// Decodes a block of `count` entries (`bytes`: its bytes, then possibly
/// more) after an entry of `previous` into `parts` and `blocks`, up to the
/// first whose part is below `from` or as many as they hold; returns how
/// many it wrote and, when it read the whole block, its last part and its
/// length in bytes.
#[inline]
fn decode_block(
    bytes: &[u8],
    count: usize,
    previous: Option<u32>,
    from: u64,
    parts: &mut [u32],
    blocks: &mut [u8],
) -> (usize, Option<(u32, usize)>) {
    const BLOCK_MASK: u64 = (1 << BLOCK_BITS) - 1;
    let width = bytes.first().map_or(0, |&w| w.min(MAX_WIDTH));
    let mut at = 1;
    let first_gap = packed::read_varint32(bytes, &mut at).unwrap_or(0);
    let values = packed::Unpacker::new(bytes.get(at..).unwrap_or(&[]), width);
    let mut part = match previous {
        Some(previous) => previous.wrapping_sub(first_gap).wrapping_sub(1),
        None => first_gap,
    };
    // Slices cut to `n` and zipped: the loop checks no bound.
    let n = count.min(parts.len()).min(blocks.len());
    let (Some(parts), Some(blocks)) = (parts.get_mut(..n), blocks.get_mut(..n)) else {
        return (0, None);
    };
    let (Some((first_part, parts)), Some((first_block, blocks))) =
        (parts.split_first_mut(), blocks.split_first_mut())
    else {
        return (0, None);
    };
    if u64::from(part) < from {
        return (0, None);
    }
    *first_part = part;
    *first_block = (values.get(0) & BLOCK_MASK) as u8;
    let mut bit = values.width();
    for (i, (slot_part, slot_block)) in parts.iter_mut().zip(blocks.iter_mut()).enumerate() {
        let value = values.at_bit(bit);
        bit += values.width();
        part = part
            .wrapping_sub((value >> BLOCK_BITS) as u32)
            .wrapping_sub(1);
        if u64::from(part) < from {
            return (i + 1, None);
        }
        *slot_part = part;
        *slot_block = (value & BLOCK_MASK) as u8;
    }
    match n == count {
        true => (n, Some((part, at + packed::packed_len(count, width)))),
        false => (n, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entries_strategy() -> impl Strategy<Value = Vec<Entry>> {
        (
            proptest::collection::vec((1u32..5000, 0u8..64), 1..700),
            prop_oneof![Just(0u32), 0u32..u32::MAX / 2],
        )
            .prop_map(|(steps, start)| {
                let mut part = start;
                let mut entries: Vec<Entry> = steps
                    .into_iter()
                    .map(|(step, block)| {
                        part = part.saturating_add(step % 7 + (step % 3) * step);
                        (part, block)
                    })
                    .collect();
                entries.reverse();
                entries
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
            prop_assert!(entries.len() <= most_entries(bytes.len()));
            prop_assert_eq!(list.to_vec(), entries.clone());
            let after = entries[after.index(entries.len())].0;
            let mut past = Vec::new();
            list.for_each(Some(after), |p, b| past.push((p, b)));
            let expected: Vec<Entry> = entries.iter().copied().filter(|e| e.0 > after).collect();
            prop_assert_eq!(&past, &expected);
            let mut from_just_below = 0;
            list.for_each(after.checked_sub(1), |_, _| from_just_below += 1);
            prop_assert_eq!(from_just_below, entries.iter().filter(|e| Some(e.0) > after.checked_sub(1)).count());
        }

        #[test]
        fn any_bytes_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), after in any::<Option<u32>>()) {
            let list = List::read(&bytes);
            let mut count = 0u32;
            list.for_each(after, |_, block| {
                assert!((block as usize) < FINE_BLOCKS);
                count += 1;
            });
            prop_assert!(count <= list.len());
        }
    }

    #[test]
    fn a_word_in_every_part_takes_six_bits_an_entry() {
        let entries: Vec<Entry> = (0..256).rev().map(|p| (p, (p % 64) as u8)).collect();
        let mut bytes = Vec::new();
        encode(&entries, &mut bytes);
        // L, then two blocks of width 6 and a first gap of one or two bytes.
        assert_eq!(bytes.len(), 2 + (1 + 2 + 96) + (1 + 1 + 96));
        let list = List::read(&bytes);
        assert_eq!(list.to_vec(), entries);
        let mut past = Vec::new();
        list.for_each(Some(100), |part, _| past.push(part));
        assert_eq!(past, (101..256).rev().collect::<Vec<u32>>());
    }

    #[test]
    fn the_widest_gaps_read_back() {
        let entries: Vec<Entry> = vec![(u32::MAX, 63), (u32::MAX - 1, 0), (0, 63)];
        let mut bytes = Vec::new();
        encode(&entries, &mut bytes);
        // L, then the block's width.
        assert_eq!(bytes[1], MAX_WIDTH);
        assert_eq!(List::read(&bytes).to_vec(), entries);
    }

    #[test]
    fn fine_blocks_spread_a_part_evenly() {
        assert_eq!(fine_block_of(0, 100), 0);
        assert_eq!(fine_block_of(99, 100), 63);
        assert_eq!(fine_block_of(50, 100), 32);
        assert_eq!(fine_block_of(5, 0), 63);
        // A coarse block of sixteen is a fine block's quarter.
        for len in 1..300u32 {
            for i in 0..len {
                let coarse = (u64::from(i) * 16 / u64::from(len)) as u8;
                assert_eq!(fine_block_of(i, len) >> 2, coarse);
            }
        }
    }
}
