// Aligned memory, the CPU queries FBGEMM has beyond quire's paths, and FBGEMM's
// embedding-kernel switches.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "cpu/cpu_features.h"
#include "quire/Utils.h"

namespace quire {

void* fbgemmAlignedAlloc(size_t align, size_t size, bool raiseException) {
  void* p = nullptr;
  // An align that is not a power of two multiple of sizeof(void*) fails as
  // posix_memalign would (EINVAL), checked first so that no allocator sees it; no memory
  // (ENOMEM) fails too. Both give null.
  const bool valid_align = align != 0 && (align & (align - 1)) == 0 && align % sizeof(void*) == 0;
  if (!valid_align || posix_memalign(&p, align, size) != 0) p = nullptr;
  if (p == nullptr && raiseException) throw std::bad_alloc();
  return p;
}

void fbgemmAlignedFree(void* p) { std::free(p); }

bool fbgemmHasAvx512Bf16Support() { return cpu::cpu_features().avx512_bf16; }
bool fbgemmHasArmNeonSupport() { return false; }
bool fbgemmHasArmSveSupport() { return false; }
bool fbgemmHasArmSve2Support() { return false; }

bool fbgemmIsIntelXeonD() {
  return cpu::cpu_features().name.find("Xeon D-") != std::string::npos;
}

void fbgemmEnableAvx512Ymm(bool flag) {
  if (!fbgemmIsIntelXeonD() || !fbgemmHasAvx512Support()) return;
  const bool vnni = fbgemmHasAvx512VnniSupport();
  const inst_set_t now = fbgemmInstructionSet();
  if (flag && (now == inst_set_t::avx512 || now == inst_set_t::avx512_vnni))
    forceIsa(vnni ? inst_set_t::avx512_vnni_ymm : inst_set_t::avx512_ymm);
  if (!flag && (now == inst_set_t::avx512_vnni_ymm || now == inst_set_t::avx512_ymm))
    forceIsa(vnni ? inst_set_t::avx512_vnni : inst_set_t::avx512);
}

bool isZmm(inst_set_t isa) { return isa == inst_set_t::avx512 || isa == inst_set_t::avx512_vnni; }

bool isYmm(inst_set_t isa) {
  return isa == inst_set_t::avx512_ymm || isa == inst_set_t::avx512_vnni_ymm ||
         isa == inst_set_t::avx2;
}

namespace {

// A flag that starts as "the environment variable exists" and may be set later.
#define QUIRE_ENV_FLAG(fn, var)                          \
  bool& fn() {                                           \
    static bool value = std::getenv(var) != nullptr;     \
    return value;                                        \
  }
QUIRE_ENV_FLAG(autovec_disabled, "FBGEMM_NO_AUTOVEC")
QUIRE_ENV_FLAG(autovec_forced, "FBGEMM_FORCE_AUTOVEC")
QUIRE_ENV_FLAG(asmjit_disabled, "FBGEMM_NO_ASMJIT")
#undef QUIRE_ENV_FLAG

// A non-negative integer from the environment; -1 when unset or malformed (reported).
int64_t non_negative_env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return -1;
  int64_t x = 0;
  const char* end = v + std::strlen(v);
  const auto r = std::from_chars(v, end, x);
  if (r.ec != std::errc() || r.ptr != end || x < 0) {
    std::cerr << "[quire] " << name << "='" << v << "' is not a non-negative integer; ignoring it.\n";
    return -1;
  }
  return x;
}

}  // namespace

bool is_autovec_disabled() { return autovec_disabled(); }
bool is_autovec_forced() { return autovec_forced(); }
bool is_asmjit_disabled() { return asmjit_disabled(); }
void set_autovec_disabled(bool val) { autovec_disabled() = val; }
void set_autovec_forced(bool val) { autovec_forced() = val; }
void set_asmjit_disabled(bool val) { asmjit_disabled() = val; }

bool is_stats_enabled() {
  static const bool v = std::getenv("FBGEMM_STATS_ENABLE") != nullptr;
  return v;
}
bool is_sve_fp16_enabled() {
  static const bool v = std::getenv("FBGEMM_TBE_SVE_FP16_ACCUMULATOR") != nullptr;
  return v;
}
int64_t tbe_l1_prefetch_distance() {
  static const int64_t v = non_negative_env("FBGEMM_TBE_L1_PREFETCH_DISTANCE");
  return v;
}
int64_t tbe_l2_prefetch_distance() {
  static const int64_t v = non_negative_env("FBGEMM_TBE_L2_PREFETCH_DISTANCE");
  return v;
}
int64_t tbe_l2_large_table_bytes() {
  // MiB -> bytes, capped so the shift cannot overflow.
  static const int64_t v = [] {
    const int64_t mb = non_negative_env("FBGEMM_TBE_L2_LARGE_TABLE_MB");
    constexpr int64_t kMaxMiB = std::numeric_limits<int64_t>::max() >> 20;
    return mb <= 0 ? int64_t{0} : std::min(mb, kMaxMiB) << 20;
  }();
  return v;
}

}  // namespace quire
