//! Row runs (`batch::runs`, the Spark job's packed matches and key pairs):
//! decoding must never panic on any bytes, and must refuse what is not a
//! run; rows it accepts ascend, and encoding them again gives the same
//! bytes back when the input was written in the encoder's form. The first
//! byte of the input picks the rows' width (3, as key pair rows, or 6, as
//! match rows).
#![no_main]

use libfuzzer_sys::fuzz_target;
use stemmata::batch::runs::{decode, encode};

fn check<const N: usize>(bytes: &[u8]) {
    let mut rows: Vec<[u32; N]> = Vec::new();
    if decode::<N>(bytes, "run", &mut rows).is_err() {
        return;
    }
    assert!(rows.windows(2).all(|w| w[0] < w[1]));
    let mut again = Vec::new();
    encode(&rows, &mut again).expect("decoded rows ascend");
    let mut back: Vec<[u32; N]> = Vec::new();
    decode::<N>(&again, "run", &mut back).expect("an encoded run decodes");
    assert_eq!(back, rows);
    assert!(again.len() <= bytes.len());
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    match pick % 2 {
        0 => check::<3>(bytes),
        _ => check::<6>(bytes),
    }
});
