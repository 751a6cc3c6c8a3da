//! Word images in the index: pages added with their OCR, searched by text,
//! replaced, verified; bad, mismatched and damaged files refused with the
//! index left as it was.
//!
//! Pages are drawn here: each letter a distinct 5×7 pattern of 3-px
//! squares, so that the same letters look the same wherever they are, with
//! their hOCR written beside them. Some OCR words are misread on purpose.

mod common;

use std::path::{Path, PathBuf};

use image::{GrayImage, Luma};
use stemmata::images::learn::LearnOptions;
use stemmata::images::pages::PageFiles;
use stemmata::images::spot::SpotOptions;
use stemmata::{Error, Index};

const SCALE: u32 = 3;
const LETTER_W: u32 = 6 * SCALE;
const LINE_H: u32 = 14 * SCALE;

/// The 5×7 pattern of a letter: bits of a mix of its code, the top and
/// bottom rows always inked so that every letter has ink.
fn pattern(c: char) -> [[bool; 5]; 7] {
    let mut x = (c as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let mut out = [[false; 5]; 7];
    for (r, row) in out.iter_mut().enumerate() {
        for cell in row.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *cell = r == 0 || r == 6 || x & 1 == 1;
        }
    }
    out
}

/// Draws `lines` of words on a page; returns the page and each word's box.
fn draw(lines: &[Vec<&str>], width: u32) -> (GrayImage, Vec<([u32; 4], String)>) {
    let height = 40 + LINE_H * lines.len() as u32;
    let mut page = GrayImage::from_pixel(width, height, Luma([255]));
    let mut boxes = Vec::new();
    for (l, words) in lines.iter().enumerate() {
        let y0 = 20 + l as u32 * LINE_H;
        let mut x = 20;
        for word in words {
            let x0 = x;
            for c in word.chars() {
                for (r, row) in pattern(c).iter().enumerate() {
                    for (k, &on) in row.iter().enumerate() {
                        if on {
                            for dy in 0..SCALE {
                                for dx in 0..SCALE {
                                    page.put_pixel(
                                        x + k as u32 * SCALE + dx,
                                        y0 + r as u32 * SCALE + dy,
                                        Luma([0]),
                                    );
                                }
                            }
                        }
                    }
                }
                x += LETTER_W;
            }
            boxes.push(([x0, y0, x, y0 + 7 * SCALE], word.to_string()));
            x += 2 * LETTER_W;
        }
    }
    (page, boxes)
}

fn hocr(image: &str, width: u32, height: u32, words: &[([u32; 4], String)]) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>\
         <div class='ocr_page' id='page_1' title='image \"{image}\"; bbox 0 0 {width} {height}'>"
    );
    for (i, ([x0, y0, x1, y1], text)) in words.iter().enumerate() {
        let text = text.replace('&', "&amp;").replace('<', "&lt;");
        out.push_str(&format!(
            "<span class='ocrx_word' id='word_{i}' title='bbox {x0} {y0} {x1} {y1}; x_wconf 90'>{text}</span>"
        ));
    }
    out.push_str("</div></body></html>\n");
    out
}

const WORDS: [&str; 12] = [
    "the", "house", "garden", "river", "stone", "window", "the", "light", "morning", "house",
    "door", "the",
];

/// Writes `pages` pages of words into `dir`, the OCR misreading every
/// seventh word; returns the page images in order.
fn write_pages(dir: &Path, pages: usize, offset: usize) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let mut out = Vec::new();
    for p in 0..pages {
        let lines: Vec<Vec<&str>> = (0..8)
            .map(|l| {
                (0..5)
                    .map(|w| WORDS[(offset + p * 40 + l * 5 + w * 7) % WORDS.len()])
                    .collect()
            })
            .collect();
        let (page, truth) = draw(&lines, 700);
        let name = format!("p{p:03}.png");
        page.save(dir.join(&name)).unwrap();
        let ocr: Vec<([u32; 4], String)> = truth
            .iter()
            .enumerate()
            .map(|(i, (b, w))| {
                (
                    *b,
                    if i % 7 == 3 {
                        format!("{w}x")
                    } else {
                        w.clone()
                    },
                )
            })
            .collect();
        std::fs::write(
            dir.join(format!("p{p:03}.hocr")),
            hocr(&name, page.width(), page.height(), &ocr),
        )
        .unwrap();
        out.push(dir.join(name));
    }
    out
}

