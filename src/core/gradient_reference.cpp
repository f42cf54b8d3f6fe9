// attn::gradients_reference and attn::step_gradients: the backward pass in float64 with Eigen,
// over the same float32 forward trace, which the float32 one (gradient.cpp) is tested against
// (tests/core/gradient_test.cpp), and the step view's per-cell gradients.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "core/gradient.h"

namespace attn {

namespace {

MatrixD d(const Matrix& m) {
  return m.cast<double>();
}

}  // namespace

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
  MatrixD Mk = d(ht.masked[b]);
  // Gumbel: the softmax is of (masked + g) / tau at the visible cells (a masked one keeps
  // mask_value), so a score's gradient through it carries 1/tau.
  const bool noisy = gumbel(p);
  const double over_tau = noisy ? 1.0 / static_cast<double>(p.gumbel_tau) : 1.0;
  if (noisy)
    for (int i = 0; i < Mk.rows(); ++i)
      for (int j = 0; j < Mk.cols(); ++j)
        if (!is_masked(p.mask, b, i, j))
          Mk(i, j) =
              (Mk(i, j) + gumbel_noise(p.gumbel_seed, h, b, i, j, B, static_cast<int>(Mk.rows()),
                                       static_cast<int>(Mk.cols()))) *
              over_tau;
  MatrixD A(Mk.rows(), Mk.cols());
  for (int i = 0; i < Mk.rows(); ++i) {
    const double mx = Mk.row(i).maxCoeff();  // finite: check_gradient
    // std::exp, not Eigen's vectorised exp: that clamps its argument and turns e^-1e6
    // into a subnormal, where the core's masked weights are exactly 0.
    for (int j = 0; j < Mk.cols(); ++j) A(i, j) = std::exp(Mk(i, j) - mx);
    A.row(i) /= A.row(i).sum();
  }
  MatrixD keep = MatrixD::Ones(A.rows(), A.cols());
  if (p.dropout_p > 0.0f) {
    const double k = 1.0 / (1.0 - static_cast<double>(p.dropout_p));
    for (int i = 0; i < A.rows(); ++i)
      for (int j = 0; j < A.cols(); ++j)
        keep(i, j) = dropout_draw(p.dropout_seed, h, b, i, j, B, static_cast<int>(A.rows()),
                                  static_cast<int>(A.cols())) < p.dropout_p
                         ? 0.0
                         : k;
  }
  HeadSteps s;
  // Straight through (and Gumbel's one-hot): the trace's one-hot weights (after dropout)
  // multiplied the values; A stands in for them below. Gumbel's soft weights are A itself.
  s.Aused = p.hard && !(noisy && p.gumbel_soft) ? d(ht.weights[b]) : A.cwiseProduct(keep);
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
      dM(i, j) = A(i, j) * (dA(i, j) - dot) * over_tau;
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

namespace {

// The backward pass from dY, the loss's gradient with respect to each batch item's output:
// gradients_reference() and backward_reference() in one.
Status reference_from(const Problem& p, const Trace& t, const BatchD& dYs, double loss,
                      Gradients* out) {
  const int B = static_cast<int>(t.output.size());
  const Weights& w = p.weights;
  const HeadShape hs = head_shape(p);
  const int H = p.heads;

  Gradients g;
  g.loss = loss;
  const auto zeros_like = [](const Matrix& m) { return MatrixD::Zero(m.rows(), m.cols()); };
  if (w.W_q.size()) g.W_q = zeros_like(w.W_q);
  if (w.W_k.size()) g.W_k = zeros_like(w.W_k);
  if (w.W_v.size()) g.W_v = zeros_like(w.W_v);
  if (w.W_o.size()) g.W_o = zeros_like(w.W_o);
  if (w.W.size()) g.W = zeros_like(w.W);
  if (w.w_v.size()) g.w_v = Eigen::VectorXd::Zero(w.w_v.size());
  const bool additive = p.scoring == Scoring::kAdditive;

  for (int b = 0; b < B; ++b) {
    const MatrixD& dY = dYs[b];
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
        case Scoring::kGaussian: {  // S_ij = −|q_i − k_j|² / (2σ²)
          const double sigma = w.sigma, inv_s2 = 1.0 / (sigma * sigma);
          for (int i = 0; i < q.rows(); ++i)
            for (int j = 0; j < k.rows(); ++j) {
              if (dS(i, j) == 0.0) continue;
              const Eigen::RowVectorXd diff = q.row(i) - k.row(j);
              dq.row(i) -= dS(i, j) * inv_s2 * diff;
              dk.row(j) += dS(i, j) * inv_s2 * diff;
              // ∂S/∂σ = |q − k|² / σ³, from the distance itself (not the float32 score).
              g.sigma += dS(i, j) * diff.squaredNorm() / (sigma * sigma * sigma);
            }
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
  *out = std::move(g);
  return Status{};
}

}  // namespace

Status gradients_reference(const Problem& p, const Batch& target, Gradients* out) {
  Trace t;
  const Status st = forward_for_gradients(p, target, &t);
  if (!st.ok()) return st;
  double count = 0.0, loss = 0.0;
  for (const Matrix& m : t.output) count += static_cast<double>(m.size());
  BatchD dY;
  for (size_t b = 0; b < t.output.size(); ++b) {
    const MatrixD diff = d(t.output[b]) - d(target[b]);
    loss += diff.squaredNorm();
    dY.push_back(2.0 * diff / count);
  }
  return reference_from(p, t, dY, loss / count, out);
}

Status backward_reference(const Problem& p, const Trace& t, const BatchD& dY, Gradients* out) {
  Status st = check_gradient(p);
  if (!st.ok()) return st;
  Batch shape;  // dY's shape, checked as a target's
  for (const MatrixD& m : dY) shape.push_back(Matrix::Zero(m.rows(), m.cols()));
  st = check_gradient(p, t, shape);
  if (!st.ok()) return st;
  return reference_from(p, t, dY, 0.0, out);
}

}  // namespace attn
