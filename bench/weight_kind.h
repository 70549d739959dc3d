// The int8 weights a scenario uses (gemm_data.h, --weights): B full range (-128..127),
// typical (-64..64: pair-safe on any A), or trained (per output channel, normal-like
// weights scaled symmetric so that max |w| = 127, as per-channel quantization makes them).
// Free of quire's headers: the baselines' translation units include it too.
#pragma once

namespace quire::bench {

enum class WeightKind { full, typical, trained };

}  // namespace quire::bench
