#include "app/model/transition.h"

#include <algorithm>
#include <cmath>

namespace ui {

float Transition::eased() const {
  if (!active) return 1.0f;
  const double t = std::clamp(elapsed / kTransitionSeconds, 0.0, 1.0);
  return static_cast<float>(t * t * (3.0 - 2.0 * t));  // smoothstep
}

void Transition::advance(double dt) {
  if (!active) return;
  elapsed += std::clamp(dt, 0.0, 1.0 / 30.0);
  if (elapsed >= kTransitionSeconds) active = false;
}

bool animates(Step from, Step to) {
  const int f = static_cast<int>(from), t = static_cast<int>(to);
  return t == f + 1 && f >= static_cast<int>(Step::kScores) &&
         t <= static_cast<int>(Step::kWeightedValues);
}

attn::Matrix transition_values(Step to, const attn::Matrix& before, const attn::Matrix& after,
                               float e) {
  if (before.rows() != after.rows() || before.cols() != after.cols() || e >= 1.0f) return after;
  e = std::max(e, 0.0f);
  attn::Matrix out = after;
  switch (to) {
    case Step::kScaled:
      out = before + e * (after - before);
      break;
    case Step::kMasked: {
      // A cell that falls goes down through the colours in the first half (to the matrix's
      // lowest value), and on to the mask value in the second, its size growing geometrically,
      // so that both the colour and the number are seen to fall.
      const float floor = std::min(before.minCoeff(), -0.01f);
      for (Eigen::Index i = 0; i < after.rows(); ++i)
        for (Eigen::Index j = 0; j < after.cols(); ++j) {
          const float b = before(i, j);
          const float a = std::isfinite(after(i, j)) ? after(i, j) : -1e6f;
          if (!(a < floor) || !std::isfinite(b)) {
            out(i, j) = b + e * (a - b);
          } else if (e < 0.5f) {
            out(i, j) = b + 2.0f * e * (floor - b);
          } else {
            const float grow = std::log(a / floor) * (2.0f * e - 1.0f);
            out(i, j) = floor * std::exp(grow);
          }
        }
      break;
    }
    case Step::kWeights:
      for (Eigen::Index i = 0; i < after.rows(); ++i) {
        const float m = before.row(i).maxCoeff();
        if (!std::isfinite(m)) continue;  // a row with nothing to choose: as it ends
        for (Eigen::Index j = 0; j < after.cols(); ++j) {
          if (!std::isfinite(after(i, j))) continue;
          const float start = std::exp(before(i, j) - m);
          out(i, j) = start + e * (after(i, j) - start);
        }
      }
      break;
    default:
      break;
  }
  return out;
}

}  // namespace ui
