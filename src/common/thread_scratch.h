// A buffer that grows to the largest size its thread has asked for and never shrinks, for
// per-call scratch on hot paths (no allocation once warm). Keep one per use as a
// thread_local, so concurrent calls never share it and uses never clobber each other.
#pragma once

#include <cstddef>

#include "quire/Utils.h"

namespace quire::detail {

class GrowingScratch {
 public:
  // At least `bytes` bytes, 64-byte aligned; earlier contents are not kept on growth.
  void* get(size_t bytes) {
    if (bytes > bytes_) {
      buf_.reset(static_cast<uint8_t*>(fbgemmAlignedAlloc(64, bytes, true)));
      bytes_ = bytes;
    }
    return buf_.get();
  }

 private:
  aligned_unique_ptr<uint8_t> buf_;
  size_t bytes_ = 0;
};

}  // namespace quire::detail
