// PackWeightsForConv: a convolution's weights, packed once for the path its shape takes
// (ConvFastPath): PackedDepthWiseConvMatrix, PackWeightMatrixForGConv,
// PackedDirectConvMatrix, or PackBMatrix for the GEMM paths (pointwise and im2col). sdata is KRSC: G x OC/G x kernel x IC/G,
// which is exactly PackBMatrix's Transpose form with K = kernel * IC and N = OC / G.
//
// fbgemmConv runs the depthwise, groupwise and directconv kernels only for a
// ReQuantizeOutput pipeline; any other output pipeline on those shapes runs as a GEMM, whose packed B
// is then made once, on first use, from the packed direct form (gemmWeights()).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "quire/ConvFastPath.h"
#include "quire/ConvUtils.h"
#include "quire/Depthwise.h"
#include "quire/DirectConv.h"
#include "quire/GroupwiseConv.h"
#include "quire/PackBMatrix.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <int SPATIAL_DIM = 2, typename T = int8_t, typename accT = int32_t>
class PackWeightsForConv {
 public:
  using This = PackWeightsForConv<SPATIAL_DIM, T, accT>;
  using inpType = T;
  using accType = accT;

  PackWeightsForConv(const conv_param_t<SPATIAL_DIM>& conv_param, const inpType* sdata,
                     const BlockingFactors* blocking_params = nullptr)
      : conv_param_(checked(conv_param)), path_(ConvFastPath<SPATIAL_DIM, accT>(conv_param)) {
    detail::check_not_null(sdata, kWhere, "sdata");
    if (blocking_params != nullptr) blocking_ = *blocking_params;
    switch (path_) {
      case optimized_conv_t::depthwise:
        W_dw_packed_ =
            std::make_shared<PackedDepthWiseConvMatrix>(conv_param.OC, kernelProduct(), sdata);
        break;
      case optimized_conv_t::groupwise:
        W_gconv_packed_ = std::make_shared<PackWeightMatrixForGConv<T, accT, SPATIAL_DIM>>(
            matrix_op_t::Transpose, conv_param, sdata);
        break;
      case optimized_conv_t::pointwise:
        W_pointwise_packed_ = packGemm(sdata);
        break;
      case optimized_conv_t::directconv:
        W_dc_packed_ = std::make_shared<PackedDirectConvMatrix>(conv_param.IC, conv_param.OC,
                                                                kernelProduct(), sdata);
        break;
      default:
        W_im2col_packed_ = packGemm(sdata);
        break;
    }
  }
  PackWeightsForConv(const PackWeightsForConv&) = delete;
  PackWeightsForConv& operator=(const PackWeightsForConv&) = delete;

  // Each getter returns the packed form of its path, or null when the shape takes
  // another path.
  std::shared_ptr<PackBMatrix<T, accT>> getPackedWForIm2col() { return W_im2col_packed_; }
  std::shared_ptr<PackedDepthWiseConvMatrix> getPackedWForDepthwise() { return W_dw_packed_; }
  std::shared_ptr<PackWeightMatrixForGConv<T, accT, SPATIAL_DIM>> getPackedWForGroupwise() {
    return W_gconv_packed_;
  }
  std::shared_ptr<PackBMatrix<T, accT>> getPackedWForPointwise() { return W_pointwise_packed_; }
  std::shared_ptr<PackedDirectConvMatrix> getPackedWForDirectconv() { return W_dc_packed_; }

  int inputChannels() const { return conv_param_.IC; }
  int outputChannels() const { return conv_param_.OC; }
  std::array<int, SPATIAL_DIM> kernelDims() const { return conv_param_.K; }
  int groups() const { return conv_param_.G; }
  // The path the weights were packed for.
  optimized_conv_t path() const { return path_; }

