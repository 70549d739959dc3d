// Output pipeline ops: the epilogue the GEMM driver applies to each int32 output tile.
//
// Every op has `outType`, `inpType` and
//   template <inst_set_t ISA> int f(outType* out, const inpType* inp,
//                                   const block_type_t& block, int ld_out, int ld_in) const;
// which processes one block and returns 0. Indexing convention:
//  - `out` is the base of the whole output matrix: element (i, j) of the block, i in
//    [row_start, row_start + row_size), j in [col_start, col_start + col_size), is
//    written to out[i * ld_out + j];
//  - `inp` points at the block's first element: element (i, j) is read from
//    inp[(i - row_start) * ld_in + (j - col_start)];
//  - `inp` may alias `out` at the same positions (e.g. reinterpret_cast<int32_t*>(C)
//    with a float C): every element is read before it is written.
// An op with a next op then runs it in place on what it wrote:
//   nextop.f<ISA>(out, out + row_start * ld_out + col_start, block, ld_out, ld_out).
// The arithmetic runs through the library's detail::epilogue_* entries (detail/Epilogue.h):
// the vectorized routines of that instruction set (or the best the CPU has below it),
// bit-identical to quire::ref.
//
// Quantization groups: absolute column j belongs to group q = 0 (TENSOR),
// q = j / (nCol / groups) (GROUP) or q = j (OUT_CHANNEL). C_multiplier, Bq_zero_point,
// Bq_scale and act_times_w_scale are indexed by q; col_offsets and bias by j;
// row_offsets by i - row_start (the row sums of the current row block).
//
// Arguments are checked (at construction where possible, else in f) and bad ones throw
// std::invalid_argument naming the parameter and its value.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "quire/Types.h"
#include "quire/detail/Epilogue.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

