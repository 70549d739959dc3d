// The per-ISA tables of output-pipeline routines (IsaRecord::epilogue) and the scalar
// forms of their formulas; the argument records and formulas are in quire/detail/Epilogue.h.
// Private to the library: a table may gain a routine without changing what clients
// compile against (they call the epilogue_* entries, src/epilogue/epilogue_entries.cpp).
#pragma once

#include <cstdint>

#include "quire/Types.h"
#include "quire/detail/Epilogue.h"

namespace quire::detail {

// Scalar forms of the formulas above, shared by the portable routines and the vector
// routines' remainders. Integer corrections wrap modulo 2^32 like the vector lanes do.
inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t wrapping_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// raw for block element (r, c) in quantization group q.
inline int32_t corrected_raw(const ZeroPointCorrection& zp, int32_t in, int r, int c, int q) {
  uint32_t raw = static_cast<uint32_t>(in);
  if (zp.col_offsets != nullptr)
    raw -= static_cast<uint32_t>(zp.a_zero_point) * static_cast<uint32_t>(zp.col_offsets[c]);
  if (zp.row_offsets != nullptr)
    raw -= static_cast<uint32_t>(zp.b_zero_point[q]) * static_cast<uint32_t>(zp.row_offsets[r]);
  return static_cast<int32_t>(raw);
}

// clamp(nearbyint(x) + zero_point, lo, 255), computed as
//   nearbyint(clamp(x, lo - zero_point, 255 - zero_point)) + zero_point,
// the same value (the bounds are integers and rounding is monotonic) with the conversion
// defined for every x. The comparisons are ordered like vminps / vmaxps, so even a NaN
// maps the same way in the vector routines. nearbyint of |x| <= 255 is done by adding
// and subtracting 1.5 * 2^23: the sum lies in [2^23, 2^24), where floats are the
// integers, so the addition rounds x half to even (the default rounding mode, as
// vcvtps2dq) and the subtraction is exact.
inline uint8_t round_to_u8(float x, int32_t zero_point, int32_t lo) {
  const float hi_x = static_cast<float>(255 - zero_point);
  const float lo_x = static_cast<float>(lo - zero_point);
  x = x < hi_x ? x : hi_x;
  x = x > lo_x ? x : lo_x;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  return static_cast<uint8_t>(static_cast<int32_t>((x + kRound) - kRound) + zero_point);
}

// std::max(0.0f, x), which is also what vmaxps(x, 0) gives (-0.0f and NaN become +0.0f).
inline float relu_f32(float x) { return x > 0.0f ? x : 0.0f; }

struct EpilogueTable {
  void (*requantize_u8)(const RequantizeU8Args&);
  void (*requantize_f32)(const RequantizeF32Args&);
  void (*copy_i32)(const Int32MapArgs&);   // out = in
  void (*scale_i32)(const Int32MapArgs&);  // out = in * value (modulo 2^32)
  void (*relu_i32)(const Int32MapArgs&);   // out = max(value, in)
};

extern const EpilogueTable kEpiloguePortable;
extern const EpilogueTable kEpilogueAvx2;
extern const EpilogueTable kEpilogueAvx512;

// The routines for an instruction set named in an op's template argument: that ISA's if
// the CPU has it, else the best the CPU has below it (src/cpu/dispatch.cpp).
const EpilogueTable& epilogue_for(inst_set_t inst_set);

}  // namespace quire::detail
