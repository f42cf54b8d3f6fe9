// A plain float64 reference of the whole attention pipeline, written with loops and no Eigen,
// to check every intermediate of attn::run. It shares nothing with the core but the Problem
// it reads, the specified dropout stream (attn::uniform01) and Gumbel's noise
// (attn::gumbel_noise).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/attention.h"
#include "core/random.h"
#include "core/stack.h"

namespace ref {

using Mat = std::vector<std::vector<double>>;  // [rows][cols]
using Bat = std::vector<Mat>;                  // [batch][rows][cols]

inline Mat from(const attn::Matrix& m) {
  Mat r(m.rows(), std::vector<double>(m.cols()));
  for (int i = 0; i < m.rows(); ++i)
    for (int j = 0; j < m.cols(); ++j) r[i][j] = m(i, j);
  return r;
}

inline Bat from(const attn::Batch& b) {
  Bat r;
  for (const auto& m : b) r.push_back(from(m));
  return r;
}

inline Mat matmul(const Mat& a, const Mat& b) {
  const size_t n = a.size(), k = b.size(), m = b.empty() ? 0 : b[0].size();
  Mat c(n, std::vector<double>(m, 0.0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) {
      double s = 0.0;
      for (size_t t = 0; t < k; ++t) s += a[i][t] * b[t][j];
      c[i][j] = s;
    }
  return c;
}

inline Mat cols(const Mat& a, size_t first, size_t count) {
  Mat r(a.size(), std::vector<double>(count));
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < count; ++j) r[i][j] = a[i][first + j];
  return r;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

inline Mat pe(size_t rows, size_t d, double base) {
  Mat r(rows, std::vector<double>(d));
  for (size_t p = 0; p < rows; ++p)
    for (size_t c = 0; c < d; ++c) {
      const double i2 = static_cast<double>(c / 2 * 2);
      const double angle = static_cast<double>(p) / std::pow(base, i2 / static_cast<double>(d));
      r[p][c] = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  return r;
}

struct Head {
  Bat scores, scaled, masked, weights, output;
  Bat soft;  // the softmax of the masked scores (before dropout), also under hard attention
             // (Gumbel: of the noisy scores over tau)
};

struct Trace {
  std::vector<Head> heads;
  Bat concat, output;
};

inline bool masked(const attn::MaskSpec& m, int b, int i, int j) {
  if (!m.valid_lens.empty()) {
    const auto& lens = m.valid_lens[b];
    const int len = lens.size() == 1 ? lens[0] : lens[i];
    if (j >= len) return true;
  }
  if (m.causal && j > i) return true;
  if (m.window >= 0 && std::abs(i - j) > m.window) return true;
  for (const auto& c : m.cells)
    if (c[0] == b && c[1] == i && c[2] == j) return true;
  return false;
}

// The forward pass in float64. With `soft0` (one batch per head) and hard attention, the
// straight-through estimator's surrogate: each row's one-hot weights plus its softmax minus
// soft0's, which at soft0 = the softmax there equals the hard forward, and whose derivative is
// what the straight-through backward computes.
// The same over inputs given in float64 (p's own inputs and positional encoding unused): what
// a stack of layers (run_stack) runs each layer on.
inline Trace run_on(const attn::Problem& p, const Bat& Q, const Bat& K, const Bat& V,
                    const std::vector<Bat>* soft0 = nullptr);

inline Trace run(const attn::Problem& p, const std::vector<Bat>* soft0 = nullptr) {
  Bat Q = from(p.queries), K = from(p.keys), V = from(p.values);
  if (p.positional_encoding) {
    for (Bat* x : {&Q, &K, &V})
      for (auto& m : *x) {
        const Mat e = pe(m.size(), m[0].size(), p.pe_base);
        for (size_t i = 0; i < m.size(); ++i)
          for (size_t j = 0; j < m[i].size(); ++j) m[i][j] += e[i][j];
      }
  }
  return run_on(p, Q, K, V, soft0);
}

inline Trace run_on(const attn::Problem& p, const Bat& Q, const Bat& K, const Bat& V,
                    const std::vector<Bat>* soft0) {
  const size_t B = Q.size();
  const attn::Weights& w = p.weights;
  const bool additive = p.scoring == attn::Scoring::kAdditive;
  auto project = [](Bat x, const attn::Matrix& W) {
    if (W.size())
      for (auto& m : x) m = matmul(m, from(W));
    return x;
  };
  const Bat Qp = additive ? Q : project(Q, w.W_q);
  const Bat Kp = additive ? K : project(K, w.W_k);
  const Bat Vp = project(V, w.W_v);
  const size_t H = p.heads;
  const size_t dq = Qp[0][0].size() / H, dk = Kp[0][0].size() / H, dv = Vp[0][0].size() / H;

  Trace t;
  t.heads.resize(H);
  t.concat.assign(B, Mat(Qp[0].size(), std::vector<double>(dv * H)));
  for (size_t h = 0; h < H; ++h) {
    Head& hd = t.heads[h];
    for (size_t b = 0; b < B; ++b) {
      const Mat q = cols(Qp[b], h * dq, dq), k = cols(Kp[b], h * dk, dk);
      const Mat v = cols(Vp[b], h * dv, dv);
      const size_t nq = q.size(), nk = k.size();
      Mat s(nq, std::vector<double>(nk));
      for (size_t i = 0; i < nq; ++i)
        for (size_t j = 0; j < nk; ++j) {
          switch (p.scoring) {
            case attn::Scoring::kDot:
            case attn::Scoring::kScaledDot:
              s[i][j] = dot(q[i], k[j]);
              break;
            case attn::Scoring::kCosine: {
              const double nqi = std::sqrt(dot(q[i], q[i])), nkj = std::sqrt(dot(k[j], k[j]));
              s[i][j] = nqi > 0 && nkj > 0 ? dot(q[i], k[j]) / (nqi * nkj) : 0.0;
              break;
            }
            case attn::Scoring::kGaussian: {  // −|q − k|² / (2σ²)
              double dist = 0.0;
              for (size_t c = 0; c < dq; ++c) dist += (q[i][c] - k[j][c]) * (q[i][c] - k[j][c]);
              const double sigma = w.sigma;
              s[i][j] = -dist / (2.0 * sigma * sigma);
              break;
            }
            case attn::Scoring::kGeneral: {
              const Mat W = from(w.W);
              double acc = 0.0;
              for (size_t a = 0; a < dq; ++a)
                for (size_t c = 0; c < dk; ++c) acc += q[i][a] * W[a][c] * k[j][c];
              s[i][j] = acc;
              break;
            }
            case attn::Scoring::kAdditive: {
              const Mat Wq = from(w.W_q), Wk = from(w.W_k);
              double acc = 0.0;
              for (int u = 0; u < w.w_v.size(); ++u) {
                double z = 0.0;
                for (size_t a = 0; a < dq; ++a) z += q[i][a] * Wq[a][u];
                for (size_t c = 0; c < dk; ++c) z += k[j][c] * Wk[c][u];
                acc += w.w_v(u) * std::tanh(z);
              }
              s[i][j] = acc;
              break;
            }
          }
        }
      Mat sc = s;
      double scale = 1.0 / p.temperature;
      if (p.scoring == attn::Scoring::kScaledDot) scale /= std::sqrt(static_cast<double>(dk));
      for (auto& row : sc)
        for (double& x : row) x *= scale;
      Mat mk = sc;
      for (size_t i = 0; i < nq; ++i)
        for (size_t j = 0; j < nk; ++j)
          if (masked(p.mask, b, i, j)) mk[i][j] = p.mask.mask_value;
      Mat wt(nq, std::vector<double>(nk, 0.0));
      Mat soft(nq, std::vector<double>(nk, 0.0));
      const bool noisy = attn::gumbel(p);
      for (size_t i = 0; i < nq; ++i) {
        // Gumbel: the argmax is of y = masked + noise, the softmax of y / tau (at the visible
        // cells; a masked one keeps mask_value in both).
        std::vector<double> y = mk[i], z = mk[i];
        if (noisy)
          for (size_t j = 0; j < nk; ++j)
            if (!masked(p.mask, static_cast<int>(b), static_cast<int>(i), static_cast<int>(j))) {
              y[j] +=
                  attn::gumbel_noise(p.gumbel_seed, static_cast<int>(h), static_cast<int>(b),
                                     static_cast<int>(i), static_cast<int>(j), static_cast<int>(B),
                                     static_cast<int>(nq), static_cast<int>(nk));
              z[j] = y[j] / p.gumbel_tau;
            }
        double mx = -std::numeric_limits<double>::infinity();
        size_t arg = 0;
        for (size_t j = 0; j < nk; ++j)
          if (y[j] > mx) mx = y[j], arg = j;
        if (mx == -std::numeric_limits<double>::infinity()) {
          for (double& x : wt[i]) x = std::numeric_limits<double>::quiet_NaN();
        } else {
          const double mz = *std::max_element(z.begin(), z.end());
          double sum = 0.0;
          for (size_t j = 0; j < nk; ++j) sum += soft[i][j] = std::exp(z[j] - mz);
          for (double& x : soft[i]) x /= sum;
          if (!p.hard || (noisy && p.gumbel_soft)) {
            wt[i] = soft[i];
          } else {
            wt[i][arg] = 1.0;
            if (soft0)
              for (size_t j = 0; j < nk; ++j) wt[i][j] += soft[i][j] - (*soft0)[h][b][i][j];
          }
        }
        if (p.dropout_p > 0) {
          for (size_t j = 0; j < nk; ++j) {
            const uint64_t index = ((h * B + b) * nq + i) * nk + j;
            const bool drop = attn::uniform01(p.dropout_seed, index) < p.dropout_p;
            wt[i][j] = drop ? 0.0 : wt[i][j] / (1.0 - p.dropout_p);
          }
        }
      }
      const Mat out = matmul(wt, v);
      for (size_t i = 0; i < nq; ++i)
        for (size_t j = 0; j < dv; ++j) t.concat[b][i][h * dv + j] = out[i][j];
      hd.scores.push_back(s);
      hd.scaled.push_back(sc);
      hd.masked.push_back(mk);
      hd.weights.push_back(wt);
      hd.soft.push_back(soft);
      hd.output.push_back(out);
    }
  }
  t.output = project(t.concat, w.W_o);
  return t;
}

// A stack of layers (core/stack.h) in float64: h₀ = x (+ PE), h_{l+1} = h_l + layer_l(h_l).
// Returns h_L.
inline Bat run_stack(const attn::Stack& s) {
  Bat h;
  if (s.token_model()) {  // each token's row of embed
    const Mat E = from(s.tokens.embed);
    for (const auto& ids : s.tokens.ids) {
      Mat m;
      for (int id : ids) m.push_back(E[id]);
      h.push_back(m);
    }
  } else {
    h = from(s.base.queries);
  }
  if (s.base.positional_encoding)
    for (auto& m : h) {
      const Mat e = pe(m.size(), m[0].size(), s.base.pe_base);
      for (size_t i = 0; i < m.size(); ++i)
        for (size_t j = 0; j < m[i].size(); ++j) m[i][j] += e[i][j];
    }
  for (int l = 0; l < static_cast<int>(s.layers.size()); ++l) {
    const attn::Problem p = attn::layer_problem(s, l, attn::Batch{});  // settings, weights
    const Trace t = run_on(p, h, h, h);
    for (size_t b = 0; b < h.size(); ++b)
      for (size_t i = 0; i < h[b].size(); ++i)
        for (size_t j = 0; j < h[b][i].size(); ++j) h[b][i][j] += t.output[b][i][j];
  }
  return h;
}

// A stack's loss in float64: mean((h_L − target)²), or a token model's mean cross-entropy of
// its next tokens (logits h_L · unembed).
inline double stack_loss(const attn::Stack& s, const attn::Batch& target) {
  const Bat h = run_stack(s);
  double sum = 0.0, count = 0.0;
  if (s.token_model()) {
    const Mat U = from(s.tokens.unembed);
    for (size_t b = 0; b < h.size(); ++b) {
      const Mat z = matmul(h[b], U);
      for (size_t i = 0; i < z.size(); ++i) {
        const int n = s.tokens.next[b][i];
        if (n < 0) continue;
        double mx = z[i][0], e = 0.0;
        for (double v : z[i]) mx = std::max(mx, v);
        for (double v : z[i]) e += std::exp(v - mx);
        sum += std::log(e) - (z[i][n] - mx);
        count += 1.0;
      }
    }
    return sum / count;
  }
  for (size_t b = 0; b < h.size(); ++b)
    for (size_t i = 0; i < h[b].size(); ++i)
      for (size_t j = 0; j < h[b][i].size(); ++j) {
        const double e = h[b][i][j] - target[b](static_cast<int>(i), static_cast<int>(j));
        sum += e * e;
        count += 1.0;
      }
  return sum / count;
}

}  // namespace ref
