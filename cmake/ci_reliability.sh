#!/usr/bin/env bash
# CI's reliability stage: builds and runs the libFuzzer targets for a fixed time each,
# then the threading tests under ThreadSanitizer. Prints how long each part took.
#   cmake/ci_reliability.sh              (from anywhere; build trees under build/)
# Environment: QUIRE_FUZZ_SECONDS per fuzz target (default 30), QUIRE_FUZZ_JOBS targets
# at a time (default 2), QUIRE_SOAK_SECONDS for the soak test under TSan (default 20).
# The guard-page and soak tests need nothing special: they run with the ordinary ctest.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

t0=$(date +%s)
cmake --preset fuzz "${launcher[@]}" > /dev/null
ninja -C build/fuzz -j"${QUIRE_JOBS:-2}"
t1=$(date +%s)
cmake/run_fuzzers.sh build/fuzz "${QUIRE_FUZZ_SECONDS:-30}"
t2=$(date +%s)
cmake/run_tsan.sh build/tsan
t3=$(date +%s)

echo "ci_reliability: fuzz build $((t1 - t0)) s, fuzzing $((t2 - t1)) s," \
     "tsan build + run $((t3 - t2)) s, total $((t3 - t0)) s"
