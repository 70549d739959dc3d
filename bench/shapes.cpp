#include "shapes.h"

namespace quire::bench {

std::vector<Shape> inference_shapes() {
  return {
      {156800, 4, 36},  {156800, 8, 36},  {156800, 16, 36}, {1, 128, 512},
      {1, 1024, 256},   {1, 2048, 512},   {1, 4096, 1024},  {6, 256, 1024},
      {6, 256, 2048},   {6, 512, 512},    {6, 1024, 256},   {6, 2048, 256},
      {6, 2048, 512},   {6, 4096, 256},   {6, 4096, 1024},  {6, 4096, 2048},
      {10, 2048, 256},  {10, 4096, 1024}, {20, 2048, 256},  {20, 4096, 1024},
      {102, 1024, 512}, {102, 2323, 256}, {102, 512, 256},  {1, 800, 3200},
      {1, 800, 8000},   {16, 256, 1500},  {16, 256, 1567},  {1, 128, 2876},
      {16, 128, 1567},  {1, 128, 2722},   {16, 256, 512},
  };
}

std::vector<Shape> square_shapes() {
  std::vector<Shape> shapes;
  for (int n = 64; n <= 2048; n *= 2) shapes.push_back({n, n, n});
  // ResNet-50 1x1 convolutions at batch 1: M = H * W, N = output channels, K = input.
  shapes.push_back({3136, 256, 64});
  shapes.push_back({784, 512, 128});
  shapes.push_back({196, 1024, 256});
  return shapes;
}

std::string to_string(const Shape& s) {
  return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

}  // namespace quire::bench
