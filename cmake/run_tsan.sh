#!/usr/bin/env bash
# Builds the threading tests with ThreadSanitizer (the `tsan` preset's flags) and runs
# them; fails on any data race, lock-order inversion or test failure.
#   cmake/run_tsan.sh [BUILD_DIR]        (default: build/tsan)
# The list: every test that runs quire from several std::threads at once.
#   code_cache_test     kernels generated concurrently (first use from 8 threads at once)
#   simple_gemm_test    the ThreadPool and the one-call GEMM on it
#   soak_test           8 threads of mixed calls on shared packed weights (QUIRE_SOAK_SECONDS,
#                       20 s here by default)
#   conv_direct_test    fbgemmConv from std::threads sharing PackWeightsForConv
#   half_gemm_api_test  cblas_gemm_compute from std::threads sharing the packed weights
#   compat_fbgemm_test  FBGEMM-style fbgemmPacked calls, one per std::thread
#   thread_pool_test    the pool's jobs and exceptions (not its timing case)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build/tsan}

# "binary:gtest filter" (the concurrent tests of binaries that also hold slow serial ones).
tests=(
  "code_cache_test:CodeCache.*"
  "simple_gemm_test:*"
  "soak_test:*"
  "conv_direct_test:DirectApi.ConcurrentThreadsShareWeights"
  "half_gemm_api_test:HalfGemmApi.ConcurrentThreadsGiveTheSingleThreadResult"
  "compat_fbgemm_test:CompatFbgemm.RequantizedFcPerChannelReluOnThreads"
  "thread_pool_test:ThreadPool.EveryWorkerRunsEveryJobOnce:ThreadPool.RethrowsTheFirstWorkersException"
)

launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# The `tsan` preset's cache variables, spelled out so that any build directory works.
cmake -S "$src" -B "$build" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DQUIRE_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" > /dev/null
ninja -C "$build" -j"${QUIRE_JOBS:-2}" "${tests[@]%%:*}"

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export QUIRE_SOAK_SECONDS=${QUIRE_SOAK_SECONDS:-20}
status=0
for t in "${tests[@]}"; do
  bin=${t%%:*}
  filter=${t#*:}
  start=$(date +%s)
  if "$build/test/$bin" --gtest_filter="$filter" > "$build/$bin.tsan.log" 2>&1; then
    echo "$bin ($filter): ok, $(($(date +%s) - start)) s"
  else
    echo "$bin ($filter): FAILED (log: $build/$bin.tsan.log)"
    grep -m1 -A40 "WARNING: ThreadSanitizer" "$build/$bin.tsan.log" || tail -n 40 "$build/$bin.tsan.log"
    status=1
  fi
done
exit $status
