// FNV-1a, 64 bits: the checksum of quire's saved formats (packed weights). It detects
// truncation and corruption, not tampering.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quire::detail {

struct Fnv1a {
  uint64_t h = 0xcbf29ce484222325ull;
  void add(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  }
};

}  // namespace quire::detail
