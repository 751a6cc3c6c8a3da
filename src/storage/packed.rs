//! Small integers stored compactly: bit-packed arrays (each value in a
//! fixed number of bits, least significant bit first, values back to back
//! across bytes) and variable-length integers (LEB128: seven bits a byte,
//! least significant group first, the high bit set on every byte but the
//! last). Readers never panic: bits past the bytes read as zero, and a
//! variable-length integer cut short or too long reads as `None`.

/// Bits needed to hold `value` (0 for 0).
pub fn bits(value: u32) -> u8 {
    (u32::BITS - value.leading_zeros()) as u8
}

/// Bytes of `count` values packed at `width` bits.
pub fn packed_len(count: usize, width: u8) -> usize {
    (count as u64 * u64::from(width)).div_ceil(8) as usize
}

/// Whether the bits after `count` values packed at `width` bits are zero
/// in `bytes`, the array's bytes (the last byte read is the array's last;
/// bytes past `bytes` read as zero).
pub fn padding_is_zero(bytes: &[u8], count: usize, width: u8) -> bool {
    let bits = count as u64 * u64::from(width);
    let last = packed_len(count, width)
        .checked_sub(1)
        .and_then(|i| bytes.get(i))
        .copied()
        .unwrap_or(0);
    bits.is_multiple_of(8) || last >> (bits % 8) == 0
}

/// Appends `values` packed at `width` bits (at most 32; each value must
/// fit), padded with zero bits to a whole byte.
pub fn pack(values: impl IntoIterator<Item = u32>, width: u8, out: &mut Vec<u8>) {
    pack_each(values.into_iter().map(|value| (value, width)), out);
}

/// Appends each value packed at its own width (at most 32 bits; each value
/// must fit), one after another, padded with zero bits to a whole byte.
pub fn pack_each(values: impl IntoIterator<Item = (u32, u8)>, out: &mut Vec<u8>) {
    let mut acc = 0u64;
    let mut held = 0u32;
    for (value, width) in values {
        acc |= u64::from(value) << held;
        held += u32::from(width);
        while held >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            held -= 8;
        }
    }
    if held > 0 {
        out.push(acc as u8);
    }
}

/// Appends `values` packed at `width` bits (at most 57; each value must
/// fit), padded with zero bits to a whole byte.
pub fn pack_wide(values: impl IntoIterator<Item = u64>, width: u8, out: &mut Vec<u8>) {
    debug_assert!(width <= MAX_WIDE);
    let mut acc = 0u64;
    let mut held = 0u32;
    for value in values {
        // Fewer than eight bits are held here, so value and held bits fit.
        acc |= value << held;
        held += u32::from(width);
        while held >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            held -= 8;
        }
    }
    if held > 0 {
        out.push(acc as u8);
    }
}

/// The widest values [`pack_wide`] and [`Unpacker`] take: one eight-byte
/// load holds any such value at any bit offset.
pub const MAX_WIDE: u8 = 57;

/// Reads values of an array packed at one width (up to [`MAX_WIDE`] bits)
/// one at a time, one eight-byte load each.
#[derive(Debug, Clone, Copy)]
pub struct Unpacker<'b> {
    bytes: &'b [u8],
    width: usize,
    mask: u64,
}

impl<'b> Unpacker<'b> {
    /// The array packed at `width` bits (widths past [`MAX_WIDE`] read as
    /// it) that `bytes` start.
    #[inline]
    pub fn new(bytes: &'b [u8], width: u8) -> Self {
        let width = width.min(MAX_WIDE);
        Unpacker {
            bytes,
            width: usize::from(width),
            mask: (1u64 << width) - 1,
        }
    }

