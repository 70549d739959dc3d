// An FBGEMM user: only <fbgemm/Fbgemm.h> is included, as in code written for FBGEMM. A
// requantized fully connected layer, checked against the formula computed here.
#include <fbgemm/Fbgemm.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

using namespace fbgemm;

int main() {
  const int M = 9, N = 21, K = 37;
  const int32_t a_zp = 3, b_zp = -2, c_zp = 5;
  const float multiplier = 0.0007f;
  std::vector<uint8_t> A(static_cast<size_t>(M) * K);
  std::vector<int8_t> B(static_cast<size_t>(K) * N);
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<uint8_t>(i * 11 + 1);
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<int8_t>(i * 5 - 60);
  std::vector<int32_t> col_offsets(N);
  for (int j = 0; j < N; ++j) {
    int32_t sum = 0;
    for (int k = 0; k < K; ++k) sum += B[k * N + j];
    col_offsets[j] = sum - K * b_zp;
  }

  PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, K, N, B.data(), N);
  std::vector<int32_t> row_offsets(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize());
  PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K, nullptr, 1,
                                    row_offsets.data());
  DoNothing<> done;
  ReQuantizeOutput<false> requantize(done, &multiplier, c_zp, a_zp, &b_zp,
                                     packA.getRowOffsetBuffer(), col_offsets.data(), nullptr, N);
  std::vector<uint8_t> C(static_cast<size_t>(M) * N);
  std::vector<int32_t> C32(static_cast<size_t>(M) * N);
  fbgemmPacked(packA, packedB, C.data(), C32.data(), N, requantize, 0, 1);

  int wrong = 0;
  for (int i = 0; i < M; ++i) {
    int32_t row_sum = 0;
    for (int k = 0; k < K; ++k) row_sum += A[i * K + k];
    for (int j = 0; j < N; ++j) {
      int32_t acc = 0;
      for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
      const int32_t c32 = acc - a_zp * col_offsets[j] - b_zp * row_sum;
      const long q = std::lrintf(static_cast<float>(c32) * multiplier) + c_zp;
      wrong += C[i * N + j] != static_cast<uint8_t>(std::clamp<long>(q, 0, 255));
    }
  }
  std::printf("FBGEMM-API consumer: %d of %d values wrong\n", wrong, M * N);
  return wrong == 0 ? 0 : 1;
}
