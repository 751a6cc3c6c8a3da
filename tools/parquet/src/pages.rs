//! What a file's pages and its footer's schema declare, checked before the
//! Parquet library reads them.
//!
//! The footer's schema is a list of elements, a group giving how many of
//! the elements after it are its children; the library reserves room for
//! that many before it reads them, so [`check_footer_schema`] refuses a
//! group of as many children as the schema has elements or more.
//!
//! Each page of a column chunk starts with a header (Thrift's compact
//! protocol) that gives its stored and decompressed sizes, how many values
//! it holds and how they are encoded. The library reserves memory by what
//! a header declares before it checks it against the bytes: a damaged or
//! hostile file of a few hundred bytes that declares a page of 2 GiB, or a
//! dictionary of 2^31 values, makes it reserve that much. So
//! [`check_pages`] walks every page header of every column chunk first,
//! reading only the headers, and refuses a file whose pages
//!
//! - do not tile their column chunk, or run past the file's end;
//! - declare, all together, more than [`decompressed_limit`] of the
//!   file's bytes once decompressed, or more values than [`VALUE_BYTES`]
//!   each of that limit holds (run-length encoding lets a few bytes
//!   declare any number of values: nulls, repeats). The limit is the
//!   file's, not each page's: many small pages each within a page's limit
//!   would add up, inside one batch of rows, to what one page may not;
//! - hold a dictionary of more values than its bytes hold at
//!   [`MIN_VALUE_BYTES`] each;
//! - encode their values otherwise than plainly or by a dictionary (with
//!   run-length encoded booleans and levels): what Arrow and Spark write by
//!   default. The library's delta encodings reserve what their own headers,
//!   inside the page, declare.

use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;

/// A file's pages may declare up to this many bytes decompressed, whatever
/// its size. Writers cut pages at 1 MiB (Arrow's and Spark's default);
/// only a single value larger than that makes a larger page.
pub const MIN_DECOMPRESSED_LIMIT: u64 = 8 << 20;

/// Past [`MIN_DECOMPRESSED_LIMIT`], a file's pages may declare at most
/// this many times the file's bytes decompressed. Values are dictionary-
/// and run-length encoded before the codec sees them, so what the codec
/// is left to squeeze rarely shrinks 20 times (the features files of
/// `stemmata export` and of the Spark job: under 4 times); the memory a
/// file makes the reader take stays bounded by its size.
pub const MAX_EXPANSION: u64 = 4096;

/// The memory a value read takes, in bytes, as the reader counts
/// values against [`decompressed_limit`]: a 64-bit value, or a list's
/// offset and its levels.
pub const VALUE_BYTES: u64 = 8;

/// The fewest bytes a value takes in a dictionary page: the layout's
/// columns are integers and strings, and a plain string is its 4-byte
/// length and its bytes.
pub const MIN_VALUE_BYTES: u64 = 4;

/// Parquet's value encodings a page may use: PLAIN, PLAIN_DICTIONARY, RLE
/// (booleans) and RLE_DICTIONARY.
const ENCODINGS: [(i64, &str); 4] = [
    (0, "PLAIN"),
    (2, "PLAIN_DICTIONARY"),
    (3, "RLE"),
    (8, "RLE_DICTIONARY"),
];

/// Names of the encodings [`ENCODINGS`] leaves out, for errors.
const OTHER_ENCODINGS: [(i64, &str); 5] = [
    (4, "BIT_PACKED"),
    (5, "DELTA_BINARY_PACKED"),
    (6, "DELTA_LENGTH_BYTE_ARRAY"),
    (7, "DELTA_BYTE_ARRAY"),
    (9, "BYTE_STREAM_SPLIT"),
];

/// Bytes of a page header read at first; a header that needs more (long
/// statistics) is read again with twice as many, up to its chunk's end.
const HEADER_PROBE: u64 = 256;

/// Thrift structures nest at most this deep in a page header (statistics
/// inside a data page header inside the page header); a deeper one is
/// damage.
const MAX_DEPTH: u32 = 8;

/// The most bytes the pages of a file of `length` bytes may declare
/// decompressed, all together.
pub fn decompressed_limit(length: u64) -> u64 {
    MIN_DECOMPRESSED_LIMIT.max(length.saturating_mul(MAX_EXPANSION))
}

