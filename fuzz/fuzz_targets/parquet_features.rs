//! The Parquet features reader (`stemmata_parquet::FeaturesReader`) on
//! arbitrary bytes: it must return an error, never panic, on a damaged
//! file, a file of another schema, bad metadata or bad values; every row
//! it accepts goes through the engine's check (`BookFeatures::check`)
//! without panicking, and converts to a record batch and back unchanged.
//! Some damaged files trip assertions inside the Parquet library; the
//! reader catches those panics and returns an error naming the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::Once;
use stemmata_parquet::{from_record_batch, to_record_batch, FeaturesReader};

/// Panics raised inside the Parquet and Arrow libraries, which the reader
/// catches and returns as errors, do not end the run; any other panic
/// (ours, or one the reader lets through) still aborts it.
fn tolerate_caught_library_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let file = info.location().map_or("", |l| l.file());
            let library = ["/parquet-", "/arrow-", "/thrift-"]
                .iter()
                .any(|name| file.contains(name));
            if !library {
                abort(info);
            }
        }));
    });
}

fuzz_target!(|data: &[u8]| {
    tolerate_caught_library_panics();
    let path = Path::new("fuzz.parquet");
    let Ok(reader) = FeaturesReader::from_bytes(data.to_vec(), path) else {
        return;
    };
    let options = *reader.options();
    let window_hashes = options.sketch.window_hashes;
    for row in reader.take(64) {
        let Ok((id, features)) = row else {
            return;
        };
        let _ = features.check(&options, &options, "fuzz.parquet: row 0");
        let batch = to_record_batch(&[(id, &features)]).expect("one small row");
        let back = from_record_batch(&batch, window_hashes, path, 0).expect("rows it wrote");
        assert_eq!(back, vec![(id, features)]);
    }
});
