// User-written A packers (test/example_packers.h: FBGEMM's CRTP form and quire's form)
// plugged into fbgemmPacked, checked bit for bit against converting A first and packing
// it with PackAWithRowOffset, with the same packed B and ReQuantizeOutput: odd shapes,
// groups, default and small blocking (several K blocks, so the row sums accumulate),
// per-tensor and per-channel quantization, ReLU on and off, acc32 and acc16, 1-3 threads,
// every path the CPU has.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "example_packers.h"
#include "quire/quire.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Shape {
  int M, K, N, G;
};

// Everything ReQuantizeOutput needs, for B (G*K x N per group, row-major) and a packer's
// row offsets.
struct OutputParams {
  float scale = 0.0123f;
  int32_t c_zp = 7, a_zp = 3;
  std::vector<float> multipliers;
  std::vector<int32_t> b_zp, col_offsets, bias;
};

OutputParams output_params(const Shape& s, const std::vector<int8_t>& B, bool per_channel) {
  OutputParams p;
  const int cols = s.G * s.N;
  p.multipliers.resize(cols);
  p.b_zp.resize(cols);
  p.col_offsets.resize(cols);
  p.bias = random_vector<int32_t>(cols, -5000, 5000, 11);
  for (int j = 0; j < cols; ++j) {
    p.multipliers[j] = per_channel ? 0.004f + 0.0005f * (j % 7) : 0.0061f;
    p.b_zp[j] = per_channel ? (j % 5) - 2 : -1;
    const int g = j / s.N, n = j % s.N;
    int32_t sum = 0;
    for (int k = 0; k < s.K; ++k) sum += B[(int64_t{g} * s.K + k) * s.N + n];
    p.col_offsets[j] = sum - s.K * p.b_zp[j];
  }
  return p;
}

// C = ReQuantizeOutput(A * B) with each thread's packer made by make_packer(), the
// threads run one after another.
template <typename accT, bool RELU, QuantizationGranularity GRAN, class MakePacker>
std::vector<uint8_t> run(const Shape& s, const PackBMatrix<int8_t, accT>& packedB,
                         const OutputParams& p, int threads, const BlockingFactors* params,
                         const MakePacker& make_packer) {
  const int cols = s.G * s.N;
  std::vector<uint8_t> C(static_cast<size_t>(s.M) * cols, 0xA5);
  std::vector<int32_t> C_buffer(static_cast<size_t>(s.M) * cols);
  for (int t = 0; t < threads; ++t) {
    auto packA = make_packer();
    DoNothing<> done;
    ReQuantizeOutput<RELU, GRAN> op(done, p.multipliers.data(), p.c_zp, p.a_zp, p.b_zp.data(),
                                    packA->getRowOffsetBuffer(), p.col_offsets.data(),
                                    p.bias.data(), cols, GRAN == QuantizationGranularity::TENSOR ? 1 : s.G);
    fbgemmPacked(*packA, packedB, C.data(), C_buffer.data(), cols, op, t, threads, params);
  }
  return C;
}