/// Checks that no group of the footer's schema claims as many children as
/// the schema has elements, or more (see the module docs). A footer that
/// is not plain Thrift, or that ends early, is left to the library to
/// refuse.
pub fn check_footer_schema<R: ChunkReader>(file: &R) -> Result<(), String> {
    let length = file.len();
    let Some(metadata_end) = length.checked_sub(8) else {
        return Ok(());
    };
    let tail = file.get_bytes(metadata_end, 8).map_err(|e| e.to_string())?;
    let (Some(size), Some(b"PAR1")) = (tail.get(..4), tail.get(4..)) else {
        return Ok(());
    };
    let size = u64::from(u32::from_le_bytes([size[0], size[1], size[2], size[3]]));
    let (Some(start), Ok(size)) = (metadata_end.checked_sub(size), usize::try_from(size)) else {
        return Ok(());
    };
    let metadata = file.get_bytes(start, size).map_err(|e| e.to_string())?;
    let mut input = Compact {
        bytes: &metadata,
        at: 0,
    };
    schema_children(&mut input).unwrap_or(Ok(()))
}

/// Reads the file metadata's fields up to its schema (field 2, a list of
/// structures) and checks each element's count of children (its field 5).
fn schema_children(input: &mut Compact) -> Step<Result<(), String>> {
    let mut field = 0i16;
    while let Some((id, kind)) = input.field_header(&mut field)? {
        if (id, kind) != (2, LIST) {
            match input.skip(kind, 0)? {
                Ok(()) => continue,
                Err(problem) => return Ok(Err(problem)),
            }
        }
        let head = input.byte()?;
        let elements = match head >> 4 {
            15 => input.varint()?,
            n => u64::from(n),
        };
        if head & 0x0f != STRUCT {
            return Ok(Ok(()));
        }
        for _ in 0..elements {
            let mut field = 0i16;
            while let Some((id, kind)) = input.field_header(&mut field)? {
                if (id, kind) != (5, I32) {
                    match input.skip(kind, 1)? {
                        Ok(()) => continue,
                        Err(problem) => return Ok(Err(problem)),
                    }
                }
                let children = input.zigzag()?;
                if children >= 0 && children as u64 >= elements {
                    return Ok(Err(format!(
                        "its schema gives a group {children} children, of {elements} elements"
                    )));
                }
            }
        }
        return Ok(Ok(()));
    }
    Ok(Ok(()))
}

/// Checks every page header of `file`, which `metadata` describes (see
/// the module docs). The error says which row group, column and page, and
/// what is wrong.
pub fn check_pages<R: ChunkReader>(metadata: &ParquetMetaData, file: &R) -> Result<(), String> {
    let length = file.len();
    let mut budget = Budget::of(length);
    for (group, row_group) in metadata.row_groups().iter().enumerate() {
        for (column, chunk) in row_group.columns().iter().enumerate() {
            let start = (chunk.dictionary_page_offset()).unwrap_or(chunk.data_page_offset());
            let where_ = format!("row group {group}, column {column}");
            let (Ok(start), Ok(stored)) =
                (u64::try_from(start), u64::try_from(chunk.compressed_size()))
            else {
                return Err(format!("{where_}: a negative offset or size"));
            };
            let within = start.checked_add(stored).is_some_and(|end| end <= length);
            if !within {
                return Err(format!(
                    "{where_}: its {stored} bytes from byte {start} run past the file's end \
                     ({length} bytes)"
                ));
            }
            check_chunk(file, start, stored, &mut budget)
                .map_err(|problem| format!("{where_}, {problem}"))?;
        }
    }
    Ok(())
}

/// What a file's pages may still declare.
#[derive(Debug)]
struct Budget {
    /// The file's length, for errors.
    length: u64,
    limit: u64,
    /// Bytes declared decompressed so far, and values.
    decompressed: u64,
    values: u64,
}

impl Budget {
    fn of(length: u64) -> Self {
        Budget {
            length,
            limit: decompressed_limit(length),
            decompressed: 0,
            values: 0,
        }
    }

    /// Takes what `header` declares from the budget.
    fn take(&mut self, header: &PageHeader) -> Result<(), String> {
        self.decompressed = self.decompressed.saturating_add(header.decompressed);
        let values = (header.data_values.iter().chain(&header.dictionary_values))
            .fold(0u64, |sum, &n| sum.saturating_add(n));
        self.values = self.values.saturating_add(values);
        let over = |what: String| {
            Err(format!(
                "with it, the file's pages declare {what}, more than this reader takes from \
                 a file of {} bytes: {MAX_EXPANSION} times its size decompressed (at least {} \
                 MiB), and a value for every {VALUE_BYTES} bytes of that",
                self.length,
                MIN_DECOMPRESSED_LIMIT >> 20
            ))
        };
        if self.decompressed > self.limit {
            return over(format!("{} bytes decompressed", self.decompressed));
        }
        if self.values > self.limit / VALUE_BYTES {
            return over(format!("{} values", self.values));
        }
        Ok(())
    }
}

