"""Shared fixtures: generated texts of pseudo-words and a small index."""

from __future__ import annotations

import functools
import random

import pytest

import stemmata


@functools.lru_cache(maxsize=None)
def vocabulary() -> list[str]:
    """200,000 made-up lower-case words of 4 to 10 letters."""
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=rng.randint(4, 10))) for _ in range(200_000)]


def story(words: int, seed: int) -> str:
    """A text of ``words`` pseudo-words, most of which occur once in it;
    texts of two seeds share only chance words."""
    return " ".join(random.Random(seed).choices(vocabulary(), k=words))


@pytest.fixture
def texts() -> dict[str, str]:
    """Five books: ``base``, its ``reprint`` (a preface added), ``part``
    (its second half, inside it), and two unrelated ones."""
    base = story(3000, 1)
    return {
        "base": base,
        "reprint": "A preface to the new edition. " + base,
        "part": " ".join(base.split()[1500:]),
        "other": story(3000, 2),
        "another": story(2500, 3),
    }


@pytest.fixture
def index(tmp_path, texts) -> stemmata.Index:
    """An index holding ``texts``, titled by key."""
    index = stemmata.Index.create(tmp_path / "index")
    index.load([{"key": key, "text": text, "title": key.title()} for key, text in texts.items()])
    yield index
    index.close()
