"""The all-pairs job on Apache Spark: ``stemmata pairs --mode approximate
--clusters`` over collections past one machine.

The job runs the steps of :mod:`stemmata.batch` with Spark's shuffles
between them, each kernel on whole Arrow batches in ``mapInArrow``:

1. features of each book, from JSON Lines or Parquet documents (files,
   directories or globs; see :func:`read_documents` for the ids), or from
   features written earlier (``--format features``, or ``--resume``);
2. candidate pairs, in two shuffles: the band keys' listings by key and
   the sampled unique words' listings by word, each partition's pairs and
   matches packed into row runs per pair of books; then the runs by the
   step their pair goes to, which gives each pair of books its candidate
   parts. What crosses the network is the listings (one row per key or
   sampled word of a book) and a few bytes per match in a few values per
   step, never one row per match;
3. each candidate pair joined with both books' parts and verified;
4. the connected components of the pairs, by label propagation over the
   pairs in Spark: the driver holds nothing that grows with the pairs.

Its answers are those of ``stemmata pairs --mode approximate --clusters``
on an index loaded from the same documents, in the same order, with the
same options: the same pairs and the same clusters. It writes to the
output directory:

- ``features/``: the books' features (Parquet, by id; ``stemmata import``
  loads them into an index with the same options);
- ``features.manifest/``: what the features were made from and with (one
  line of JSON: the inputs, the format, the options, the documents
  refused), which ``--resume`` checks before it reuses them;
- ``pairs/``: the pairs (Parquet, by the first book's id, then the
  second's), columns of ``docs/batch-format.md`` plus ``a_id``, ``b_id``;
- ``clusters/``: the clusters (Parquet, by cluster, then key);
- with ``tsv=True``, ``pairs.tsv`` and ``clusters.tsv`` as ``stemmata
  pairs`` writes them (streamed through the driver a partition at a time).

Run it with ``spark-submit`` (``python -m stemmata.spark --help`` tells
how), or call :func:`run` from a notebook holding a ``SparkSession``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.compute as pc  # type: ignore[import-untyped]

from stemmata import batch

#: Rows of each Arrow batch handed to a kernel that reads or verifies
#: books: a batch holds every unique word of its books, so batches stay
#: small.
DEFAULT_BATCH_ROWS = 128
#: Rows of each Arrow batch of listings (a key or a sampled word of a
#: book) handed to the candidate kernels.
CANDIDATE_BATCH_ROWS = 8192
#: The input formats: documents as JSON Lines or Parquet, or features.
FORMATS = ("jsonl", "parquet", "features")

_LIST_TYPES = {pa.int32(): "int", pa.int64(): "long"}


def _spark_type(kind: Any) -> str:
    if pa.types.is_list(kind):
        return f"array<{_LIST_TYPES[kind.value_type]}>"
    return {pa.int32(): "int", pa.int64(): "long", pa.string(): "string"}[kind]


FEATURES_DDL = ", ".join(f"`{f.name}` {_spark_type(f.type)}" for f in batch.FEATURES_SCHEMA)
"""The features layout as a Spark schema."""

PAIRS_DDL = (
    "a_id long, b_id long, a string, b string, a_language string, b_language string, "
    "score double, " + ", ".join(f"{name} long" for name in batch.MATCH_COLUMNS)
)
"""The pairs the job writes, as a Spark schema."""

RUNS_DDL = "target int, kind int, run binary"
"""Row runs addressed to the step of their pairs of books."""

CANDIDATES_DDL = (
    "a_id long, b_id long, from_keys boolean, sampled array<struct<part_a:int,part_b:int>>"
)
"""Candidate pairs of books, as verification takes them."""


@dataclass
class Summary:
    """What a run did: books read and refused, pairs and clusters found."""

    books: int
    refused: int
    refusals: list[str]
    parts: int
    key_cap: int
    sample_cap: int
    pairs: int
    clusters: int
    seconds: dict[str, float]
    """Seconds of each step: ``features`` (extracted, written, read back
    and counted; reused ones read and counted), ``candidates``,
    ``verification`` (pairs written), ``clusters`` (found and written)."""
    resumed: bool = False
    """Whether the features were those of an earlier run."""
    rounds: int = 0
    """Rounds of label propagation the clusters took."""


def _numbered(spark: Any, frame: Any) -> Any:
    """``frame`` (rows of files read by Spark, each file's rows in order
    within each of its splits) with ``id``, ``source`` and ``line_number``:
    a row's place in its file from 0, and its place in the whole input,
    files taken in the order of their names (byte order of their URIs)
    and each file's rows in order. Spark reads a file in splits, each in
    one partition and in order: a row's place is its split's first place
    plus its rank within the split, from per-split counts that the driver
    adds up (one row per split, never per row). ``source`` names a local
    file by its path."""
    from pyspark.sql import functions as F

    read = frame.select(
        "*",
        F.input_file_name().alias("source"),
        F.input_file_block_start().alias("split"),
        F.monotonically_increasing_id().alias("place"),
    )
    splits = (
        read.groupBy("source", "split")
        .agg(F.min("place").alias("first"), F.count("*").alias("rows"))
        .collect()
    )
    rows = []
    before, line_base, last_source = 0, 0, None
    for split in sorted(splits, key=lambda s: (s["source"].encode(), s["split"])):
        if split["source"] != last_source:
            line_base, last_source = 0, split["source"]
        rows.append((split["source"], split["split"], split["first"], before, line_base))
        before += split["rows"]
        line_base += split["rows"]
    bases = spark.createDataFrame(
        rows, "source string, split long, first long, id_base long, line_base long"
    )
    rank = F.col("place") - F.col("first")
    return read.join(F.broadcast(bases), ["source", "split"]).select(
        *(c for c in frame.columns),
        (F.col("id_base") + rank).alias("id"),
        F.regexp_replace("source", "^file://", "").alias("source"),
        (F.col("line_base") + rank).alias("line_number"),
    )


def read_documents(
    spark: Any,
    paths: list[str],
    *,
    format: str = "jsonl",
    options: str | None = None,
    partitions: int | None = None,
) -> Any:
    """The features of the documents in ``paths`` (files, directories or
    globs; ``format`` ``jsonl`` or ``parquet``), as a DataFrame of the
    features layout plus ``error`` (why a document was refused, else
    empty). A book's ``id`` is its document's place in the whole input:
    files in the order of their names, each file's lines (JSON Lines) or
    rows (Parquet) in order, from 0; a blank line takes a place and gives
    no row. Parquet documents have the columns of
    :data:`stemmata.batch.DOCUMENT_COLUMNS`. ``options``: the JSON of the
    feature options (``docs/batch-format.md``; the defaults when ``None``).
    ``partitions``: spread the documents over this many partitions before
    extracting (a shuffle of their text), rather than Spark's file splits.
    """
    if format == "jsonl":
        frame = spark.read.text(paths).withColumnRenamed("value", "line")

        def extract(batches: Iterator[Any]) -> Iterator[Any]:
            for lines in batches:
                yield batch.features_of_json_lines(lines, "", options=options)

    elif format == "parquet":
        frame = spark.read.parquet(*paths)
        present = [c for c in batch.DOCUMENT_COLUMNS if c in frame.columns]
        missing = {"key", "text"} - set(present)
        if missing:
            raise ValueError(f"documents in {paths} have no column {min(missing)!r}")
        frame = frame.select(*present)

        def extract(batches: Iterator[Any]) -> Iterator[Any]:
            for documents in batches:
                yield batch.features_of_documents(
                    documents.rename_columns(
                        ["row_number" if n == "line_number" else n for n in documents.schema.names]
                    ),
                    options=options,
                )

    else:
        raise ValueError(f"format {format!r}: expected jsonl or parquet")
    numbered = _numbered(spark, frame)
    if partitions:
        numbered = numbered.repartition(partitions)
    return numbered.mapInArrow(extract, FEATURES_DDL + ", error string")


def features_from_parquet(spark: Any, path: str | list[str]) -> Any:
    """Features written by the job or by ``stemmata export`` (a path,
    directory or glob, or a list of them)."""
    paths = [path] if isinstance(path, str) else path
    return spark.read.parquet(*paths).select(*(f"`{f.name}`" for f in batch.FEATURES_SCHEMA))


def _latest_by_key(good: Any) -> Any:
    """``good`` without the documents a later one with the same key
    replaces (as a load keeps the later), without moving the features:
    only keys and ids are grouped, and the few replaced ids are sent to
    every partition."""
    from pyspark.sql import functions as F

    keys = good.select("key", "id")
    repeated = (
        keys.groupBy("key").agg(F.max("id").alias("latest"), F.count("*").alias("documents"))
    ).filter(F.col("documents") > 1)
    replaced = keys.join(repeated, "key").filter(F.col("id") < F.col("latest")).select("id")
    return good.join(F.broadcast(replaced), "id", "left_anti")


def _listings(books: Any) -> Any:
    """One row per band key of a book: ``table``, ``key``, ``id`` and the
    book's simhash, which the simhash table's rule reads."""
    from pyspark.sql import functions as F

    listed = [
        books.select(
            F.lit(table).alias("table"),
            F.explode(column).alias("key"),
            "id",
            "simhash_low",
            "simhash_high",
        )
        for table, column in enumerate(batch.KEY_COLUMNS)
    ]
    listings = listed[0]
    for more in listed[1:]:
        listings = listings.unionByName(more)
    return listings


def binary_batches(runs: Any, most: int = 1 << 30) -> Iterator[Any]:
    """``runs`` (a batch whose ``run`` column is ``binary`` or, past 2 GiB
    of runs, ``large_binary``) as batches of ``binary`` runs of at most
    ``most`` bytes each (a run longer than that alone), in order: the type
    Spark's ``binary`` columns take."""
    column = runs.column("run")
    if pa.types.is_binary(column.type) and (column.nbytes <= most or runs.num_rows <= 1):
        yield runs
        return
    lengths = pc.binary_length(column).to_pylist()
    start, size = 0, 0
    for row, length in enumerate(lengths):
        if row > start and size + length > most:
            yield _as_binary(runs.slice(start, row - start))
            start, size = row, 0
        size += length
    if start < runs.num_rows:
        yield _as_binary(runs.slice(start))


