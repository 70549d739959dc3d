#include "conv_case.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "quire/ref/ReferenceConv.h"

namespace quire::bench {

std::vector<ConvShape> conv_shapes() {
  using P = conv_param_t<2>;
  const auto conv3x3 = [](int hw, int c, int g) {
    return P(1, c, c, {hw, hw}, g, {3, 3}, {1, 1}, {1, 1, 1, 1});
  };
  const auto dw_stride2 = [](int hw, int c) {
    return P(1, c, c, {hw, hw}, c, {3, 3}, {2, 2}, {1, 1, 1, 1});
  };
  return {
      {"resnet50 3x3 56x56x64", conv3x3(56, 64, 1)},
      {"resnet50 3x3 28x28x128", conv3x3(28, 128, 1)},
      {"resnet50 3x3 14x14x256", conv3x3(14, 256, 1)},
      {"resnet50 3x3 7x7x512", conv3x3(7, 512, 1)},
      {"resnet50 stem 7x7/2 224x224x3->64", P(1, 3, 64, {224, 224}, 1, {7, 7}, {2, 2}, {3, 3, 3, 3})},
      {"mobilenetv2 dw 112x112x32", conv3x3(112, 32, 32)},
      {"mobilenetv2 dw 56x56x144", conv3x3(56, 144, 144)},
      {"mobilenetv2 dw 28x28x192", conv3x3(28, 192, 192)},
      {"mobilenetv2 dw 14x14x576", conv3x3(14, 576, 576)},
      {"mobilenetv2 dw 7x7x960", conv3x3(7, 960, 960)},
      {"mobilenetv2 dw s2 112x112x96", dw_stride2(112, 96)},
      {"mobilenetv2 dw s2 56x56x144", dw_stride2(56, 144)},
      {"mobilenetv2 dw s2 28x28x192", dw_stride2(28, 192)},
      {"mobilenetv2 dw s2 14x14x576", dw_stride2(14, 576)},
      {"resnext 3x3 G=32 56x56x128", conv3x3(56, 128, 32)},
  };
}

namespace {

template <class T>
std::vector<T> random_bytes(size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng());
  return v;
}

}  // namespace

ConvCase::ConvCase(const ConvShape& shape, ThreadPool& pool, int activation_max)
    : shape_(shape), pool_(pool), a_zero_point_(activation_max == 255 ? 128 : 64) {
  const conv_param_t<2>& p = shape_.p;
  m_ = int64_t{p.MB} * p.OUT_DIM[0] * p.OUT_DIM[1];
  kg_ = p.K[0] * p.K[1] * (p.IC / p.G);
  std::mt19937 rng(4242);
  act_ = random_bytes<uint8_t>(size_t(p.MB) * p.IN_DIM[0] * p.IN_DIM[1] * p.IC, rng);
  for (uint8_t& a : act_) a = static_cast<uint8_t>(a & activation_max);  // 255 or 127
  weights_ = random_bytes<int8_t>(size_t(p.OC) * kg_, rng);
  out_.assign(size_t(m_) * p.OC, 0);
  out_buffer_.assign(size_t(m_) * p.OC, 0);
  cols_.assign(size_t(m_) * kg_ * p.G, 0);
  unfused_cols_.assign(cols_.size(), 0);
  ref::im2col(p, act_.data(), a_zero_point_, cols_.data());

  // Per-channel requantization that maps the typical |raw| (about 74 * 74 * sqrt(K) for
  // full-range data) onto +-40 around the zero point.
  std::uniform_real_distribution<float> spread(0.5f, 1.5f);
  std::uniform_int_distribution<int32_t> zero_point(-3, 3), bias(-5000, 5000);
  const float scale = 40.0f / (74.0f * 74.0f * std::sqrt(static_cast<float>(kg_)));
  for (int j = 0; j < p.OC; ++j) {
    multiplier_.push_back(scale * spread(rng));
    b_zero_point_.push_back(zero_point(rng));
    bias_.push_back(bias(rng));
  }
  asymmetric_b_zero_point_ = b_zero_point_;
  col_offsets_.resize(p.OC);
  set_symmetric_weights(false);
  row_offsets_.assign(pool.size(), std::vector<int32_t>(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize()));
  packed_ = std::make_unique<PackWeightsForConv<2>>(p, weights_.data());
}

void ConvCase::set_symmetric_weights(bool symmetric) {
  if (symmetric)
    b_zero_point_.assign(shape_.p.OC, 0);
  else
    b_zero_point_ = asymmetric_b_zero_point_;
  ref::conv_col_offsets(shape_.p, weights_.data(), b_zero_point_.data(), 1, col_offsets_.data());
  want_.clear();
}

optimized_conv_t ConvCase::path() const {
  return conv_path_taken<ReQuantizeOutput<false, QuantizationGranularity::OUT_CHANNEL>>(shape_.p);
}

double ConvCase::ops() const { return 2.0 * double(m_) * shape_.p.OC * kg_; }

double ConvCase::bytes() const {
  return double(act_.size()) + double(out_.size()) + double(weights_.size());
}

void ConvCase::run_conv() {
  pool_.run([this](int t, int n) {
    DoNothing<> done;
    ReQuantizeOutput<false, QuantizationGranularity::OUT_CHANNEL> op(
        done, multiplier_.data(), kCZeroPoint, a_zero_point_, b_zero_point_.data(), nullptr,
        col_offsets_.data(), bias_.data(), shape_.p.OC, shape_.p.G);
    fbgemmConv(shape_.p, act_.data(), *packed_, out_.data(), out_buffer_.data(), op, t, n);
  });
}

