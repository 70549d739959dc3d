#!/usr/bin/env bash
# Builds and runs a small quire user (test/consumer) the ways other projects consume quire:
#   find_package(quire), pkg-config and add_subdirectory, each with the static and with the
#   shared library, plus an FBGEMM user that includes only <fbgemm/Fbgemm.h>.
# Usage: bash cmake/consumer_test.sh   (from anywhere; writes under build/consumer/)
# Prints "consumer: N passed, N failed" and exits non-zero when any way fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD
work=$source_dir/build/consumer
rm -rf "$work"
mkdir -p "$work"

# Every build below compiles the same sources with the same flags: ccache, where present,
# turns all but the first of each kind into cache hits, and the static library's objects
# into hits of the release build's (cmake/bootstrap.sh configures it through ccache). The
# paths stay absolute (no CCACHE_BASEDIR): made relative, they would differ between
# build/release and the trees here, one level deeper.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
configure() { cmake -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >/dev/null; }

passed=0
failed=0
check() {  # check NAME COMMAND...: runs one way, counts it
  local name=$1
  shift
  if "$@" >"$work/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "consumer $name: ok ($(tail -n 1 "$work/$name.log"))"
  else
    failed=$((failed + 1))
    echo "consumer $name: FAILED"
    cat "$work/$name.log"
  fi
}

install_quire() {  # install_quire KIND ON|OFF: builds the library alone, installs it
  configure -S "$source_dir" -B "$work/build-$1" -DBUILD_SHARED_LIBS="$2" \
    -DQUIRE_BUILD_TESTS=OFF -DQUIRE_BUILD_BENCH=OFF
  cmake --build "$work/build-$1" -j "$(nproc)" >/dev/null
  cmake --install "$work/build-$1" --prefix "$work/prefix-$1" >/dev/null
}

with_find_package() {
  configure -S test/consumer -B "$work/find-$1" -DCMAKE_PREFIX_PATH="$work/prefix-$1"
  cmake --build "$work/find-$1" >/dev/null
  "$work/find-$1/consumer" && "$work/find-$1/compat_consumer"
}

with_pkg_config() {  # the .pc file lists the static library's dependencies itself
  local flags
  flags=$(PKG_CONFIG_PATH="$work/prefix-$1/lib/pkgconfig" pkg-config --cflags --libs quire)
  local out=$work/pkgconfig-$1
  mkdir -p "$out"
  # shellcheck disable=SC2086
  g++ -std=c++20 -O1 test/consumer/consumer.cpp -o "$out/consumer" $flags \
    -Wl,-rpath,"$work/prefix-$1/lib"
  # shellcheck disable=SC2086
  g++ -std=c++20 -O1 test/consumer/compat_consumer.cpp -o "$out/compat_consumer" $flags \
    -Wl,-rpath,"$work/prefix-$1/lib"
  "$out/consumer" && "$out/compat_consumer"
}

with_subdirectory() {
  configure -S test/consumer -B "$work/subdir-$1" -DQUIRE_CONSUMER_MODE=subdirectory \
    -DQUIRE_SOURCE_DIR="$source_dir" -DBUILD_SHARED_LIBS="$2"
  cmake --build "$work/subdir-$1" -j "$(nproc)" >/dev/null
  "$work/subdir-$1/consumer" && "$work/subdir-$1/compat_consumer"
}

for kind in static:OFF shared:ON; do
  name=${kind%%:*}
  shared=${kind#*:}
  if ! install_quire "$name" "$shared" >"$work/install-$name.log" 2>&1; then
    failed=$((failed + 3))
    echo "consumer install-$name: FAILED"
    cat "$work/install-$name.log"
    continue
  fi
  check "find_package-$name" with_find_package "$name"
  check "pkg-config-$name" with_pkg_config "$name"
  check "add_subdirectory-$name" with_subdirectory "$name" "$shared"
done

echo "consumer: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
