"""The batch kernels on Arrow batches: the all-pairs job run step by step
with pyarrow's group-bys and joins (as an engine runs it) finds what
``Reader.pairs(mode="approximate")`` finds; the Spark job likewise."""

from __future__ import annotations

import json
import random
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pytest
import stemmata
from conftest import story
from stemmata import batch


def noisy(text: str, rate: float, seed: int) -> str:
    """``text`` with a share ``rate`` of its words replaced by others."""
    rng = random.Random(seed)
    words = text.split()
    for i in range(len(words)):
        if rng.random() < rate:
            words[i] = story(1, rng.randint(0, 10**9))
    return " ".join(words)


@pytest.fixture(scope="module")
def lines() -> list[str]:
    """JSON Lines of 60-odd books: editions at several noise rates, exact
    copies, works bound in anthologies, overlaps, unrelated books, and
    lines the loader refuses or skips."""
    docs: list[dict[str, str]] = []
    works = [story(random.Random(w).randint(1500, 4000), 100 + w) for w in range(24)]
    for w, work in enumerate(works):
        docs.append({"key": f"w{w:02}", "text": work})
        if w % 2 == 0:
            docs.append({"key": f"w{w:02}-e", "text": noisy(work, 0.02 + 0.01 * (w % 5), w)})
        if w % 5 == 0:
            docs.append({"key": f"w{w:02}-copy", "text": work})
    for a in range(0, 12, 3):
        docs.append({"key": f"anth{a}", "text": " ".join(works[a : a + 3])})
    for o in range(4):
        first, second = works[12 + o].split(), works[16 + o].split()
        halves = first[len(first) // 2 :] + second[: len(second) // 2]
        docs.append({"key": f"overlap{o}", "text": " ".join(halves)})
    for u in range(8):
        docs.append({"key": f"solo{u}", "text": story(2500, 500 + u)})
    random.Random(1).shuffle(docs)
    out = [json.dumps(doc) for doc in docs]
    out.insert(5, "")
    out.insert(9, "{not json")
    out.insert(12, json.dumps({"key": "w00", "text": noisy(works[0], 0.03, 99)}))
    return out


@pytest.fixture(scope="module")
def expected(lines, tmp_path_factory) -> tuple[pa.Table, pa.Table]:
    path = tmp_path_factory.mktemp("jsonl") / "books.jsonl"
    path.write_text("\n".join(lines) + "\n")
    index = stemmata.Index.create(tmp_path_factory.mktemp("index") / "index")
    index.load_jsonl(path)
    pairs, clusters = index.reader().pairs(mode="approximate", clusters=True)
    index.close()
    return pairs, clusters


def features(lines: list[str]) -> pa.Table:
    """The books' features, refused lines dropped, the later of two
    documents with one key kept."""
    table = pa.table({"id": pa.array(range(len(lines)), pa.int64()), "line": lines})
    extracted = pa.Table.from_batches(
        [batch.features_of_json_lines(b, "books.jsonl") for b in table.to_batches(max_chunksize=16)]
    )
    good = extracted.filter(pc.equal(extracted["error"], "")).drop_columns(["error"])
    latest = good.group_by("key").aggregate([("id", "max")])
    return good.filter(pc.is_in(good["id"], latest["id_max"])).sort_by("id")


def exploded(books: pa.Table, column: str) -> pa.Table:
    lists = books[column].combine_chunks()
    return pa.table(
        {"id": books["id"].take(pc.list_parent_indices(lists)), "value": pc.list_flatten(lists)}
    )


def key_pairs(books: pa.Table, key_cap: int) -> pa.Table:
    found = []
    for table, column in enumerate(batch.KEY_COLUMNS):
        keys = exploded(books, column)
        buckets = keys.group_by("value").aggregate([("id", "list")])
        pairs = batch.key_bucket_pairs(buckets["id_list"].combine_chunks(), key_cap)
        counted = (
            pa.Table.from_batches([pairs])
            .group_by(["a", "b"])
            .aggregate([("bucket", "count")])
            .rename_columns(["a", "b", "shared"])
        )
        found.append(
            counted.append_column("table", pa.array([table] * counted.num_rows, pa.int32()))
        )
    shared = pa.concat_tables(found)
    for side in "ab":
        simhash = books.select(["id", "simhash_low", "simhash_high"]).rename_columns(
            [side, f"{side}_simhash_low", f"{side}_simhash_high"]
        )
        shared = shared.join(simhash, side)
    kept = shared.take(batch.kept_key_pairs(shared)).select(["a", "b"])
    return (
        kept.group_by(["a", "b"])
        .aggregate([])
        .append_column(
            "from_keys", pa.array([True] * kept.group_by(["a", "b"]).aggregate([]).num_rows)
        )
    )


def grouped(table: pa.Table, keys: list[str], values: pa.StructArray) -> tuple[pa.Table, pa.Array]:
    """The groups of ``table`` by ``keys``, and the list of ``values`` of
    each (Acero lists no struct: it lists row numbers, taken after)."""
    rows = table.select(keys).append_column("row", pa.array(range(table.num_rows), pa.int64()))
    groups = rows.group_by(keys).aggregate([("row", "list")])
    lists = groups["row_list"].combine_chunks()
    taken = values.take(pc.list_flatten(lists))
    return groups.drop_columns(["row_list"]), pa.ListArray.from_arrays(lists.offsets, taken)


def structs(table: pa.Table, names: list[str]) -> pa.StructArray:
    return pa.StructArray.from_arrays([table[n].combine_chunks() for n in names], names=names)


def sampled_pairs(books: pa.Table, sample_cap: int) -> pa.Table:
    entries = pa.Table.from_batches([batch.sample_entries(books.to_batches()[0])])
    _, buckets = grouped(entries, ["word"], structs(entries, ["book", "part", "index"]))
    matches = pa.Table.from_batches([batch.sample_bucket_matches(buckets, sample_cap)])
    groups, found = grouped(
        matches, ["a", "b", "part_a", "part_b"], structs(matches, ["index_a", "index_b"])
    )
    kept = batch.in_order(found)
    groups = groups.take(kept)
    pairs, parts = grouped(groups, ["a", "b"], structs(groups, ["part_a", "part_b"]))
    return pairs.append_column("sampled", parts)


def pair_key(table: pa.Table) -> pa.Array:
    """One number per (a, b) pair of books."""
    return pc.add(pc.shift_left(table["a"], 32), table["b"])


def run_steps(lines: list[str]) -> tuple[pa.Table, pa.Table]:
    books = features(lines).combine_chunks()
    parts = pc.sum(pc.list_value_length(books["part_lengths"])).as_py()
    key_cap, sample_cap = batch.caps(books.num_rows, parts)
    from_keys, sampled = key_pairs(books, key_cap), sampled_pairs(books, sample_cap)
    # Acero joins no list column: join by row numbers, then take.
    both = pa.concat_tables([from_keys.select(["a", "b"]), sampled.select(["a", "b"])])
    both = both.group_by(["a", "b"]).aggregate([]).sort_by([("a", "ascending"), ("b", "ascending")])
    keyed, proposed = pair_key(both), pair_key(sampled)
    at = pc.index_in(keyed, value_set=proposed)
    no_parts = pa.array([[]], sampled["sampled"].type)[0]
    sampled_lists = [sampled["sampled"][i.as_py()] if i.is_valid else no_parts for i in at]
    candidates = pa.table(
        {
            "from_keys": pc.is_in(keyed, value_set=pair_key(from_keys)),
            "sampled": pa.array([s.as_py() for s in sampled_lists], sampled["sampled"].type),
        }
    )
    names = ["a_id", "b_id", "a", "b", "a_language", "b_language"]
    chosen = {}
    for side in "ab":
        rows = pc.index_in(both[side], value_set=books["id"])
        chosen[f"{side}_id"] = both[side]
        chosen[side] = books["key"].take(rows)
        chosen[f"{side}_language"] = books["language"].take(rows)
        for column in ("part_lengths", "hashes", "positions"):
            candidates = candidates.append_column(f"{side}_{column}", books[column].take(rows))
    found = batch.verify_pairs(candidates.combine_chunks().to_batches()[0], score="order")
    chosen = pa.table([chosen[n] for n in names], names=names).take(found["row"])
    pairs = pa.table(
        [chosen[c] for c in names[2:]] + found.columns[1:],
        names=[*names[2:], *found.schema.names[1:]],
    )
    return pairs, batch.clusters(chosen)


def test_the_kernels_find_the_pairs_and_clusters_of_an_index(lines, expected):
    pairs, clusters = run_steps(lines)
    want_pairs, want_clusters = expected
    assert want_pairs.num_rows > 30
    assert pairs.equals(want_pairs)
    assert clusters.equals(want_clusters)
    related = set(zip(want_pairs["a"].to_pylist(), want_pairs["b"].to_pylist()))
    names = {a + " " + b for a, b in related}
    for kind in ("-e", "-copy", "anth", "overlap"):
        assert kind in " ".join(names), f"no pair of a {kind} book"


def test_features_name_refused_lines_and_skip_blank_ones(lines):
    table = pa.table({"id": pa.array(range(len(lines)), pa.int64()), "line": lines})
    extracted = batch.features_of_json_lines(table.to_batches()[0], "books.jsonl")
    assert extracted.num_rows == len(lines) - 1
    errors = [e for e in extracted["error"].to_pylist() if e]
    assert errors == ["books.jsonl:10: invalid JSON: key must be a string at line 1 column 2"]
    assert extracted.schema.names[:-1] == batch.FEATURES_SCHEMA.names
    assert (
        extracted.schema.remove(extracted.schema.get_field_index("error")) == batch.FEATURES_SCHEMA
    )


def test_kernels_refuse_nulls_and_ids_out_of_range():
    with pytest.raises(ValueError, match="null"):
        batch.key_bucket_pairs(pa.array([[1, 2], None]), 64)
    with pytest.raises(stemmata.InvalidInputError, match="out of range"):
        batch.key_bucket_pairs(pa.array([[1, -2]]), 64)
    assert batch.key_bucket_pairs(pa.array([[3, 1, 2]]), 2).num_rows == 0
    assert batch.key_bucket_pairs(pa.array([[3, 1, 2]]), 3).to_pydict() == {
        "bucket": [0, 0, 0],
        "a": [1, 1, 2],
        "b": [2, 3, 3],
    }


def test_the_spark_job_gives_the_pairs_and_clusters_of_an_index(
    lines, expected, tmp_path, monkeypatch
):
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession
    from stemmata import spark as job

    path = tmp_path / "books.jsonl"
    path.write_text("\n".join(lines) + "\n")
    # The workers run this Python, which has the package.
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    try:
        summary = job.run(session, str(path), str(tmp_path / "out"), tsv=True)
    finally:
        session.stop()
    want_pairs, want_clusters = expected
    assert summary.refused == 1 and summary.pairs == want_pairs.num_rows
    import pyarrow.parquet as pq

    pairs = pq.read_table(tmp_path / "out" / "pairs").drop_columns(["a_id", "b_id"])
    assert pairs.select(want_pairs.schema.names).cast(want_pairs.schema).equals(want_pairs)
    assert pq.read_table(tmp_path / "out" / "clusters.parquet").equals(want_clusters)
