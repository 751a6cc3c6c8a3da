//! The page classifier (`relate::classify_pages`) on real text: the labelled
//! corpus (`../shared/corpus`, see its README) has no page breaks, so its
//! books are paginated here, and each pair's page signatures are made as an
//! index stores them (`storage::page_codes`) and classified.
//!
//! **Pagination.** A book's pages break at the first line break after every
//! [`WORDS_PER_PAGE`] words (words as the tokeniser counts them, from the
//! start of the book: after word 300, 600, ..., so the rounding to a line
//! end does not add up over the book). Two pairings:
//! - *independent*: each book paginated on its own, both with the same
//!   number of words per page, or as two printings would be
//!   ([`PRINTINGS`]: 280 and 350 words per page);
//! - *same plates*: book a paginated on its own, book b broken where a's
//!   pages begin. Each page of a gives the places in b of its opening: the
//!   first [`KEY_WORDS`]-word run among its first [`OPENING_TRIES`] words
//!   that b holds at most [`MAX_OPENING_REPEATS`] times, moved back by the
//!   words skipped; the longest chain of places in page order is kept (so
//!   a table of contents or a repeated phrase cannot pull a break out of
//!   place), and a page whose opening is nowhere in b gives no break. This
//!   is what same pagination means in print: the same text on each page.
//!   Independent pagination with the same P is not: two transcriptions of
//!   one text differ by a few words here and there (a heading, a note, a
//!   dash spaced differently), and every difference moves all the page
//!   breaks after it, so their pages drift out of phase.
//!
//! **Checks** (each over the pairs not listed as divergent below):
//! - `edition` pairs are a same-text class (same or different pagination)
//!   in every pairing, at least [`MIN_RATE`] of them;
//! - with the same plates, at least [`MIN_RATE`] of them are same
//!   pagination;
//! - `contains` pairs not marked PARTIAL, the container paginated on its own
//!   and the part on the container's plates (a volume printed from the plates
//!   of the complete work), are a contiguous subset with a as the container,
//!   at least [`MIN_RATE`] of them;
//! - `same_author` pairs (different works, hard negatives), independently
//!   paginated with the same P and as two printings, are none of same
//!   pagination, different pagination or contiguous subset: at least
//!   [`MIN_KEPT_APART_RATE`] of them.
//!
//! Independently paginated `contains` pairs with the same P are measured and
//! printed, not checked: the part's pages start wherever its own text
//! starts, so they straddle two of the container's pages each, which the
//! page signals rightly do not read as the same pagination.
//!
//! **Measured** (P = 300; divergent pairs left out): editions paginated
//! independently with the same P are a same-text class 29/29, but only 3
//! of them same pagination (the pairs whose word streams agree: the old
//! transcriptions of Alice, Usher and Hadleyburg), the rest different
//! pagination, for the drift above; as two printings 29/29, all different
//! pagination; on the same plates 28/29 same pagination (Just So Stories,
//! whose b adds about 80 illustration captions, is overlapping text at
//! 0.52). Contains pairs on the container's plates are a contiguous subset
//! of a 38/39 (the illustrated Raven, five pages, is overlapping text at
//! 0.52); independently paginated with the same P only 9/39. Different
//! works by one author are kept apart 630/630 in both pairings; before
//! same pagination required both books' pages covered (see
//! `relate::classify`), five pairs of Altsheler novels that share one or
//! two pages (a series advertisement) were same pagination with the same
//! P (625/630).
//!
//! **Divergent pairs** ([`DIVERGENT`]): pairs whose texts share too few
//! 5-word shingles for page signatures to find the same text, or whose
//! shared text is not laid out as a contiguous part. They are left out of
//! the rates, printed with their reason, and must still not be unrelated
//! (except where stated): their shared pages are found.
//!
//! Prints a table per pair (`cargo test --release --test pages_corpus --
//! --nocapture`). Skipped with a message when the corpus is missing, unless
//! the `CI` environment variable is set: then a missing corpus fails.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

use stemmata::relate::classify::Signals;
use stemmata::relate::{
    classify_pages, PageOptions, PageSignals, PagedBook, Relation, RelationClass, Side,
};
use stemmata::repr::minhash::mix64;
use stemmata::repr::minhash::page_codes;
use stemmata::repr::{book_signature, page_signatures, word_hash, MinHashSig, SketchOptions};
use stemmata::text::{decode, tokenise_spans, Token, PAGE_BREAK};
use stemmata_eval::{Corpus, LabelledPair};

mod common;

