// A scalar sparse AdaGrad reference written from docs/embedding.md ("Optimizers"):
// FBGEMM's reference formulas with its a * b + c steps fused, its 8 partial sums, and its
// stochastic-rounding generator (xoshiro128++ lanes seeded by splitmix64 from the
// thread's id), for bit-exact comparison with quire's kernels.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <type_traits>
#include <vector>

#include "quire/FloatConversion.h"

namespace quire::test {

// This object's stream starts where a thread's first draw starts: make it on the thread
// whose kernel calls it mirrors, before that thread's first stochastic-rounding call.
class ReferenceRng {
 public:
  ReferenceRng() {
    uint64_t seed = std::hash<std::thread::id>{}(std::this_thread::get_id());
    for (int k = 0; k < 4; ++k) {
      s_[16 * k] = static_cast<uint32_t>(mix(seed));
      uint64_t chain = s_[16 * k];
      for (int v = 1; v < 16; ++v) s_[16 * k + v] = static_cast<uint32_t>(mix(chain));
    }
  }
  // The next word of lane v of an L-lane stream.
  uint32_t next(int v, int L) {
    auto rotl = [](uint32_t x, int k) { return (x << k) | (x >> (32 - k)); };
    uint32_t* s0 = &s_[v];
    uint32_t* s1 = &s_[L + v];
    uint32_t* s2 = &s_[2 * L + v];
    uint32_t* s3 = &s_[3 * L + v];
    const uint32_t out = rotl(*s0 + *s3, 7) + *s0;
    const uint32_t t = *s1 << 9;
    *s2 ^= *s0;
    *s3 ^= *s1;
    *s1 ^= *s2;
    *s0 ^= *s3;
    *s2 ^= t;
    *s3 = rotl(*s3, 11);
    return out;
  }

 private:
  static uint64_t mix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t s_[64];
};

// ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)) of p[j % 8] = fma(x_j, x_j, p[j % 8]),
// divided by n.
inline float mean_square(const float* x, int64_t n) {
  float p[8] = {};
  for (int64_t j = 0; j < n; ++j) p[j % 8] = std::fma(x[j], x[j], p[j % 8]);
  return (((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]))) /
         static_cast<float>(n);
}

// GenerateSparseAdaGrad's contract: the number of rows updated.
template <class Index>
int reference_sparse_adagrad(bool rowwise, int block, int num_rows, uint64_t param_size,
                             float* w, const float* g, float* h, const Index* idx, float eps,
                             float lr, float weight_decay, const double* counter,
                             int64_t halflife, bool use_weight_decay) {
  for (int i = 0; i < num_rows; ++i) {
    const int64_t r = idx[i];
    if (r < 0 || static_cast<uint64_t>(r) >= param_size / static_cast<uint64_t>(block)) return i;
    float decay = 0.0f;
    if (use_weight_decay) {
      const float freq =
          counter && counter[r] > 0 ? static_cast<float>(halflife / counter[r]) : 1.0f;
      decay = weight_decay * freq;
    }
    float* wr = w + r * block;
    std::vector<float> gd(static_cast<size_t>(block));
    for (int j = 0; j < block; ++j)
      gd[j] = use_weight_decay ? std::fma(decay, wr[j], g[int64_t{i} * block + j])
                               : g[int64_t{i} * block + j];
    if (rowwise) {
      const float hr = h[r] + mean_square(gd.data(), block);
      h[r] = hr;
      const float step = lr / (std::sqrt(hr) + eps);
      for (int j = 0; j < block; ++j) wr[j] = std::fma(gd[j], step, wr[j]);
    } else {
      float* hr = h + r * block;
      for (int j = 0; j < block; ++j) {
        hr[j] = std::fma(gd[j], gd[j], hr[j]);
        wr[j] = wr[j] + lr * gd[j] / (std::sqrt(hr[j]) + eps);
      }
    }
  }
  return num_rows;
}

// GenerateRowWiseSparseAdaGradFused's contract; rng null: no stochastic rounding, else
// an L-lane stream. Bags as lengths.
template <class Data, class Index>
bool reference_fused_adagrad(int64_t block, int64_t grad_stride, const std::vector<int64_t>& lengths,
                             int64_t data_size, Data* w, const float* g, float* h,
                             const std::vector<Index>& idx, float eps, float lr,
                             ReferenceRng* rng, int L) {
  int64_t covered = 0;
  for (int64_t len : lengths) {
    if (len < 0 || len > static_cast<int64_t>(idx.size()) - covered) return false;
    covered += len;
  }
  if (covered != static_cast<int64_t>(idx.size())) return false;
  for (Index r : idx)
    if (r < 0 || r >= data_size) return false;
  int64_t current = 0;
  for (size_t m = 0; m < lengths.size(); ++m) {
    const float* gm = g + static_cast<int64_t>(m) * grad_stride;
    const float mean = mean_square(gm, block);
    for (int64_t i = 0; i < lengths[m]; ++i, ++current) {
      const int64_t r = idx[static_cast<size_t>(current)];
      const float hr = h[r] + mean;
      h[r] = hr;
      const float step = lr / (std::sqrt(hr) + eps);
      Data* wr = w + r * block;
      uint32_t word[16] = {};
      for (int64_t j = 0; j < block; ++j) {
        if constexpr (std::is_same_v<Data, float>) {
          wr[j] = std::fma(gm[j], step, wr[j]);
        } else {
          uint32_t x = std::bit_cast<uint32_t>(std::fma(step, gm[j], cpu_half2float(wr[j])));
          if (rng) {
            const int64_t vec = j / L;
            const int lane = static_cast<int>(j % L);
            if (vec % 4 == 0 && lane == 0)
              for (int v = 0; v < L; ++v) word[v] = rng->next(v, L);
            x += ((word[lane] >> (8 * (vec % 4))) & 0xFFu) << 5;
          }
          wr[j] = cpu_float2half_rz(std::bit_cast<float>(x));
        }
      }
    }
  }
  return true;
}

}  // namespace quire::test