fn files(images: &[PathBuf]) -> Vec<PageFiles> {
    images
        .iter()
        .map(|i| PageFiles::beside(i).unwrap())
        .collect()
}

fn small() -> LearnOptions {
    LearnOptions {
        branching: 8,
        ..LearnOptions::default()
    }
}

fn add(index: &Index, key: &str, images: &[PathBuf]) -> stemmata::Result<stemmata::ImageBookInfo> {
    index.add_word_images(key, &files(images), &small(), &|_| {})
}

#[test]
fn pages_added_are_found_by_text_verified_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let pages = write_pages(&dir.path().join("a"), 3, 0);
    let index = Index::create(dir.path().join("index")).unwrap();
    assert!(index.word_images().unwrap().is_none());
    let info = add(&index, "book-a", &pages).unwrap();
    assert_eq!(
        (info.key.as_str(), info.pages, info.words),
        ("book-a", 3, 120)
    );
    let search = index.word_images().unwrap().unwrap();
    assert_eq!((search.books(), search.images()), (1, 120));
    let hits = search.spot("garden", &SpotOptions::default(), 5).unwrap();
    assert_eq!(hits.len(), 5);
    assert_eq!(hits[0].ocr, "garden");
    assert_eq!(hits[0].key, "book-a");
    assert!(hits[0].page >= 1 && hits[0].page <= 3);
    assert!(hits[0].page_name.starts_with('p') && hits[0].page_name.ends_with(".png"));
    assert!(hits
        .windows(2)
        .all(|w| w[0].scores.combined >= w[1].scores.combined));
    let crops = search.crops(&hits).unwrap();
    assert_eq!(crops.len(), 5);
    assert!(crops.iter().all(|c| c.height() == 32 && c.width() > 0));
    // A crop of "garden" (6 letters) is wider than one of "the".
    let the = search.spot("the", &SpotOptions::default(), 1).unwrap();
    let the_crop = search.crops(&the).unwrap().remove(0);
    assert!(crops[0].width() > the_crop.width());
    drop(search);

    let verified = index.verify().unwrap();
    assert_eq!(verified.image_books, 1);
    assert!(verified.image_bytes > 0);

    let more = write_pages(&dir.path().join("b"), 2, 3);
    add(&index, "book-b", &more).unwrap();
    let search = index.word_images().unwrap().unwrap();
    assert_eq!((search.books(), search.images()), (2, 200));
    let keys: Vec<String> = index
        .image_books()
        .unwrap()
        .into_iter()
        .map(|b| b.key)
        .collect();
    assert_eq!(keys, ["book-a", "book-b"]);
    drop(search);
    // Replacing a book keeps one copy and removes the replaced files.
    add(&index, "book-a", &pages[..1]).unwrap();
    let search = index.word_images().unwrap().unwrap();
    assert_eq!((search.books(), search.images()), (2, 120));
    let names: Vec<String> = std::fs::read_dir(dir.path().join("index/images"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
    index.verify().unwrap();
    assert_eq!(index.stats().unwrap().word_images, 120);
}

#[test]
fn images_alone_find_the_drawn_word_where_the_ocr_misread_it() {
    let dir = tempfile::tempdir().unwrap();
    let pages = write_pages(&dir.path().join("a"), 4, 0);
    let index = Index::create(dir.path().join("index")).unwrap();
    add(&index, "a", &pages).unwrap();
    let search = index.word_images().unwrap().unwrap();
    let images_only = SpotOptions {
        image_weight: 1.0,
        ..SpotOptions::default()
    };
    let ocr_only = SpotOptions {
        image_weight: 0.0,
        ..SpotOptions::default()
    };
    // Images of "the" are drawn the same each time, whatever the OCR
    // read: by the images alone, the best 15 are all of them, misread
    // ones ("thex") included; by the OCR alone those rank below every
    // image read right.
    let top = |options: &SpotOptions| -> Vec<String> {
        search
            .spot("the", options, 15)
            .unwrap()
            .into_iter()
            .map(|h| h.ocr)
            .collect()
    };
    let by_images = top(&images_only);
    assert!(
        by_images.iter().all(|w| w.starts_with("the")),
        "{by_images:?}"
    );
    assert!(by_images.iter().any(|w| w == "thex"), "{by_images:?}");
    let all = search.spot("the", &ocr_only, 0).unwrap();
    let misread = all.iter().position(|h| h.ocr == "thex").unwrap();
    let exact = all.iter().filter(|h| h.ocr == "the").count();
    assert!(
        misread >= exact,
        "OCR alone ranks a misread house at {misread}"
    );
}

/// Everything in the index directory, to compare before and after.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    common::snapshot_files(dir)
}