def _as_binary(runs: Any) -> Any:
    """``runs`` with its ``run`` column as ``binary``."""
    at = runs.schema.get_field_index("run")
    return runs.set_column(at, "run", runs.column(at).cast(pa.binary()))


def _whole_partition(batches: Iterator[Any]) -> Any | None:
    """The rows of every batch of a partition as one table, or ``None``."""
    rows = [b for b in batches if b.num_rows]
    return pa.Table.from_batches(rows).combine_chunks() if rows else None


def _step_keys(spark: Any, steps: int) -> pa.Array:
    """For each step s of ``steps``, an ``int32`` that Spark's hash
    partitioning over ``steps`` partitions sends to partition s: runs
    keyed by them and shuffled by key reach one partition per step, no two
    steps sharing one (Spark hashes as its own ``hash`` function does)."""
    from pyspark.sql import functions as F

    found: dict[int, int] = {}
    tried = 0
    while len(found) < steps:
        probe = spark.range(tried, tried + steps * 64).select(F.col("id").cast("int").alias("key"))
        probe = probe.select("key", F.pmod(F.hash("key"), F.lit(steps)).alias("partition"))
        for row in probe.groupBy("partition").agg(F.min("key").alias("key")).collect():
            found.setdefault(row["partition"], row["key"])
        tried += steps * 64
    return pa.array([found[s] for s in range(steps)], pa.int32())


