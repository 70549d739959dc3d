// Groupwise convolution with few channels per group (IC/G == OC/G in {2, 4, 8, 16},
// e.g. ResNeXt's G = 32): a direct kernel whose vectors span the output channels of
// several groups at once (16 lanes = 8 groups of 2, 4 of 4, 2 of 8 or 1 of 16), instead
// of one GEMM per group whose N = OC/G leaves most lanes of a vector idle
// (docs/convolution.md, "Groupwise"). Any other grouped shape packs and runs too, as
// FBGEMM's PackWeightMatrixForGConv accepts it: weights kept as G x kernel x IC/G x
// OC/G and the convolution run as an im2col GEMM.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "quire/ConvFastPath.h"
#include "quire/ConvUtils.h"
#include "quire/Gemm.h"
#include "quire/OutputProcessing.h"
#include "quire/PackAWithIm2Col.h"
#include "quire/PackBMatrix.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"
#include "quire/detail/ConvDirect.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

namespace detail {

// Packed groupwise weights of the direct kernel: for output-channel vector v (16
// channels), tap t, input dword d (channels 4d .. 4d+3 of the group), lane l (output
// channel 16 v + l, group g = (16 v + l) / cg, o = its index in the group), byte b:
//   packed[(((v * taps + t) * dq + d) * 16 + l) * 4 + b] = W[g][o][t][4 d + b]
// with cg = IC/G = OC/G, dq = ceil(cg / 4), zero for channels past OC or cg.
int64_t gconv_packed_bytes(const ConvGeometry& g);
// src: KRSC (G x OC/G x taps x IC/G) when krsc, else G x taps x IC/G x OC/G.
void pack_gconv_weights(const ConvGeometry& g, bool krsc, const int8_t* src, int8_t* dst);
void unpack_gconv_weights(const ConvGeometry& g, bool krsc, const int8_t* packed, int8_t* dst);

}  // namespace detail

template <typename T = int8_t, typename accT = int32_t, int SPATIAL_DIM = 2>
class PackWeightMatrixForGConv {
  static_assert(std::is_same_v<T, int8_t>, "weights must be int8_t");
  // accT = int16_t (acc16) packs the same: the groupwise kernels accumulate exactly in
  // int32 whatever the accT, as docs/acc16.md says.
  static_assert(std::is_same_v<accT, int32_t> || std::is_same_v<accT, int16_t>,
                "accT must be int32_t or int16_t");

 public:
  using This = PackWeightMatrixForGConv<T, accT, SPATIAL_DIM>;
  using inpType = T;
  using accType = accT;

  // trans: Transpose means sdata is KRSC (G x OC/G x kernel x IC/G, what PackWeightsForConv
  // takes); NoTranspose means G x kernel x IC/G x OC/G. Any grouped convolution: the
  // direct kernel's shapes (fbgemmOptimizedGConv) get its layout, the others FBGEMM's
  // G x kernel x IC/G x OC/G. pdata, if given, must hold packedBufferSize(conv_param)
  // bytes.
  PackWeightMatrixForGConv(matrix_op_t trans, const conv_param_t<SPATIAL_DIM>& conv_param,
                           const T* sdata, T* pdata = nullptr)
      : trans_(trans), conv_param_(conv_param), sdata_(sdata), pdata_(pdata) {
    constexpr const char* kWhere = "PackWeightMatrixForGConv";
    detail::check_conv_param(conv_param, kWhere);
    detail::check_arg(trans == matrix_op_t::NoTranspose || trans == matrix_op_t::Transpose,
                      kWhere, "trans", static_cast<int>(trans), "is not a matrix_op_t");
    detail::check_not_null(sdata, kWhere, "sdata");
    if (pdata_ == nullptr) {
      pdata_ = static_cast<T*>(
          fbgemmAlignedAlloc(64, static_cast<size_t>(packedBufferSize(conv_param)), true));
      owns_ = true;
    }
    pack();
  }
  ~PackWeightMatrixForGConv() {
    if (owns_) fbgemmAlignedFree(pdata_);
  }
  PackWeightMatrixForGConv(const PackWeightMatrixForGConv&) = delete;
  PackWeightMatrixForGConv& operator=(const PackWeightMatrixForGConv&) = delete;

