#!/usr/bin/env bash
# Runs the all-pairs job on Spark over a JSON Lines collection and diffs its
# sorted pairs and its clusters against `stemmata pairs --mode approximate
# --clusters` on an index loaded from the same file; then imports the job's
# features into a new index (`stemmata import`) and diffs that index's
# pairs and clusters too.
#
#   benches/spark/check.sh [--local] PYTHON STEMMATA COLLECTION.jsonl WORK_DIR [JOB_OPTION...]
#
# JOB_OPTIONs go to the job (`python -m stemmata.spark --help`); with
# --resume the job/ of an earlier run in WORK_DIR is kept and its features
# reused.
# PYTHON is a Python with pyspark and the stemmata wheel installed (the
# workers run it too); STEMMATA the command line. By default it starts a
# Spark standalone master and two workers (one core each) on 127.0.0.1 at
# free ports, submits the job to them, and stops exactly those processes
# when it ends, failed or not; with --local the job runs in local[2], in
# one JVM of 5 GB.
# Prints the seconds and CPU-seconds of the single process and of the job
# (every Spark process: master, workers, executors, their Python workers
# and the driver), and the driver's peak resident memory (the larger of its
# JVM and its Python).
set -euo pipefail

local_mode=false
if [ "${1:-}" = "--local" ]; then
  local_mode=true
  shift
fi
python="$1" stemmata="$2" collection="$3" work="$4"
shift 4
mkdir -p "$work"
work="$(cd "$work" && pwd)"
# An earlier run's job/ stays when the job is to --resume from its features.
rm -rf "$work/index" "$work/spark" "$work/imported"
case " $* " in *" --resume "*) ;; *) rm -rf "$work/job" ;; esac
mkdir -p "$work/spark"

# CPU-seconds of this shell's finished children so far (user + system), into
# $children_cpu (`times` must run in this shell, not in a command substitution).
children_cpu() {
  times >"$work/times"
  children_cpu=$(tail -n 1 "$work/times" |
    awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] } print n }')
}

started=$(date +%s.%N)
children_cpu
cpu_before=$children_cpu
"$stemmata" load --create --quiet "$work/index" "$collection"
"$stemmata" pairs "$work/index" --mode approximate --quiet \
  --output "$work/pairs.tsv" --clusters "$work/clusters.tsv"
single=$(echo "$(date +%s.%N) - $started" | bc)
children_cpu
single_cpu=$(echo "$children_cpu - $cpu_before" | bc)

spark_home="$("$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
job="$("$python" -c 'import stemmata.spark as job; print(job.__file__)')"
free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pids=()
stop_spark() {
  if [ "${#pids[@]}" -gt 0 ]; then
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
}
trap stop_spark EXIT

# Waits until `file` holds `text`, or fails after a minute.
wait_for() {
  local file="$1" text="$2"
  for _ in $(seq 600); do
    if grep -q "$text" "$file" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "Spark did not start: no \"$text\" in $file:" >&2
  cat "$file" >&2
  return 1
}

# From here to the job's end every Spark process is this shell's child.
children_cpu
cpu_before=$children_cpu
# Shuffle files and the like go under $work (SPARK_LOCAL_DIRS), not /tmp.
mkdir -p "$work/spark/local"
export PYSPARK_PYTHON="$python" SPARK_LOCAL_IP=127.0.0.1 SPARK_LOG_DIR="$work/spark" \
  SPARK_LOCAL_DIRS="$work/spark/local"
# In local[2] the two executors live in the driver's JVM: it gets their
# memory too.
driver_memory=2g
if $local_mode; then
  master="local[2]"
  driver_memory=5g
else
  master_port=$(free_port)
  "$spark_home/bin/spark-class" org.apache.spark.deploy.master.Master --host 127.0.0.1 \
    --port "$master_port" --webui-port "$(free_port)" >"$work/spark/master.log" 2>&1 &
  pids+=($!)
  wait_for "$work/spark/master.log" "I have been elected leader"
  master="spark://127.0.0.1:$master_port"
  for worker in 1 2; do
    "$spark_home/bin/spark-class" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 \
      --port "$(free_port)" --webui-port "$(free_port)" --cores 1 --memory 3g \
      --work-dir "$work/spark/work-$worker" "$master" >"$work/spark/worker-$worker.log" 2>&1 &
    pids+=($!)
  done
  for worker in 1 2; do
    wait_for "$work/spark/worker-$worker.log" "Successfully registered with master"
  done
fi

started=$(date +%s.%N)
/usr/bin/time -f %M -o "$work/driver-rss-kb" "$spark_home/bin/spark-submit" --master "$master" \
  --conf spark.ui.enabled=false --conf spark.ui.showConsoleProgress=false \
  --conf spark.sql.shuffle.partitions=8 --conf spark.executor.memory=2g \
  --conf spark.driver.memory="$driver_memory" --conf spark.pyspark.python="$python" \
  --conf "spark.driver.extraJavaOptions=-Dlog4j2.level=warn" \
  "$job" "$collection" "$work/job" --tsv "$@" 2> >(grep -v -e ' INFO ' -e FutureWarning -e require_minimum >&2)
distributed=$(echo "$(date +%s.%N) - $started" | bc)
stop_spark
pids=()
children_cpu
job_cpu=$(echo "$children_cpu - $cpu_before" | bc)

diff <(sort "$work/pairs.tsv") <(sort "$work/job/pairs.tsv")
diff "$work/clusters.tsv" "$work/job/clusters.tsv"
"$stemmata" import --create --quiet "$work/imported" "$work/job/features"
"$stemmata" pairs "$work/imported" --mode approximate --quiet \
  --output "$work/imported-pairs.tsv" --clusters "$work/imported-clusters.tsv"
diff <(sort "$work/pairs.tsv") <(sort "$work/imported-pairs.tsv")
diff "$work/clusters.tsv" "$work/imported-clusters.tsv"
printf 'same pairs (%d) and clusters (%d) from the job (%s), the single process and an index of the job'"'"'s features\n' \
  "$(($(wc -l <"$work/pairs.tsv") - 1))" "$(tail -n 1 "$work/clusters.tsv" | cut -f 1)" "$master"
printf 'seconds: single process %.1f, job %.1f\n' "$single" "$distributed"
printf 'CPU-seconds: single process %.1f, job %.1f (%.2f times); driver peak %d MB\n' \
  "$single_cpu" "$job_cpu" "$(echo "$job_cpu / $single_cpu" | bc -l)" "$(($(cat "$work/driver-rss-kb") / 1024))"
