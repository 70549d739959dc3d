// ConvKernelTester: the convolution entries of one path's ConvKernels (src/conv/
// conv_kernels.h) called directly, outside the conv ops and PackAWithIm2Col, on a layer
// built from the options, and compared bit for bit with quire::ref (ReferenceConv.h,
// through conv_test_util.h's ConvProblem and Requant). A shape builder in the manner of
// XNNPACK's micro-kernel testers (docs/kernel-tester.md):
//   ConvKernelTester<2>().channels(16).input(7).kernel(3).stride(2).pad(1)
//       .TestDepthwise(table);
// The depthwise and groupwise kernels run over 1 to 3 thread shares of the output
// pixels (rows, for the depthwise row kernels); im2col_rows over stretches of output
// pixels whose taps are in or out of the input alike.
#pragma once

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "conv/conv_kernels.h"
#include "conv/depthwise_layout.h"
#include "conv/depthwise_rows.h"
#include "conv/direct_params.h"
#include "conv_test_util.h"
#include "quire/detail/Im2Col.h"

namespace quire::test {

template <int D>
class ConvKernelTester {
 public:
  ConvKernelTester& batch(int v) { batch_ = v; return *this; }
  ConvKernelTester& channels(int v) { channels_ = v; return *this; }  // IC; depthwise: G
  ConvKernelTester& multiplier(int v) { multiplier_ = v; return *this; }  // depthwise OC / IC
  ConvKernelTester& groups(int v) { groups_ = v; return *this; }  // im2col, groupwise
  ConvKernelTester& input(int v) { input_ = v; return *this; }    // every spatial dim
  ConvKernelTester& kernel(int v) { kernel_ = v; return *this; }
  ConvKernelTester& stride(int v) { stride_ = v; return *this; }
  ConvKernelTester& pad(int v) { pad_ = v; return *this; }        // begin and end
  ConvKernelTester& dilation(int v) { dilation_ = v; return *this; }
  ConvKernelTester& a_zero_point(int32_t v) { a_zp_ = v; return *this; }
  ConvKernelTester& granularity(QuantizationGranularity v) { gran_ = v; return *this; }
  ConvKernelTester& bias(BiasKind v) { bias_ = v; return *this; }
  ConvKernelTester& relu(bool v) { relu_ = v; return *this; }
  ConvKernelTester& b_symmetric(bool v) { b_sym_ = v; return *this; }
  ConvKernelTester& threads(int v) { threads_ = v; return *this; }
  ConvKernelTester& seed(uint32_t v) { seed_ = v; return *this; }

  // G = IC, OC = multiplier * IC: the pixel kernel, and the row kernels where the
  // path has them and they take the layer. Returns whether the row kernels ran.
  bool TestDepthwise(const conv::ConvKernels& t) const {
    const ConvProblem<D> c(param(channels_, channels_ * multiplier_), a_zp_, seed_);
    const Requant<D> rq(c, gran_, relu_, bias_, b_sym_, seed_ + 1);
    const detail::DirectRequant r = requant(c, rq);
    const detail::ConvGeometry g = detail::conv_geometry(c.p);
    const PackedDepthWiseConvMatrix W(c.p.OC, kernel_prod(c.p), c.W.data());
    std::vector<uint8_t> got(rq.want.size(), kSentinel);
    depthwise_pixels(t, g, c.A.data(), W.PackedMat(), r, got.data());
    EXPECT_TRUE(same_bits(rq.want, got)) << t.name << ".depthwise " << name(c.p);
    if (t.depthwise_rows == nullptr || !t.depthwise_rows->fit(g, r)) return false;
    std::fill(got.begin(), got.end(), kSentinel);
    const conv::DepthwiseRowKernels& rows = *t.depthwise_rows;
    for (int i = 0; i < threads_; ++i) {
      conv::DepthwiseRowsArgs a{&g, c.A.data(), W.PackedMat(), got.data(), &r, 0, 0};
      fbgemmPartition1D(i, threads_, int64_t{g.batch} * g.out[0] * g.out[1], a.row_begin,
                        a.row_end);
      if (a.row_begin < a.row_end) (g.stride[1] == 1 ? rows.stride1 : rows.stride2)(a);
    }
    EXPECT_TRUE(same_bits(rq.want, got)) << t.name << ".depthwise_rows " << name(c.p);
    return true;
  }

  // IC / G = OC / G = channels() / groups() (2, 4, 8 or 16).
  void TestGroupwise(const conv::ConvKernels& t) const {
    const ConvProblem<D> c(param(groups_, channels_), a_zp_, seed_);
    const Requant<D> rq(c, gran_, relu_, bias_, b_sym_, seed_ + 1);
    const detail::DirectRequant r = requant(c, rq);
    const detail::ConvGeometry g = detail::conv_geometry(c.p);
    const auto packed = aligned_bytes(detail::gconv_packed_bytes(g));
    detail::pack_gconv_weights(g, true, c.W.data(), packed.get());
    const conv::ChannelParams params(r, g.out_channels);
    const std::vector<uint8_t> zp_row(params.mult.size(), static_cast<uint8_t>(a_zp_));
    std::vector<uint8_t> got(rq.want.size(), kSentinel);
    conv::DirectArgs a{};
    a.g = &g;
    a.A = c.A.data();
    a.W = packed.get();
    a.C = got.data();
    a.zp_row = zp_row.data();
    a.q = params.requant;
    run_shares(t.groupwise, a);
    EXPECT_TRUE(same_bits(rq.want, got)) << t.name << ".groupwise " << name(c.p);
  }

