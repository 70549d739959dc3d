// quire's addition: which kernel form fbgemmPacked ran, counted per (A block x B column
// slice) on the paths that choose between forms (avx2, avx512, int32 accumulation; the
// saturation certificate, docs/kernel-contract.md). Process-wide, summed over threads.
#pragma once

#include <cstdint>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// In abi_v2 since the struct gained `corrected`: returned by value, the larger struct
// travels through memory instead of registers, so a client built against the two-field
// header must fail to link (the names carry abi_v2) rather than misread it.
inline namespace abi_v2 {

struct KernelFormCounts {
  int64_t pair_safe;  // certified: vpmaddubsw + vpmaddwd + vpaddd
  int64_t exact;      // the exact split (on A as packed or widened)
  // Added after the first two (the struct only grows at its end): the pair-safe kernels
  // on a panel with a few unsafe pairs, plus their sparse correction (exact too).
  int64_t corrected;
};

// The counts since the last reset (or the start of the process). Each fbgemmPacked call
// adds its own when it returns.
KernelFormCounts kernelFormCounts();
void resetKernelFormCounts();

}  // namespace abi_v2
}  // namespace quire
QUIRE_API_END
