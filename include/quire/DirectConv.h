// The direct transposed convolution (FBGEMM's FbgemmI8DirectconvAvx2.h and
// fbgemmDirectConv): what fbgemmConv runs for the shapes ConvFastPath sends to
// optimized_conv_t::directconv (quire/ConvFastPath.h), and what a caller may run itself.
//
// A transposed convolution computed as a gather (im2col of the transposed problem) reads
// the zero point for every tap no input reaches: with stride 2, three taps in four. The
// direct form scatters instead: each input row times the kernel rows is one GEMM on
// quire's int8 kernels, and its products are added to the output pixels they reach
// (quire/detail/ConvTransposed.h). Only real products are computed.
//
// Its requantization differs from the GEMM paths' in one operand, as in FBGEMM: how many
// products reach an output pixel depends on the pixel, so the column offsets are per
// output pixel and channel, col_offsets[p * OC + oc] for the pixels p of one image, made
// by PackedDirectConvMatrix::col_offsets_with_zero_pt_s8acc32_DirectConvT and passed as
// ReQuantizeOutput's col_offsets. With them,
//   raw[p][oc] = acc[p][oc] - a_zp * col_offsets[p * OC + oc] - b_zp[q(oc)] * row_sum[p]
// (row_sum[p]: the sum of the input pixels reaching p) is exactly the raw value of the
// im2col GEMM whose padding reads a_zp, so the outputs equal the reference's bit for bit;
// then ReQuantizeOutput's formula (quire/OutputProcessing.h) on each output row.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quire/ConvUtils.h"
#include "quire/Gemm.h"
#include "quire/OutputProcessing.h"
#include "quire/PackBMatrix.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"
#include "quire/detail/ConvDirect.h"
#include "quire/detail/ConvGeometry.h"
#include "quire/detail/ConvTransposed.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// The weights of a direct transposed convolution (G = 1), packed once: a PackBMatrix of
// IC rows and filter_prod * OC columns ordered (tap, oc), so that one kernel row's taps
// are a contiguous column range.
class PackedDirectConvMatrix {
 public:
  // smat: KRSC, OC_per_G x filter_prod x IC_per_G (filter_prod = KH * KW, taps
  // row-major). Throws std::invalid_argument on bad arguments.
  PackedDirectConvMatrix(int IC_per_G, int OC_per_G, int filter_prod, const std::int8_t* smat);
  PackedDirectConvMatrix(const PackedDirectConvMatrix&) = delete;
  PackedDirectConvMatrix(PackedDirectConvMatrix&&) = delete;
  PackedDirectConvMatrix& operator=(const PackedDirectConvMatrix&) = delete;
  PackedDirectConvMatrix& operator=(PackedDirectConvMatrix&&) = delete;
  virtual ~PackedDirectConvMatrix();

  // The packed bytes (quire's PackBMatrix layout, see above).
  const std::int8_t* PackedMat() const { return packed_->getBuf(); }
  // True until col_offsets_with_zero_pt_s8acc32_DirectConvT has filled offsets once.
  const bool& is_first_call() const { return first_call_; }

  // On the first call only (later calls return at once, as in FBGEMM, whose callers
  // compute the offsets on their first forward pass): col_offsets becomes MB * OUT_DIM x
  // OC values (at least one image's worth), the first image's pixels holding
  //   col[p][oc] = sum of W[oc][t][:] over the taps t reaching p
  //                - B_zero_point[oc / ncols_per_quant_group] * (number of them) * IC
  // and the rest zero; fbgemmDirectConv reads the first image's for every image.
  template <int kSpatialDim>
  void col_offsets_with_zero_pt_s8acc32_DirectConvT(
      const conv_param_t<kSpatialDim>& conv_p, std::int32_t* B_zero_point,
      std::vector<int32_t>& col_offsets, int ncols_per_quant_group) {
    if (!first_call_) return;
    constexpr const char* kWhere = "col_offsets_with_zero_pt_s8acc32_DirectConvT";
    const detail::ConvGeometry g = checkedGeometry(conv_p, kWhere);
    detail::check_not_null(B_zero_point, kWhere, "B_zero_point");
    detail::check_arg(ncols_per_quant_group >= 1, kWhere, "ncols_per_quant_group",
                      ncols_per_quant_group, "must be >= 1");
    const size_t image = static_cast<size_t>(g.out_pixels()) * g.out_channels;
    col_offsets.assign(image * static_cast<size_t>(conv_p.MB > 1 ? conv_p.MB : 1), 0);
    detail::transposed_pixel_col_offsets(g, tap_sums_.data(), B_zero_point,
                                         ncols_per_quant_group, col_offsets.data());
    first_call_ = false;
  }

  // quire's additions.
  int inputChannels() const { return ic_; }
  int outputChannels() const { return oc_; }
  int kernelProduct() const { return kernel_prod_; }
  const PackBMatrix<int8_t, int32_t>& packedB() const { return *packed_; }
  // Writes the weights back in KRSC layout (OC x filter_prod x IC).
  void unpack(int8_t* origin_buf) const;
  // The geometry of conv_p after checking that these weights serve it (transposed,
  // G = 1, the same channels and kernel size); throws std::invalid_argument otherwise.
  template <int D>
  detail::ConvGeometry checkedGeometry(const conv_param_t<D>& conv_p, const char* where) const {
    detail::check_conv_param(conv_p, where);
    detail::check_arg(conv_p.transposed, where, "conv_p.transposed", 0,
                      "must be true (the direct convolution is transposed only)");
    detail::check_arg(conv_p.G == 1, where, "conv_p.G", conv_p.G, "must be 1");
    const detail::ConvGeometry g = detail::conv_geometry(conv_p);
    detail::check_arg(conv_p.IC == ic_, where, "conv_p.IC", conv_p.IC,
                      ("must equal the packed IC = " + std::to_string(ic_)).c_str());
    detail::check_arg(conv_p.OC == oc_, where, "conv_p.OC", conv_p.OC,
                      ("must equal the packed OC = " + std::to_string(oc_)).c_str());
    detail::check_arg(g.kernel_prod() == kernel_prod_, where, "kernel size", g.kernel_prod(),
                      ("must equal the packed filter_prod = " + std::to_string(kernel_prod_)).c_str());
    return g;
  }