#[test]
fn bad_and_mismatched_pages_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pages = write_pages(&dir.path().join("a"), 2, 0);
    let index_dir = dir.path().join("index");
    let index = Index::create(&index_dir).unwrap();
    add(&index, "a", &pages).unwrap();
    let listed = index.image_books().unwrap();
    drop(index);
    let before = common::snapshot_index(&index_dir);
    let index = Index::open(&index_dir).unwrap();

    // An image that is not an image.
    let junk = dir.path().join("junk");
    std::fs::create_dir_all(&junk).unwrap();
    std::fs::write(junk.join("x.png"), b"not a png at all").unwrap();
    std::fs::copy(pages[0].with_extension("hocr"), junk.join("x.hocr")).unwrap();
    let error = add(&index, "b", &[junk.join("x.png")])
        .unwrap_err()
        .to_string();
    assert!(error.contains("x.png"), "{error}");

    // OCR of another page size.
    let (page, _) = draw(&[vec!["the"]], 300);
    page.save(junk.join("small.png")).unwrap();
    std::fs::copy(pages[0].with_extension("hocr"), junk.join("small.hocr")).unwrap();
    let error = add(&index, "b", &[junk.join("small.png")])
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("small.hocr") && error.contains("pixels"),
        "{error}"
    );

    // Damaged OCR, and binary OCR.
    std::fs::copy(&pages[0], junk.join("bad.png")).unwrap();
    std::fs::write(
        junk.join("bad.hocr"),
        "<html><div class='ocr_page' title='bbox 0 0 1 1'><span",
    )
    .unwrap();
    let error = add(&index, "b", &[junk.join("bad.png")])
        .unwrap_err()
        .to_string();
    assert!(error.contains("bad.hocr"), "{error}");
    std::fs::write(junk.join("bad.hocr"), [0xffu8, 0xfe, 0, 1, 2]).unwrap();
    assert!(add(&index, "b", &[junk.join("bad.png")]).is_err());

    // A page without OCR beside it, a hostile key, no pages.
    std::fs::copy(&pages[0], junk.join("alone.png")).unwrap();
    assert!(PageFiles::beside(&junk.join("alone.png"))
        .unwrap_err()
        .to_string()
        .contains("alone.png"));
    assert!(matches!(
        add(&index, "bad\nkey", &pages),
        Err(Error::InvalidArgument(_))
    ));
    assert!(add(&index, "b", &[]).is_err());
    // A later page failing stops the add before anything is written.
    let error = add(&index, "b", &[pages[0].clone(), junk.join("x.png")]).unwrap_err();
    assert!(error.to_string().contains("x.png"), "{error}");

    drop(index);
    // Every file but the catalog byte for byte, and what the catalog lists
    // (opening for writing rewrites the catalog's bookkeeping pages and
    // may change its length).
    let after = common::snapshot_index(&index_dir);
    let changed: Vec<&PathBuf> = after
        .0
        .iter()
        .filter(|(p, b)| before.0.get(*p) != Some(b))
        .map(|(p, _)| p)
        .chain(before.0.keys().filter(|p| !after.0.contains_key(*p)))
        .collect();
    assert!(changed.is_empty(), "a refused add changed {changed:?}");
    let index = Index::open_read_only(&index_dir).unwrap();
    assert_eq!(index.image_books().unwrap(), listed);
    index.verify().unwrap();
}

