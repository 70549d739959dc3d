// The GEMM shapes the bench runs (BENCH.md, "Shape sets").
#pragma once

#include <string>
#include <vector>

namespace quire::bench {

// C (M x N) = A (M x K) * B (K x N).
struct Shape {
  int M;
  int N;
  int K;
};

// Typical server inference; small M is NLP / recommendation.
std::vector<Shape> inference_shapes();

// Powers of two M = N = K, plus ResNet-50's pointwise layers as GEMMs.
std::vector<Shape> square_shapes();

// "MxNxK"
std::string to_string(const Shape& s);

}  // namespace quire::bench
