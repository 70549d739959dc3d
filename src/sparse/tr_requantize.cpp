// trRequantizeOpt and trRequantizeRef (SparseRequantize.h): checks, then the active
// path's row routine, or FBGEMM's reference formula as plain loops.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "quire/SparseRequantize.h"
#include "quire/detail/Check.h"
#include "sparse/sparse_dense_kernels.h"

namespace quire::detail {
namespace {

[[noreturn]] void fail(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}

void check_block(const char* where, const uint8_t* out, const int32_t* inp,
                 const block_type_t& b, int ld_out, int ld_in) {
  if (b.row_start < 0 || b.row_size < 0 || b.col_start < 0 || b.col_size < 0)
    fail(where, "block = {" + std::to_string(b.row_start) + ", " + std::to_string(b.row_size) +
                    ", " + std::to_string(b.col_start) + ", " + std::to_string(b.col_size) +
                    "} must have non-negative starts and sizes");
  if (int64_t{b.row_size} * b.col_size == 0) return;
  check_not_null(out, where, "out");
  check_not_null(inp, where, "inp");
  check_arg(ld_in >= b.col_size, where, "ld_in", ld_in, "must be >= block.col_size");
  check_arg(int64_t{ld_out} >= int64_t{b.col_start} + b.col_size, where, "ld_out", ld_out,
            "must be >= block.col_start + block.col_size");
}

}  // namespace

void check_tr_params(const char* where, const trRequantizationParams_t& r, bool per_channel,
                     TrNeeds needs, int row0, int row1) {
  if (!std::isfinite(r.C_scale) || r.C_scale == 0.0f)
    fail(where, "C_scale=" + std::to_string(r.C_scale) + " must be finite and non-zero");
  check_arg(r.C_zero_point >= 0 && r.C_zero_point <= 255, where, "C_zero_point", r.C_zero_point,
            "must be in [0, 255]");
  check_not_null(r.act_times_w_scale, where, "act_times_w_scale");
  const int q0 = per_channel ? row0 : 0, q1 = per_channel ? row1 : 1;
  for (int q = q0; q < q1; ++q)
    if (!std::isfinite(r.act_times_w_scale[q]))
      fail(where, "act_times_w_scale[" + std::to_string(q) + "]=" +
                      std::to_string(r.act_times_w_scale[q]) + " must be finite");
  if (needs.row_offsets) check_not_null(r.weight_row_offsets, where, "weight_row_offsets");
  if (needs.col_offsets) {
    check_not_null(r.act_col_offsets, where, "act_col_offsets");
    check_not_null(r.weight_zero_points, where, "weight_zero_points");
  }
  if (needs.bias) check_not_null(r.bias, where, "bias");
}

void tr_requantize_opt(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                       int ld_in, const trRequantizationParams_t& r, TrRequantizeFlags flags) {
  const char* where = "trRequantizeOpt";
  check_block(where, out, inp, block, ld_out, ld_in);
  if (int64_t{block.row_size} * block.col_size == 0) return;
  check_tr_params(where, r, flags.per_channel,
                  {!flags.act_symmetric, !flags.weight_symmetric, flags.has_bias},
                  block.row_start, block.row_start + block.row_size);
  const auto requant_row = sparse_dense_kernels().requant_row;
  for (int i = block.row_start; i < block.row_start + block.row_size; ++i)
    requant_row(inp + int64_t{i - block.row_start} * ld_in, out + int64_t{i} * ld_out + block.col_start,
                block.col_size, row_q(r, flags, i));
}

// FBGEMM's reference: s applied as (x * s) / C_scale, C_zero_point added in float.
void tr_requantize_ref(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                       int ld_in, const trRequantizationParams_t& r, bool fuse_relu,
                       bool per_channel) {
  const char* where = "trRequantizeRef";
  check_block(where, out, inp, block, ld_out, ld_in);
  if (int64_t{block.row_size} * block.col_size == 0) return;
  check_tr_params(where, r, per_channel,
                  {r.act_zero_point != 0, r.act_col_offsets != nullptr, false}, block.row_start,
                  block.row_start + block.row_size);
  const int lo = fuse_relu ? r.C_zero_point : 0;
  for (int i = block.row_start; i < block.row_start + block.row_size; ++i) {
    const int q = per_channel ? i : 0;
    const float s = r.act_times_w_scale[q];
    for (int j = block.col_start; j < block.col_start + block.col_size; ++j) {
      int32_t raw = inp[int64_t{i - block.row_start} * ld_in + (j - block.col_start)];
      if (r.act_zero_point != 0) raw = wrap_sub(raw, wrap_mul(r.act_zero_point, r.weight_row_offsets[i]));
      if (r.act_col_offsets != nullptr)
        raw = wrap_sub(raw, wrap_mul(r.act_col_offsets[j - block.col_start], r.weight_zero_points[q]));
      float raw_f = static_cast<float>(raw);
      if (r.bias != nullptr) raw_f += r.bias[i] / s;
      const float ab = raw_f * s / r.C_scale;
      const float rounded = std::nearbyint(ab) + static_cast<float>(r.C_zero_point);
      // To int as x86 converts (INT32_MIN outside int32 or NaN), then clamped.
      const int32_t v = std::clamp(
          rounded >= -2147483648.0f && rounded < 2147483648.0f ? static_cast<int32_t>(rounded)
                                                               : INT32_MIN,
          lo, 255);
      out[int64_t{i} * ld_out + j] = static_cast<uint8_t>(v);
    }
  }
}

}  // namespace quire::detail
