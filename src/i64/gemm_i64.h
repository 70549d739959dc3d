// The int64 GEMM's micro-kernels (one per ISA) and the blocking around them.
#pragma once

#include <cstdint>

namespace quire::detail::i64 {

// c[0..mr) x [0..nr) (ldc apart) = (accumulate ? c : 0) + a * b over kc steps, where
// a holds mr rows of kc values (lda apart) and b one packed panel: kc steps of
// kNr values (columns past nr are zero). mr <= the kernel's MR, nr <= kNr.
using TileFn = void (*)(const int64_t* a, int64_t lda, const int64_t* b, int kc, int64_t* c,
                        int64_t ldc, int mr, int nr, bool accumulate);

struct Kernel {
  int mr;  // rows per tile
  TileFn tile;
};

constexpr int kNr = 16;    // panel width: two zmm / four ymm of int64
constexpr int kKcb = 256;  // K block: a 256 x 16 panel is 32 KiB (L1 / L2)
constexpr int kMcb = 96;   // A block: 96 x 256 x 8 bytes = 192 KiB (L2)
constexpr int kNcb = 512;  // B block: 256 x 512 x 8 bytes = 1 MiB

// Each path's kernel (IsaRecord::i64).
extern const Kernel kI64Portable;
extern const Kernel kI64Avx2;
extern const Kernel kI64Avx512;

}  // namespace quire::detail::i64
