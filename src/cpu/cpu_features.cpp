#include "cpu/cpu_features.h"

#include <asmjit/core.h>
#include <cpuid.h>
#include <cpuinfo.h>

#include "cpu/isa_traits.h"

namespace quire::cpu {
namespace {

bool cpuid_avx_vnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || eax < 1) return false;  // max subleaf
  __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx);
  return (eax >> 4) & 1u;
}

CpuFeatures detect() {
  CpuFeatures f;
  const asmjit::CpuInfo& host = asmjit::CpuInfo::host();
  using Ext = asmjit::CpuFeatures::X86;
  if (cpuinfo_initialize()) {
    f.avx2 = cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3() && cpuinfo_has_x86_f16c();
    f.avx512 = f.avx2 && cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() &&
               cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_avx512dq();
    f.avx512_vnni = f.avx512 && cpuinfo_has_x86_avx512vnni();
    f.avx512_bf16 = f.avx512 && cpuinfo_has_x86_avx512bf16();
    if (const cpuinfo_package* p = cpuinfo_get_package(0)) f.name = p->name;
  } else {
    // cpuinfo could not read the system (e.g. no /sys): asmjit's CPUID view suffices.
    f.avx2 = host.hasFeature(Ext::kAVX2) && host.hasFeature(Ext::kFMA) &&
             host.hasFeature(Ext::kF16C);
    f.avx512 = f.avx2 && host.hasFeature(Ext::kAVX512_F) && host.hasFeature(Ext::kAVX512_BW) &&
               host.hasFeature(Ext::kAVX512_VL) && host.hasFeature(Ext::kAVX512_DQ);
    f.avx512_vnni = f.avx512 && host.hasFeature(Ext::kAVX512_VNNI);
    f.avx512_bf16 = f.avx512 && host.hasFeature(Ext::kAVX512_BF16);
  }
  // AVX-VNNI is CPUID leaf 7 subleaf 1, EAX bit 4; libcpuinfo's snapshot has no query for
  // it and Debian's asmjit snapshot misses it on CPUs that report it (seen on a Xeon with
  // family 6 model 207), so it is read here. The OS-enabled YMM state it needs is part of
  // f.avx2 (cpuinfo and asmjit both check XGETBV).
  f.avx_vnni = f.avx2 && (host.hasFeature(Ext::kAVX_VNNI) || cpuid_avx_vnni());
  if (f.name.empty()) f.name = host.brand();
  return f;
}

}  // namespace

uint32_t CpuFeatures::caps() const {
  using namespace detail;
  return (avx2 ? kCapAvx2 : 0u) | (avx512 ? kCapAvx512 : 0u) |
         (avx512_vnni ? kCapAvx512Vnni : 0u) | (avx_vnni ? kCapAvxVnni : 0u) |
         (avx512_bf16 ? kCapAvx512Bf16 : 0u);
}

std::string CpuFeatures::summary() const {
  std::string s;
  for (const detail::CapName& c : detail::kCapNames)
    if (caps() & c.cap) s += s.empty() ? c.name : std::string(" ") + c.name;
  return s.empty() ? "no AVX2 (portable C++ only)" : s;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace quire::cpu
