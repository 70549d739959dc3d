// A quire user: packs weights once, runs the one-call GEMM and checks it against a plain
// triple loop. Exits non-zero on any difference.
#include <quire/quire.h>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  const int M = 17, N = 33, K = 65;
  std::vector<uint8_t> A(static_cast<size_t>(M) * K);
  std::vector<int8_t> B(static_cast<size_t>(K) * N);
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<uint8_t>(i * 7 + 3);
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<int8_t>(i * 13 - 100);

  quire::PackBMatrix<int8_t> packed(quire::matrix_op_t::NoTranspose, K, N, B.data(), N);
  std::vector<int32_t> C(static_cast<size_t>(M) * N);
  quire::gemm_u8s8s32(A.data(), M, K, packed, C.data(), N);

  int wrong = 0;
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      int32_t sum = 0;
      for (int k = 0; k < K; ++k) sum += A[i * K + k] * B[k * N + j];
      wrong += C[i * N + j] != sum;
    }
  }
  std::printf("quire consumer (%s): %d of %d values wrong\n",
              quire::instSetName(quire::fbgemmInstructionSet()), wrong, M * N);
  return wrong == 0 ? 0 : 1;
}
