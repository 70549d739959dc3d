// The process-wide kernel cache. The key space is bounded (paths x mr x nr within the
// register file x column/narrow/acc16/pair-safe x the output stages, about 2^10 forms of
// which a program uses a few), so the cache is bounded by construction; kernels
// live until the process exits, in pages that are read-execute only (code_pages.h).
#include "jit/kernel_cache.h"

#include <asmjit/x86.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "jit/code_pages.h"
#include "jit/kernel_generator.h"

namespace quire::jit {
namespace {

using detail::Isa;
using detail::MicroKernelFn;

// QUIRE_JIT_DUMP=dir writes each generated kernel's assembly to dir/<kernel name>.s.
void dump_assembly(const std::string& name, const asmjit::String& text) {
  const char* dir = std::getenv("QUIRE_JIT_DUMP");
  if (dir == nullptr || *dir == '\0') return;
  std::ofstream out(std::string(dir) + "/" + name + ".s");
  out << "; " << name << "\n" << text.data();
}

MicroKernelFn generate(const KernelSpec& spec) {
  asmjit::CodeHolder code;
  code.init(asmjit::Environment::host());
  asmjit::StringLogger logger;
  const bool dumping = std::getenv("QUIRE_JIT_DUMP") != nullptr;
  if (dumping) {
    logger.addFlags(asmjit::FormatFlags::kMachineCode);
    code.setLogger(&logger);
  }
  asmjit::x86::Assembler assembler(&code);
  if (spec.narrow) emit_narrow_kernel(assembler, spec);
  else emit_micro_kernel(assembler, spec);
  if (asmjit::Error err = assembler.finalize()) {
    throw std::runtime_error("asmjit failed to generate " + kernel_name(spec) + ": " +
                             asmjit::DebugUtils::errorAsString(err));
  }
  // W^X: the code is written to read-write pages that then become read-execute.
  auto fn = reinterpret_cast<MicroKernelFn>(install_code(code));
  if (dumping) dump_assembly(kernel_name(spec), logger.content());
  return fn;
}

struct CacheEntry {
  std::once_flag once;
  MicroKernelFn fn = nullptr;
};

}  // namespace

bool generates(const KernelSpec& spec) {
  return spec.narrow ? narrow_fits(spec) : registers_fit(spec);
}

bool registers_fit(Isa isa, int mr, int nr, bool acc16) {
  if (detail::traits(isa).vector_bytes == 0)  // the portable kernel: any tile up to 64 x 64
    return mr >= 1 && nr >= 1 && mr <= 64 && nr <= 64;
  return registers_fit(KernelSpec{isa, mr, nr, false, acc16});
}

static MicroKernelFn cached(const KernelSpec& spec, uint64_t key) {
  static std::mutex mutex;
  static std::unordered_map<uint64_t, std::unique_ptr<CacheEntry>> cache;
  CacheEntry* entry;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<CacheEntry>& slot = cache[key];
    if (!slot) slot = std::make_unique<CacheEntry>();
    entry = slot.get();
  }
  // The first caller generates; others block here until it is done. If generation
  // throws, the next caller tries again.
  std::call_once(entry->once, [&] { entry->fn = generate(spec); });
  return entry->fn;
}

MicroKernelFn kernel(const KernelSpec& spec) {
  // The kernels this thread asked for last, by key (direct-mapped): a hit skips the
  // checks, the lock and the map, which cost a small call (1 x 128 x K) about 10%.
  struct Recent {
    uint64_t key;
    MicroKernelFn fn;
  };
  thread_local Recent recent[16] = {};
  const uint64_t key = spec_key(spec);
  Recent& slot = recent[(key ^ (key >> 16) ^ (key >> 43)) % 16];
  if (slot.fn != nullptr && slot.key == key) return slot.fn;
  if (!generates(spec)) return nullptr;
  slot = Recent{key, cached(spec, key)};
  return slot.fn;
}

}  // namespace quire::jit
