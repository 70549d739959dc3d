// The per-ISA records and the choice of the active one.
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/transpose.h"
#include "conv/conv_kernels.h"
#include "cpu/cpu_features.h"
#include "cpu/isa_record.h"
#include "driver/portable_kernel.h"
#include "embedding/adagrad_kernels.h"
#include "driver/pair_correction.h"
#include "embedding/embedding_kernels.h"
#include "fp16/convert_kernels.h"
#include "fp16/half_kernels.h"
#include "i64/gemm_i64.h"
#include "int4/int4_kernels.h"
#include "jit/kernel_cache.h"
#include "pack/pack_a.h"
#include "pack/widen_a.h"
#include "quire/PackingTraits.h"
#include "quire/Utils.h"
#include "epilogue/epilogue_table.h"
#include "quant/quant_kernels.h"
#include "sparse/spmdm_table.h"

namespace quire::detail {

bool cpu_has(Isa isa) {
  const Caps needs = traits(isa).needs;
  return (cpu::cpu_features().caps() & needs) == needs;
}

namespace {

// The portable path's kernel entry: its one kernel is the plain column form (int32 store;
// the tile epilogue requantizes), whatever the tile.
MicroKernelFn portable_kernel(const jit::KernelSpec& s) {
  const bool plain = !s.narrow && !s.acc16 && !s.pair_safe && !s.wide_a && !s.row_sums &&
                     !s.stage.requantize;
  return plain ? &driver::portable_micro_kernel : nullptr;
}

// The default blocking of each path: the row of its FBGEMM name in kInt8Blocking
// (quire/PackingTraits.h), which PackingTraits reads too. Register arithmetic of those
// tiles (vector registers: 16 ymm or 32 zmm):
//   avx512_vnni  MR=6, NR=64: 6*4 accumulators + 4 B vectors + 1 A broadcast = 29 of 32
//   avx_vnni     MR=6, NR=16: 6*2 accumulators + 2 B vectors + 1 A broadcast = 15 of 16
//                (avx512_vnni_ymm: the same kernels, EVEX-encoded)
//   avx512       MR=6, NR=48: 6*3 accumulators + 2*3 B (even/odd bytes) + 2 A (even/odd)
//                             + 1 product + 1 byte mask = 28 of 32
//   avx2         MR=4, NR=16: 4*2 + 2*2 + 2 + 1 + 1 = 16 of 16
// MCB x KCB (the packed A block, 240 KiB) stays in L2; so does the KCB x NR B panel the
// MR-row panels stream past. KCB = 2048 measured 2-8% faster than 512 and 1024 on
// 6x4096x2048, 1024^3 and 2048^3 (fewer passes over the C tile), on every path.
// acc16 (docs/acc16.md), where it saturates:
//   avx512  MR=6, NR=64: 6*4 accumulators + 4 B + 1 A + 1 product = 30 of 32
//   avx2    MR=6, NR=16: 6*2 + 2 + 1 + 1 = 16 of 16
// Its KCB is the depth of one int16 accumulation window: 256 keeps the C round trip per
// window at a few percent of the kernel time while each int16 sum sees only 64 pairs.
// Elsewhere acc16 runs the exact kernels with the acc32 blocking.
// A path without an FBGEMM name of its own reuses another path's blocking by naming it.
constexpr BlockingFactors blocking_of(Isa isa, bool acc16) {
  const Int8BlockingRow& row = *find_int8_blocking(traits(isa).inst_set);
  const Int8Blocking& b = acc16 ? row.acc16 : row.acc32;
  return {b.MR, b.NR, b.NR_MIN, 4, b.MCB, b.KCB, b.NCB};
}

constexpr HalfKernels kHalfYmm{&kHalfFp16Avx2, &kHalfBf16Avx2, nullptr, &kHalfFp32Avx2};
constexpr HalfKernels kHalfZmm{&kHalfFp16Avx512, &kHalfBf16Avx512, &kHalfBf16Avx512Bf16,
                               &kHalfFp32Avx512};

// One record per Isa, in enum order (checked below).
constexpr IsaRecord kRecords[] = {
    {.isa = Isa::portable, .blocking = blocking_of(Isa::portable, false),
     .blocking_acc16 = blocking_of(Isa::portable, true),
     .kernel = &portable_kernel, .pack_a = &pack::pack_a_portable,
     .widen_a = nullptr, .widen_a_linear = nullptr,
     .epilogue = &kEpiloguePortable, .quant = &kQuantPortable, .conv = &conv::kConvPortable,
     .spmdm = &kSpmdmPortable,
     .half = {&kHalfFp16Portable, &kHalfBf16Portable, nullptr, &kHalfFp32Portable},
     .convert = nullptr, .int4 = &int4::kInt4Portable,
     .embedding = &kEmbeddingPortable,
     .transpose = nullptr, .i64 = &i64::kI64Portable, .adagrad = &kAdagradPortable,
     .pair_correction = nullptr},
    {.isa = Isa::avx2, .blocking = blocking_of(Isa::avx2, false),
     .blocking_acc16 = blocking_of(Isa::avx2, true),
     .kernel = &jit::kernel, .pack_a = &pack::pack_a_avx2,
     .widen_a = &pack::widen_a_avx2, .widen_a_linear = &pack::widen_a_linear_avx2,
     .epilogue = &kEpilogueAvx2, .quant = &kQuantAvx2, .conv = &conv::kConvAvx2,
     .spmdm = &kSpmdmAvx2, .half = kHalfYmm, .convert = &kConvertAvx2,
     .int4 = &int4::kInt4Avx2,
     .embedding = &kEmbeddingAvx2,
     .transpose = &kTransposeAvx2, .i64 = &i64::kI64Avx2, .adagrad = &kAdagradAvx2,
     .pair_correction = &kPairCorrectionAvx2},
    {.isa = Isa::avx_vnni, .blocking = blocking_of(Isa::avx_vnni, false),
     .blocking_acc16 = blocking_of(Isa::avx_vnni, true),
     .kernel = &jit::kernel, .pack_a = &pack::pack_a_avx2,
     .widen_a = nullptr, .widen_a_linear = nullptr,
     .epilogue = &kEpilogueAvx2, .quant = &kQuantAvx2, .conv = &conv::kConvAvx2,
     .spmdm = &kSpmdmAvx2, .half = kHalfYmm, .convert = &kConvertAvx2,
     .int4 = &int4::kInt4Avx2,
     .embedding = &kEmbeddingAvx2,
     .transpose = &kTransposeAvx2, .i64 = &i64::kI64Avx2, .adagrad = &kAdagradAvx2,
     .pair_correction = nullptr},
    {.isa = Isa::avx512, .blocking = blocking_of(Isa::avx512, false),
     .blocking_acc16 = blocking_of(Isa::avx512, true),
     .kernel = &jit::kernel, .pack_a = &pack::pack_a_avx512,
     .widen_a = &pack::widen_a_avx2, .widen_a_linear = nullptr,
     .epilogue = &kEpilogueAvx512, .quant = &kQuantAvx512, .conv = &conv::kConvAvx512,
     .spmdm = &kSpmdmAvx512, .half = kHalfZmm, .convert = &kConvertAvx512,
     .int4 = &int4::kInt4Avx512,
     .embedding = &kEmbeddingAvx512,
     .transpose = &kTransposeAvx512, .i64 = &i64::kI64Avx512, .adagrad = &kAdagradAvx512,
     .pair_correction = &kPairCorrectionAvx512},
    {.isa = Isa::avx512_vnni_ymm, .blocking = blocking_of(Isa::avx512_vnni_ymm, false),
     .blocking_acc16 = blocking_of(Isa::avx512_vnni_ymm, true),
     .kernel = &jit::kernel, .pack_a = &pack::pack_a_avx512,
     .widen_a = nullptr, .widen_a_linear = nullptr,
     .epilogue = &kEpilogueAvx512, .quant = &kQuantAvx512, .conv = &conv::kConvAvx2,
     .spmdm = &kSpmdmAvx512Vnni, .half = kHalfZmm, .convert = &kConvertAvx512,
     .int4 = &int4::kInt4Avx2,
     .embedding = &kEmbeddingAvx512,
     .transpose = &kTransposeAvx2, .i64 = &i64::kI64Avx2, .adagrad = &kAdagradAvx512,
     .pair_correction = nullptr},
    {.isa = Isa::avx512_vnni, .blocking = blocking_of(Isa::avx512_vnni, false),
     .blocking_acc16 = blocking_of(Isa::avx512_vnni, true),
     .kernel = &jit::kernel, .pack_a = &pack::pack_a_avx512,
     .widen_a = nullptr, .widen_a_linear = nullptr,
     .epilogue = &kEpilogueAvx512, .quant = &kQuantAvx512, .conv = &conv::kConvAvx512Vnni,
     .spmdm = &kSpmdmAvx512Vnni, .half = kHalfZmm, .convert = &kConvertAvx512,
     .int4 = &int4::kInt4Avx512Vnni,
     .embedding = &kEmbeddingAvx512,
     .transpose = &kTransposeAvx512, .i64 = &i64::kI64Avx512, .adagrad = &kAdagradAvx512,
     .pair_correction = nullptr},
};

static_assert(sizeof(kRecords) / sizeof(kRecords[0]) == kIsaCount, "one record per Isa");
consteval bool records_in_enum_order() {
  for (int i = 0; i < kIsaCount; ++i)
    if (static_cast<int>(kRecords[i].isa) != i) return false;
  return true;
}
static_assert(records_in_enum_order(), "kRecords[i] must describe Isa i");

constexpr bool same_blocking(const BlockingFactors& a, const BlockingFactors& b) {
  return a.MR == b.MR && a.NR == b.NR && a.NR_MIN == b.NR_MIN &&
         a.ROW_INTERLEAVE == b.ROW_INTERLEAVE && a.MCB == b.MCB && a.KCB == b.KCB &&
         a.NCB == b.NCB;
}
// PackingTraits and the records agree: every FBGEMM name that runs a path has a blocking
// row, and no row names a path quire lacks; a path that answers for its name (the first
// row of it) has its row's blocking; an alias has the blocking of the path it runs; and
// acc16 has blocking of its own only where its kernels saturate.
// (By value and index, not find_traits' pointers: under -fsanitize=undefined GCC does not
// take a pointer's comparison with null as a constant expression, as in the ASan build.)
consteval bool names_a_path(inst_set_t inst_set) {
  for (const IsaTraits& t : kIsaTraits)
    if (t.inst_set == inst_set) return true;
  for (const InstSetAlias& a : kInstSetAliases)
    if (a.inst_set == inst_set && a.has_path) return true;
  return false;
}
consteval Isa first_path_named(inst_set_t inst_set) {
  for (const IsaTraits& t : kIsaTraits)
    if (t.inst_set == inst_set) return t.isa;
  return Isa::portable;
}
consteval bool blocking_agrees() {
  for (const Int8BlockingRow& b : kInt8Blocking)
    if (!names_a_path(b.inst_set)) return false;
  for (const IsaRecord& r : kRecords) {
    const IsaTraits& t = r.traits();
    if (int8_blocking_row(t.inst_set) < 0) return false;
    if (first_path_named(t.inst_set) != t.isa) continue;
    if (!same_blocking(r.blocking, blocking_of(t.isa, false)) ||
        !same_blocking(r.blocking_acc16, blocking_of(t.isa, true)))
      return false;
    if (!t.acc16_saturates && !same_blocking(r.blocking, r.blocking_acc16)) return false;
  }
  for (const InstSetAlias& a : kInstSetAliases) {
    if (!a.has_path) continue;
    const int b = int8_blocking_row(a.inst_set), p = int8_blocking_row(traits(a.isa).inst_set);
    if (b < 0 || p < 0 || !(kInt8Blocking[b].acc32 == kInt8Blocking[p].acc32) ||
        !(kInt8Blocking[b].acc16 == kInt8Blocking[p].acc16))
      return false;
  }
  return true;
}
static_assert(blocking_agrees(), "kInt8Blocking (quire/PackingTraits.h) and kRecords disagree");

const IsaRecord& record(Isa isa) { return kRecords[static_cast<int>(isa)]; }

Isa best_isa() {
  for (int i = kIsaCount - 1; i > 0; --i)
    if (kIsaTraits[i].auto_pick && cpu_has(kIsaTraits[i].isa)) return kIsaTraits[i].isa;
  return Isa::portable;
}

const IsaRecord& checked_record(Isa isa, const std::string& asked) {
  if (!cpu_has(isa)) {
    throw std::invalid_argument(asked + ": this CPU lacks the instructions of that path; it has: " +
                                cpu::cpu_features().summary());
  }
  return record(isa);
}

Isa isa_from_name(const std::string& name) {
  std::string names;
  for (const IsaTraits& t : kIsaTraits) {
    if (name == t.name) return t.isa;
    names += names.empty() ? t.name : std::string(", ") + t.name;
  }
  throw std::invalid_argument("QUIRE_ISA='" + name + "' is not a path; expected one of " + names);
}

const IsaRecord* initial_record() {
  const char* env = std::getenv("QUIRE_ISA");
  if (env == nullptr || *env == '\0') return &record(best_isa());
  return &checked_record(isa_from_name(env), std::string("QUIRE_ISA=") + env);
}

std::atomic<const IsaRecord*> g_active{nullptr};

}  // namespace

const IsaRecord& active_isa() {
  const IsaRecord* r = g_active.load(std::memory_order_acquire);
  if (r == nullptr) {
    const IsaRecord* chosen = initial_record();
    g_active.compare_exchange_strong(r, chosen, std::memory_order_acq_rel);
    r = g_active.load(std::memory_order_acquire);
  }
  return *r;
}

const IsaRecord& isa_record(Isa isa) {
  if (cpu_has(isa)) return record(isa);  // the message is built only to throw it
  return checked_record(isa, std::string("instruction set ") + traits(isa).name);
}

Isa isa_from_inst_set(inst_set_t inst_set) {
  if (const IsaTraits* t = find_traits(inst_set)) return t->isa;
  const std::string_view name = instSetName(inst_set);
  throw std::invalid_argument(
      "inst_set_t value " + std::to_string(static_cast<int>(inst_set)) +
      (name == "unknown" ? std::string(" is not an instruction set")
                         : " (" + std::string(name) + ") has no path in quire (x86 only)"));
}

// The path itself if the CPU has it, else the nearest row below it that the CPU has.
const IsaRecord& record_at_or_below(inst_set_t inst_set) {
  int i = static_cast<int>(isa_from_inst_set(inst_set));
  while (!cpu_has(kIsaTraits[i].isa)) --i;
  return kRecords[i];
}

const EpilogueTable& epilogue_for(inst_set_t inst_set) { return *record_at_or_below(inst_set).epilogue; }

}  // namespace quire::detail