template <typename accT, bool RELU, QuantizationGranularity GRAN>
void check_shape(const Shape& s, int threads, bool small_blocks, uint32_t seed) {
  SCOPED_TRACE("M=" + std::to_string(s.M) + " K=" + std::to_string(s.K) + " N=" +
               std::to_string(s.N) + " G=" + std::to_string(s.G) + " threads=" +
               std::to_string(threads) + (small_blocks ? " small blocks" : "") +
               (RELU ? " relu" : "") +
               (GRAN == QuantizationGranularity::TENSOR ? " per-tensor" : " per-channel"));
  const int Ktot = s.G * s.K;
  BlockingFactors small;
  if (small_blocks) {
    small = std::is_same_v<accT, int16_t> ? defaultBlocking<int16_t>() : defaultBlocking<int32_t>();
    small.MCB = 2 * small.MR;
    small.KCB = 8;
  }
  const BlockingFactors* params = small_blocks ? &small : nullptr;
  const std::vector<int8_t> B = random_vector<int8_t>(static_cast<size_t>(Ktot) * s.N, -128, 127, seed);
  PackBMatrix<int8_t, accT> packedB(matrix_op_t::NoTranspose, Ktot, s.N, B.data(), s.N, nullptr,
                                    s.G, params);
  const OutputParams p = output_params(s, B, GRAN != QuantizationGranularity::TENSOR);

  // NCHW activations: batch x channels x pixels, with M = batch * pixels.
  const int pixels = s.M % 3 == 0 ? 3 : 1, batch = s.M / pixels;
  const std::vector<uint8_t> x = random_vector<uint8_t>(static_cast<size_t>(s.M) * Ktot, 0, 255, seed + 1);
  std::vector<uint8_t> a_nhwc(static_cast<size_t>(s.M) * Ktot);
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < Ktot; ++c)
      for (int q = 0; q < pixels; ++q)
        a_nhwc[(int64_t{n} * pixels + q) * Ktot + c] = x[(int64_t{n} * Ktot + c) * pixels + q];
  const auto expected_nchw = run<accT, RELU, GRAN>(s, packedB, p, threads, params, [&] {
    return std::make_unique<PackAWithRowOffset<uint8_t, accT>>(
        matrix_op_t::NoTranspose, s.M, Ktot, a_nhwc.data(), Ktot, nullptr, s.G, nullptr, params);
  });
  const auto got_nchw = run<accT, RELU, GRAN>(s, packedB, p, threads, params, [&] {
    return std::make_unique<examples::PackAFromNchw<accT>>(batch, Ktot, pixels, x.data(), nullptr,
                                                           s.G, nullptr, params);
  });
  EXPECT_EQ(got_nchw, expected_nchw) << "PackAFromNchw (FBGEMM's CRTP form)";

  // int16 activations narrowed with a shift of 3; ld padded by 5.
  const int ld = Ktot + 5, shift = 3;
  const std::vector<int16_t> w =
      random_vector<int16_t>(static_cast<size_t>(s.M) * ld, -600, 2600, seed + 2);
  std::vector<uint8_t> a_u8(static_cast<size_t>(s.M) * Ktot);
  for (int i = 0; i < s.M; ++i)
    for (int k = 0; k < Ktot; ++k)
      a_u8[int64_t{i} * Ktot + k] = examples::PackAFromInt16<accT>::narrow(w[int64_t{i} * ld + k], shift);
  const auto expected_i16 = run<accT, RELU, GRAN>(s, packedB, p, threads, params, [&] {
    return std::make_unique<PackAWithRowOffset<uint8_t, accT>>(
        matrix_op_t::NoTranspose, s.M, Ktot, a_u8.data(), Ktot, nullptr, s.G, nullptr, params);
  });
  const auto got_i16 = run<accT, RELU, GRAN>(s, packedB, p, threads, params, [&] {
    return std::make_unique<examples::PackAFromInt16<accT>>(s.M, Ktot, w.data(), ld, shift,
                                                            nullptr, s.G, nullptr, params);
  });
  EXPECT_EQ(got_i16, expected_i16) << "PackAFromInt16 (quire's form)";
}

template <typename accT>
void sweep() {
  const Shape shapes[] = {{1, 1, 1, 1},   {3, 17, 17, 1}, {17, 63, 65, 1}, {65, 3, 1, 1},
                          {63, 65, 17, 2}, {130, 260, 33, 1}, {6, 300, 64, 2}, {1, 1000, 3, 1}};
  int case_id = 0;
  for (const IsaCase& c : all_isas()) {
    if (!c.supported) {
      std::cout << "[ SKIPPED  ] path " << instSetName(c.isa) << ": this CPU lacks its instructions\n";
      continue;
    }
    ScopedIsa isa(c.isa);
    SCOPED_TRACE(instSetName(c.isa));
    for (const Shape& s : shapes) {
      for (int threads = 1; threads <= 3; ++threads) {
        const bool small = (case_id + threads) % 2 == 0;
        switch (case_id++ % 4) {
          case 0: check_shape<accT, false, QuantizationGranularity::TENSOR>(s, threads, small, case_id); break;
          case 1: check_shape<accT, true, QuantizationGranularity::OUT_CHANNEL>(s, threads, small, case_id); break;
          case 2: check_shape<accT, true, QuantizationGranularity::TENSOR>(s, threads, small, case_id); break;
          default: check_shape<accT, false, QuantizationGranularity::OUT_CHANNEL>(s, threads, small, case_id); break;
        }
      }
    }
  }
}

TEST(UserPacker, MatchesConvertThenPackAcc32) { sweep<int32_t>(); }
TEST(UserPacker, MatchesConvertThenPackAcc16) { sweep<int16_t>(); }

// The contract lets the bytes between a block's width and the next multiple of 4 hold
// anything: this packer fills them with 0xFF and must still give exact results.
class PoisonedPaddingPacker final : public PackABase<PoisonedPaddingPacker, int32_t> {
 public:
  PoisonedPaddingPacker(int rows, int cols, const uint8_t* a, const BlockingFactors* params)
      : PackABase(rows, cols, nullptr, 1, true, nullptr, params, "PoisonedPaddingPacker"), a_(a) {}
  PackedABlock pack(const block_type_t& block) {
    uint8_t* out = block_buffer();
    const bool first = block.col_start == 0;
    for (int i = 0; i < block.row_size; ++i) {
      int32_t sum = first ? 0 : getRowOffsetBuffer()[i];
      for (int j = 0; j < (block.col_size + 3) / 4 * 4; ++j) {
        const bool inside = j < block.col_size;
        out[i * packedLd() + j] =
            inside ? a_[int64_t{block.row_start + i} * numCols() + block.col_start + j] : 0xFF;
        if (inside) sum += out[i * packedLd() + j];
      }
      getRowOffsetBuffer()[i] = sum;
    }
    return PackedABlock{out, packedLd()};
  }

 private:
  const uint8_t* a_;
};