namespace detail {

[[noreturn]] inline void throw_bad_output_arg(const char* op, const char* param,
                                              const std::string& value, const char* why) {
  throw std::invalid_argument(std::string(op) + ": " + param + " = " + value + " " + why);
}

inline std::string block_string(const block_type_t& b) {
  return "{row_start " + std::to_string(b.row_start) + ", row_size " +
         std::to_string(b.row_size) + ", col_start " + std::to_string(b.col_start) +
         ", col_size " + std::to_string(b.col_size) + "}";
}

// Throws for the first check of check_output_block that fails. Out of line (cold), so
// that the checks stay small enough to inline into every f: the compiler then knows a
// bad block never reaches the pointer arithmetic after them.
[[noreturn, gnu::cold]] inline void throw_bad_output_block(const char* op, const block_type_t& b,
                                                           int ld_out, int ld_in) {
  if (b.row_start < 0 || b.row_size < 0 || b.col_start < 0 || b.col_size < 0)
    throw_bad_output_arg(op, "block", block_string(b), "has a negative start or size");
  if (ld_in < b.col_size)
    throw_bad_output_arg(op, "ld_in", std::to_string(ld_in), "is less than block.col_size");
  throw_bad_output_arg(op, "ld_out", std::to_string(ld_out),
                       "is less than block.col_start + block.col_size");
}

// The checks every op's f makes on its block and leading dimensions.
inline void check_output_block(const char* op, const block_type_t& b, int ld_out, int ld_in) {
  if (b.row_start < 0 || b.row_size < 0 || b.col_start < 0 || b.col_size < 0 ||
      ld_in < b.col_size || int64_t{ld_out} < int64_t{b.col_start} + b.col_size)
    throw_bad_output_block(op, b, ld_out, ld_in);
}

// Offset of the block's first element in a matrix with leading dimension ld.
inline int64_t block_offset(const block_type_t& b, int ld) {
  return int64_t{b.row_start} * ld + b.col_start;
}

// Columns per quantization group, as the epilogue routines take it (see Epilogue.h).
inline int cols_per_group(const char* op, QuantizationGranularity g, uint32_t nCol,
                          int groups) {
  if (nCol > uint32_t{INT32_MAX})
    throw_bad_output_arg(op, "nCol", std::to_string(nCol), "must be <= INT32_MAX");
  if (groups < 1) throw_bad_output_arg(op, "groups", std::to_string(groups), "must be >= 1");
  // nCol = 0: an empty output (N = 0), which FBGEMM accepts; no block ever reaches f.
  if (nCol == 0) return 1;
  switch (g) {
    case QuantizationGranularity::TENSOR:
      return kTensorColsPerGroup;
    case QuantizationGranularity::GROUP:
      if (nCol % static_cast<uint32_t>(groups) != 0)
        throw_bad_output_arg(op, "groups", std::to_string(groups),
                             ("does not divide nCol = " + std::to_string(nCol)).c_str());
      return static_cast<int>(nCol) / groups;
    case QuantizationGranularity::OUT_CHANNEL:
      break;
  }
  return 1;
}

// Checks a block against the requantization parameters and resolves the zero-point
// correction for it: raw = inp - Aq_zp * col_offsets[j] - Bq_zp[q] * row_offsets[i].
inline ZeroPointCorrection zero_point_correction(const char* op, const block_type_t& b,
                                                 uint32_t nCol, int cols_per_group,
                                                 int32_t a_zp, const int32_t* b_zp,
                                                 const int32_t* row_offsets,
                                                 const int32_t* col_offsets) {
  if (int64_t{b.col_start} + b.col_size > int64_t{nCol})
    throw_bad_output_arg(op, "block", block_string(b),
                         ("reaches past nCol = " + std::to_string(nCol)).c_str());
  if (a_zp != 0 && col_offsets == nullptr)
    throw_bad_output_arg(op, "col_offsets", "nullptr",
                         ("but Aq_zero_point = " + std::to_string(a_zp)).c_str());
  if (row_offsets == nullptr) {
    const int q_last = (b.col_start + b.col_size - 1) / cols_per_group;
    for (int q = b.col_start / cols_per_group; q <= q_last; ++q) {
      if (b_zp[q] != 0)
        throw_bad_output_arg(op, "row_offsets", "nullptr",
                             ("but Bq_zero_point[" + std::to_string(q) +
                              "] = " + std::to_string(b_zp[q]))
                                 .c_str());
    }
  }
  return {a_zp, a_zp != 0 ? col_offsets + b.col_start : nullptr, b_zp, row_offsets,
          b.col_start, cols_per_group};
}

// The zero-point operands both requantizations take (Aq_zero_point, Bq_zero_point,
// row_offsets, col_offsets, nCol, groups), FBGEMM's getters for them, and the block setup
// both ops' f share.
class ZeroPointOperands {
 public:
  int32_t getAZeroPoint() const { return Aq_zero_point_; }
  const int32_t* getBZeroPoint() const { return Bq_zero_point_; }
  const int32_t* getRowOffsets() const { return row_offsets_; }
  const int32_t* getColOffsets() const { return col_offsets_; }
  uint32_t getNCols() const { return ncols_; }
  void setRowOffsets(const int32_t* row_offsets) { row_offsets_ = row_offsets; }

 protected:
  ZeroPointOperands(const char* op, QuantizationGranularity g, int32_t Aq_zero_point,
                    const int32_t* Bq_zero_point, const int32_t* row_offsets,
                    const int32_t* col_offsets, uint32_t nCol, int groups)
      : Aq_zero_point_(Aq_zero_point),
        Bq_zero_point_(Bq_zero_point),
        row_offsets_(row_offsets),
        col_offsets_(col_offsets),
        ncols_(nCol),
        cols_per_group_(cols_per_group(op, g, nCol, groups)) {}

