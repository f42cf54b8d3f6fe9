// What both backward passes check (check_gradient, check_finite, forward_for_gradients), and
// attn::Optimizer, which steps with the float32 attn::gradients.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/gradient.h"

namespace attn {

namespace {

// Whether none of the n floats at x is inf or NaN: an exponent of all ones, tested on the bits
// (a loop the compiler vectorizes; it runs at every training step).
bool all_finite(const float* x, size_t n) {
  uint32_t special = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    special |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return special == 0;
}

// Whether every one of the n doubles at x is within float32's range (NaN is not), on the bits:
// without its sign a double's bits order as its magnitude does, and inf and NaN come last.
bool within_float(const double* x, size_t n) {
  const double largest = std::numeric_limits<float>::max();
  uint64_t limit;
  std::memcpy(&limit, &largest, sizeof limit);
  uint64_t outside = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    outside |= static_cast<uint64_t>((bits & 0x7fffffffffffffffu) > limit);
  }
  return outside == 0;
}

}  // namespace

GradientRefusal gradient_refusal(const Problem& p) {
  if (p.hard && p.hard_gradient == HardGradient::kNone)
    return GradientRefusal::kHardWithoutEstimator;
  return GradientRefusal::kNone;
}

Status check_gradient(const Problem& p) {
  if (gradient_refusal(p) == GradientRefusal::kHardWithoutEstimator)
    return Status{
        "grad: hard attention picks one key by argmax, which has no gradient (the "
        "straight-through estimator gives it one: \"hard\": {\"estimator\": "
        "\"straight_through\"})"};
  return Status{};
}

Status check_gradient(const Problem& p, const Trace& t, const Batch& target) {
  const int B = static_cast<int>(t.output.size());
  if (static_cast<int>(target.size()) != B)
    return Status{"target: has " + std::to_string(target.size()) + " batch items, expected " +
                  std::to_string(B)};
  for (int b = 0; b < B; ++b)
    if (target[b].rows() != t.output[b].rows() || target[b].cols() != t.output[b].cols())
      return Status{"target[" + std::to_string(b) + "]: is " + std::to_string(target[b].rows()) +
                    " × " + std::to_string(target[b].cols()) + ", the output is " +
                    std::to_string(t.output[b].rows()) + " × " +
                    std::to_string(t.output[b].cols())};
  const int H = p.heads;
  const bool minus_inf = p.mask.mask_value == -std::numeric_limits<float>::infinity();
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const Matrix& masked = t.heads[h].masked[b];
      const int n_k = static_cast<int>(masked.cols());
      if (all_finite(masked.data(), static_cast<size_t>(masked.size()))) continue;
      for (int i = 0; i < masked.rows(); ++i) {
        if (all_finite(masked.data() + static_cast<ptrdiff_t>(i) * n_k, n_k)) continue;
        // -inf where the mask put it is the mask; anything else not finite is an overflow.
        int lo = 0, hi = 0;
        visible_range(p.mask, b, i, n_k, &lo, &hi);
        bool fully_masked = true;
        for (int j = 0; j < n_k; ++j) {
          const float v = masked(i, j);
          if (minus_inf && v == -std::numeric_limits<float>::infinity() &&
              (j < lo || j >= hi || is_masked(p.mask, b, i, j)))
            continue;
          fully_masked = false;
          if (std::isfinite(v)) continue;
          return Status{"grad: the score of row " + std::to_string(i + 1) + " and key " +
                        std::to_string(j + 1) + " of batch item " + std::to_string(b + 1) +
                        (H > 1 ? " in head " + std::to_string(h + 1) : "") +
                        " is not finite: the numbers overflow float32"};
        }
        if (fully_masked)
          return Status{"grad: row " + std::to_string(i + 1) + " of batch item " +
                        std::to_string(b + 1) + (H > 1 ? " in head " + std::to_string(h + 1) : "") +
                        " is fully masked under -inf: its weights are undefined (NaN), and so "
                        "is their gradient"};
      }
    }
  for (int b = 0; b < B; ++b) {
    const Matrix& out = t.output[b];
    if (all_finite(out.data(), static_cast<size_t>(out.size()))) continue;
    for (int i = 0; i < out.rows(); ++i)
      if (!all_finite(out.data() + static_cast<ptrdiff_t>(i) * out.cols(), out.cols()))
        return Status{"grad: the output of row " + std::to_string(i + 1) + " of batch item " +
                      std::to_string(b + 1) + " is not finite: the numbers overflow float32"};
  }
  return Status{};
}

Status check_finite(const Gradients& g) {
  if (!std::isfinite(g.loss)) return Status{"grad: the loss is not finite: it overflows"};
  // Within float32's range (NaN is not), so that the float64 reference refuses what the
  // float32 pass overflows on.
  const auto finite = [](const auto& m) {
    return within_float(m.data(), static_cast<size_t>(m.size()));
  };
  const auto all = [&](const BatchD& b) { return std::all_of(b.begin(), b.end(), finite); };
  const std::pair<const char*, bool> parts[] = {
      {"the inputs", all(g.queries) && all(g.keys) && all(g.values)},
      {"W_q", finite(g.W_q)},
      {"W_k", finite(g.W_k)},
      {"W_v", finite(g.W_v)},
      {"W_o", finite(g.W_o)},
      {"W", finite(g.W)},
      {"w_v", finite(g.w_v)},
      {"sigma", within_float(&g.sigma, 1)}};
  for (const auto& [name, ok] : parts)
    if (!ok)
      return Status{std::string("grad: the gradient of ") + name +
                    " is not finite: it overflows float32"};
  return Status{};
}

