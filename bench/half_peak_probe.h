// The fp32 peaks the half-precision bench quotes: fp32 FMA (the fp16 and bf16 FMA
// kernels) and vdpbf16ps (the bf16 kernels on AVX512-BF16), each a short asm probe of
// independent accumulator chains, like peak_probe.h's int8 probes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "quire/Types.h"

namespace quire::bench {

struct FlopsPeak {
  double gflops_per_thread;  // 2 * multiply-adds per second / 1e9, one thread
  std::string method;
};

// The fp32 FMA peak of the path's vector width (zmm on the AVX-512 paths, ymm on avx2
// and avx_vnni); nullopt for anyarch.
std::optional<FlopsPeak> measure_fma_peak(inst_set_t isa);
// The vdpbf16ps zmm peak; nullopt when the CPU lacks AVX512-BF16.
std::optional<FlopsPeak> measure_dpbf16_peak();

namespace probe {
// Each runs `iterations` (>= 1) rounds of independent chains and returns the number of
// multiply-adds done. Call only on a CPU with the instructions.
int64_t fma_ymm(int64_t iterations);     // half_peak_probe_avx2.cpp
int64_t fma_zmm(int64_t iterations);     // half_peak_probe_avx512.cpp
int64_t dpbf16_zmm(int64_t iterations);  // half_peak_probe_avx512bf16.cpp
}  // namespace probe

}  // namespace quire::bench
