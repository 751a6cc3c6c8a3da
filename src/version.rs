//! The format versions this build writes and reads, as numbers: the one
//! place they are written down, below the error type that names them in
//! messages and the storage layer that checks them
//! (`storage::format::FormatVersion`).

/// The format version this build writes.
pub(crate) const CURRENT_FORMAT: u16 = 23;

/// The oldest format version this build reads.
pub(crate) const OLDEST_FORMAT: u16 = 1;
