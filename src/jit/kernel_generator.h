// Emits u8 x s8 -> s32 micro-kernels with asmjit: one generator, parameterized by the
// instruction set's vector width and dot-product style.
#pragma once

#include <asmjit/x86.h>

#include <string>

#include "jit/kernel_spec.h"
#include "cpu/isa_record.h"

namespace quire::jit {

// Vector lanes (int32) of a path's registers: 16 for zmm paths, 8 for ymm paths.
int int32_lanes(detail::Isa isa);

// Whether the spec's tile fits the vector register file (see the register maps in
// kernel_generator.cpp).
bool registers_fit(const KernelSpec& spec);

// Name that is the kernel's spec, e.g. "u8s8s32_mr6_nr64_avx512vnni" (acc16: "u8s8s16_...";
// suffixes "_narrow", "_pairsafe", and for a requantizing output stage "_u8" with its
// operands, e.g. "_u8_azp_bzpcol_multcol_i32bias").
std::string kernel_name(const KernelSpec& spec);

// Emits the kernel body: void kernel(const detail::MicroKernelArgs* args).
void emit_micro_kernel(asmjit::x86::Assembler& a, const KernelSpec& spec);

// Narrow kernels (AVX-512 paths, 3 <= nr <= 8, mr <= 12): several rows per vector
// (pair-safe: avx512 only).
bool narrow_fits(const KernelSpec& spec);
void emit_narrow_kernel(asmjit::x86::Assembler& a, const KernelSpec& spec);

}  // namespace quire::jit
