// n uniform integers in [lo, hi] as T, from a fixed seed: the micro-benchmarks' inputs.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace micro {

template <class T>
std::vector<T> random_values(int64_t n, int lo, int hi, uint32_t seed = 42) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

}  // namespace micro
