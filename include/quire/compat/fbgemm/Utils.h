// FBGEMM compatibility: fbgemm/Utils.h (CPU queries, partitioning, transpose_simd,
// radix_sort_parallel, printMatrix, compare_buffers, ...). As FBGEMM's, it brings
// UtilsAvx2.h and the build macros, the enums FBGEMM declares here (optimized_conv_t,
// impl_type_t, layout_t) and the WARN_ONCE macro.
#pragma once

#include <cstdio>

#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/UtilsAvx2.h"
#include "quire/ConvFastPath.h"
#include "quire/QuantUtils.h"
#include "quire/Utils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm

#ifndef WARN_ONCE
#define WARN_ONCE(...)              \
  do {                              \
    static bool _warned = false;    \
    if (!_warned) {                 \
      _warned = true;               \
      fprintf(stderr, __VA_ARGS__); \
    }                               \
  } while (0)
#endif
