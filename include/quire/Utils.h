// CPU queries, aligned memory, work partitioning, transposition, sorting and the small
// helpers FBGEMM's Utils.h and UtilsAvx2.h offer (same names, signatures and results).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// ---- CPU queries and the instruction-set path --------------------------------------------

// The instruction set the library runs with now: the best the CPU has, or what
// QUIRE_ISA / fbgemmForceIsa asked for. anyarch means the portable C++ path.
inst_set_t fbgemmInstructionSet();

// True when the CPU has at least AVX2 + FMA (the JIT kernels need it). Without it every
// entry point still works through portable C++.
bool fbgemmSupportedCPU();
bool fbgemmHasAvx2Support();
bool fbgemmHasAvx512Support();      // AVX-512 F + BW + DQ + VL
bool fbgemmHasAvx512VnniSupport();
bool fbgemmHasAvx512Bf16Support();
bool fbgemmHasAvxVnniSupport();  // quire's addition
// quire runs on x86 only: the Arm queries answer false.
bool fbgemmHasArmNeonSupport();
bool fbgemmHasArmSveSupport();
bool fbgemmHasArmSve2Support();

// Whether the CPU's name says it is an Intel Xeon D (where AVX-512 on ymm runs at a
// higher clock). FBGEMM also answers true on any single-socket machine; quire does not.
bool fbgemmIsIntelXeonD();

// flag = true on a Xeon D with AVX-512: switch to the ymm form of the best path
// (avx512_vnni_ymm, or avx512_ymm); flag = false: back from it to the zmm path. Elsewhere
// it changes nothing (as in FBGEMM, which only honours it on a Xeon D).
void fbgemmEnableAvx512Ymm(bool flag);

// quire's forcing: runs the whole process on path isa from now on (anyarch forces the
// portable C++ path). Throws std::invalid_argument naming the path and what the CPU has
// when the CPU lacks its instructions, and for values that are not a path.
void forceIsa(inst_set_t isa);

// FBGEMM's forcing, with FBGEMM's meaning: a path the CPU has is forced; anyarch, or a
// path the CPU lacks (Arm's sve included), returns to the start-up choice (the best path
// the CPU has, or QUIRE_ISA's). Only a value outside inst_set_t throws.
void fbgemmForceIsa(inst_set_t isa);

// Whether isa computes on 512-bit (avx512, avx512_vnni) or 256-bit (avx2, avx512_ymm,
// avx512_vnni_ymm) vectors. FBGEMM's lists: quire's avx_vnni is neither.
bool isZmm(inst_set_t isa);
bool isYmm(inst_set_t isa);

// Name of an instruction set ("avx512_vnni", ...).
const char* instSetName(inst_set_t isa);

// ---- aligned memory --------------------------------------------------------------------

// size bytes aligned to align (a power of two and a multiple of sizeof(void*)); free with
// fbgemmAlignedFree. On failure (a bad align, or no memory) returns nullptr, or throws
// std::bad_alloc when raiseException is set.
void* fbgemmAlignedAlloc(size_t align, size_t size, bool raiseException = false);
void fbgemmAlignedFree(void* p);

struct AlignedFreeDeleter {
  void operator()(void* p) const { fbgemmAlignedFree(p); }
};
template <typename T>
using aligned_unique_ptr = std::unique_ptr<T[], AlignedFreeDeleter>;

// count elements of T, aligned; null on failure (as fbgemmAlignedAlloc).
template <typename T>
aligned_unique_ptr<T> makeAlignedUniquePtr(size_t align, size_t count) {
  return aligned_unique_ptr<T>(static_cast<T*>(fbgemmAlignedAlloc(align, count * sizeof(T))));
}

// ---- work partitioning (FBGEMM's exact splits: src/common/partition.cpp) -----------------

// [start, end) of thread_id's share of [0, total_work): chunks of
// w = ceil(total_work / num_threads), start = min(thread_id * w, total_work),
// end = min((thread_id + 1) * w, total_work). num_threads = 0 gives every thread nothing.
// Throws std::invalid_argument for negative arguments.
void fbgemmPartition1D(int thread_id, int num_threads, int64_t total_work, int64_t& start,
                       int64_t& end);