/// Words per page of a printed page.
const WORDS_PER_PAGE: usize = 300;
/// Words per page of two printings of one text.
const PRINTINGS: (usize, usize) = (280, 350);
/// Words of a page's opening looked up in the other book (same plates).
const KEY_WORDS: usize = 6;
/// Openings tried per page, starting at its first word, then its second...
const OPENING_TRIES: usize = 20;
/// An opening found more often than this in the other book is not looked up.
const MAX_OPENING_REPEATS: usize = 8;
/// Least share of the checked pairs that must pass each check.
const MIN_RATE: f64 = 0.9;
/// Least share of different works by one author that must be none of the
/// page classes for shared text.
const MIN_KEPT_APART_RATE: f64 = 0.99;

/// Pairs left out of the rates (see the module docs): (a, b, may be
/// unrelated, why). Shingle overlaps are the corpus notes' 6-word figures.
const DIVERGENT: [(&str, &str, bool, &str); 19] = [
    ("pg20", "pg26", false, "1674 spelling against a modernised text: 46% shingle overlap"),
    ("pg1228", "pg2009", false, "Origin of Species 1st against 6th edition, revised and enlarged: 48%/65%"),
    ("pg1513", "pg2261", false, "modern against First Folio spelling: 20%"),
    ("pg1524", "pg2265", false, "modern against First Folio spelling: 21%"),
    ("pg1533", "pg2264", false, "modern against First Folio spelling: 19%"),
    ("pg1524", "pg9077", true, "Hamlet against the First Quarto, a different, shorter version: 4%; its pages may have no match at all"),
    ("pg2265", "pg9077", true, "First Folio against the First Quarto: 9%"),
    ("pg1540", "pg23042", false, "the Cambridge Tempest interleaves textual notes: 55%/70%, so page similarity stays near 0.5"),
    ("pg2229", "pg2229-old7", false, "7-bit transliteration (ae, oe, ue, ss) changes every word with an umlaut: 57%"),
    ("pg2782", "pg6788", false, "same translation, formatted differently: 67%, book similarity 0.41"),
    ("pg132", "pg132-old", false, "the commentary is interleaved with the translation in a: no contiguous part"),
    ("pg1000", "pg997", false, "b is a noisy 7-bit transcription: 67% of its shingles in a"),
    ("pg1012", "pg997", false, "b is a noisy 7-bit transcription: 67% of its shingles in a"),
    ("pg28198", "pg46", false, "the anthology abridges the Carol: 58% of b verbatim"),
    ("pg28198", "pg46-old", false, "the anthology abridges the Carol: 58% of b verbatim"),
    ("pg28198", "pg653", false, "the anthology abridges The Chimes: 60% of b verbatim"),
    ("pg28198", "pg19337", false, "the anthology abridges the Carol: 57% of b verbatim"),
    ("pg28198", "pg24022", false, "the anthology abridges the Carol: 57% of b verbatim"),
    ("pg28198", "pg30368", false, "the anthology abridges the Carol: 56% of b verbatim"),
];

/// A book's text and its words.
struct Book {
    text: String,
    words: Vec<Word>,
}

/// A word: where it starts and ends in the text, and its normalised form's hash.
#[derive(Clone, Copy)]
struct Word {
    start: usize,
    end: usize,
    hash: u32,
}

