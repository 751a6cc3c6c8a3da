//! The books of a reader's snapshot, as its segments hold them: one run per
//! segment, read in place.
//!
//! Books are numbered by *slot* and parts by *part number*, run after run
//! (runs in the order of their first book id; within a run, by id), so a
//! slot or part is found by a binary search over a few run bases and the
//! reader holds nothing per book. The id ranges of the runs do not
//! interleave (each load's ids are above every earlier one, and a merge
//! takes every listed segment), so slots ascend with ids. Books deleted or
//! replaced since their segment was written are *dead*: still in the run,
//! listed in the catalog's `dead_books`, and skipped by every reader.

use std::ops::Range;

use roaring::RoaringBitmap;

use crate::error::Result;
use crate::storage::catalog::BookEntry;
use crate::storage::page_files::PageLocator;
use crate::storage::segment::Segment;
use crate::storage::segment_books::PartHashes;

/// The runs of a snapshot.
#[derive(Debug)]
pub(crate) struct Runs {
    segments: Vec<Segment>,
    /// First slot of each run, then the slot count.
    slot_bases: Vec<u32>,
    /// First part of each run, then the part count.
    part_bases: Vec<u32>,
    /// Slots of dead books.
    dead: RoaringBitmap,
    /// The slot of every part, held by a passage view only: it numbers
    /// tens of units a book, each looked up at every candidate of a
    /// translation search (4 bytes a passage in memory).
    slot_of_part: Option<Vec<u32>>,
}

/// The run holding item `i` under `bases` (first item of each run, then
/// the count).
fn run_of(bases: &[u32], i: u32) -> usize {
    bases.partition_point(|&base| base <= i).saturating_sub(1)
}

impl Runs {
    /// The runs of `segments` (each with book sections), with the books of
    /// `dead` (ids, any order) dead.
    pub(crate) fn new(mut segments: Vec<Segment>, dead: &[u32]) -> Runs {
        segments.sort_by_key(|s| s.book_id(0));
        let mut slot_bases = vec![0u32];
        let mut part_bases = vec![0u32];
        for segment in &segments {
            let slots = *slot_bases.last().unwrap_or(&0);
            let parts = *part_bases.last().unwrap_or(&0);
            slot_bases.push(slots.saturating_add(segment.book_count() as u32));
            part_bases.push(parts.saturating_add(segment.part_count() as u32));
        }
        let mut runs = Runs {
            segments,
            slot_bases,
            part_bases,
            dead: RoaringBitmap::new(),
            slot_of_part: None,
        };
        for &id in dead {
            if let Some(slot) = runs.any_slot_of_id(id) {
                runs.dead.insert(slot);
            }
        }
        runs
    }

    /// The same books seen through their passages
    /// ([`Segment::passage_view`]): a book's units are its passages, its
    /// slot and deadness as here. `None` when no segment stores passages.
    pub(crate) fn passage_view(&self) -> Option<Runs> {
        if !self.segments.iter().any(Segment::stores_passages) {
            return None;
        }
        let segments = self
            .segments
            .iter()
            .map(Segment::passage_view)
            .collect::<Option<Vec<_>>>()?;
        let mut runs = Runs::new(segments, &[]);
        runs.dead = self.dead.clone();
        let mut slot_of_part = Vec::with_capacity(runs.part_count());
        for slot in 0..runs.slot_count() {
            slot_of_part.extend(runs.part_range(slot).map(|_| slot));
        }
        runs.slot_of_part = Some(slot_of_part);
        Some(runs)
    }

    /// The segments, in run order.
    pub(crate) fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Slots, dead books included.
    pub(crate) fn slot_count(&self) -> u32 {
        self.slot_bases.last().copied().unwrap_or(0)
    }

    /// Live books.
    pub(crate) fn live_count(&self) -> usize {
        self.slot_count() as usize - self.dead.len() as usize
    }

    /// Parts, dead books' included.
    pub(crate) fn part_count(&self) -> usize {
        self.part_bases.last().copied().unwrap_or(0) as usize
    }

    /// The first part of run `r`.
    pub(crate) fn part_base(&self, r: usize) -> u32 {
        self.part_bases.get(r).copied().unwrap_or(0)
    }

    /// Part `local` of run `r`, numbered across the runs; `None` past the
    /// run's parts.
    pub(crate) fn global_part(&self, r: usize, local: u32) -> Option<u32> {
        let base = self.part_base(r);
        let end = self.part_bases.get(r + 1).copied().unwrap_or(base);
        (base + local < end).then_some(base + local)
    }

    /// The run of `part` and its number there.
    pub(crate) fn locate_part(&self, part: u32) -> (usize, u32) {
        let r = run_of(&self.part_bases, part);
        (r, part - self.part_base(r))
    }

    /// The run of `slot` and its position there.
    pub(crate) fn locate_slot(&self, slot: u32) -> (usize, usize) {
        let r = run_of(&self.slot_bases, slot);
        (r, (slot - self.slot_bases[r]) as usize)
    }

    /// Whether the book in `slot` is dead.
    pub(crate) fn is_dead(&self, slot: u32) -> bool {
        self.dead.contains(slot)
    }

    /// The place of the live book in `slot` among the live books (its index
    /// in [`crate::Reader::books`]).
    pub(crate) fn place_of(&self, slot: u32) -> u32 {
        slot - self.dead.rank(slot) as u32
    }

