// attn::gradients_reference, the float64 backward pass that the float32 one (gradient_fast.cpp)
// is tested against; the checks both share; and attn::Optimizer, which steps with the float32
// attn::gradients.
#include "core/gradient.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

namespace attn {

namespace {

MatrixD d(const Matrix& m) {
  return m.cast<double>();
}

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

Status check_gradient(const Problem& p) {
  if (p.hard) return Status{"grad: hard attention picks one key by argmax, which has no gradient"};
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
      {"w_v", finite(g.w_v)}};
  for (const auto& [name, ok] : parts)
    if (!ok)
      return Status{std::string("grad: the gradient of ") + name +
                    " is not finite: it overflows float32"};
  return Status{};
}

namespace {

// One head's backward from dConcat (batch item b's gradient of the heads' concatenation) to
// its raw scores, in float64, for gradients_reference and step_gradients: the one place these
// steps are written in float64.
struct HeadSteps {
  MatrixD dO;     // the head's output
  MatrixD Aused;  // its weights as they multiplied the values (after dropout)
  MatrixD dS;     // the raw scores
};

HeadSteps head_steps(const Problem& p, const Trace& t, const MatrixD& dConcat, int h, int b,
                     StepGradients* view) {
  const HeadShape hs = head_shape(p);
  const double scale = hs.scale;
  const int B = static_cast<int>(t.output.size());
  const HeadTrace& ht = t.heads[h];
  // The weights as the softmax made them (dropout rescales a fixed set of them after).
  const MatrixD Mk = d(ht.masked[b]);
  MatrixD A(Mk.rows(), Mk.cols());
  for (int i = 0; i < Mk.rows(); ++i) {
    const double mx = Mk.row(i).maxCoeff();  // finite: check_gradient
    // std::exp, not Eigen's vectorised exp: that clamps its argument and turns e^-1e6
    // into a subnormal, where the core's masked weights are exactly 0.
    for (int j = 0; j < Mk.cols(); ++j) A(i, j) = std::exp(Mk(i, j) - mx);
    A.row(i) /= A.row(i).sum();
  }
  HeadSteps s;
  s.Aused = A;
  MatrixD keep = MatrixD::Ones(A.rows(), A.cols());
  if (p.dropout_p > 0.0f) {
    const double k = 1.0 / (1.0 - static_cast<double>(p.dropout_p));
    for (int i = 0; i < A.rows(); ++i)
      for (int j = 0; j < A.cols(); ++j)
        keep(i, j) = dropout_draw(p.dropout_seed, h, b, i, j, B, static_cast<int>(A.rows()),
                                  static_cast<int>(A.cols())) < p.dropout_p
                         ? 0.0
                         : k;
    s.Aused = A.cwiseProduct(keep);
  }
  s.dO = dConcat.middleCols(h * hs.dv, hs.dv);
  const MatrixD dAused = s.dO * d(ht.v[b]).transpose();
  const MatrixD dA = dAused.cwiseProduct(keep);
  // Softmax: dM = A ⊙ (dA − Σ_j dA ⊙ A); masked cells are constants, they pass nothing.
  MatrixD dM(A.rows(), A.cols());
  s.dS.resize(A.rows(), A.cols());
  if (view) view->scaled.resize(A.rows(), A.cols());
  for (int i = 0; i < A.rows(); ++i) {
    const double dot = A.row(i).dot(dA.row(i));
    for (int j = 0; j < A.cols(); ++j) {
      dM(i, j) = A(i, j) * (dA(i, j) - dot);
      const double scaled = is_masked(p.mask, b, i, j) ? 0.0 : dM(i, j);
      s.dS(i, j) = scale * scaled;
      if (view) view->scaled(i, j) = scaled;
    }
  }
  if (view) {
    view->output = s.dO;
    view->weights = dAused;
    view->masked = std::move(dM);
    view->scores = s.dS;
  }
  return s;
}

// dConcat of batch item b: dY = 2·(output − target)/count, through W_o when there is one.
MatrixD concat_gradient(const Problem& p, const Trace& t, const Batch& target, int b) {
  double count = 0.0;
  for (const Matrix& m : t.output) count += static_cast<double>(m.size());
  const MatrixD dY = 2.0 * (d(t.output[b]) - d(target[b])) / count;
  const Matrix& W_o = p.weights.W_o;
  return W_o.size() ? MatrixD(dY * d(W_o).transpose()) : dY;
}

}  // namespace

Status step_gradients(const Problem& p, const Trace& t, const Batch& target, int h, int b,
                      StepGradients* out) {
  Status st = check_gradient(p);
  if (!st.ok()) return st;
  st = check_gradient(p, t, target);
  if (!st.ok()) return st;
  if (h < 0 || h >= static_cast<int>(t.heads.size()))
    return Status{"grad: head " + std::to_string(h + 1) + " does not exist"};
  if (b < 0 || b >= static_cast<int>(t.output.size()))
    return Status{"grad: batch item " + std::to_string(b + 1) + " does not exist"};
  StepGradients g;
  head_steps(p, t, concat_gradient(p, t, target, b), h, b, &g);
  *out = std::move(g);
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

Status gradients_reference(const Problem& p, const Batch& target, Gradients* out) {
  Trace t;
  const Status st = forward_for_gradients(p, target, &t);
  if (!st.ok()) return st;
  const int B = static_cast<int>(t.output.size());
  const Weights& w = p.weights;
  const HeadShape hs = head_shape(p);
  const int H = p.heads;

  Gradients g;
  double count = 0.0;
  for (int b = 0; b < B; ++b) count += static_cast<double>(t.output[b].size());
  const auto zeros_like = [](const Matrix& m) { return MatrixD::Zero(m.rows(), m.cols()); };
  if (w.W_q.size()) g.W_q = zeros_like(w.W_q);
  if (w.W_k.size()) g.W_k = zeros_like(w.W_k);
  if (w.W_v.size()) g.W_v = zeros_like(w.W_v);
  if (w.W_o.size()) g.W_o = zeros_like(w.W_o);
  if (w.W.size()) g.W = zeros_like(w.W);
  if (w.w_v.size()) g.w_v = Eigen::VectorXd::Zero(w.w_v.size());
  const bool additive = p.scoring == Scoring::kAdditive;

  for (int b = 0; b < B; ++b) {
    const MatrixD diff = d(t.output[b]) - d(target[b]);
    g.loss += diff.squaredNorm();
    const MatrixD dY = 2.0 * diff / count;
    MatrixD dConcat = dY;
    if (w.W_o.size()) {
      g.W_o += d(t.concat[b]).transpose() * dY;
      dConcat = dY * d(w.W_o).transpose();
    }
    MatrixD dQp = zeros_like(t.q_proj[b]), dKp = zeros_like(t.k_proj[b]),
            dVp = zeros_like(t.v_proj[b]);
    for (int h = 0; h < H; ++h) {
      const HeadTrace& ht = t.heads[h];
      const HeadSteps steps = head_steps(p, t, dConcat, h, b, nullptr);
      const MatrixD& dS = steps.dS;
      dVp.middleCols(h * hs.dv, hs.dv) += steps.Aused.transpose() * steps.dO;
      const MatrixD q = d(ht.q[b]), k = d(ht.k[b]);
      auto dq = dQp.middleCols(h * hs.dq, hs.dq);
      auto dk = dKp.middleCols(h * hs.dk, hs.dk);
      switch (p.scoring) {
        case Scoring::kDot:
        case Scoring::kScaledDot:
          dq += dS * k;
          dk += dS.transpose() * q;
          break;
        case Scoring::kGeneral: {  // S = q W kᵀ
          const MatrixD W = d(w.W);
          dq += dS * k * W.transpose();
          dk += dS.transpose() * q * W;
          g.W += q.transpose() * dS * k;
          break;
        }
        case Scoring::kCosine: {  // S = q̂ k̂ᵀ; a zero vector scores 0 whatever it meets
          const Eigen::VectorXd nq = q.rowwise().norm(), nk = k.rowwise().norm();
          for (int i = 0; i < q.rows(); ++i)
            for (int j = 0; j < k.rows(); ++j) {
              if (nq(i) == 0.0 || nk(j) == 0.0 || dS(i, j) == 0.0) continue;
              const double s = q.row(i).dot(k.row(j)) / (nq(i) * nk(j));
              dq.row(i) += dS(i, j) * (k.row(j) / nk(j) - s * q.row(i) / nq(i)) / nq(i);
              dk.row(j) += dS(i, j) * (q.row(i) / nq(i) - s * k.row(j) / nk(j)) / nk(j);
            }
          break;
        }
        case Scoring::kAdditive: {  // S_ij = Σ_u w_v[u] tanh(q_i W_q[:, u] + k_j W_k[:, u])
          const MatrixD Wq = d(w.W_q), Wk = d(w.W_k);
          const Eigen::VectorXd wv = w.w_v.cast<double>();
          const MatrixD qa = q * Wq, ka = k * Wk;  // n_q × hidden, n_k × hidden
          for (int i = 0; i < q.rows(); ++i)
            for (int j = 0; j < k.rows(); ++j) {
              if (dS(i, j) == 0.0) continue;
              const Eigen::RowVectorXd th = (qa.row(i) + ka.row(j)).array().tanh().matrix();
              g.w_v += dS(i, j) * th.transpose();
              const Eigen::RowVectorXd dz =
                  dS(i, j) * (wv.transpose().array() * (1.0 - th.array().square())).matrix();
              g.W_q += q.row(i).transpose() * dz;
              g.W_k += k.row(j).transpose() * dz;
              dq.row(i) += dz * Wq.transpose();
              dk.row(j) += dz * Wk.transpose();
            }
          break;
        }
      }
    }
    const auto back = [](const MatrixD& dP, const Matrix& X, const Matrix& W, MatrixD* dW) {
      if (!W.size()) return dP;
      *dW += d(X).transpose() * dP;
      return MatrixD(dP * d(W).transpose());
    };
    // Additive scoring's W_q and W_k belong to its scorer (done above), not to projections.
    static const Matrix kNone;
    g.queries.push_back(back(dQp, t.queries[b], additive ? kNone : w.W_q, &g.W_q));
    g.keys.push_back(back(dKp, t.keys[b], additive ? kNone : w.W_k, &g.W_k));
    g.values.push_back(back(dVp, t.values[b], w.W_v, &g.W_v));
  }
  g.loss /= count;
  *out = std::move(g);
  return Status{};
}

Status Optimizer::step(Problem* p, const Batch& target, double* loss) {
  Vector& wv = p->weights.w_v;
  Matrix w_v = wv;  // a vector, stepped as a one-column matrix
  Matrix* params[] = {&p->weights.W_q, &p->weights.W_k, &p->weights.W_v,
                      &p->weights.W_o, &p->weights.W,   &w_v};
  bool any = false;
  for (Matrix* m : params) any = any || m->size() > 0;
  if (!any)
    return Status{"train: the scenario has no weights to learn (give \"init\" or W_q, W_k, W_v)"};
  Gradients g;
  const Status st = gradients(*p, target, &g);
  if (!st.ok()) return st;
  *loss = g.loss;
  const MatrixD gw_v = g.w_v;
  const MatrixD* grads[] = {&g.W_q, &g.W_k, &g.W_v, &g.W_o, &g.W, &gw_v};
  if (m1_.empty())
    for (Matrix* m : params) {
      m1_.push_back(MatrixD::Zero(m->rows(), m->cols()));
      m2_.push_back(MatrixD::Zero(m->rows(), m->cols()));
    }
  // The new weights are made aside, the moments only once they are taken: a step that would
  // take a weight past float32 is refused, and changes nothing.
  const int step = steps + 1;
  const double c1 = 1.0 - std::pow(0.9, step), c2 = 1.0 - std::pow(0.999, step);
  MatrixD next[6];
  for (int k = 0; k < 6; ++k) {
    if (!params[k]->size()) continue;
    const MatrixD& dw = *grads[k];
    next[k] = params[k]->cast<double>();
    if (kind == Kind::kSgd) {
      next[k] -= lr * dw;
    } else {
      next[k].array() -=
          lr * ((0.9 * m1_[k] + 0.1 * dw).array() / c1) /
          (((0.999 * m2_[k] + 0.001 * dw.cwiseProduct(dw)).array() / c2).sqrt() + 1e-8);
    }
    if (!next[k].cast<float>().allFinite()) {
      static const char* const kNames[] = {"W_q", "W_k", "W_v", "W_o", "W", "w_v"};
      char lr_text[32];
      std::snprintf(lr_text, sizeof lr_text, "%g", lr);
      return Status{"train: step " + std::to_string(step) + " would take " + kNames[k] +
                    " past float32's range (the learning rate " + lr_text + " is too large)"};
    }
  }
  ++steps;
  for (int k = 0; k < 6; ++k) {
    if (!params[k]->size()) continue;
    *params[k] = next[k].cast<float>();
    if (kind == Kind::kAdam) {
      const MatrixD& dw = *grads[k];
      m1_[k] = 0.9 * m1_[k] + 0.1 * dw;
      m2_[k] = 0.999 * m2_[k] + 0.001 * dw.cwiseProduct(dw);
    }
  }
  if (w_v.size()) wv = w_v.col(0);
  return Status{};
}

}  // namespace attn
