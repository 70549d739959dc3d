// PackedInt4Weights (quire/Int4Gemm.h): packing and unpacking in every kind, scale type
// and source layout; save / load and damaged streams; the GGUF importers against
// hand-made blocks; bad arguments.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "int4_reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

const Int4Kind kKinds[] = {Int4Kind::symmetric, Int4Kind::zero_point, Int4Kind::scale_min};
const Int4ScaleType kScaleTypes[] = {Int4ScaleType::f32, Int4ScaleType::f16, Int4ScaleType::bf16};

TEST(Int4Weights, UnpackGivesBackWhatWasPacked) {
  for (Int4Kind kind : kKinds) {
    for (Int4ScaleType st : kScaleTypes) {
      for (auto [K, N, group] : {std::tuple{100, 65, 32}, std::tuple{77, 3, 77}, std::tuple{256, 64, 256}}) {
        const Int4Problem p = make_int4_problem(K, N, group, kind, st, K + N);
        for (matrix_op_t trans : {matrix_op_t::NoTranspose, matrix_op_t::Transpose}) {
          const PackedInt4Weights w = p.pack(trans);
          EXPECT_EQ(w.rows(), K);
          EXPECT_EQ(w.cols(), N);
          EXPECT_EQ(w.groupSize(), group);
          EXPECT_EQ(w.numGroups(), p.groups());
          EXPECT_EQ(w.kind(), kind);
          EXPECT_EQ(w.scaleType(), st);
          std::vector<uint8_t> codes(size_t(K) * N);
          w.unpackCodes(codes.data());
          EXPECT_EQ(codes, p.codes);
          std::vector<float> scales(size_t(p.groups()) * N), w_float(size_t(K) * N);
          w.unpackScales(scales.data());
          EXPECT_EQ(scales, p.scales);
          if (kind == Int4Kind::symmetric) {
            std::vector<int8_t> values(codes.size());
            w.unpackValues(values.data());
            for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], codes[i] - 8);
          } else {
            std::vector<float> mins(scales.size());
            w.unpackMins(mins.data());
            EXPECT_EQ(mins, p.mins);
          }
          if (kind == Int4Kind::zero_point) {
            std::vector<uint8_t> z(scales.size());
            w.unpackZeroPoints(z.data());
            EXPECT_EQ(z, p.zero_points);
          }
          w.dequantize(w_float.data());
          for (int k = 0; k < K; ++k)
            for (int j = 0; j < N; ++j)
              EXPECT_NEAR(w_float[size_t(k) * N + j], int4_weight(p, k, j), 1e-6);
          EXPECT_TRUE(w.equals(p.pack(matrix_op_t::NoTranspose)));
        }
      }
    }
  }
}

TEST(Int4Weights, SaveLoadRoundTrip) {
  for (Int4Kind kind : kKinds) {
    const Int4Problem p = make_int4_problem(300, 70, 64, kind, Int4ScaleType::f16, 4);
    const PackedInt4Weights w = p.pack();
    std::stringstream ss;
    w.save(ss);
    const PackedInt4Weights back = PackedInt4Weights::load(ss);
    EXPECT_TRUE(back.equals(w));
    // The loaded weights compute the same product.
    const std::vector<float> A = random_activations(2, p.K, p.K, 1);
    std::vector<float> c1(2 * p.N), c2(2 * p.N);
    int4Gemm(2, A.data(), p.K, w, c1.data(), p.N, Int4Epilogue{}, 0, 1);
    int4Gemm(2, A.data(), p.K, back, c2.data(), p.N, Int4Epilogue{}, 0, 1);
    EXPECT_EQ(0, std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(float)));
  }
}

