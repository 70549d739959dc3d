// The embedding-bag kernels without vector instructions: embedding_simd.h over one-lane
// "vectors" (plain floats), with the same formulas (std::fma is the single rounding
// vfmadd gives).
#include <bit>
#include <cmath>

#include "embedding/embedding_simd.h"
#include "quire/FloatConversion.h"

namespace quire::detail {
namespace {

struct ScalarOps {
  static constexpr int W = 1;
  using F = float;
  static F zero() { return 0.0f; }
  static F set1(float x) { return x; }
  static F add(F a, F b) { return a + b; }
  static F mul(F a, F b) { return a * b; }
  static F fmadd(F a, F b, F c) { return std::fma(a, b, c); }
  static constexpr bool kGroups = false;  // one-lane vectors are in element order already
  static constexpr bool kBiasOnFma = false;  // acc + bias on the adder (embedding_simd.h)
  static int load_bytes(const uint8_t*) { return 0; }
  template <RowFormat>
  static F group_part(int, int) { return 0; }
  static void interleave(F&, F&) {}
  static float half(uint16_t h) { return cpu_half2float(float16{h}); }
  static F fp8(const uint8_t* p, int shift, float scale) {
    const uint32_t c = *p;
    const float x = std::bit_cast<float>((c & 0x7fu) << shift) * scale;
    return std::bit_cast<float>(std::bit_cast<uint32_t>(x) | (c & 0x80u) << 24);
  }

  // A quantized row's scale and bias at p (floats for kU8 rows, else fp16) times w (not
  // multiplied unweighted: the product by 1 is exact).
  template <RowFormat R, bool kWeighted>
  static void scale_bias(const uint8_t* p, float w, F& s, F& b) {
    float sb[2];
    if constexpr (R == RowFormat::kU8) {
      std::memcpy(sb, p, sizeof sb);
    } else {
      uint16_t h[2];
      std::memcpy(h, p, sizeof h);
      sb[0] = half(h[0]);
      sb[1] = half(h[1]);
    }
    s = kWeighted ? w * sb[0] : sb[0];
    b = kWeighted ? w * sb[1] : sb[1];
  }

  template <RowFormat R>
  static F load(const uint8_t* data, int e) {
    if constexpr (R == RowFormat::kF32) {
      float x;
      std::memcpy(&x, data + 4 * e, sizeof x);
      return x;
    } else if constexpr (R == RowFormat::kF16 || R == RowFormat::kBF16) {
      uint16_t h;
      std::memcpy(&h, data + 2 * e, sizeof h);
      return R == RowFormat::kF16 ? half(h) : cpu_bf162float(bfloat16{h});
    } else if constexpr (R == RowFormat::kU8 || R == RowFormat::kU8Half) {
      return data[e];
    } else {
      constexpr int kBits = static_cast<int>(bits_per_element(R));
      constexpr int kPerByte = 8 / kBits;
      const int q = data[e / kPerByte] >> (static_cast<int>(e % kPerByte) * kBits);
      return static_cast<float>(q & ((1 << kBits) - 1));
    }
  }

  static void store(OutFormat f, void* out, int64_t e, F v, int) {
    if (f == OutFormat::kF32)
      static_cast<float*>(out)[e] = v;
    else if (f == OutFormat::kF16)
      static_cast<uint16_t*>(out)[e] = cpu_float2half_rn(v).val;
    else
      static_cast<uint16_t*>(out)[e] = cpu_float2bfloat16(v).val;
  }
};

}  // namespace

constinit const EmbeddingKernels kEmbeddingPortable = make_embedding_kernels<ScalarOps>();

}  // namespace quire::detail
