// Argument checks of the array forms in src/quant/ (see quire/detail/Check.h).
#pragma once

#include <cstdint>

#include "quire/detail/Check.h"

namespace quire::detail {

// len >= 0, and src and dst non-null when len > 0.
void check_len(const char* where, const void* src, const char* src_name, const void* dst,
               const char* dst_name, int64_t len);

// Validates thread_id / num_threads and returns this caller's share [begin, end) of len.
void thread_share(const char* where, int thread_id, int num_threads, int64_t len,
                  int64_t& begin, int64_t& end);

}  // namespace quire::detail