TEST(UserPacker, PaddingBytesDoNotMatter) {
  for (const IsaCase& c : all_isas()) {
    if (!c.supported) continue;  // reported by the sweeps above
    ScopedIsa isa(c.isa);
    SCOPED_TRACE(instSetName(c.isa));
    for (const Shape s : {Shape{5, 1, 3, 1}, Shape{7, 3, 17, 1}, Shape{13, 30, 65, 1}}) {
      const std::vector<int8_t> B = random_vector<int8_t>(size_t(s.K) * s.N, -128, 127, 5);
      const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(s.M) * s.K, 0, 255, 6);
      PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, s.K, s.N, B.data(), s.N);
      const OutputParams p = output_params(s, B, true);
      for (const bool small : {false, true}) {
        BlockingFactors bf = defaultBlocking<int32_t>();
        bf.KCB = 8;
        const BlockingFactors* params = small ? &bf : nullptr;
        const auto expected = run<int32_t, false, QuantizationGranularity::OUT_CHANNEL>(
            s, packedB, p, 1, params, [&] {
              return std::make_unique<PackAWithRowOffset<uint8_t>>(
                  matrix_op_t::NoTranspose, s.M, s.K, A.data(), s.K, nullptr, 1, nullptr, params);
            });
        const auto got = run<int32_t, false, QuantizationGranularity::OUT_CHANNEL>(
            s, packedB, p, 1, params,
            [&] { return std::make_unique<PoisonedPaddingPacker>(s.M, s.K, A.data(), params); });
        EXPECT_EQ(got, expected) << "M=" << s.M << " K=" << s.K << " N=" << s.N;
      }
    }
  }
}

TEST(UserPacker, SumPackedRowsMatchesPlainSums) {
  for (const IsaCase& c : all_isas()) {
    if (!c.supported) continue;
    ScopedIsa isa(c.isa);
    for (const int rows : {1, 3, 8, 17}) {
      for (const int cols : {0, 1, 5, 63, 64, 65, 200}) {
        const int ld = cols + 3;
        const std::vector<uint8_t> a = random_vector<uint8_t>(size_t(rows) * ld, 0, 255, rows * 7 + cols);
        std::vector<int32_t> sums(rows, 1000), expected(rows);
        for (int i = 0; i < rows; ++i) {
          int32_t s = 0;
          for (int j = 0; j < cols; ++j) s += a[size_t(i) * ld + j];
          expected[i] = 1000 + s;
        }
        sumPackedRows(a.data(), ld, rows, cols, sums.data(), true);
        EXPECT_EQ(sums, expected) << instSetName(c.isa) << " rows=" << rows << " cols=" << cols;
        for (int i = 0; i < rows; ++i) expected[i] -= 1000;
        sumPackedRows(a.data(), ld, rows, cols, sums.data(), false);
        EXPECT_EQ(sums, expected) << instSetName(c.isa) << " rows=" << rows << " cols=" << cols;
      }
    }
  }
  std::vector<uint8_t> a(16);
  std::vector<int32_t> sums(4);
  EXPECT_INVALID(({"ld", "3"}), sumPackedRows(a.data(), 3, 2, 4, sums.data(), false));
  EXPECT_INVALID(({"rows", "-1"}), sumPackedRows(a.data(), 4, -1, 4, sums.data(), false));
  EXPECT_INVALID(({"row_sums"}), sumPackedRows(a.data(), 4, 2, 4, nullptr, false));
  EXPECT_INVALID(({"a"}), sumPackedRows(nullptr, 4, 2, 4, sums.data(), false));
}

// A packer whose blocks are not a multiple of the K interleave cannot be run: the call
// names the packer's block width.
class BadBlockPacker final : public PackMatrix<BadBlockPacker, uint8_t, int32_t> {
  using Base = PackMatrix<BadBlockPacker, uint8_t, int32_t>;

 public:
  using inpType = uint8_t;
  using accType = int32_t;
  static constexpr bool isA() { return true; }
  BadBlockPacker(int rows, int cols) : Base(rows, cols, nullptr) {
    Base::bcol_ = 6;
    Base::buf_ = static_cast<uint8_t*>(fbgemmAlignedAlloc(64, 64 * 64));
    Base::bufAllocatedHere_ = true;
  }
  void pack(const block_type_t&) {}
  int32_t* getRowOffsetBuffer() const { return nullptr; }
};

TEST(UserPacker, BlockWidthNotMultipleOfFourIsRejected) {
  const std::vector<int8_t> B(16 * 16, 1);
  PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, 16, 16, B.data(), 16);
  BadBlockPacker packA(4, 16);
  std::vector<int32_t> C(4 * 16);
  DoNothing<int32_t, int32_t> done;
  memCopy<> op(done);
  EXPECT_INVALID(({"packA.blockColSize()", "6"}),
                 fbgemmPacked(packA, packedB, C.data(), C.data(), 16, op, 0, 1));
}

}  // namespace
}  // namespace quire::test