  // Groups whose output channels share one 16-lane vector of the direct kernel.
  static int numOfGroupsTogether(const conv_param_t<SPATIAL_DIM>& conv_param) {
    const int cg = conv_param.OC / conv_param.G;
    return cg >= 16 ? 1 : 16 / cg;
  }
  static int64_t packedBufferSize(const conv_param_t<SPATIAL_DIM>& conv_param) {
    const detail::ConvGeometry g = detail::conv_geometry(conv_param);
    if (fbgemmOptimizedGConv(conv_param)) return detail::gconv_packed_bytes(g);
    return int64_t{conv_param.OC} * g.gemm_k_per_group();
  }

  // (Re)packs sdata, the source given at construction.
  void pack() {
    const detail::ConvGeometry g = detail::conv_geometry(conv_param_);
    const bool krsc = trans_ == matrix_op_t::Transpose;
    if (fbgemmOptimizedGConv(conv_param_)) {
      detail::pack_gconv_weights(g, krsc, sdata_, pdata_);
    } else if (krsc) {
      transpose_groups(g, sdata_, pdata_, true);
    } else {
      std::memcpy(pdata_, sdata_, static_cast<size_t>(packedBufferSize(conv_param_)));
    }
    std::lock_guard<std::mutex> lock(gemm_mutex_);
    gemm_b_.reset();
  }
  // Writes the weights back in the layout given at construction.
  void unpack(T* origin_buf) const {
    detail::check_not_null(origin_buf, "PackWeightMatrixForGConv::unpack", "origin_buf");
    const detail::ConvGeometry g = detail::conv_geometry(conv_param_);
    const bool krsc = trans_ == matrix_op_t::Transpose;
    if (fbgemmOptimizedGConv(conv_param_)) {
      detail::unpack_gconv_weights(g, krsc, pdata_, origin_buf);
    } else if (krsc) {
      transpose_groups(g, pdata_, origin_buf, false);
    } else {
      std::memcpy(origin_buf, pdata_, static_cast<size_t>(packedBufferSize(conv_param_)));
    }
  }
  T* getBuf() { return pdata_; }
  const T* getBuf() const { return pdata_; }
  const conv_param_t<SPATIAL_DIM>& convParam() const { return conv_param_; }

  // For a shape the direct kernel does not take: the weights as the im2col GEMM's packed
  // B, made from getBuf() on first use (thread-safe) and again after pack().
  PackBMatrix<int8_t, int32_t>& gemmWeights() {
    std::lock_guard<std::mutex> lock(gemm_mutex_);
    if (!gemm_b_) {
      // G x (kernel x IC/G) x OC/G is the GEMM's B, group by group, row-major.
      const detail::ConvGeometry g = detail::conv_geometry(conv_param_);
      const int ocg = conv_param_.OC / conv_param_.G;
      gemm_b_ = std::make_unique<PackBMatrix<int8_t, int32_t>>(
          matrix_op_t::NoTranspose, g.gemm_k_per_group() * conv_param_.G, ocg, pdata_, ocg,
          nullptr, conv_param_.G);
    }
    return *gemm_b_;
  }

 private:
  // KRSC (G x OC/G x kernel x IC/G) <-> G x kernel x IC/G x OC/G, one group at a time.
  static void transpose_groups(const detail::ConvGeometry& g, const T* src, T* dst, bool to_gemm) {
    const int ocg = g.oc_per_group(), kg = g.gemm_k_per_group();
    for (int grp = 0; grp < g.groups; ++grp) {
      const int64_t base = int64_t{grp} * ocg * kg;
      for (int o = 0; o < ocg; ++o) {
        for (int k = 0; k < kg; ++k) {
          const int64_t krsc = base + int64_t{o} * kg + k, gemm = base + int64_t{k} * ocg + o;
          if (to_gemm) dst[gemm] = src[krsc];
          else dst[krsc] = src[gemm];
        }
      }
    }
  }

  matrix_op_t trans_;
  conv_param_t<SPATIAL_DIM> conv_param_;
  const T* sdata_;
  T* pdata_;
  bool owns_ = false;
  std::mutex gemm_mutex_;
  std::unique_ptr<PackBMatrix<int8_t, int32_t>> gemm_b_;
};

// The direct groupwise kernel keeps its row sums in registers: no buffer is needed.
template <int SPATIAL_DIM = 2>
int rowOffsetBufferSizeGConv(const conv_param_t<SPATIAL_DIM>& /*conv_param*/) {
  return 0;
}