    /// The slot of the live book at `place` among the live books.
    pub(crate) fn slot_of_place(&self, place: u32) -> u32 {
        let (mut low, mut high) = (0, self.slot_count());
        // The least slot up to which more than `place` books are live.
        while low < high {
            let mid = low + (high - low) / 2;
            if (mid + 1) as u64 - self.dead.rank(mid) > u64::from(place) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        low
    }

    /// The live slots, ascending.
    pub(crate) fn live_slots(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.slot_count()).filter(|&slot| !self.is_dead(slot))
    }

    /// The id of the book in `slot`.
    pub(crate) fn id(&self, slot: u32) -> u32 {
        let (r, position) = self.locate_slot(slot);
        self.segments.get(r).map_or(0, |s| s.book_id(position))
    }

    /// The slot of the book with id `id`, dead or alive.
    fn any_slot_of_id(&self, id: u32) -> Option<u32> {
        let r = self
            .segments
            .partition_point(|s| s.book_id(0) <= id)
            .checked_sub(1)?;
        self.slot_of_id_in(r, id)
    }

    /// The slot of the book with id `id` in run `r`, dead or alive.
    fn slot_of_id_in(&self, r: usize, id: u32) -> Option<u32> {
        let position = self.segments.get(r)?.position_of_id(id)?;
        Some(self.slot_bases[r] + position as u32)
    }

    /// The slot of the live book with id `id` in run `r`.
    pub(crate) fn live_slot_of_id_in(&self, r: usize, id: u32) -> Option<u32> {
        self.slot_of_id_in(r, id)
            .filter(|&slot| !self.is_dead(slot))
    }

    /// The slot of the book at `position` of run `r`.
    pub(crate) fn slot_in(&self, r: usize, position: usize) -> u32 {
        self.slot_bases[r] + position as u32
    }

    /// The first slot whose id is `id` or above.
    pub(crate) fn first_slot_from_id(&self, id: u32) -> u32 {
        let slots = self.slot_count();
        let mut low = 0;
        let mut high = slots;
        while low < high {
            let mid = low + (high - low) / 2;
            if self.id(mid) < id {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }

    /// The slot of the live book stored under `key`.
    pub(crate) fn slot_of_key(&self, key: &str) -> Option<u32> {
        self.segments.iter().enumerate().find_map(|(r, segment)| {
            segment
                .positions_of_key(key)
                .into_iter()
                .map(|position| self.slot_in(r, position))
                .find(|&slot| !self.is_dead(slot))
        })
    }

    /// The catalog entry and page locator of the book in `slot`.
    pub(crate) fn entry(&self, slot: u32) -> Result<(BookEntry, Option<PageLocator>)> {
        let (r, position) = self.locate_slot(slot);
        self.segments[r].entry(position)
    }

    /// The parts of the book in `slot`, numbered across the runs.
    pub(crate) fn part_range(&self, slot: u32) -> Range<u32> {
        let (r, position) = self.locate_slot(slot);
        let local = self.segments[r].book_parts(position);
        let base = self.part_base(r);
        base + local.start as u32..base + local.end as u32
    }

    /// The slot of the book holding `part`.
    pub(crate) fn book_of_part(&self, part: u32) -> u32 {
        if let Some(slot) = self
            .slot_of_part
            .as_ref()
            .and_then(|s| s.get(part as usize))
        {
            return *slot;
        }
        let (r, local) = self.locate_part(part);
        self.slot_in(r, self.segments[r].book_of_part(local as usize))
    }

    /// Elements of `part`.
    pub(crate) fn part_len(&self, part: u32) -> u32 {
        let (r, local) = self.locate_part(part);
        self.segments
            .get(r)
            .map_or(0, |s| s.part_len(local as usize))
    }

    /// The unique-word hashes of `part`, in text order.
    pub(crate) fn part_hashes(&self, part: u32) -> PartHashes<'_> {
        let (r, local) = self.locate_part(part);
        self.segments
            .get(r)
            .map(|s| s.part_hashes(local as usize))
            .unwrap_or_default()
    }

    /// Runs over `groups` of sequences held in memory: each group one
    /// segment, each sequence one book of one part (ids from 1, in order).
    #[cfg(test)]
    pub(crate) fn in_memory(groups: &[&[&[u32]]]) -> Runs {
        use crate::storage::segment::{encode, SketchRecord};
        use crate::storage::segment_books::SegmentBook;
        let mut id = 0;
        let segments = groups
            .iter()
            .map(|group| {
                let books: Vec<SegmentBook> = group
                    .iter()
                    .map(|parts| {
                        id += 1;
                        SegmentBook {
                            sketch: SketchRecord {
                                book_id: id,
                                simhash: Default::default(),
                                minhash: crate::repr::MinHashSig(Vec::new()),
                                keys: Default::default(),
                            },
                            sketched: false,
                            entry: BookEntry {
                                key: format!("b{id}"),
                                ..BookEntry::default()
                            },
                            pages: None,
                            parts: vec![parts.to_vec()],
                            passages: vec![parts.to_vec()],
                        }
                    })
                    .collect();
                let bytes = encode(books, 1).unwrap();
                Segment::decode(bytes, std::path::Path::new("memory")).unwrap()
            })
            .collect();
        Runs::new(segments, &[])
    }
}