// The same over whole blocks of block_size: fbgemmPartition1D of floor(total_work /
// block_size) blocks, scaled by block_size; the last thread also takes the remainder.
void fbgemmPartition1DBlocked(int thread_id, int num_threads, int64_t total_work, int block_size,
                              int64_t& start, int64_t& end);

// How threads are spread over groups, rows and columns of a GEMM. Thread t is
// (g, m, n) with n fastest: t = (g * m_num_threads + m) * n_num_threads + n.
struct thread_type_t {
  int g_num_threads;
  int m_num_threads;
  int n_num_threads;
  int g_thread_id;
  int m_thread_id;
  int n_thread_id;

  std::string toString() const {
    return "g num threads: " + std::to_string(g_num_threads) +
           ", m num threads: " + std::to_string(m_num_threads) +
           ", n num threads: " + std::to_string(n_num_threads) +
           ", g thread id: " + std::to_string(g_thread_id) +
           ", m thread id: " + std::to_string(m_thread_id) +
           ", n thread id: " + std::to_string(n_thread_id);
  }
};

// The number of row blocks mb (nthreads / mb column blocks) whose block shape
// ceil(m / mb) x (n blocks of n_align, split nthreads / mb ways) comes closest to
// rows / cols = aspect_ratio, searching mb = 1, 2, ... while it improves (only divisors of
// nthreads when nthreads <= 16; aspect_ratio becomes 0.2 when nthreads > 16 and m < n / 5).
int fbgemmGet2DPartition(int m, int n, int nthreads, int n_align, double aspect_ratio);

// FBGEMM's split of num_threads over g, m and n: all threads on groups when g >
// num_threads, g threads when g divides num_threads, else 1; the rest split between m
// and n by fbgemmGet2DPartition(m, n, rest, n_align, 0.5). Threads beyond the grid get
// all zeros (no work).
thread_type_t fbgemmGetThreadPartition(int g, int m, int n, int thread_id, int num_threads,
                                       int n_align = 64);

// ---- matrices --------------------------------------------------------------------------

// dst (N x M, ld_dst) = transpose of src (M x N, ld_src): dst[i + j * ld_dst] =
// src[i * ld_src + j]. Vectorized for the active path (AVX2 or AVX-512 tiles); T is
// float, uint16_t or uint8_t. Throws std::invalid_argument on negative sizes, leading
// dimensions shorter than a row, or null pointers with a non-empty matrix.
template <typename T>
void transpose_simd(int64_t M, int64_t N, const T* src, int64_t ld_src, T* dst, int64_t ld_dst);

// Prints op(inp) (R x C; element (r, c) at inp[r * ld + c], or inp[c * ld + r] when op is
// Transpose) to std::cout after "name:[R, C]", each value in a 5-wide field.
template <typename T>
void printMatrix(matrix_op_t op, const T* inp, size_t R, size_t C, size_t ld,
                 const std::string& name) {
  std::cout << name << ":[" << R << ", " << C << "]\n";
  const bool tr = op == matrix_op_t::Transpose;
  for (size_t r = 0; r < R; ++r) {
    for (size_t c = 0; c < C; ++c) {
      const T v = tr ? inp[c * ld + r] : inp[r * ld + c];
      if constexpr (std::is_integral_v<T>) std::cout << std::setw(5) << static_cast<int64_t>(v) << " ";
      else std::cout << std::setw(5) << v << " ";
    }
    std::cout << '\n';
  }
}

// "[a, b, c]".
template <int SIZE, typename T = int32_t>
std::string arrayToString(const std::array<T, SIZE>& inp) {
  std::string out = "[";
  for (int i = 0; i < SIZE; ++i) out += std::to_string(inp[i]) + (i + 1 < SIZE ? ", " : "]");
  return out;
}

