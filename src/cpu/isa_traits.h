// The one table of what each code path is: its names, its registers, its dot-product
// instruction and encoding, how it masks a partial vector, the CPU capability bits it
// needs, and the kernel facts derived from them. Detection (dispatch.cpp), the JIT
// (src/jit), the per-operator configs of the records (isa_record.h), the tests and the
// bench read these rows; none of them re-derives a fact about a path from its name.
//
// Header-only and free of other quire headers but Types.h, so tests and the bench can
// include it by path.
#pragma once

#include <cstdint>

#include "quire/Types.h"

namespace quire::detail {

// The code paths quire has, lowest first. avx512_vnni_ymm runs the avx_vnni kernels
// (16 ymm registers, vpmaskmovd tails) with EVEX-encoded vpdpbusd, so it runs on every
// AVX512-VNNI CPU; it is how the avx_vnni logic is tested on CPUs without AVX-VNNI.
enum class Isa : uint8_t { portable, avx2, avx_vnni, avx512, avx512_vnni_ymm, avx512_vnni };
inline constexpr int kIsaCount = 6;

// CPU capability bits (cpu::CpuFeatures::caps()). A path runs when the CPU has every bit
// it needs; operators may use more bits when present (avx512_bf16 for the half GEMM).
enum Cap : uint32_t {
  kCapAvx2 = 1u << 0,        // AVX2 + FMA + F16C: the floor of every vector path
  kCapAvx512 = 1u << 1,      // AVX-512 F + BW + VL + DQ
  kCapAvx512Vnni = 1u << 2,  // EVEX vpdpbusd
  kCapAvxVnni = 1u << 3,     // VEX vpdpbusd on ymm
  kCapAvx512Bf16 = 1u << 4,  // vdpbf16ps
};
using Caps = uint32_t;

struct CapName {
  Cap cap;
  const char* name;
};
// In the order error messages list them (cpu::CpuFeatures::summary).
inline constexpr CapName kCapNames[] = {
    {kCapAvx2, "avx2"},          {kCapAvxVnni, "avx_vnni"},       {kCapAvx512, "avx512"},
    {kCapAvx512Vnni, "avx512_vnni"}, {kCapAvx512Bf16, "avx512_bf16"},
};

enum class Encoding : uint8_t { none, vex, evex };  // of the path's vector instructions
enum class TailMask : uint8_t { none, vpmaskmovd, opmask };  // partial last vector

struct IsaTraits {
  Isa isa;
  inst_set_t inst_set;        // FBGEMM's name for it (fbgemmInstructionSet)
  const char* name;           // instSetName, QUIRE_ISA, the bench's --isa
  const char* kernel_suffix;  // in JIT kernel names: u8s8s32_mr6_nr64_<suffix>
  Caps needs;                 // capability bits the CPU must have
  bool auto_pick;             // chosen by default when it is the best the CPU has
  int vector_bytes;           // 0: portable C++
  int vector_registers;       // 16 (ymm, VEX) or 32 (zmm, EVEX)
  bool vnni;                  // 4-deep dot product by vpdpbusd (exact in int32)
  Encoding encoding;          // of vpdpbusd on VNNI paths, else of the path as a whole
  TailMask tails;
  int narrow_rows;            // rows of a narrow-kernel tile (narrow_generator.cpp); 0: none
  bool acc16_saturates;       // acc16 runs vpmaddubsw + vpaddsw kernels (docs/acc16.md);
                              // elsewhere it runs the exact kernels
  bool bf16_dot;              // the half GEMM may use vdpbf16ps when the CPU has avx512_bf16