Status forward_for_gradients(const Problem& p, const Batch& target, Trace* t) {
  Status st = check_gradient(p);
  if (!st.ok()) return st;
  st = validate(p);
  if (!st.ok()) return st;
  *t = run(p);
  return check_gradient(p, *t, target);
}

Status Optimizer::step(Problem* p, const Batch& target, double* loss) {
  Vector& wv = p->weights.w_v;
  Matrix w_v = wv;  // a vector, stepped as a one-column matrix
  // Gaussian scoring's σ, stepped as a 1 × 1 matrix (0 × 0, not stepped, in other scorings).
  const bool gaussian = p->scoring == Scoring::kGaussian;
  Matrix sigma = gaussian ? Matrix::Constant(1, 1, p->weights.sigma) : Matrix();
  Matrix* weights[] = {&p->weights.W_q, &p->weights.W_k, &p->weights.W_v,
                       &p->weights.W_o, &p->weights.W,   &w_v,
                       &sigma};
  bool any = false;
  for (Matrix* m : weights) any = any || m->size() > 0;
  if (!any)
    return Status{"train: the scenario has no weights to learn (give \"init\" or W_q, W_k, W_v)"};
  Gradients g;
  // Gumbel's noise is drawn anew at each step, from seed + the steps taken (restored after).
  const uint64_t seed = p->gumbel_seed;
  p->gumbel_seed = seed + static_cast<uint64_t>(steps);
  const Status st = gradients(*p, target, &g);
  p->gumbel_seed = seed;
  if (!st.ok()) return st;
  *loss = g.loss;
  const MatrixD gw_v = g.w_v;
  const MatrixD gsigma = MatrixD::Constant(1, 1, g.sigma);
  const MatrixD* grads[] = {&g.W_q, &g.W_k, &g.W_v, &g.W_o, &g.W, &gw_v, &gsigma};
  std::vector<Param> params;
  for (int k = 0; k < 6; ++k) params.push_back({kWeightNames[k], weights[k], grads[k]});
  params.push_back({"sigma", &sigma, &gsigma, true});
  const Status done = update(params);
  if (done.ok() && w_v.size()) wv = w_v.col(0);
  if (done.ok() && gaussian) p->weights.sigma = sigma(0, 0);
  return done;
}

Status Optimizer::update(const std::vector<Param>& params) {
  if (m1_.size() != params.size()) {
    m1_.assign(params.size(), MatrixD());
    m2_.assign(params.size(), MatrixD());
  }
  // A weight whose shape changed between steps (one that appeared, as σ does when the page
  // switches to gaussian scoring mid-training) starts with zero moments.
  for (size_t k = 0; k < params.size(); ++k) {
    const Matrix& w = *params[k].weight;
    if (m1_[k].rows() != w.rows() || m1_[k].cols() != w.cols()) {
      m1_[k] = MatrixD::Zero(w.rows(), w.cols());
      m2_[k] = MatrixD::Zero(w.rows(), w.cols());
    }
  }
  // The new weights are made aside, the moments only once they are taken: a step that would
  // take a weight past float32 is refused, and changes nothing.
  const int step = steps + 1;
  const double c1 = 1.0 - std::pow(0.9, step), c2 = 1.0 - std::pow(0.999, step);
  const size_t n = params.size();
  std::vector<MatrixD> next(n);
  for (size_t k = 0; k < n; ++k) {
    if (!params[k].weight->size()) continue;
    const MatrixD& dw = *params[k].gradient;
    next[k] = params[k].weight->cast<double>();
    if (kind == Kind::kSgd) {
      next[k] -= lr * dw;
    } else {
      next[k].array() -=
          lr * ((0.9 * m1_[k] + 0.1 * dw).array() / c1) /
          (((0.999 * m2_[k] + 0.001 * dw.cwiseProduct(dw)).array() / c2).sqrt() + 1e-8);
    }
    char lr_text[32];
    std::snprintf(lr_text, sizeof lr_text, "%g", lr);
    if (!next[k].cast<float>().allFinite())
      return Status{"train: step " + std::to_string(step) + " would take " + params[k].name +
                    " past float32's range (the learning rate " + lr_text + " is too large)"};
    const float width = static_cast<float>(next[k](0, 0));
    if (params[k].width && !(width > 0.0f && width <= kMaxSigma)) {
      char to[32];
      std::snprintf(to, sizeof to, "%.3g", static_cast<double>(width));
      return Status{"train: step " + std::to_string(step) + " would take " + params[k].name +
                    " to " + to + ", outside (0, 1000] (the learning rate " + lr_text +
                    " is too large)"};
    }
  }
  ++steps;
  for (size_t k = 0; k < n; ++k) {
    if (!params[k].weight->size()) continue;
    *params[k].weight = next[k].cast<float>();
    if (kind == Kind::kAdam) {
      const MatrixD& dw = *params[k].gradient;
      m1_[k] = 0.9 * m1_[k] + 0.1 * dw;
      m2_[k] = 0.999 * m2_[k] + 0.001 * dw.cwiseProduct(dw);
    }
  }
  return Status{};
}

}  // namespace attn