    /// Value `i`; bits past the bytes read as zero.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        self.at_bit(i * self.width)
    }

    /// The bits per value.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// The value whose bits start at bit `bit` (value i's at `i` times
    /// [`width`](Self::width)); bits past the bytes read as zero.
    #[inline]
    pub fn at_bit(&self, bit: usize) -> u64 {
        let at = bit / 8;
        let word = match self.bytes.get(at..at + 8) {
            Some(eight) => u64::from_le_bytes(eight.try_into().unwrap_or([0; 8])),
            None => load_u64(self.bytes, at),
        };
        (word >> (bit % 8)) & self.mask
    }
}

/// The eight bytes at `at` as a little-endian `u64`, bytes past the end
/// read as zero. Out of line: near the end of the bytes only, so the
/// loops that call [`Unpacker::get`] stay small.
#[cold]
#[inline(never)]
fn load_u64(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(eight) => u64::from_le_bytes(eight.try_into().unwrap_or([0; 8])),
        None => {
            let mut eight = [0u8; 8];
            for (byte, &value) in eight.iter_mut().zip(bytes.get(at..).unwrap_or(&[])) {
                *byte = value;
            }
            u64::from_le_bytes(eight)
        }
    }
}

/// Value `i` of an array packed at `width` bits (widths past 32 read as
/// 32).
#[inline]
pub fn get(bytes: &[u8], i: usize, width: u8) -> u32 {
    let bit = bit_of(i, width);
    let width = u32::from(width.min(32));
    if width == 0 {
        return 0;
    }
    let at = (bit / 8) as usize;
    let word = match bytes.get(at..at + 8) {
        Some(eight) => u64::from_le_bytes(eight.try_into().unwrap_or([0; 8])),
        None => load_u64(bytes, at),
    };
    ((word >> (bit % 8)) & ((1u64 << width) - 1)) as u32
}

/// Where value `i` of an array packed at `width` bits (widths past 32
/// read as 32) starts, in bits.
#[inline]
fn bit_of(i: usize, width: u8) -> u64 {
    i as u64 * u64::from(width.min(32))
}

/// Asks for the cache line of value `i` of an array packed at `width`
/// bits, which [`get`] reads ([`prefetch`]).
#[inline]
pub fn prefetch_value(bytes: &[u8], i: usize, width: u8) {
    let at = usize::try_from(bit_of(i, width) / 8).unwrap_or(usize::MAX);
    prefetch(bytes, at);
}

/// Unpacks the first `out.len()` values of an array packed at `width`
/// bits into `out`.
#[inline]
pub fn unpack(bytes: &[u8], width: u8, out: &mut [u32]) {
    let width = width.min(32);
    if width == 0 {
        out.fill(0);
        return;
    }
    let mask = (1u64 << width) - 1;
    let step = usize::from(width);
    // Values whose eight-byte load lies inside `bytes` are read without a
    // check: value i's load starts at byte i·width/8.
    let loadable = match bytes.len().checked_sub(8) {
        Some(last) => ((last * 8) / step + 1).min(out.len()),
        None => 0,
    };
    let (fast, slow) = out.split_at_mut(loadable);
    let mut bit = 0usize;
    for value in fast.iter_mut() {
        let at = bit / 8;
        let eight: [u8; 8] = bytes
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0; 8]);
        *value = ((u64::from_le_bytes(eight) >> (bit % 8)) & mask) as u32;
        bit += step;
    }
    for value in slow.iter_mut() {
        *value = ((load_u64(bytes, bit / 8) >> (bit % 8)) & mask) as u32;
        bit += step;
    }
}

/// Appends `value` as a variable-length integer.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a variable-length integer of at most `max_bytes` bytes at `*at`,
/// moving `*at` past it: `None` when the bytes end first or it is longer.
#[inline]
pub fn read_varint(bytes: &[u8], at: &mut usize, max_bytes: usize) -> Option<u64> {
    let first = *bytes.get(*at)?;
    if first < 0x80 {
        *at += 1;
        return Some(u64::from(first));
    }
    let mut value = u64::from(first & 0x7f);
    for i in 1..max_bytes {
        let byte = *bytes.get(*at + i)?;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            *at += i + 1;
            return Some(value);
        }
    }
    None
}