def candidate_pairs(
    books: Any,
    key_cap: int,
    sample_cap: int,
    *,
    steps: int,
    options: str | None = None,
) -> Any:
    """The pairs of books to verify: ``a_id``, ``b_id``, ``from_keys``
    (the key tables propose it) and ``sampled`` (the pairs of parts the
    word sample proposes): the listings shuffled into ``steps`` partitions
    by word and by key, their runs into ``steps`` steps by pair of books."""

    def entries_of(batches: Iterator[Any]) -> Iterator[Any]:
        for books_batch in batches:
            yield batch.sample_entries(books_batch)

    keys = _step_keys(books.sparkSession, steps)

    def keyed(runs: Any) -> Iterator[Any]:
        """Runs with their step's key as ``target``, in batches whose runs
        Spark's ``binary`` holds."""
        for part in binary_batches(runs):
            yield part.set_column(0, "target", keys.take(part.column("target")))

    def match_runs(batches: Iterator[Any]) -> Iterator[Any]:
        entries = _whole_partition(batches)
        if entries is not None:
            yield from keyed(batch.sample_match_runs(entries, sample_cap, steps))

    def key_runs(batches: Iterator[Any]) -> Iterator[Any]:
        listings = _whole_partition(batches)
        if listings is not None:
            yield from keyed(batch.key_pair_runs(listings, key_cap, steps, options=options))

    def candidates_of(batches: Iterator[Any]) -> Iterator[Any]:
        runs = _whole_partition(batches)
        if runs is not None:
            found = batch.candidates_of_runs(runs, options=options)
            yield found.rename_columns(["a_id", "b_id", "from_keys", "sampled"])

    entries = books.select("id", "part_lengths", "hashes").mapInArrow(
        entries_of, "word int, book long, part int, index int"
    )
    # Explicit partition counts: adaptive execution leaves them whole, so
    # the kernels' work spreads over every core.
    matches = entries.repartition(steps, "word").mapInArrow(match_runs, RUNS_DDL)
    key_pairs = _listings(books).repartition(steps, "table", "key").mapInArrow(key_runs, RUNS_DDL)
    runs = matches.unionByName(key_pairs).repartition(steps, "target")
    return runs.mapInArrow(candidates_of, CANDIDATES_DDL)