  // Checks f's block and fills the fields of the routine's arguments (RequantizeU8Args or
  // RequantizeF32Args) that place the block and correct its zero points. False for an
  // empty block, which leaves nothing to do.
  template <class Args, class OutT>
  bool set_block(Args& a, const char* op, OutT* out, const int32_t* inp,
                 const block_type_t& block, int ld_out, int ld_in) const {
    check_output_block(op, block, ld_out, ld_in);
    if (block.row_size == 0 || block.col_size == 0) return false;
    a.in = inp;
    a.ld_in = ld_in;
    a.out = out + block_offset(block, ld_out);
    a.ld_out = ld_out;
    a.rows = block.row_size;
    a.cols = block.col_size;
    a.zp = zero_point_correction(op, block, ncols_, cols_per_group_, Aq_zero_point_,
                                 Bq_zero_point_, row_offsets_, col_offsets_);
    return true;
  }

 private:
  int32_t Aq_zero_point_;
  const int32_t* Bq_zero_point_;
  const int32_t* row_offsets_;
  const int32_t* col_offsets_;
  uint32_t ncols_;
  int cols_per_group_;
};

}  // namespace detail

// Does nothing: the end of every pipeline.
template <typename outT = uint8_t, typename inT = uint8_t>
class DoNothing {
 public:
  using outType = outT;
  using inpType = inT;
  DoNothing() = default;
  template <inst_set_t instSet>
  int f(outType*, const inpType*, const block_type_t&, int, int) const {
    return 0;
  }
};

namespace detail {
template <typename T>
struct is_do_nothing : std::false_type {};
template <typename outT, typename inT>
struct is_do_nothing<DoNothing<outT, inT>> : std::true_type {};
}  // namespace detail

// out[i][j] = inp[i][j]
template <typename outT = int32_t, typename inT = int32_t,
          typename nextOPType = DoNothing<outT, outT>>
class memCopy {
 public:
  using outType = outT;
  using inpType = inT;
  explicit memCopy(nextOPType& nextop) : nextop_(nextop) {}
  // Nothing after it reads A's row offsets: fbgemmPacked may hand it any rows at once.
  static constexpr bool kReadsNoRowOffsets = detail::is_do_nothing<nextOPType>::value;

  template <inst_set_t instSet>
  int f(outType* out, const inpType* inp, const block_type_t& block, int ld_out,
        int ld_in) const {
    detail::check_output_block("memCopy", block, ld_out, ld_in);
    if (block.row_size == 0 || block.col_size == 0) return 0;
    outType* dst = out + detail::block_offset(block, ld_out);
    if constexpr (std::is_same_v<outT, int32_t> && std::is_same_v<inT, int32_t>) {
      // In place (C_buffer is C, the usual int32 call): the data is already there.
      if (static_cast<const void*>(dst) != static_cast<const void*>(inp) || ld_out != ld_in)
        detail::epilogue_copy_i32(
          instSet, {inp, ld_in, dst, ld_out, block.row_size, block.col_size, 0});
    } else {
      for (int r = 0; r < block.row_size; ++r)
        for (int c = 0; c < block.col_size; ++c)
          dst[int64_t{r} * ld_out + c] = static_cast<outT>(inp[int64_t{r} * ld_in + c]);
    }
    return nextop_.template f<instSet>(out, dst, block, ld_out, ld_out);
  }

 private:
  nextOPType& nextop_;
};

// out[i][j] = inp[i][j] * scalingFactor   (int32: modulo 2^32)
// Constructed without a next op, it ends the pipeline.
template <typename outT = int32_t, typename inT = int32_t,
          typename nextOPType = DoNothing<outT, outT>>
class ScaleOP {
 public:
  using outType = outT;
  using inpType = inT;
  explicit ScaleOP(inT scalingFactor) : nextop_(nullptr), scalingFactor_(scalingFactor) {}
  ScaleOP(nextOPType& nextop, inT scalingFactor)
      : nextop_(&nextop), scalingFactor_(scalingFactor) {}

