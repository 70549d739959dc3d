// The sparse AdaGrad loops, written once over a vector vocabulary V (Avx2, Avx512, or the
// one-lane Scalar of adagrad_portable.cpp) and instantiated per path. Per element, with
// g' = fma(weight_decay * freq, w, g) where weight decay is on (else g' = g):
//   element-wise:  h = fma(g', g', h);  w = w + (lr * g') / (sqrt(h) + epsilon)
//   row-wise:      h_row += mean of g'^2 (the 8 partial sums below);
//                  step = lr / (sqrt(h_row) + epsilon);  w = fma(g', step, w)
//   fused, float:  w = fma(g, step, w)
//   fused, fp16:   w = half_rz(bits(fma(step, g, float(w))) + r), r random (or 0)
// which are FBGEMM's reference formulas with its products-then-sums fused as a vectorized
// kernel (and GCC's contraction of the reference) fuse them (docs/embedding.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/intrinsics.h"
#include "embedding/adagrad_kernels.h"
#include "quire/FloatConversion.h"

namespace quire::detail {
namespace {

template <class V>
struct AdagradLoops {
  using F = typename V::F;
  using I = typename V::I;
  using Lanes = typename V::Lanes;
  static constexpr int W = V::W;

  // FBGEMM's mean of squares: 8 partial sums, element j into sum j % 8 in order, then
  // ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)). Lanes past a row's end are 0 and
  // add exactly nothing.
  struct SquareSum8 {
    static constexpr int kAcc = W == 1 ? 8 : 1;
    F acc[kAcc];
    int next = 0;  // one-lane vectors: the sum the next element goes to

    SquareSum8() {
      for (F& a : acc) a = V::zerof();
    }
    void add(F g) {
      if constexpr (W == 1) {
        acc[next] = V::fmadd(g, g, acc[next]);
        next = (next + 1) & 7;
      } else if constexpr (W == 8) {
        acc[0] = V::fmadd(g, g, acc[0]);
      } else {
        static_assert(W == 16);
        // Elements 8..15 after 0..7, in lanes 0..7 (lanes 8..15 of acc are not used).
        alignas(64) static constexpr int32_t kHigh[16] = {8,  9,  10, 11, 12, 13, 14, 15,
                                                          8,  9,  10, 11, 12, 13, 14, 15};
        acc[0] = V::fmadd(g, g, acc[0]);
        const F hi = V::permute(g, V::lane_pattern(kHigh));
        acc[0] = V::fmadd(hi, hi, acc[0]);
      }
    }
    float total() const {
      float p[8];
      if constexpr (W == 1) {
        for (int k = 0; k < 8; ++k) p[k] = acc[k];
      } else {
        alignas(64) float lanes[W];
        V::storef(lanes, acc[0]);
        std::memcpy(p, lanes, sizeof p);
      }
      return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
    }
  };

  static float decay_of(const SparseAdagradJob& j, int64_t row) {
    if (!j.use_weight_decay) return 0.0f;
    const double* c = j.counter;
    const float freq = c && c[row] > 0 ? static_cast<float>(j.counter_halflife / c[row]) : 1.0f;
    return j.weight_decay * freq;
  }

  // g' of the vector at element k of a row.
  static F gradient(const SparseAdagradJob& j, F decay, const float* g, const float* w,
                    const Lanes& l) {
    const F gv = V::load(g, l);
    return j.use_weight_decay ? V::fmadd(decay, V::load(w, l), gv) : gv;
  }