  constexpr int int32_lanes() const { return vector_bytes / 4; }
  constexpr bool zmm() const { return vector_bytes == 64; }
};

// One row per Isa, in enum order (checked below). Register arithmetic of the tiles that
// fit these files is in src/cpu/dispatch.cpp and src/jit/kernel_generator.cpp.
inline constexpr IsaTraits kIsaTraits[] = {
    {.isa = Isa::portable, .inst_set = inst_set_t::anyarch, .name = "anyarch",
     .kernel_suffix = "portable", .needs = 0, .auto_pick = true, .vector_bytes = 0,
     .vector_registers = 0, .vnni = false, .encoding = Encoding::none, .tails = TailMask::none,
     .narrow_rows = 0, .acc16_saturates = false, .bf16_dot = false},
    {.isa = Isa::avx2, .inst_set = inst_set_t::avx2, .name = "avx2", .kernel_suffix = "avx2",
     .needs = kCapAvx2, .auto_pick = true, .vector_bytes = 32, .vector_registers = 16,
     .vnni = false, .encoding = Encoding::vex, .tails = TailMask::vpmaskmovd, .narrow_rows = 0,
     .acc16_saturates = true, .bf16_dot = false},
    {.isa = Isa::avx_vnni, .inst_set = inst_set_t::avx_vnni, .name = "avx_vnni",
     .kernel_suffix = "avxvnni", .needs = kCapAvx2 | kCapAvxVnni, .auto_pick = true,
     .vector_bytes = 32, .vector_registers = 16, .vnni = true, .encoding = Encoding::vex,
     .tails = TailMask::vpmaskmovd, .narrow_rows = 0, .acc16_saturates = false,
     .bf16_dot = false},
    {.isa = Isa::avx512, .inst_set = inst_set_t::avx512, .name = "avx512",
     .kernel_suffix = "avx512", .needs = kCapAvx2 | kCapAvx512, .auto_pick = true,
     .vector_bytes = 64, .vector_registers = 32, .vnni = false, .encoding = Encoding::evex,
     .tails = TailMask::opmask, .narrow_rows = 12, .acc16_saturates = true, .bf16_dot = true},
    {.isa = Isa::avx512_vnni_ymm, .inst_set = inst_set_t::avx512_vnni_ymm,
     .name = "avx512_vnni_ymm", .kernel_suffix = "avx512vnniymm",
     .needs = kCapAvx2 | kCapAvx512 | kCapAvx512Vnni, .auto_pick = false, .vector_bytes = 32,
     .vector_registers = 16, .vnni = true, .encoding = Encoding::evex,
     .tails = TailMask::vpmaskmovd, .narrow_rows = 0, .acc16_saturates = false,
     .bf16_dot = true},
    {.isa = Isa::avx512_vnni, .inst_set = inst_set_t::avx512_vnni, .name = "avx512_vnni",
     .kernel_suffix = "avx512vnni", .needs = kCapAvx2 | kCapAvx512 | kCapAvx512Vnni,
     .auto_pick = true, .vector_bytes = 64, .vector_registers = 32, .vnni = true,
     .encoding = Encoding::evex, .tails = TailMask::opmask, .narrow_rows = 12,
     .acc16_saturates = false, .bf16_dot = true},
};

static_assert(sizeof(kIsaTraits) / sizeof(kIsaTraits[0]) == kIsaCount, "one row per Isa");
consteval bool rows_in_enum_order() {
  for (int i = 0; i < kIsaCount; ++i)
    if (static_cast<int>(kIsaTraits[i].isa) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "kIsaTraits[i] must describe Isa i");
// What the generators assume of a row: a vector path masks its tails somehow (zmm has
// no vpmaskmovd form, so zmm paths use opmasks), and a VNNI path names its encoding.
consteval bool rows_consistent() {
  for (const IsaTraits& t : kIsaTraits) {
    if (t.vector_bytes != 0 && t.tails == TailMask::none) return false;
    if (t.zmm() && t.tails != TailMask::opmask) return false;
    if (t.vnni && t.encoding == Encoding::none) return false;
  }
  return true;
}
static_assert(rows_consistent(), "a row's tails or encoding contradict its vectors");

constexpr const IsaTraits& traits(Isa isa) { return kIsaTraits[static_cast<int>(isa)]; }

// FBGEMM's inst_set_t values that are not rows above: aliases of a path, or no path.
struct InstSetAlias {
  inst_set_t inst_set;
  const char* name;
  bool has_path;
  Isa isa;  // the path it runs, when has_path
};
inline constexpr InstSetAlias kInstSetAliases[] = {
    {inst_set_t::avx512_ymm, "avx512_ymm", true, Isa::avx512},
    {inst_set_t::sve, "sve", false, Isa::portable},  // Arm: quire has no such path
};

// The row of the path FBGEMM's name runs (avx512_ymm: avx512's), or null for a name
// quire has no path for (sve).
constexpr const IsaTraits* find_traits(inst_set_t inst_set) {
  for (const IsaTraits& t : kIsaTraits)
    if (t.inst_set == inst_set) return &t;
  for (const InstSetAlias& a : kInstSetAliases)
    if (a.inst_set == inst_set && a.has_path) return &traits(a.isa);
  return nullptr;
}

// Whether this CPU has every capability bit the path needs (dispatch.cpp).
bool cpu_has(Isa isa);

// Maps FBGEMM's instruction-set names onto quire's paths (avx512_ymm runs avx512);
// throws std::invalid_argument for sve and values outside the enum (dispatch.cpp).
Isa isa_from_inst_set(inst_set_t inst_set);

}  // namespace quire::detail