// Compares an m x n block of two buffers with leading dimension ld: an element mismatches
// when |ref - test| > atol. Prints each mismatch to std::cout; returns 1 as soon as more
// than max_mismatches_to_report elements mismatch, else 0 (FBGEMM's contract: pass 0 to
// require an exact match).
template <class T>
int compare_buffers(const T* ref, const T* test, int m, int n, int ld,
                    size_t max_mismatches_to_report, float atol = 1e-3) {
  size_t mismatches = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const T r = ref[static_cast<size_t>(i) * ld + j];
      const T t = test[static_cast<size_t>(i) * ld + j];
      const double diff = std::fabs(static_cast<double>(r) - static_cast<double>(t));
      if (diff > atol) {  // NaN never mismatches, as in FBGEMM
        std::cout << "\tmismatch at (" << i << ", " << j << ")\n";
        if constexpr (std::is_integral_v<T>)
          std::cout << "\t  reference:" << static_cast<int64_t>(r)
                    << " test:" << static_cast<int64_t>(t) << '\n';
        else
          std::cout << "\t  reference:" << r << " test:" << t << '\n';
        if (++mismatches > max_mismatches_to_report) return 1;
      }
    }
  }
  return 0;
}

// ---- sorting ---------------------------------------------------------------------------

// Stable LSD radix sort of (key, value) pairs by key, 8 bits per pass, ping-ponging
// between the input and tmp buffers; returns the pair of buffers holding the result.
// Passes: enough bytes to cover max_value's bits (none when max_value == 0: the input is
// returned as is); all sizeof(K) bytes when maybe_with_neg_vals, the last pass ordering
// the sign byte's bins 128..255 before 0..127 so negative keys come first. K is an
// integer type; quire has no OpenMP, so it runs on the calling thread.
template <typename K, typename V>
std::pair<K*, V*> radix_sort_parallel(K* const inp_key_buf, V* const inp_value_buf,
                                      K* const tmp_key_buf, V* const tmp_value_buf,
                                      const int64_t elements_count, const int64_t max_value,
                                      const bool maybe_with_neg_vals = false);

// False: radix_sort_parallel is sequential in quire (no OpenMP).
bool is_radix_sort_accelerated_with_openmp();

// ---- FBGEMM's embedding-kernel switches ------------------------------------------------
// quire has no embedding (TBE) kernels; these keep FBGEMM's environment contract so code
// that reads or sets them works: each flag is set when its variable exists
// (FBGEMM_NO_AUTOVEC, FBGEMM_FORCE_AUTOVEC, FBGEMM_NO_ASMJIT, FBGEMM_STATS_ENABLE,
// FBGEMM_TBE_SVE_FP16_ACCUMULATOR); the prefetch settings read a non-negative integer
// (-1 when unset or malformed), the large-table size its MiB count in bytes (0 if unset).
bool is_autovec_disabled();
bool is_autovec_forced();
bool is_asmjit_disabled();
bool is_stats_enabled();
bool is_sve_fp16_enabled();
int64_t tbe_l1_prefetch_distance();
int64_t tbe_l2_prefetch_distance();
int64_t tbe_l2_large_table_bytes();
void set_autovec_disabled(bool val);
void set_autovec_forced(bool val);
void set_asmjit_disabled(bool val);

// FBGEMM's argument check of its n-bit embedding kernels: input_bit_rate 2 or 4; a uint8
// output only for the int4 -> int4 sequential (no_bag) case; otherwise output_bit_rate is
// 8 * sizeof(OutType). Throws std::invalid_argument where FBGEMM asserts.
template <typename OutType>
void nbit_embedding_sanity_check(const int input_bit_rate, const int output_bit_rate,
                                 const bool no_bag) {
  const auto fail = [](const char* what, int v) {
    throw std::invalid_argument(std::string("nbit_embedding_sanity_check: ") + what + "=" +
                                std::to_string(v));
  };
  if (input_bit_rate != 2 && input_bit_rate != 4)
    fail("input_bit_rate (must be 2 or 4)", input_bit_rate);
  if constexpr (std::is_same_v<OutType, uint8_t>) {
    if (!(no_bag && input_bit_rate == 4 && output_bit_rate == 4))
      fail("output_bit_rate (uint8 output needs no_bag and int4 to int4)", output_bit_rate);
  } else {
    if (output_bit_rate != static_cast<int>(8 * sizeof(OutType)))
      fail("output_bit_rate (must be 8 * sizeof(OutType))", output_bit_rate);
  }
}

}  // namespace quire
QUIRE_API_END
