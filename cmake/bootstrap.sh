#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a result:
#   bash cmake/bootstrap.sh bench [quire-bench options]   install, build quire-bench (Release), run it
#   bash cmake/bootstrap.sh test                          install, build, run every test suite
# Installs only the Debian packages that are missing (as root, or through sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  bench | test) shift ;;
  *) echo "usage: bash cmake/bootstrap.sh bench|test [args]" >&2; exit 2 ;;
esac

# ocl-icd-opencl-dev: Debian's oneDNN CMake config requires the OpenCL headers (a
# recommendation of libdnnl-dev that --no-install-recommends skips); ccache makes the
# consumer test's rebuilds of the same sources (cmake/consumer_test.sh) nearly free.
packages=(cmake ninja-build g++ pkg-config libasmjit-dev libcpuinfo-dev libgtest-dev
          libbenchmark-dev libdnnl-dev libopenblas-dev ocl-icd-opencl-dev ccache)
# The test run also builds its AddressSanitizer tree (the suite and the libFuzzer targets)
# with clang, and compares the shared library's ABI across two builds with abidiff
# (cmake/abi_check.sh).
[ "$mode" = test ] && packages+=(clang-14 libclang-rt-14-dev abigail-tools)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
# Each stage of a test run prints how long it took (the CI run must stay under 45 minutes on a 2-core machine).
stage_start=$(date +%s)
stage_done() {
  local now
  now=$(date +%s)
  echo "bootstrap: $1 took $((now - stage_start)) s"
  stage_start=$now
}
mkdir -p build
# Through ccache where present: the consumer test (cmake/consumer_test.sh) compiles the
# same library sources with the same flags again, and takes them from the cache.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake --preset release "${launcher[@]}" >build/configure-release.log ||
  { cat build/configure-release.log; exit 1; }
grep -E "^-- quire" build/configure-release.log || true
# A baseline whose package is installed but that was not compiled in: a warning before a
# bench run, an error in the test run (CI).
if ! bash cmake/check_baselines.sh build/release; then
  [ "$mode" = test ] && exit 1
fi
if [ "$mode" = bench ]; then
  # The bench needs only its own target (the library and quire-bench), not the tests.
  cmake --build --preset release -j "$jobs" --target quire-bench
  stage_done "quire-bench build"
  exec ./build/release/bench/quire-bench "$@"
fi
cmake --build --preset release -j "$jobs"
stage_done "release build"

ctest --preset release -j "$jobs"
stage_done "release tests"
# quire as other projects consume it: installed (find_package, pkg-config) and as a
# subdirectory, static and shared, and through the FBGEMM compat headers alone.
bash cmake/consumer_test.sh
stage_done "consumer test"
# The shared library's ABI does not move when an internal table gains a field.
bash cmake/abi_check.sh
stage_done "ABI check"
# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang), in a tree
# that also holds the libFuzzer targets: one sanitized library for both.
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
stage_done "asan build"
# The soak test ran its full minute in Release; 20 s is enough to exercise it under ASan.
QUIRE_SOAK_SECONDS=${QUIRE_SOAK_SECONDS:-20} ctest --preset asan -j "$jobs"
stage_done "asan tests"
# The fuzzers of that tree (a fixed time each), then the threading tests under
# ThreadSanitizer.
bash cmake/ci_reliability.sh build/asan
stage_done "fuzzers and ThreadSanitizer"