  // The im2col matrix of G = groups() (IC = OC = channels()), row sums written on even
  // seeds and added to random ones on odd seeds.
  void TestIm2ColRows(const conv::ConvKernels& t) const {
    const ConvProblem<D> c(param(groups_, channels_), a_zp_, seed_);
    const detail::ConvGeometry g = detail::conv_geometry(c.p);
    const int icg = g.ic_per_group(), row_len = g.groups * g.kernel_prod() * icg;
    const int64_t ld = (row_len + 3) / 4 * 4 + seed_ % 3 * 4, rows = g.gemm_m();
    std::vector<uint8_t> want(size_t(rows) * row_len);
    ref::im2col(c.p, c.A.data(), a_zp_, want.data());
    const std::vector<uint8_t> zp_row(size_t(icg), static_cast<uint8_t>(a_zp_));
    std::vector<uint8_t> got(size_t(rows) * ld + detail::kIm2ColSlack, kSentinel);
    const bool accumulate = seed_ % 2 == 1;
    std::vector<int32_t> sums = random_vector<int32_t>(size_t(rows), -1000, 1000, seed_);
    std::vector<int32_t> want_sums = sums;
    for (int64_t m = 0; m < rows; ++m) {
      int32_t s = 0;
      for (int j = 0; j < row_len; ++j) s += want[size_t(m) * row_len + j];
      want_sums[m] = accumulate ? want_sums[m] + s : s;
    }
    std::vector<conv::Im2ColRun> runs;
    for (int64_t m = 0; m < rows;) {
      const int n = stretch_runs(g, c.A.data(), zp_row.data(), m, runs);
      t.im2col_rows(runs.data(), static_cast<int>(runs.size()), n, got.data() + m * ld, ld,
                    sums.data() + m, accumulate);
      m += n;
    }
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t j = 0; j < (row_len + 3) / 4 * 4; ++j) {
        const uint8_t w = j < row_len ? want[size_t(m) * row_len + j] : 0;
        ASSERT_EQ(got[m * ld + j], w) << t.name << ".im2col_rows row " << m << " column " << j
                                      << " " << name(c.p);
      }
    EXPECT_EQ(sums, want_sums) << t.name << ".im2col_rows row sums " << name(c.p);
  }

 private:
  static constexpr uint8_t kSentinel = 0xA5;

  conv_param_t<D> param(int G, int OC) const {
    std::array<int, D> in, k, s, dil;
    std::array<int, 2 * D> pads;
    in.fill(input_), k.fill(kernel_), s.fill(stride_), dil.fill(dilation_), pads.fill(pad_);
    return conv_param_t<D>(batch_, channels_, OC, in, G, k, s, pads, dil);
  }

  detail::DirectRequant requant(const ConvProblem<D>& c, const Requant<D>& rq) const {
    detail::DirectRequant r;
    r.a_zero_point = c.a_zp;
    r.b_zero_point = rq.b_zp.data();
    r.col_offsets = rq.col_offsets.data();
    r.c_multiplier = rq.multiplier.data();
    r.c_zero_point = rq.c_zp;
    r.bias_kind = bias_ == BiasKind::i32   ? detail::BiasKind::int32
                  : bias_ == BiasKind::f32 ? detail::BiasKind::float32
                                           : detail::BiasKind::none;
    r.bias_i32 = rq.bias_i32.data();
    r.bias_f32 = rq.bias_f32.data();
    r.act_times_w_scale = rq.act_w_scale.data();
    r.fuse_relu = relu_;
    r.channels_per_q = gran_ == QuantizationGranularity::OUT_CHANNEL ? 1
                       : gran_ == QuantizationGranularity::GROUP    ? c.p.OC / c.p.G
                                                                    : INT_MAX;
    return r;
  }

