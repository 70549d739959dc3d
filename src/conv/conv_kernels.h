// The convolution routines of each instruction-set path, reached through one table
// chosen from the active GEMM dispatch record (conv_kernels_for), so that a convolution
// runs the same path as the GEMM it may fall back to.
#pragma once

#include <cstdint>

#include "quire/detail/IsaRecord.h"

namespace quire::conv {

// A piece of one im2col row: len bytes copied from src, or, with src null, len bytes of
// the activation zero point.
struct Im2ColRun {
  const uint8_t* src;
  int32_t len;
};

// Writes the runs (len total bytes) consecutively to dst, then zeros up to `padded`
// bytes. Returns the sum of the len bytes written when want_sum, else 0.
using Im2ColRowFn = int32_t (*)(const Im2ColRun* runs, int nruns, uint8_t fill, uint8_t* dst,
                                int padded, bool want_sum);

struct ConvKernels {
  const char* name;
  Im2ColRowFn im2col_row;
};

// The routines for a GEMM path: portable for anyarch, AVX2 for avx2, avx_vnni and
// avx512_vnni_ymm (the ymm paths), AVX-512 for avx512 and avx512_vnni.
const ConvKernels& conv_kernels_for(const detail::IsaRecord& isa);

int32_t im2col_row_portable(const Im2ColRun* runs, int nruns, uint8_t fill, uint8_t* dst,
                            int padded, bool want_sum);
int32_t im2col_row_avx2(const Im2ColRun* runs, int nruns, uint8_t fill, uint8_t* dst,
                        int padded, bool want_sum);
int32_t im2col_row_avx512(const Im2ColRun* runs, int nruns, uint8_t fill, uint8_t* dst,
                          int padded, bool want_sum);

}  // namespace quire::conv
