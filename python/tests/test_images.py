"""Word images from Python: a scanned book's pages added with their hOCR,
listed and searched for a text word; bad pages refused.

Pages are drawn here as in the engine's own tests: every letter a distinct
5×7 pattern of 3-px squares, so that the same letters look alike wherever
they are, written as 8-bit grey PNG files with their hOCR beside them.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
import stemmata

SCALE = 3
LETTER_W = 6 * SCALE
LINE_H = 14 * SCALE
WORDS = ["the", "house", "garden", "river", "stone", "window", "light", "morning", "door"]


def pattern(letter: str) -> list[list[bool]]:
    """The 5×7 pattern of a letter: top and bottom rows always inked."""
    x = (ord(letter) * 0x9E3779B97F4A7C15 ^ 0xD1B54A32D192ED03) & (2**64 - 1)
    rows = []
    for r in range(7):
        row = []
        for _ in range(5):
            x ^= (x << 13) & (2**64 - 1)
            x ^= x >> 7
            x ^= (x << 17) & (2**64 - 1)
            row.append(r in (0, 6) or x & 1 == 1)
        rows.append(row)
    return rows


def png(pixels: list[bytearray]) -> bytes:
    """An 8-bit greyscale PNG of rows of pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    width, height = len(pixels[0]), len(pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def write_page(directory: Path, name: str, lines: list[list[str]], ocr_of: dict[str, str]) -> Path:
    """Draws ``lines`` of words as ``name``.png with its hOCR, where the
    OCR reads a word ``w`` as ``ocr_of.get(w, w)``; returns the image."""
    width, height = 700, 40 + LINE_H * len(lines)
    pixels = [bytearray(b"\xff" * width) for _ in range(height)]
    spans: list[str] = []
    for number, words in enumerate(lines):
        y0, x = 20 + number * LINE_H, 20
        for word in words:
            x0 = x
            for letter in word:
                for r, row in enumerate(pattern(letter)):
                    for k, inked in enumerate(row):
                        if inked:
                            for dy in range(SCALE):
                                for dx in range(SCALE):
                                    pixels[y0 + r * SCALE + dy][x + k * SCALE + dx] = 0
                x += LETTER_W
            bbox = f"{x0} {y0} {x} {y0 + 7 * SCALE}"
            spans.append(
                f"<span class='ocrx_word' id='word_{len(spans)}' title='bbox {bbox}; x_wconf 90'>"
                f"{ocr_of.get(word, word)}</span>"
            )
            x += 2 * LETTER_W
    image = directory / f"{name}.png"
    image.write_bytes(png(pixels))
    (directory / f"{name}.hocr").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><body>'
        f"<div class='ocr_page' id='page_1' title='image \"{name}.png\"; bbox 0 0 {width} {height}'>"
        + "".join(spans)
        + "</div></body></html>\n",
        encoding="utf-8",
    )
    return image


def page_lines(page: int) -> list[list[str]]:
    """The words of a book's page ``page``: eight lines of five."""
    return [
        [WORDS[(page * 40 + line * 5 + w * 7) % len(WORDS)] for w in range(5)] for line in range(8)
    ]


def write_book(directory: Path, pages: int, ocr_of: dict[str, str]) -> Path:
    """A book of ``pages`` pages; returns its directory."""
    directory.mkdir(parents=True)
    for page in range(pages):
        write_page(directory, f"p{page:03}", page_lines(page), ocr_of)
    return directory


def count(word: str, pages: int) -> int:
    """How often ``word`` is drawn in a book of ``pages`` pages."""
    return sum(line.count(word) for page in range(pages) for line in page_lines(page))