  // The pixel kernel's arguments as its contract gives them (conv_kernels.h): the
  // requantization arrays in the kernels' lane order and b_zp in the weights' chunks.
  void depthwise_pixels(const conv::ConvKernels& t, const detail::ConvGeometry& g,
                        const uint8_t* A, const int8_t* W, const detail::DirectRequant& r,
                        uint8_t* C) const {
    const conv::ChannelParams natural(r, g.out_channels);
    const int padded = static_cast<int>(natural.mult.size());
    std::vector<int32_t> col_term(padded), b_zp(padded);
    std::vector<float> mult(padded), fbias(natural.fbias.empty() ? 0 : padded);
    std::vector<int8_t> row_w(natural.requant.b_zp != nullptr ? size_t(padded) * 4 : 0, 0);
    for (int ch = 0; ch < padded; ++ch) {
      const int lane = conv::depthwise_lane_index(ch);
      col_term[lane] = natural.col_term[ch];
      b_zp[lane] = natural.b_zp[ch];
      mult[lane] = natural.mult[ch];
      if (!fbias.empty()) fbias[lane] = natural.fbias[ch];
      for (int q = 0; q < 4 && !row_w.empty() && ch < g.out_channels; ++q)
        row_w[conv::depthwise_packed_index(ch, q, 1)] = static_cast<int8_t>(natural.b_zp[ch]);
    }
    const std::vector<uint8_t> zp_row(padded, static_cast<uint8_t>(r.a_zero_point));
    const std::vector<uint8_t> zero_row(padded, 0);
    conv::DirectArgs a{};
    a.g = &g;
    a.A = A;
    a.W = W;
    a.C = C;
    a.zp_row = zp_row.data();
    a.zero_row = zero_row.data();
    a.q = natural.requant;
    a.q.col_term = col_term.data();
    a.q.b_zp = natural.requant.b_zp != nullptr ? b_zp.data() : nullptr;
    a.q.mult = mult.data();
    a.q.fbias = fbias.empty() ? nullptr : fbias.data();
    a.row_w = row_w.empty() ? nullptr : row_w.data();
    run_shares(t.depthwise, a);
  }

  void run_shares(conv::DirectFn fn, conv::DirectArgs a) const {
    for (int i = 0; i < threads_; ++i) {
      fbgemmPartition1D(i, threads_, a.g->batch * a.g->out_pixels(), a.pixel_begin, a.pixel_end);
      if (a.pixel_begin < a.pixel_end) fn(a);
    }
  }

  // The runs of the stretch of output pixels from row m: along the output row while
  // every tap stays inside (or outside) the input as at m's pixel. Returns its length.
  static int stretch_runs(const detail::ConvGeometry& g, const uint8_t* A, const uint8_t* zp_row,
                          int64_t m, std::vector<conv::Im2ColRun>& runs) {
    int o[3];
    int64_t rest = m;
    for (int d = 2; d >= 0; --d) o[d] = static_cast<int>(rest % g.out[d]), rest /= g.out[d];
    const int image = static_cast<int>(rest);
    auto same_w_taps = [&](int ow) {
      for (int kw = 0; kw < g.kernel[2]; ++kw)
        if ((detail::conv_input_index(g, 2, ow, kw) < 0) !=
            (detail::conv_input_index(g, 2, o[2], kw) < 0))
          return false;
      return true;
    };
    int n = 1;
    while (o[2] + n < g.out[2] && same_w_taps(o[2] + n)) ++n;
    const int icg = g.ic_per_group();
    runs.clear();
    for (int grp = 0; grp < g.groups; ++grp)
      for (int kt = 0; kt < g.kernel[0]; ++kt)
        for (int kh = 0; kh < g.kernel[1]; ++kh)
          for (int kw = 0; kw < g.kernel[2]; ++kw) {
            const int it = detail::conv_input_index(g, 0, o[0], kt);
            const int ih = detail::conv_input_index(g, 1, o[1], kh);
            const int iw = detail::conv_input_index(g, 2, o[2], kw);
            if (it < 0 || ih < 0 || iw < 0) {
              runs.push_back({zp_row, 0, icg});
              continue;
            }
            const int64_t pixel = ((int64_t{image} * g.in[0] + it) * g.in[1] + ih) * g.in[2] + iw;
            runs.push_back({A + pixel * g.in_channels + grp * icg,
                            int64_t{g.stride[2]} * g.in_channels, icg});
          }
    return n;
  }

  static std::unique_ptr<int8_t, decltype(&std::free)> aligned_bytes(int64_t n) {
    const size_t size = (static_cast<size_t>(n) + 63) / 64 * 64;
    return {static_cast<int8_t*>(std::aligned_alloc(64, size)), &std::free};
  }

  std::string name(const conv_param_t<D>& p) const {
    return std::string("MB ") + std::to_string(p.MB) + " IC " + std::to_string(p.IC) + " OC " +
           std::to_string(p.OC) + " G " + std::to_string(p.G) + " in " + std::to_string(input_) +
           " kernel " + std::to_string(kernel_) + " stride " + std::to_string(stride_) + " pad " +
           std::to_string(pad_) + " dilation " + std::to_string(dilation_) + " " +
           gran_name(gran_) + " bias " + std::to_string(int(bias_)) + " relu " +
           std::to_string(relu_) + " b_symmetric " + std::to_string(b_sym_) + " threads " +
           std::to_string(threads_) + " seed " + std::to_string(seed_);
  }

  int batch_ = 1, channels_ = 16, multiplier_ = 1, groups_ = 1, input_ = 5, kernel_ = 3;
  int stride_ = 1, pad_ = 1, dilation_ = 1, threads_ = 1;
  int32_t a_zp_ = 7;
  QuantizationGranularity gran_ = QuantizationGranularity::OUT_CHANNEL;
  BiasKind bias_ = BiasKind::i32;
  bool relu_ = false, b_sym_ = false;
  uint32_t seed_ = 1;
};

}  // namespace quire::test