 private:
  int ic_, oc_, kernel_prod_;
  std::vector<int32_t> tap_sums_;  // [oc * kernel_prod + t] = sum over ic of W[oc][t][ic]
  std::unique_ptr<PackBMatrix<int8_t, int32_t>> packed_;
  bool first_call_ = true;
};

namespace detail {

// What the row callback of transposed_conv needs to requantize a row.
template <class Op>
struct DirectRowOutput {
  Op* op;  // this call's copy, with a zero A zero point (its term is already applied)
  uint8_t* C;
  int ow, oc;
  inst_set_t isa;

  static void finish(void* ctx, int64_t row, int32_t* acc, const int32_t* row_sums) {
    auto& self = *static_cast<DirectRowOutput*>(ctx);
    self.op->setRowOffsets(row_sums);
    run_output(*self.op, self.isa, self.C + row * self.ow * self.oc, acc,
               block_type_t{0, self.ow, 0, self.oc}, self.oc);
  }
};

}  // namespace detail

// C (MB x OUT_DIM x OC) = outProcess(transposed conv(Aint8, Bint8_tr)) for this thread's
// share of the output rows: call it once per thread_id in [0, num_threads) (FBGEMM's runs
// everything on thread 0). outProcess's col_offsets are the per-pixel offsets described
// at the top of this file; bias, as in FBGEMM, switches outProcess's bias on (non-null)
// or off (null). C_buffer is an int32 scratch of MB * OUT_DIM x OC. An empty batch
// (MB = 0) does nothing. Throws std::invalid_argument on bad arguments (FBGEMM asserts:
// conv_p not transposed, 1D and 3D, which quire runs too).
template <int SPATIAL_DIM, QuantizationGranularity Q_GRAN, bool FUSE_RELU,
          typename BIAS_TYPE = std::int32_t>
void fbgemmDirectConv(const conv_param_t<SPATIAL_DIM>& conv_p, const uint8_t* Aint8,
                      PackedDirectConvMatrix& Bint8_tr, uint8_t* C, int32_t* C_buffer,
                      const ReQuantizeOutput<FUSE_RELU, Q_GRAN, BIAS_TYPE>& outProcess,
                      const BIAS_TYPE* bias, int thread_id, int num_threads) {
  constexpr const char* kWhere = "fbgemmDirectConv";
  const detail::ConvGeometry g = Bint8_tr.checkedGeometry(conv_p, kWhere);
  detail::check_arg(num_threads >= 1, kWhere, "num_threads", num_threads, "must be >= 1");
  detail::check_arg(thread_id >= 0 && thread_id < num_threads, kWhere, "thread_id", thread_id,
                    "must be in [0, num_threads)");
  detail::check_arg(outProcess.getNCols() == static_cast<uint32_t>(conv_p.OC), kWhere,
                    "outProcess.getNCols()", outProcess.getNCols(), "must equal OC");
  if (outProcess.getAZeroPoint() != 0 && outProcess.getColOffsets() == nullptr)
    throw std::invalid_argument(std::string(kWhere) +
                                ": outProcess.getColOffsets() is null but Aq_zero_point = " +
                                std::to_string(outProcess.getAZeroPoint()));
  if (bias != nullptr && outProcess.getBias() == nullptr)
    throw std::invalid_argument(std::string(kWhere) +
                                ": bias is not null but outProcess.getBias() is null");
  if (conv_p.MB == 0) return;
  detail::check_not_null(Aint8, kWhere, "Aint8");
  detail::check_not_null(C, kWhere, "C");
  detail::check_not_null(C_buffer, kWhere, "C_buffer");

  DoNothing<> done;
  ReQuantizeOutput<FUSE_RELU, Q_GRAN, BIAS_TYPE> op(
      done, outProcess.getCMultiplier(), outProcess.getCZeroPoint(), 0,
      outProcess.getBZeroPoint(), nullptr, nullptr, bias != nullptr ? outProcess.getBias() : nullptr,
      outProcess.getNCols(), 1, outProcess.getActWScale());
  const inst_set_t isa = fbgemmInstructionSet();  // read once for the whole call
  detail::DirectRowOutput<decltype(op)> out{&op, C, g.out[2], g.out_channels, isa};
  detail::TransposedConvArgs args{};
  args.g = &g;
  args.A = Aint8;
  args.b_layout = &Bint8_tr.packedB().layout();
  args.b = Bint8_tr.packedB().panel(0, 0);
  args.acc = C_buffer;
  args.a_zero_point = outProcess.getAZeroPoint();
  args.pixel_col_offsets = outProcess.getAZeroPoint() != 0 ? outProcess.getColOffsets() : nullptr;
  args.row_sums = !detail::b_symmetric(outProcess, conv_p);
  args.finish = &decltype(out)::finish;
  args.ctx = &out;
  args.inst_set = isa;
  detail::transposed_conv(args, thread_id, num_threads);
}

}  // namespace quire
QUIRE_API_END
