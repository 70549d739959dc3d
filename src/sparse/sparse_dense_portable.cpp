// kSparseDensePortable: the sparse x dense products as plain loops (the anyarch path),
// and the choice of the active path's table.
#include <algorithm>
#include <cmath>

#include "quire/Bcsr.h"
#include "cpu/isa_record.h"
#include "sparse/spmdm_table.h"
#include "sparse/sparse_dense_kernels.h"

namespace quire::detail {
namespace {

void requant_row_portable(const int32_t* in, uint8_t* out, int n, const RowQ& q) {
  for (int j = 0; j < n; ++j) out[j] = requant_one(in[j], j, q);
}

// Row by row; each block's (up to) four rows of B are added, scaled, to the row of
// C_i32, which serves as the accumulator (wrapping, as the vector paths do).
void int8_mm_portable(const Int8MMArgs& a) {
  constexpr int kTile = BCSRMatrix<>::COLTILE;
  const int tiles = (a.K + kTile - 1) / kTile;
  for (int i = a.m0; i < a.m1; ++i) {
    int32_t* c = a.C_i32 + i * a.ldc;
    if (!a.accum) std::fill_n(c, a.N, 0);
    for (int t = 0; t < tiles; ++t) {
      for (int r = a.rowBPtr[int64_t{t} * a.M + i]; r < a.rowBPtr[int64_t{t} * a.M + i + 1]; ++r) {
        const int k0 = t * kTile + 4 * a.colBIdx[r];
        for (int k = k0; k < std::min(k0 + 4, a.K); ++k) {
          const uint32_t w = static_cast<uint32_t>(int32_t{a.values[4 * int64_t{r} + k - k0]});
          const uint8_t* b = a.B + k * a.ldb;
          for (int j = 0; j < a.N; ++j)
            c[j] = static_cast<int32_t>(static_cast<uint32_t>(c[j]) + w * b[j]);
        }
      }
    }
    requant_row_portable(c, a.C_u8 + i * a.ldc, a.N, row_q(*a.r, a.flags, i));
  }
}

void fp32_mm_portable(const Fp32MMArgs& a) {
  for (int i = 0; i < a.M; ++i) {
    float* c = a.C + i * a.ldc;
    if (!a.accum) std::fill_n(c, a.N, 0.0f);
    for (int p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const float v = a.values[p];
      const float* b = a.B + a.col_idx[p] * a.ldb;
      for (int j = 0; j < a.N; ++j) c[j] = std::fma(v, b[j], c[j]);
    }
  }
}

}  // namespace

constinit const SparseDenseKernels kSparseDensePortable = {&int8_mm_portable, &fp32_mm_portable,
                                                           &requant_row_portable};

const SparseDenseKernels& sparse_dense_kernels() { return *active_isa().spmdm->dense; }

}  // namespace quire::detail