/// Walks the pages of the column chunk of `stored` bytes from `start`.
fn check_chunk<R: ChunkReader>(
    file: &R,
    start: u64,
    stored: u64,
    budget: &mut Budget,
) -> Result<(), String> {
    let end = start + stored;
    let mut at = start;
    let mut page = 0usize;
    while at < end {
        let header = read_header(file, at, end - at)
            .and_then(|header| header.check().map(|()| header))
            .and_then(|header| budget.take(&header).map(|()| header))
            .map_err(|e| format!("page {page}: {e}"))?;
        let body_start = at + header.length;
        let fits = (body_start.checked_add(header.stored)).is_some_and(|body_end| body_end <= end);
        if !fits {
            return Err(format!(
                "page {page}: its {} stored bytes run past its column chunk",
                header.stored
            ));
        }
        at = body_start + header.stored;
        page += 1;
    }
    Ok(())
}

/// What a page header declares.
#[derive(Debug, PartialEq, Eq)]
struct PageHeader {
    /// The header's own length in bytes.
    length: u64,
    decompressed: u64,
    stored: u64,
    /// The values of its data page header (either version), if it has one.
    data_values: Option<u64>,
    /// The values of its dictionary page header, if it has one.
    dictionary_values: Option<u64>,
    /// The encodings of its data or dictionary page header.
    encodings: Vec<i64>,
}

impl PageHeader {
    /// Whether the page's dictionary and encodings are what the library
    /// may read (see the module docs); its sizes are the file's
    /// [`Budget`]'s.
    fn check(&self) -> Result<(), String> {
        let fits = |values: u64| values <= self.decompressed / MIN_VALUE_BYTES;
        if let Some(values) = self.dictionary_values.filter(|&n| !fits(n)) {
            return Err(format!(
                "its dictionary declares {values} values in {} bytes",
                self.decompressed
            ));
        }
        match (self.encodings.iter()).find(|e| !ENCODINGS.iter().any(|(code, _)| code == *e)) {
            None => Ok(()),
            Some(code) => {
                let name = (OTHER_ENCODINGS.iter())
                    .find(|(c, _)| c == code)
                    .map_or_else(|| format!("{code} (unknown)"), |(_, name)| name.to_string());
                let taken: Vec<&str> = ENCODINGS.iter().map(|(_, name)| *name).collect();
                Err(format!(
                    "its values are encoded {name}; this reader takes {}",
                    taken.join(", ")
                ))
            }
        }
    }
}

/// The header at `at`, at most `room` bytes long.
fn read_header<R: ChunkReader>(file: &R, at: u64, room: u64) -> Result<PageHeader, String> {
    let mut probe = HEADER_PROBE.min(room);
    loop {
        let length = usize::try_from(probe).map_err(|_| "a page header past memory")?;
        let window = (file.get_bytes(at, length)).map_err(|e| e.to_string())?;
        match parse_header(&window) {
            Err(Truncated) if probe < room => probe = probe.saturating_mul(2).min(room),
            Err(Truncated) => return Err("its header runs past its column chunk".into()),
            Ok(Err(problem)) => return Err(problem),
            Ok(Ok(header)) => return Ok(header),
        }
    }
}

/// The header ran past the bytes given.
#[derive(Debug, PartialEq, Eq)]
struct Truncated;

