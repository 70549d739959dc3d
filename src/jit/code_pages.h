// Where generated kernels live: pages that are never writable and executable at once.
#pragma once

#include <asmjit/core.h>

namespace quire::jit {

// Copies the finished code of `code` into pages of its own and returns its entry point.
// The pages are mapped read-write, written, then switched to read-execute for good
// (mprotect), so no mapping of quire's is ever W+X, whatever the OS allows. Kernels live
// until the process exits (the code cache is bounded), so the pages are never unmapped.
// Throws std::runtime_error when asmjit cannot lay out the code or the OS refuses a mapping.
void* install_code(asmjit::CodeHolder& code);

}  // namespace quire::jit
