// The transposed convolution's int32 row arithmetic in plain C++ (the anyarch path),
// modulo 2^32 through unsigned arithmetic.
#include "conv/conv_kernels.h"

namespace quire::conv {

void add_i32_portable(int32_t* dst, const int32_t* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = static_cast<int32_t>(static_cast<uint32_t>(dst[i]) + static_cast<uint32_t>(src[i]));
}

void sub_scaled_i32_portable(int32_t* dst, const int32_t* src, int32_t s, int64_t n) {
  const uint32_t us = static_cast<uint32_t>(s);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = static_cast<int32_t>(static_cast<uint32_t>(dst[i]) -
                                  us * static_cast<uint32_t>(src[i]));
}

}  // namespace quire::conv