template <class PackA>
void ConvCase::gemm(PackA& a, int thread_id, int num_threads) {
  DoNothing<> done;
  ReQuantizeOutput<false, QuantizationGranularity::OUT_CHANNEL> op(
      done, multiplier_.data(), kCZeroPoint, a_zero_point_, b_zero_point_.data(),
      a.getRowOffsetBuffer(), col_offsets_.data(), bias_.data(), shape_.p.OC, shape_.p.G);
  fbgemmPacked(a, packed_->gemmWeights(), out_.data(), out_buffer_.data(), shape_.p.OC, op,
               thread_id, num_threads);
}

void ConvCase::run_plain_gemm() {
  pool_.run([this](int t, int n) {
    const int k = kg_ * shape_.p.G;
    PackAWithRowOffset<uint8_t> a(matrix_op_t::NoTranspose, static_cast<uint32_t>(m_), k,
                                  cols_.data(), k, nullptr, shape_.p.G, row_offsets_[t].data());
    gemm(a, t, n);
  });
}

// The explicit im2col a framework without fusion runs (Caffe2's Im2Col in NHWC): one copy
// per kernel row when G = 1 and the width dilation is 1, else one per tap.
void ConvCase::im2col_into(std::vector<uint8_t>& cols, int thread_id, int num_threads) const {
  const conv_param_t<2>& p = shape_.p;
  const int icg = p.IC / p.G, KH = p.K[0], KW = p.K[1], OW = p.OUT_DIM[1];
  const int64_t row_bytes = int64_t{kg_} * p.G;
  const bool whole_rows = p.G == 1 && p.dilation[1] == 1;
  int64_t m0, m1;
  fbgemmPartition1D(thread_id, num_threads, m_, m0, m1);
  for (int64_t m = m0; m < m1; ++m) {
    const int n = static_cast<int>(m / (int64_t{p.OUT_DIM[0]} * OW));
    const int oh = static_cast<int>(m / OW % p.OUT_DIM[0]), ow = static_cast<int>(m % OW);
    uint8_t* dst = cols.data() + m * row_bytes;
    for (int g = 0; g < p.G; ++g) {
      for (int r = 0; r < KH; ++r) {
        const int ih = oh * p.stride[0] - p.pad[0] + r * p.dilation[0];
        uint8_t* d = dst + (int64_t{g} * KH + r) * KW * icg;
        if (ih < 0 || ih >= p.IN_DIM[0]) {
          std::memset(d, a_zero_point_, size_t(KW) * icg);
          continue;
        }
        const uint8_t* row = act_.data() + (int64_t{n} * p.IN_DIM[0] + ih) * p.IN_DIM[1] * p.IC + g * icg;
        const int iw0 = ow * p.stride[1] - p.pad[1];
        if (whole_rows) {
          const int lo = std::max(0, -iw0), hi = std::min(KW, p.IN_DIM[1] - iw0);
          std::memset(d, a_zero_point_, size_t(lo) * icg);
          if (hi > lo) std::memcpy(d + lo * icg, row + int64_t{iw0 + lo} * p.IC, size_t(hi - lo) * icg);
          std::memset(d + std::max(lo, hi) * icg, a_zero_point_, size_t(KW - std::max(lo, hi)) * icg);
          continue;
        }
        for (int s = 0; s < KW; ++s) {
          const int iw = iw0 + s * p.dilation[1];
          if (iw < 0 || iw >= p.IN_DIM[1])
            std::memset(d + s * icg, a_zero_point_, icg);
          else
            std::memcpy(d + s * icg, row + int64_t{iw} * p.IC, icg);
        }
      }
    }
  }
}

void ConvCase::run_unfused() {
  // Two phases: the GEMM's thread split need not follow the im2col's.
  pool_.run([this](int t, int n) { im2col_into(unfused_cols_, t, n); });
  pool_.run([this](int t, int n) {
    const int k = kg_ * shape_.p.G;
    PackAWithRowOffset<uint8_t> a(matrix_op_t::NoTranspose, static_cast<uint32_t>(m_), k,
                                  unfused_cols_.data(), k, nullptr, shape_.p.G,
                                  row_offsets_[t].data());
    gemm(a, t, n);
  });
}

void ConvCase::run_im2col_gemm() {
  pool_.run([this](int t, int n) {
    PackAWithIm2Col<uint8_t, int32_t, 2> a(shape_.p, act_.data(), nullptr, a_zero_point_,
                                           row_offsets_[t].data());
    gemm(a, t, n);
  });
}

int64_t ConvCase::check() {
  if (want_.empty()) {
    const conv_param_t<2>& p = shape_.p;
    std::vector<int32_t> c32(out_.size()), rows(size_t(m_) * p.G);
    ref::conv_u8s8s32(p, act_.data(), a_zero_point_, weights_.data(), c32.data());
    ref::conv_row_offsets(p, act_.data(), a_zero_point_, rows.data());
    ref::ConvRequant q;
    q.granularity = QuantizationGranularity::OUT_CHANNEL;
    q.A_zero_point = a_zero_point_;
    q.B_zero_point = b_zero_point_.data();
    q.col_offsets = col_offsets_.data();
    q.C_multiplier = multiplier_.data();
    q.C_zero_point = kCZeroPoint;
    want_.resize(out_.size());
    ref::conv_requantize_u8<2, int32_t>(p, c32.data(), rows.data(), q, bias_.data(), want_.data());
  }
  int64_t bad = 0;
  for (size_t i = 0; i < want_.size(); ++i) bad += want_[i] != out_[i];
  return bad;
}

}  // namespace quire::bench