#[test]
fn damaged_word_image_files_are_reported_by_verify_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let pages = write_pages(&dir.path().join("a"), 2, 0);
    let index_dir = dir.path().join("index");
    let index = Index::create(&index_dir).unwrap();
    add(&index, "a", &pages).unwrap();
    drop(index);
    let mut listed: Vec<PathBuf> = std::fs::read_dir(index_dir.join("images"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    listed.sort();
    assert_eq!(listed.len(), 3);
    for file in &listed {
        let original = std::fs::read(file).unwrap();
        for at in [20, original.len() / 2, original.len() - 3] {
            let mut damaged = original.clone();
            damaged[at] ^= 0x40;
            std::fs::write(file, &damaged).unwrap();
            let index = Index::open_read_only(&index_dir).unwrap();
            let error = index.verify().unwrap_err().to_string();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            assert!(error.contains(&name), "{name} at {at}: {error}");
        }
        std::fs::write(file, &original).unwrap();
    }
    // A search file cut short is refused when opened.
    let search = listed
        .iter()
        .find(|p| p.extension().unwrap() == "wis")
        .unwrap();
    let original = std::fs::read(search).unwrap();
    std::fs::write(search, &original[..original.len() / 2]).unwrap();
    let index = Index::open_read_only(&index_dir).unwrap();
    assert!(index.word_images().is_err());
}

#[test]
fn a_read_only_index_refuses_adds_and_spots_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let pages = write_pages(&dir.path().join("a"), 1, 0);
    let index_dir = dir.path().join("index");
    add(&Index::create(&index_dir).unwrap(), "a", &pages).unwrap();
    let before = snapshot(&index_dir);
    let index = Index::open_read_only(&index_dir).unwrap();
    assert!(matches!(add(&index, "b", &pages), Err(Error::ReadOnly(_))));
    let search = index.word_images().unwrap().unwrap();
    assert!(!search
        .spot("house", &SpotOptions::default(), 3)
        .unwrap()
        .is_empty());
    assert!(matches!(
        search.spot("...", &SpotOptions::default(), 3),
        Err(Error::InvalidArgument(_))
    ));
    drop(search);
    drop(index);
    assert!(snapshot(&index_dir) == before);
}

fn learning_from(images: u64) -> LearnOptions {
    learning(images, LearnOptions::default().learn_alone)
}

fn learning(learn_from: u64, learn_alone: u64) -> LearnOptions {
    LearnOptions {
        learn_from,
        learn_alone,
        ..small()
    }
}

/// Adds `pages` as the book `key` with a model kept past 100 word images
/// (a drawn book of 3 pages holds 120).
fn add_past(
    index: &Index,
    key: &str,
    pages: &[PathBuf],
) -> stemmata::Result<stemmata::ImageBookInfo> {
    index.add_word_images(key, &files(pages), &learning_from(100), &|_| {})
}

/// Every image's scores for a few words (combined and images alone), by
/// word, book, page and box: what two indexes are compared by.
type Ranked = std::collections::BTreeMap<(String, String, u32, [u32; 4]), [u64; 2]>;

