// FBGEMM compatibility: fbgemm/SimdUtils.h. simd_info<inst_set_t>: the vector width and
// register count of each instruction set, and (x86) its asmjit register type; FBGEMM's
// tests read WIDTH_32BIT_ELEMS from it. Xmm / Ymm / Zmm are asmjit's register types
// (asmjit >= 1.17 has one vector register class, asmjit::x86::Vec, for all three).
#pragma once

#include <asmjit/core.h>
#include <asmjit/x86.h>

#include "fbgemm/Utils.h"

namespace fbgemm {

// asmjit encodes version major.minor.patch as 0xMMmmpp.
#if ASMJIT_LIBRARY_VERSION >= 0x011100
using Xmm = asmjit::x86::Vec;
using Ymm = asmjit::x86::Vec;
using Zmm = asmjit::x86::Vec;
#else
using Xmm = asmjit::x86::Xmm;
using Ymm = asmjit::x86::Ymm;
using Zmm = asmjit::x86::Zmm;
#endif

template <inst_set_t inst_set>
struct simd_info;

template <>
struct simd_info<inst_set_t::avx2> {
  static constexpr int WIDTH_BITS = 256;
  static constexpr int WIDTH_BYTES = WIDTH_BITS / 8;
  static constexpr int WIDTH_32BIT_ELEMS = WIDTH_BITS / 32;
  static constexpr int NUM_VEC_REGS = 16;
  using vec_reg_t = Ymm;
};

// Arm's SVE, as FBGEMM describes it (256-bit steps); quire has no SVE path.
template <>
struct simd_info<inst_set_t::sve> {
  static constexpr int WIDTH_BITS = 256;
  static constexpr int WIDTH_BYTES = WIDTH_BITS / 8;
  static constexpr int WIDTH_32BIT_ELEMS = WIDTH_BITS / 32;
  static constexpr int NUM_VEC_REGS = 32;
};

template <>
struct simd_info<inst_set_t::avx512> {
  static constexpr int WIDTH_BITS = 512;
  static constexpr int WIDTH_BYTES = WIDTH_BITS / 8;
  static constexpr int WIDTH_32BIT_ELEMS = WIDTH_BITS / 32;
  static constexpr int NUM_VEC_REGS = 32;
  using vec_reg_t = Zmm;
};

template <>
struct simd_info<inst_set_t::avx512_vnni> : simd_info<inst_set_t::avx512> {};

// AVX-512 instructions on 256-bit registers: 32 of them.
template <>
struct simd_info<inst_set_t::avx512_ymm> {
  static constexpr int WIDTH_BITS = 256;
  static constexpr int WIDTH_BYTES = WIDTH_BITS / 8;
  static constexpr int WIDTH_32BIT_ELEMS = WIDTH_BITS / 32;
  static constexpr int NUM_VEC_REGS = 32;
  using vec_reg_t = Ymm;
};

template <>
struct simd_info<inst_set_t::avx512_vnni_ymm> : simd_info<inst_set_t::avx512_ymm> {};

}  // namespace fbgemm
