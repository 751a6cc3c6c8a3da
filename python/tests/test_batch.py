"""The batch kernels on Arrow batches: the all-pairs job run step by step
with pyarrow's group-bys and joins (as an engine runs it) finds what
``Reader.pairs(mode="approximate")`` finds; the Spark job likewise."""

from __future__ import annotations

import json
import os
import random
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
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


def shuffled(table: pa.Table, by: list[str], partitions: int) -> list[pa.Table]:
    """``table`` cut into ``partitions`` parts by a hash of ``by``, as a
    shuffle cuts it: every row of one value of ``by`` in one part."""
    keys = [tuple(row.values()) for row in table.select(by).to_pylist()]
    part = pa.array([hash(key) % partitions for key in keys], pa.int64())
    return [table.filter(pc.equal(part, p)) for p in range(partitions)]


def listings(books: pa.Table) -> pa.Table:
    """One row per band key of a book, as the job lists them."""
    found = []
    for table, column in enumerate(batch.KEY_COLUMNS):
        lists = books[column].combine_chunks()
        parents = pc.list_parent_indices(lists)
        found.append(
            pa.table(
                {
                    "table": pa.array([table] * len(parents), pa.int32()),
                    "key": pc.list_flatten(lists),
                    "id": books["id"].take(parents),
                    "simhash_low": books["simhash_low"].take(parents),
                    "simhash_high": books["simhash_high"].take(parents),
                }
            )
        )
    return pa.concat_tables(found)


def candidates(books: pa.Table, key_cap: int, sample_cap: int, steps: int) -> pa.Table:
    """The candidate pairs, found in the job's two shuffles with three
    partitions each: listings by key and by word into runs, runs by
    target."""
    entries = pa.Table.from_batches([batch.sample_entries(books.to_batches()[0])])
    runs = [
        batch.sample_match_runs(part, sample_cap, steps) for part in shuffled(entries, ["word"], 3)
    ]
    runs += [
        batch.key_pair_runs(part, key_cap, steps)
        for part in shuffled(listings(books), ["table", "key"], 3)
    ]
    runs = pa.Table.from_batches(runs)
    found = [batch.candidates_of_runs(part) for part in shuffled(runs, ["target"], 3)]
    return pa.Table.from_batches(found).sort_by([("a", "ascending"), ("b", "ascending")])


def run_steps(lines: list[str]) -> tuple[pa.Table, pa.Table]:
    books = features(lines).combine_chunks()
    parts = pc.sum(pc.list_value_length(books["part_lengths"])).as_py()
    key_cap, sample_cap = batch.caps(books.num_rows, parts)
    both = candidates(books, key_cap, sample_cap, steps=5)
    candidate_columns = {"from_keys": both["from_keys"], "sampled": both["sampled"]}
    names = ["a_id", "b_id", "a", "b", "a_language", "b_language"]
    chosen = {}
    for side in "ab":
        rows = pc.index_in(both[side], value_set=books["id"])
        chosen[f"{side}_id"] = both[side]
        chosen[side] = books["key"].take(rows)
        chosen[f"{side}_language"] = books["language"].take(rows)
        for column in ("part_lengths", "hashes", "positions"):
            candidate_columns[f"{side}_{column}"] = books[column].take(rows)
    table = pa.table(candidate_columns).combine_chunks()
    found = batch.verify_pairs(table.to_batches()[0], score="order")
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


def test_features_refuse_options_out_of_range(lines, tmp_path):
    table = pa.table({"id": pa.array(range(len(lines)), pa.int64()), "line": lines})
    defaults = stemmata.Index.create(tmp_path / "default").feature_options
    for field, value in (("max_term_freq", 0), ("alpha_window", 5)):
        options = json.loads(defaults)
        options["extract"][field] = value
        with pytest.raises(stemmata.InvalidInputError, match=f"feature options: {field}"):
            batch.features_of_json_lines(
                table.to_batches()[0], "books.jsonl", options=json.dumps(options)
            )


def test_kernels_refuse_nulls_ids_out_of_range_and_damaged_runs():
    entries = pa.table(
        {
            "word": pa.array([7, 7, 7], pa.int32()),
            "book": pa.array([1, 2, None], pa.int64()),
            "part": pa.array([0, 0, 0], pa.int32()),
            "index": pa.array([3, 4, 5], pa.int32()),
        }
    )
    with pytest.raises(ValueError, match="null"):
        batch.sample_match_runs(entries, 256, 4)
    negative = entries.set_column(1, "book", pa.array([1, 2, -3], pa.int64()))
    with pytest.raises(stemmata.InvalidInputError, match="out of range"):
        batch.sample_match_runs(negative, 256, 4)
    three = entries.set_column(1, "book", pa.array([1, 2, 3], pa.int64()))
    runs = batch.sample_match_runs(three, 256, 1)
    assert runs["target"].to_pylist() == [0] and runs["kind"].to_pylist() == [1]
    # Over the cap, the word matches nothing.
    assert batch.sample_match_runs(three, 2, 1).num_rows == 0
    damaged = runs.set_column(2, "run", pa.array([runs["run"][0].as_py()[:-1]], pa.binary()))
    with pytest.raises(stemmata.InvalidInputError, match="row 0: run: row 2 is cut short"):
        batch.candidates_of_runs(damaged)
    with pytest.raises(stemmata.InvalidInputError, match="targets 0"):
        batch.sample_match_runs(three, 256, 0)