/// Bytes of the longest variable-length `u32`.
pub const MAX_VARINT32: usize = 5;
/// Bytes of the longest variable-length `u64`.
pub const MAX_VARINT64: usize = 10;

/// Reads a variable-length `u32` (see [`read_varint`]); `None` past
/// `u32::MAX` too.
#[inline]
pub fn read_varint32(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut next = *at;
    let value = u32::try_from(read_varint(bytes, &mut next, MAX_VARINT32)?).ok()?;
    *at = next;
    Some(value)
}

/// Asks the processor to bring the cache line holding `bytes[at]` into
/// its nearest cache, and returns at once: a hint that changes no result,
/// for a read that will come soon and whose address is known long before
/// (a list's bytes, scattered over a segment, each missing the caches).
/// Nothing is asked past the bytes; a no-op off x86-64.
#[inline]
pub fn prefetch(bytes: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = bytes.get(at) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // Safety: SSE, which the intrinsic needs, is part of x86-64; a
        // prefetch reads nothing and cannot fault, and the address is of
        // a byte of `bytes` besides.
        #[allow(unsafe_code)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast::<i8>())
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, at);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bits_counts_significant_bits() {
        assert_eq!(
            (bits(0), bits(1), bits(2), bits(255), bits(256)),
            (0, 1, 2, 8, 9)
        );
        assert_eq!(bits(u32::MAX), 32);
    }

    #[test]
    fn a_varint_cut_short_or_too_long_reads_as_none() {
        let mut at = 0;
        assert_eq!(read_varint(&[0x80], &mut at, 10), None);
        assert_eq!(at, 0);
        assert_eq!(
            read_varint32(&[0xff, 0xff, 0xff, 0xff, 0x1f], &mut at),
            None
        );
        assert_eq!(
            read_varint32(&[0xff, 0xff, 0xff, 0xff, 0x0f], &mut at),
            Some(u32::MAX)
        );
        assert_eq!(at, 5);
    }

    proptest! {
        #[test]
        fn packed_values_read_back(values in proptest::collection::vec(any::<u32>(), 0..300), width in 0u8..=32) {
            let mask = if width == 32 { u32::MAX } else { (1u32 << width) - 1 };
            let values: Vec<u32> = values.into_iter().map(|v| v & mask).collect();
            let mut bytes = Vec::new();
            pack(values.iter().copied(), width, &mut bytes);
            prop_assert_eq!(bytes.len(), packed_len(values.len(), width));
            let mut out = vec![0; values.len()];
            unpack(&bytes, width, &mut out);
            prop_assert_eq!(&out, &values);
            for (i, &v) in values.iter().enumerate() {
                prop_assert_eq!(get(&bytes, i, width), v);
            }
        }

        #[test]
        fn wide_values_read_back(values in proptest::collection::vec(any::<u64>(), 0..300), width in 0u8..=MAX_WIDE) {
            let mask = (1u64 << width) - 1;
            let values: Vec<u64> = values.into_iter().map(|v| v & mask).collect();
            let mut bytes = Vec::new();
            pack_wide(values.iter().copied(), width, &mut bytes);
            prop_assert_eq!(bytes.len(), packed_len(values.len(), width));
            let unpacker = Unpacker::new(&bytes, width);
            for (i, &v) in values.iter().enumerate() {
                prop_assert_eq!(unpacker.get(i), v);
            }
            prop_assert_eq!(unpacker.get(values.len() + 3), 0);
        }

        #[test]
        fn varints_read_back(values in proptest::collection::vec(any::<u64>(), 0..50)) {
            let mut bytes = Vec::new();
            values.iter().for_each(|&v| put_varint(&mut bytes, v));
            let mut at = 0;
            for &v in &values {
                prop_assert_eq!(read_varint(&bytes, &mut at, MAX_VARINT64), Some(v));
            }
            prop_assert_eq!(at, bytes.len());
        }
    }
}