TEST(Int4Weights, DamagedStreamsThrow) {
  const Int4Problem p = make_int4_problem(64, 16, 32, Int4Kind::zero_point, Int4ScaleType::f32, 2);
  std::stringstream ss;
  p.pack().save(ss);
  const std::string good = ss.str();
  auto load = [](const std::string& bytes) {
    std::stringstream in(bytes);
    return PackedInt4Weights::load(in);
  };
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  EXPECT_INVALID(({"checksum"}), load(flipped));
  EXPECT_INVALID(({"truncated"}), load(good.substr(0, good.size() - 3)));
  EXPECT_INVALID(({"truncated", "header"}), load(good.substr(0, 12)));
  std::string magic = good;
  magic[0] = 'X';
  EXPECT_INVALID(({"magic"}), load(magic));
  std::string version = good;
  version[8] = 9;
  EXPECT_INVALID(({"version", "9"}), load(version));
  std::string group = good;
  const int32_t g = 48;
  std::memcpy(&group[8 + 12], &g, 4);
  EXPECT_INVALID(({"group", "48"}), load(group));
}

// A Q4_0 / Q4_1 block: fp16 scale (and minimum), then nibbles: byte i = weight i (low)
// | weight i + 16 (high).
void put_half(std::vector<uint8_t>& out, float x) {
  const float16 h = cpu_float2half_rn(x);
  out.push_back(static_cast<uint8_t>(h.val & 0xFF));
  out.push_back(static_cast<uint8_t>(h.val >> 8));
}

TEST(Int4Weights, ImportQ4_0AndQ4_1) {
  const int K = 64, N = 3;  // two blocks per row
  std::vector<uint8_t> q40, q41;
  std::vector<float> expect40(size_t(K) * N), expect41(size_t(K) * N);
  for (int j = 0; j < N; ++j) {
    for (int b = 0; b < 2; ++b) {
      const float d = 0.125f * (j + 1) + b, m = -0.5f * (b + 1) - j;
      uint8_t nib[32];
      for (int i = 0; i < 32; ++i) nib[i] = static_cast<uint8_t>((i * 7 + j * 3 + b) % 16);
      put_half(q40, d);
      put_half(q41, d);
      put_half(q41, m);
      for (int i = 0; i < 16; ++i) {
        q40.push_back(static_cast<uint8_t>(nib[i] | nib[i + 16] << 4));
        q41.push_back(static_cast<uint8_t>(nib[i] | nib[i + 16] << 4));
      }
      for (int i = 0; i < 32; ++i) {
        expect40[size_t(32 * b + i) * N + j] = (nib[i] - 8) * d;
        expect41[size_t(32 * b + i) * N + j] = nib[i] * d + m;
      }
    }
  }
  ASSERT_EQ(q40.size(), size_t(N) * 2 * 18);
  ASSERT_EQ(q41.size(), size_t(N) * 2 * 20);
  const PackedInt4Weights w0 = PackedInt4Weights::fromQ4_0(K, N, q40.data());
  const PackedInt4Weights w1 = PackedInt4Weights::fromQ4_1(K, N, q41.data());
  EXPECT_EQ(w0.kind(), Int4Kind::symmetric);
  EXPECT_EQ(w1.kind(), Int4Kind::scale_min);
  EXPECT_EQ(w0.scaleType(), Int4ScaleType::f16);
  EXPECT_EQ(w0.groupSize(), 32);
  std::vector<float> got(size_t(K) * N);
  w0.dequantize(got.data());
  EXPECT_EQ(got, expect40);
  w1.dequantize(got.data());
  EXPECT_EQ(got, expect41);
}

TEST(Int4Weights, ImportQ8_0Requantizes) {
  // One row, one block: q = i - 20 (i < 32), d = 0.5: x = 0.5 q in [-10, 5.5]; the value
  // of largest magnitude is -10, so d4 = -10 / -8 = 1.25 and code = min(15, trunc(x / 1.25
  // + 8.5)).
  std::vector<uint8_t> blk;
  put_half(blk, 0.5f);
  for (int i = 0; i < 32; ++i) blk.push_back(static_cast<uint8_t>(static_cast<int8_t>(i - 20)));
  const PackedInt4Weights w = PackedInt4Weights::fromQ8_0(32, 1, blk.data());
  float s;
  w.unpackScales(&s);
  EXPECT_EQ(s, 1.25f);
  int8_t v[32];
  w.unpackValues(v);
  for (int i = 0; i < 32; ++i) {
    const float x = 0.5f * (i - 20);
    EXPECT_EQ(v[i], std::min(15, static_cast<int>(x / 1.25f + 8.5f)) - 8) << i;
  }
  EXPECT_EQ(v[0], -8);  // the extreme value is exact
}