def test_pages_are_added_listed_and_searched(tmp_path: Path) -> None:
    # The OCR misreads "garden" everywhere in the second book: only its
    # images can find it there.
    first = write_book(tmp_path / "first", 3, {})
    second = write_book(tmp_path / "second", 2, {"garden": "gardcn"})
    reports: list[tuple[int, int | None, str]] = []
    with stemmata.Index.create(tmp_path / "idx") as index:
        assert index.word_images() is None
        # 256 visual terms: with 64, the drawn letters' descriptors share
        # so few terms that every word scores within 0.003 of "garden" by
        # its images alone, and a pixel of box decides the order.
        book = index.add_word_images(
            "first", [first], branching=16, progress=lambda *r: reports.append(r)
        )
        assert (book.key, book.pages, book.words) == ("first", 3, 120)
        assert reports[-1] == (3, 3, "pages")
        pages = sorted(second.glob("*.png"))
        index.add_word_images("second", pages, progress=None)
        assert [b.key for b in index.image_books()] == ["first", "second"]
        assert [b.words for b in index.image_books()] == [120, 80]
        images = index.word_images()
        assert images is not None
        assert (len(images), images.books) == (200, 2)

        hits = images.spot("garden", k=0, ocr_weight=1.0)
        assert len(hits) == 200
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        first_gardens = [h for h in hits if h.ocr == "garden"]
        assert {h.key for h in first_gardens} == {"first"}
        assert hits[: len(first_gardens)] == first_gardens
        hit = hits[0]
        assert hit.page_name.startswith("p00") and hit.page in (1, 2, 3)
        assert set(hit.bbox) == {"x0", "y0", "x1", "y1"}
        # The box is the ink's, found inside the OCR's: six letters, the
        # spacing after the last left out, and one pixel of edge.
        assert hit.bbox["x1"] - hit.bbox["x0"] == 5 * LETTER_W + 5 * SCALE + 1
        assert set(hit.scores) == {"likelihood", "order", "width", "image", "ocr", "combined"}

        # By the OCR alone, the second book's gardens (read "gardcn") rank
        # below every garden read right; by the images alone, drawn the
        # same, they are among the best, and only gardens are.
        misread = [i for i, h in enumerate(hits) if h.ocr == "gardcn"]
        assert len(misread) == count("garden", 2) > 0
        assert min(misread) >= len(first_gardens) == count("garden", 3)
        gardens = count("garden", 3) + count("garden", 2)
        top = images.spot("garden", k=gardens, ocr_weight=0.0)
        assert {h.ocr for h in top} == {"garden", "gardcn"}, [h.ocr for h in top]

        # "GARDEN" as typed shares no bigram with "garden"; ignoring case,
        # the OCR's gardens are its best hits.
        typed = images.spot("GARDEN", k=1, ocr_weight=1.0)
        assert typed[0].scores["ocr"] < 0.5
        folded = images.spot("GARDEN", k=len(first_gardens), ocr_weight=1.0, ignore_case=True)
        assert {h.ocr for h in folded} == {"garden"}
        assert all(h.scores["ocr"] == 1.0 for h in folded)


def test_bad_pages_are_refused_and_leave_the_index_as_it_was(tmp_path: Path) -> None:
    book = write_book(tmp_path / "book", 2, {})
    (tmp_path / "lonely.png").write_bytes((book / "p000.png").read_bytes())
    empty = tmp_path / "empty"
    empty.mkdir()
    with stemmata.Index.create(tmp_path / "idx") as index:
        with pytest.raises(stemmata.InvalidInputError, match="lonely.png: no OCR file beside it"):
            index.add_word_images("x", [book / "p000.png", tmp_path / "lonely.png"])
        with pytest.raises(stemmata.InvalidInputError, match="no page image"):
            index.add_word_images("x", [empty])
        with pytest.raises(stemmata.InvalidInputError, match="learning"):
            index.add_word_images("x", [book], learning="both")  # type: ignore[arg-type]
        (book / "p001.hocr").write_text("<html><body", encoding="utf-8")
        with pytest.raises(stemmata.StemmataError, match="p001.hocr"):
            index.add_word_images("x", [book])
        assert index.image_books() == []
        assert index.word_images() is None
        (book / "p001.hocr").unlink()
        index.add_word_images("x", [book / "p000.png"], branching=8)
        images = index.word_images()
        assert images is not None
        with pytest.raises(stemmata.InvalidInputError, match="ocr_weight"):
            images.spot("house", ocr_weight=2.0)
        with pytest.raises(stemmata.InvalidInputError, match="width_weight"):
            images.spot("house", width_weight=-1.0)
        with pytest.raises(stemmata.InvalidInputError, match="no letter or digit"):
            images.spot("--")


