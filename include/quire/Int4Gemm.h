// quire's 4-bit weights with group scales (W4A8) for LLM inference (docs/int4.md).
//
// A K x N weight matrix W is held as 4-bit codes c in [0, 15] with one scale per group
// of `group_size` consecutive K values and column (group sizes 32, 64, 128, 256, or the
// whole K: per channel; K need not be a multiple of the group, the last group is then
// shorter). The weight a code stands for:
//   symmetric   w = s * v,            v = c - 8 in [-8, 7]    (Q4_0-like)
//   zero_point  w = s * (c - z)       z in [0, 15] per group and column (GPTQ/AWQ-like)
//   scale_min   w = s * c + m         m a float per group and column (Q4_1-like)
// Scales (and minimums) are float, fp16 or bf16; all groups x N of them are given
// row-major: scales[g * N + j] for group g of column j.
//
// The GEMM computes C (M x N, float) ~= A (M x K, float) * W + bias, quantizing each row
// of A on the fly to int8 (symmetric, scale max|A[i][:]| / 127), and summing each group
// exactly in int32 before its scale is applied in fp32:
//   a[i][k] = round(A[i][k] / sa[i])                        (int8, |a| <= 127)
//   P[i][j][g] = sum_{k in g} a[i][k] * c[k][j]    R[i][g] = sum_{k in g} a[i][k]
//   symmetric, zero_point:   acc = fma(s, float(P - z R), acc)     (z = 8 when symmetric)
//   scale_min:               acc = fma(s, float(P), acc); acc = fma(m, float(R), acc)
//   C[i][j] = fma(sa[i], acc, bias[j])   (then max(., 0) with relu)
// groups taken in K order (a zero_point matrix runs as scale_min with m = -(s * z) in
// fp32, exact for fp16 / bf16 scales). The result is the same on every instruction-set
// path and for every thread count, except that a split of K across threads (see
// int4Gemm) sums the groups of each part separately and then adds the parts in order.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <vector>

#include "quire/FloatConversion.h"
#include "quire/ThreadPool.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

enum class Int4Kind : uint8_t { symmetric, zero_point, scale_min };
enum class Int4ScaleType : uint8_t { f32, f16, bf16 };

// A pointer to groups x N scales (or minimums) of one of the three types.
struct Int4Scales {
  Int4Scales(const float* p) : data(p), type(Int4ScaleType::f32) {}
  Int4Scales(const float16* p) : data(p), type(Int4ScaleType::f16) {}
  Int4Scales(const bfloat16* p) : data(p), type(Int4ScaleType::bf16) {}
  const void* data;
  Int4ScaleType type;
};

namespace detail {
struct Int4Layout;  // geometry of the packed form (private: src/int4/int4_layout.h)
}  // namespace detail

class PackedInt4Weights {
 public:
  // Symmetric: values in [-8, 7]. With NoTranspose, W[k][j] = values[k * ld + j]
  // (K x N row-major); with Transpose, values[j * ld + k] (N x K: each output channel's
  // K weights contiguous, as PyTorch and GGUF store them).
  PackedInt4Weights(matrix_op_t trans, int K, int N, const int8_t* values, int ld,
                    int group_size, Int4Scales scales);
  // Asymmetric: codes in [0, 15] laid out as values above, and groups x N zero points
  // in [0, 15] (zero_points[g * N + j]).
  PackedInt4Weights(matrix_op_t trans, int K, int N, const uint8_t* codes, int ld,
                    int group_size, Int4Scales scales, const uint8_t* zero_points);
  // Asymmetric with float minimums: w = s * c + m; mins of the same type as scales.
  static PackedInt4Weights withMins(matrix_op_t trans, int K, int N, const uint8_t* codes,
                                    int ld, int group_size, Int4Scales scales, Int4Scales mins);

