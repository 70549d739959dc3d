// The four-byte dot step where a certificate says no vpmaddubsw pair can saturate
// (activations at most 127: |b0 w0 + b1 w1| <= 127 x 128 x 2 = 32512), written once over
// a vocabulary V (vec_avx2.h, vec_avx512.h), with SplitDot's interface: in each int32 lane
//   acc += b0 w0 + b1 w1 + b2 w2 + b3 w3    (b: four u8, w: four s8)
// as vpmaddubsw's int16 pair sums widened by vpmaddwd against ones. The bytes are used
// as they are, where SplitDot's exact step for any data takes them split by parity into
// words (two shuffles more a dword in the groupwise kernel). Internal linkage.
#pragma once

namespace quire::detail {
namespace {

template <class V>
struct CertifiedDot {
  using I = typename V::I;
  static constexpr bool kSplitsBytes = false;  // dot takes b as bytes
  struct Weights {
    I w;  // the four s8 of each lane as packed
  };
  static Weights weights(I w) { return {w}; }
  static I dot(I acc, I b, const Weights& w) {
    return V::addi(acc, V::madd16(V::maddubs(b, w.w), V::set1i(0x00010001)));
  }
};

}  // namespace
}  // namespace quire::detail