  template <class Index, bool kRowwise>
  static int sparse(const SparseAdagradJob& j) {
    const auto* idx = static_cast<const Index*>(j.indices);
    const int n = j.block_size;
    const F lr = V::set1f(j.lr), eps = V::set1f(j.epsilon);
    for (int i = 0; i < j.num_rows; ++i) {
      // Written here, not in a function: GCC drops calls of a function that only
      // prefetches (embedding_simd.h).
      if (j.prefetch > 0 && i + j.prefetch < j.num_rows) {
        const int64_t ahead = idx[i + j.prefetch];
        if (ahead >= 0 && static_cast<uint64_t>(ahead) < j.table_rows) {
          const float* pw = j.w + ahead * n;
          for (int64_t o = 0; o < n; o += 16) _mm_prefetch(reinterpret_cast<const char*>(pw + o), _MM_HINT_T0);
          if constexpr (kRowwise) {
            _mm_prefetch(reinterpret_cast<const char*>(j.h + ahead), _MM_HINT_T0);
          } else {
            const float* ph = j.h + ahead * n;
            for (int64_t o = 0; o < n; o += 16) _mm_prefetch(reinterpret_cast<const char*>(ph + o), _MM_HINT_T0);
          }
        }
      }
      const int64_t r = idx[i];
      if (r < 0 || static_cast<uint64_t>(r) >= j.table_rows) return i;
      const F decay = V::set1f(decay_of(j, r));
      const float* g = j.g + int64_t{i} * n;
      float* w = j.w + r * n;
      if constexpr (kRowwise) {
        SquareSum8 sum;
        for (int k = 0; k < n; k += W) sum.add(gradient(j, decay, g + k, w + k, Lanes(n - k)));
        const float mean = sum.total() / static_cast<float>(n);
        const float hr = j.h[r] + mean;
        j.h[r] = hr;
        const F step = V::set1f(j.lr / (std::sqrt(hr) + j.epsilon));
        for (int k = 0; k < n; k += W) {
          const Lanes l(n - k);
          V::store(w + k, l, V::fmadd(gradient(j, decay, g + k, w + k, l), step, V::load(w + k, l)));
        }
      } else {
        float* h = j.h + r * n;
        for (int k = 0; k < n; k += W) {
          const Lanes l(n - k);
          const F gv = gradient(j, decay, g + k, w + k, l);
          const F hv = V::fmadd(gv, gv, V::load(h + k, l));
          V::store(h + k, l, hv);
          const F step = V::div(V::mul(lr, gv), V::add(V::sqrt(hv), eps));
          V::store(w + k, l, V::add(V::load(w + k, l), step));
        }
      }
    }
    return j.num_rows;
  }

  template <int K>
  static I rotl(I x) {
    return V::ori(V::template slli<K>(x), V::template srli<32 - K>(x));
  }

  // One xoshiro128++ step of all L lanes of the stream: their outputs to out[0..L).
  static void random_step(uint32_t* s, int L, int32_t* out) {
    auto* st = reinterpret_cast<int32_t*>(s);
    for (int v = 0; v < L; v += W) {
      I s0 = V::load(st + v), s1 = V::load(st + L + v), s2 = V::load(st + 2 * L + v),
        s3 = V::load(st + 3 * L + v);
      V::store(out + v, V::addi(rotl<7>(V::addi(s0, s3)), s0));
      const I t = V::template slli<9>(s1);
      s2 = V::xori(s2, s0);
      s3 = V::xori(s3, s1);
      s1 = V::xori(s1, s2);
      s0 = V::xori(s0, s3);
      s2 = V::xori(s2, t);
      s3 = rotl<11>(s3);
      V::store(st + v, s0);
      V::store(st + L + v, s1);
      V::store(st + 2 * L + v, s2);
      V::store(st + 3 * L + v, s3);
    }
  }

