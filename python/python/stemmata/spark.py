"""The all-pairs job on Apache Spark: ``stemmata pairs --mode approximate
--clusters`` over collections past one machine.

The job runs the steps of :mod:`stemmata.batch` with Spark's shuffles
between them, each kernel on whole Arrow batches in ``mapInArrow``:

1. features of each book, from a JSON Lines file (each line's place in the
   file is the book's id, so books load in the file's order as with
   ``stemmata load``) or from features exported from an index;
2. candidate pairs: band keys exploded and grouped by (table, key), the
   pairs of each bucket under the key cap counted per (a, b, table) and
   kept by the table's rule; sampled unique words grouped by word, their
   matches grouped by pair of parts and kept when in order;
3. each candidate pair joined with both books' parts and verified;
4. the connected components of the pairs, on the driver.

Its answers are those of ``stemmata pairs --mode approximate --clusters``
on an index loaded from the same file with default options: the same pairs
and the same clusters. It writes to the output directory:

- ``features/``: the books' features (Parquet, by id; ``stemmata import``
  loads them into an index);
- ``pairs/``: the pairs (Parquet, by the first book's id, then the
  second's), columns of ``docs/batch-format.md`` plus ``a_id``, ``b_id``;
- ``clusters.parquet``: the clusters;
- with ``tsv=True``, ``pairs.tsv`` and ``clusters.tsv`` as ``stemmata
  pairs`` writes them.

Run it with ``spark-submit`` (``python -m stemmata.spark --help`` tells
how), or call :func:`run` from a notebook holding a ``SparkSession``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from stemmata import batch

#: Rows of each Arrow batch handed to a kernel that reads or verifies
#: books: a batch holds every unique word of its books, so batches stay
#: small.
DEFAULT_BATCH_ROWS = 128
#: Rows of each Arrow batch handed to the candidate kernels, whose rows are
#: a key, a word or a match.
CANDIDATE_BATCH_ROWS = 8192

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
    and counted), ``candidates``, ``verification`` (pairs written),
    ``clusters``."""


def features_from_json_lines(spark: Any, path: str, *, partitions: int | None = None) -> Any:
    """The features of the documents of the JSON Lines file ``path``, as a
    DataFrame of the features layout plus ``error`` (why a document was
    refused, else empty). Each line's place in the file (from 0) is its
    book's ``id``."""
    from pyspark.sql import functions as F

    text = spark.read.text(path).select(
        F.spark_partition_id().alias("partition"),
        F.monotonically_increasing_id().alias("place"),
        F.col("value").alias("line"),
    )
    # A row's place is its partition's number shifted 33 bits, plus its
    # row in the partition; partitions hold the file's lines in order.
    counts = dict(text.groupBy("partition").count().collect())
    first, start = {}, 0
    for partition in sorted(counts):
        first[partition] = start
        start += counts[partition]
    starts = F.create_map(*(F.lit(x) for kv in first.items() for x in kv)) if first else None
    within = F.col("place") - F.shiftleft(F.col("partition").cast("long"), 33)
    line_id = (starts[F.col("partition")] + within) if starts is not None else within
    lines = text.select(line_id.cast("long").alias("id"), "line")
    lines = lines.repartition(partitions or max(2, spark.sparkContext.defaultParallelism * 2))
    source = path

    def extract(batches: Iterator[Any]) -> Iterator[Any]:
        for lines_batch in batches:
            yield batch.features_of_json_lines(lines_batch, source)

    return lines.mapInArrow(extract, FEATURES_DDL + ", error string")


def features_from_parquet(spark: Any, path: str) -> Any:
    """Features written by the job or by ``stemmata export``."""
    return spark.read.parquet(path).select(*(f"`{f.name}`" for f in batch.FEATURES_SCHEMA))


