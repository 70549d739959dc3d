// Portable int64 tile: products and sums in uint64_t, whose wraparound is the two's
// complement result the contract asks for.
#include "i64/gemm_i64.h"

namespace quire::detail::i64 {
namespace {

constexpr int kMr = 4;

void tile(const int64_t* a, int64_t lda, const int64_t* b, int kc, int64_t* c, int64_t ldc,
          int mr, int nr, bool accumulate) {
  uint64_t acc[kMr][kNr] = {};
  for (int k = 0; k < kc; ++k)
    for (int i = 0; i < mr; ++i) {
      const uint64_t ai = static_cast<uint64_t>(a[i * lda + k]);
      for (int j = 0; j < kNr; ++j) acc[i][j] += ai * static_cast<uint64_t>(b[k * kNr + j]);
    }
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nr; ++j) {
      const uint64_t base = accumulate ? static_cast<uint64_t>(c[i * ldc + j]) : 0;
      c[i * ldc + j] = static_cast<int64_t>(base + acc[i][j]);
    }
}

}  // namespace

const Kernel kI64Portable{kMr, &tile};

}  // namespace quire::detail::i64