/// The page header at the start of `bytes`: `Err(Truncated)` when it runs
/// past them, `Ok(Err(_))` when it is damaged.
fn parse_header(bytes: &[u8]) -> Result<Result<PageHeader, String>, Truncated> {
    let mut input = Compact { bytes, at: 0 };
    let (mut decompressed, mut stored) = (None, None);
    let (mut data_values, mut dictionary_values, mut encodings) = (None, None, Vec::new());
    let mut field = 0i16;
    while let Some((id, kind)) = input.field_header(&mut field)? {
        // Fields of the page header (parquet.thrift's PageHeader), and of
        // the data (5), dictionary (7) and data v2 (8) page headers it
        // holds: which field of each is the count of values, and which
        // the encoding.
        let (values, encoding) = match (id, kind) {
            (2, I32) => {
                decompressed = Some(input.zigzag()?);
                continue;
            }
            (3, I32) => {
                stored = Some(input.zigzag()?);
                continue;
            }
            (5 | 7, STRUCT) => (1, 2),
            (8, STRUCT) => (1, 4),
            _ => match input.skip(kind, 0)? {
                Ok(()) => continue,
                Err(problem) => return Ok(Err(problem)),
            },
        };
        let fields = match input.int_fields(1)? {
            Ok(fields) => fields,
            Err(problem) => return Ok(Err(problem)),
        };
        // A header holding two (which the library would not read) counts
        // as the larger.
        let counted = if id == 7 {
            &mut dictionary_values
        } else {
            &mut data_values
        };
        match fields[values].map(u64::try_from) {
            Some(Err(_)) => return Ok(Err("its header gives a negative count of values".into())),
            count => *counted = (*counted).max(count.and_then(Result::ok)),
        }
        encodings.extend(fields[encoding]);
    }
    let (Some(decompressed), Some(stored)) = (decompressed, stored) else {
        return Ok(Err("its header lacks a page size".into()));
    };
    let (Ok(decompressed), Ok(stored)) = (u64::try_from(decompressed), u64::try_from(stored))
    else {
        return Ok(Err("its header gives a negative page size".into()));
    };
    Ok(Ok(PageHeader {
        length: input.at as u64,
        decompressed,
        stored,
        data_values,
        dictionary_values,
        encodings,
    }))
}

/// Thrift's compact types, as a field header's low four bits give them.
const BOOL_TRUE: u8 = 1;
const BOOL_FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;
const UUID: u8 = 13;

/// A reader of Thrift's compact protocol over a slice: only what walking
/// a page header needs.
struct Compact<'a> {
    bytes: &'a [u8],
    at: usize,
}

type Step<T> = Result<T, Truncated>;