  // True when these weights serve conv_p: same channels, groups, kernel, strides, pads,
  // dilations and transposition (which fix both the weights and the path).
  // Compared field by field: fbgemmConv asks on every call, and building the message
  // (mismatchingParams) each time showed as about 1% of a small layer's profile (the
  // call's time did not move measurably).
  bool isPackingCompliant(const conv_param_t<SPATIAL_DIM>& conv_p) const {
    const conv_param_t<SPATIAL_DIM>& p = conv_param_;
    return p.IC == conv_p.IC && p.OC == conv_p.OC && p.G == conv_p.G && p.K == conv_p.K &&
           p.stride == conv_p.stride && p.pad == conv_p.pad && p.dilation == conv_p.dilation &&
           p.transposed == conv_p.transposed;
  }
  // "IC: packed 64, given 32; K: packed [3, 3], given [1, 1]", or "" when compliant.
  std::string mismatchingParams(const conv_param_t<SPATIAL_DIM>& conv_p) const {
    std::string msg;
    const auto add = [&msg](const char* name, const std::string& packed, const std::string& given) {
      if (packed == given) return;
      if (!msg.empty()) msg += "; ";
      msg += std::string(name) + ": packed " + packed + ", given " + given;
    };
    const auto str = [](const auto& a) {
      std::string s = "[";
      for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + std::to_string(a[i]);
      return s + "]";
    };
    const conv_param_t<SPATIAL_DIM>& p = conv_param_;
    add("IC", std::to_string(p.IC), std::to_string(conv_p.IC));
    add("OC", std::to_string(p.OC), std::to_string(conv_p.OC));
    add("G", std::to_string(p.G), std::to_string(conv_p.G));
    add("K", str(p.K), str(conv_p.K));
    add("stride", str(p.stride), str(conv_p.stride));
    add("pad", str(p.pad), str(conv_p.pad));
    add("dilation", str(p.dilation), str(conv_p.dilation));
    add("transposed", std::to_string(p.transposed), std::to_string(conv_p.transposed));
    return msg;
  }

  // Writes the weights back in KRSC layout (G x OC/G x kernel x IC/G).
  void unpack(T* origin_buf) const {
    detail::check_not_null(origin_buf, "PackWeightsForConv::unpack", "origin_buf");
    if (W_dw_packed_) {
      W_dw_packed_->unpack(origin_buf);
    } else if (W_gconv_packed_) {
      W_gconv_packed_->unpack(origin_buf);
    } else if (W_dc_packed_) {
      W_dc_packed_->unpack(origin_buf);
    } else {
      (W_im2col_packed_ ? W_im2col_packed_ : W_pointwise_packed_)->unpack(origin_buf);
    }
  }

  // The weights as a packed B for the GEMM paths: the pointwise or im2col form, or for
  // a depthwise, groupwise or directconv shape one made on first call (thread-safe) by
  // unpacking the direct form.
  PackBMatrix<T, accT>& gemmWeights() {
    if (W_im2col_packed_) return *W_im2col_packed_;
    if (W_pointwise_packed_) return *W_pointwise_packed_;
    std::call_once(gemm_once_, [this] {
      std::vector<T> krsc(static_cast<size_t>(conv_param_.OC) * kernelProduct() *
                          (conv_param_.IC / conv_param_.G));
      unpack(krsc.data());
      gemm_fallback_ = packGemm(krsc.data());
    });
    return *gemm_fallback_;
  }

 private:
  static constexpr const char* kWhere = "PackWeightsForConv";

  static const conv_param_t<SPATIAL_DIM>& checked(const conv_param_t<SPATIAL_DIM>& p) {
    detail::check_conv_param(p, kWhere);
    return p;
  }
  int kernelProduct() const {
    int k = 1;
    for (int v : conv_param_.K) k *= v;
    return k;
  }
  std::shared_ptr<PackBMatrix<T, accT>> packGemm(const T* krsc) const {
    const int kg = kernelProduct() * (conv_param_.IC / conv_param_.G);
    return std::make_shared<PackBMatrix<T, accT>>(
        matrix_op_t::Transpose, kg * conv_param_.G, conv_param_.OC / conv_param_.G, krsc, kg,
        nullptr, conv_param_.G, blocking_ ? &*blocking_ : nullptr);
  }

  const conv_param_t<SPATIAL_DIM> conv_param_;
  optimized_conv_t path_;
  std::optional<BlockingFactors> blocking_;
  std::shared_ptr<PackBMatrix<T, accT>> W_im2col_packed_;
  std::shared_ptr<PackedDepthWiseConvMatrix> W_dw_packed_;
  std::shared_ptr<PackWeightMatrixForGConv<T, accT, SPATIAL_DIM>> W_gconv_packed_;
  std::shared_ptr<PackBMatrix<T, accT>> W_pointwise_packed_;
  std::shared_ptr<PackedDirectConvMatrix> W_dc_packed_;
  std::once_flag gemm_once_;
  std::shared_ptr<PackBMatrix<T, accT>> gemm_fallback_;
};

}  // namespace quire
QUIRE_API_END
