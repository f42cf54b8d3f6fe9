// attn::validate: every shape, size and setting of a Problem checked before anything runs,
// each refusal one line naming the field.
#include <cmath>
#include <string>

#include "core/attention.h"

namespace attn {

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

// The first problem of p, or "".
std::string check(const Problem& p) {
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
  if (gumbel(p) && !(p.gumbel_tau >= 1e-30f && p.gumbel_tau <= 100.0f))  // NaN too
    return "hard.tau: must be a number from 1e-30 (1/tau scales the gradient, which must stay "
           "inside float32) to 100";
  if (!finite(p.pe_base) || p.pe_base <= 1.0f)
    return "positional_encoding.base: must be a finite number greater than 1";

  // Masks.
  const MaskSpec& m = p.mask;
  if (!(m.mask_value < 0.0f))  // NaN, 0 and -0 too: a masked score must be below the others
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
  const ScoringInfo& info = scoring_info(p.scoring);
  if (w.W.size() && p.scoring != Scoring::kGeneral) return "W: is only used by general scoring";
  if (w.w_v.size() && !additive) return "w_v: is only used by additive scoring";
  // NaN fails both comparisons too.
  if (p.scoring == Scoring::kGaussian && !(w.sigma > 0.0f && w.sigma <= kMaxSigma))
    return "sigma: must be a number > 0 and at most 1000";
  int dv_model = d_v;
  if (w.W_v.size()) {
    if (!(e = check_rows(w.W_v, "W_v", d_v, "the columns of values")).empty()) return e;
    dv_model = static_cast<int>(w.W_v.cols());
  }
  if (info.one_head && p.heads != 1)
    return std::string("heads: ") + info.name + " scoring uses one head";
  if (additive) {
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

}  // namespace

Status validate(const Problem& p) {
  return Status{check(p)};
}

}  // namespace attn