impl Compact<'_> {
    fn byte(&mut self) -> Step<u8> {
        let b = *self.bytes.get(self.at).ok_or(Truncated)?;
        self.at += 1;
        Ok(b)
    }

    fn advance(&mut self, n: u64) -> Step<()> {
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(Truncated);
        }
        self.at += n as usize;
        Ok(())
    }

    /// An unsigned varint of up to ten bytes; bits past 64 are dropped.
    fn varint(&mut self) -> Step<u64> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift < 64 {
                value |= u64::from(b & 0x7f) << shift;
            }
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Ok(value)
    }

    /// A zigzag varint.
    fn zigzag(&mut self) -> Step<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// The next field's id and type, `None` at the struct's end; `last`
    /// is the previous field's id, which a short header counts from.
    fn field_header(&mut self, last: &mut i16) -> Step<Option<(i16, u8)>> {
        let b = self.byte()?;
        let kind = b & 0x0f;
        if kind == 0 {
            return Ok(None);
        }
        let id = match b >> 4 {
            0 => self.zigzag()? as i16,
            delta => last.wrapping_add(i16::from(delta)),
        };
        *last = id;
        Ok(Some((id, kind)))
    }

    /// A structure's integer fields numbered 0 to 4 (the others skipped),
    /// `depth` structures deep.
    fn int_fields(&mut self, depth: u32) -> Step<Result<[Option<i64>; 5], String>> {
        let mut fields = [None; 5];
        let mut field = 0i16;
        while let Some((id, kind)) = self.field_header(&mut field)? {
            match (usize::try_from(id), kind) {
                (Ok(i @ 0..5), I16 | I32 | I64) => fields[i] = Some(self.zigzag()?),
                _ => {
                    if let Err(problem) = self.skip(kind, depth + 1)? {
                        return Ok(Err(problem));
                    }
                }
            }
        }
        Ok(Ok(fields))
    }

    /// Skips a value of type `kind`, `depth` structures deep.
    fn skip(&mut self, kind: u8, depth: u32) -> Step<Result<(), String>> {
        if depth > MAX_DEPTH {
            return Ok(Err("its header nests too deep".into()));
        }
        match kind {
            BOOL_TRUE | BOOL_FALSE => {}
            BYTE => self.advance(1)?,
            I16 | I32 | I64 => {
                self.varint()?;
            }
            DOUBLE => self.advance(8)?,
            UUID => self.advance(16)?,
            BINARY => {
                let n = self.varint()?;
                self.advance(n)?;
            }
            LIST | SET => {
                let head = self.byte()?;
                let element = head & 0x0f;
                let n = match head >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                for _ in 0..n {
                    if let Err(problem) = self.skip_element(element, depth)? {
                        return Ok(Err(problem));
                    }
                }
            }
            MAP => {
                let n = self.varint()?;
                if n > 0 {
                    let kinds = self.byte()?;
                    let pairs = [kinds >> 4, kinds & 0x0f];
                    for _ in 0..n {
                        for kind in pairs {
                            if let Err(problem) = self.skip_element(kind, depth)? {
                                return Ok(Err(problem));
                            }
                        }
                    }
                }
            }
            STRUCT => {
                let mut field = 0i16;
                while let Some((_, kind)) = self.field_header(&mut field)? {
                    if let Err(problem) = self.skip(kind, depth + 1)? {
                        return Ok(Err(problem));
                    }
                }
            }
            other => {
                return Ok(Err(format!(
                    "its header holds a value of unknown type {other}"
                )))
            }
        }
        Ok(Ok(()))
    }

    /// Skips one element of a list, set or map: a boolean takes a byte
    /// there, unlike in a field. Every element takes a byte or more, so a
    /// count past the bytes given ends in [`Truncated`].
    fn skip_element(&mut self, kind: u8, depth: u32) -> Step<Result<(), String>> {
        match kind {
            BOOL_TRUE | BOOL_FALSE => self.advance(1).map(Ok),
            _ => self.skip(kind, depth + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn zigzag(v: i64) -> Vec<u8> {
        let mut v = ((v << 1) ^ (v >> 63)) as u64;
        let mut out = Vec::new();
        loop {
            let low = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(low);
                return out;
            }
            out.push(low | 0x80);
        }
    }

    /// Integer fields 1, 2, … of a structure, each a one-byte field header
    /// and a zigzag varint, without the structure's end.
    fn ints(values: &[i64]) -> Vec<u8> {
        (values.iter())
            .flat_map(|&v| [vec![0x15], zigzag(v)].concat())
            .collect()
    }

    /// A page header: its sizes, then `inner` (without its end) as the
    /// structure field `id` (5 a data page header, 7 a dictionary page
    /// header, 8 a data page header v2), and the end.
    fn header(decompressed: i64, stored: i64, id: u8, inner: &[u8]) -> Vec<u8> {
        let mut out = ints(&[0, decompressed, stored]);
        out.push(((id - 3) << 4) | STRUCT);
        out.extend_from_slice(inner);
        out.extend([0x00, 0x00]);
        out
    }

    /// A data page header's fields: `values`, `encoding`, the levels'
    /// encodings, then statistics holding a binary maximum and a boolean.
    fn data_page_fields(values: i64, encoding: i64) -> Vec<u8> {
        let mut out = ints(&[values, encoding, 3, 3]);
        out.extend([0x1c, 0x18, 3, b'a', b'b', b'c', 0x11, 0x00]);
        out
    }

    /// A data page of `stored` bytes after its header.
    fn page(decompressed: i64, stored: usize) -> Vec<u8> {
        let mut out = header(decompressed, stored as i64, 5, &data_page_fields(1024, 0));
        out.extend(std::iter::repeat_n(7u8, stored));
        out
    }

    /// Checks `bytes` as a file holding one column chunk, all of it.
    fn check(bytes: Vec<u8>) -> Result<(), String> {
        let length = bytes.len() as u64;
        check_chunk(&Bytes::from(bytes), 0, length, &mut Budget::of(length))
    }

    /// Asserts that `check` refuses `bytes` with an error holding `part`.
    fn assert_refused(bytes: Vec<u8>, part: &str) {
        let error = check(bytes).unwrap_err();
        assert!(error.contains(part), "{part:?} not in {error:?}");
    }

    const MIB: i64 = 1 << 20;

    #[test]
    fn pages_that_tile_their_chunk_within_the_limits_pass() {
        let mut chunk = header(40, 40, 7, &ints(&[10, 0]));
        chunk.extend([0; 40]);
        chunk.extend(page(MIB, 10));
        chunk.extend(page(2 * MIB, 3000));
        chunk.extend(page(0, 0));
        chunk.extend(header(100, 0, 8, &ints(&[100_000, 0, 20_000, 8, 4, 0])));
        assert_eq!(check(chunk), Ok(()));
    }

    #[test]
    fn the_header_is_measured_to_its_end() {
        let bytes = page(40, 20);
        let header = parse_header(&bytes).unwrap().unwrap();
        assert_eq!(header.length as usize, bytes.len() - 20);
        assert_eq!((header.decompressed, header.stored), (40, 20));
        assert_eq!(
            (header.data_values, header.encodings),
            (Some(1024), vec![0])
        );
        for cut in 0..header.length as usize {
            assert_eq!(parse_header(&bytes[..cut]), Err(Truncated), "cut at {cut}");
        }
    }

    #[test]
    fn pages_declaring_more_bytes_than_the_file_allows_are_refused() {
        let over = MIN_DECOMPRESSED_LIMIT as i64 + 1;
        let declared =
            format!("page 0: with it, the file's pages declare {over} bytes decompressed");
        assert_refused(page(over, 10), &declared);
        let mut chunk = page(5 * MIB, 10);
        chunk.extend(page(5 * MIB, 10));
        let summed = format!(
            "page 1: with it, the file's pages declare {} bytes",
            10 * MIB
        );
        assert_refused(chunk, &summed);
        let mut chunk = page(100, 10);
        chunk.extend(page(i64::from(i32::MAX), 20));
        assert_refused(chunk, "page 1");
    }

    #[test]
    fn a_large_file_may_declare_more() {
        let stored = 4000;
        let mut chunk = page(MIN_DECOMPRESSED_LIMIT as i64, stored);
        chunk.extend(page(4 * MIB, stored));
        let length = chunk.len() as u64;
        assert!(length * MAX_EXPANSION > (12 * MIB) as u64);
        assert_eq!(check(chunk), Ok(()));
    }

    #[test]
    fn pages_declaring_more_values_than_the_file_allows_are_refused() {
        let too_many = (MIN_DECOMPRESSED_LIMIT / VALUE_BYTES) as i64 + 1;
        let declared = format!("declare {too_many} values");
        assert_refused(header(10, 0, 5, &data_page_fields(too_many, 8)), &declared);
        assert_refused(
            header(10, 0, 8, &ints(&[too_many, 0, 1, 8, 0, 0])),
            &declared,
        );
        let half = too_many / 2 + 1;
        let mut two = header(10, 0, 5, &data_page_fields(half, 8));
        two.extend(header(10, 0, 5, &data_page_fields(half, 8)));
        let summed = format!(
            "page 1: with it, the file's pages declare {} values",
            2 * half
        );
        assert_refused(two, &summed);
        let dictionary = header(10, 0, 7, &ints(&[3, 0]));
        assert_refused(dictionary, "dictionary declares 3 values in 10 bytes");
        assert_refused(header(10, 0, 7, &ints(&[-1, 0])), "negative count");
    }

    #[test]
    fn values_encoded_otherwise_than_plainly_or_by_a_dictionary_are_refused() {
        let delta = header(10, 0, 5, &data_page_fields(10, 6));
        assert_refused(delta, "encoded DELTA_LENGTH_BYTE_ARRAY");
        let v2 = header(10, 0, 8, &ints(&[10, 0, 1, 7, 0, 0]));
        assert_refused(v2, "encoded DELTA_BYTE_ARRAY");
        assert_refused(header(10, 0, 7, &ints(&[1, 42])), "encoded 42 (unknown)");
    }

    #[test]
    fn pages_that_do_not_tile_their_chunk_are_refused() {
        let mut chunk = page(20, 20);
        chunk.pop();
        assert_refused(chunk, "run past its column chunk");
        let mut chunk = page(20, 20);
        chunk.extend([0x15, 0x00]);
        assert_refused(chunk, "header runs past");
    }

    #[test]
    fn damaged_headers_are_refused_not_followed() {
        assert_refused(header(-1, 0, 5, &[]), "negative page size");
        assert_refused(vec![0x15, 0x00, 0x00], "lacks");
        assert_refused(header(1, 0, 5, &[0x1e]), "unknown type 14");
        let mut deep = vec![0x1c; 20];
        deep.extend([0x00; 20]);
        assert_refused(header(1, 0, 5, &deep), "too deep");
        // A list of 2^60 booleans in a few bytes ends at the chunk's end.
        let mut long_list = vec![0x19, 0xf1];
        long_list.extend([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert_refused(header(1, 0, 5, &long_list), "header runs past");
    }
}
