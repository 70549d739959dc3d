// PackedDepthWiseConvMatrix: weights of a depthwise convolution in the layout of the
// depthwise kernels. For channel block b (64 channels), tap quad q (taps 4q .. 4q+3),
// chunk j (0..3), 128-bit lane L (0..3), dword d (0..3), byte t (0..3):
//   packed[(((b * quads + q) * 4 + j) * 64) + 16 L + 4 d + t] = W[64 b + 16 L + 4 j + d][4 q + t]
// (zero past OC or past kernel_prod). Chunk j is the 64-byte weight vector of
// accumulator j: the kernels build their activation vectors with in-lane byte and word
// unpacks of four taps, which leave channel 16 L + 4 j + d in lane (L, d) of vector j,
// and a ymm kernel reads the lower or upper 32 bytes of a chunk (lanes 0-1 or 2-3).
// 3x3 weights of a multiple of 16 channels carry two more copies after the quads, in the
// row kernels' column layout and the tap-pair kernel's int16 layout (depthwise_layout.h);
// packedBytes counts the quads only.
#include <cstring>

#include "conv/depthwise_layout.h"
#include "quire/Depthwise.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"

namespace quire {

namespace {
constexpr const char* kWhere = "PackedDepthWiseConvMatrix";
}

int64_t PackedDepthWiseConvMatrix::packedBytes(int OC, int kernel_prod) {
  return int64_t{(OC + 63) / 64} * ((kernel_prod + 3) / 4) * 256;
}

PackedDepthWiseConvMatrix::PackedDepthWiseConvMatrix(int OC, int kernel_prod, const int8_t* smat)
    : OC_(OC), kernel_prod_(kernel_prod), pmat_(nullptr) {
  detail::check_arg(OC >= 1, kWhere, "OC", OC, "must be >= 1");
  detail::check_arg(kernel_prod >= 1 && kernel_prod <= 1024, kWhere, "kernel_prod", kernel_prod,
                    "must be in [1, 1024]");
  detail::check_not_null(smat, kWhere, "smat");
  const int64_t bytes = packedBytes(OC, kernel_prod);
  detail::check_arg(bytes <= INT32_MAX, kWhere, "OC", OC, "makes the packed weights overflow int32");
  const bool columns = conv::depthwise_has_columns(OC, kernel_prod);
  const int phases = columns ? conv::depthwise_column_phases(OC) : 0;
  const int64_t column_bytes = conv::depthwise_column_bytes(OC, kernel_prod);
  const int64_t total = bytes + column_bytes + conv::depthwise_pair_bytes(OC, kernel_prod);
  pmat_ = static_cast<int8_t*>(fbgemmAlignedAlloc(64, static_cast<size_t>(total), true));
  std::memset(pmat_, 0, static_cast<size_t>(total));
  for (int r = 0; r < OC; ++r)
    for (int c = 0; c < kernel_prod; ++c) pmat_[addr(r, c)] = smat[int64_t{r} * kernel_prod + c];
  int8_t* col = pmat_ + bytes;
  for (int p = 0; p < phases; ++p)
    for (int kw = 0; kw < 3; ++kw)
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 16; ++i) {  // lane L = i / 4, dword d = i % 4
          const int c = (64 * p + 16 * (i / 4) + 4 * j + i % 4) % OC;
          for (int r = 0; r < 3; ++r)
            col[conv::depthwise_column_index(p, kw, j) + 4 * i + r] =
                smat[int64_t{c} * 9 + 3 * r + kw];
        }
  int16_t* pairs = reinterpret_cast<int16_t*>(col + column_bytes);
  for (int q = 0; columns && q < OC / 16; ++q)
    for (int p = 0; p < conv::kTapPairCount; ++p)
      for (int h = 0; h < 2; ++h)
        for (int L = 0; L < 2; ++L)
          for (int i = 0; i < 4; ++i)
            for (int e = 0; e < 2; ++e) {
              const int c = 16 * q + 8 * L + 4 * h + i, t = conv::kTapPairs[p][e];
              pairs[conv::depthwise_pair_index(q, p, h) / 2 + 8 * L + 2 * i + e] =
                  t < 0 ? 0 : smat[int64_t{c} * 9 + t];
            }
}

PackedDepthWiseConvMatrix::~PackedDepthWiseConvMatrix() { fbgemmAlignedFree(pmat_); }

int PackedDepthWiseConvMatrix::addr(int r, int c) const {
  detail::check_arg(r >= 0 && r < OC_, "PackedDepthWiseConvMatrix::addr", "r", r,
                    "must be in [0, OC)");
  detail::check_arg(c >= 0 && c < kernel_prod_, "PackedDepthWiseConvMatrix::addr", "c", c,
                    "must be in [0, kernel_prod)");
  return static_cast<int>(conv::depthwise_packed_index(r, c, (kernel_prod_ + 3) / 4));
}

void PackedDepthWiseConvMatrix::unpack(int8_t* unpacked_data) const {
  detail::check_not_null(unpacked_data, "PackedDepthWiseConvMatrix::unpack", "unpacked_data");
  for (int r = 0; r < OC_; ++r)
    for (int c = 0; c < kernel_prod_; ++c)
      unpacked_data[int64_t{r} * kernel_prod_ + c] = pmat_[addr(r, c)];
}

}  // namespace quire
