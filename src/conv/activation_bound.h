// Whether a range of activations is 7-bit (every byte at most 127): the certificate of
// the kernels whose vpmaddubsw pairs cannot saturate on such data (127 x 128 x 2 =
// 32512), over a conv vocabulary S (simd_conv_*.h). Internal linkage.
#pragma once

#include <algorithm>
#include <cstdint>

namespace quire::conv {
namespace {

// Whether every byte of p[0, n) is at most lim; stops at the first KiB that holds a
// larger one.
template <class S>
bool bytes_at_most(const uint8_t* p, int64_t n, int lim) {
  const int64_t n16 = n / 16 * 16;
  for (int64_t f = 0; f < n16;) {
    typename S::I m = S::zeroi();
    const int64_t end = std::min(n16, f + 1024);
    for (; f + S::kBytes <= end; f += S::kBytes) m = S::maxu8(m, S::load_raw(p + f));
    if (f < end) {
      m = S::maxu8(m, S::load_low16(p + f, S::zeroi()));
      f += 16;
    }
    if (S::hmax_u8(m) > lim) return false;
  }
  for (int64_t i = n16; i < n; ++i)
    if (p[i] > lim) return false;
  return true;
}

}  // namespace
}  // namespace quire::conv
