// requantizeOutputProcessingAvx2 / requantizeForFloatAvx2 (quire/QuantUtilsAvx2.h): one
// output block through the active path's epilogue routines (detail/Epilogue.h), with
// FBGEMM's per-block choices resolved here:
//  - GROUP takes one group for the whole block, q0 = col_start / (ncols / groups): the
//    routines then see the block as TENSOR with arrays starting at group q0;
//  - a float bias under TENSOR / GROUP is multiplied by (float)(1.0 / act_times_w_scale[q0])
//    (FBGEMM's reciprocal, not a division): the products are formed here and passed as the
//    bias with a divisor of 1 (exact);
//  - DIRECT: each row has its own col_offsets row, so rows go one at a time.
#include <vector>

#include "quire/OutputProcessing.h"
#include "quire/QuantUtilsAvx2.h"
#include "epilogue/epilogue_table.h"
#include "cpu/isa_record.h"

namespace quire::detail {
namespace {

constexpr int32_t kZero = 0;
constexpr float kOne = 1.0f;

// The quantization group every column of the block uses under TENSOR / GROUP, and the
// cols_per_group the routines get (the block is then one group).
struct GroupChoice {
  int q0;
  int cols_per_group;
};

GroupChoice group_choice(const char* where, QuantizationGranularity g, uint32_t ncols,
                         int groups, const block_type_t& block) {
  const int cpg = cols_per_group(where, g, ncols, groups);
  if (g == QuantizationGranularity::OUT_CHANNEL) return {0, 1};
  return {g == QuantizationGranularity::GROUP ? block.col_start / cpg : 0, kTensorColsPerGroup};
}

// Checks and fills the placement and zero-point correction both routines share.
template <class Args, class OutT, class Params>
bool set_block(Args& a, const char* where, OutT* out, const int32_t* inp,
               const block_type_t& block, int ld_out, int ld_in, const Params& r,
               const BlockRequantizeFlags& f, const GroupChoice& gc) {
  check_output_block(where, block, ld_out, ld_in);
  if (block.row_size == 0 || block.col_size == 0) return false;
  if (!f.b_symmetric) {
    if (r.row_offsets == nullptr)
      throw_bad_output_arg(where, "row_offsets", "nullptr", "but B_SYMMETRIC is false");
    if (r.B_zero_point == nullptr)
      throw_bad_output_arg(where, "B_zero_point", "nullptr", "but B_SYMMETRIC is false");
  }
  const int32_t a_zp = f.a_symmetric ? 0 : r.A_zero_point;
  const int32_t* b_zp = f.b_symmetric ? &kZero : r.B_zero_point + gc.q0;
  const int32_t* row_offsets = f.b_symmetric ? nullptr : r.row_offsets;
  const int cpg = f.b_symmetric ? kTensorColsPerGroup : gc.cols_per_group;
  a.in = inp;
  a.ld_in = ld_in;
  a.out = out + block_offset(block, ld_out);
  a.ld_out = ld_out;
  a.rows = block.row_size;
  a.cols = block.col_size;
  a.zp = zero_point_correction(where, block, r.ncols, cpg, a_zp, b_zp, row_offsets,
                               r.col_offsets);
  return true;
}

// Runs the routine on the whole block, or row by row for DIRECT.
template <class Args, class Run>
void run_rows(Args a, const int32_t* col_offsets, const block_type_t& block,
              const BlockRequantizeFlags& f, const Run& run) {
  if (!f.direct || a.zp.col_offsets == nullptr) return run(a);
  const int rows = a.rows;
  const int32_t* row_offsets = a.zp.row_offsets;
  a.rows = 1;
  for (int r = 0; r < rows; ++r) {
    Args row = a;
    row.in = a.in + int64_t{r} * a.ld_in;
    row.out = a.out + int64_t{r} * a.ld_out;
    row.zp.col_offsets =
        col_offsets + (int64_t{block.row_start} + r) * block.col_size + block.col_start;
    if (row_offsets != nullptr) row.zp.row_offsets = row_offsets + r;
    run(row);
  }
}

template <class BiasT>
void requantize_u8(const EpilogueTable& epilogue, uint8_t* out, const int32_t* inp,
                   const block_type_t& block, int ld_out, int ld_in,
                   const requantizationParams_t<BiasT>& r, const BlockRequantizeFlags& f) {
  constexpr const char* kWhere = "requantizeOutputProcessingAvx2";
  const GroupChoice gc = group_choice(kWhere, f.q_gran, r.ncols, r.groups, block);
  RequantizeU8Args a{};
  if (!set_block(a, kWhere, out, inp, block, ld_out, ld_in, r, f, gc)) return;
  if (r.C_multiplier == nullptr)
    throw_bad_output_arg(kWhere, "C_multiplier", "nullptr", "must not be null");
  if (r.C_zero_point < 0 || r.C_zero_point > 255)
    throw_bad_output_arg(kWhere, "C_zero_point", std::to_string(r.C_zero_point),
                         "is outside [0, 255]");
  a.multiplier = r.C_multiplier + gc.q0;
  a.zp.cols_per_group = gc.cols_per_group;
  a.c_zero_point = r.C_zero_point;
  a.fuse_relu = f.fuse_relu;
  std::vector<float> scaled_bias;
  if (!f.has_bias) {
    a.bias_kind = BiasKind::none;
  } else if (r.bias == nullptr) {
    throw_bad_output_arg(kWhere, "bias", "nullptr", "but HAS_BIAS is true");
  } else if constexpr (std::is_same_v<BiasT, float>) {
    if (r.act_times_w_scale == nullptr)
      throw_bad_output_arg(kWhere, "act_times_w_scale", "nullptr", "must be given with a float bias");
    a.bias_kind = BiasKind::float32;
    if (f.q_gran == QuantizationGranularity::OUT_CHANNEL) {
      a.bias_f32 = r.bias + block.col_start;
      a.act_times_w_scale = r.act_times_w_scale;
    } else {
      const auto rcp = static_cast<float>(1.0 / r.act_times_w_scale[gc.q0]);
      scaled_bias.resize(static_cast<size_t>(block.col_size));
      for (int c = 0; c < block.col_size; ++c) scaled_bias[c] = r.bias[block.col_start + c] * rcp;
      a.bias_f32 = scaled_bias.data();
      a.act_times_w_scale = &kOne;
    }
  } else {
    a.bias_kind = BiasKind::int32;
    a.bias_i32 = r.bias + block.col_start;
  }
  run_rows(a, r.col_offsets, block, f, [&](const RequantizeU8Args& x) { epilogue.requantize_u8(x); });
}

}  // namespace

void requantize_block_u8(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                         int ld_in, const requantizationParams_t<int32_t>& r,
                         const BlockRequantizeFlags& flags) {
  requantize_u8(*active_isa().epilogue, out, inp, block, ld_out, ld_in, r, flags);
}

void requantize_block_u8(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                         int ld_in, const requantizationParams_t<float>& r,
                         const BlockRequantizeFlags& flags) {
  requantize_u8(*active_isa().epilogue, out, inp, block, ld_out, ld_in, r, flags);
}

void requantize_block_f32(float* out, const int32_t* inp, const block_type_t& block, int ld_out,
                          int ld_in, const requantizationForFloatParams_t& r,
                          const BlockRequantizeFlags& f) {
  constexpr const char* kWhere = "requantizeForFloatAvx2";
  const GroupChoice gc = group_choice(kWhere, f.q_gran, r.ncols, r.groups, block);
  RequantizeF32Args a{};
  if (!set_block(a, kWhere, out, inp, block, ld_out, ld_in, r, f, gc)) return;
  if (r.B_scale == nullptr) throw_bad_output_arg(kWhere, "B_scale", "nullptr", "must not be null");
  if (f.has_bias && r.bias == nullptr)
    throw_bad_output_arg(kWhere, "bias", "nullptr", "but HAS_BIAS is true");
  a.zp.cols_per_group = gc.cols_per_group;
  a.a_scale = r.A_scale;
  a.b_scale = r.B_scale + gc.q0;
  a.bias = f.has_bias ? r.bias + block.col_start : nullptr;
  a.fuse_relu = f.fuse_relu;
  active_isa().epilogue->requantize_f32(a);
}

}  // namespace quire::detail
