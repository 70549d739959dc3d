// The process-wide kernel form counts (quire/KernelFormCounts.h): each fbgemmPacked call
// counts in its KernelSet and adds the totals here once, when it returns.
#include <atomic>

#include "driver/driver.h"
#include "quire/KernelFormCounts.h"

namespace quire {
namespace {
std::atomic<int64_t> pair_safe_count{0}, exact_count{0}, corrected_count{0};
}  // namespace

inline namespace abi_v2 {

KernelFormCounts kernelFormCounts() {
  return {pair_safe_count.load(std::memory_order_relaxed), exact_count.load(std::memory_order_relaxed),
          corrected_count.load(std::memory_order_relaxed)};
}

void resetKernelFormCounts() {
  pair_safe_count.store(0, std::memory_order_relaxed);
  exact_count.store(0, std::memory_order_relaxed);
  corrected_count.store(0, std::memory_order_relaxed);
}

}  // namespace abi_v2

namespace detail {

void publish_form_counts(const KernelSet& kernels) {
  if (kernels.pair_safe_slices() != 0)
    pair_safe_count.fetch_add(kernels.pair_safe_slices(), std::memory_order_relaxed);
  if (kernels.exact_slices() != 0)
    exact_count.fetch_add(kernels.exact_slices(), std::memory_order_relaxed);
  if (kernels.corrected_slices() != 0)
    corrected_count.fetch_add(kernels.corrected_slices(), std::memory_order_relaxed);
}

}  // namespace detail
}  // namespace quire
