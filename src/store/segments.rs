//! The writer's side of sketch segments: numbering new segment files,
//! removing files a crashed writer left unlisted, and compaction (merging
//! the listed segments into one, dropping deleted books, and dropping a
//! damaged segment once every live book is sketched in another). A
//! compaction runs after the commit that made a load's or a delete's books
//! durable, so its failure is reported as a warning, not as the failure of
//! the load or delete.

use std::collections::{HashMap, HashSet};

use super::Store;
use crate::error::{Error, IoContext, Result};
use crate::repr::{MinHashSig, SimHash128};
use crate::storage::catalog::{CatalogBatch, CatalogSnapshot, StoredPages};
use crate::storage::fs;
use crate::storage::segment::{self, Segment, SketchRecord, Unreadable};
use crate::storage::segment_books::SegmentBook;
use crate::storage::segment_merge::{self, Fate};

/// More listed segments than this trigger a compaction at the end of a load.
pub const MAX_SEGMENTS: usize = 8;

/// What a compaction is asked to do beyond keeping the listed segments
/// within [`MAX_SEGMENTS`].
#[derive(Debug, Clone, Default)]
pub(crate) struct CompactionCause {
    /// Rewrite the segments holding dead books once more than this share
    /// of the sketched books is dead.
    pub dead_share: Option<f64>,
    /// The segments the calling load wrote (by number): when it wrote more
    /// than one, they are merged (with their neighbours, as the tiered
    /// plan of [`merge_chunks`] groups them), so a bulk load of many
    /// batches ends as one run, and a query looks each word and key up
    /// once. Their bytes were just written and synced by this process, so
    /// they are merged without the whole-segment check an older one gets.
    pub fresh: std::ops::Range<u32>,
}

/// A compaction merges consecutive segments (in book id order) into
/// segments of at most about this many bytes, and leaves a larger one
/// alone. A merge streams ([`segment_merge`]): its memory is a few bytes per
/// book, part and distinct word, whatever its size, so this bounds only the
/// room a merge needs on disk beside the index and what one merge
/// rewrites. A bulk load of 100,000 books of 20K words (13 GB) ends as one
/// segment, so a query looks each word and key up once, not in ten runs.
pub const MAX_MERGED_BYTES: u64 = 16 << 30;
/// A merge also keeps the posting lists of its segments together (the
/// larger of their book and passage sections) within this many bytes:
/// a merged segment addresses its lists with 32-bit ends, so they must
/// stay under 4 GiB, and a merged list takes about its inputs' bytes
/// (blocks cut again across them: a few bytes more each). Without it a
/// bulk load of 300,000 books of 20K words (16 GB of batch segments)
/// spent seven minutes merging them into one segment and then gave up on
/// its lists, leaving 300 segments for every query to look its keys up in.
pub const MAX_MERGED_LIST_BYTES: u64 = 3 << 30;

/// What a segment weighs in a merge: its bytes, and its posting lists'
/// ([`Segment::list_section_bytes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct MergeWeight {
    pub(crate) bytes: u64,
    pub(crate) list_bytes: u64,
}

impl MergeWeight {
    /// The weight of `segment`, `bytes` long.
    pub(crate) fn of(bytes: u64, segment: &Segment) -> Self {
        MergeWeight {
            bytes,
            list_bytes: segment.list_section_bytes(),
        }
    }
}

/// A segment joins a merge of the newer segments after it only when it is
/// at most this many times their size together: a large old segment is
/// rewritten once the newer ones have grown to a quarter of it, not at
/// every small load, so each byte is rewritten a few times over the life
/// of an index (a tiered merge).
pub const MERGE_SIZE_RATIO: u64 = 4;

/// The merges of a compaction, each the indexes of consecutive `readable`
/// segments (in book id order) to merge into one: the groups of
/// [`merge_chunks`] of two segments or more, and, when `dead_too`, single
/// segments holding a book not `live`.
fn merge_plan(
    readable: &[(u32, u64, Segment)],
    dead_too: bool,
    live: &HashSet<u32>,
) -> Vec<Vec<usize>> {
    let weights: Vec<MergeWeight> = (readable.iter())
        .map(|(_, len, segment)| MergeWeight::of(*len, segment))
        .collect();
    merge_chunks(&weights)
        .into_iter()
        .filter(|chunk| {
            chunk.len() > 1
                || (dead_too
                    && chunk
                        .clone()
                        .filter_map(|i| readable.get(i))
                        .any(|(_, _, s)| s.book_ids().any(|id| !live.contains(&id))))
        })
        .map(|chunk| chunk.collect())
        .collect()
}

