// Test helpers: named tolerances, seeded inputs, and matrix comparison that reports the worst
// index and its reference value.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>

#include "core/attention.h"
#include "core/random.h"
#include "reference.h"

namespace test {

// float32 against float64: 1e-5 absolute for values up to 1 in magnitude (weights always),
// and 1e-5 relative above that, since float32 holds about 7 significant digits and a score
// of 400 cannot be stored closer than 3e-5.
constexpr double kTolerance = 1e-5;

// Deterministic inputs uniform in [lo, hi].
inline attn::Matrix random_matrix(int rows, int cols, double lo, double hi, uint64_t seed) {
  attn::Matrix m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      m(i, j) = static_cast<float>(lo + (hi - lo) * attn::uniform01(seed, i * cols + j));
  return m;
}

inline attn::Batch random_batch(int batch, int rows, int cols, double lo, double hi,
                                uint64_t seed) {
  attn::Batch b;
  for (int i = 0; i < batch; ++i) b.push_back(random_matrix(rows, cols, lo, hi, seed * 131 + i));
  return b;
}

struct Diff {
  double max_abs = 0.0;     // largest |got - want|
  double max_scaled = 0.0;  // largest |got - want| / max(1, |want|)
  std::string where;        // index and values of the largest scaled difference
  bool shape_ok = true;
  bool nan_ok = true;  // NaN exactly where the reference has NaN
};

inline Diff compare(const attn::Batch& got, const ref::Bat& want) {
  Diff d;
  if (got.size() != want.size()) {
    d.shape_ok = false;
    d.where = "batch " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
    return d;
  }
  for (size_t b = 0; b < got.size(); ++b) {
    if (got[b].rows() != static_cast<Eigen::Index>(want[b].size()) ||
        (want[b].size() && got[b].cols() != static_cast<Eigen::Index>(want[b][0].size()))) {
      d.shape_ok = false;
      d.where = "shape of item " + std::to_string(b);
      return d;
    }
    for (size_t i = 0; i < want[b].size(); ++i)
      for (size_t j = 0; j < want[b][i].size(); ++j) {
        const double g = got[b](i, j), w = want[b][i][j];
        if (std::isnan(w) || std::isnan(g)) {
          if (std::isnan(w) != std::isnan(g)) {
            d.nan_ok = false;
            d.where = "[" + std::to_string(b) + "][" + std::to_string(i) + "][" +
                      std::to_string(j) + "] NaN mismatch";
          }
          continue;
        }
        if (std::isinf(w) || std::isinf(g)) {
          if (g != w) d.nan_ok = false;
          continue;
        }
        const double abs = std::fabs(g - w);
        const double scaled = abs / std::max(1.0, std::fabs(w));
        d.max_abs = std::max(d.max_abs, abs);
        if (scaled >= d.max_scaled) {
          d.max_scaled = scaled;
          std::ostringstream os;
          os << "[" << b << "][" << i << "][" << j << "] got " << g << " want " << w;
          d.where = os.str();
        }
      }
  }
  return d;
}

// Checks got against the float64 reference within kTolerance (scaled as described above).
#define CHECK_MATCHES(got, want)                                                                \
  do {                                                                                          \
    const test::Diff diff_ = test::compare((got), (want));                                      \
    INFO(#got << ": max abs " << diff_.max_abs << ", max scaled " << diff_.max_scaled << " at " \
              << diff_.where);                                                                  \
    CHECK(diff_.shape_ok);                                                                      \
    CHECK(diff_.nan_ok);                                                                        \
    CHECK(diff_.max_scaled <= test::kTolerance);                                                \
  } while (0)

}  // namespace test