impl Book {
    fn read(dir: &Path, id: &str) -> Book {
        let path = dir.join("texts").join(format!("{id}.txt"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Book::new(decode(&bytes).text.into_owned())
    }

    fn new(text: String) -> Book {
        let mut words = Vec::new();
        tokenise_spans(&text, |token, span| {
            if let Token::Word(word) = token {
                words.push(Word {
                    start: span.start,
                    end: span.end,
                    hash: word_hash(word, 0),
                });
            }
        });
        Book { text, words }
    }

    /// Where pages begin when they break at the first line break after
    /// every `words_per_page` words (see the module docs).
    fn page_starts(&self, words_per_page: usize) -> Vec<usize> {
        let mut starts: Vec<usize> = Vec::new();
        for word in self
            .words
            .iter()
            .skip(words_per_page - 1)
            .step_by(words_per_page)
        {
            let Some(line_end) = self.text[word.end..].find('\n') else {
                break;
            };
            let start = word.end + line_end + 1;
            if starts.last().is_none_or(|&last| last < start) && start < self.text.len() {
                starts.push(start);
            }
        }
        starts
    }

    /// Where the pages of `other`, beginning at `starts`, begin in this book
    /// (see the module docs).
    fn matching_starts(&self, other: &Book, starts: &[usize]) -> Vec<usize> {
        let mut positions: HashMap<u64, Vec<usize>> = HashMap::new();
        for i in 0..self.words.len().saturating_sub(KEY_WORDS - 1) {
            positions.entry(self.key(i)).or_default().push(i);
        }
        let mut candidates = Vec::new();
        for &start in starts {
            let first = other.words.partition_point(|w| w.start < start);
            let opening = (0..OPENING_TRIES)
                .filter(|offset| first + offset + KEY_WORDS <= other.words.len())
                .find_map(|offset| {
                    let at = positions.get(&other.key(first + offset))?;
                    (at.len() <= MAX_OPENING_REPEATS).then_some((offset, at))
                });
            if let Some((offset, at)) = opening {
                candidates.extend(at.iter().rev().filter_map(|&i| i.checked_sub(offset)));
            }
        }
        longest_increasing(&candidates)
            .into_iter()
            .map(|i| self.words[i].start)
            .collect()
    }

    /// The hash of words `i..i + KEY_WORDS`.
    fn key(&self, i: usize) -> u64 {
        self.words[i..i + KEY_WORDS]
            .iter()
            .fold(0, |key, w| mix64(key ^ u64::from(w.hash)))
    }

    /// The page signatures an index stores for this book with pages
    /// beginning at `starts`.
    fn pages(&self, starts: &[usize]) -> Vec<MinHashSig> {
        let mut paged = String::with_capacity(self.text.len() + starts.len());
        let mut from = 0;
        for &start in starts {
            paged.push_str(&self.text[from..start]);
            paged.push(PAGE_BREAK);
            from = start;
        }
        paged.push_str(&self.text[from..]);
        page_signatures(&paged, &SketchOptions::default().window_options())
            .iter()
            .map(page_codes)
            .collect()
    }
}

/// The longest strictly increasing subsequence of `values`.
fn longest_increasing(values: &[usize]) -> Vec<usize> {
    // tails[k]: index of the least value ending an increasing run of k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = Vec::with_capacity(values.len());
    for (i, &value) in values.iter().enumerate() {
        let k = tails.partition_point(|&t| values[t] < value);
        before.push(k.checked_sub(1).map(|k| tails[k]));
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(i) = at {
        run.push(values[i]);
        at = before[i];
    }
    run.reverse();
    run
}

/// A book and its page signatures paginated on its own.
struct Paged {
    book: Book,
    /// Page starts with [`WORDS_PER_PAGE`].
    starts: Vec<usize>,
    /// Pages with [`WORDS_PER_PAGE`], and with each of [`PRINTINGS`].
    pages: [Vec<MinHashSig>; 3],
    /// Its book signature, as an index's sketch holds it.
    signature: MinHashSig,
}

impl Paged {
    fn new(book: Book) -> Paged {
        let starts = book.page_starts(WORDS_PER_PAGE);
        let pages = [
            book.pages(&starts),
            book.pages(&book.page_starts(PRINTINGS.0)),
            book.pages(&book.page_starts(PRINTINGS.1)),
        ];
        Paged {
            signature: book_signature(&book.text, &SketchOptions::default().book),
            book,
            starts,
            pages,
        }
    }
}

/// How a pair is paginated (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pairing {
    /// Each on its own, both with [`WORDS_PER_PAGE`].
    SameWordsPerPage,
    /// Each on its own, a and b as the two [`PRINTINGS`].
    TwoPrintings,
    /// b on a's plates.
    SamePlates,
}

impl Pairing {
    fn name(self) -> &'static str {
        match self {
            Pairing::SameWordsPerPage => "same P",
            Pairing::TwoPrintings => "printings",
            Pairing::SamePlates => "plates",
        }
    }
}

fn relation(books: &HashMap<&str, Paged>, pair: &LabelledPair, pairing: Pairing) -> Relation {
    let (a, b) = (&books[pair.a.as_str()], &books[pair.b.as_str()]);
    let plates;
    let (a_pages, b_pages) = match pairing {
        Pairing::SameWordsPerPage => (&a.pages[0], &b.pages[0]),
        Pairing::TwoPrintings => (&a.pages[1], &b.pages[2]),
        Pairing::SamePlates => {
            plates = b.book.pages(&b.book.matching_starts(&a.book, &a.starts));
            (&a.pages[0], &plates)
        }
    };
    // The page classifier alone: what the pages say, whatever the words
    // would.
    let a_book = PagedBook {
        pages: a_pages,
        signature: &a.signature,
    };
    let b_book = PagedBook {
        pages: b_pages,
        signature: &b.signature,
    };
    classify_pages(&PageSignals::compute(&a_book, &b_book, &PageOptions::default()).unwrap())
}

fn is_contiguous_subset_of_a(relation: &Relation) -> bool {
    relation.class == RelationClass::ContiguousSubset && relation.container == Some(Side::A)
}

fn is_page_class_for_shared_text(class: RelationClass) -> bool {
    matches!(
        class,
        RelationClass::SamePagination
            | RelationClass::DifferentPagination
            | RelationClass::ContiguousSubset
    )
}

fn divergence(pair: &LabelledPair) -> Option<(bool, &'static str)> {
    DIVERGENT
        .iter()
        .find(|(a, b, _, _)| (*a, *b) == (pair.a.as_str(), pair.b.as_str()))
        .map(|&(_, _, may_be_unrelated, why)| (may_be_unrelated, why))
}

fn print_row(pairing: Pairing, pair: &LabelledPair, relation: &Relation, verdict: &str) {
    let Signals::Pages(s) = &relation.signals else {
        panic!("page signals expected")
    };
    let (slope, unexplained) = s
        .fit
        .map_or((f64::NAN, f64::NAN), |f| (f.slope, f.unexplained_share));
    println!(
        "{verdict:<9} {:<9} {:<11} {:<11} {:<11} {:<20} {:.2} {:<4} pages {:>4}/{:<4} book {:.2} mps {:.2} cover {:.2}/{:.2} slope {:.2} unexpl {:.2} rcpc {:.2}",
        pairing.name(),
        pair.a,
        pair.b,
        pair.relation,
        relation.class.name(),
        relation.confidence,
        relation.container.map_or("", |s| if s == Side::A { "a" } else { "b" }),
        s.pages_a,
        s.pages_b,
        s.book_similarity,
        s.page_based_similarity,
        s.coverage_a,
        s.coverage_b,
        slope,
        unexplained,
        s.consecutive_correlation,
    );
}

/// The checks of a pair's relation: (what, passed, least share of pairs
/// that must pass).
fn checks(
    relation_label: &str,
    pairing: Pairing,
    relation: &Relation,
) -> Vec<(&'static str, bool, f64)> {
    let same_text = ("same text", relation.class.is_same_text(), MIN_RATE);
    match (relation_label, pairing) {
        ("edition", Pairing::SamePlates) => vec![
            same_text,
            (
                "same pagination",
                relation.class == RelationClass::SamePagination,
                MIN_RATE,
            ),
        ],
        ("edition", _) => vec![same_text],
        ("contains", Pairing::SamePlates) => {
            vec![(
                "contiguous subset of a",
                is_contiguous_subset_of_a(relation),
                MIN_RATE,
            )]
        }
        ("contains", _) => vec![(
            "contiguous subset of a, measured only",
            is_contiguous_subset_of_a(relation),
            0.0,
        )],
        _ => vec![(
            "kept apart",
            !is_page_class_for_shared_text(relation.class),
            MIN_KEPT_APART_RATE,
        )],
    }
}

/// Passed and checked pairs of one check, and its floor.
struct Tally {
    passed: usize,
    checked: usize,
    floor: f64,
}

impl Tally {
    fn new(floor: f64) -> Tally {
        Tally {
            passed: 0,
            checked: 0,
            floor,
        }
    }