#define W(...) ({__VA_ARGS__})

TEST(Int4Weights, BadArgumentsThrow) {
  const int K = 64, N = 4;
  std::vector<int8_t> v(size_t(K) * N, 1);
  std::vector<uint8_t> c(size_t(K) * N, 3), z(2 * N, 8);
  std::vector<float> s(2 * N, 0.5f);
  std::vector<float16> s16(2 * N, cpu_float2half_rn(0.5f));
  const auto NT = matrix_op_t::NoTranspose;
  EXPECT_INVALID(W("group_size", "48"), PackedInt4Weights(NT, K, N, v.data(), N, 48, s.data()));
  EXPECT_INVALID(W("group_size", "100"), PackedInt4Weights(NT, K, N, v.data(), N, 100, s.data()));
  EXPECT_INVALID(W("K", "0"), PackedInt4Weights(NT, 0, N, v.data(), N, 32, s.data()));
  EXPECT_INVALID(W("N", "-1"), PackedInt4Weights(NT, K, -1, v.data(), N, 32, s.data()));
  EXPECT_INVALID(W("ld", "3"), PackedInt4Weights(NT, K, N, v.data(), 3, 32, s.data()));
  EXPECT_INVALID(W("ld", "63"), PackedInt4Weights(matrix_op_t::Transpose, K, N, v.data(), 63, 32, s.data()));
  EXPECT_INVALID(W("values"), PackedInt4Weights(NT, K, N, static_cast<const int8_t*>(nullptr), N, 32, s.data()));
  EXPECT_INVALID(W("scales"), PackedInt4Weights(NT, K, N, v.data(), N, 32, static_cast<const float*>(nullptr)));
  v[5 * N + 2] = 8;
  EXPECT_INVALID(W("values", "8", "k", "5", "n", "2"), PackedInt4Weights(NT, K, N, v.data(), N, 32, s.data()));
  v[5 * N + 2] = -9;
  EXPECT_INVALID(W("values", "-9"), PackedInt4Weights(NT, K, N, v.data(), N, 32, s.data()));
  c[7] = 16;
  EXPECT_INVALID(W("codes", "16"), PackedInt4Weights(NT, K, N, c.data(), N, 32, s.data(), z.data()));
  c[7] = 3;
  z[3] = 200;
  EXPECT_INVALID(W("zero_points", "200"), PackedInt4Weights(NT, K, N, c.data(), N, 32, s.data(), z.data()));
  EXPECT_INVALID(W("zero_points"), PackedInt4Weights(NT, K, N, c.data(), N, 32, s.data(), nullptr));
  z[3] = 8;
  s[1] = INFINITY;
  EXPECT_INVALID(W("scales"), PackedInt4Weights(NT, K, N, c.data(), N, 32, s.data(), z.data()));
  s[1] = NAN;
  EXPECT_INVALID(W("scales"), PackedInt4Weights::withMins(NT, K, N, c.data(), N, 32, s.data(), s.data()));
  EXPECT_INVALID(W("mins", "type"), PackedInt4Weights::withMins(NT, K, N, c.data(), N, 32, s16.data(), s.data()));
  std::vector<uint8_t> blocks(18 * 4);
  EXPECT_INVALID(W("K", "48"), PackedInt4Weights::fromQ4_0(48, 1, blocks.data()));
  EXPECT_INVALID(W("blocks"), PackedInt4Weights::fromQ4_1(32, 1, nullptr));
  const PackedInt4Weights sym = PackedInt4Weights::fromQ4_0(32, 4, blocks.data());
  std::vector<float> out(32 * 4);
  EXPECT_INVALID(W("kind"), sym.unpackMins(out.data()));
  const PackedInt4Weights zp(NT, K, N, c.data(), N, 32, s16.data(), z.data());  // valid
  std::vector<int8_t> vals(size_t(K) * N);
  EXPECT_INVALID(W("kind"), zp.unpackValues(vals.data()));
}

}  // namespace
}  // namespace quire::test