  template <inst_set_t instSet>
  int f(outType* out, const inpType* inp, const block_type_t& block, int ld_out,
        int ld_in) const {
    detail::check_output_block("ScaleOP", block, ld_out, ld_in);
    if (block.row_size == 0 || block.col_size == 0) return 0;
    outType* dst = out + detail::block_offset(block, ld_out);
    if constexpr (std::is_same_v<outT, int32_t> && std::is_same_v<inT, int32_t>) {
      detail::epilogue_scale_i32(
          instSet, {inp, ld_in, dst, ld_out, block.row_size, block.col_size, scalingFactor_});
    } else {
      for (int r = 0; r < block.row_size; ++r)
        for (int c = 0; c < block.col_size; ++c)
          dst[int64_t{r} * ld_out + c] =
              static_cast<outT>(inp[int64_t{r} * ld_in + c] * scalingFactor_);
    }
    return nextop_ ? nextop_->template f<instSet>(out, dst, block, ld_out, ld_out) : 0;
  }

 private:
  nextOPType* nextop_;
  inT scalingFactor_;
};

// out[i][j] = max(zero_pt, inp[i][j])
// Constructed without a next op, it ends the pipeline.
template <typename inT = int32_t, typename nextOPType = DoNothing<inT, inT>>
class ReluOutput {
 public:
  using outType = inT;
  using inpType = inT;
  explicit ReluOutput(inT zero_pt) : nextop_(nullptr), zero_pt_(zero_pt) {}
  ReluOutput(nextOPType& nextop, inT zero_pt) : nextop_(&nextop), zero_pt_(zero_pt) {}

  template <inst_set_t instSet>
  int f(outType* out, const inpType* inp, const block_type_t& block, int ld_out,
        int ld_in) const {
    detail::check_output_block("ReluOutput", block, ld_out, ld_in);
    if (block.row_size == 0 || block.col_size == 0) return 0;
    outType* dst = out + detail::block_offset(block, ld_out);
    if constexpr (std::is_same_v<inT, int32_t>) {
      detail::epilogue_relu_i32(
          instSet, {inp, ld_in, dst, ld_out, block.row_size, block.col_size, zero_pt_});
    } else {
      for (int r = 0; r < block.row_size; ++r) {
        for (int c = 0; c < block.col_size; ++c) {
          const inT v = inp[int64_t{r} * ld_in + c];
          dst[int64_t{r} * ld_out + c] = zero_pt_ < v ? v : zero_pt_;
        }
      }
    }
    return nextop_ ? nextop_->template f<instSet>(out, dst, block, ld_out, ld_out) : 0;
  }

 private:
  nextOPType* nextop_;
  inT zero_pt_;
};

// Requantizes int32 GEMM results to uint8:
//   raw = inp - Aq_zero_point * col_offsets[j] - Bq_zero_point[q] * row_offsets[i]
//   x   = (float)(raw + bias[j]) * C_multiplier[q]                        (int32 bias)
//       = ((float)raw + bias[j] / act_times_w_scale[q]) * C_multiplier[q] (float bias)
//       = (float)raw * C_multiplier[q]                                    (bias null)
//   out = clamp(nearbyint(x) + C_zero_point, FUSE_RELU ? C_zero_point : 0, 255)
// (round half to even). A zero point of 0 skips its term; its offsets may then be null.
template <bool FUSE_RELU, QuantizationGranularity Q_GRAN = QuantizationGranularity::TENSOR,
          typename BIAS_TYPE = int32_t, typename outT = uint8_t, typename inT = int32_t,
          typename nextOPType = DoNothing<outT, outT>>
class ReQuantizeOutput : public detail::ZeroPointOperands {
  static_assert(std::is_same_v<outT, uint8_t>, "ReQuantizeOutput writes uint8_t");
  static_assert(std::is_same_v<inT, int32_t>, "ReQuantizeOutput reads int32_t");
  static_assert(std::is_same_v<BIAS_TYPE, int32_t> || std::is_same_v<BIAS_TYPE, float>,
                "BIAS_TYPE is int32_t or float");

