//! Deleting books: one catalog transaction, then a compaction of the sketch
//! segments when enough of them is dead.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::storage::catalog::{Catalog, CatalogBatch};
use crate::store::segments::{compact_after_commit, prepare_dir, CompactionCause, MAX_DEAD_SHARE};
use crate::store::Store;

/// What [`crate::Index::delete_books`] did.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[non_exhaustive]
pub struct DeleteStats {
    /// Books that existed and were deleted.
    pub deleted: u64,
    /// Problems met after the deletion was committed, which it survived (a
    /// failed compaction, a damaged segment left out of it), each saying
    /// what to do.
    pub warnings: Vec<String>,
}

/// Deletes the books stored under `keys` in one transaction, then compacts
/// the sketch segments when more than a quarter of the sketched books is
/// dead. A key that is not stored and breaks the key rule is an
/// `InvalidArgument`, and nothing is deleted.
pub(crate) fn delete_books(store: &Arc<Store>, keys: &[&str]) -> Result<DeleteStats> {
    let _writer = store.lock_writer()?;
    let snapshot = store.catalog().snapshot()?;
    // The keys stored now, each once: what a failed commit may have deleted.
    let mut stored = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for key in keys {
        if snapshot.id_of(key)?.is_some() {
            if seen.insert(*key) {
                stored.push(*key);
            }
        } else if let Some(error) = crate::keys::invalid_key(key) {
            return Err(error);
        }
    }
    let batch = CatalogBatch {
        delete_keys: keys.iter().map(|k| k.to_string()).collect(),
        next_book_id: snapshot.next_book_id()?,
        ..CatalogBatch::default()
    };
    drop(snapshot);
    let deleted = match store.catalog().commit(&batch) {
        Ok(outcome) => outcome.deleted,
        Err(error) => return landed_anyway(store, &stored, error),
    };
    let mut warnings = Vec::new();
    if deleted > 0 {
        match prepare_dir(store) {
            Ok(next) => {
                let cause = CompactionCause {
                    dead_share: Some(MAX_DEAD_SHARE),
                    ..CompactionCause::default()
                };
                warnings = compact_after_commit(store, next, &cause);
            }
            Err(error) => warnings.push(format!(
                "the books were deleted, but the segment directory could not be prepared \
                 for compaction: {error}; the next load or delete compacts again"
            )),
        }
    }
    Ok(DeleteStats { deleted, warnings })
}

/// The outcome of a delete of the stored keys `existed` whose catalog
/// commit failed with `error`: the error when the catalog file still holds
/// one of them (nothing was deleted: a commit is whole or absent), else
/// the deletion, on disk all the same, with a warning. Its compaction is
/// left to the next writer.
fn landed_anyway(store: &Store, existed: &[&str], error: Error) -> Result<DeleteStats> {
    let on_disk = Catalog::on_disk(store.catalog().path());
    let gone = on_disk.and_then(|catalog| {
        let snapshot = catalog.snapshot()?;
        existed
            .iter()
            .map(|key| snapshot.id_of(key).map(|id| id.is_none()))
            .collect::<Result<Vec<bool>>>()
    });
    match gone {
        Ok(gone) if !existed.is_empty() && gone.iter().all(|&g| g) => Ok(DeleteStats {
            deleted: existed.len() as u64,
            warnings: vec![format!(
                "the catalog reported an error while committing the deletion ({error}), but \
                 the deletion is on disk: the books are deleted; `verify` checks the index"
            )],
        }),
        _ => Err(error),
    }
}
