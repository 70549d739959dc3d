// quire-bench --precision embedding: embedding bags (quire/EmbeddingBag.h) in FBGEMM's
// benchmark configuration (batch 10, average bag 100, dimensions 32..1024; float, fp16,
// 8-bit, 4-bit, 2-bit rows; with and without weights) from a table far beyond L3
// (4,000,000 rows, capped at 2 GiB), one in L3 (an eighth of it) and one of 2,000 rows,
// on 1 and 2 threads, next to a plain gather of the same rows (same indices, same
// prefetch, a sum of their bytes) in the same run.
#pragma once

#include <cstdint>

#include "options.h"

namespace quire::bench {

int run_embedding_bench(const Options& opt);

// The plain gather: the sum of the 8-byte words of rows idx[0..n) (row_bytes each,
// stride apart; a last partial word is skipped), prefetching the row `prefetch` indices
// ahead as the kernels do. embedding_gather_avx2.cpp.
uint64_t gather_row_words(const uint8_t* table, int64_t stride, int64_t row_bytes,
                          const int64_t* idx, int64_t n, int prefetch);

}  // namespace quire::bench