namespace quire {

using detail::Isa;

inst_set_t fbgemmInstructionSet() { return detail::active_isa().traits().inst_set; }
bool fbgemmSupportedCPU() { return cpu::cpu_features().avx2; }
bool fbgemmHasAvx2Support() { return cpu::cpu_features().avx2; }
bool fbgemmHasAvx512Support() { return cpu::cpu_features().avx512; }
bool fbgemmHasAvx512VnniSupport() { return cpu::cpu_features().avx512_vnni; }
bool fbgemmHasAvxVnniSupport() { return cpu::cpu_features().avx_vnni; }

void forceIsa(inst_set_t isa) {
  const Isa path = detail::isa_from_inst_set(isa);
  const detail::IsaRecord& r =
      detail::checked_record(path, std::string("forceIsa(") + instSetName(isa) + ")");
  detail::g_active.store(&r, std::memory_order_release);
}

void fbgemmForceIsa(inst_set_t isa) {
  if (std::string_view(instSetName(isa)) == "unknown")
    throw std::invalid_argument("fbgemmForceIsa: inst_set_t value " +
                                std::to_string(static_cast<int>(isa)) +
                                " is not an instruction set");
  // FBGEMM treats anyarch as "nothing forced" and ignores a path the CPU lacks.
  const detail::IsaTraits* t = detail::find_traits(isa);  // null for sve
  const bool force = t != nullptr && isa != inst_set_t::anyarch && detail::cpu_has(t->isa);
  detail::g_active.store(force ? &detail::record(t->isa) : detail::initial_record(),
                         std::memory_order_release);
}

const char* instSetName(inst_set_t isa) {
  for (const detail::IsaTraits& t : detail::kIsaTraits)
    if (t.inst_set == isa) return t.name;
  for (const detail::InstSetAlias& a : detail::kInstSetAliases)
    if (a.inst_set == isa) return a.name;
  return "unknown";
}

}  // namespace quire
