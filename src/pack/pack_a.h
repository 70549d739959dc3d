// A-block packers, one per ISA (same result, different speed). See detail::PackAFn.
#pragma once

#include <cstdint>

namespace quire::pack {

void pack_a_portable(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                     uint8_t* dst, int64_t ld_dst, int32_t* row_sums,
                     bool accumulate_sums);
void pack_a_avx2(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                 uint8_t* dst, int64_t ld_dst, int32_t* row_sums,
                 bool accumulate_sums);
void pack_a_avx512(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                   uint8_t* dst, int64_t ld_dst, int32_t* row_sums,
                   bool accumulate_sums);

}  // namespace quire::pack
