// What names a generated micro-kernel: the key of the code cache and the generators' input.
#pragma once

#include "../cpu/isa_traits.h"  // relative: tests include this header by path
#include "../cpu/output_stage.h"

namespace quire::jit {

struct KernelSpec {
  detail::Isa isa;
  int mr;               // rows of the register tile
  int nr;               // columns of the register tile (the last vector is masked if nr % lanes != 0)
  bool narrow = false;  // rows packed several per vector (narrow_generator.cpp)
  bool acc16 = false;   // saturating int16 accumulation (avx2, avx512; docs/acc16.md)
  // For pair-safe B panels only (avx2, avx512; docs/kernel-contract.md, "Pair-safe B
  // panels"): the exact 3-instruction vpmaddubsw step instead of the even/odd split.
  bool pair_safe = false;
  // What the kernel does with the finished accumulators: store int32 (the default), or
  // requantize to uint8 or float in registers (cpu/output_stage.h).
  detail::OutputStage stage{};
  // Narrow kernels on VNNI paths: the sum of each row's A bytes over the K block, formed
  // by vpdpbusd with ones beside the product, written to args->row_sums (one int32 per
  // row); a stage's row term then takes them from registers. The driver uses it to skip
  // the A packer's row-sum pass (docs/kernel-contract.md).
  bool row_sums = false;
  // Exact column kernels of avx2 and avx512 only (docs/kernel-contract.md, "A widened
  // once per block"): A arrives widened to 16-bit even/odd pairs, 8 bytes per K step.
  bool wide_a = false;
  // avx2 column kernels on A widened in linear order (widen_a_linear, with wide_a): B is
  // sign-extended to 16 bits per step, four columns per vector (vpmovsxbw), with no
  // split; each int32 lane sums half a column's step and the halves are added after the
  // K loop (docs/kernel-contract.md, "B sign-extended per step"). Tiles up to 6 x 8 and
  // 2 x 16 (the register file).
  bool sx_b = false;
};

}  // namespace quire::jit