def _verified(books: Any, candidates: Any, score: str, min_score: float | None) -> Any:
    """The candidate pairs that verify, in the job's pairs layout."""
    from pyspark.sql import functions as F

    for side in ("a", "b"):
        candidates = candidates.join(
            books.select(
                F.col("id").alias(f"{side}_id"),
                F.col("key").alias(side),
                F.col("language").alias(f"{side}_language"),
                *(F.col(c).alias(f"{side}_{c}") for c in ("part_lengths", "hashes", "positions")),
            ),
            f"{side}_id",
        )
    names = ["a_id", "b_id", "a", "b", "a_language", "b_language"]

    def verify(batches: Iterator[Any]) -> Iterator[Any]:
        for candidates_batch in batches:
            found = batch.verify_pairs(candidates_batch, score=score, min_score=min_score)
            chosen = candidates_batch.select(names).take(found.column("row"))
            columns = chosen.columns + found.columns[1:]
            yield pa.record_batch(columns, names=names + found.schema.names[1:])

    return candidates.mapInArrow(verify, PAIRS_DDL)


def default_steps(spark: Any) -> int:
    """The steps the candidates are found in unless told: Spark's shuffle
    partitions, and at least two per core of the default parallelism."""
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    return max(partitions, 2 * spark.sparkContext.defaultParallelism)


def collection_caps(books: Any) -> tuple[int, int, int]:
    """The parts of ``books`` in all and the caps they give: (parts, key
    cap, sample cap)."""
    count, parts = _collection_counts(books)
    key_cap, sample_cap = batch.caps(count, parts)
    return parts, key_cap, sample_cap


def _collection_counts(books: Any) -> tuple[int, int]:
    """The books of ``books`` and their parts in all, in one pass."""
    from pyspark.sql import functions as F

    counted = books.agg(F.count("*"), F.sum(F.size("part_lengths"))).first()
    return int(counted[0]), int(counted[1] or 0)


def all_pairs(
    books: Any,
    *,
    score: str = "order",
    min_score: float | None = None,
    options: str | None = None,
) -> Any:
    """The related pairs of ``books`` (features, one row per book, ids
    unique): a DataFrame of the pairs layout with ``a_id`` and ``b_id``."""
    _, key_cap, sample_cap = collection_caps(books)
    steps = default_steps(books.sparkSession)
    candidates = candidate_pairs(books, key_cap, sample_cap, steps=steps, options=options)
    return _verified(books, candidates, score, min_score)