  // Importers from the block formats of GGUF files (docs/int4.md describes the bytes).
  // `blocks` holds N rows (output channels) of K / 32 blocks each, K a multiple of 32.
  // Q4_0 (18-byte blocks: fp16 scale, 16 bytes of nibbles) -> symmetric, exact.
  // Q4_1 (20-byte blocks: fp16 scale, fp16 min, nibbles) -> scale_min, exact.
  // Q8_0 (34-byte blocks: fp16 scale, 32 int8) -> symmetric, requantized to 4 bits
  //   (lossy: each block's scale becomes d * q_max / -8, q_max its value of largest
  //   magnitude, as Q4_0 files are made).
  static PackedInt4Weights fromQ4_0(int K, int N, const void* blocks);
  static PackedInt4Weights fromQ4_1(int K, int N, const void* blocks);
  static PackedInt4Weights fromQ8_0(int K, int N, const void* blocks);

  PackedInt4Weights(PackedInt4Weights&&) noexcept;
  PackedInt4Weights& operator=(PackedInt4Weights&&) noexcept;
  ~PackedInt4Weights();

  int rows() const;  // K
  int cols() const;  // N
  int groupSize() const;
  int numGroups() const;
  Int4Kind kind() const;
  Int4ScaleType scaleType() const;
  // Bytes one GEMM call streams: packed codes, scales and minimums (padding included).
  int64_t streamedBytes() const;

  // K x N row-major: the codes in [0, 15] (symmetric: v + 8), or (symmetric only) the
  // values in [-8, 7]; the scales, minimums (scale_min and zero_point: m as the GEMM
  // uses it) and zero points (zero_point only) as groups x N, scales widened to float.
  void unpackCodes(uint8_t* codes) const;
  void unpackValues(int8_t* values) const;
  void unpackScales(float* scales) const;
  void unpackMins(float* mins) const;
  void unpackZeroPoints(uint8_t* zero_points) const;
  // W in float, K x N row-major: s * v, or s * c + m (float operations).
  void dequantize(float* w) const;

  bool equals(const PackedInt4Weights& other) const;

  // Versioned, checksummed serialization of the packed form; load throws
  // std::invalid_argument on a damaged, truncated or foreign stream.
  void save(std::ostream& out) const;
  static PackedInt4Weights load(std::istream& in);

  const detail::Int4Layout& layout() const { return *layout_; }

 private:
  PackedInt4Weights();
  std::unique_ptr<detail::Int4Layout> layout_;
};

// What happens to each output after the product: C = relu?(C + bias); bias has N floats
// (real units) or is null.
struct Int4Epilogue {
  const float* bias = nullptr;
  bool relu = false;
};

// Scratch shared by the threads of one call when K is split (M <= 4 and fewer column
// panels of 64 than threads): per-part partial sums and a completion counter per
// column range; the last thread to finish a range adds the parts in order and writes C.
// Reusable for any number of consecutive calls with the same M, N and thread count.
class Int4GemmWorkspace {
 public:
  Int4GemmWorkspace(int M, const PackedInt4Weights& W, int num_threads);
  ~Int4GemmWorkspace();
  Int4GemmWorkspace(const Int4GemmWorkspace&) = delete;
  Int4GemmWorkspace& operator=(const Int4GemmWorkspace&) = delete;

  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

// C (M x N, rows ldc floats apart) = A (M x K, rows lda floats apart) * W, per the
// formula above. Caller-owned threads, as fbgemmPacked: run once for every thread_id in
// [0, num_threads) with the same arguments; together the calls write C. For M <= 4 the
// threads split N into contiguous panel ranges (each streams its own part of W), and,
// with a workspace and fewer panels than threads, also K (on group boundaries). For
// M > 4 they split M x N as fbgemmPacked does. M = 0 is an empty batch.
void int4Gemm(int M, const float* A, int lda, const PackedInt4Weights& W, float* C, int ldc,
              const Int4Epilogue& epilogue, int thread_id, int num_threads,
              Int4GemmWorkspace* workspace = nullptr);

// The same on every thread of `pool` (with a workspace of its own).
void int4Gemm(int M, const float* A, int lda, const PackedInt4Weights& W, float* C, int ldc,
              const Int4Epilogue& epilogue, ThreadPool& pool);

}  // namespace quire
QUIRE_API_END