def _key_pairs(books: Any, key_cap: int) -> Any:
    """(a_id, b_id) of the pairs the key tables propose."""
    from pyspark.sql import functions as F

    listed = [
        books.select(F.lit(table).alias("table"), F.explode(column).alias("key"), F.col("id"))
        for table, column in enumerate(batch.KEY_COLUMNS)
    ]
    keys = listed[0]
    for more in listed[1:]:
        keys = keys.unionByName(more)
    sizes = keys.groupBy("table", "key").count().filter(F.col("count").between(2, key_cap))
    buckets = (
        keys.join(sizes.select("table", "key"), ["table", "key"])
        .groupBy("table", "key")
        .agg(F.collect_list("id").alias("books"))
        .select("table", "books")
    )

    def bucket_pairs(batches: Iterator[Any]) -> Iterator[Any]:
        for buckets_batch in batches:
            found = batch.key_bucket_pairs(buckets_batch.column("books"), key_cap)
            tables = buckets_batch.column("table").take(found.column("bucket"))
            yield pa.record_batch(
                [tables.cast(pa.int32()), found.column("a"), found.column("b")],
                names=["table", "a_id", "b_id"],
            )

    shared = (
        buckets.mapInArrow(bucket_pairs, "table int, a_id long, b_id long")
        .groupBy("a_id", "b_id", "table")
        .agg(F.count("*").alias("shared"))
    )
    for side in ("a", "b"):
        shared = shared.join(
            books.select(
                F.col("id").alias(f"{side}_id"),
                F.col("simhash_low").alias(f"{side}_simhash_low"),
                F.col("simhash_high").alias(f"{side}_simhash_high"),
            ),
            f"{side}_id",
        )

    def kept(batches: Iterator[Any]) -> Iterator[Any]:
        for pairs_batch in batches:
            rows = batch.kept_key_pairs(pairs_batch)
            yield pairs_batch.select(["a_id", "b_id"]).take(rows)

    return shared.mapInArrow(kept, "a_id long, b_id long").distinct()


def _sampled_pairs(books: Any, sample_cap: int) -> Any:
    """(a_id, b_id, sampled): the pairs of parts the word sample proposes,
    grouped by pair of books."""
    from pyspark.sql import functions as F

    def entries_of(batches: Iterator[Any]) -> Iterator[Any]:
        for books_batch in batches:
            yield batch.sample_entries(books_batch)

    entries = books.select("id", "part_lengths", "hashes").mapInArrow(
        entries_of, "word int, book long, part int, index int"
    )
    sizes = entries.groupBy("word").count().filter(F.col("count").between(2, sample_cap))
    buckets = (
        entries.join(sizes.select("word"), "word")
        .groupBy("word")
        .agg(F.collect_list(F.struct("book", "part", "index")).alias("entries"))
        .select("entries")
    )

    def matches_of(batches: Iterator[Any]) -> Iterator[Any]:
        for buckets_batch in batches:
            yield batch.sample_bucket_matches(buckets_batch.column("entries"), sample_cap)

    grouped = (
        buckets.mapInArrow(
            matches_of,
            "a long, b long, part_a int, part_b int, index_a int, index_b int",
        )
        .groupBy("a", "b", "part_a", "part_b")
        .agg(F.collect_list(F.struct("index_a", "index_b")).alias("matches"))
    )

    def ordered(batches: Iterator[Any]) -> Iterator[Any]:
        for grouped_batch in batches:
            rows = batch.in_order(grouped_batch.column("matches"))
            yield grouped_batch.select(["a", "b", "part_a", "part_b"]).take(rows)

    return (
        grouped.mapInArrow(ordered, "a long, b long, part_a int, part_b int")
        .groupBy(F.col("a").alias("a_id"), F.col("b").alias("b_id"))
        .agg(F.collect_list(F.struct("part_a", "part_b")).alias("sampled"))
    )


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