def connected_components(pairs: Any) -> tuple[Any, int]:
    """The component of each book of ``pairs`` (``a_id``, ``b_id``): a
    DataFrame of ``id`` and ``label``, the least id of its component, and
    the rounds it took. Each round gives every book the least label among
    its own and its neighbours', then the label of that label (pointer
    jumping, so a chain of n books takes about log n rounds), until no
    label changes; each round's labels are checkpointed on the executors,
    and the driver keeps only counts."""
    from pyspark.sql import functions as F

    edges = pairs.select(F.col("a_id").alias("src"), F.col("b_id").alias("dst"))
    edges = edges.unionByName(edges.select(F.col("dst").alias("src"), F.col("src").alias("dst")))
    edges = edges.localCheckpoint()
    labels = edges.select(F.col("src").alias("id")).distinct()
    labels = labels.select("id", F.col("id").alias("label")).localCheckpoint()
    rounds = 0
    while True:
        rounds += 1
        labels = labels.select("id", "label")
        offered = edges.join(labels.withColumnRenamed("id", "src"), "src").select(
            F.col("dst").alias("id"), "label"
        )
        least = offered.unionByName(labels).groupBy("id").agg(F.min("label").alias("label"))
        jumped = least.alias("x").join(least.alias("y"), F.col("x.label") == F.col("y.id"))
        jumped = jumped.select(F.col("x.id").alias("id"), F.col("y.label").alias("label"))
        # Whether a label moved is decided in the round's own job: the
        # check after it reads the checkpoint alone.
        moved = jumped.join(labels.withColumnRenamed("label", "was"), "id")
        moved = moved.withColumn("moved", F.col("label") != F.col("was")).drop("was")
        labels = moved.localCheckpoint()
        if labels.filter("moved").limit(1).count() == 0:
            return labels.select("id", "label"), rounds


def clusters_of_pairs(pairs: Any) -> tuple[Any, int]:
    """The clusters of ``pairs`` (``a_id``, ``b_id``, ``a``, ``b``) as
    ``stemmata pairs --clusters`` numbers them: a DataFrame of
    ``cluster`` (from 1, largest first, ties by least key), ``size`` and
    ``key``, sorted by cluster then key; and the rounds the components
    took."""
    from pyspark.sql import functions as F

    labels, rounds = connected_components(pairs)
    keys = (
        pairs.select(F.col("a_id").alias("id"), F.col("a").alias("key"))
        .unionByName(pairs.select(F.col("b_id").alias("id"), F.col("b").alias("key")))
        .distinct()
    )
    members = labels.join(keys, "id")
    sized = members.groupBy("label").agg(
        F.count("*").alias("size"), F.min(F.col("key").cast("binary")).alias("first")
    )
    # Numbered in a distributed sort: a partition's clusters count on from
    # the clusters of the partitions before it.
    ordered = sized.orderBy(F.col("size").desc(), F.col("first").asc())
    numbered = ordered.rdd.zipWithIndex().map(lambda r: (r[0]["label"], r[1] + 1, r[0]["size"]))
    numbers = pairs.sparkSession.createDataFrame(numbered, "label long, cluster long, size long")
    clusters = members.join(numbers, "label").select("cluster", "size", "key")
    return clusters.orderBy("cluster", F.col("key").cast("binary")), rounds


@dataclass
class _Features:
    """The books of a run and what reading them found."""

    books: Any
    refused: int
    refusals: list[str]
    resumed: bool


def _manifest(paths: list[str], format: str, options: str | None) -> dict[str, Any]:
    """What the features of a run are made from and with."""
    return {
        "inputs": list(paths),
        "format": format,
        "options": json.loads(options) if options else None,
    }


def _delete(spark: Any, path: str) -> None:
    """Deletes ``path`` (a file or a directory, on whatever file system
    Spark writes to), if it is there."""
    jvm = spark.sparkContext._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(path)
    hadoop_path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(
        hadoop_path, True
    )


