// The widened copy of one A block (driver.h, WideABlock), made on first use into the
// calling thread's scratch.
#include "common/thread_scratch.h"
#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "quire/Utils.h"

namespace quire::detail {

namespace {

// The calling thread's widened block (only the latest is live).
thread_local GrowingScratch t_wide;

}  // namespace

const uint8_t* WideABlock::get() {
  if (data_ != nullptr) return data_;
  // Rows a multiple of 4 KiB apart share L1 sets and evict each other within a tile:
  // such rows get 64 bytes more.
  ld_bytes_ = int64_t{k4_steps_} * 8;
  if (ld_bytes_ % 4096 == 0) ld_bytes_ += 64;
  auto* dst = static_cast<uint16_t*>(
      t_wide.get(static_cast<size_t>(ld_bytes_) * static_cast<size_t>(rows_)));
  widen_(src_, lda_, rows_, k4_steps_, dst, ld_bytes_ / 2);
  data_ = reinterpret_cast<const uint8_t*>(dst);
  return data_;
}

}  // namespace quire::detail