/// The groups of consecutive segments (by index into `weights`, segments
/// in book id order) that a compaction merges into one each, in order:
/// from the newest, each group takes the next older segment while the
/// group stays within [`MAX_MERGED_BYTES`] and its posting lists within
/// [`MAX_MERGED_LIST_BYTES`], and that segment is at most
/// [`MERGE_SIZE_RATIO`] times the group; then a new group starts. A group
/// of one segment is left as it is (unless it holds dead books).
pub(crate) fn merge_chunks(weights: &[MergeWeight]) -> Vec<std::ops::Range<usize>> {
    let mut chunks = Vec::new();
    let mut end = weights.len();
    while end > 0 {
        let mut start = end - 1;
        let mut group = weights.get(start).copied().unwrap_or_default();
        while let Some(&older) = start.checked_sub(1).and_then(|i| weights.get(i)) {
            if group.bytes + older.bytes > MAX_MERGED_BYTES
                || group.list_bytes + older.list_bytes > MAX_MERGED_LIST_BYTES
                || older.bytes > MERGE_SIZE_RATIO * group.bytes
            {
                break;
            }
            start -= 1;
            group.bytes += older.bytes;
            group.list_bytes += older.list_bytes;
        }
        chunks.push(start..end);
        end = start;
    }
    chunks.reverse();
    chunks
}
/// A delete compacts when more than this share of sketched books is dead.
pub const MAX_DEAD_SHARE: f64 = 0.25;