fn ranked(index: &Index) -> Ranked {
    ranked_by(index, &SpotOptions::default())
}

fn ranked_by(index: &Index, options: &SpotOptions) -> Ranked {
    let search = index.word_images().unwrap().unwrap();
    let mut out = Ranked::new();
    for word in ["the", "garden", "window", "houses"] {
        for hit in search.spot(word, options, 0).unwrap() {
            let b = hit.bbox;
            out.insert(
                (
                    word.to_string(),
                    hit.key,
                    hit.page,
                    [b.x0, b.y0, b.x1, b.y1],
                ),
                [hit.scores.combined.to_bits(), hit.scores.image.to_bits()],
            );
        }
    }
    out
}

/// Of `ranked`, the entries of book `key`.
fn of_book(ranked: &Ranked, key: &str) -> Ranked {
    (ranked.iter())
        .filter(|(k, _)| k.1 == key)
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

#[test]
fn an_add_past_learn_from_keeps_the_model_and_every_row_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let pages =
        |name: &str, n: usize, offset: usize| write_pages(&dir.path().join(name), n, offset);
    let (b, a, c) = (pages("b", 3, 0), pages("a", 2, 5), pages("c", 2, 9));
    let made = std::cell::Cell::new(0);
    let adds = |order: &[(&str, &[PathBuf])], learn_from: u64| {
        made.set(made.get() + 1);
        let index = Index::create(dir.path().join(format!("index-{}", made.get()))).unwrap();
        let mut models = Vec::new();
        for (key, pages) in order {
            let info = index
                .add_word_images(key, &files(pages), &learning_from(learn_from), &|_| {})
                .unwrap();
            models.push(info.model.unwrap());
        }
        (index, models)
    };
    // b (120 images) is the model book: a and c are added under its model.
    let (index, models) = adds(&[("b", &b), ("a", &a), ("c", &c)], 100);
    let relearned: Vec<bool> = models.iter().map(|m| m.relearned).collect();
    assert_eq!(relearned, [true, false, false]);
    assert!(
        models.iter().all(|m| (m.books, m.images) == (1, 120)),
        "{models:?}"
    );
    let books: Vec<(String, bool)> = (index.image_books().unwrap().into_iter())
        .map(|b| (b.key, b.model_book))
        .collect();
    assert_eq!(
        books,
        [("a".into(), false), ("b".into(), true), ("c".into(), false)]
    );
    assert_eq!(index.verify().unwrap().image_books, 3);
    let kept = ranked(&index);

    // b's rows are the ones its own add wrote, and a's and c's do not
    // depend on the order they came in.
    let (only_b, _) = adds(&[("b", &b)], 100);
    assert_eq!(of_book(&kept, "b"), ranked(&only_b));
    let (reordered, _) = adds(&[("b", &b), ("c", &c), ("a", &a)], 100);
    assert_eq!(ranked(&reordered), kept);

    // A relearn learns the model from every book: what adds that always
    // relearn give.
    let (model, warnings) = index
        .relearn_word_images(LearnOptions::default().learn_alone, &|_| {})
        .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!((model.relearned, model.books, model.images), (true, 3, 280));
    let (always, models) = adds(&[("b", &b), ("a", &a), ("c", &c)], u64::MAX);
    assert!(models.iter().all(|m| m.relearned));
    let relearned = ranked(&index);
    assert_eq!(relearned, ranked(&always));
    assert_ne!(
        of_book(&relearned, "a"),
        of_book(&kept, "a"),
        "a's rows recomputed"
    );
    assert!(index.image_books().unwrap().iter().all(|b| b.model_book));
    assert_eq!(index.verify().unwrap().image_books, 3);
    let names = std::fs::read_dir(index.dir().join("images"))
        .unwrap()
        .count();
    assert_eq!(names, 5, "three books, the vocabulary and one search file");
}

