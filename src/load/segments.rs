//! The writer's side of sketch segments: numbering new segment files,
//! removing files a crashed writer left unlisted, and compaction (merging
//! the listed segments into one, dropping deleted books).

use std::collections::HashSet;

use crate::error::IoContext;
use crate::index::Index;
use crate::storage::catalog::CatalogBatch;
use crate::storage::fs;
use crate::storage::segment::{self, Segment, SketchRecord};
use crate::Result;

/// More listed segments than this trigger a compaction at the end of a load.
pub const MAX_SEGMENTS: usize = 8;
/// A delete compacts when more than this share of sketched books is dead.
pub const MAX_DEAD_SHARE: f64 = 0.25;

/// Removes segment files the catalog does not list (written by a writer
/// that stopped before its commit) and returns the next free number.
pub(crate) fn prepare_dir(index: &Index) -> Result<u32> {
    let listed: HashSet<u32> = index
        .catalog()
        .snapshot()?
        .segments()?
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let dir = index.segment_dir();
    let mut next = listed.iter().max().map_or(1, |n| n + 1);
    fs::create_dir_all(&dir)?;
    for entry in std::fs::read_dir(&dir).at(&dir)?.flatten() {
        let name = entry.file_name();
        let number = name
            .to_str()
            .and_then(|n| n.strip_suffix(".seg"))
            .and_then(|n| n.parse::<u32>().ok());
        match number {
            Some(n) if !listed.contains(&n) => {
                let _ = fs::remove_file(&entry.path());
                next = next.max(n + 1);
            }
            _ => {}
        }
    }
    Ok(next)
}

/// Writes `records` as segment `number`; returns its length. The caller
/// lists it in the catalog batch that publishes the books.
pub(crate) fn write(index: &Index, number: u32, records: &mut [SketchRecord]) -> Result<u64> {
    let k = index.require_sketches("write sketches")?.book.num_hashes;
    let bytes = segment::encode(records, k)?;
    segment::write_file(&index.segment_path(number), &bytes)?;
    Ok(bytes.len() as u64)
}

/// Merges every listed segment into segment `number` (returning true) when there are more
/// than [`MAX_SEGMENTS`], or when `force_dead_share` is set and more than
/// that share of the sketched books is deleted. Old files are removed after
/// the catalog stops listing them.
pub(crate) fn compact(index: &Index, number: u32, force_dead_share: Option<f64>) -> Result<bool> {
    let snapshot = index.catalog().snapshot()?;
    let listed = snapshot.segments()?;
    let live: HashSet<u32> = snapshot.books()?.into_iter().map(|(id, _)| id).collect();
    let next_book_id = snapshot.next_book_id()?;
    drop(snapshot);
    if listed.len() <= 1 && force_dead_share.is_none() {
        return Ok(false);
    }
    let segments = listed
        .iter()
        .map(|&(n, _)| Segment::open(&index.segment_path(n)))
        .collect::<Result<Vec<_>>>()?;
    let sketched: usize = segments.iter().map(|s| s.book_count()).sum();
    let dead = sketched.saturating_sub(live.len());
    let too_many = listed.len() > MAX_SEGMENTS;
    let too_dead = force_dead_share.is_some_and(|share| dead as f64 > share * sketched as f64);
    if !too_many && !too_dead {
        return Ok(false);
    }
    let refs: Vec<&Segment> = segments.iter().collect();
    // A merge too large for one segment's u32 counts is not done: the
    // segments stay as they are, which readers handle as well.
    let bytes = match segment::merge(&refs, |id| live.contains(&id)) {
        Ok(bytes) => bytes,
        Err(crate::Error::InvalidArgument(_)) => return Ok(false),
        Err(other) => return Err(other),
    };
    segment::write_file(&index.segment_path(number), &bytes)?;
    index.catalog().commit(&CatalogBatch {
        add_segments: vec![(number, bytes.len() as u64)],
        remove_segments: listed.iter().map(|&(n, _)| n).collect(),
        next_book_id,
        ..CatalogBatch::default()
    })?;
    for &(n, _) in &listed {
        let _ = fs::remove_file(&index.segment_path(n));
    }
    Ok(true)
}
