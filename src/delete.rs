//! Deleting books: one catalog transaction, then a compaction of the sketch
//! segments when enough of them is dead.

use std::sync::Arc;

use crate::error::Result;
use crate::storage::catalog::CatalogBatch;
use crate::store::segments::{compact_after_commit, prepare_dir, MAX_DEAD_SHARE};
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
    for key in keys {
        if snapshot.id_of(key)?.is_none() {
            if let Some(error) = crate::keys::invalid_key(key) {
                return Err(error);
            }
        }
    }
    let batch = CatalogBatch {
        delete_keys: keys.iter().map(|k| k.to_string()).collect(),
        next_book_id: snapshot.next_book_id()?,
        ..CatalogBatch::default()
    };
    drop(snapshot);
    let deleted = store.catalog().commit(&batch)?.deleted;
    let mut warnings = Vec::new();
    if deleted > 0 {
        match prepare_dir(store) {
            Ok(next) => warnings = compact_after_commit(store, next, Some(MAX_DEAD_SHARE)),
            Err(error) => warnings.push(format!(
                "the books were deleted, but the segment directory could not be prepared \
                 for compaction: {error}; the next load or delete compacts again"
            )),
        }
    }
    Ok(DeleteStats { deleted, warnings })
}