#[test]
fn a_book_of_learn_alone_images_is_scored_by_its_own_model_whatever_the_other_books() {
    let dir = tempfile::tempdir().unwrap();
    let pages =
        |name: &str, n: usize, offset: usize| write_pages(&dir.path().join(name), n, offset);
    // b and d 120 word images each, a 80: b, the first book, sets the vocabulary.
    let (b, d, a) = (pages("b", 3, 0), pages("d", 3, 3), pages("a", 2, 5));
    let rows_alone = SpotOptions::default().with_width_weight(0.0).unwrap();
    let index_of = |name: &str, order: &[(&str, &[PathBuf])], options: LearnOptions| {
        let index = Index::create(dir.path().join(name)).unwrap();
        for (key, pages) in order {
            (index.add_word_images(key, &files(pages), &options, &|_| {})).unwrap();
        }
        // The widths a query expects are learned with the index's model.
        ranked_by(&index, &rows_alone)
    };
    // Kept adds of a: under b's model, and under the model of b and d.
    let kept = |name: &str, model_books: &[(&str, &[PathBuf])], learn_from, learn_alone| {
        let mut order = model_books.to_vec();
        order.push(("a", &a));
        of_book(
            &index_of(name, &order, learning(learn_from, learn_alone)),
            "a",
        )
    };
    let alone_under_b = kept("alone-b", &[("b", &b)], 100, 80);
    let alone_under_bd = kept("alone-bd", &[("b", &b), ("d", &d)], 200, 80);
    assert!(!alone_under_b.is_empty());
    assert_eq!(alone_under_b, alone_under_bd, "a's rows by its own model");
    let with_b = kept("with-b", &[("b", &b)], 100, 81);
    let with_bd = kept("with-bd", &[("b", &b), ("d", &d)], 200, 81);
    assert_ne!(
        with_b, with_bd,
        "a's rows by the model learned with the model books"
    );
    assert_ne!(with_b, alone_under_b);

    // a, described by its own vocabulary, adds nothing the model could
    // learn from: its add keeps the model whatever learn_from, and a
    // relearn learns it from b alone and scores a by its own model again.
    let index = Index::create(dir.path().join("relearning")).unwrap();
    for (key, pages) in [("b", &b), ("a", &a)] {
        let info = index.add_word_images(key, &files(pages), &learning(u64::MAX, 80), &|_| {});
        assert_eq!(info.unwrap().model.unwrap().relearned, key == "b");
    }
    let only_b = index_of("only-b", &[("b", &b)], learning(u64::MAX, 80));
    for relearn in [false, true] {
        if relearn {
            let (model, _) = index
                .relearn_word_images(LearnOptions::default().learn_alone, &|_| {})
                .unwrap();
            assert_eq!((model.books, model.images), (1, 120));
        }
        let both = ranked_by(&index, &rows_alone);
        assert_eq!(of_book(&both, "a"), alone_under_b, "relearned: {relearn}");
        assert_eq!(of_book(&both, "b"), only_b, "relearned: {relearn}");
    }
    // Under 121, a shares b's vocabulary, and a model learned again
    // learns from both.
    let joint = index_of("joint", &[("b", &b), ("a", &a)], learning(u64::MAX, 121));
    assert_ne!(
        of_book(&joint, "b"),
        only_b,
        "b's rows by the model of both"
    );
    // A relearn scores a book of the index's vocabulary alone from its
    // learn_alone on: at 80 both books, at 121 neither.
    let index = Index::create(dir.path().join("relearned-alone")).unwrap();
    for (key, pages) in [("b", &b), ("a", &a)] {
        let options = learning(u64::MAX, 121);
        index
            .add_word_images(key, &files(pages), &options, &|_| {})
            .unwrap();
    }
    assert_eq!(ranked_by(&index, &rows_alone), joint);
    index.relearn_word_images(80, &|_| {}).unwrap();
    let relearned_alone = ranked_by(&index, &rows_alone);
    for key in ["a", "b"] {
        assert_ne!(
            of_book(&relearned_alone, key),
            of_book(&joint, key),
            "{key}"
        );
    }
    index.relearn_word_images(121, &|_| {}).unwrap();
    assert_eq!(ranked_by(&index, &rows_alone), joint);

    // An add says whether its book was scored alone; the list does not.
    let index = Index::create(dir.path().join("told")).unwrap();
    let add = |key: &str, pages: &[PathBuf]| {
        let info = index.add_word_images(key, &files(pages), &learning(100, 80), &|_| {});
        info.unwrap().own_model
    };
    assert_eq!((add("b", &b), add("a", &a)), (Some(false), Some(true)));
    assert!(index
        .image_books()
        .unwrap()
        .iter()
        .all(|b| b.own_model.is_none()));
}

