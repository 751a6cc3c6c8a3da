"""Queries, pairs and clusters, relations, and text alignment."""

from __future__ import annotations

import pyarrow as pa

import stemmata


def test_query_by_key_ranks_the_relatives(index):
    hits = index.reader().query(key="base")
    assert [h.key for h in hits] == ["reprint", "part"]
    best = hits[0]
    assert isinstance(best, stemmata.Hit)
    assert best.title == "Reprint" and 0 < best.score <= 1
    assert best.lcs <= best.common <= min(best.query_unique, best.hit_unique)
    assert best.relation is None


def test_query_by_text_finds_the_stored_copies(index, texts):
    hits = index.reader().query(text=texts["other"], k=1)
    assert [h.key for h in hits] == ["other"]
    assert index.reader().query(text=texts["base"].encode(), k=0)[0].key == "base"


def test_query_relations_classify_each_hit(index):
    hits = index.reader().query(key="base", relations=True)
    relations = {h.key: h.relation["class"] for h in hits}
    assert relations == {"reprint": "duplicate", "part": "contains"}


def test_query_options_change_what_counts(index):
    reader = index.reader()
    assert reader.query(key="base", min_score=1.0) == []
    hits = reader.query(key="base", score="containment", mode="approximate")
    assert {h.key for h in hits} == {"reprint", "part"}


def test_pairs_is_an_arrow_table_in_a_fixed_order(index):
    reader = index.reader()
    table = reader.pairs()
    assert isinstance(table, pa.Table)
    assert table.column_names[:5] == ["a", "b", "a_language", "b_language", "score"]
    assert table.schema.field("score").type == pa.float64()
    rows = list(zip(table.column("a").to_pylist(), table.column("b").to_pylist()))
    assert sorted(map(frozenset, rows)) == sorted(
        map(frozenset, [("base", "reprint"), ("base", "part"), ("reprint", "part")])
    )
    assert reader.pairs(threads=1).equals(reader.pairs(threads=2))
    assert reader.pairs(mode="approximate").num_rows == 3


def test_pairs_convert_to_pandas(index):
    frame = index.reader().pairs().to_pandas()
    assert len(frame) == 3
    assert (frame["lcs"] <= frame["common"]).all()
    assert (frame["a_words_start"] <= frame["a_words_end"]).all()


def test_pairs_with_clusters_groups_the_related_books(index):
    pairs, clusters = index.reader().pairs(clusters=True)
    assert pairs.num_rows == 3
    assert clusters.column_names == ["cluster", "size", "key"]
    assert clusters.to_pydict() == {
        "cluster": [1, 1, 1],
        "size": [3, 3, 3],
        "key": ["base", "part", "reprint"],
    }


def test_pairs_of_an_empty_index_are_an_empty_table(tmp_path):
    table = stemmata.Index.create(tmp_path / "index").reader().pairs()
    assert table.num_rows == 0 and "a" in table.column_names


def test_relate_tells_containment_and_the_container(index):
    relation = index.reader().relate("part", "base")
    assert isinstance(relation, stemmata.Relation)
    assert relation.class_ == "contains" and relation["class"] == "contains"
    assert relation.container == "b"
    assert relation.portion["a"]["coverage"] > 0.9
    assert index.reader().relate("base", "other").class_ == "unrelated"


def test_align_summarises_and_lists_spans_when_asked(texts):
    alignment = stemmata.align(texts["base"], texts["reprint"])
    assert isinstance(alignment, stemmata.Alignment)
    assert alignment.words_a == 3000 and alignment.aligned_words_a == 3000
    assert alignment.share_a == 1.0 and alignment.spans is None
    detailed = stemmata.align(texts["part"], texts["base"].encode(), spans=True, relations=True)
    assert detailed.spans[0]["kind"] == "exact"
    assert detailed.relation["class"] == "contains"


def test_ocr_accuracy_counts_errors(texts):
    clean = texts["another"]
    words = clean.split()
    words[10] = words[10] + "x"
    measured = stemmata.ocr_accuracy(clean, " ".join(words))
    assert measured.clean_words == len(words)
    assert measured.matched_words == len(words) - 1
    assert measured.char_errors == 1