  // One fp16 row: w = half_rz(fma(step, g, w) [+ r]). The stream's vector n (elements
  // [n L, n L + L)) takes byte n % 4 of each lane's word, a new word every 4 vectors,
  // shifted to bits 5..12: below the last place fp16 keeps of an fp32.
  static void half_row(float16* w, const float* g, int64_t n, F step, const FusedAdagradJob& j) {
    alignas(64) int32_t words[16];
    const int L = j.rng_lanes;
    for (int64_t k = 0; k < n; k += W) {
      const int count = n - k < W ? static_cast<int>(n - k) : W;
      alignas(64) float16 part[W] = {};
      float16* at = w + k;
      if (count < W) {
        std::memcpy(part, at, sizeof(float16) * static_cast<size_t>(count));
        at = part;
      }
      F x = V::fmadd(step, V::load(g + k, Lanes(count)), V::load_half(at));
      if (j.rng) {
        const int64_t vec = k / L;
        const int lane = static_cast<int>(k % L), byte = static_cast<int>(vec % 4);
        if (lane == 0 && byte == 0) random_step(j.rng, L, words);
        const I r = V::andi(V::srlv(V::load(words + lane), V::set1i(8 * byte)), V::set1i(0xFF));
        x = V::as_float(V::addi(V::bits(x), V::template slli<5>(r)));
      }
      V::store_half_rz(at, x);
      if (count < W) std::memcpy(w + k, part, sizeof(float16) * static_cast<size_t>(count));
    }
  }

  template <class Index, class Offset, bool kHalf>
  static void fused(const FusedAdagradJob& j) {
    const auto* idx = static_cast<const Index*>(j.indices);
    const auto* ol = static_cast<const Offset*>(j.offsets_or_lengths);
    const int64_t n = j.block_size;
    int64_t current = 0;
    for (int64_t m = 0; m < j.output_size; ++m) {
      const int64_t len = j.use_offsets ? int64_t{ol[m + 1]} - int64_t{ol[m]} : int64_t{ol[m]};
      const float* g = j.g + m * j.grad_stride;
      SquareSum8 sum;
      for (int64_t k = 0; k < n; k += W) sum.add(V::load(g + k, Lanes(static_cast<int>(n - k))));
      const float mean = sum.total() / static_cast<float>(n);
      for (int64_t e = current + len; current < e; ++current) {
        if (j.prefetch > 0 && current + j.prefetch < j.index_size) {
          const int64_t ahead = idx[current + j.prefetch];
          const auto* p = static_cast<const char*>(j.w) + ahead * n * (kHalf ? 2 : 4);
          for (int64_t o = 0; o < n * (kHalf ? 2 : 4); o += 64) _mm_prefetch(p + o, _MM_HINT_T0);
          _mm_prefetch(reinterpret_cast<const char*>(j.h + ahead), _MM_HINT_T0);
        }
        const int64_t r = idx[current];
        const float hr = j.h[r] + mean;
        j.h[r] = hr;
        const F step = V::set1f(j.lr / (std::sqrt(hr) + j.epsilon));
        if constexpr (kHalf) {
          half_row(static_cast<float16*>(j.w) + r * n, g, n, step, j);
        } else {
          float* w = static_cast<float*>(j.w) + r * n;
          for (int64_t k = 0; k < n; k += W) {
            const Lanes l(static_cast<int>(n - k));
            V::store(w + k, l, V::fmadd(V::load(g + k, l), step, V::load(w + k, l)));
          }
        }
      }
    }
  }
};

template <class V>
constexpr AdagradKernels make_adagrad_kernels() {
  using A = AdagradLoops<V>;
  AdagradKernels k{};
  k.sparse[0][0] = &A::template sparse<int32_t, false>;
  k.sparse[0][1] = &A::template sparse<int64_t, false>;
  k.sparse[1][0] = &A::template sparse<int32_t, true>;
  k.sparse[1][1] = &A::template sparse<int64_t, true>;
  k.fused[0][0][0] = &A::template fused<int32_t, int32_t, false>;
  k.fused[0][0][1] = &A::template fused<int32_t, int64_t, false>;
  k.fused[0][1][0] = &A::template fused<int64_t, int32_t, false>;
  k.fused[0][1][1] = &A::template fused<int64_t, int64_t, false>;
  k.fused[1][0][0] = &A::template fused<int32_t, int32_t, true>;
  k.fused[1][0][1] = &A::template fused<int32_t, int64_t, true>;
  k.fused[1][1][0] = &A::template fused<int64_t, int32_t, true>;
  k.fused[1][1][1] = &A::template fused<int64_t, int64_t, true>;
  return k;
}

}  // namespace
}  // namespace quire::detail
