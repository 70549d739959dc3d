// CPU queries, aligned memory, work partitioning and buffer comparison.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <type_traits>

#include "quire/Types.h"

namespace quire {

// The instruction set the library runs with now: the best the CPU has, or what
// QUIRE_ISA / fbgemmForceIsa asked for. anyarch means the portable C++ path.
inst_set_t fbgemmInstructionSet();

// True when the CPU has at least AVX2 + FMA (the JIT kernels need it). Without it every
// entry point still works through portable C++.
bool fbgemmSupportedCPU();
bool fbgemmHasAvx2Support();
bool fbgemmHasAvx512Support();
bool fbgemmHasAvx512VnniSupport();
bool fbgemmHasAvxVnniSupport();  // quire's addition

// Forces a path for the whole process (anyarch forces the portable C++ path).
// Throws std::invalid_argument when the CPU lacks the requested instructions.
void fbgemmForceIsa(inst_set_t isa);

// Name of an instruction set ("avx512_vnni", ...).
const char* instSetName(inst_set_t isa);

// Memory aligned to `align` bytes (a power of two); free with fbgemmAlignedFree.
void* fbgemmAlignedAlloc(size_t align, size_t size);
void fbgemmAlignedFree(void* p);

// Splits [0, total) into num_threads nearly equal contiguous ranges; thread_id gets
// [*start, *end).
void fbgemmPartition1D(int thread_id, int num_threads, int64_t total, int64_t& start,
                       int64_t& end);

// Compares an m x n block of two buffers with leading dimension ld. Integers must match
// exactly; floats within atol (absolute) or 1e-5 relative. Prints up to
// max_mismatches_to_report mismatches to std::cerr; returns the number of mismatches.
template <class T>
int compare_buffers(const T* ref, const T* test, int m, int n, int ld,
                    size_t max_mismatches_to_report, float atol = 1e-3) {
  size_t mismatches = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const T r = ref[static_cast<size_t>(i) * ld + j];
      const T t = test[static_cast<size_t>(i) * ld + j];
      bool equal;
      if constexpr (std::is_floating_point_v<T>) {
        const double diff = std::fabs(static_cast<double>(r) - static_cast<double>(t));
        equal = diff <= atol || diff <= 1e-5 * std::fabs(static_cast<double>(r));
      } else {
        equal = r == t;
      }
      if (!equal) {
        if (mismatches < max_mismatches_to_report) {
          std::cerr << "mismatch at (" << i << ", " << j << "): reference " << +r
                    << ", test " << +t << "\n";
        }
        ++mismatches;
      }
    }
  }
  return static_cast<int>(mismatches);
}

}  // namespace quire
