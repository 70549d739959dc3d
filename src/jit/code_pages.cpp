#include "jit/code_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace quire::jit {
namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  throw std::runtime_error(std::string("JIT code pages: ") + what + ": " + detail);
}

}  // namespace

void* install_code(asmjit::CodeHolder& code) {
  if (asmjit::Error err = code.flatten()) fail("flatten", asmjit::DebugUtils::errorAsString(err));
  if (asmjit::Error err = code.resolveUnresolvedLinks())
    fail("resolve links", asmjit::DebugUtils::errorAsString(err));
  const size_t size = code.codeSize();
  if (size == 0) fail("empty kernel", "no code was emitted");

  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t mapped = (size + page - 1) / page * page;
  void* base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) fail("mmap", std::strerror(errno));

  // Relocating to the final address before copying keeps absolute references right.
  asmjit::Error err = code.relocateToBase(reinterpret_cast<uint64_t>(base));
  if (!err)
    err = code.copyFlattenedData(base, mapped, asmjit::CopySectionFlags::kPadTargetBuffer);
  if (err) {
    munmap(base, mapped);
    fail("relocate", asmjit::DebugUtils::errorAsString(err));
  }
  if (mprotect(base, mapped, PROT_READ | PROT_EXEC) != 0) {
    const int error = errno;
    munmap(base, mapped);
    fail("mprotect to read-execute", std::strerror(error));
  }
  // x86 keeps instruction fetch coherent with stores; this is a no-op there and keeps
  // the code right on any target that needs the flush.
  __builtin___clear_cache(static_cast<char*>(base), static_cast<char*>(base) + size);
  return base;
}

}  // namespace quire::jit
