// The per-ISA records and the choice of the active one.
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "conv/conv_kernels.h"
#include "cpu/cpu_features.h"
#include "driver/portable_kernel.h"
#include "jit/kernel_cache.h"
#include "pack/pack_a.h"
#include "quire/Utils.h"
#include "quire/detail/Epilogue.h"
#include "quire/detail/IsaRecord.h"
#include "quire/detail/QuantKernels.h"
#include "quire/detail/SpmdmKernels.h"

namespace quire::detail {
namespace {

// The record's kernel getters: column (or narrow) kernels, exact (or acc16).
template <Isa I, bool Narrow = false, bool Acc16 = false>
MicroKernelFn jit_kernel(int mr, int nr) {
  return jit::kernel(jit::KernelSpec{I, mr, nr, Narrow, Acc16});
}

MicroKernelFn portable_kernel(int, int) { return &driver::portable_micro_kernel; }

// Register arithmetic of the default tiles (vector registers: 16 ymm or 32 zmm):
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
constexpr BlockingFactors kAvx512Acc16{6, 64, 16, 4, 120, 256, 512};
constexpr BlockingFactors kAvx2Acc16{6, 16, 8, 4, 120, 256, 512};

// Fields: path, FBGEMM name, name, int32 lanes, blocking {MR, NR, NR_MIN, ROW_INTERLEAVE,
// MCB, KCB, NCB}, kernel, acc16 kernel and its blocking, narrow kernel, its tile rows and
// its acc16 form, A packer, output routines, quantization routines, convolution routines,
// sparse-product (SpMDM) loops.
constexpr BlockingFactors kPortable{4, 16, 16, 4, 64, 256, 256};
constexpr BlockingFactors kAvx2{4, 16, 8, 4, 120, 2048, 512};
constexpr BlockingFactors kYmmVnni{6, 16, 8, 4, 120, 2048, 512};
constexpr BlockingFactors kAvx512{6, 48, 16, 4, 120, 2048, 480};
constexpr BlockingFactors kAvx512Vnni{6, 64, 16, 4, 120, 2048, 512};
const IsaRecord kRecords[] = {
    {Isa::portable, inst_set_t::anyarch, "anyarch", 16, kPortable,
     &portable_kernel, nullptr, kPortable, nullptr, 0, nullptr,
     &pack::pack_a_portable, &kEpiloguePortable, &kQuantPortable, &conv::kConvPortable,
     &kSpmdmPortable},
    {Isa::avx2, inst_set_t::avx2, "avx2", 8, kAvx2,
     &jit_kernel<Isa::avx2>, &jit_kernel<Isa::avx2, false, true>, kAvx2Acc16, nullptr, 0, nullptr,
     &pack::pack_a_avx2, &kEpilogueAvx2, &kQuantAvx2, &conv::kConvAvx2, &kSpmdmAvx2},
    {Isa::avx_vnni, inst_set_t::avx_vnni, "avx_vnni", 8, kYmmVnni,
     &jit_kernel<Isa::avx_vnni>, nullptr, kYmmVnni, nullptr, 0, nullptr,
     &pack::pack_a_avx2, &kEpilogueAvx2, &kQuantAvx2, &conv::kConvAvx2, &kSpmdmAvx2},
    {Isa::avx512, inst_set_t::avx512, "avx512", 16, kAvx512,
     &jit_kernel<Isa::avx512>, &jit_kernel<Isa::avx512, false, true>, kAvx512Acc16,
     &jit_kernel<Isa::avx512, true>, 12, &jit_kernel<Isa::avx512, true, true>,
     &pack::pack_a_avx512, &kEpilogueAvx512, &kQuantAvx512, &conv::kConvAvx512,
     &kSpmdmAvx512},
    {Isa::avx512_vnni_ymm, inst_set_t::avx512_vnni_ymm, "avx512_vnni_ymm", 8, kYmmVnni,
     &jit_kernel<Isa::avx512_vnni_ymm>, nullptr, kYmmVnni, nullptr, 0, nullptr,
     &pack::pack_a_avx512, &kEpilogueAvx512, &kQuantAvx512, &conv::kConvAvx2,
     &kSpmdmAvx512Vnni},
    {Isa::avx512_vnni, inst_set_t::avx512_vnni, "avx512_vnni", 16, kAvx512Vnni,
     &jit_kernel<Isa::avx512_vnni>, nullptr, kAvx512Vnni, &jit_kernel<Isa::avx512_vnni, true>, 12,
     nullptr,
     &pack::pack_a_avx512, &kEpilogueAvx512, &kQuantAvx512, &conv::kConvAvx512Vnni,
     &kSpmdmAvx512Vnni},
};

bool cpu_has(Isa isa) {
  const cpu::CpuFeatures& f = cpu::cpu_features();
  switch (isa) {
    case Isa::portable: return true;
    case Isa::avx2: return f.avx2;
    case Isa::avx_vnni: return f.avx_vnni;
    case Isa::avx512: return f.avx512;
    case Isa::avx512_vnni_ymm:
    case Isa::avx512_vnni: return f.avx512_vnni;
  }
  return false;
}

Isa best_isa() {
  for (Isa isa : {Isa::avx512_vnni, Isa::avx512, Isa::avx_vnni, Isa::avx2})
    if (cpu_has(isa)) return isa;
  return Isa::portable;
}

const IsaRecord& checked_record(Isa isa, const std::string& asked) {
  if (!cpu_has(isa)) {
    throw std::invalid_argument(asked + ": this CPU lacks the instructions of that path; it has: " +
                                cpu::cpu_features().summary());
  }
  return kRecords[static_cast<int>(isa)];
}

Isa isa_from_name(const std::string& name) {
  for (const IsaRecord& r : kRecords)
    if (name == r.name) return r.isa;
  throw std::invalid_argument("QUIRE_ISA='" + name +
                              "' is not a path; expected one of anyarch, avx2, avx_vnni, "
                              "avx512, avx512_vnni_ymm, avx512_vnni");
}

const IsaRecord* initial_record() {
  const char* env = std::getenv("QUIRE_ISA");
  if (env == nullptr || *env == '\0') return &kRecords[static_cast<int>(best_isa())];
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
  return checked_record(isa, std::string("instruction set ") + kRecords[static_cast<int>(isa)].name);
}

Isa isa_from_inst_set(inst_set_t inst_set) {
  switch (inst_set) {
    case inst_set_t::anyarch: return Isa::portable;
    case inst_set_t::avx2: return Isa::avx2;
    case inst_set_t::avx_vnni: return Isa::avx_vnni;
    case inst_set_t::avx512:
    case inst_set_t::avx512_ymm: return Isa::avx512;
    case inst_set_t::avx512_vnni: return Isa::avx512_vnni;
    case inst_set_t::avx512_vnni_ymm: return Isa::avx512_vnni_ymm;
    case inst_set_t::sve: break;  // Arm: quire has no such path
  }
  throw std::invalid_argument("inst_set_t value " + std::to_string(static_cast<int>(inst_set)) +
                              " is not an instruction set");
}

const EpilogueTable& epilogue_for(inst_set_t inst_set) {
  Isa isa = isa_from_inst_set(inst_set);
  while (!cpu_has(isa)) isa = static_cast<Isa>(static_cast<int>(isa) - 1);
  return *kRecords[static_cast<int>(isa)].epilogue;
}

}  // namespace quire::detail

namespace quire {

using detail::Isa;

inst_set_t fbgemmInstructionSet() { return detail::active_isa().inst_set; }
bool fbgemmSupportedCPU() { return cpu::cpu_features().avx2; }
bool fbgemmHasAvx2Support() { return cpu::cpu_features().avx2; }
bool fbgemmHasAvx512Support() { return cpu::cpu_features().avx512; }
bool fbgemmHasAvx512VnniSupport() { return cpu::cpu_features().avx512_vnni; }
bool fbgemmHasAvxVnniSupport() { return cpu::cpu_features().avx_vnni; }

void fbgemmForceIsa(inst_set_t isa) {
  const Isa path = detail::isa_from_inst_set(isa);
  const detail::IsaRecord& r =
      detail::checked_record(path, std::string("fbgemmForceIsa(") + instSetName(isa) + ")");
  detail::g_active.store(&r, std::memory_order_release);
}

const char* instSetName(inst_set_t isa) {
  switch (isa) {
    case inst_set_t::anyarch: return "anyarch";
    case inst_set_t::avx2: return "avx2";
    case inst_set_t::avx512: return "avx512";
    case inst_set_t::avx512_ymm: return "avx512_ymm";
    case inst_set_t::avx512_vnni: return "avx512_vnni";
    case inst_set_t::avx512_vnni_ymm: return "avx512_vnni_ymm";
    case inst_set_t::avx_vnni: return "avx_vnni";
    case inst_set_t::sve: return "sve";
  }
  return "unknown";
}

}  // namespace quire