 public:
  static constexpr int RELU_FUSED = FUSE_RELU;
  static constexpr QuantizationGranularity QGRANType = Q_GRAN;
  using BIAS_T = BIAS_TYPE;
  using outType = outT;
  using inpType = inT;

  ReQuantizeOutput(nextOPType& nextop, const float* C_multiplier, int32_t C_zero_point,
                   int32_t Aq_zero_point, const int32_t* Bq_zero_point,
                   const int32_t* row_offsets, const int32_t* col_offsets,
                   const BIAS_T* bias, uint32_t nCol, int groups = 1,
                   const float* act_times_w_scale = nullptr)
      : ZeroPointOperands(kName, Q_GRAN, Aq_zero_point, Bq_zero_point, row_offsets,
                          col_offsets, nCol, groups),
        nextop_(nextop),
        C_multiplier_(C_multiplier),
        C_zero_point_(C_zero_point),
        bias_(bias),
        act_times_w_scale_(act_times_w_scale) {
    if (C_multiplier == nullptr)
      detail::throw_bad_output_arg(kName, "C_multiplier", "nullptr", "must not be null");
    if (Bq_zero_point == nullptr)
      detail::throw_bad_output_arg(kName, "Bq_zero_point", "nullptr",
                                   "must not be null (pass zeros for symmetric B)");
    if (C_zero_point < 0 || C_zero_point > 255)
      detail::throw_bad_output_arg(kName, "C_zero_point", std::to_string(C_zero_point),
                                   "is outside [0, 255]");
    if (std::is_same_v<BIAS_T, float> && bias != nullptr && act_times_w_scale == nullptr)
      detail::throw_bad_output_arg(kName, "act_times_w_scale", "nullptr",
                                   "must be given with a float bias");
  }

  // With nothing after it, fbgemmPacked has the GEMM's kernels apply this op in
  // registers on each tile's last K block (the same bytes; C_buffer is then not written
  // there, as with FBGEMM, whose int32 tiles for uint8 output are its own scratch).
  static constexpr bool kRequantizesInKernel = detail::is_do_nothing<nextOPType>::value;

  template <inst_set_t instSet>
  int f(outType* out, const inpType* inp, const block_type_t& block, int ld_out,
        int ld_in) const {
    detail::RequantizeU8Args a{};
    if (!resolveBlock(a, out, inp, block, ld_out, ld_in)) return 0;
    detail::epilogue_requantize_u8(instSet, a);
    return nextop_.template f<instSet>(out, a.out, block, ld_out, ld_out);
  }

  // f's arguments checked and resolved for one block into the routines' form, without
  // computing it; false for an empty block.
  bool resolveBlock(detail::RequantizeU8Args& a, outType* out, const inpType* inp,
                    const block_type_t& block, int ld_out, int ld_in) const {
    if (!set_block(a, kName, out, inp, block, ld_out, ld_in)) return false;
    a.multiplier = C_multiplier_;
    if (bias_ == nullptr) {
      a.bias_kind = detail::BiasKind::none;
    } else if constexpr (std::is_same_v<BIAS_T, float>) {
      a.bias_kind = detail::BiasKind::float32;
      a.bias_f32 = bias_ + block.col_start;
      a.act_times_w_scale = act_times_w_scale_;
    } else {
      a.bias_kind = detail::BiasKind::int32;
      a.bias_i32 = bias_ + block.col_start;
    }
    a.c_zero_point = C_zero_point_;
    a.fuse_relu = FUSE_RELU;
    return true;
  }

  const float* getCMultiplier() const { return C_multiplier_; }
  int32_t getCZeroPoint() const { return C_zero_point_; }
  const BIAS_T* getBias() const { return bias_; }
  const float* getActWScale() const { return act_times_w_scale_; }

