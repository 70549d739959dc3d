// The per-thread state of adagrad_rng.h.
#include "embedding/adagrad_rng.h"

#include <functional>
#include <thread>

namespace quire::detail {
namespace {

// splitmix64: advances x and returns the next output.
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct RngState {
  alignas(64) uint32_t words[64];
  RngState() {
    uint64_t seed = std::hash<std::thread::id>{}(std::this_thread::get_id());
    // Word k of lane 0 from the thread's seed; lanes 1..15 from a chain seeded by it.
    for (int k = 0; k < 4; ++k) {
      words[16 * k] = static_cast<uint32_t>(splitmix64(seed));
      uint64_t chain = words[16 * k];
      for (int v = 1; v < 16; ++v) words[16 * k + v] = static_cast<uint32_t>(splitmix64(chain));
    }
  }
};

}  // namespace

uint32_t* stochastic_rounding_state() {
  thread_local RngState state;
  return state.words;
}

}  // namespace quire::detail
