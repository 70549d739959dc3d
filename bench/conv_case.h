// One convolution of the conv bench and the ways it is run: fbgemmConv (the path
// ConvFastPath picks), and for comparison the same work as a plain GEMM (the im2col
// matrix built once, outside the timing), unfused (an explicit im2col into a buffer, then
// the plain GEMM, inside the timing) and forced through the fused-im2col GEMM (for the
// shapes a direct kernel takes). Every way writes the same requantized uint8 output,
// which check() compares with quire::ref.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "thread_pool.h"

namespace quire::bench {

struct ConvShape {
  std::string name;
  conv_param_t<2> p;
};

// The conv shape set (shared/BENCH.md): ResNet-50's 3x3 layers and its 7x7 stem,
// MobileNet-v2's depthwise 3x3 layers, a ResNeXt-style groupwise 3x3 (G = 32).
std::vector<ConvShape> conv_shapes();

class ConvCase {
 public:
  // Activations in [0, activation_max]: 255, or 127 (PyTorch's reduce_range, with the
  // zero point inside that range too).
  ConvCase(const ConvShape& shape, ThreadPool& pool, int activation_max = 255);

  const ConvShape& shape() const { return shape_; }
  optimized_conv_t path() const;
  // 2 x multiply-accumulates of one call: 2 * MB * OUT_DIM * OC * kernel * IC/G.
  double ops() const;
  // Bytes a call must move at least: activations in, output out, packed weights.
  double bytes() const;
  // GEMM view per group: M = MB * OUT_DIM, N = OC / G, K = kernel * IC / G.
  int64_t gemm_m() const { return m_; }
  int gemm_n() const { return shape_.p.OC / shape_.p.G; }
  int gemm_k() const { return kg_; }

  // B zero points all 0 (symmetric weights, PyTorch's per-channel default: no row sums
  // needed) or the bench's default, small nonzero ones per channel.
  void set_symmetric_weights(bool symmetric);

  void run_conv();            // fbgemmConv
  void run_plain_gemm();      // fbgemmPacked on the prebuilt im2col matrix
  void run_unfused();         // explicit im2col + the plain GEMM
  void run_im2col_gemm();     // PackAWithIm2Col + fbgemmPacked, whatever the path

  // Mismatching output bytes against quire::ref (after any run_*); the reference is
  // computed on the first call.
  int64_t check();

 private:
  void im2col_into(std::vector<uint8_t>& cols, int thread_id, int num_threads) const;
  template <class PackA>
  void gemm(PackA& a, int thread_id, int num_threads);

  ConvShape shape_;
  ThreadPool& pool_;
  int64_t m_;
  int kg_;
  int32_t a_zero_point_;
  static constexpr int32_t kCZeroPoint = 128;
  std::vector<uint8_t> act_, cols_, unfused_cols_, out_, want_;
  std::vector<int8_t> weights_;
  std::vector<int32_t> out_buffer_;
  std::vector<float> multiplier_;
  std::vector<int32_t> b_zero_point_, col_offsets_, bias_, asymmetric_b_zero_point_;
  std::vector<std::vector<int32_t>> row_offsets_;  // per thread
  std::unique_ptr<PackWeightsForConv<2>> packed_;
};

}  // namespace quire::bench