def test_runs_past_spark_binary_are_cut_into_batches_it_holds():
    from stemmata.spark import binary_batches

    runs = pa.record_batch(
        [
            pa.array([0, 1, 2, 3], pa.int32()),
            pa.array([1, 1, 1, 1], pa.int32()),
            pa.array([b"a" * 6, b"b" * 5, b"c" * 9, b"d"], pa.large_binary()),
        ],
        names=["target", "kind", "run"],
    )
    parts = list(binary_batches(runs, most=10))
    assert [p.column("run").to_pylist() for p in parts] == [
        [b"a" * 6],
        [b"b" * 5],
        [b"c" * 9, b"d"],
    ]
    assert all(p.schema.field("run").type == pa.binary() for p in parts)
    assert pa.Table.from_batches(parts).column("target").to_pylist() == [0, 1, 2, 3]
    small = runs.set_column(2, "run", runs.column(2).cast(pa.binary()))
    assert list(binary_batches(small)) == [small]


@pytest.fixture(scope="module")
def spark():
    """A local Spark session whose workers run this Python (which has the
    package)."""
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    saved = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    yield session
    session.stop()
    if saved is None:
        del os.environ["PYSPARK_PYTHON"]
    else:
        os.environ["PYSPARK_PYTHON"] = saved


def job_output(out) -> tuple[pa.Table, pa.Table]:
    """The pairs (without ids) and clusters a run of the job wrote."""
    pairs = pq.read_table(out / "pairs").drop_columns(["a_id", "b_id"])
    return pairs, pq.read_table(out / "clusters")


def assert_same_output(out, want: tuple[pa.Table, pa.Table]) -> None:
    pairs, clusters = job_output(out)
    want_pairs, want_clusters = want
    assert pairs.select(want_pairs.schema.names).cast(want_pairs.schema).equals(want_pairs)
    assert clusters.equals(want_clusters)


def test_the_spark_job_gives_the_pairs_and_clusters_of_an_index(spark, lines, expected, tmp_path):
    from stemmata import spark as job

    path = tmp_path / "books.jsonl"
    path.write_text("\n".join(lines) + "\n")
    summary = job.run(spark, str(path), str(tmp_path / "out"), tsv=True)
    want_pairs, _ = expected
    assert summary.refused == 1 and summary.pairs == want_pairs.num_rows
    assert_same_output(tmp_path / "out", expected)
    tsv = (tmp_path / "out" / "pairs.tsv").read_text().splitlines()
    assert len(tsv) == want_pairs.num_rows + 1


def test_the_spark_job_reads_files_in_name_order_with_an_index_options_and_resumes(
    spark, lines, tmp_path
):
    """Lines in three files whose names order them, features with
    non-default options (shorter parts, words up to twice a book), a run
    resumed from its features, and the same documents as Parquet: each the
    pairs and clusters of an index of those options loaded from the lines in
    that order."""
    from stemmata import spark as job

    options = json.loads(stemmata.Index.create(tmp_path / "default").feature_options)
    options["parts"] = {"volume_words": 6000, "part_words": 2000}
    options["extract"]["max_term_freq"] = 2
    options = json.dumps(options)
    index = stemmata.Index.create(tmp_path / "index", options=options)
    assert json.loads(index.feature_options) == json.loads(options)
    whole = tmp_path / "whole.jsonl"
    whole.write_text("\n".join(lines) + "\n")
    index.load_jsonl(whole)
    want = index.reader().pairs(mode="approximate", clusters=True)
    index.close()
    assert any(p > 0 for p in want[0]["a_part"].to_pylist()), "no book was cut into parts"

    books = tmp_path / "books"
    books.mkdir()
    thirds = [lines[:20], lines[20:45], lines[45:]]
    for name, part in zip(
        ["b-2.jsonl", "a-1.jsonl", "c-3.jsonl"], [thirds[1], thirds[0], thirds[2]]
    ):
        (books / name).write_text("\n".join(part) + "\n")
    out = tmp_path / "out"
    first = job.run(spark, str(books / "*.jsonl"), str(out), options=options, partitions=3)
    assert not first.resumed and first.refused == 1
    # The refused line is named by its file and its line there.
    assert first.refusals == [
        f"{books / 'a-1.jsonl'}:10: invalid JSON: key must be a string at line 1 column 2"
    ]
    assert_same_output(out, want)

    again = job.run(spark, [str(books / "*.jsonl")], str(out), options=options, resume=True)
    assert again.resumed and again.refused == 1 and again.pairs == first.pairs
    assert_same_output(out, want)
    # Other options: the features are made again.
    other = job.run(spark, str(books / "*.jsonl"), str(out), resume=True)
    assert not other.resumed

    with pytest.raises(stemmata.InvalidInputError, match="feature options"):
        job.run(spark, str(books), str(tmp_path / "bad"), options='{"parts": 1}')
    assert not (tmp_path / "bad").exists()

    documents = [json.loads(line) for line in lines if line.startswith('{"')]
    table = pa.Table.from_pylist(documents)
    parquet = tmp_path / "parquet"
    parquet.mkdir()
    pq.write_table(table.slice(30), parquet / "part-2.parquet")
    pq.write_table(table.slice(0, 30), parquet / "part-1.parquet")
    index = stemmata.Index.create(tmp_path / "documents", options=options)
    index.load(documents)
    want = index.reader().pairs(mode="approximate", clusters=True)
    index.close()
    from_parquet = job.run(
        spark, str(parquet), str(tmp_path / "out-parquet"), format="parquet", options=options
    )
    assert from_parquet.refused == 0 and from_parquet.books == len({d["key"] for d in documents})
    assert_same_output(tmp_path / "out-parquet", want)