    fn rate(&self) -> f64 {
        self.passed as f64 / self.checked.max(1) as f64
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{} ({:.1}%)",
            self.passed,
            self.checked,
            100.0 * self.rate()
        )
    }
}

#[test]
fn real_text_paginated_is_classified_by_its_pages() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let started = Instant::now();
    let corpus = Corpus::read(&dir).unwrap();
    let pairs: Vec<&LabelledPair> = corpus
        .pairs
        .iter()
        .filter(|p| match p.relation.as_str() {
            "edition" | "same_author" => true,
            "contains" => !p.partial,
            _ => false,
        })
        .collect();
    let mut books: HashMap<&str, Paged> = HashMap::new();
    for id in pairs.iter().flat_map(|p| [p.a.as_str(), p.b.as_str()]) {
        if !books.contains_key(id) {
            books.insert(id, Paged::new(Book::read(&dir, id)));
        }
    }
    println!(
        "{} books paginated in {:.1?}",
        books.len(),
        started.elapsed()
    );
    let mut tallies: BTreeMap<(&str, Pairing, &str), Tally> = BTreeMap::new();
    let mut classes: BTreeMap<(&str, Pairing, &str), usize> = BTreeMap::new();
    let mut divergent_misses = Vec::new();
    for &pair in &pairs {
        let pairings: &[Pairing] = match pair.relation.as_str() {
            "edition" => &[
                Pairing::SameWordsPerPage,
                Pairing::TwoPrintings,
                Pairing::SamePlates,
            ],
            "contains" => &[Pairing::SameWordsPerPage, Pairing::SamePlates],
            _ => &[Pairing::SameWordsPerPage, Pairing::TwoPrintings],
        };
        for &pairing in pairings {
            let relation = relation(&books, pair, pairing);
            *classes
                .entry((pair.relation.as_str(), pairing, relation.class.name()))
                .or_default() += 1;
            let checks = checks(pair.relation.as_str(), pairing, &relation);
            let divergent = divergence(pair);
            if let Some((may_be_unrelated, _)) = divergent {
                if relation.class == RelationClass::Unrelated && !may_be_unrelated {
                    divergent_misses.push(format!("{} {} {}", pair.a, pair.b, pairing.name()));
                }
            } else {
                for &(check, ok, floor) in &checks {
                    let tally = tallies
                        .entry((pair.relation.as_str(), pairing, check))
                        .or_insert_with(|| Tally::new(floor));
                    tally.checked += 1;
                    tally.passed += usize::from(ok);
                }
            }
            let ok = checks.iter().all(|c| c.1);
            if pair.relation != "same_author" || !ok {
                let verdict = match (divergent, ok) {
                    (Some(_), _) => "divergent",
                    (None, true) => "ok",
                    (None, false) => "MISS",
                };
                print_row(pairing, pair, &relation, verdict);
            }
        }
    }
    println!("\nclasses per relation and pairing:");
    for ((relation, pairing, class), n) in &classes {
        println!("  {relation:<11} {:<9} {class:<20} {n}", pairing.name());
    }
    println!("\nchecks (divergent pairs left out):");
    for ((relation, pairing, check), tally) in &tallies {
        println!("  {relation:<11} {:<9} {check:<36} {tally}", pairing.name());
    }
    println!("\ndivergent pairs:");
    for (a, b, may_be_unrelated, why) in DIVERGENT {
        println!(
            "  {a} {b}{}: {why}",
            if may_be_unrelated {
                " (may be unrelated)"
            } else {
                ""
            }
        );
    }
    println!("\ntook {:.1?}", started.elapsed());
    assert!(
        divergent_misses.is_empty(),
        "divergent pairs found unrelated: {divergent_misses:?}"
    );
    for ((relation, pairing, check), tally) in &tallies {
        assert!(
            tally.checked >= 20 && tally.rate() >= tally.floor,
            "{relation} {}: {check} {tally}, below {}",
            pairing.name(),
            tally.floor
        );
    }
}

