#!/usr/bin/env bash
# Runs every fuzz target for N seconds each (default 60), one after another.
# Usage: fuzz/run.sh [SECONDS] [TARGET...]
# Exits non-zero if any target crashes, leaks, times out or exceeds a limit;
# the input that did it is left in fuzz/artifacts/<target>/.
set -euo pipefail

seconds="${1:-60}"
shift || true
cd "$(dirname "$0")"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

# cargo-fuzz needs nightly-only flags (-Zsanitizer=address, sanitizer
# coverage); RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them.
export RUSTC_BOOTSTRAP=1

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

cargo fuzz build

mkdir -p logs
failed=()
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "seeds/$target"
    log="logs/$target.log"
    echo "== $target: ${seconds}s"
    # New inputs go to corpus/<target> (not in git); seeds/<target> is read only.
    # -malloc_limit_mb: no decoder may allocate 64 MiB from a 4 KiB input.
    if cargo fuzz run "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -max_len=4096 -timeout=20 \
        -rss_limit_mb=2048 -malloc_limit_mb=64 -print_final_stats=1 \
        >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed+=("$target")
        tail -n 60 "$log"
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    echo "$target: $status, ${execs:-?} executions, ${rate:-?} exec/s (log: fuzz/$log)"
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzzing FAILED: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzzing passed: ${targets[*]}"
