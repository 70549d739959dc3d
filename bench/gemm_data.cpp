#include "gemm_data.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "quire/ref/Reference.h"

namespace quire::bench {

GemmData::GemmData(const Shape& s, int b_lo, int b_hi)
    : shape(s),
      A(static_cast<size_t>(s.M) * s.K),
      B(static_cast<size_t>(s.K) * s.N) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> u8(0, 255);
  std::uniform_int_distribution<int> s8(b_lo, b_hi);
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<uint8_t>(u8(rng));
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<int8_t>(s8(rng));
}

GemmData::GemmData(const Shape& s, WeightKind weights, int a_max)
    : GemmData(s, weights == WeightKind::typical ? -64 : -128, weights == WeightKind::typical ? 64 : 127) {
  std::mt19937 rng(54321);
  if (a_max < 255) {
    std::uniform_int_distribution<int> u(0, a_max);
    for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<uint8_t>(u(rng));
    if (A.size() > 0) A[A.size() / 2] = static_cast<uint8_t>(a_max);
  }
  if (weights != WeightKind::trained) return;
  // Per output channel j: K normal draws, quantized symmetric, round(w / max |w| * 127).
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> column(static_cast<size_t>(s.K));
  for (int j = 0; j < s.N; ++j) {
    float top = 0;
    for (float& w : column) top = std::max(top, std::fabs(w = normal(rng)));
    for (int k = 0; k < s.K; ++k)
      B[static_cast<size_t>(k) * s.N + j] = static_cast<int8_t>(std::lround(column[k] / top * 127));
  }
}

ReferenceRows::ReferenceRows(const GemmData& data, int acc16_block_depth) : n_(data.shape.N) {
  const auto [M, N, K] = data.shape;
  constexpr int kSamples = 8;
  for (int s = 0; s < kSamples; ++s) {
    const int row = static_cast<int>(static_cast<int64_t>(M - 1) * s / (kSamples - 1));
    if (rows_.empty() || rows_.back() != row) rows_.push_back(row);
  }
  c_.resize(rows_.size() * N);
  a_row_sums_.resize(rows_.size());
  for (size_t i = 0; i < rows_.size(); ++i) {
    const uint8_t* a_row = data.A.data() + static_cast<size_t>(rows_[i]) * K;
    if (acc16_block_depth > 0) {
      ref::matmul_u8s8s32_acc16(1, N, K, a_row, K, data.B.data(), N, &c_[i * N], N,
                                acc16_block_depth);
    } else {
      ref::matmul_u8s8s32(1, N, K, a_row, K, data.B.data(), N, &c_[i * N], N);
    }
    ref::row_offsets_u8(1, K, a_row, K, &a_row_sums_[i]);
  }
}

int64_t ReferenceRows::mismatches(const int32_t* C) const {
  int64_t bad = 0;
  for (size_t i = 0; i < rows_.size(); ++i) {
    const int32_t* got = C + static_cast<size_t>(rows_[i]) * n_;
    const int32_t* want = c_row(i);
    for (int j = 0; j < n_; ++j) bad += got[j] != want[j];
  }
  return bad;
}

}  // namespace quire::bench