def collection_caps(books: Any) -> tuple[int, int, int]:
    """The parts of ``books`` in all and the caps they give: (parts, key
    cap, sample cap)."""
    from pyspark.sql import functions as F

    counted = books.agg(F.count("*"), F.sum(F.size("part_lengths"))).first()
    count, parts = int(counted[0]), int(counted[1] or 0)
    key_cap, sample_cap = batch.caps(count, parts)
    return parts, key_cap, sample_cap


def candidate_pairs(books: Any, key_cap: int, sample_cap: int) -> Any:
    """The pairs of books to verify: ``a_id``, ``b_id``, ``from_keys`` (the
    key tables proposed it) and ``sampled`` (the pairs of parts the word
    sample proposed)."""
    from pyspark.sql import functions as F

    from_keys = _key_pairs(books, key_cap).withColumn("from_keys", F.lit(True))
    sampled = _sampled_pairs(books, sample_cap)
    no_parts = F.array().cast("array<struct<part_a:int,part_b:int>>")
    return from_keys.join(sampled, ["a_id", "b_id"], "full_outer").select(
        "a_id",
        "b_id",
        F.coalesce("from_keys", F.lit(False)).alias("from_keys"),
        F.coalesce("sampled", no_parts).alias("sampled"),
    )


def all_pairs(
    books: Any,
    *,
    score: str = "order",
    min_score: float | None = None,
) -> Any:
    """The related pairs of ``books`` (features, one row per book, ids
    unique): a DataFrame of the pairs layout with ``a_id`` and ``b_id``."""
    _, key_cap, sample_cap = collection_caps(books)
    return _verified(books, candidate_pairs(books, key_cap, sample_cap), score, min_score)


