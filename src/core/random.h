// Counter-based pseudo-random numbers (SplitMix64): the same stream on every platform.
//
// Weight initialisation and dropout draw from here rather than from <random>, whose
// distributions differ between standard libraries. A value depends only on (seed, index), so
// one head or one row can be recomputed on its own and gives the same numbers.
#pragma once

#include <cstdint>

namespace attn {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 24 bits: exactly representable as a float.
inline float uniform01(uint64_t seed, uint64_t index) {
  const uint64_t bits = splitmix64(seed ^ splitmix64(index));
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

}  // namespace attn
