#!/usr/bin/env bash
# Runs every libFuzzer target of an `asan` build for a fixed time and fails on any crash,
# sanitizer report, leak or timeout.
#   cmake/run_fuzzers.sh BUILD_DIR [SECONDS]      (SECONDS per target, default 30)
# Environment: QUIRE_FUZZ_JOBS targets at a time (default 2: one per core of the CI
# machine); QUIRE_FUZZ_TARGETS a space-separated subset (default: all of them).
# Each target starts from its seeds in fuzz/corpus/<target>/ (never written to: the
# corpus it grows goes to a scratch directory). A crashing input is kept as
# BUILD_DIR/fuzz-artifacts/<target>/crash-*; reproduce it with
#   BUILD_DIR/fuzz/<target> BUILD_DIR/fuzz-artifacts/<target>/crash-...
# and add it as a regression test in test/ (docs/reliability.md).
set -euo pipefail

build=${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS]}
seconds=${2:-30}
jobs=${QUIRE_FUZZ_JOBS:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)

targets=${QUIRE_FUZZ_TARGETS:-}
if [[ -z $targets ]]; then
  for f in "$src"/fuzz/*_fuzz.cpp; do targets+=" $(basename "$f" .cpp)"; done
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

run_one() {
  local t=$1 bin="$build/fuzz/$1" art="$build/fuzz-artifacts/$1"
  [[ -x $bin ]] || { echo "$t: not built ($bin)"; return 1; }
  mkdir -p "$art" "$scratch/$t"
  local seeds=()
  [[ -d $src/fuzz/corpus/$t ]] && seeds+=("$src/fuzz/corpus/$t")
  # -rss_limit_mb / -malloc_limit_mb: an input that makes quire allocate without bound is
  # a finding too. -timeout: one input may not take longer than this.
  if UBSAN_OPTIONS="print_stacktrace=1 ${UBSAN_OPTIONS:-}" "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
       -max_len=4096 -print_final_stats=1 -artifact_prefix="$art/" \
       "$scratch/$t" "${seeds[@]}" > "$scratch/$t.log" 2>&1; then
    echo "$t: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/$t.log" | grep -o '[0-9]*$') runs in ${seconds}s)"
  else
    echo "$t: FAILED"
    tail -n 60 "$scratch/$t.log"
    return 1
  fi
}

status=0
running=0
for t in $targets; do
  run_one "$t" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
