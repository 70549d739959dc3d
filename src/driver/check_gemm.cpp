#include <string>

#include "quire/detail/Check.h"
#include "driver/driver.h"

namespace quire::detail {

GemmShape check_gemm(int32_t a_rows, int32_t a_cols, int a_groups, const PackedBLayout& b,
                     const void* C, const void* C_buffer, uint32_t ldc, int thread_id,
                     int num_threads, const BlockingFactors& a_blocking,
                     const BlockingFactors* blocking_params) {
  const char* where = "fbgemmPacked";
  check_arg(num_threads >= 1 && num_threads <= 1024, where, "num_threads", num_threads,
            "must be in [1, 1024]");
  check_arg(thread_id >= 0 && thread_id < num_threads, where, "thread_id", thread_id,
            "must be in [0, num_threads)");
  check_arg(a_groups == b.groups, where, "packA.numGroups()", a_groups,
            "must equal packB.numGroups()");
  check_arg(a_cols == int64_t{b.k_per_group} * b.groups, where, "packA.numCols()", a_cols,
            "must equal packB.numRows() (K)");
  const int64_t out_cols = int64_t{b.n} * b.groups;
  check_arg(ldc >= out_cols && ldc <= INT32_MAX, where, "ldc", ldc,
            "must be >= packB.numCols() * groups and fit int32");
  check_product(a_rows, ldc, where, "M x ldc");
  // An empty product (M, N or K = 0) writes nothing and reads nothing, as in FBGEMM
  // (whose K loop then has no block, so not even the output pipeline runs).
  if (a_rows > 0 && b.n > 0 && b.k_per_group > 0) {
    check_not_null(C, where, "C");
    check_not_null(C_buffer, where, "C_buffer");
  }
  if (blocking_params != nullptr) {
    const BlockingFactors& p = *blocking_params;
    check_arg(p.MR == a_blocking.MR, where, "blocking_params->MR", p.MR,
              "must equal the MR the A packer was built with");
    check_arg(p.MCB == a_blocking.MCB, where, "blocking_params->MCB", p.MCB,
              "must equal the MCB the A packer was built with");
    check_arg(p.KCB == a_blocking.KCB, where, "blocking_params->KCB", p.KCB,
              "must equal the KCB the A packer was built with");
  }
  return GemmShape{a_rows, b.k_per_group, b.n, b.groups};
}

}  // namespace quire::detail
