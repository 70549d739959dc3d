#!/usr/bin/env bash
# Checks that libquire.so's ABI does not move when an internal table gains a field.
#
# Builds the shared library twice with type information (-O0 -g: layouts do not depend on
# the optimization level, and -O0 keeps the builds cheap): once from this tree, once from
# a copy in which each per-ISA table the headers used to reach (EpilogueTable,
# QuantKernels, SpmdmKernels, private to src/) has one more function pointer. (The
# dispatch record, IsaRecord, is left alone: nearly every file sees it, so the second
# build would be a full one; no installed header names it, which
# public_headers_no_dispatch_test checks.) abidiff then compares the exported functions and
# variables and every type they reach; any difference fails the check.
#
# Usage: bash cmake/abi_check.sh            the check (CI, from cmake/bootstrap.sh)
#        bash cmake/abi_check.sh --public   the same with a field added to a public ABI
#                                           record (RequantizeU8Args) instead: must FAIL,
#                                           which shows the check sees such a change
# Writes under build/abi/; prints abidiff's report and exits non-zero on a difference.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD
work=$source_dir/build/abi
mode=${1:-internal}

command -v abidiff >/dev/null || { echo "abi_check: abidiff missing (Debian: abigail-tools)" >&2; exit 2; }

# The probe tree is a copy of this one at $work/probe, built at the same depth below it, so
# ccache (the paths made relative, the directory left out of the hash) recompiles only
# the translation units that see a changed header.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$source_dir CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
build_shared() {  # build_shared SOURCE: builds SOURCE/build/abi/lib
  cmake -G Ninja -S "$1" -B "$1/build/abi/lib" -DCMAKE_BUILD_TYPE=Debug \
    -DBUILD_SHARED_LIBS=ON -DQUIRE_BUILD_TESTS=OFF -DQUIRE_BUILD_BENCH=OFF \
    "${launcher[@]}" >/dev/null
  cmake --build "$1/build/abi/lib" -j "$(nproc)" --target quire >"$1/build/abi/build.log" ||
    { cat "$1/build/abi/build.log"; exit 1; }
}

# add_field FILE STRUCT: adds a function pointer as the last member of the struct's
# definition in FILE (last, so that the aggregate initializers of the tables still compile).
add_field() {
  grep -q "^struct $2 {" "$1" || { echo "abi_check: no 'struct $2 {' in $1" >&2; exit 2; }
  sed -i "/^struct $2 {/,/^};/ s/^};/  void (*abi_check_probe)();\n};/" "$1"
}

probe=$work/probe
rm -rf "$probe"
mkdir -p "$probe"
git ls-files -z CMakeLists.txt cmake include src | xargs -0 cp --parents -t "$probe"
case "$mode" in
  internal)
    add_field "$probe/src/epilogue/epilogue_table.h" EpilogueTable
    add_field "$probe/src/quant/quant_kernels.h" QuantKernels
    add_field "$probe/src/sparse/spmdm_table.h" SpmdmKernels
    ;;
  --public)
    add_field "$probe/include/quire/detail/Epilogue.h" RequantizeU8Args
    ;;
  *) echo "usage: bash cmake/abi_check.sh [--public]" >&2; exit 2 ;;
esac

build_shared "$source_dir"
build_shared "$probe"
base=$work/lib
lib=$(cd "$base" && ls libquire.so.*.*.*)
# Every exported symbol is public (hidden visibility), so every type abidiff reaches from
# them is one a client can see.
if abidiff "$base/$lib" "$probe/build/abi/lib/$lib" >"$work/abidiff.txt"; then
  echo "abi_check ($mode): no ABI change ($(nm -D --defined-only "$base/$lib" | wc -l) exported symbols)"
else
  cat "$work/abidiff.txt"
  echo "abi_check ($mode): the ABI changed"
  exit 1
fi
