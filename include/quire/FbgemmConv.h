// fbgemmConv: one convolution, by the path ConvFastPath picks for its shape
// (quire/ConvFastPath.h):
//   depthwise -> detail::depthwise_conv   (direct kernel, requantized in registers)
//   groupwise -> fbgemmGroupwiseConv      (direct kernel, requantized in registers)
//   pointwise -> fbgemmPacked on A itself (PackAWithRowOffset, or PackAMatrix when B is
//                symmetric)
//   directconv -> fbgemmDirectConv        (transposed: GEMM products scattered to the
//                output; its col_offsets are per output pixel, see quire/DirectConv.h)
//   im2col    -> fbgemmPacked on PackAWithIm2Col (im2col fused into packing A)
// The direct kernels apply ReQuantizeOutput's formula themselves, so they run only when
// the output pipeline is a ReQuantizeOutput to uint8 ending the pipeline (what FBGEMM
// instantiates); any other pipeline (ReQuantizeForFloat, ops chained after a
// requantization) runs those shapes as GEMMs (pointwise or im2col, with per-channel
// col_offsets), which apply any pipeline. conv_path_taken says which.
// An empty batch (MB = 0) is valid and does nothing (out is not touched; the data
// pointers may then be null).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "quire/ConvFastPath.h"
#include "quire/ConvUtils.h"
#include "quire/DirectConv.h"
#include "quire/Gemm.h"
#include "quire/GroupwiseConv.h"
#include "quire/OutputProcessing.h"
#include "quire/PackAMatrix.h"
#include "quire/PackAWithIm2Col.h"
#include "quire/PackWeightsForConv.h"
#include "quire/detail/ConvDirect.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {
namespace detail {

// True for ReQuantizeOutput<..., uint8_t, int32_t, DoNothing<uint8_t, uint8_t>>, the
// pipelines the direct kernels implement.
template <class Op>
struct is_direct_requantize : std::false_type {};
template <bool RELU, QuantizationGranularity Q, class BIAS_T>
struct is_direct_requantize<
    ReQuantizeOutput<RELU, Q, BIAS_T, uint8_t, int32_t, DoNothing<uint8_t, uint8_t>>>
    : std::true_type {};

// The requantization of a ReQuantizeOutput pipeline, for the direct kernels.
template <bool RELU, QuantizationGranularity Q, class BIAS_T, int D>
DirectRequant direct_requant(const ReQuantizeOutput<RELU, Q, BIAS_T>& op,
                             const conv_param_t<D>& p, const char* where) {
  check_arg(op.getNCols() == static_cast<uint32_t>(p.OC), where, "outProcess.getNCols()",
            op.getNCols(), "must equal OC");
  if (op.getAZeroPoint() != 0 && op.getColOffsets() == nullptr)
    throw std::invalid_argument(std::string(where) +
                                ": outProcess.getColOffsets() is null but Aq_zero_point = " +
                                std::to_string(op.getAZeroPoint()));
  DirectRequant r;
  r.a_zero_point = op.getAZeroPoint();
  r.b_zero_point = op.getBZeroPoint();
  r.col_offsets = op.getColOffsets();
  r.c_multiplier = op.getCMultiplier();
  r.c_zero_point = op.getCZeroPoint();
  r.act_times_w_scale = op.getActWScale();
  r.fuse_relu = RELU;
  set_bias_and_granularity<Q>(r, op.getBias(), p.OC / p.G);
  return r;
}

}  // namespace detail

// The path fbgemmConv takes for conv_p with output pipeline processOutputType:
// ConvFastPath's, except that depthwise and groupwise shapes with a pipeline other than
// a uint8 ReQuantizeOutput run as GEMMs.
template <typename processOutputType, int SPATIAL_DIM = 2, typename ACC_T = int32_t>
optimized_conv_t conv_path_taken(const conv_param_t<SPATIAL_DIM>& conv_p) {
  const optimized_conv_t path = ConvFastPath<SPATIAL_DIM, ACC_T>(conv_p);
  const bool direct = path == optimized_conv_t::depthwise ||
                      path == optimized_conv_t::groupwise || path == optimized_conv_t::directconv;
  if (!direct || detail::is_direct_requantize<processOutputType>::value) return path;
  return takePointWiseFastPath(conv_p) ? optimized_conv_t::pointwise : optimized_conv_t::im2col;
}

