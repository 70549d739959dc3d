#!/usr/bin/env bash
# CI's reliability stage, after the `asan` tree is built (cmake/bootstrap.sh): runs the
# libFuzzer targets of that tree for a fixed time each, then builds and runs the
# threading tests under ThreadSanitizer. Prints how long each part took.
#   cmake/ci_reliability.sh [ASAN_BUILD_DIR]     (default: build/asan)
# Environment: QUIRE_FUZZ_SECONDS per fuzz target (default 30), QUIRE_FUZZ_JOBS targets
# at a time (default 2), QUIRE_SOAK_SECONDS for the soak test under TSan (default 20).
# The guard-page and soak tests need nothing special: they run with the ordinary ctest.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
asan_build=${1:-build/asan}

t0=$(date +%s)
cmake/run_fuzzers.sh "$asan_build" "${QUIRE_FUZZ_SECONDS:-30}"
t1=$(date +%s)
cmake/run_tsan.sh build/tsan
t2=$(date +%s)

echo "ci_reliability: fuzzing $((t1 - t0)) s, tsan build + run $((t2 - t1)) s," \
     "total $((t2 - t0)) s"
