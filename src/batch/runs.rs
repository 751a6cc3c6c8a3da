//! Row runs: sorted rows of `N` numbers packed into bytes, the form in which
//! a distributed job moves many small rows (the word sample's matches, the
//! key tables' pairs) between its steps as one value instead of one record
//! each.
//!
//! A run is (`docs/batch-format.md`, "Row runs"):
//!
//! ```text
//! varint R                 rows, ascending and each once
//! R rows, each N varints:  field k is the difference to the previous
//!                          row's field k when the fields before it are
//!                          the previous row's, else its value
//! ```
//!
//! The first row's fields are their values. Rows of a sorted table share
//! their leading fields, so most fields are small differences: a match of
//! two one-part books takes five to seven bytes instead of six numbers.
//!
//! Encoding refuses rows out of order. Decoding refuses, never panics on,
//! bytes that are not a run: a varint cut
//! short or past 32 bits, a count the bytes cannot hold, rows out of order,
//! or bytes left over.

use crate::error::{Error, Result};

/// Appends the run of `rows`, which must ascend, each row once (an error
/// otherwise, with nothing appended).
pub fn encode<const N: usize>(rows: &[[u32; N]], out: &mut Vec<u8>) -> Result<()> {
    if let Some(at) = rows.windows(2).position(|w| w[0] >= w[1]) {
        return Err(Error::InvalidArgument(format!(
            "row {} of a run does not follow row {at}",
            at + 1
        )));
    }
    put_varint(out, rows.len() as u64);
    let mut previous = [0u32; N];
    for (i, row) in rows.iter().enumerate() {
        let mut same_prefix = i > 0;
        for k in 0..N {
            match same_prefix {
                true => put_varint(out, u64::from(row[k] - previous[k])),
                false => put_varint(out, u64::from(row[k])),
            }
            same_prefix &= row[k] == previous[k];
        }
        previous = *row;
    }
    Ok(())
}

/// Appends the rows of the run `bytes` to `rows`; an error naming `what`
/// when `bytes` is not a run of `N`-number rows.
pub fn decode<const N: usize>(bytes: &[u8], what: &str, rows: &mut Vec<[u32; N]>) -> Result<()> {
    let bad = |reason: &str| Error::InvalidArgument(format!("{what}: {reason}"));
    let mut at = 0;
    let count = read_varint(bytes, &mut at).ok_or_else(|| bad("its row count is cut short"))?;
    // Every field takes a byte or more.
    if count > (bytes.len() / N.max(1)) as u64 {
        return Err(bad(&format!(
            "{count} rows cannot fit {} bytes",
            bytes.len()
        )));
    }
    rows.reserve(count as usize);
    let mut previous = [0u32; N];
    for i in 0..count {
        let mut row = [0u32; N];
        let mut same_prefix = i > 0;
        for k in 0..N {
            let value = read_varint(bytes, &mut at)
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| bad(&format!("row {i} is cut short or past 32 bits")))?;
            row[k] = match same_prefix {
                true => previous[k]
                    .checked_add(value)
                    .ok_or_else(|| bad(&format!("row {i} is past 32 bits")))?,
                false => value,
            };
            same_prefix &= row[k] == previous[k];
        }
        if i > 0 && row <= previous {
            return Err(bad(&format!("row {i} does not follow row {}", i - 1)));
        }
        rows.push(row);
        previous = row;
    }
    match at == bytes.len() {
        true => Ok(()),
        false => Err(bad(&format!(
            "{} bytes after its last row",
            bytes.len() - at
        ))),
    }
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The varint at `at`, moving past it; `None` when cut short or longer
/// than ten bytes.
fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..70).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f).checked_shl(shift)?;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rows_of_one_prefix_take_a_byte_a_field() {
        let rows = [[7, 9, 0, 0, 300, 1], [7, 9, 0, 0, 310, 2]];
        let mut out = Vec::new();
        encode(&rows, &mut out).unwrap();
        // The count, the first row (300 and 310 take two bytes), then
        // differences: 0, 0, 0, 0, 10 and the last field's value, 2.
        assert_eq!(out.len(), 1 + 7 + 6);
        let mut back = Vec::new();
        decode::<6>(&out, "run", &mut back).unwrap();
        assert_eq!(back, vec![[7, 9, 0, 0, 300, 1], [7, 9, 0, 0, 310, 2]]);
    }

    #[test]
    fn the_documented_example_has_its_bytes() {
        // docs/batch-format.md, "Candidates: listings and row runs".
        let rows = [[3, 7, 0, 0, 300, 1], [3, 7, 0, 0, 310, 2]];
        let mut out = Vec::new();
        encode(&rows, &mut out).unwrap();
        let want = [2, 3, 7, 0, 0, 0xac, 2, 1, 0, 0, 0, 0, 0x0a, 2];
        assert_eq!(out, want);
    }

    #[test]
    fn what_is_not_a_run_is_refused_by_name() {
        let mut out = Vec::new();
        encode(&[[1u32, 2], [1, 3]], &mut out).unwrap();
        let unsorted = encode(&[[1u32, 3], [1, 2]], &mut Vec::new()).unwrap_err();
        assert!(unsorted
            .to_string()
            .contains("row 1 of a run does not follow row 0"));
        let mut rows = Vec::<[u32; 2]>::new();
        let cut = decode::<2>(&out[..out.len() - 1], "blob 3", &mut rows).unwrap_err();
        assert!(
            cut.to_string().contains("blob 3: row 1 is cut short"),
            "{cut}"
        );
        let mut longer = out.clone();
        longer.push(0);
        let after = decode::<2>(&longer, "blob", &mut rows).unwrap_err();
        assert!(
            after.to_string().contains("1 bytes after its last row"),
            "{after}"
        );
        // A second row equal to the first: field differences of zero.
        let repeated = [2, 1, 2, 0, 0];
        let error = decode::<2>(&repeated, "blob", &mut rows).unwrap_err();
        assert!(
            error.to_string().contains("row 1 does not follow row 0"),
            "{error}"
        );
        let too_many = [100, 1, 2];
        assert!(decode::<2>(&too_many, "blob", &mut rows).is_err());
        let wide = [1, 0xff, 0xff, 0xff, 0xff, 0x7f, 0];
        assert!(decode::<2>(&wide, "blob", &mut rows).is_err());
    }

    proptest! {
        #[test]
        fn a_run_decodes_to_its_rows(
            rows in proptest::collection::vec(
                (0u32..4, 0u32..300, prop_oneof![0u32..3, Just(u32::MAX)]), 0..200)
        ) {
            let mut rows: Vec<[u32; 3]> = rows.into_iter().map(|(a, b, c)| [a, b, c]).collect();
            let mut want = rows.clone();
            want.sort_unstable();
            want.dedup();
            rows.sort_unstable();
            rows.dedup();
            let mut out = Vec::new();
            encode(&rows, &mut out).unwrap();
            let mut back = vec![[9, 9, 9]];
            decode::<3>(&out, "run", &mut back).unwrap();
            prop_assert_eq!(&back[1..], &want[..]);
        }
    }
}
