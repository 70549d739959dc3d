// PackBMatrix::save / load: a round trip gives the same packed bytes and the same GEMM
// results on every path; damaged streams are refused with std::invalid_argument.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

std::string saved(const PackBMatrix<int8_t>& b) {
  std::ostringstream out;
  b.save(out);
  return out.str();
}

TEST(PackBSerialization, RoundTripIsExactOnEveryPath) {
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa isa(c.isa);
    for (int G : {1, 2})
      for (matrix_op_t t : {matrix_op_t::NoTranspose, matrix_op_t::Transpose}) {
        const int K = 37, N = 19, M = 9;
        const std::vector<int8_t> B = random_vector<int8_t>(size_t(G) * K * N, -128, 127, 5 + G);
        const int ld = t == matrix_op_t::NoTranspose ? N : K;
        PackBMatrix<int8_t> packed(t, G * K, N, B.data(), ld, nullptr, G);
        std::istringstream in(saved(packed));
        const auto loaded = PackBMatrix<int8_t>::load(in);
        ASSERT_TRUE(loaded->equals(packed)) << instSetName(c.isa);
        ASSERT_EQ(loaded->numRows(), packed.numRows());
        ASSERT_EQ(loaded->numCols(), packed.numCols());
        ASSERT_EQ(loaded->numGroups(), G);
        std::vector<int8_t> unpacked(B.size());
        loaded->unpack(unpacked.data());
        ASSERT_EQ(unpacked, B);
        // The loaded weights drive a GEMM exactly like the original.
        const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * G * K, 0, 255, 9);
        std::vector<int32_t> c1(size_t(M) * G * N), c2(c1.size());
        for (auto* pb : {&packed, loaded.get()}) {
          PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, M, G * K, A.data(), G * K, nullptr, G);
          DoNothing<int32_t, int32_t> done;
          memCopy<> copy(done);
          auto& out = pb == &packed ? c1 : c2;
          fbgemmPacked(packA, *pb, out.data(), out.data(), G * N, copy, 0, 1);
        }
        ASSERT_EQ(c1, c2);
      }
  }
}

TEST(PackBSerialization, LoadsUnderAnotherPath) {
  // Packed under the default path (wide panels), loaded and run on avx2 and anyarch.
  const int K = 64, N = 70, M = 5;
  const std::vector<int8_t> B = random_vector<int8_t>(size_t(K) * N, -128, 127, 3);
  const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 0, 255, 4);
  PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, K, N, B.data(), N);
  const std::string blob = saved(packed);
  std::vector<int32_t> ref(size_t(M) * N);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, ref.data(), N);
  for (inst_set_t path : {inst_set_t::anyarch, inst_set_t::avx2}) {
    if (path == inst_set_t::avx2 && !fbgemmHasAvx2Support()) continue;
    ScopedIsa isa(path);
    std::istringstream in(blob);
    const auto loaded = PackBMatrix<int8_t>::load(in);
    std::vector<int32_t> C(ref.size());
    PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packA, *loaded, C.data(), C.data(), N, copy, 0, 1);
    ASSERT_EQ(C, ref) << instSetName(path);
  }
}

TEST(PackBSerialization, DamagedStreamsAreRefused) {
  const std::vector<int8_t> B = random_vector<int8_t>(32 * 8, -128, 127, 1);
  PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, 32, 8, B.data(), 8);
  const std::string blob = saved(packed);
  auto refused = [](const std::string& bytes, const char* word) {
    std::istringstream in(bytes);
    try {
      PackBMatrix<int8_t>::load(in);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find(word) != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused(blob.substr(0, blob.size() - 3), "truncated"));
  EXPECT_TRUE(refused(blob.substr(0, 20), "truncated"));
  EXPECT_TRUE(refused("", "truncated"));
  std::string bad_magic = blob;
  bad_magic[0] = 'X';
  EXPECT_TRUE(refused(bad_magic, "magic"));
  std::string flipped = blob;
  flipped[8 + 7 * 4 + 5] ^= 1;  // a packed byte
  EXPECT_TRUE(refused(flipped, "checksum"));
  std::string version = blob;
  version[8] = 99;
  EXPECT_TRUE(refused(version, "version"));
  std::string width = blob;
  width[8 + 5 * 4] = 0;  // panel width 0 (its low byte)
  width[8 + 5 * 4 + 1] = 0;
  EXPECT_TRUE(refused(width, "panel width"));
}

}  // namespace
}  // namespace quire::test