def _read_manifest(spark: Any, path: str) -> dict[str, Any] | None:
    """The manifest at ``path``, or ``None`` when there is none."""
    try:
        rows = spark.read.text(path).collect()
    except Exception:  # noqa: BLE001 - a missing file, whatever the file system says
        return None
    try:
        return json.loads("".join(row.value for row in rows))
    except ValueError:
        return None


def _features(
    spark: Any,
    paths: list[str],
    output: str,
    *,
    format: str,
    options: str | None,
    partitions: int | None,
    resume: bool,
) -> _Features:
    """The books of a run: features read from ``paths`` (``format``
    ``features``), reused from ``output`` (``resume`` and a manifest that
    matches), or extracted from documents and written there."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    if format == "features":
        books = features_from_parquet(spark, paths)
        return _Features(books, 0, [], False)
    features_path, manifest_path = f"{output}/features", f"{output}/features.manifest"
    wanted = _manifest(paths, format, options)
    if resume:
        found = _read_manifest(spark, manifest_path)
        if found is not None and {k: found.get(k) for k in wanted} == wanted:
            books = features_from_parquet(spark, features_path)
            return _Features(books, found["refused"], found["refusals"], True)
    # A manifest vouches for the features beside it only once they are whole.
    _delete(spark, manifest_path)
    extracted = read_documents(
        spark, paths, format=format, options=options, partitions=partitions
    ).persist(StorageLevel.MEMORY_AND_DISK)
    bad = extracted.filter(F.col("error") != "")
    refused = bad.count()
    refusals = [row.error for row in bad.orderBy("id").select("error").limit(10).collect()]
    good = _latest_by_key(extracted.filter(F.col("error") == "").drop("error"))
    # By id across files too: `stemmata import` loads files by name.
    good.orderBy("id").select(*(f"`{f.name}`" for f in batch.FEATURES_SCHEMA)).write.mode(
        "overwrite"
    ).option("compression", "zstd").parquet(features_path)
    extracted.unpersist()
    manifest = {**wanted, "refused": refused, "refusals": refusals}
    spark.createDataFrame([(json.dumps(manifest),)], "value string").coalesce(1).write.mode(
        "overwrite"
    ).text(manifest_path)
    return _Features(features_from_parquet(spark, features_path), refused, refusals, False)


def run(
    spark: Any,
    source: str | list[str],
    output: str,
    *,
    format: str = "jsonl",
    options: str | None = None,
    resume: bool = False,
    score: str = "order",
    min_score: float | None = None,
    tsv: bool = False,
    partitions: int | None = None,
    steps: int | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> Summary:
    """Runs the job: books from ``source`` (a path, directory or glob, or a
    list of them; ``format`` ``jsonl``, ``parquet`` or ``features``),
    results into the directory ``output`` (see the module's
    documentation). ``options``: the JSON of the feature options
    (``Index.feature_options`` of the index the books go with; the defaults
    when ``None``). ``resume``: reuse the features an earlier run with the
    same inputs and options wrote to ``output``. ``steps``: the steps the
    candidate pairs are found in (default: :func:`default_steps`).
    ``partitions``: as :func:`read_documents` takes it. The
    input's files are read in splits of at least four per core of the
    default parallelism (``spark.sql.files.minPartitionNum`` for the run)."""
    from pyspark import StorageLevel

    if format not in FORMATS:
        raise ValueError(f"format {format!r}: expected one of {', '.join(FORMATS)}")
    if options is not None:
        # Refused here, on the driver, rather than in every task.
        batch.features_of_json_lines(
            pa.record_batch([pa.array([], pa.int64()), pa.array([], pa.string())], ["id", "line"]),
            "",
            options=options,
        )
    paths = [source] if isinstance(source, str) else list(source)
    splits = 4 * spark.sparkContext.defaultParallelism
    batch_rows_key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    with _settings(spark, "spark.sql.files.minPartitionNum", batch_rows_key):
        spark.conf.set("spark.sql.files.minPartitionNum", str(splits))
        spark.conf.set(batch_rows_key, str(batch_rows))
        seconds: dict[str, float] = {}
        started = time.monotonic()

        def lap(step: str) -> None:
            seconds[step] = time.monotonic() - started - sum(seconds.values())

        read = _features(
            spark,
            paths,
            output,
            format=format,
            options=options,
            partitions=partitions,
            resume=resume,
        )
        books = read.books.persist(StorageLevel.MEMORY_AND_DISK)
        count, parts = _collection_counts(books)
        key_cap, sample_cap = batch.caps(count, parts)
        lap("features")
        # Candidates come from many small rows (listings): large batches;
        # verification carries both books' parts: small ones.
        spark.conf.set(batch_rows_key, str(CANDIDATE_BATCH_ROWS))
        steps = steps or default_steps(spark)
        candidates = candidate_pairs(books, key_cap, sample_cap, steps=steps, options=options)
        candidates = candidates.persist(StorageLevel.MEMORY_AND_DISK)
        candidates.count()
        lap("candidates")
        spark.conf.set(batch_rows_key, str(batch_rows))
        pairs = _verified(books, candidates, score, min_score).persist(StorageLevel.MEMORY_AND_DISK)
        pairs.orderBy("a_id", "b_id").write.mode("overwrite").option("compression", "zstd").parquet(
            f"{output}/pairs"
        )
        found = pairs.count()
        lap("verification")
        clusters, rounds = clusters_of_pairs(pairs.select("a_id", "b_id", "a", "b"))
        clusters = clusters.persist(StorageLevel.MEMORY_AND_DISK)
        clusters.write.mode("overwrite").option("compression", "zstd").parquet(f"{output}/clusters")
        cluster_count = clusters.select("cluster").distinct().count()
        lap("clusters")
        if tsv:
            _write_pairs_tsv(pairs.orderBy("a_id", "b_id"), f"{output}/pairs.tsv")
            _write_clusters_tsv(clusters, f"{output}/clusters.tsv")
        summary = Summary(
            books=count,
            refused=read.refused,
            refusals=read.refusals,
            parts=parts,
            key_cap=key_cap,
            sample_cap=sample_cap,
            pairs=found,
            clusters=cluster_count,
            seconds=seconds,
            resumed=read.resumed,
            rounds=rounds,
        )
        for frame in (clusters, pairs, candidates, books):
            frame.unpersist()
        return summary


@contextmanager
def _settings(spark: Any, *keys: str) -> Iterator[None]:
    """Puts the session's settings ``keys`` back as they were when the
    block ends, however it ends."""
    saved = {key: spark.conf.get(key, None) for key in keys}
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def _tsv_field(field: str) -> str:
    """``field`` escaped as ``stemmata`` escapes TSV fields."""
    if "\\" not in field and not any(_is_control(c) for c in field):
        return field
    out = []
    for c in field:
        if c == "\\":
            out.append("\\\\")
        elif c == "\t":
            out.append("\\t")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif _is_control(c):
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    return "".join(out)


def _is_control(c: str) -> bool:
    code = ord(c)
    return code < 0x20 or 0x7F <= code <= 0x9F


def _write_pairs_tsv(pairs: Any, path: str) -> None:
    """The pairs (a DataFrame, in order) as ``stemmata pairs`` writes them,
    streamed through the driver a partition at a time."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(
            "a\tb\tscore\tlcs\tcommon\ta_unique\tb_unique\ta_part\ta_words\tb_part\tb_words\n"
        )
        out.writelines(
            f"{_tsv_field(row['a'])}\t{_tsv_field(row['b'])}\t{row['score']:.6f}\t"
            f"{row['lcs']}\t{row['common']}\t{row['a_unique']}\t{row['b_unique']}\t"
            f"{row['a_part']}\t{row['a_words_start']}-{row['a_words_end']}\t"
            f"{row['b_part']}\t{row['b_words_start']}-{row['b_words_end']}\n"
            for row in pairs.toLocalIterator()
        )


