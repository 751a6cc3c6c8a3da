//! Finding a value in a sorted array read in place: the word hashes, key
//! tables and book ids of a mapped segment.
//!
//! Hashes and keys are spread evenly over their range, and book ids run
//! nearly consecutive, so an interpolation step lands next to the value:
//! a lookup reads a page or two of the array instead of the ~log2(n)
//! scattered pages of a binary search, which on a mapped file are as many
//! page faults, or disk reads when the page cache does not hold the file.
//! Any sorted array gives the right answer, only slower: after
//! [`INTERPOLATION_STEPS`] steps a binary search ends the range.

use std::cmp::Ordering;

/// Interpolation steps before a binary search.
const INTERPOLATION_STEPS: usize = 4;

/// A range this short is searched by bisection at once.
const SHORT_RANGE: usize = 16;

/// Where `value` is in the sorted array of `len` values read by `get`:
/// `Ok(index)` when there (the first of equal values only if they are
/// distinct), else `Err` of the index where it would go.
pub fn search(len: usize, value: u64, get: impl Fn(usize) -> u64) -> Result<usize, usize> {
    let (mut low, mut high) = (0usize, len);
    for _ in 0..INTERPOLATION_STEPS {
        if high - low <= SHORT_RANGE {
            break;
        }
        let (first, last) = (get(low), get(high - 1));
        if value < first {
            return Err(low);
        }
        if value > last {
            return Err(high);
        }
        let span = u128::from(last - first).max(1);
        let offset = u128::from(value - first) * (high - 1 - low) as u128 / span;
        let guess = low + offset as usize;
        match get(guess).cmp(&value) {
            Ordering::Equal => return Ok(guess),
            Ordering::Less => low = guess + 1,
            Ordering::Greater => high = guess,
        }
    }
    while low < high {
        let mid = low + (high - low) / 2;
        match get(mid).cmp(&value) {
            Ordering::Equal => return Ok(mid),
            Ordering::Less => low = mid + 1,
            Ordering::Greater => high = mid,
        }
    }
    Err(low)
}

/// Whether `items` never decrease.
pub(crate) fn non_decreasing<T: PartialOrd>(items: impl Iterator<Item = T>) -> bool {
    let mut previous = None;
    for item in items {
        if previous.as_ref().is_some_and(|p| item < *p) {
            return false;
        }
        previous = Some(item);
    }
    true
}

/// Whether `items` strictly increase.
pub(crate) fn strictly_increasing<T: PartialOrd>(mut items: impl Iterator<Item = T>) -> bool {
    let Some(mut previous) = items.next() else {
        return true;
    };
    for item in items {
        if item <= previous {
            return false;
        }
        previous = item;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(values: &[u64], probe: u64) {
        let found = search(values.len(), probe, |i| values[i]);
        match values.binary_search(&probe) {
            Ok(_) => assert_eq!(found.map(|i| values[i]), Ok(probe)),
            Err(at) => assert_eq!(found, Err(at)),
        }
    }

    #[test]
    fn finds_what_a_binary_search_finds_in_even_and_skewed_arrays() {
        let mut state = 12345u64;
        let mut next = || {
            state = crate::repr::minhash::mix64(state);
            state
        };
        for n in [0usize, 1, 5, 17, 100, 5000] {
            let mut values: Vec<u64> = (0..n).map(|_| next()).collect();
            // Skewed arrays too: interpolation guesses badly there.
            if n == 5000 {
                values.iter_mut().take(4000).for_each(|v| *v %= 1000);
            }
            values.sort_unstable();
            values.dedup();
            let probes: Vec<u64> = values
                .iter()
                .copied()
                .chain((0..200).map(|_| next()))
                .chain([0, u64::MAX])
                .collect();
            for probe in probes {
                check(&values, probe);
            }
        }
    }

    proptest! {
        #[test]
        fn any_sorted_array_gives_the_binary_search_answer(
            mut values in proptest::collection::vec(any::<u64>(), 0..300),
            small in proptest::collection::vec(0u64..50, 0..300),
            probe in any::<u64>(),
            small_probe in 0u64..60,
        ) {
            values.sort_unstable();
            check(&values, probe);
            if let Some(&v) = values.first() {
                check(&values, v);
            }
            let mut small = small;
            small.sort_unstable();
            small.dedup();
            check(&small, small_probe);
        }
    }
}
