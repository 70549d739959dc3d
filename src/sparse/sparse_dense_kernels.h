// The loops behind SparseDenseMM, fbgemmSparseDenseInt8MM and trRequantizeOpt, one table
// per ISA (reached through SpmdmKernels::dense of the active record). The public entry
// points (sparse_dense_int8.cpp, sparse_dense_fp32.cpp, tr_requantize.cpp) check their
// arguments and resolve them into the structs below; every table computes the same bits.
#pragma once

#include <cmath>
#include <cstdint>

#include "quire/SparseRequantize.h"

namespace quire::detail {

// trRequantizeOpt's formula for one row i, resolved (SparseRequantize.h):
//   x = inp[j] - row_off - (col_off ? col_off[j] * wzp : 0)          (int32, wrapping)
//   out[j] = clamp(cvt((float(x) + bias) * mult) + zp, lo, 255)
// bias = 0 without a bias (adding +0.0f to float(x) changes nothing).
struct RowQ {
  int32_t row_off;
  const int32_t* col_off;
  int32_t wzp;
  float bias, mult;
  int32_t zp, lo;
};

inline int32_t wrap_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}
inline int32_t wrap_sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

inline RowQ row_q(const trRequantizationParams_t& r, const TrRequantizeFlags& f, int i) {
  const int q = f.per_channel ? i : 0;
  const float s = r.act_times_w_scale[q];
  RowQ rq{};
  rq.row_off = f.act_symmetric ? 0 : wrap_mul(r.act_zero_point, r.weight_row_offsets[i]);
  rq.col_off = f.weight_symmetric ? nullptr : r.act_col_offsets;
  rq.wzp = f.weight_symmetric ? 0 : r.weight_zero_points[q];
  rq.bias = f.has_bias ? r.bias[i] / s : 0.0f;
  rq.mult = s / r.C_scale;
  rq.zp = r.C_zero_point;
  rq.lo = f.fuse_relu ? r.C_zero_point : 0;
  return rq;
}

// x86's cvtps2dq under the default rounding: half to even, INT32_MIN outside int32 or NaN.
inline int32_t cvt_rne(float y) {
  if (!(y >= -2147483648.0f && y < 2147483648.0f)) return INT32_MIN;
  return static_cast<int32_t>(std::nearbyint(y));
}

// One element of RowQ's formula. Clamping cvt's result to [-256, 511] first keeps the
// sum in range and changes no output, since zp is in [0, 255].
inline uint8_t requant_one(int32_t inp, int j, const RowQ& q) {
  int32_t x = wrap_sub(inp, q.row_off);
  if (q.col_off != nullptr) x = wrap_sub(x, wrap_mul(q.col_off[j], q.wzp));
  int32_t v = cvt_rne((static_cast<float>(x) + q.bias) * q.mult);
  v = (v < -256 ? -256 : v > 511 ? 511 : v) + q.zp;
  return static_cast<uint8_t>(v < q.lo ? q.lo : v > 255 ? 255 : v);
}

// One thread's rows [m0, m1) of fbgemmSparseDenseInt8MM (SparseDenseMM.h). rowBPtr is
// the BCSRMatrix<>'s (tiles * M + 1 entries), values its blocks as 32-bit words.
struct Int8MMArgs {
  int M, N, K, m0, m1;
  const int* rowBPtr;
  const int* colBIdx;
  const int8_t* values;
  const uint8_t* B;
  int64_t ldb;
  int32_t* C_i32;
  uint8_t* C_u8;
  int64_t ldc;
  bool accum;
  const trRequantizationParams_t* r;
  TrRequantizeFlags flags;
};

// SparseDenseMM (SparseDenseMM.h), all rows.
struct Fp32MMArgs {
  int M, N;
  const int* row_ptr;
  const int* col_idx;
  const float* values;
  const float* B;
  int64_t ldb;
  float* C;
  int64_t ldc;
  bool accum;
};

struct SparseDenseKernels {
  void (*int8_mm)(const Int8MMArgs&);
  void (*fp32_mm)(const Fp32MMArgs&);
  // out[j] for j < n of one row, by RowQ's formula; in and col_off relative to the row.
  void (*requant_row)(const int32_t* in, uint8_t* out, int n, const RowQ& q);
};

extern const SparseDenseKernels kSparseDensePortable;
extern const SparseDenseKernels kSparseDenseAvx2;
extern const SparseDenseKernels kSparseDenseAvx512;
extern const SparseDenseKernels kSparseDenseAvx512Vnni;

// The table of the active path.
const SparseDenseKernels& sparse_dense_kernels();

}  // namespace quire::detail

namespace quire::detail {

// Throws std::invalid_argument, prefixed with `where`, unless r holds what the formula
// needs for rows [row0, row1): C_scale finite and non-zero, C_zero_point in [0, 255],
// act_times_w_scale non-null with finite entries (rows [row0, row1) per channel, entry 0
// per tensor), and the arrays the flags read non-null (needs_* below).
struct TrNeeds {
  bool row_offsets, col_offsets, bias;
};
void check_tr_params(const char* where, const trRequantizationParams_t& r, bool per_channel,
                     TrNeeds needs, int row0, int row1);

}  // namespace quire::detail