// out (MB x OUT_DIM x OC) = outProcess(conv(activations, weights)) for this thread's
// share: call it once per thread_id in [0, num_threads) with the same arguments.
// activations are MB x IN_DIM x IC (NHWC), uint8, zero point outProcess.getAZeroPoint();
// outBuffer is an int32 scratch of MB * OUT_DIM x OC for the GEMM paths (unused by the
// direct kernels). outProcess is not modified: each call works on its own copy, given
// that call's row offsets. Returns 0; throws std::invalid_argument on bad arguments,
// including weights packed for other parameters, its message starting with
// "[FBGEMM_CONV_ERROR]" as FBGEMM's conv errors do (callers test for that prefix).
template <typename processOutputType, int SPATIAL_DIM = 2, typename ACC_T = int32_t>
int fbgemmConv(const conv_param_t<SPATIAL_DIM>& conv_p, const uint8_t* activations,
               PackWeightsForConv<SPATIAL_DIM, int8_t, ACC_T>& packed_weights,
               typename processOutputType::outType* out, int32_t* outBuffer,
               processOutputType& outProcess, int thread_id, int num_threads,
               const BlockingFactors* blocking_params = nullptr) {
  static_assert(requires(const processOutputType& op) { op.getAZeroPoint(); },
                "fbgemmConv needs an output pipeline that knows the activation zero point "
                "(ReQuantizeOutput or ReQuantizeForFloat)");
  constexpr const char* kWhere = "[FBGEMM_CONV_ERROR] fbgemmConv";
  detail::check_conv_param(conv_p, kWhere);
  detail::check_arg(num_threads >= 1, kWhere, "num_threads", num_threads, "must be >= 1");
  detail::check_arg(thread_id >= 0 && thread_id < num_threads, kWhere, "thread_id", thread_id,
                    "must be in [0, num_threads)");
  if (!packed_weights.isPackingCompliant(conv_p))
    throw std::invalid_argument(std::string(kWhere) +
                                ": packed_weights were packed for other conv parameters (" +
                                packed_weights.mismatchingParams(conv_p) + ")");
  if (conv_p.MB == 0) return 0;
  detail::check_not_null(activations, kWhere, "activations");
  detail::check_not_null(out, kWhere, "out");

  const optimized_conv_t path = conv_path_taken<processOutputType, SPATIAL_DIM, ACC_T>(conv_p);
  if constexpr (detail::is_direct_requantize<processOutputType>::value) {
    if (path == optimized_conv_t::depthwise) {
      const detail::DirectRequant r = detail::direct_requant(outProcess, conv_p, kWhere);
      detail::depthwise_conv(detail::conv_geometry(conv_p), activations,
                             packed_weights.getPackedWForDepthwise()->PackedMat(), r, out,
                             thread_id, num_threads, kWhere);
      return 0;
    }
    if (path == optimized_conv_t::directconv) {
      fbgemmDirectConv(conv_p, activations, *packed_weights.getPackedWForDirectconv(), out,
                       outBuffer, outProcess, outProcess.getBias(), thread_id, num_threads);
      return 0;
    }
    if (path == optimized_conv_t::groupwise) {
      const detail::DirectRequant r = detail::direct_requant(outProcess, conv_p, kWhere);
      detail::groupwise_conv(detail::conv_geometry(conv_p), activations,
                             packed_weights.getPackedWForGroupwise()->getBuf(), r, out,
                             thread_id, num_threads, kWhere);
      return 0;
    }
  }

  // GEMM paths. Row sums are needed only for nonzero B zero points.
  processOutputType op = outProcess;
  const bool b_sym = detail::b_symmetric(outProcess, conv_p);
  std::vector<int32_t> row_offsets(
      PackAWithIm2Col<uint8_t, ACC_T, SPATIAL_DIM>::rowOffsetBufferSize(blocking_params));
  if constexpr (requires { op.setRowOffsets(row_offsets.data()); })
    op.setRowOffsets(b_sym ? nullptr : row_offsets.data());
  auto& weights = packed_weights.gemmWeights();
  const uint32_t ldc = static_cast<uint32_t>(conv_p.OC);
  if (path == optimized_conv_t::pointwise) {
    const int32_t M = detail::conv_geometry(conv_p).gemm_m();
    if (b_sym) {
      PackAMatrix<uint8_t, ACC_T> packA(matrix_op_t::NoTranspose, M, conv_p.IC, activations,
                                        conv_p.IC, nullptr, conv_p.G, blocking_params);
      fbgemmPacked(packA, weights, out, outBuffer, ldc, op, thread_id, num_threads,
                   blocking_params);
    } else {
      PackAWithRowOffset<uint8_t, ACC_T> packA(matrix_op_t::NoTranspose, M, conv_p.IC,
                                               activations, conv_p.IC, nullptr, conv_p.G,
                                               row_offsets.data(), blocking_params);
      fbgemmPacked(packA, weights, out, outBuffer, ldc, op, thread_id, num_threads,
                   blocking_params);
    }
    return 0;
  }
  PackAWithIm2Col<uint8_t, ACC_T, SPATIAL_DIM> packA(conv_p, activations, nullptr,
                                                     outProcess.getAZeroPoint(),
                                                     row_offsets.data(), b_sym, blocking_params);
  fbgemmPacked(packA, weights, out, outBuffer, ldc, op, thread_id, num_threads, blocking_params);
  return 0;
}

}  // namespace quire
QUIRE_API_END