#[test]
fn replacing_a_model_book_relearns_and_replacing_another_keeps_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let (b, a) = (
        write_pages(&dir.path().join("b"), 3, 0),
        write_pages(&dir.path().join("a"), 2, 5),
    );
    let index = Index::create(dir.path().join("index")).unwrap();
    let add = |key: &str, pages: &[PathBuf]| add_past(&index, key, pages).unwrap().model.unwrap();
    add("b", &b);
    assert!(!add("a", &a).relearned);
    // a again, one page: its images replaced under the kept model.
    let model = add("a", &a[..1]);
    assert!(!model.relearned);
    let search = index.word_images().unwrap().unwrap();
    assert_eq!((search.books(), search.images()), (2, 160));
    drop(search);
    assert_eq!(index.verify().unwrap().image_books, 2);
    let kept = ranked(&index);
    let other = Index::create(dir.path().join("other")).unwrap();
    for (key, pages) in [("b", &b[..]), ("a", &a[..1])] {
        add_past(&other, key, pages).unwrap();
    }
    assert_eq!(kept, ranked(&other));
    // b, the model book, again: the model is learned from both.
    let model = add("b", &b[..2]);
    assert_eq!((model.relearned, model.books, model.images), (true, 2, 120));
    assert_eq!(index.verify().unwrap().image_books, 2);
}

#[test]
fn a_relearn_of_an_index_without_word_images_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::create(dir.path().join("index")).unwrap();
    let before = snapshot(&dir.path().join("index"));
    let refused = index.relearn_word_images(LearnOptions::default().learn_alone, &|_| {});
    assert!(
        matches!(refused, Err(Error::InvalidArgument(_))),
        "{refused:?}"
    );
    assert_eq!(snapshot(&dir.path().join("index")), before);
}

#[test]
fn an_add_that_keeps_the_model_refuses_a_damaged_search_file_and_a_relearn_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let (b, a) = (
        write_pages(&dir.path().join("b"), 3, 0),
        write_pages(&dir.path().join("a"), 1, 5),
    );
    let index = Index::create(dir.path().join("index")).unwrap();
    let add = |key: &str, pages: &[PathBuf]| add_past(&index, key, pages);
    add("b", &b).unwrap();
    let search = std::fs::read_dir(index.dir().join("images"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "wis"))
        .unwrap();
    let mut bytes = std::fs::read(&search).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 0x40;
    std::fs::write(&search, &bytes).unwrap();
    let refused = add("a", &a);
    assert!(
        matches!(&refused, Err(e) if e.to_string().contains(&*search.to_string_lossy())),
        "{refused:?}"
    );
    let keys: Vec<String> = index
        .image_books()
        .unwrap()
        .into_iter()
        .map(|b| b.key)
        .collect();
    assert_eq!(keys, ["b"]);
    let (model, _) = index
        .relearn_word_images(LearnOptions::default().learn_alone, &|_| {})
        .unwrap();
    assert_eq!((model.books, model.images), (1, 120));
    assert!(!add("a", &a).unwrap().model.unwrap().relearned);
    assert_eq!(index.verify().unwrap().image_books, 2);
}
