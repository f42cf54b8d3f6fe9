// The arithmetic behind one cell of the pipeline, written out line by line (explain_cell).
#include "app/text/explain.h"

#include <cmath>
#include <limits>

#include "app/text/explain_internal.h"
#include "app/text/i18n.h"

namespace ui {

using detail::kDot;
using detail::kTimes;

namespace {

// A factor inside a product: negative numbers get parentheses.
std::string factor(float v) {
  return v < 0 ? "(" + num(v) + ")" : num(v);
}

// "a + b + … + z" over n terms, eliding the middle when there are many.
template <typename Term>
std::string sum_of(int n, Term term) {
  std::string s;
  const bool elide = n > 6;
  for (int t = 0; t < n; ++t) {
    if (elide && t == 4) {
      s += " + …";
      t = n - 2;
      continue;
    }
    if (t) s += " + ";
    s += term(t);
  }
  if (elide) s += printf_text("  (%d terms)", n);
  return s;
}

// Σ_t a[t]·b[t] with the terms written out, and the result.
std::string dot_terms(const float* a, int stride_a, const float* b, int stride_b, int n) {
  return sum_of(n,
                [&](int t) { return factor(a[t * stride_a]) + kTimes + factor(b[t * stride_b]); });
}

std::vector<std::string> explain_softmax(const attn::Problem& p, const attn::HeadTrace& ht,
                                         int head, int b, int i, int j) {
  std::vector<std::string> lines;
  const attn::Matrix& m = ht.masked[b];
  const int n_k = static_cast<int>(m.cols());
  const float w = ht.weights[b](i, j);
  double mx = -std::numeric_limits<double>::infinity();
  int arg = 0;
  for (int c = 0; c < n_k; ++c)
    if (m(i, c) > mx) mx = m(i, c), arg = c;
  const std::string reason = mask_reason_text(p.mask, b, i, j);
  if (std::isinf(mx) && mx < 0) {
    lines.push_back(T("every key of this row is masked with \xe2\x88\x92\xe2\x88\x9e:"));
    lines.push_back(
        T("exp(\xe2\x88\x92\xe2\x88\x9e \xe2\x88\x92 (\xe2\x88\x92\xe2\x88\x9e)) is undefined, so "
          "the weights are NaN"));
    return lines;
  }
  if (p.hard) {
    lines.push_back(
        printf_text(T("hard attention: the largest score of row %d is at key %d"), i + 1, arg + 1));
    lines.push_back(
        printf_text("w%s%s = %s", sub(i).c_str(), sub(j).c_str(), j == arg ? "1" : "0"));
  } else {
    double sum = 0.0;
    for (int c = 0; c < n_k; ++c) sum += std::exp(static_cast<double>(m(i, c)) - mx);
    const double e = std::exp(static_cast<double>(m(i, j)) - mx);
    bool all_masked = true;
    for (int c = 0; c < n_k; ++c) all_masked = all_masked && attn::is_masked(p.mask, b, i, c);
    if (all_masked) {
      lines.push_back(T("every key of this row is masked: all scores are ") +
                      num(p.mask.mask_value) + T(", so the softmax is uniform"));
      lines.push_back(
          printf_text("\xce\xb1 = 1 / %d = %s", n_k, num(static_cast<float>(1.0 / n_k)).c_str()));
    } else {
      lines.push_back(T("row maximum m = ") + num(static_cast<float>(mx)));
      if (!reason.empty()) lines.push_back(T("masked (") + reason + T("): score ") + num(m(i, j)));
      lines.push_back("exp(" + num(m(i, j)) + " \xe2\x88\x92 " + num(static_cast<float>(mx)) +
                      ") = " + num(static_cast<float>(e)));
      lines.push_back(T("softmax sum \xce\xa3 exp(M[i,\xc2\xb7] \xe2\x88\x92 m) = ") +
                      num(static_cast<float>(sum)));
      lines.push_back("\xce\xb1 = " + num(static_cast<float>(e)) + " / " +
                      num(static_cast<float>(sum)) + " = " + num(static_cast<float>(e / sum)));
    }
  }
  if (p.dropout_p > 0) {
    const float u =
        attn::dropout_draw(p.dropout_seed, head, b, i, j, static_cast<int>(p.queries.size()),
                           static_cast<int>(m.rows()), n_k);
    if (u < p.dropout_p) {
      lines.push_back(T("dropout: u = ") + num(u) + " < p = " + num(p.dropout_p) +
                      T(" \xe2\x86\x92 dropped, \xce\xb1 = 0"));
    } else {
      lines.push_back(T("dropout: u = ") + num(u) +
                      T(" \xe2\x89\xa5 p \xe2\x86\x92 kept, scaled by 1/(1 \xe2\x88\x92 ") +
                      num(p.dropout_p) + ") = " + num(w));
    }
  }
  return lines;
}

}  // namespace

std::vector<std::string> explain_cell(const CellRef& c, const attn::Problem& p,
                                      const attn::Trace& t, const attn::HeadTrace& ht) {
  std::vector<std::string> lines;
  const int b = c.batch, i = c.row, j = c.col;
  const bool additive = p.scoring == attn::Scoring::kAdditive;
  switch (c.kind) {
    case MatrixKind::kQueries:
    case MatrixKind::kKeys:
    case MatrixKind::kValues: {
      const attn::Batch& raw = c.kind == MatrixKind::kQueries ? p.queries
                               : c.kind == MatrixKind::kKeys  ? p.keys
                                                              : p.values;
      const attn::Batch& used = c.kind == MatrixKind::kQueries ? t.queries
                                : c.kind == MatrixKind::kKeys  ? t.keys
                                                               : t.values;
      const char* name = c.kind == MatrixKind::kQueries ? "queries"
                         : c.kind == MatrixKind::kKeys  ? "keys"
                                                        : "values";
      lines.push_back(
          printf_text("%s[%d, %d] = %s", name, i + 1, j + 1, num(used[b](i, j)).c_str()));
      if (p.positional_encoding) {
        const float pe = used[b](i, j) - raw[b](i, j);
        lines.push_back(T("= input ") + num(raw[b](i, j)) + " + PE " + num(pe));
      }
      break;
    }
    case MatrixKind::kPositional: {
      const int d = c.pe_d > 0 ? c.pe_d : attn::batch_cols(p.queries);
      const int two_i = j - j % 2;
      const double angle = i * std::pow(static_cast<double>(p.pe_base), -double(two_i) / d);
      lines.push_back(printf_text("PE[%d, %d] = %s(%d / %g^(%d/%d))", i, j, j % 2 ? "cos" : "sin",
                                  i, p.pe_base, two_i, d));
      lines.push_back(printf_text("= %s(%s) = ", j % 2 ? "cos" : "sin", num(float(angle)).c_str()) +
                      num(static_cast<float>(j % 2 ? std::cos(angle) : std::sin(angle))));
      lines.push_back(T("(positions and columns count from 0 here, as in the formula)"));
      break;
    }
    case MatrixKind::kWq:
    case MatrixKind::kWk:
    case MatrixKind::kWv:
    case MatrixKind::kWo: {
      const char* name = matrix_info(c.kind).id;
      const attn::Matrix* W = attn::weight_matrix(p.weights, name);
      if (W && W->size())
        lines.push_back(
            printf_text("%s[%d, %d] = %s", name, i + 1, j + 1, num((*W)(i, j)).c_str()));
      lines.push_back(T("a learned weight (here given or generated from the seed)"));
      break;
    }
    case MatrixKind::kQ:
    case MatrixKind::kK:
    case MatrixKind::kV: {
      const bool is_q = c.kind == MatrixKind::kQ, is_k = c.kind == MatrixKind::kK;
      const attn::Matrix& W = is_q ? p.weights.W_q : is_k ? p.weights.W_k : p.weights.W_v;
      const attn::Batch& x = is_q ? t.queries : is_k ? t.keys : t.values;
      const attn::Batch& out = is_q ? ht.q : is_k ? ht.k : ht.v;
      const char* name = is_q ? "Q" : is_k ? "K" : "V";
      const int width = static_cast<int>(out[b].cols());
      const int col = c.head * width + j;  // the column of the full projection
      lines.push_back(printf_text(T("%s[%d, %d] (head %d, column %d of the projection)"), name,
                                  i + 1, j + 1, c.head + 1, col + 1));
      const bool projected = W.size() && !(additive && (is_q || is_k));
      if (!projected) {
        lines.push_back(T("no projection: the input value itself, ") + num(out[b](i, j)));
      } else {
        const attn::Matrix& xb = x[b];
        lines.push_back("= \xce\xa3_t X[i,t]\xc2\xb7W[t,c] = " +
                        dot_terms(xb.row(i).data(), 1, W.data() + col, static_cast<int>(W.cols()),
                                  static_cast<int>(xb.cols())));
        lines.push_back("= " + num(out[b](i, j)));
      }
      break;
    }
    case MatrixKind::kScores: {
      const attn::Matrix& q = ht.q[b];
      const attn::Matrix& k = ht.k[b];
      const int d = static_cast<int>(q.cols());
      const float s = ht.scores[b](i, j);
      switch (p.scoring) {
        case attn::Scoring::kDot:
        case attn::Scoring::kScaledDot:
          lines.push_back("q" + sub(i) + kDot + "k" + sub(j) + " = " +
                          dot_terms(q.row(i).data(), 1, k.row(j).data(), 1, d));
          lines.push_back("= " + num(s));
          break;
        case attn::Scoring::kCosine: {
          const float nq = q.row(i).norm(), nk = k.row(j).norm();
          const float dot = q.row(i).dot(k.row(j));
          lines.push_back("q" + sub(i) + kDot + "k" + sub(j) + " = " + num(dot) +
                          ",   |q| = " + num(nq) + ",   |k| = " + num(nk));
          lines.push_back(nq > 0 && nk > 0 ? "cos = " + num(dot) + " / (" + num(nq) + kTimes +
                                                 num(nk) + ") = " + num(s)
                                           : T("a zero vector has no direction: the score is 0"));
          break;
        }
        case attn::Scoring::kGaussian: {
          // −(q₁ − k₁)² / (2 · σ²) with one column; −((q₁ − k₁)² + …) / (2 · σ²) with more.
          const std::string terms = sum_of(d, [&](int t) {
            return "(" + num(q(i, t)) + " \xe2\x88\x92 " + factor(k(j, t)) + ")\xc2\xb2";
          });
          const std::string sigma = num(p.weights.sigma);
          lines.push_back("\xe2\x88\x92\xe2\x80\x96q" + sub(i) + " \xe2\x88\x92 k" + sub(j) +
                          "\xe2\x80\x96\xc2\xb2 / (2\xcf\x83\xc2\xb2),   \xcf\x83 = " + sigma);
          lines.push_back("= \xe2\x88\x92" + (d > 1 ? "(" + terms + ")" : terms) + " / (2 " + kDot +
                          " " + sigma + "\xc2\xb2) = " + num(s));
          break;
        }
        case attn::Scoring::kGeneral: {
          const attn::Matrix qW = q.row(i) * p.weights.W;
          lines.push_back(
              "(q" + sub(i) + kDot + "W) = [" +
              sum_of(static_cast<int>(qW.cols()), [&](int x) { return num(qW(0, x)); }) + "]");
          lines.push_back("(q" + sub(i) + kDot + "W)" + kDot + "k" + sub(j) + " = " +
                          dot_terms(qW.data(), 1, k.row(j).data(), 1, static_cast<int>(qW.cols())) +
                          " = " + num(s));
          break;
        }
        case attn::Scoring::kAdditive: {
          const attn::Matrix a = q.row(i) * p.weights.W_q;
          const attn::Matrix bk = k.row(j) * p.weights.W_k;
          const int hidden = static_cast<int>(p.weights.w_v.size());
          lines.push_back("h = q" + sub(i) + kDot + "W_q + k" + sub(j) + kDot + "W_k" +
                          T(", then ") + "\xce\xa3 w_v[u]\xc2\xb7tanh(h[u])");
          lines.push_back("= " + sum_of(hidden, [&](int u) {
                            return factor(p.weights.w_v(u)) + kTimes + "tanh(" +
                                   num(a(0, u) + bk(0, u)) + ")";
                          }));
          lines.push_back("= " + num(s));
          break;
        }
      }
      break;
    }
    case MatrixKind::kScaled: {
      const float s = ht.scores[b](i, j);
      const int d = static_cast<int>(ht.k[b].cols());
      if (p.scoring == attn::Scoring::kScaledDot) {
        lines.push_back(
            "S' = S / \xe2\x88\x9a"
            "d / T = " +
            num(s) + " / \xe2\x88\x9a" + std::to_string(d) + " / " + num(p.temperature));
      } else {
        lines.push_back("S' = S / T = " + num(s) + " / " + num(p.temperature));
      }
      lines.push_back("= " + num(ht.scaled[b](i, j)));
      break;
    }
    case MatrixKind::kMasked: {
      const std::string reason = mask_reason_text(p.mask, b, i, j);
      if (reason.empty()) {
        lines.push_back(T("visible: the scaled score is kept, ") + num(ht.masked[b](i, j)));
      } else {
        lines.push_back(T("masked: ") + reason);
        lines.push_back(T("score \xe2\x86\x90 ") + num(p.mask.mask_value));
      }
      break;
    }
    case MatrixKind::kWeights:
      lines = explain_softmax(p, ht, c.head, b, i, j);
      break;
    case MatrixKind::kHeadOutput: {
      const attn::Matrix& w = ht.weights[b];
      const attn::Matrix& v = ht.v[b];
      lines.push_back(printf_text("O[%d, %d] = \xce\xa3_j A[%d, j]%sV[j, %d]", i + 1, j + 1, i + 1,
                                  kDot, j + 1));
      lines.push_back("= " + dot_terms(w.row(i).data(), 1, v.data() + j, static_cast<int>(v.cols()),
                                       static_cast<int>(w.cols())));
      lines.push_back("= " + num(ht.output[b](i, j)));
      break;
    }
    case MatrixKind::kConcat: {
      const int width = attn::batch_cols(t.heads[0].output);
      lines.push_back(printf_text(T("column %d comes from head %d (its column %d)"), j + 1,
                                  j / width + 1, j % width + 1));
      lines.push_back("= " + num(t.concat[b](i, j)));
      break;
    }
    case MatrixKind::kOutput: {
      if (!p.weights.W_o.size()) {
        lines.push_back(T("no W_o: the output is the concatenation, ") + num(t.output[b](i, j)));
        break;
      }
      const attn::Matrix& cc = t.concat[b];
      const attn::Matrix& W = p.weights.W_o;
      lines.push_back("\xce\xa3_t concat[i,t]\xc2\xb7W_o[t,c] = " +
                      dot_terms(cc.row(i).data(), 1, W.data() + j, static_cast<int>(W.cols()),
                                static_cast<int>(cc.cols())));
      lines.push_back("= " + num(t.output[b](i, j)));
      break;
    }
  }
  return lines;
}

}  // namespace ui