def run(
    spark: Any,
    source: str,
    output: str,
    *,
    features: bool = False,
    score: str = "order",
    min_score: float | None = None,
    tsv: bool = False,
    partitions: int | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> Summary:
    """Runs the job: books from the JSON Lines file ``source`` (or, with
    ``features=True``, from features in Parquet), results into the
    directory ``output`` (see the module's documentation)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_rows))
    os.makedirs(output, exist_ok=True)
    seconds: dict[str, float] = {}
    started = time.monotonic()
    refusals: list[str] = []
    refused = 0
    if features:
        books = features_from_parquet(spark, source)
    else:
        extracted = features_from_json_lines(spark, source, partitions=partitions).persist(
            StorageLevel.MEMORY_AND_DISK
        )
        bad = extracted.filter(F.col("error") != "")
        refused = bad.count()
        refusals = [row.error for row in bad.orderBy("id").select("error").limit(10).collect()]
        good = extracted.filter(F.col("error") == "").drop("error")
        # Of two documents with one key the later wins, as in a load.
        latest = good.groupBy("key").agg(F.max("id").alias("id"))
        good = good.join(latest, ["key", "id"], "left_semi")
        good.orderBy("id").select(*(f"`{f.name}`" for f in batch.FEATURES_SCHEMA)).write.mode(
            "overwrite"
        ).option("compression", "zstd").parquet(os.path.join(output, "features"))
        extracted.unpersist()
        books = features_from_parquet(spark, os.path.join(output, "features"))
    books = books.persist(StorageLevel.MEMORY_AND_DISK)
    parts, key_cap, sample_cap = collection_caps(books)
    seconds["features"] = time.monotonic() - started
    # Candidates come from many small rows (keys, words, matches): large
    # batches; verification carries both books' parts: small ones.
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(CANDIDATE_BATCH_ROWS))
    candidates = candidate_pairs(books, key_cap, sample_cap).persist(StorageLevel.MEMORY_AND_DISK)
    candidates.count()
    seconds["candidates"] = time.monotonic() - started - sum(seconds.values())
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_rows))
    pairs = _verified(books, candidates, score, min_score).persist(StorageLevel.MEMORY_AND_DISK)
    pairs.orderBy("a_id", "b_id").write.mode("overwrite").option("compression", "zstd").parquet(
        os.path.join(output, "pairs")
    )
    seconds["verification"] = time.monotonic() - started - sum(seconds.values())
    ids = pairs.select("a_id", "b_id", "a", "b").orderBy("a_id", "b_id").toArrow()
    clusters = batch.clusters(ids)
    pq.write_table(clusters, os.path.join(output, "clusters.parquet"), compression="zstd")
    seconds["clusters"] = time.monotonic() - started - sum(seconds.values())
    if tsv:
        found = pairs.orderBy("a_id", "b_id").toArrow()
        _write_pairs_tsv(found, os.path.join(output, "pairs.tsv"))
        _write_clusters_tsv(clusters, os.path.join(output, "clusters.tsv"))
    summary = Summary(
        books=books.count(),
        refused=refused,
        refusals=refusals,
        parts=parts,
        key_cap=key_cap,
        sample_cap=sample_cap,
        pairs=ids.num_rows,
        clusters=len(set(clusters.column("cluster").to_pylist())),
        seconds=seconds,
    )
    pairs.unpersist()
    candidates.unpersist()
    books.unpersist()
    return summary


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
    """The pairs as ``stemmata pairs`` writes them."""
    columns = {name: pairs.column(name).to_pylist() for name in pairs.schema.names}
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(
            "a\tb\tscore\tlcs\tcommon\ta_unique\tb_unique\ta_part\ta_words\tb_part\tb_words\n"
        )
        for i in range(pairs.num_rows):
            row = {name: values[i] for name, values in columns.items()}
            out.write(
                f"{_tsv_field(row['a'])}\t{_tsv_field(row['b'])}\t{row['score']:.6f}\t"
                f"{row['lcs']}\t{row['common']}\t{row['a_unique']}\t{row['b_unique']}\t"
                f"{row['a_part']}\t{row['a_words_start']}-{row['a_words_end']}\t"
                f"{row['b_part']}\t{row['b_words_start']}-{row['b_words_end']}\n"
            )


def _write_clusters_tsv(clusters: Any, path: str) -> None:
    """The clusters as ``stemmata pairs --clusters`` writes them."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write("cluster\tsize\tkey\n")
        out.writelines(
            f"{cluster}\t{size}\t{_tsv_field(key)}\n"
            for cluster, size, key in zip(
                clusters.column("cluster").to_pylist(),
                clusters.column("size").to_pylist(),
                clusters.column("key").to_pylist(),
            )
        )


def main(argv: list[str] | None = None) -> int:
    """The ``spark-submit`` entry point."""
    parser = argparse.ArgumentParser(
        prog="stemmata.spark",
        description=(
            "Every related pair of books and their clusters, on Spark: the job of "
            "`stemmata pairs --mode approximate --clusters` over books read from a "
            "JSON Lines file (as `stemmata load --jsonl` reads it) or from features in "
            "Parquet (`stemmata export`, or an earlier run's features/). Submit with "
            "spark-submit --master URL \"$(python -c 'import stemmata.spark as s; "
            "print(s.__file__)')\" INPUT OUTPUT; the workers need the stemmata wheel "
            "installed in their Python (PYSPARK_PYTHON)."
        ),
    )
    parser.add_argument(
        "input", help="a JSON Lines file of documents, or a features directory with --features"
    )
    parser.add_argument("output", help="the output directory: features/, pairs/, clusters.parquet")
    parser.add_argument("--features", action="store_true", help="INPUT holds features in Parquet")
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
        "--partitions", type=int, help="partitions the documents are spread over for extraction"
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

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("stemmata all-pairs").getOrCreate()
    try:
        summary = run(
            spark,
            args.input,
            args.output,
            features=args.features,
            score=args.score,
            min_score=args.min_score,
            tsv=args.tsv,
            partitions=args.partitions,
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
            f"{summary.sample_cap} parts a sampled word) written to {args.output}; seconds: "
            + ", ".join(f"{step} {value:.1f}" for step, value in summary.seconds.items())
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
