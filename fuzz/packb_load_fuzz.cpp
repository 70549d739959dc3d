// Fuzzer for PackBMatrix::load, an untrusted-input parser (packed weights may come from a
// file). The first input byte chooses a mode; the rest is the stream:
//   bit 0 clear: the bytes as they are (load must reject them with std::invalid_argument
//                or accept them, never crash, over-read or allocate without bound);
//   bit 0 set:   the 8 bytes after the payload the header announces are replaced with the
//                stream's correct FNV-1a checksum, so that mutated headers and payloads get
//                past the checksum and the geometry checks themselves are exercised.
//   bit 1:       load as acc16 (PackBMatrix<int8_t, int16_t>) instead of acc32.
// A matrix that loads must be usable: unpack() gives its weights, and fbgemmPacked on
// the portable path and on the CPU's best path (a 3-row A) gives their exact product.
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "quire/quire.h"
#include "quire/ref/Reference.h"

namespace quire::fuzz {
namespace {

constexpr size_t kMagicBytes = 8, kHeaderBytes = 7 * sizeof(int32_t);

uint64_t fnv1a(const std::string& s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 0x100000001b3ull;
  return h;
}

// Writes the right checksum where the header says it goes, if the header's geometry is
// one load() can accept (else load rejects it before the checksum matters) and the
// stream is that long.
void fix_checksum(std::string& s) {
  if (s.size() < kMagicBytes + kHeaderBytes) return;
  int32_t h[7];
  std::memcpy(h, s.data() + kMagicBytes, sizeof(h));
  if (h[2] < 1 || h[2] > detail::kMaxExactK || h[3] < 1 || h[4] < 1 || h[5] < 1 || h[5] > 64 ||
      h[6] != ((h[2] + 3) & ~3) || __int128{h[2]} * h[4] * h[3] > __int128{1} << 31)
    return;
  const detail::PackedBLayout l{h[2], h[3], h[4], h[5], h[6]};
  const uint64_t at = kMagicBytes + kHeaderBytes + uint64_t(l.total_bytes());
  if (at + 8 > s.size()) return;
  const uint64_t sum = fnv1a(s, size_t(at));
  std::memcpy(s.data() + at, &sum, sizeof(sum));
}

template <class AccT>
void check_loaded(const PackBMatrix<int8_t, AccT>& b) {
  const detail::PackedBLayout& l = b.layout();
  const int K = l.k_per_group, N = l.n, G = l.groups;
  std::vector<int8_t> src(size_t(G) * K * N);
  b.unpack(src.data());
  // The logical weights, Ktot x N with the groups stacked along K.
  std::vector<int8_t> w = src;
  if (b.trans() == matrix_op_t::Transpose)
    for (int g = 0; g < G; ++g)
      ref::transpose(K, N, src.data() + size_t(g) * N * K, K, w.data() + size_t(g) * K * N, N);
  const int M = 3, Ktot = G * K, Ntot = G * N;
  std::vector<uint8_t> A = bytes<uint8_t>(size_t(M) * Ktot, Fill::random, uint32_t(Ktot + N));
  std::vector<int32_t> want(size_t(M) * Ntot);
  for (int g = 0; g < G; ++g)
    ref::matmul_u8s8s32(M, N, K, A.data() + g * K, Ktot, w.data() + size_t(g) * K * N, N,
                        want.data() + g * N, Ntot);
  auto& packB = const_cast<PackBMatrix<int8_t, AccT>&>(b);
  for (const bool portable : {true, false}) {
    ScopedIsa isa(portable ? inst_set_t::anyarch : fbgemmInstructionSet());
    std::vector<int32_t> C(want.size()), C_buffer(want.size());
    PackAMatrix<uint8_t, AccT> packA(matrix_op_t::NoTranspose, M, Ktot, A.data(), Ktot, nullptr, G);
    DoNothing<int32_t, int32_t> done;
    memCopy<> op(done);
    fbgemmPacked(packA, packB, C.data(), C_buffer.data(), uint32_t(Ntot), op, 0, 1);
    // acc16 saturates on the paths that have a saturating kernel: only exactness on the
    // portable path is promised for any data; elsewhere the call must merely complete.
    if (std::is_same_v<AccT, int32_t> || portable) FUZZ_CHECK(C == want);
  }
}

template <class AccT>
void fuzz_load(const std::string& s) {
  std::istringstream in(s);
  std::unique_ptr<PackBMatrix<int8_t, AccT>> b;
  try {
    b = PackBMatrix<int8_t, AccT>::load(in);
  } catch (const std::invalid_argument&) {
    return;
  }
  check_loaded(*b);
}

}  // namespace
}  // namespace quire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quire::fuzz;
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string s(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode & 1) fix_checksum(s);
  if (mode & 2) fuzz_load<int16_t>(s);
  else fuzz_load<int32_t>(s);
  return 0;
}
