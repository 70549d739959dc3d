#include "quire_gemm.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "timing.h"

namespace quire::bench {

QuireGemm::QuireGemm(const GemmData& data, ThreadPool& pool)
    : data_(data),
      pool_(pool),
      c_int32_(static_cast<size_t>(data.shape.M) * data.shape.N),
      c_u8_(static_cast<size_t>(data.shape.M) * data.shape.N) {
  const auto [M, N, K] = data.shape;

  const double t0 = now_seconds();
  packed_b_ = std::make_unique<PackBMatrix<int8_t>>(matrix_op_t::NoTranspose, K, N,
                                                    data.B.data(), N);
  pack_b_seconds_ = now_seconds() - t0;

  // Multipliers that map the typical |raw| (about 74 * 74 * sqrt(K) for full-range
  // data) onto +-40 around the zero point, so outputs spread over 0..255 like real
  // activations instead of all saturating.
  std::mt19937 rng(777);
  std::uniform_real_distribution<float> spread(0.5f, 1.5f);
  std::uniform_int_distribution<int32_t> zero_point(-3, 3);
  std::uniform_int_distribution<int32_t> bias(-5000, 5000);
  const float scale = 40.0f / (74.0f * 74.0f * std::sqrt(static_cast<float>(K)));
  c_multiplier_.resize(N);
  b_zero_point_.resize(N);
  bias_.resize(N);
  col_offsets_.assign(N, 0);
  for (int j = 0; j < N; ++j) {
    c_multiplier_[j] = scale * spread(rng);
    b_zero_point_[j] = zero_point(rng);
    bias_[j] = bias(rng);
  }
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < N; ++j) col_offsets_[j] += data.B[static_cast<size_t>(k) * N + j];
  }
  for (int j = 0; j < N; ++j) col_offsets_[j] -= K * b_zero_point_[j];

  row_offsets_.assign(pool.size(), std::vector<int32_t>(
                                       PackAWithRowOffset<uint8_t>::rowOffsetBufferSize()));

  // Each thread builds its own A packer, as engines do inside their parallel region:
  // the packer owns the thread's A block buffer and the row sums of that block.
  u8_job_ = [this, M, N, K](int thread_id, int num_threads) {
    PackAWithRowOffset<uint8_t> packed_a(matrix_op_t::NoTranspose, M, K, data_.A.data(), K,
                                         nullptr, 1, row_offsets_[thread_id].data());
    DoNothing<> done;
    ReQuantizeOutput<false, QuantizationGranularity::OUT_CHANNEL> requantize(
        done, c_multiplier_.data(), kCZeroPoint, kAZeroPoint, b_zero_point_.data(),
        packed_a.getRowOffsetBuffer(), col_offsets_.data(), bias_.data(), N);
    fbgemmPacked(packed_a, *packed_b_, c_u8_.data(), c_int32_.data(), N, requantize,
                 thread_id, num_threads);
  };
  // int32 output: C doubles as the int32 scratch (the usual idiom), memCopy ends it.
  int32_job_ = [this, M, N, K](int thread_id, int num_threads) {
    PackAWithRowOffset<uint8_t> packed_a(matrix_op_t::NoTranspose, M, K, data_.A.data(), K,
                                         nullptr, 1, row_offsets_[thread_id].data());
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packed_a, *packed_b_, c_int32_.data(), c_int32_.data(), N, copy, thread_id,
                 num_threads);
  };
}

int64_t QuireGemm::packed_b_bytes() const { return packed_b_->packedBufferSizeBytes(); }

void QuireGemm::call_u8() { pool_.run(u8_job_); }

void QuireGemm::call_int32() { pool_.run(int32_job_); }

int64_t QuireGemm::check_int32(const ReferenceRows& ref) const {
  return ref.mismatches(c_int32_.data());
}

int64_t QuireGemm::check_u8(const ReferenceRows& ref) const {
  const int N = data_.shape.N;
  int64_t bad = 0;
  for (size_t r = 0; r < ref.rows().size(); ++r) {
    const uint8_t* got = c_u8_.data() + static_cast<size_t>(ref.rows()[r]) * N;
    for (int j = 0; j < N; ++j) {
      // ReQuantizeOutput's formula (quire/OutputProcessing.h), evaluated in int64 so
      // the reference itself cannot overflow.
      const int64_t raw = int64_t{ref.c_row(r)[j]} - int64_t{kAZeroPoint} * col_offsets_[j] -
                          int64_t{b_zero_point_[j]} * ref.a_row_sum(r) + bias_[j];
      const float x = static_cast<float>(raw) * c_multiplier_[j];
      const int64_t q = std::llrint(std::clamp(x, -1e9f, 1e9f)) + kCZeroPoint;
      bad += got[j] != static_cast<uint8_t>(std::clamp<int64_t>(q, 0, 255));
    }
  }
  return bad;
}

}  // namespace quire::bench