// out (MB x OUT_DIM x OC, uint8) = the requantized groupwise convolution, this thread's
// share of the output pixels. a_zero_point fills the padding and must equal
// outProcess.getAZeroPoint(); rowOffsetBuf is not used (may be null). A shape the
// direct kernel does not take (fbgemmOptimizedGConv false; FBGEMM's kernel computes
// nothing meaningful there) runs as the im2col GEMM with outBuffer (MB * OUT_DIM x OC
// int32, allocated here when null) as its scratch. GROUP granularity means one
// quantization group per conv group.
template <typename packed_W, typename outType, bool FUSE_RELU, QuantizationGranularity Q_GRAN,
          int SPATIAL_DIM = 2, typename BIAS_TYPE = int32_t>
void fbgemmGroupwiseConv(const conv_param_t<SPATIAL_DIM>& conv_param, const uint8_t* activations,
                         int32_t a_zero_point, int32_t* /*rowOffsetBuf*/,
                         packed_W& packed_weights, outType* out, int32_t* outBuffer,
                         const ReQuantizeOutput<FUSE_RELU, Q_GRAN, BIAS_TYPE>& outProcess,
                         int thread_id, int num_threads) {
  static_assert(std::is_same_v<outType, uint8_t>, "groupwise output is uint8_t");
  constexpr const char* kWhere = "fbgemmGroupwiseConv";
  detail::check_conv_param(conv_param, kWhere);
  const auto& pc = packed_weights.convParam();
  const bool same = pc.IC == conv_param.IC && pc.OC == conv_param.OC && pc.G == conv_param.G &&
                    pc.K == conv_param.K && fbgemmOptimizedGConv(pc) == fbgemmOptimizedGConv(conv_param);
  detail::check_arg(same, kWhere, "packed_weights", 0,
                    ("were packed for " + pc.toString() + ", not " + conv_param.toString()).c_str());
  detail::check_arg(a_zero_point == outProcess.getAZeroPoint(), kWhere, "a_zero_point",
                    a_zero_point, "must equal outProcess.getAZeroPoint()");
  detail::check_arg(outProcess.getNCols() == static_cast<uint32_t>(conv_param.OC), kWhere,
                    "outProcess.getNCols()", outProcess.getNCols(), "must equal OC");
  if (!fbgemmOptimizedGConv(conv_param)) {
    detail::check_arg(num_threads >= 1, kWhere, "num_threads", num_threads, "must be >= 1");
    detail::check_arg(thread_id >= 0 && thread_id < num_threads, kWhere, "thread_id", thread_id,
                      "must be in [0, num_threads)");
    if (conv_param.MB == 0) return;
    detail::check_not_null(activations, kWhere, "activations");
    detail::check_not_null(out, kWhere, "out");
    const detail::ConvGeometry g = detail::conv_geometry(conv_param);
    std::vector<int32_t> scratch(
        outBuffer == nullptr ? static_cast<size_t>(g.gemm_m()) * conv_param.OC : 0);
    const bool b_sym = detail::b_symmetric(outProcess, conv_param);
    std::vector<int32_t> row_offsets(PackAWithIm2Col<uint8_t, int32_t, SPATIAL_DIM>::rowOffsetBufferSize());
    ReQuantizeOutput<FUSE_RELU, Q_GRAN, BIAS_TYPE> op = outProcess;
    op.setRowOffsets(b_sym ? nullptr : row_offsets.data());
    PackAWithIm2Col<uint8_t, int32_t, SPATIAL_DIM> packA(conv_param, activations, nullptr,
                                                         a_zero_point, row_offsets.data(), b_sym);
    fbgemmPacked(packA, packed_weights.gemmWeights(), out,
                 outBuffer != nullptr ? outBuffer : scratch.data(),
                 static_cast<int32_t>(conv_param.OC), op, thread_id, num_threads);
    return;
  }
  detail::DirectRequant r;
  r.a_zero_point = a_zero_point;
  r.b_zero_point = outProcess.getBZeroPoint();
  r.col_offsets = outProcess.getColOffsets();
  r.c_multiplier = outProcess.getCMultiplier();
  r.c_zero_point = outProcess.getCZeroPoint();
  r.act_times_w_scale = outProcess.getActWScale();
  r.fuse_relu = FUSE_RELU;
  detail::set_bias_and_granularity<Q_GRAN>(r, outProcess.getBias(), conv_param.OC / conv_param.G);
  detail::groupwise_conv(detail::conv_geometry(conv_param), activations, packed_weights.getBuf(),
                         r, out, thread_id, num_threads, kWhere);
}

}  // namespace quire
QUIRE_API_END
