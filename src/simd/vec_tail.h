// The piece of a block-tail store both vocabularies (vec_avx2.h, vec_avx512.h) share.
// Internal linkage: each ISA's translation unit compiles its own copy with its own flags,
// so no copy built for one ISA can be linked into another's code.
#pragma once

#include "common/intrinsics.h"

namespace quire::detail {
namespace {

// Stores the first n (< 8) lanes of v in exact-size pieces (4, 2, 1), never by one masked
// store: in place (out == in), a masked store's full-width span would overlap the next
// row's first load, which then waits for the store to retire.
void store_first_f32(float* p, int n, __m256 v) {
  __m128 x = _mm256_castps256_ps128(v);
  if (n & 4) {
    _mm_storeu_ps(p, x);
    x = _mm256_extractf128_ps(v, 1);
    p += 4;
  }
  if (n & 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), x);
    x = _mm_movehl_ps(x, x);
    p += 2;
  }
  if (n & 1) _mm_store_ss(p, x);
}

}  // namespace
}  // namespace quire::detail
