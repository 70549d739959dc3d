// quire-bench --shapes conv: the convolution bench (shared/BENCH.md, conv shape set).
// For each shape: the path fbgemmConv takes, its time, GOPS, % of the int8 peak and
// GB/s; for GEMM shapes the same M, N, K as a plain GEMM (im2col matrix prebuilt) and
// unfused (explicit im2col + GEMM in the call); for direct-kernel shapes the same
// convolution forced through the fused-im2col GEMM. Every output is checked against
// quire::ref. Returns the process exit code (1 when a check fails).
#pragma once

#include "options.h"

namespace quire::bench {

int run_conv_bench(const Options& opt);

}  // namespace quire::bench
