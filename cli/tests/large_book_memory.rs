//! Loading one large book takes memory in proportion to its text, not to
//! ten times it: the text is held once, the unique words are counted in
//! sorted runs instead of a hash map holding every distinct word, and the
//! shingles and n-grams of the sketch are streamed.
//!
//! One test in its own binary: the peak resident size of the `stemmata`
//! child process is read from `getrusage(RUSAGE_CHILDREN)`, which covers
//! every child this process waited for.

mod common;

/// A text of `bytes` bytes or more in which every word is distinct (the
/// worst case for the unique-word map), words of about nine letters, with a
/// page break every 300 words (about 3,000 bytes).
fn distinct_words(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 64);
    let mut i = 0u32;
    while text.len() < bytes {
        text.push_str(&common::word(i));
        text.push_str(["ed", "ing", "ly"][i as usize % 3]);
        i += 1;
        text.push(if i.is_multiple_of(300) { '\x0c' } else { ' ' });
    }
    text
}

/// The largest resident set size, in bytes, of the children waited for.
fn children_peak_rss() -> u64 {
    // SAFETY: `usage` is a valid out-pointer for the call's duration.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let done = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(done, 0);
    usage.ru_maxrss as u64 * 1024
}

#[test]
fn a_large_book_of_distinct_words_loads_in_six_times_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let text = distinct_words(40 << 20);
    let input = dir.path().join("large.txt");
    std::fs::write(&input, &text).unwrap();
    let index = dir.path().join("index");
    let output = common::run(
        common::cli()
            .args(["load", "--create", "--threads", "1", "-q"])
            .arg(&index)
            .arg(&input),
    );
    assert!(output.status.success(), "{}", common::stderr(&output));
    let peak = children_peak_rss();
    // The text, about 17 bytes per distinct word while the book is
    // prepared, then its segment: the book is a volume, so every word is
    // in two overlapping parts, whose sequences (4 bytes an element) and
    // sort keys (8 bytes an element) the segment's postings are built from;
    // a worker's freed memory stays in its allocator arena meanwhile. The
    // program itself takes a few MiB. The hash map of distinct words that
    // this bound guards against took about ten times the text before the
    // segment.
    let limit = 6 * text.len() as u64 + (16 << 20);
    eprintln!(
        "peak {} MiB for a {} MiB text",
        peak >> 20,
        text.len() >> 20
    );
    assert!(
        peak < limit,
        "peak {:.0} MiB for a {:.0} MiB text (limit {:.0} MiB)",
        peak as f64 / 1048576.0,
        text.len() as f64 / 1048576.0,
        limit as f64 / 1048576.0
    );
    let stats = stemmata::Index::open(&index).unwrap().verify().unwrap();
    assert_eq!(stats.books, 1);
}