/// Removes segment files the catalog does not list (written by a writer
/// that stopped before its commit) and returns the next free number.
pub(crate) fn prepare_dir(store: &Store) -> Result<u32> {
    let listed: HashSet<u32> = store
        .catalog()
        .snapshot()?
        .segments()?
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let dir = store.segment_dir();
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
pub(crate) fn write(store: &Store, number: u32, books: Vec<SegmentBook>) -> Result<u64> {
    let k = store.require_sketches("write sketches")?.book.num_hashes;
    segment::write(&store.segment_path(number), books, k)
}

/// What a compaction did.
#[derive(Debug, Default)]
pub(crate) struct Compaction {
    /// Listed segments merged into the new one (0 when none was written).
    pub merged: usize,
    /// Segments unlisted without a merge because they held no live book
    /// (unreadable ones, and ones holding only deleted books).
    pub dropped: usize,
    /// Why unreadable segments were kept, and what to do about them.
    pub warnings: Vec<String>,
}

/// Compacts the listed segments (see [`compact`]) after a commit that made
/// every book of the load or delete durable, so that a failure here loses
/// nothing: it is returned as a warning instead of an error. The index stays
/// valid: a merged segment is listed only by the compaction's own catalog
/// transaction, and a partly written one is an unlisted file that the next
/// writer removes.
pub(crate) fn compact_after_commit(
    store: &Store,
    number: u32,
    cause: &CompactionCause,
) -> Vec<String> {
    match compact(store, number, cause) {
        Ok(compaction) => compaction.warnings,
        Err(error) => vec![format!(
            "every book was committed, but compacting the sketch segments failed: {error}; \
             the index is valid as it is, and the next load or delete compacts again"
        )],
    }
}

/// Merges the readable listed segments, consecutive ones in book id order
/// into segments of at most [`MAX_MERGED_BYTES`] numbered from `number`,
/// when there are more than [`MAX_SEGMENTS`] listed segments, when more
/// than one of them is among `cause.fresh`, or when `cause.dead_share` is
/// set and more than that share of the sketched books is deleted (then
/// every segment holding a dead book is rewritten without it). Old files
/// are removed after the catalog stops listing them.
///
/// A listed segment that cannot be read is never merged. While some live
/// book is sketched in no readable segment it may be sketched there, so the
/// damaged segment stays listed (approximate mode reports it) and a warning
/// says which books to reload; once every live book is sketched in a
/// readable segment it holds nothing live, and it is dropped from the
/// catalog.
pub(crate) fn compact(store: &Store, number: u32, cause: &CompactionCause) -> Result<Compaction> {
    let snapshot = store.catalog().snapshot()?;
    let listed = snapshot.segments()?;
    let books = snapshot.books()?;
    let next_book_id = snapshot.next_book_id()?;
    drop(snapshot);
    let mut compaction = Compaction::default();
    if listed.len() <= 1 && cause.dead_share.is_none() {
        return Ok(compaction);
    }
    let live: HashSet<u32> = books.iter().map(|&(id, _)| id).collect();
    let mut readable = Vec::new();
    let mut unreadable = Vec::new();
    for &(n, len) in &listed {
        let path = store.segment_path(n);
        match Segment::open(&path) {
            Ok(segment) => readable.push((n, len, segment)),
            Err(error) => unreadable.push((n, Unreadable::of(&path, &error))),
        }
    }
    readable.sort_by_key(|(_, _, segment)| segment.book_id(0));
    let sketched: usize = readable.iter().map(|(_, _, s)| s.book_count()).sum();
    let dead = readable
        .iter()
        .flat_map(|(_, _, s)| s.book_ids())
        .filter(|id| !live.contains(id))
        .count();
    let is_fresh = |n: u32| cause.fresh.contains(&n);
    let fresh = readable.iter().filter(|(n, _, _)| is_fresh(*n)).count();
    let too_many = (listed.len() > MAX_SEGMENTS || fresh > 1) && readable.len() > 1;
    let too_dead = !readable.is_empty()
        && cause
            .dead_share
            .is_some_and(|share| dead as f64 > share * sketched as f64);
    // What a merge rewrites is checked whole first, so that damage is not
    // copied: a segment failing the check is left out, and merges do not
    // reach across it (the runs' id ranges must not interleave).
    let mut plan = Vec::new();
    if too_many || too_dead {
        let mut checked: Vec<bool> = readable.iter().map(|(n, _, _)| is_fresh(*n)).collect();
        loop {
            plan = merge_plan(&readable, too_dead, &live);
            let mut failed = None;
            for &i in plan.iter().flat_map(|chunk| chunk.iter()) {
                let (Some(done), Some((n, _, segment))) = (checked.get_mut(i), readable.get(i))
                else {
                    continue;
                };
                if !*done {
                    match segment.check() {
                        Ok(()) => *done = true,
                        Err(error) => {
                            failed = Some(i);
                            unreadable.push((*n, Unreadable::of(segment.path(), &error)));
                            break;
                        }
                    }
                }
            }
            match failed {
                None => break,
                Some(i) => {
                    readable.remove(i);
                    checked.remove(i);
                }
            }
        }
    }
    let mut covered = HashSet::new();
    for (_, _, segment) in &readable {
        covered.extend(segment.book_ids().filter(|id| live.contains(id)));
    }
    let orphans: Vec<&str> = books
        .iter()
        .filter(|(id, _)| !covered.contains(id))
        .map(|(_, entry)| entry.key.as_str())
        .collect();
    let drop_unreadable = !unreadable.is_empty() && orphans.is_empty();
    let damaged: Vec<Unreadable> = unreadable.iter().map(|(_, u)| u.clone()).collect();
    if let (Some(first), false) = (damaged.first(), drop_unreadable) {
        let at = first
            .offset
            .map_or_else(String::new, |offset| format!("at byte {offset}: "));
        compaction.warnings.push(format!(
            "{}: damaged sketch segment ({at}{}), left out of the compaction; {}",
            first.path.display(),
            first.what,
            repair_advice(&damaged, &orphans)
        ));
    }
    let mut batch = CatalogBatch {
        next_book_id,
        ..CatalogBatch::default()
    };
    // A segment holding only dead books is unlisted without a merge.
    let in_plan: HashSet<usize> = plan.iter().flatten().copied().collect();
    for (i, (n, _, segment)) in readable.iter().enumerate() {
        if !in_plan.contains(&i) && segment.book_ids().all(|id| !live.contains(&id)) {
            batch.remove_segments.push(*n);
            batch.forget_dead.extend(segment.book_ids());
            compaction.dropped += 1;
        }
    }
    if drop_unreadable {
        batch
            .remove_segments
            .extend(unreadable.iter().map(|&(n, _)| n));
        compaction.dropped = unreadable.len();
    }
    let not_removed = commit_and_remove(store, &batch)?;
    compaction.warnings.extend(not_removed);
    // Each merge is published by its own transaction and its old files
    // removed (and unmapped) before the next: the index never needs much
    // more room than it takes.
    let mut segments: Vec<Option<(u32, u64, Segment)>> = readable.into_iter().map(Some).collect();
    for (next, chunk) in (number..).zip(plan) {
        let merging: Vec<(u32, u64, Segment)> = chunk
            .iter()
            .filter_map(|&i| segments.get_mut(i).and_then(Option::take))
            .collect();
        let refs: Vec<&Segment> = merging.iter().map(|(_, _, s)| s).collect();
        let len = segment_merge::write(&store.segment_path(next), &refs, |id| {
            Fate::keep_if(live.contains(&id))
        })?;
        let merge = CatalogBatch {
            next_book_id,
            add_segments: vec![(next, len)],
            remove_segments: merging.iter().map(|(n, _, _)| *n).collect(),
            forget_dead: refs
                .iter()
                .flat_map(|s| s.book_ids())
                .filter(|id| !live.contains(id))
                .collect(),
            ..CatalogBatch::default()
        };
        drop(refs);
        drop(merging);
        let not_removed = commit_and_remove(store, &merge)?;
        compaction.warnings.extend(not_removed);
        compaction.merged += merge.remove_segments.len();
    }
    Ok(compaction)
}

/// Commits `batch` when it unlists segments, then removes their files;
/// returns the warnings of files not removed.
fn commit_and_remove(store: &Store, batch: &CatalogBatch) -> Result<Vec<String>> {
    if batch.remove_segments.is_empty() {
        return Ok(Vec::new());
    }
    store.catalog().commit(batch)?;
    let paths = batch.remove_segments.iter().map(|&n| store.segment_path(n));
    Ok(crate::store::unlisted::remove_after_commit(paths))
}

/// Every live book of `snapshot` as a segment book: its catalog entry and
/// page locator, its parts' sequences read from the barrels (one barrel at
/// a time) and its sketch from the listed segments (none when it has
/// none), in id order. The first listed segment that cannot be read leaves
/// every book unsketched and is returned, unless it is missing and this is
/// not the `last_attempt` (then an `Io` error, for the caller to retry on a
/// fresh snapshot). How a reader of an index before format 7 builds its
/// runs, and what an upgrade to format 7 writes.
pub(crate) fn books_from_catalog(
    store: &Store,
    snapshot: &CatalogSnapshot<'_>,
    last_attempt: bool,
) -> Result<(Vec<SegmentBook>, Option<Unreadable>)> {
    let entries = snapshot.books()?;
    let committed: HashMap<u32, u64> = snapshot.barrels()?.into_iter().collect();
    let hashes = super::records::read_hashes(store, &committed, &entries)?;
    let mut sketches: HashMap<u32, SketchRecord> = HashMap::new();
    let mut damaged = None;
    for (n, _) in snapshot.segments()? {
        let path = store.segment_path(n);
        match Segment::open_checked(&path) {
            Ok(segment) => {
                for position in 0..segment.book_count() {
                    let record = segment.sketch_record(position);
                    sketches.insert(record.book_id, record);
                }
            }
            Err(Error::Io { path, source })
                if source.kind() == std::io::ErrorKind::NotFound && !last_attempt =>
            {
                return Err(Error::Io { path, source });
            }
            Err(error) => {
                damaged.get_or_insert(Unreadable::of(&path, &error));
            }
        }
    }
    if damaged.is_some() {
        sketches.clear();
    }
    let mut books = Vec::with_capacity(entries.len());
    for ((id, entry), parts) in entries.into_iter().zip(hashes) {
        let pages = match snapshot.pages(id)? {
            Some(StoredPages::Locator(locator)) => Some(locator),
            _ => None,
        };
        let sketch = sketches.remove(&id);
        books.push(SegmentBook {
            sketched: sketch.is_some(),
            sketch: sketch.unwrap_or(SketchRecord {
                book_id: id,
                simhash: SimHash128::default(),
                minhash: MinHashSig(Vec::new()),
                keys: Default::default(),
            }),
            entry,
            pages,
            parts,
            // Passages need the text, which an index before format 7
            // does not keep.
            passages: Vec::new(),
        });
    }
    Ok((books, damaged))
}

/// Keys named in a message about books to reload, at most.
const NAMED_KEYS: usize = 20;

/// What the damaged segments mean for the index and the way out: `orphans`
/// are the keys of the live books sketched in no readable listed segment
/// (any of them may be sketched in a damaged one).
pub(crate) fn repair_advice(damaged: &[Unreadable], orphans: &[&str]) -> String {
    let others = match damaged {
        [] | [_] => String::new(),
        [_, rest @ ..] => {
            let paths: Vec<String> = rest.iter().map(|u| u.path.display().to_string()).collect();
            format!(" (damaged too: {})", paths.join(", "))
        }
    };
    if orphans.is_empty() {
        return format!(
            "it sketches no live book (each is sketched in a readable segment){others}: the next \
             compaction (at the end of a load, or after a delete) drops it; exact mode works meanwhile"
        );
    }
    let named: Vec<String> = orphans
        .iter()
        .take(NAMED_KEYS)
        .map(|k| format!("{k:?}"))
        .collect();
    let more = match orphans.len().saturating_sub(NAMED_KEYS) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "{} live books are sketched in no readable segment{others}, so approximate mode cannot \
         be used (exact mode and relations still work): {}{more}. To repair, reload those books \
         under the same keys with `stemmata load`; once the damaged segment sketches no live \
         book, the next compaction (at the end of that load) drops it",
        orphans.len(),
        named.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn damaged(name: &str) -> Unreadable {
        Unreadable {
            path: PathBuf::from(name),
            offset: Some(7),
            what: "checksum mismatch".into(),
        }
    }

    /// The merge chunks of segments of these bytes and no posting lists.
    fn merge_chunks_of(lengths: &[u64]) -> Vec<std::ops::Range<usize>> {
        let weights: Vec<MergeWeight> = (lengths.iter())
            .map(|&bytes| MergeWeight {
                bytes,
                list_bytes: 0,
            })
            .collect();
        merge_chunks(&weights)
    }

    #[test]
    fn merges_keep_their_posting_lists_under_the_bound() {
        // 300 batches of 54 MB, 40% of it posting lists: 16.2 GB in all,
        // within the byte bound, but 6.5 GB of lists.
        let batch = MergeWeight {
            bytes: 54 << 20,
            list_bytes: (54 << 20) * 2 / 5,
        };
        let chunks = merge_chunks(&vec![batch; 300]);
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks.iter().map(|c| c.len()).sum::<usize>(), 300);
        for chunk in &chunks {
            assert!(chunk.len() as u64 * batch.list_bytes <= MAX_MERGED_LIST_BYTES);
        }
        // Groups are made from the newest back: the oldest takes the rest.
        assert_eq!(chunks[2], 158..300);
    }

    #[test]
    fn merges_take_consecutive_segments_up_to_the_size_bound() {
        let g = MAX_MERGED_BYTES;
        assert_eq!(merge_chunks_of(&[]), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(merge_chunks_of(&[5, 6, 7]), vec![0..3]);
        // Groups are made from the newest segment back.
        assert_eq!(
            merge_chunks_of(&[g / 3, g / 2, g / 2, 1]),
            [0..1, 1..3, 3..4]
        );
        // A segment past the bound is a group of its own.
        assert_eq!(merge_chunks_of(&[1, 2 * g, 3, 4]), [0..1, 1..2, 2..4]);
    }

    #[test]
    fn a_bulk_load_ends_as_one_segment_and_a_large_one_waits_for_its_share() {
        let batch = 130 << 20;
        assert_eq!(merge_chunks_of(&[batch; 100]), vec![0..100]);
        // A 12 GiB segment is not rewritten for one new batch, nor for three.
        let big = 12 << 30;
        assert_eq!(merge_chunks_of(&[big, batch]), [0..1, 1..2]);
        assert_eq!(merge_chunks_of(&[big, batch, batch, batch]), [0..1, 1..4]);
        // It is once the newer ones reach a quarter of it.
        let with_newer =
            |n: usize| -> Vec<u64> { [big].into_iter().chain(vec![batch; n]).collect() };
        assert_eq!(merge_chunks_of(&with_newer(23)), [0..1, 1..24]);
        assert_eq!(merge_chunks_of(&with_newer(24)), vec![0..25]);
    }

    #[test]
    fn repair_advice_names_at_most_twenty_keys_and_counts_them_all() {
        let keys: Vec<String> = (0..25).map(|i| format!("k{i:02}")).collect();
        let orphans: Vec<&str> = keys.iter().map(String::as_str).collect();
        let advice = repair_advice(&[damaged("a.seg"), damaged("b.seg")], &orphans);
        assert!(
            advice.starts_with(
                "25 live books are sketched in no readable segment (damaged too: b.seg)"
            ),
            "{advice}"
        );
        assert!(
            advice.contains(r#""k00", "k01""#) && advice.contains(r#""k19" and 5 more."#),
            "{advice}"
        );
        assert!(!advice.contains("k20"), "{advice}");
        assert!(advice.contains("reload those books under the same keys with `stemmata load`"));
        let none = repair_advice(&[damaged("a.seg")], &[]);
        assert!(none.starts_with("it sketches no live book"), "{none}");
    }
}
