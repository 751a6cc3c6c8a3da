//! Barrel records: `decode_record` must return `Err` (never panic, never
//! allocate from an unchecked length) on any bytes, and whatever it accepts
//! (a record of positions, or one written before format 11 with the hashes
//! too) must have one hash per position, and its positions must survive a
//! re-encode and decode unchanged. `decode_records` (a
//! book's parts, records back to back) must accept exactly the inputs that
//! are whole records end to end.
//!
//! Random bytes almost never carry a matching checksum, so each input is also
//! decoded a second time with its checksum field (bytes 16..24) recomputed:
//! that lets the fuzzer reach the length checks, zstd and the payload decoder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use stemmata::storage::barrel::{
    decode_record, decode_records, EncodedSequence, RECORD_HEADER_LEN,
};
use stemmata::storage::format::checksum;

fn check(data: &[u8]) {
    if let Ok(records) = decode_records(data, 16, Path::new("fuzz")) {
        assert!(!records.is_empty());
        assert_eq!(
            records.iter().map(|r| r.len).sum::<u64>(),
            data.len() as u64
        );
    }
    let Ok(record) = decode_record(data, 16, Path::new("fuzz")) else {
        return;
    };
    if record.len as usize == data.len() {
        let one = decode_records(data, 16, Path::new("fuzz"))
            .expect("one whole record decodes as a book");
        assert_eq!(one.len(), 1);
    }
    if let Some(hashes) = &record.hashes {
        assert_eq!(hashes.len(), record.positions.len());
    }
    assert!(record.positions.windows(2).all(|w| w[0] < w[1]));
    assert!(record.len as usize <= data.len());

    let mut out = Vec::new();
    EncodedSequence::encode(&record.positions)
        .unwrap()
        .encode_into(record.book_id, &mut out);
    let again = decode_record(&out, 16, Path::new("fuzz")).expect("re-encoded record decodes");
    assert_eq!(again.book_id, record.book_id);
    assert_eq!(
        (&again.positions, &again.hashes),
        (&record.positions, &None)
    );
    assert_eq!(again.len as usize, out.len());
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= RECORD_HEADER_LEN {
        let stored_len = u32::from_le_bytes(data[0..4].try_into().unwrap()) as usize;
        let frame_end = RECORD_HEADER_LEN.saturating_add(stored_len).min(data.len());
        let mut covered = data[..16].to_vec();
        covered.extend_from_slice(&data[RECORD_HEADER_LEN..frame_end]);
        let mut fixed = data.to_vec();
        fixed[16..24].copy_from_slice(&checksum(&covered).to_le_bytes());
        check(&fixed);
    }
});
