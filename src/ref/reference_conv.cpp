#include "quire/ref/ReferenceConv.h"

#include <array>
#include <vector>

#include "quire/ref/ReferenceOutput.h"

namespace quire::ref {
namespace {

// Input position read by tap k of output position o along dimension d, or -1.
//   forward:     i = o * stride - pad_begin + k * dilation
//   transposed:  the i with i * stride = o + pad_begin - k * dilation
template <int D>
int input_position(const conv_param_t<D>& p, int d, int o, int k) {
  int i;
  if (p.transposed) {
    const int t = o + p.pad[d] - k * p.dilation[d];
    if (t < 0 || t % p.stride[d] != 0) return -1;
    i = t / p.stride[d];
  } else {
    i = o * p.stride[d] - p.pad[d] + k * p.dilation[d];
  }
  return i >= 0 && i < p.IN_DIM[d] ? i : -1;
}

// Advances a multi-index over extents; false once it wraps to all zeros.
template <int D>
bool next(std::array<int, D>& idx, const std::array<int, D>& extent) {
  for (int d = D - 1; d >= 0; --d) {
    if (++idx[d] < extent[d]) return true;
    idx[d] = 0;
  }
  return false;
}

template <int D>
int prod(const std::array<int, D>& a) {
  int r = 1;
  for (int v : a) r *= v;
  return r;
}

// Calls f(m, n, tap, a) for each output position m of the batch, each tap (row-major
// over K) and the input element offset a (pixel * IC) it reads, or -1 outside A.
template <int D, class F>
void for_each_window_tap(const conv_param_t<D>& p, F f) {
  const int in_pixels = prod<D>(p.IN_DIM);
  int m = 0;
  for (int n = 0; n < p.MB; ++n) {
    std::array<int, D> o{};
    do {
      std::array<int, D> k{};
      int tap = 0;
      do {
        int64_t pixel = 0;
        bool inside = true;
        for (int d = 0; d < D; ++d) {
          const int i = input_position(p, d, o[d], k[d]);
          inside = inside && i >= 0;
          pixel = pixel * p.IN_DIM[d] + i;
        }
        f(m, tap, inside ? (int64_t{n} * in_pixels + pixel) * p.IC : int64_t{-1});
        ++tap;
      } while (next<D>(k, p.K));
      ++m;
    } while (next<D>(o, p.OUT_DIM));
  }
}

}  // namespace

template <int D>
void conv_u8s8s32(const conv_param_t<D>& p, const uint8_t* A, int32_t A_zero_point,
                  const int8_t* W, int32_t* C) {
  const int icg = p.IC / p.G, ocg = p.OC / p.G, taps = prod<D>(p.K);
  const int64_t M = int64_t{p.MB} * prod<D>(p.OUT_DIM);
  for (int64_t i = 0; i < M * p.OC; ++i) C[i] = 0;
  for_each_window_tap<D>(p, [&](int m, int tap, int64_t a) {
    for (int g = 0; g < p.G; ++g) {
      for (int oc = 0; oc < ocg; ++oc) {
        const int8_t* w = W + (int64_t{g * ocg + oc} * taps + tap) * icg;
        int32_t sum = 0;
        for (int c = 0; c < icg; ++c) {
          const int32_t x = a < 0 ? A_zero_point : A[a + g * icg + c];
          sum += x * w[c];
        }
        C[int64_t{m} * p.OC + g * ocg + oc] += sum;
      }
    }
  });
}

template <int D>
void conv_row_offsets(const conv_param_t<D>& p, const uint8_t* A, int32_t A_zero_point,
                      int32_t* row_offsets) {
  const int icg = p.IC / p.G;
  const int64_t M = int64_t{p.MB} * prod<D>(p.OUT_DIM);
  for (int64_t i = 0; i < M * p.G; ++i) row_offsets[i] = 0;
  for_each_window_tap<D>(p, [&](int m, int, int64_t a) {
    for (int g = 0; g < p.G; ++g)
      for (int c = 0; c < icg; ++c)
        row_offsets[int64_t{m} * p.G + g] += a < 0 ? A_zero_point : A[a + g * icg + c];
  });
}

template <int D>
void conv_col_offsets(const conv_param_t<D>& p, const int8_t* W, const int32_t* B_zero_point,
                      int ncols_per_quant_group, int32_t* col_offsets) {
  const int kg = prod<D>(p.K) * (p.IC / p.G);
  for (int oc = 0; oc < p.OC; ++oc) {
    int32_t sum = 0;
    for (int k = 0; k < kg; ++k) sum += W[int64_t{oc} * kg + k];
    col_offsets[oc] = sum - kg * B_zero_point[oc / ncols_per_quant_group];
  }
}

template <int D>
void im2col(const conv_param_t<D>& p, const uint8_t* A, int32_t A_zero_point, uint8_t* out) {
  const int icg = p.IC / p.G, taps = prod<D>(p.K);
  const int64_t row = int64_t{taps} * p.IC;
  for_each_window_tap<D>(p, [&](int m, int tap, int64_t a) {
    for (int g = 0; g < p.G; ++g)
      for (int c = 0; c < icg; ++c)
        out[m * row + (int64_t{g} * taps + tap) * icg + c] =
            static_cast<uint8_t>(a < 0 ? A_zero_point : A[a + g * icg + c]);
  });
}

template <int D, class BiasT>
void conv_requantize_u8(const conv_param_t<D>& p, const int32_t* C, const int32_t* row_offsets,
                        const ConvRequant& q, const BiasT* bias, uint8_t* out) {
  const int M = p.MB * prod<D>(p.OUT_DIM), ocg = p.OC / p.G;
  std::vector<int32_t> group_offsets(M);
  for (int g = 0; g < p.G; ++g) {
    for (int m = 0; m < M; ++m) group_offsets[m] = row_offsets[int64_t{m} * p.G + g];
    QuantParams qp;
    qp.granularity = q.granularity;
    qp.groups = p.G;
    qp.nCol = static_cast<uint32_t>(p.OC);
    qp.Aq_zero_point = q.A_zero_point;
    qp.Bq_zero_point = q.B_zero_point;
    qp.row_offsets = group_offsets.data();
    qp.col_offsets = q.col_offsets;
    requantize_u8<BiasT>(out, C + g * ocg, block_type_t{0, M, g * ocg, ocg}, p.OC, p.OC, qp,
                         q.C_multiplier, q.C_zero_point, bias, q.act_times_w_scale,
                         q.fuse_relu);
  }
}

#define QUIRE_REF_CONV(D)                                                                     \
  template void conv_u8s8s32<D>(const conv_param_t<D>&, const uint8_t*, int32_t, const int8_t*, \
                                int32_t*);                                                    \
  template void conv_row_offsets<D>(const conv_param_t<D>&, const uint8_t*, int32_t, int32_t*); \
  template void conv_col_offsets<D>(const conv_param_t<D>&, const int8_t*, const int32_t*, int, \
                                    int32_t*);                                                \
  template void im2col<D>(const conv_param_t<D>&, const uint8_t*, int32_t, uint8_t*);         \
  template void conv_requantize_u8<D, int32_t>(const conv_param_t<D>&, const int32_t*,        \
                                               const int32_t*, const ConvRequant&,            \
                                               const int32_t*, uint8_t*);                     \
  template void conv_requantize_u8<D, float>(const conv_param_t<D>&, const int32_t*,          \
                                             const int32_t*, const ConvRequant&, const float*, \
                                             uint8_t*);
QUIRE_REF_CONV(1)
QUIRE_REF_CONV(2)
QUIRE_REF_CONV(3)
#undef QUIRE_REF_CONV

}  // namespace quire::ref
