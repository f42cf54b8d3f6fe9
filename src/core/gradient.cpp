#include "core/gradient.h"

#include <cmath>

namespace attn {

namespace {

MatrixD d(const Matrix& m) {
  return m.cast<double>();
}

}  // namespace

Status check_gradient(const Problem& p) {
  if (p.scoring != Scoring::kDot && p.scoring != Scoring::kScaledDot)
    return Status{std::string("grad: ") + scoring_name(p.scoring) +
                  " scoring is not differentiated yet (dot and scaled_dot are)"};
  if (p.hard) return Status{"grad: hard attention picks one key by argmax, which has no gradient"};
  if (p.dropout_p > 0.0f) return Status{"grad: dropout is not differentiated yet"};
  return Status{};
}

Status gradients(const Problem& p, const Batch& target, Gradients* out) {
  Status st = check_gradient(p);
  if (!st.ok()) return st;
  st = validate(p);
  if (!st.ok()) return st;
  const Trace t = run(p);
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
  const Weights& w = p.weights;
  const HeadShape hs = head_shape(p);
  const double scale = hs.scale;
  const int H = p.heads;

  Gradients g;
  double count = 0.0;
  for (int b = 0; b < B; ++b) count += static_cast<double>(t.output[b].size());
  const auto zeros_like = [](const Matrix& m) { return MatrixD::Zero(m.rows(), m.cols()); };
  if (w.W_q.size()) g.W_q = zeros_like(w.W_q);
  if (w.W_k.size()) g.W_k = zeros_like(w.W_k);
  if (w.W_v.size()) g.W_v = zeros_like(w.W_v);
  if (w.W_o.size()) g.W_o = zeros_like(w.W_o);

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
      const MatrixD A = d(ht.weights[b]);
      const MatrixD dO = dConcat.middleCols(h * hs.dv, hs.dv);
      const MatrixD dA = dO * d(ht.v[b]).transpose();
      dVp.middleCols(h * hs.dv, hs.dv) += A.transpose() * dO;
      // Softmax: dM = A ⊙ (dA − Σ_j dA ⊙ A); masked cells are constants, they pass nothing.
      MatrixD dS(A.rows(), A.cols());
      for (int i = 0; i < A.rows(); ++i) {
        if (!A.row(i).allFinite())
          return Status{"grad: row " + std::to_string(i + 1) + " of batch item " +
                        std::to_string(b + 1) + (H > 1 ? " in head " + std::to_string(h + 1) : "") +
                        " is fully masked under -inf: its weights are undefined (NaN), and so is "
                        "their gradient"};
        const double dot = A.row(i).dot(dA.row(i));
        for (int j = 0; j < A.cols(); ++j)
          dS(i, j) = is_masked(p.mask, b, i, j) ? 0.0 : scale * A(i, j) * (dA(i, j) - dot);
      }
      dQp.middleCols(h * hs.dq, hs.dq) += dS * d(ht.k[b]);
      dKp.middleCols(h * hs.dk, hs.dk) += dS.transpose() * d(ht.q[b]);
    }
    const auto back = [](const MatrixD& dP, const Matrix& X, const Matrix& W, MatrixD* dW) {
      if (!W.size()) return dP;
      *dW += d(X).transpose() * dP;
      return MatrixD(dP * d(W).transpose());
    };
    g.queries.push_back(back(dQp, t.queries[b], w.W_q, &g.W_q));
    g.keys.push_back(back(dKp, t.keys[b], w.W_k, &g.W_k));
    g.values.push_back(back(dVp, t.values[b], w.W_v, &g.W_v));
  }
  g.loss /= count;
  *out = std::move(g);
  return Status{};
}

}  // namespace attn