#[test]
fn pages_break_at_the_first_line_end_after_every_p_words() {
    let book = Book::new("one two\nthree four five\nsix\nseven eight\n".to_string());
    // After word 2 ("two"), 4 ("four": line ends after "five"), 6 ("six").
    let starts = book.page_starts(2);
    let pages: Vec<&str> = starts.iter().map(|&s| &book.text[s..]).collect();
    assert_eq!(
        pages,
        [
            "three four five\nsix\nseven eight\n",
            "six\nseven eight\n",
            "seven eight\n"
        ]
    );
    assert_eq!(book.pages(&starts).len(), 4);
}

#[test]
fn the_same_plates_break_the_other_book_where_the_pages_begin() {
    let words: Vec<String> = (0..40)
        .map(|i| format!("w{}", common::letters(i * 7919)))
        .collect();
    let line = |range: std::ops::Range<usize>| words[range].join(" ") + "\n";
    let a = Book::new([line(0..10), line(10..20), line(20..30), line(30..40)].concat());
    // b lacks a's words 0..12 and 38..40, and has six words of its own first.
    let b = Book::new(format!(
        "a preface of six words here\n{}{}",
        line(12..25),
        line(25..38)
    ));
    let found = b.matching_starts(&a, &a.page_starts(10));
    let opening = |at: usize| b.text[at..].split_whitespace().next().unwrap();
    let openings: Vec<&str> = found.iter().map(|&at| opening(at)).collect();
    // a's pages open with words 10, 20 and 30; b has no word 10, so its
    // page breaks where word 10 would stand, two words before word 12.
    assert_eq!(openings, ["words", words[20].as_str(), words[30].as_str()]);
}

#[test]
fn the_longest_increasing_run_is_found() {
    assert_eq!(longest_increasing(&[5, 1, 6, 2, 7, 3, 8]), [1, 2, 3, 8]);
    assert_eq!(longest_increasing(&[]), Vec::<usize>::new());
    assert_eq!(longest_increasing(&[3, 3, 3]), [3]);
}
