// The attention core: scoring, masked softmax, value weighting and multi-head attention.
//
// [SECTION] Names
// [SECTION] Positional encoding
// [SECTION] Scoring
// [SECTION] Masks
// [SECTION] Softmax, hard attention, dropout
// [SECTION] Validation
// [SECTION] The pipeline
#include "core/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/random.h"

namespace attn {

//-----------------------------------------------------------------------------
// [SECTION] Names
//-----------------------------------------------------------------------------

const char* scoring_name(Scoring s) {
  switch (s) {
    case Scoring::kDot:
      return "dot";
    case Scoring::kScaledDot:
      return "scaled_dot";
    case Scoring::kAdditive:
      return "additive";
    case Scoring::kGeneral:
      return "general";
    case Scoring::kCosine:
      return "cosine";
  }
  return "?";
}

//-----------------------------------------------------------------------------
// [SECTION] Positional encoding
//-----------------------------------------------------------------------------

Matrix positional_encoding(int rows, int cols, float base) {
  Matrix pe(rows, cols);
  for (int c = 0; c < cols; ++c) {
    // Columns 2i and 2i+1 share the frequency 1 / base^(2i/d). Computed in double and rounded
    // once, so native and WASM builds agree to the last bit on almost every value.
    const int two_i = c - (c % 2);
    const double inv_freq = std::pow(static_cast<double>(base), -static_cast<double>(two_i) / cols);
    for (int p = 0; p < rows; ++p) {
      const double angle = p * inv_freq;
      pe(p, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

//-----------------------------------------------------------------------------
// [SECTION] Scoring
//-----------------------------------------------------------------------------

Matrix score_dot(const Matrix& q, const Matrix& k) {
  return q * k.transpose();
}

Matrix score_additive(const Matrix& q, const Matrix& k, const Matrix& W_q, const Matrix& W_k,
                      const Vector& w_v) {
  const Matrix qh = q * W_q;  // n_q × hidden
  const Matrix kh = k * W_k;  // n_k × hidden
  const Eigen::Index hidden = w_v.size();
  Matrix s(q.rows(), k.rows());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    for (Eigen::Index j = 0; j < k.rows(); ++j) {
      float acc = 0.0f;
      for (Eigen::Index h = 0; h < hidden; ++h) acc += w_v(h) * std::tanh(qh(i, h) + kh(j, h));
      s(i, j) = acc;
    }
  }
  return s;
}

Matrix score_general(const Matrix& q, const Matrix& k, const Matrix& W) {
  return (q * W) * k.transpose();
}

Matrix score_cosine(const Matrix& q, const Matrix& k) {
  Matrix qn = q, kn = k;
  for (Eigen::Index i = 0; i < qn.rows(); ++i) {
    const float n = qn.row(i).norm();
    qn.row(i) = n > 0.0f ? Eigen::RowVectorXf(qn.row(i) / n) : Eigen::RowVectorXf::Zero(q.cols());
  }
  for (Eigen::Index j = 0; j < kn.rows(); ++j) {
    const float n = kn.row(j).norm();
    kn.row(j) = n > 0.0f ? Eigen::RowVectorXf(kn.row(j) / n) : Eigen::RowVectorXf::Zero(k.cols());
  }
  return qn * kn.transpose();
}

float score_scale(Scoring s, int key_size, float temperature) {
  double scale = 1.0 / temperature;
  if (s == Scoring::kScaledDot) scale /= std::sqrt(static_cast<double>(key_size));
  return static_cast<float>(scale);
}

//-----------------------------------------------------------------------------
// [SECTION] Masks
//-----------------------------------------------------------------------------

void visible_range(const MaskSpec& m, int b, int i, int n_k, int* lo, int* hi) {
  int l = 0, h = n_k;
  if (!m.valid_lens.empty()) {
    const std::vector<int>& lens = m.valid_lens[b];
    h = std::min(h, lens.size() == 1 ? lens[0] : lens[i]);
  }
  if (m.causal) h = std::min(h, i + 1);
  if (m.window >= 0) {
    l = std::max(l, i - m.window);
    h = std::min(h, i + m.window + 1);
  }
  *lo = l;
  *hi = h;
}

bool is_masked(const MaskSpec& m, int b, int i, int j, int n_k) {
  int lo, hi;
  visible_range(m, b, i, n_k, &lo, &hi);
  if (j < lo || j >= hi) return true;
  for (const auto& c : m.cells)
    if (c[0] == b && c[1] == i && c[2] == j) return true;
  return false;
}

Matrix apply_mask(const Matrix& scaled, const MaskSpec& m, int b) {
  Matrix out = scaled;
  if (!m.any()) return out;
  const int n_q = static_cast<int>(scaled.rows()), n_k = static_cast<int>(scaled.cols());
  for (int i = 0; i < n_q; ++i) {
    int lo, hi;
    visible_range(m, b, i, n_k, &lo, &hi);
    for (int j = 0; j < n_k; ++j)
      if (j < lo || j >= hi) out(i, j) = m.mask_value;
  }
  for (const auto& c : m.cells)
    if (c[0] == b && c[1] < n_q && c[2] < n_k) out(c[1], c[2]) = m.mask_value;
  return out;
}

//-----------------------------------------------------------------------------
// [SECTION] Softmax, hard attention, dropout
//-----------------------------------------------------------------------------

Matrix softmax_rows(const Matrix& x) {
  Matrix w(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float mx = x.row(i).maxCoeff();
    float sum = 0.0f;
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      // exp(-inf - -inf) is NaN: a row masked with -inf everywhere has no defined weights.
      w(i, j) = std::exp(x(i, j) - mx);
      sum += w(i, j);
    }
    w.row(i) /= sum;
  }
  return w;
}

Matrix hard_rows(const Matrix& x) {
  Matrix w = Matrix::Zero(x.rows(), x.cols());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    Eigen::Index best = 0;
    bool undefined = false;
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      if (std::isnan(x(i, j))) undefined = true;
      if (x(i, j) > x(i, best)) best = j;
    }
    if (undefined || x(i, best) == -std::numeric_limits<float>::infinity()) {
      w.row(i).setConstant(nan);
    } else {
      w(i, best) = 1.0f;
    }
  }
  return w;
}

void apply_dropout(Matrix* weights, float p, uint64_t seed, int head, int batch, int batch_size) {
  if (p <= 0.0f) return;
  const float keep_scale = 1.0f / (1.0f - p);
  const uint64_t n_q = static_cast<uint64_t>(weights->rows());
  const uint64_t n_k = static_cast<uint64_t>(weights->cols());
  const uint64_t base = (static_cast<uint64_t>(head) * batch_size + batch) * n_q * n_k;
  for (uint64_t i = 0; i < n_q; ++i) {
    for (uint64_t j = 0; j < n_k; ++j) {
      float& w = (*weights)(i, j);
      w = uniform01(seed, base + i * n_k + j) < p ? 0.0f : w * keep_scale;
    }
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Validation
//-----------------------------------------------------------------------------

namespace {

std::string str(long long v) {
  return std::to_string(v);
}

// Checks one batch: equal shapes in every item and at least one row and one column.
std::string check_batch(const Batch& x, const char* name) {
  if (x.empty()) return std::string(name) + ": is empty, expected at least one batch item";
  for (size_t b = 0; b < x.size(); ++b) {
    if (x[b].rows() == 0) return std::string(name) + "[" + str(b) + "]: has no rows";
    if (x[b].cols() == 0) return std::string(name) + "[" + str(b) + "]: has no columns";
    if (x[b].rows() != x[0].rows())
      return std::string(name) + "[" + str(b) + "]: has " + str(x[b].rows()) + " rows, expected " +
             str(x[0].rows()) + " like " + name + "[0]";
    if (x[b].cols() != x[0].cols())
      return std::string(name) + "[" + str(b) + "]: has " + str(x[b].cols()) +
             " columns, expected " + str(x[0].cols()) + " like " + name + "[0]";
  }
  return "";
}

std::string check_rows(const Matrix& W, const char* name, Eigen::Index rows, const char* what) {
  if (W.rows() != rows)
    return std::string(name) + ": has " + str(W.rows()) + " rows, expected " + str(rows) + " (" +
           what + ")";
  if (W.cols() == 0) return std::string(name) + ": has no columns";
  return "";
}

bool finite(float v) {
  return std::isfinite(v);
}

}  // namespace

std::string validate(const Problem& p) {
  std::string e;
  if (!(e = check_batch(p.queries, "queries")).empty()) return e;
  if (!(e = check_batch(p.keys, "keys")).empty()) return e;
  if (!(e = check_batch(p.values, "values")).empty()) return e;
  const size_t B = p.queries.size();
  if (p.keys.size() != B)
    return "keys: has batch " + str(p.keys.size()) + ", expected " + str(B) +
           " (the batch of queries)";
  if (p.values.size() != B)
    return "values: has batch " + str(p.values.size()) + ", expected " + str(B) +
           " (the batch of queries)";
  const int n_q = batch_rows(p.queries), n_k = batch_rows(p.keys);
  const int d_q = batch_cols(p.queries), d_k = batch_cols(p.keys), d_v = batch_cols(p.values);
  if (batch_rows(p.values) != n_k)
    return "values: has " + str(batch_rows(p.values)) + " rows, expected " + str(n_k) +
           " (one value per key)";

  if (!finite(p.temperature) || p.temperature <= 0.0f)
    return "temperature: must be a positive finite number";
  if (p.heads < 1) return "heads: must be at least 1";
  if (!(p.dropout_p >= 0.0f && p.dropout_p < 1.0f)) return "dropout.p: must be in [0, 1)";
  if (!finite(p.pe_base) || p.pe_base <= 1.0f)
    return "positional_encoding.base: must be a finite number greater than 1";

  // Masks.
  const MaskSpec& m = p.mask;
  if (std::isnan(m.mask_value) || m.mask_value > 0.0f)
    return "mask_value: must be a negative number or \"-inf\"";
  if (!m.valid_lens.empty()) {
    if (m.valid_lens.size() != B)
      return "valid_lens: has " + str(m.valid_lens.size()) + " entries, expected " + str(B) +
             " (one per batch item)";
    for (size_t b = 0; b < B; ++b) {
      const auto& lens = m.valid_lens[b];
      if (lens.size() != 1 && lens.size() != static_cast<size_t>(n_q))
        return "valid_lens[" + str(b) + "]: has " + str(lens.size()) + " entries, expected 1 or " +
               str(n_q) + " (one per query)";
      for (size_t i = 0; i < lens.size(); ++i) {
        const std::string field = lens.size() == 1 ? "valid_lens[" + str(b) + "]"
                                                   : "valid_lens[" + str(b) + "][" + str(i) + "]";
        if (lens[i] < 0) return field + ": is " + str(lens[i]) + ", must not be negative";
        if (lens[i] > n_k)
          return field + ": is " + str(lens[i]) + ", larger than the " + str(n_k) + " keys";
      }
    }
  }
  if (m.window < -1) return "window: must not be negative";
  for (size_t c = 0; c < m.cells.size(); ++c) {
    const auto& cell = m.cells[c];
    if (cell[0] < 0 || cell[0] >= static_cast<int>(B) || cell[1] < 0 || cell[1] >= n_q ||
        cell[2] < 0 || cell[2] >= n_k)
      return "masked_cells[" + str(c) + "]: [" + str(cell[0]) + ", " + str(cell[1]) + ", " +
             str(cell[2]) + "] is outside batch " + str(B) + " × " + str(n_q) + " queries × " +
             str(n_k) + " keys";
  }

  // Weights.
  const Weights& w = p.weights;
  const bool additive = p.scoring == Scoring::kAdditive;
  if (w.W.size() && p.scoring != Scoring::kGeneral) return "W: is only used by general scoring";
  if (w.w_v.size() && !additive) return "w_v: is only used by additive scoring";
  int dv_model = d_v;
  if (w.W_v.size()) {
    if (!(e = check_rows(w.W_v, "W_v", d_v, "the columns of values")).empty()) return e;
    dv_model = static_cast<int>(w.W_v.cols());
  }
  if (additive) {
    if (p.heads != 1) return "heads: additive scoring uses one head";
    if (!w.W_q.size()) return "W_q: additive scoring needs W_q (d_q × hidden)";
    if (!w.W_k.size()) return "W_k: additive scoring needs W_k (d_k × hidden)";
    if (!w.w_v.size()) return "w_v: additive scoring needs w_v (hidden)";
    if (!(e = check_rows(w.W_q, "W_q", d_q, "the columns of queries")).empty()) return e;
    if (!(e = check_rows(w.W_k, "W_k", d_k, "the columns of keys")).empty()) return e;
    if (w.W_k.cols() != w.W_q.cols())
      return "W_k: has " + str(w.W_k.cols()) + " columns, expected " + str(w.W_q.cols()) +
             " (the hidden size of W_q)";
    if (w.w_v.size() != w.W_q.cols())
      return "w_v: has " + str(w.w_v.size()) + " entries, expected " + str(w.W_q.cols()) +
             " (the hidden size of W_q)";
  } else {
    int dq_model = d_q, dk_model = d_k;
    if (w.W_q.size()) {
      if (!(e = check_rows(w.W_q, "W_q", d_q, "the columns of queries")).empty()) return e;
      dq_model = static_cast<int>(w.W_q.cols());
    }
    if (w.W_k.size()) {
      if (!(e = check_rows(w.W_k, "W_k", d_k, "the columns of keys")).empty()) return e;
      dk_model = static_cast<int>(w.W_k.cols());
    }
    const char* q_name = w.W_q.size() ? "W_q" : "queries";
    const char* k_name = w.W_k.size() ? "W_k" : "keys";
    const char* v_name = w.W_v.size() ? "W_v" : "values";
    if (dq_model % p.heads != 0)
      return "heads: " + str(p.heads) + " does not divide d_model " + str(dq_model) +
             " (the columns of " + q_name + ")";
    if (dk_model % p.heads != 0)
      return "heads: " + str(p.heads) + " does not divide " + str(dk_model) + " (the columns of " +
             k_name + ")";
    if (dv_model % p.heads != 0)
      return "heads: " + str(p.heads) + " does not divide " + str(dv_model) + " (the columns of " +
             v_name + ")";
    const int dq_h = dq_model / p.heads, dk_h = dk_model / p.heads;
    if (p.scoring == Scoring::kGeneral) {
      if (!w.W.size()) return "W: general scoring needs W (d_q × d_k per head)";
      if (w.W.rows() != dq_h || w.W.cols() != dk_h)
        return "W: is " + str(w.W.rows()) + "×" + str(w.W.cols()) + ", expected " + str(dq_h) +
               "×" + str(dk_h) + " (query × key size per head)";
    } else if (dq_h != dk_h) {
      return std::string(k_name) + ": key size " + str(dk_model) + " differs from query size " +
             str(dq_model) + "; " + scoring_name(p.scoring) +
             " scoring needs equal sizes (project with W_q/W_k, or use additive or general)";
    }
  }
  if (w.W_o.size() &&
      (e = check_rows(w.W_o, "W_o", dv_model, "the width of the concatenated heads")).size())
    return e;
  return "";
}

//-----------------------------------------------------------------------------
// [SECTION] The pipeline
//-----------------------------------------------------------------------------

namespace {

Batch times(const Batch& x, const Matrix& W) {
  if (!W.size()) return x;
  Batch out(x.size());
  for (size_t b = 0; b < x.size(); ++b) out[b] = x[b] * W;
  return out;
}

Batch with_positions(const Batch& x, float base, Batch* pe_out) {
  const Matrix pe = positional_encoding(batch_rows(x), batch_cols(x), base);
  Batch out(x.size());
  for (size_t b = 0; b < x.size(); ++b) out[b] = x[b] + pe;
  if (pe_out) *pe_out = Batch(x.size(), pe);
  return out;
}

}  // namespace

Trace run(const Problem& p) {
  Trace t;
  const int B = static_cast<int>(p.queries.size());
  if (p.positional_encoding) {
    t.queries = with_positions(p.queries, p.pe_base, &t.pe_queries);
    t.keys = with_positions(p.keys, p.pe_base, &t.pe_keys);
    t.values = with_positions(p.values, p.pe_base, nullptr);
  } else {
    t.queries = p.queries;
    t.keys = p.keys;
    t.values = p.values;
  }

  const Weights& w = p.weights;
  const bool additive = p.scoring == Scoring::kAdditive;
  // In additive scoring W_q and W_k belong to the scoring network, not to a projection.
  t.q_proj = additive ? t.queries : times(t.queries, w.W_q);
  t.k_proj = additive ? t.keys : times(t.keys, w.W_k);
  t.v_proj = times(t.values, w.W_v);

  const int H = p.heads;
  const int dq = batch_cols(t.q_proj) / H, dk = batch_cols(t.k_proj) / H;
  const int dv = batch_cols(t.v_proj) / H;
  const float scale = score_scale(p.scoring, dk, p.temperature);

  t.heads.resize(H);
  for (int h = 0; h < H; ++h) {
    HeadTrace& ht = t.heads[h];
    for (int b = 0; b < B; ++b) {
      ht.q.push_back(t.q_proj[b].middleCols(h * dq, dq));
      ht.k.push_back(t.k_proj[b].middleCols(h * dk, dk));
      ht.v.push_back(t.v_proj[b].middleCols(h * dv, dv));
      const Matrix& q = ht.q.back();
      const Matrix& k = ht.k.back();
      Matrix s;
      switch (p.scoring) {
        case Scoring::kDot:
        case Scoring::kScaledDot:
          s = score_dot(q, k);
          break;
        case Scoring::kAdditive:
          s = score_additive(q, k, w.W_q, w.W_k, w.w_v);
          break;
        case Scoring::kGeneral:
          s = score_general(q, k, w.W);
          break;
        case Scoring::kCosine:
          s = score_cosine(q, k);
          break;
      }
      ht.scores.push_back(s);
      ht.scaled.push_back(s * scale);
      ht.masked.push_back(apply_mask(ht.scaled.back(), p.mask, b));
      Matrix weights = p.hard ? hard_rows(ht.masked.back()) : softmax_rows(ht.masked.back());
      apply_dropout(&weights, p.dropout_p, p.dropout_seed, h, b, B);
      ht.weights.push_back(weights);
      ht.output.push_back(weights * ht.v.back());
    }
  }

  t.concat.resize(B);
  for (int b = 0; b < B; ++b) {
    t.concat[b].resize(batch_rows(t.queries), dv * H);
    for (int h = 0; h < H; ++h) t.concat[b].middleCols(h * dv, dv) = t.heads[h].output[b];
  }
  t.output = times(t.concat, w.W_o);
  return t;
}

}  // namespace attn
