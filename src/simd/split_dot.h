// The exact four-byte dot step of the paths without VNNI, written once over a vocabulary V
// (vec_avx2.h, vec_avx512.h): in each int32 lane,
//   acc += b0 w0 + b1 w1 + b2 w2 + b3 w3    (b: four u8, w: four s8)
// as two vpmaddwd on the bytes split by parity into int16: b's even bytes (b0, b2) and
// odd bytes (b1, b3) zero-extended, w's sign-extended the same way. Exact: a pair sum is
// at most 2 * 255 * 128 in magnitude, where vpmaddubsw's int16 pair sums saturate. The
// same lanes as vpdpbusd computes (the VNNI paths' step), so a kernel swaps one for the
// other: weights(...) prepares the weights once, dot(acc, b, w) is the step.
// Internal linkage (see vec_avx2.h).
#pragma once

#include <cstdint>

namespace quire::detail {
namespace {

template <class V>
struct SplitDot {
  using I = typename V::I;
  static constexpr bool kSplitsBytes = true;  // dot_words takes b already split
  struct Weights {
    I even, odd;  // int16 pairs (w0, w2) and (w1, w3) in every int32 lane
  };
  // The four s8 of w (w0 in the low byte) in every lane.
  static Weights weights(int32_t w) {
    const uint32_t u = static_cast<uint32_t>(w);
    const auto s16 = [](uint32_t byte) {
      return static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int8_t>(byte)));
    };
    const uint32_t even = s16(u & 0xFF) | s16((u >> 16) & 0xFF) << 16;
    const uint32_t odd = s16((u >> 8) & 0xFF) | s16(u >> 24) << 16;
    return {V::set1i(static_cast<int32_t>(even)), V::set1i(static_cast<int32_t>(odd))};
  }
  // A vector of s8, four per lane: the even bytes by shifting each word left 8 and back
  // (arithmetic), the odd ones by the arithmetic shift alone.
  static Weights weights(I w) {
    return {V::template srai16<8>(V::template slli16<8>(w)), V::template srai16<8>(w)};
  }
  // dot with b's even and odd bytes already zero-extended to words.
  static I dot_words(I acc, I even, I odd, const Weights& w) {
    return V::addi(acc, V::addi(V::madd16(even, w.even), V::madd16(odd, w.odd)));
  }
  static I dot(I acc, I b, const Weights& w) {
    const I even = V::andi(b, V::set1i(0x00FF00FF));
    const I odd = V::template srli16<8>(b);
    return V::addi(acc, V::addi(V::madd16(even, w.even), V::madd16(odd, w.odd)));
  }
};

}  // namespace
}  // namespace quire::detail
