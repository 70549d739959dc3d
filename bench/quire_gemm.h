// quire on one shape, called the way an inference engine calls it: B packed once at
// load time; every call packs A (row sums fused), runs the kernel and the output
// pipeline, one fbgemmPacked per thread of the bench's pool.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "gemm_data.h"
#include "quire/quire.h"
#include "thread_pool.h"

namespace quire::bench {

class QuireGemm {
 public:
  // Packs B (timed: pack_b_seconds) and sets up per-channel requantization.
  QuireGemm(const GemmData& data, ThreadPool& pool);

  double pack_b_seconds() const { return pack_b_seconds_; }
  int64_t packed_b_bytes() const;

  // One call with uint8 output: ReQuantizeOutput, per-channel B zero points and
  // multipliers, int32 bias, nonzero A zero point.
  void call_u8();
  // One call with int32 output (memCopy): the same work as oneDNN's u8 x s8 -> s32.
  void call_int32();

  // Mismatching elements in the sampled rows, after a call of the same kind.
  int64_t check_u8(const ReferenceRows& ref) const;
  int64_t check_int32(const ReferenceRows& ref) const;

 private:
  const GemmData& data_;
  ThreadPool& pool_;
  double pack_b_seconds_ = 0;
  std::unique_ptr<PackBMatrix<int8_t>> packed_b_;

  // Requantization parameters (output channel j).
  static constexpr int32_t kAZeroPoint = 128;
  static constexpr int32_t kCZeroPoint = 128;
  std::vector<float> c_multiplier_;
  std::vector<int32_t> b_zero_point_;
  std::vector<int32_t> col_offsets_;  // sum_k B[k][j] - K * b_zero_point_[j]
  std::vector<int32_t> bias_;

  std::vector<std::vector<int32_t>> row_offsets_;  // PackAWithRowOffset's, per thread
  AlignedArray<int32_t> c_int32_;                  // int32 output and u8 scratch
  AlignedArray<uint8_t> c_u8_;
  std::function<void(int, int)> u8_job_;
  std::function<void(int, int)> int32_job_;
};

}  // namespace quire::bench
