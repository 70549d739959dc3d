// What the CPU can do, detected once per process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace quire::cpu {

struct CpuFeatures {
  bool avx2 = false;         // AVX2 + FMA (+ F16C): the floor of every JIT path
  bool avx512 = false;       // AVX-512 F + BW + VL + DQ
  bool avx512_vnni = false;  // EVEX vpdpbusd
  bool avx_vnni = false;     // VEX vpdpbusd on ymm (cpuinfo of 2022 does not know it)
  bool avx512_bf16 = false;
  std::string name;          // marketing name of the package
  uint32_t caps() const;        // the detail::Cap bits (isa_traits.h) of the flags above
  std::string summary() const;  // "avx2 avx512 avx512_vnni ..." for error messages
};

const CpuFeatures& cpu_features();

}  // namespace quire::cpu
