// fbgemmPacked calls checked against the exact int32 product, raw or through the reference
// requantization: the cases of the GEMM tests whose calls choose between kernel forms
// (gemm_saturation_certificate_test, gemm_pair_correction_test).
#pragma once

#include <cstdint>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {

// A (M x K, read in place where the packer can) times packedB (K x N, one group), as
// `threads` calls of fbgemmPacked; `exact` is the int32 product. Zero points, multipliers
// and bias vary per column in the per-channel case, per quantization group (N /
// quant_groups columns each) in the group case. Returns the mismatching outputs.
template <bool Relu, QuantizationGranularity Q>
int requantized_mismatches(int M, int N, int K, int threads, const std::vector<uint8_t>& A,
                           const PackBMatrix<int8_t>& packedB, const std::vector<int32_t>& exact,
                           const BlockingFactors* bf, int quant_groups = 1) {
  const bool per_channel = Q == QuantizationGranularity::OUT_CHANNEL;
  const bool per_group = Q == QuantizationGranularity::GROUP;
  const int32_t a_zp = 3, c_zp = 7;
  std::vector<int32_t> b_zp(N), col_offsets(N), bias(N);
  std::vector<float> multiplier(N);
  for (int j = 0; j < N; ++j) {  // per group: entry q is group q's
    b_zp[j] = per_channel || per_group ? j % 5 - 2 : 1;
    multiplier[j] = per_channel || per_group ? 1e-5f * float(1 + j % 7) : 3e-5f;
    bias[j] = j * 11 - 300;
  }
  // The operands are read per column: the tensor case reads only element 0.
  std::vector<int8_t> b_source(size_t(K) * N);
  packedB.unpack(b_source.data());
  ref::col_offsets_with_zero_pt_s8(K, N, b_source.data(), N, b_zp.data(), col_offsets.data(),
                                   per_channel ? 1 : per_group ? N / quant_groups : N);
  std::vector<int32_t> row_offsets(M);
  ref::row_offsets_u8(M, K, A.data(), K, row_offsets.data());
  ref::QuantParams p;
  p.granularity = Q;
  p.groups = per_group ? quant_groups : 1;
  p.nCol = uint32_t(N);
  p.Aq_zero_point = a_zp;
  p.Bq_zero_point = b_zp.data();
  p.row_offsets = row_offsets.data();
  p.col_offsets = col_offsets.data();
  std::vector<uint8_t> want(size_t(M) * N);
  ref::requantize_u8<int32_t>(want.data(), exact.data(), block_type_t{0, M, 0, N}, N, N, p,
                              multiplier.data(), c_zp, bias.data(), nullptr, Relu);
  std::vector<uint8_t> C(size_t(M) * N);
  std::vector<int32_t> scratch(C.size());
  for (int t = 0; t < threads; ++t) {
    PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K, nullptr, 1,
                                      nullptr, bf);
    DoNothing<> done;
    ReQuantizeOutput<Relu, Q> rq(done, multiplier.data(), c_zp, a_zp, b_zp.data(),
                                 packA.getRowOffsetBuffer(), col_offsets.data(), bias.data(),
                                 uint32_t(N), per_group ? quant_groups : 1);
    fbgemmPacked(packA, packedB, C.data(), scratch.data(), N, rq, t, threads, bf);
  }
  return compare_buffers(want.data(), C.data(), M, N, N, 0);
}

// The same, the op's ReLU and granularity chosen at run time.
inline int requantized_mismatches(bool relu, bool per_channel, int M, int N, int K, int threads,
                                  const std::vector<uint8_t>& A,
                                  const PackBMatrix<int8_t>& packedB,
                                  const std::vector<int32_t>& exact, const BlockingFactors* bf) {
  constexpr auto tensor = QuantizationGranularity::TENSOR;
  constexpr auto channel = QuantizationGranularity::OUT_CHANNEL;
  if (relu)
    return per_channel ? requantized_mismatches<true, channel>(M, N, K, threads, A, packedB, exact, bf)
                       : requantized_mismatches<true, tensor>(M, N, K, threads, A, packedB, exact, bf);
  return per_channel ? requantized_mismatches<false, channel>(M, N, K, threads, A, packedB, exact, bf)
                     : requantized_mismatches<false, tensor>(M, N, K, threads, A, packedB, exact, bf);
}

// Whether the active path has pair-safe kernels and so chooses between kernel forms per
// block and panel (pair-safe, corrected, exact): avx2 and avx512.
inline bool path_chooses_forms() {
  const inst_set_t isa = fbgemmInstructionSet();
  return isa == inst_set_t::avx2 || isa == inst_set_t::avx512 || isa == inst_set_t::avx512_ymm;
}

// The outputs the tests check: raw int32 (memCopy), or u8 through ReQuantizeOutput per
// tensor or per channel, ReLU off or on.
enum class Out { int32, u8_tensor, u8_channel, u8_tensor_relu, u8_channel_relu };
inline constexpr Out kOuts[] = {Out::int32, Out::u8_tensor, Out::u8_channel,
                                Out::u8_tensor_relu, Out::u8_channel_relu};

// A (M x groups * K) times packedB (groups of K x N) as `threads` calls of fbgemmPacked
// with output `out` (u8 outputs: one group), against `exact` (M x groups * N). Returns
// the mismatching outputs.
inline int output_mismatches(Out out, int M, int N, int K, int groups, int threads,
                             const std::vector<uint8_t>& A, const PackBMatrix<int8_t>& packedB,
                             const std::vector<int32_t>& exact, const BlockingFactors* bf) {
  if (out != Out::int32)
    return requantized_mismatches(out == Out::u8_tensor_relu || out == Out::u8_channel_relu,
                                  out == Out::u8_channel || out == Out::u8_channel_relu, M, N, K,
                                  threads, A, packedB, exact, bf);
  std::vector<int32_t> C(exact.size(), -7);
  for (int t = 0; t < threads; ++t) {
    PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, M, groups * K, A.data(), groups * K,
                               nullptr, groups, bf);
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packA, packedB, C.data(), C.data(), groups * N, copy, t, threads, bf);
  }
  return compare_buffers(exact.data(), C.data(), M, groups * N, groups * N, 0);
}

}  // namespace quire::test