def test_a_kept_model_is_reported_and_a_relearn_learns_from_every_book(tmp_path: Path) -> None:
    first = write_book(tmp_path / "first", 3, {})
    second = write_book(tmp_path / "second", 2, {"garden": "gardcn"})
    with stemmata.Index.create(tmp_path / "idx") as index:
        with pytest.raises(stemmata.InvalidInputError, match="no word images"):
            index.relearn_word_images()
        book = index.add_word_images("first", [first], branching=8, learn_from=100)
        assert book.model_book and book.model["relearned"]
        book = index.add_word_images("second", [second], learn_from=100)
        assert not book.model_book
        assert book.model == {"relearned": False, "books": 1, "images": 120}
        assert [(b.key, b.model_book, b.model) for b in index.image_books()] == [
            ("first", True, None),
            ("second", False, None),
        ]
        model = index.relearn_word_images()
        assert isinstance(model, stemmata.ImageModel)
        assert (model.relearned, model.books, model.images) == (True, 2, 200)
        assert all(b.model_book for b in index.image_books())


def test_a_book_of_learn_alone_word_images_is_scored_by_its_own_model(tmp_path: Path) -> None:
    first = write_book(tmp_path / "first", 3, {})
    second = write_book(tmp_path / "second", 2, {"garden": "gardcn"})
    scores = {}
    for learn_alone in (1, 10**9):
        with stemmata.Index.create(tmp_path / f"idx-{learn_alone}") as index:
            index.add_word_images("first", [first], branching=8, learn_from=100)
            book = index.add_word_images(
                "second", [second], learn_from=100, learn_alone=learn_alone
            )
            assert book.own_model == (learn_alone == 1)
            assert index.image_books()[1].own_model is None
            if learn_alone == 1:
                # Its terms are of its own vocabulary: no model learns from them.
                model = index.relearn_word_images()
                assert (model.books, model.images) == (1, index.image_books()[0].words)
                assert [b.model_book for b in index.image_books()] == [True, False]
            images = index.word_images()
            assert images is not None
            hits = images.spot("garden", k=0, ocr_weight=0.0, width_weight=0.0)
            scores[learn_alone] = sorted(
                (hit.page, tuple(hit.bbox.values()), hit.scores["image"])
                for hit in hits
                if hit.key == "second"
            )
    assert scores[1] and len(scores[1]) == len(scores[10**9])
    assert scores[1] != scores[10**9], "the second book's rows by its own model, or with the first's"


def test_a_relearn_scores_a_book_alone_from_its_learn_alone_on(tmp_path: Path) -> None:
    first = write_book(tmp_path / "first", 3, {})
    second = write_book(tmp_path / "second", 2, {"garden": "gardcn"})

    def scores(index: stemmata.Index) -> list:
        images = index.word_images()
        assert images is not None
        hits = images.spot("garden", k=0, ocr_weight=0.0, width_weight=0.0)
        return sorted((hit.key, hit.page, tuple(hit.bbox.values()), hit.scores["image"]) for hit in hits)

    with stemmata.Index.create(tmp_path / "idx") as index:
        index.add_word_images("first", [first], branching=8, learn_from=10**9)
        # Both books of the index's vocabulary, the model learned from both.
        index.add_word_images("second", [second], learn_from=10**9, learn_alone=10**9)
        joint = scores(index)
        assert index.relearn_word_images(learn_alone=10**9).books == 2
        assert scores(index) == joint
        # From 1 on, each book beside the other is scored by its own model.
        index.relearn_word_images(learn_alone=1)
        assert scores(index) != joint
        # The default (1,000) is above both books' word images.
        assert index.relearn_word_images().books == 2
        assert scores(index) == joint