 private:
  static constexpr const char* kName = "ReQuantizeOutput";
  nextOPType& nextop_;
  const float* C_multiplier_;
  int32_t C_zero_point_;
  const BIAS_T* bias_;
  const float* act_times_w_scale_;
};

// Dequantizes int32 GEMM results to float:
//   raw = inp - Aq_zero_point * col_offsets[j] - Bq_zero_point[q] * row_offsets[i]
//   out = (float)raw * (Aq_scale * Bq_scale[q])  [+ bias[j]]  [then max(0.0f, .)]
// Works in place on a float C passed as reinterpret_cast<int32_t*>(C).
template <bool FUSE_RELU, QuantizationGranularity Q_GRAN = QuantizationGranularity::TENSOR,
          typename outT = float, typename inT = int32_t,
          typename nextOPType = DoNothing<outT, outT>>
class ReQuantizeForFloat : public detail::ZeroPointOperands {
  static_assert(std::is_same_v<outT, float>, "ReQuantizeForFloat writes float");
  static_assert(std::is_same_v<inT, int32_t>, "ReQuantizeForFloat reads int32_t");

 public:
  static constexpr int RELU_FUSED = FUSE_RELU;
  static constexpr QuantizationGranularity QGRANType = Q_GRAN;
  using outType = outT;
  using inpType = inT;

  ReQuantizeForFloat(nextOPType& nextop, float Aq_scale, const float* Bq_scale,
                     int32_t Aq_zero_point, const int32_t* Bq_zero_point,
                     const int32_t* row_offsets, const int32_t* col_offsets,
                     const float* bias, uint32_t nCol, int groups = 1)
      : ZeroPointOperands(kName, Q_GRAN, Aq_zero_point, Bq_zero_point, row_offsets,
                          col_offsets, nCol, groups),
        nextop_(nextop),
        Aq_scale_(Aq_scale),
        Bq_scale_(Bq_scale),
        bias_(bias) {
    if (Bq_scale == nullptr)
      detail::throw_bad_output_arg(kName, "Bq_scale", "nullptr", "must not be null");
    if (Bq_zero_point == nullptr)
      detail::throw_bad_output_arg(kName, "Bq_zero_point", "nullptr",
                                   "must not be null (pass zeros for symmetric B)");
  }

  // With nothing after it, fbgemmPacked has the kernels apply this op in registers (see
  // ReQuantizeOutput).
  static constexpr bool kRequantizesInKernel = detail::is_do_nothing<nextOPType>::value;

  template <inst_set_t instSet>
  int f(outType* out, const inpType* inp, const block_type_t& block, int ld_out,
        int ld_in) const {
    detail::RequantizeF32Args a{};
    if (!resolveBlock(a, out, inp, block, ld_out, ld_in)) return 0;
    detail::epilogue_requantize_f32(instSet, a);
    return nextop_.template f<instSet>(out, a.out, block, ld_out, ld_out);
  }

  // f's arguments checked and resolved for one block, without computing it; false for an
  // empty block.
  bool resolveBlock(detail::RequantizeF32Args& a, outType* out, const inpType* inp,
                    const block_type_t& block, int ld_out, int ld_in) const {
    if (!set_block(a, kName, out, inp, block, ld_out, ld_in)) return false;
    a.a_scale = Aq_scale_;
    a.b_scale = Bq_scale_;
    a.bias = bias_ != nullptr ? bias_ + block.col_start : nullptr;
    a.fuse_relu = FUSE_RELU;
    return true;
  }

  float getAScale() const { return Aq_scale_; }
  const float* getBScale() const { return Bq_scale_; }
  const float* getBias() const { return bias_; }

 private:
  static constexpr const char* kName = "ReQuantizeForFloat";
  nextOPType& nextop_;
  float Aq_scale_;
  const float* Bq_scale_;
  const float* bias_;
};

}  // namespace quire
QUIRE_API_END