def _write_clusters_tsv(clusters: Any, path: str) -> None:
    """The clusters (a DataFrame, in order) as ``stemmata pairs --clusters``
    writes them, streamed as the pairs are."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write("cluster\tsize\tkey\n")
        out.writelines(
            f"{row['cluster']}\t{row['size']}\t{_tsv_field(row['key'])}\n"
            for row in clusters.toLocalIterator()
        )


def main(argv: list[str] | None = None) -> int:
    """The ``spark-submit`` entry point."""
    parser = argparse.ArgumentParser(
        prog="stemmata.spark",
        description=(
            "Every related pair of books and their clusters, on Spark: the job of "
            "`stemmata pairs --mode approximate --clusters` over documents in JSON Lines "
            "(as `stemmata load` reads them) or Parquet files, or over features in Parquet "
            "(`stemmata export`, or an earlier run's features/). A book's id is its "
            "document's place in the input: files by name, then lines or rows in order. "
            "Submit with spark-submit --master URL \"$(python -c 'import stemmata.spark "
            "as s; print(s.__file__)')\" INPUT... OUTPUT; the workers need the stemmata "
            "wheel installed in their Python (PYSPARK_PYTHON)."
        ),
    )
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="files, directories or globs of documents (or of features, with --format features)",
    )
    parser.add_argument(
        "output", help="the output directory: features/, features.manifest/, pairs/, clusters/"
    )
    parser.add_argument(
        "--format",
        default="jsonl",
        choices=FORMATS,
        help=(
            "what INPUT holds: jsonl (JSON Lines documents, the default), parquet (documents "
            "with columns key, text and optionally title, author, language) or features"
        ),
    )
    parser.add_argument(
        "--options-from",
        metavar="INDEX",
        help=(
            "compute features with the options of this index (its hash seed, part sizes and "
            "so on), so that they go into it and compare with its books [default: the "
            "default options]"
        ),
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help=(
            "reuse the features an earlier run with the same inputs and options wrote to "
            "OUTPUT (features/ and features.manifest/), and extract them only when there are none"
        ),
    )
    parser.add_argument(
        "--score",
        default="order",
        choices=["order", "coverage", "its", "cs", "containment"],
        help="the score pairs are ranked and kept by (default: order)",
    )
    parser.add_argument(
        "--min-score", type=float, help="least score of a pair [default: the score's threshold]"
    )
    parser.add_argument(
        "--tsv",
        action="store_true",
        help="also write pairs.tsv and clusters.tsv as `stemmata pairs` does",
    )
    parser.add_argument(
        "--partitions",
        type=int,
        help=(
            "partitions the documents are spread over for extraction, a shuffle of their text "
            "[default: Spark's file splits, at least four per core]"
        ),
    )
    parser.add_argument(
        "--steps",
        type=int,
        help=(
            "steps the candidate pairs are found in (each holds the matches of its pairs of "
            "books, a few bytes each) [default: twice Spark's default parallelism]"
        ),
    )
    parser.add_argument(
        "--batch-rows",
        type=int,
        default=DEFAULT_BATCH_ROWS,
        help=(
            f"rows of each Arrow batch of books handed to a kernel (default: {DEFAULT_BATCH_ROWS})"
        ),
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    options = None
    if args.options_from:
        import stemmata

        with stemmata.Index.open(args.options_from, read_only=True) as index:
            options = index.feature_options

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("stemmata all-pairs").getOrCreate()
    try:
        summary = run(
            spark,
            args.inputs,
            args.output,
            format=args.format,
            options=options,
            resume=args.resume,
            score=args.score,
            min_score=args.min_score,
            tsv=args.tsv,
            partitions=args.partitions,
            steps=args.steps,
            batch_rows=args.batch_rows,
        )
    finally:
        spark.stop()
    if args.json:
        print(json.dumps(summary.__dict__))
    else:
        for refusal in summary.refusals:
            print(f"skipped: {refusal}", file=sys.stderr)
        print(
            f"{summary.pairs} pairs and {summary.clusters} clusters from {summary.books} books "
            f"({summary.refused} refused; {summary.parts} parts; caps: {summary.key_cap} books a key, "
            f"{summary.sample_cap} parts a sampled word; features "
            f"{'reused' if summary.resumed else 'extracted'}; clusters in {summary.rounds} rounds) "
            f"written to {args.output}; seconds: "
            + ", ".join(f"{step} {value:.1f}" for step, value in summary.seconds.items())
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
