// The attention core: scoring, masked softmax, value weighting and multi-head attention.
//
// The matrix products, the softmax and the fused forward pass run on the micro-kernels of
// core/kernels.h (WASM SIMD128, or their scalar twins); Eigen holds the matrices.
//
// [SECTION] Names
// [SECTION] Products on the kernels
// [SECTION] Positional encoding
// [SECTION] Scoring
// [SECTION] Masks
// [SECTION] Softmax, hard attention, dropout
// [SECTION] Validation
// [SECTION] The pipeline
#include "core/attention.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/kernels.h"
#include "core/kernels_exp.h"
#include "core/parallel.h"
#include "core/random.h"

namespace attn {

//-----------------------------------------------------------------------------
// [SECTION] Names
//-----------------------------------------------------------------------------

namespace {

using Fused = ScoringInfo::Fused;
// clang-format off
constexpr ScoringInfo kScoringTable[] = {
  // scoring             name          projects one_head fused
  {Scoring::kDot,       "dot",        true,    false,   Fused::kDot},
  {Scoring::kScaledDot, "scaled_dot", true,    false,   Fused::kDot},
  {Scoring::kAdditive,  "additive",   false,   true,    Fused::kNone},
  {Scoring::kGeneral,   "general",    true,    false,   Fused::kBilinear},
  {Scoring::kCosine,    "cosine",     true,    false,   Fused::kUnitRows},
};
// clang-format on
static_assert(std::size(kScoringTable) == std::size(kScorings), "one row per scoring");

}  // namespace

const ScoringInfo& scoring_info(Scoring s) {
  for (const ScoringInfo& info : kScoringTable)
    if (info.scoring == s) return info;
  return kScoringTable[0];  // not reached: every scoring has its row (tested)
}

const char* scoring_name(Scoring s) {
  return scoring_info(s).name;
}

//-----------------------------------------------------------------------------
// [SECTION] Products on the kernels
//-----------------------------------------------------------------------------

namespace {

int rows_of(const Matrix& m) {
  return static_cast<int>(m.rows());
}
int cols_of(const Matrix& m) {
  return static_cast<int>(m.cols());
}

// W (or the column block [col0, col0 + cols) of it) packed for the GEMM kernel.
std::vector<float> packed_b(const Matrix& W, int col0, int cols) {
  std::vector<float> packed(kernels::packed_size(rows_of(W), cols));
  kernels::pack_b(rows_of(W), cols, W.data() + col0, cols_of(W), packed.data());
  return packed;
}

// Rows per task of a product: even, so that the kernel's row pairs stay whole and each row
// is computed as on one thread.
constexpr int kProductRows = 64;

// x · B, B packed (k × n), in blocks of kProductRows rows over the core's threads.
Matrix times_packed(const Matrix& x, const std::vector<float>& packed, int n) {
  Matrix out(x.rows(), n);
  const int m = rows_of(x), k = cols_of(x);
  parallel_for((m + kProductRows - 1) / kProductRows, static_cast<double>(m) * n * k,
               [&](int task) {
                 const int i0 = task * kProductRows;
                 kernels::gemm(kernels::best_kernels(), std::min(kProductRows, m - i0), n, k,
                               x.data() + static_cast<ptrdiff_t>(i0) * k, k, packed.data(),
                               out.data() + static_cast<ptrdiff_t>(i0) * n, n);
               });
  return out;
}

Matrix times(const Matrix& x, const Matrix& W) {
  return times_packed(x, packed_b(W, 0, cols_of(W)), cols_of(W));
}

}  // namespace

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
  std::vector<float> packed(kernels::packed_size(cols_of(k), rows_of(k)));
  kernels::pack_bt(cols_of(k), rows_of(k), k.data(), cols_of(k), packed.data());
  return times_packed(q, packed, rows_of(k));
}

Matrix score_additive(const Matrix& q, const Matrix& k, const Matrix& W_q, const Matrix& W_k,
                      const Vector& w_v) {
  // The tanh network stays a scalar loop: O(n_q·n_k·hidden) tanh calls, no kernel.
  const Matrix qh = times(q, W_q);  // n_q × hidden
  const Matrix kh = times(k, W_k);  // n_k × hidden
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
  return score_dot(times(q, W), k);
}

double vector_length(const float* x, int n) {
  // Every float squared is within double's range (3.4e38² ≈ 1.2e77, and the smallest
  // subnormal, 1.4e-45, squares to 2e-90), and so is the sum of 2^31 of them.
  double sum = 0.0;
  for (int c = 0; c < n; ++c) sum += static_cast<double>(x[c]) * x[c];
  return std::sqrt(sum);
}

Matrix unit_rows(const Matrix& x) {
  Matrix out(x.rows(), x.cols());
  const int cols = static_cast<int>(x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* row = x.data() + i * cols;
    const double n = vector_length(row, cols);
    for (int c = 0; c < cols; ++c) out(i, c) = n > 0.0 ? static_cast<float>(row[c] / n) : 0.0f;
  }
  return out;
}

Matrix score_cosine(const Matrix& q, const Matrix& k) {
  return score_dot(unit_rows(q), unit_rows(k));
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

bool is_masked(const MaskSpec& m, int b, int i, int j) {
  return mask_reason(m, b, i, j).rule != MaskRule::kNone;
}

MaskReason mask_reason(const MaskSpec& m, int b, int i, int j) {
  MaskReason r;
  if (!m.valid_lens.empty()) {
    const std::vector<int>& lens = m.valid_lens[b];
    const int len = lens.size() == 1 ? lens[0] : lens[i];
    if (j >= len) {
      r.rule = MaskRule::kValidLength;
      r.valid_len = len;
      return r;
    }
  }
  if (m.causal && j > i) {
    r.rule = MaskRule::kCausal;
  } else if (m.window >= 0 && std::abs(i - j) > m.window) {
    r.rule = MaskRule::kWindow;
  } else {
    for (const auto& c : m.cells)
      if (c[0] == b && c[1] == i && c[2] == j) r.rule = MaskRule::kCell;
  }
  return r;
}

std::vector<uint8_t> mask_cells(const MaskSpec& m, int b, int n_q, int n_k) {
  std::vector<uint8_t> out(static_cast<size_t>(n_q) * n_k, 0);
  if (!m.any()) return out;
  for (int i = 0; i < n_q; ++i) {
    int lo, hi;
    visible_range(m, b, i, n_k, &lo, &hi);
    for (int j = 0; j < n_k; ++j) out[static_cast<size_t>(i) * n_k + j] = j < lo || j >= hi;
  }
  for (const auto& c : m.cells)
    if (c[0] == b && c[1] < n_q && c[2] < n_k) out[static_cast<size_t>(c[1]) * n_k + c[2]] = 1;
  return out;
}

namespace {

// Sets the masked cells of rows [i0, i0 + x.rows()) of batch item b to m.mask_value.
void mask_rows(Matrix* x, const MaskSpec& m, int b, int i0) {
  if (!m.any()) return;
  const int rows = rows_of(*x), n_k = cols_of(*x);
  for (int r = 0; r < rows; ++r) {
    int lo, hi;
    visible_range(m, b, i0 + r, n_k, &lo, &hi);
    for (int j = 0; j < n_k; ++j)
      if (j < lo || j >= hi) (*x)(r, j) = m.mask_value;
  }
  for (const auto& c : m.cells)
    if (c[0] == b && c[1] >= i0 && c[1] < i0 + rows && c[2] < n_k)
      (*x)(c[1] - i0, c[2]) = m.mask_value;
}

}  // namespace

Matrix apply_mask(const Matrix& scaled, const MaskSpec& m, int b) {
  Matrix out = scaled;
  mask_rows(&out, m, b, 0);
  return out;
}

//-----------------------------------------------------------------------------
// [SECTION] Softmax, hard attention, dropout
//-----------------------------------------------------------------------------

Matrix softmax_rows(const Matrix& x) {
  Matrix w(x.rows(), x.cols());
  if (x.cols() == 0) return w;
  const kernels::KernelSet& ks = kernels::best_kernels();
  const int n = cols_of(x);
  // Max-subtracted; exp(-inf - -inf) is NaN: a row masked with -inf everywhere has no weights.
  for (int i = 0; i < rows_of(x); ++i)
    ks.softmax_row(n, x.data() + static_cast<ptrdiff_t>(i) * n,
                   w.data() + static_cast<ptrdiff_t>(i) * n);
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

float dropout_draw(uint64_t seed, int head, int b, int i, int j, int batch_size, int n_q, int n_k) {
  const uint64_t row = (static_cast<uint64_t>(head) * batch_size + b) * n_q + i;
  return uniform01(seed, row * n_k + j);
}

namespace {

// Dropout on rows [i0, i0 + w.rows()) of the n_q × n_k weights of (head, batch).
void dropout_rows(Matrix* weights, float p, uint64_t seed, int head, int batch, int batch_size,
                  int n_q, int i0) {
  if (p <= 0.0f) return;
  const float keep_scale = 1.0f / (1.0f - p);
  const int n_k = cols_of(*weights);
  for (int r = 0; r < rows_of(*weights); ++r)
    for (int j = 0; j < n_k; ++j) {
      float& w = (*weights)(r, j);
      w = dropout_draw(seed, head, batch, i0 + r, j, batch_size, n_q, n_k) < p ? 0.0f
                                                                               : w * keep_scale;
    }
}

}  // namespace

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

//-----------------------------------------------------------------------------
// [SECTION] The pipeline
//-----------------------------------------------------------------------------

namespace {

// Rows per block when hard attention, dropout or additive scoring run without keeping the
// head matrices: four 64 × n_k matrices at a time.
constexpr int kRowBlock = 64;

// x · W for every batch item (W packed once), or x itself (its matrices shared) when W is absent.
Batch times(const Batch& x, const Matrix& W) {
  if (!W.size()) return x;
  const std::vector<float> packed = packed_b(W, 0, cols_of(W));
  Batch out(x.size());
  for (size_t b = 0; b < x.size(); ++b) out.mut(b) = times_packed(x[b], packed, cols_of(W));
  return out;
}

// Columns [col0, col0 + cols) of every batch item: x itself (shared) when that is all of them.
Batch slice_cols(const Batch& x, int col0, int cols) {
  if (col0 == 0 && cols == batch_cols(x)) return x;
  Batch out(x.size());
  for (size_t b = 0; b < x.size(); ++b) out.mut(b) = x[b].middleCols(col0, cols);
  return out;
}

Batch with_positions(const Batch& x, float base, Batch* pe_out) {
  const Matrix pe = positional_encoding(batch_rows(x), batch_cols(x), base);
  Batch out(x.size());
  for (size_t b = 0; b < x.size(); ++b) out.mut(b) = x[b] + pe;
  if (pe_out) *pe_out = Batch(x.size(), pe);
  return out;
}

// Trace::queries, keys and values: the inputs after positional encoding, if any.
void encode_inputs(const Problem& p, Trace* t) {
  if (p.positional_encoding) {
    t->queries = with_positions(p.queries, p.pe_base, &t->pe_queries);
    t->keys = with_positions(p.keys, p.pe_base, &t->pe_keys);
    t->values = with_positions(p.values, p.pe_base, nullptr);
  } else {
    t->queries = p.queries;
    t->keys = p.keys;
    t->values = p.values;
  }
}

}  // namespace

HeadShape head_shape(const Problem& p) {
  const Weights& w = p.weights;
  // In additive scoring W_q and W_k belong to the scoring network, not to a projection.
  const bool projected = scoring_info(p.scoring).projects;
  HeadShape s;
  s.dq = (projected && w.W_q.size() ? cols_of(w.W_q) : batch_cols(p.queries)) / p.heads;
  s.dk = (projected && w.W_k.size() ? cols_of(w.W_k) : batch_cols(p.keys)) / p.heads;
  s.dv = (w.W_v.size() ? cols_of(w.W_v) : batch_cols(p.values)) / p.heads;
  s.scale = score_scale(p.scoring, s.dk, p.temperature);
  return s;
}

namespace {

Matrix scores_of(const Problem& p, const Matrix& q, const Matrix& k) {
  const Weights& w = p.weights;
  switch (p.scoring) {
    case Scoring::kDot:
    case Scoring::kScaledDot:
      return score_dot(q, k);
    case Scoring::kAdditive:
      return score_additive(q, k, w.W_q, w.W_k, w.w_v);
    case Scoring::kGeneral:
      return score_general(q, k, w.W);
    case Scoring::kCosine:
      return score_cosine(q, k);
  }
  return Matrix();
}

// Rows [i0, i0 + rows) of every intermediate of one head and batch item, step by step.
struct HeadRows {
  Matrix scores, scaled, masked, weights, output;
};

void head_rows(const Problem& p, int head, int b, const Matrix& q, const Matrix& k,
               const std::vector<float>& packed_v, int dv, float scale, int i0, int rows,
               HeadRows* r) {
  const int B = static_cast<int>(p.queries.size());
  r->scores = rows == rows_of(q) ? scores_of(p, q, k) : scores_of(p, q.middleRows(i0, rows), k);
  r->scaled.resize(r->scores.rows(), r->scores.cols());
  kernels::best_kernels().vscale(static_cast<int>(r->scores.size()), r->scores.data(), scale,
                                 r->scaled.data());
  r->masked = r->scaled;
  mask_rows(&r->masked, p.mask, b, i0);
  r->weights = p.hard ? hard_rows(r->masked) : softmax_rows(r->masked);
  dropout_rows(&r->weights, p.dropout_p, p.dropout_seed, head, b, B, rows_of(q), i0);
  r->output = times_packed(r->weights, packed_v, dv);
}

// Rows per task when a head's output is computed without its n_q × n_k matrices: a multiple
// of the fused kernel's block (kernels::kFusedRows) and of kRowBlock, so that each task runs
// exactly the blocks one thread would: the results do not depend on the thread count.
constexpr int kTaskRows = 64;
static_assert(kTaskRows % kernels::kFusedRows == 0 && kTaskRows % kRowBlock == 0,
              "tasks must cut rows where the kernels' blocks are cut");

// Whether a head's output comes from the fused kernel (softmax attention with dot-product-
// like scores) or from row blocks of head_rows.
bool fused_path(const Problem& p) {
  return !(p.hard || p.dropout_p > 0.0f ||
           scoring_info(p.scoring).fused == ScoringInfo::Fused::kNone);
}

// One head and batch item of the pass without n_q × n_k matrices: what every row task of it
// reads, prepared once.
struct LightItem {
  int head = 0, b = 0;
  const Matrix* q = nullptr;
  const Matrix* k = nullptr;
  const Matrix* v = nullptr;
  std::vector<float> packed_v;
  int dv = 0;
  Matrix* out = nullptr;
  // The fused kernel's inputs: scores q'·k' with q' = q·W (general) or unit rows (cosine),
  // k' unit rows (cosine); q' carries scale·log2(e) so that the scores come out in the
  // kernel's base-2 units.
  Matrix qs;
  std::vector<float> packed_kt;
  std::vector<int> lo, hi;
  std::vector<kernels::MaskedCell> cells;  // this batch item's explicit cells
};

void prepare_light(const Problem& p, float scale, LightItem* it) {
  const Matrix& q = *it->q;
  const Matrix& k = *it->k;
  const Matrix& v = *it->v;
  it->dv = cols_of(v);
  it->packed_v.resize(kernels::packed_size(rows_of(v), it->dv));
  kernels::pack_b(rows_of(v), it->dv, v.data(), it->dv, it->packed_v.data());
  it->out->resize(rows_of(q), it->dv);
  if (!fused_path(p)) return;
  const kernels::KernelSet& ks = kernels::best_kernels();
  // The scores' q' and k' (ScoringInfo::fused); dot and scaled dot scale q itself, in the same
  // pass that copies it.
  const ScoringInfo::Fused form = scoring_info(p.scoring).fused;
  const bool plain = form == ScoringInfo::Fused::kDot;
  if (plain)
    it->qs.resize(q.rows(), q.cols());
  else if (form == ScoringInfo::Fused::kBilinear)
    it->qs = times(q, p.weights.W);
  else  // kUnitRows (fused_path() excludes kNone)
    it->qs = unit_rows(q);
  ks.vscale(static_cast<int>(it->qs.size()), plain ? q.data() : it->qs.data(),
            scale * kernels::kLog2e, it->qs.data());
  const bool unit_keys = form == ScoringInfo::Fused::kUnitRows;
  const Matrix k_unit = unit_keys ? unit_rows(k) : Matrix();
  const Matrix& k_scores = unit_keys ? k_unit : k;
  const int d = cols_of(it->qs), n_q = rows_of(q), n_k = rows_of(k);
  it->packed_kt.resize(kernels::packed_size(d, n_k));
  kernels::pack_bt(d, n_k, k_scores.data(), d, it->packed_kt.data());
  it->lo.resize(n_q);
  it->hi.resize(n_q);
  for (int i = 0; i < n_q; ++i) visible_range(p.mask, it->b, i, n_k, &it->lo[i], &it->hi[i]);
  it->cells.clear();
  for (const auto& c : p.mask.cells)
    if (c[0] == it->b) it->cells.push_back({c[1], c[2]});
}

// Rows [i0, i0 + rows) of a prepared item's output.
void light_rows(const Problem& p, float scale, const LightItem& it, int i0, int rows) {
  if (!fused_path(p)) {
    HeadRows r;
    for (int r0 = i0; r0 < i0 + rows; r0 += kRowBlock) {
      const int n = std::min(kRowBlock, i0 + rows - r0);
      head_rows(p, it.head, it.b, *it.q, *it.k, it.packed_v, it.dv, scale, r0, n, &r);
      it.out->middleRows(r0, n) = r.output;
    }
    return;
  }
  std::vector<kernels::MaskedCell> cells;
  for (const kernels::MaskedCell& c : it.cells)
    if (c.i >= i0 && c.i < i0 + rows) cells.push_back({c.i - i0, c.j});
  const int d = cols_of(it.qs);
  kernels::FusedArgs args;
  args.n_q = rows;
  args.n_k = rows_of(*it.k);
  args.d = d;
  args.d_v = it.dv;
  args.q = it.qs.data() + static_cast<ptrdiff_t>(i0) * d;
  args.ldq = d;
  args.packed_kt = it.packed_kt.data();
  args.packed_v = it.packed_v.data();
  args.lo = it.lo.data() + i0;
  args.hi = it.hi.data() + i0;
  args.cells = cells.data();
  args.n_cells = static_cast<int>(cells.size());
  args.mask_value = p.mask.mask_value;
  args.out = it.out->data() + static_cast<ptrdiff_t>(i0) * it.dv;
  args.ldo = it.dv;
  // One workspace per thread, kept between calls.
  thread_local kernels::FusedWorkspace ws;
  kernels::attention_fused(kernels::best_kernels(), args, &ws);
}

// The heads of a forward pass as tasks, from their slices ht.q, ht.k, ht.v (one matrix per
// batch item) into heads head0, head0 + 1, … of p: every batch item, or only `only_item`
// (>= 0), the others' matrices left empty. First each (head, item) is prepared (its packed
// copies), then its rows are computed in blocks of kTaskRows, each block by the same code
// whatever thread runs it and whenever: run_head runs the tasks at once, RunJob in parts.
struct HeadsWork {
  const Problem* p = nullptr;
  float scale = 1.0f;
  bool keep = true;  // every intermediate (RunOptions::keep_head_matrices), or outputs only
  int head0 = 0;
  std::vector<LightItem> items;
  std::vector<std::array<Matrix*, 5>> kept;  // keep: scores, scaled, masked, weights, output
  std::vector<std::pair<int, int>> tasks;    // (item, first row)

  void setup(std::vector<HeadTrace>* heads, int only_item) {
    const int B = static_cast<int>(p->queries.size());
    for (HeadTrace& ht : *heads) {
      ht.output.resize(B);
      if (keep)
        for (Batch* m : {&ht.scores, &ht.scaled, &ht.masked, &ht.weights}) m->resize(B);
    }
    // The matrices each task writes, taken here, on one thread (Batch::mut).
    for (int h = 0; h < static_cast<int>(heads->size()); ++h) {
      HeadTrace& ht = (*heads)[h];
      for (int b = 0; b < B; ++b) {
        if (only_item >= 0 && b != only_item) continue;
        LightItem& it = items.emplace_back();
        it.head = head0 + h;
        it.b = b;
        it.q = &ht.q[b];
        it.k = &ht.k[b];
        it.v = &ht.v[b];
        it.out = &ht.output.mut(b);
        if (keep)
          kept.push_back({&ht.scores.mut(b), &ht.scaled.mut(b), &ht.masked.mut(b),
                          &ht.weights.mut(b), it.out});
      }
    }
    for (int i = 0; i < static_cast<int>(items.size()); ++i)
      for (int i0 = 0; i0 < rows_of(*items[i].q); i0 += kTaskRows) tasks.emplace_back(i, i0);
  }
  // Multiply-adds, about: of preparing item i, and of one task.
  double prepare_work(int i) const {
    const LightItem& it = items[i];
    return static_cast<double>(rows_of(*it.k)) * (cols_of(*it.k) + cols_of(*it.v)) +
           static_cast<double>(rows_of(*it.q)) * cols_of(*it.q) *
               (p->scoring == Scoring::kGeneral ? cols_of(*it.q) : 1);
  }
  double task_work(int task) const {
    const LightItem& it = items[tasks[task].first];
    return static_cast<double>(std::min(kTaskRows, rows_of(*it.q) - tasks[task].second)) *
           rows_of(*it.k) * (cols_of(*it.q) + cols_of(*it.v));
  }
  void prepare(int i) {
    LightItem& it = items[i];
    if (!keep) {
      prepare_light(*p, scale, &it);
      return;
    }
    it.dv = cols_of(*it.v);
    it.packed_v = packed_b(*it.v, 0, it.dv);
    const int n_q = rows_of(*it.q), n_k = rows_of(*it.k);
    if (n_q <= kTaskRows) return;  // one task, which moves its rows in
    for (int m = 0; m < 4; ++m) kept[i][m]->resize(n_q, n_k);
    kept[i][4]->resize(n_q, it.dv);
  }
  void run(int task) {
    const auto [i, i0] = tasks[task];
    const LightItem& it = items[i];
    const int rows = std::min(kTaskRows, rows_of(*it.q) - i0);
    if (!keep) {
      light_rows(*p, scale, it, i0, rows);
      return;
    }
    HeadRows r;
    head_rows(*p, it.head, it.b, *it.q, *it.k, it.packed_v, it.dv, scale, i0, rows, &r);
    Matrix* parts[5] = {&r.scores, &r.scaled, &r.masked, &r.weights, &r.output};
    for (int m = 0; m < 5; ++m) {
      if (rows == rows_of(*it.q))
        *kept[i][m] = std::move(*parts[m]);
      else
        kept[i][m]->middleRows(i0, rows) = *parts[m];
    }
  }
};

// x · W for every batch item as tasks of kProductRows rows (the same kernel calls as
// times(x, W)), into `out`; x itself, shared, when W is absent.
struct ProductWork {
  const Batch* x = nullptr;
  std::vector<float> packed;
  int n = 0, k = 0;
  std::vector<Matrix*> out;
  std::vector<std::pair<int, int>> tasks;  // (item, first row)

  // Columns [col0, col0 + cols) of the product (cols < 0: all of them).
  void setup(const Batch& in, const Matrix& W, Batch* result, int col0 = 0, int cols = -1) {
    if (!W.size()) {
      *result = cols < 0 ? in : slice_cols(in, col0, cols);
      return;
    }
    x = &in;
    n = cols < 0 ? cols_of(W) : cols;
    k = rows_of(W);
    packed = packed_b(W, col0, n);
    *result = Batch(in.size());
    for (size_t b = 0; b < in.size(); ++b) {
      Matrix& m = result->mut(b);
      m.resize(in[b].rows(), n);
      out.push_back(&m);
      for (int i0 = 0; i0 < rows_of(in[b]); i0 += kProductRows)
        tasks.emplace_back(static_cast<int>(b), i0);
    }
  }
  double task_work() const { return static_cast<double>(kProductRows) * n * k; }
  void run(int task) const {
    const auto [b, i0] = tasks[task];
    const Matrix& in = (*x)[b];
    kernels::gemm(kernels::best_kernels(), std::min(kProductRows, rows_of(in) - i0), n, k,
                  in.data() + static_cast<ptrdiff_t>(i0) * k, k, packed.data(),
                  out[b]->data() + static_cast<ptrdiff_t>(i0) * n, n);
  }
};

}  // namespace

// One stage of RunJob: `count` tasks of about `work` multiply-adds each, which `setup` (cheap:
// slices, allocations) makes when the stage starts.
struct RunJob::Stage {
  std::function<void()> setup;
  std::function<int()> count;
  std::function<double(int)> work;
  std::function<void(int)> task;
};

struct RunJob::State {
  const Problem& p;
  RunOptions options;
  int head = -1, item = -1;  // a job of run_head's: that head (and item, if >= 0)
  Trace t;
  HeadShape hs;
  ProductWork proj[3], out;
  HeadsWork heads;
  std::vector<Stage> stages;
  size_t stage = 0;
  bool started = false;
  int next = 0;
  double total = 0, done = 0;  // work
  double ms_per_work = 0;      // measured on the last part
  State(const Problem& problem, const RunOptions& o) : p(problem), options(o) {}

  void build();
};

void RunJob::State::build() {
  State& s = *this;
  s.hs = head_shape(p);
  const bool additive = p.scoring == Scoring::kAdditive;
  const Weights& w = p.weights;
  const bool one = head >= 0;
  // The projections: of one head, only its columns (the same kernel sums as of all of them).
  s.stages.push_back(
      Stage{[&s, additive, &w, one] {
              encode_inputs(s.p, &s.t);
              const int h = std::max(s.head, 0);
              s.proj[0].setup(s.t.queries, additive ? Matrix() : w.W_q, &s.t.q_proj, h * s.hs.dq,
                              one && !additive ? s.hs.dq : -1);
              s.proj[1].setup(s.t.keys, additive ? Matrix() : w.W_k, &s.t.k_proj, h * s.hs.dk,
                              one && !additive ? s.hs.dk : -1);
              s.proj[2].setup(s.t.values, w.W_v, &s.t.v_proj, h * s.hs.dv, one ? s.hs.dv : -1);
            },
            [&s] {
              return static_cast<int>(s.proj[0].tasks.size() + s.proj[1].tasks.size() +
                                      s.proj[2].tasks.size());
            },
            [&s](int task) {
              for (const ProductWork& pw : s.proj) {
                if (task < static_cast<int>(pw.tasks.size())) return pw.task_work();
                task -= static_cast<int>(pw.tasks.size());
              }
              return 0.0;
            },
            [&s](int task) {
              for (const ProductWork& pw : s.proj) {
                if (task < static_cast<int>(pw.tasks.size())) return pw.run(task);
                task -= static_cast<int>(pw.tasks.size());
              }
            }});
  // Each head's slices and packed copies, then its rows.
  s.stages.push_back(Stage{[&s, one] {
                             s.heads.p = &s.p;
                             s.heads.scale = s.hs.scale;
                             s.heads.keep = one || s.options.keep_head_matrices;
                             if (one) {
                               s.t.heads.resize(1);
                               s.t.heads[0].q = s.t.q_proj;
                               s.t.heads[0].k = s.t.k_proj;
                               s.t.heads[0].v = s.t.v_proj;
                               s.heads.head0 = s.head;
                               s.heads.setup(&s.t.heads, s.item);
                               return;
                             }
                             const int H = s.p.heads;
                             s.t.heads.resize(H);
                             for (int h = 0; h < H; ++h) {
                               HeadTrace& ht = s.t.heads[h];
                               ht.q = slice_cols(s.t.q_proj, h * s.hs.dq, s.hs.dq);
                               ht.k = slice_cols(s.t.k_proj, h * s.hs.dk, s.hs.dk);
                               ht.v = slice_cols(s.t.v_proj, h * s.hs.dv, s.hs.dv);
                             }
                             s.heads.setup(&s.t.heads, -1);
                           },
                           [&s] { return static_cast<int>(s.heads.items.size()); },
                           [&s](int i) { return s.heads.prepare_work(i); },
                           [&s](int i) { s.heads.prepare(i); }});
  s.stages.push_back(Stage{[] {}, [&s] { return static_cast<int>(s.heads.tasks.size()); },
                           [&s](int task) { return s.heads.task_work(task); },
                           [&s](int task) { s.heads.run(task); }});
  // The heads side by side, and times W_o.
  if (!one)
    s.stages.push_back(Stage{[&s, &w] {
                               std::vector<const Batch*> outputs;
                               for (const HeadTrace& ht : s.t.heads) outputs.push_back(&ht.output);
                               s.t.concat = concat_heads(outputs);
                               s.out.setup(s.t.concat, w.W_o, &s.t.output);
                             },
                             [&s] { return static_cast<int>(s.out.tasks.size()); },
                             [&s](int) { return s.out.task_work(); },
                             [&s](int task) { s.out.run(task); }});
  // The whole work, from the sizes alone (for progress()).
  const double B = static_cast<double>(p.queries.size()), n_q = batch_rows(p.queries),
               n_k = batch_rows(p.keys), H = one ? 1 : p.heads, items = one && item >= 0 ? 1 : B;
  const double d_q = batch_cols(p.queries), d_k = batch_cols(p.keys), d_v = batch_cols(p.values);
  const double share = one ? 1.0 / p.heads : 1.0;  // of the projections' columns
  if (!additive) s.total += B * share * (n_q * d_q * cols_of(w.W_q) + n_k * d_k * cols_of(w.W_k));
  s.total += B * share * n_k * d_v * cols_of(w.W_v);
  s.total += items * H * (n_q * n_k * (s.hs.dq + s.hs.dv) + n_k * (s.hs.dk + s.hs.dv));
  if (!one) s.total += B * n_q * H * s.hs.dv * cols_of(w.W_o);
}

RunJob::RunJob(const Problem& p, const RunOptions& options)
    : s_(std::make_unique<State>(p, options)) {
  s_->build();
}

RunJob::RunJob(const Problem& p, int head, int item)
    : s_(std::make_unique<State>(p, RunOptions{})) {
  s_->head = head;
  s_->item = item;
  s_->build();
}

RunJob::~RunJob() = default;
RunJob::RunJob(RunJob&&) noexcept = default;
RunJob& RunJob::operator=(RunJob&&) noexcept = default;

bool RunJob::done() const {
  return s_->stage >= s_->stages.size();
}

double RunJob::progress() const {
  if (done()) return 1.0;
  return s_->total > 0 ? std::min(0.99, s_->done / s_->total) : 0.0;
}

bool RunJob::advance(double budget_ms) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const bool bounded = budget_ms > 0 && std::isfinite(budget_ms);
  const auto t0 = Clock::now();
  State& s = *s_;
  while (!done()) {
    Stage& stage = s.stages[s.stage];
    if (!s.started) {
      stage.setup();
      s.started = true;
      s.next = 0;
    }
    const int count = stage.count();
    if (s.next < count) {
      // As many tasks as the time left allows at the pace of the last part: one at least.
      int n = count - s.next;
      if (bounded) {
        const double left = budget_ms - since(t0);
        int fit = 1;
        double work = stage.work(s.next);
        while (fit < n && s.ms_per_work > 0 &&
               (work + stage.work(s.next + fit)) * s.ms_per_work <= left)
          work += stage.work(s.next + fit++);
        n = fit;
      }
      const int first = s.next;
      double work = 0;
      for (int i = 0; i < n; ++i) work += stage.work(first + i);
      const auto c0 = Clock::now();
      parallel_for(n, work, [&](int i) { stage.task(first + i); });
      if (work > 0) s.ms_per_work = since(c0) / work;
      s.next += n;
      s.done += work;
    }
    if (s.next >= count) {
      ++s.stage;
      s.started = false;
    }
    if (bounded && since(t0) >= budget_ms) break;
  }
  return done();
}

Trace RunJob::take() {
  advance(0);
  return std::move(s_->t);
}

HeadTrace RunJob::take_head() {
  advance(0);
  return std::move(s_->t.heads[0]);
}

Trace run(const Problem& p) {
  return run(p, RunOptions{});
}

Trace run(const Problem& p, const RunOptions& options) {
  return RunJob(p, options).take();
}

Batch concat_heads(const std::vector<const Batch*>& outputs) {
  const int B = static_cast<int>(outputs[0]->size());
  const int n_q = batch_rows(*outputs[0]), dv = batch_cols(*outputs[0]);
  const int H = static_cast<int>(outputs.size());
  if (H == 1) return *outputs[0];  // shared
  Batch concat(B);
  for (int b = 0; b < B; ++b) {
    Matrix& c = concat.mut(b);
    c.resize(n_q, dv * H);
    for (int h = 0; h < H; ++h) c.middleCols(h * dv, dv) = (*outputs[h])[b];
  }
  return concat;
}

Batch output_of(const Problem& p, const Batch& concat) {
  return times(concat, p.weights.W_o);
}

HeadTrace run_head(const Problem& p, int head, int item) {
  return RunJob(p, head, item).take_head();
}

namespace {

constexpr int64_t kFloat = sizeof(float);

}  // namespace

int64_t trace_bytes(const Problem& p, const RunOptions& options) {
  const HeadShape hs = head_shape(p);
  const int64_t B = static_cast<int64_t>(p.queries.size()), H = p.heads;
  const int64_t n_q = batch_rows(p.queries), n_k = batch_rows(p.keys);
  const Weights& w = p.weights;
  const bool additive = p.scoring == Scoring::kAdditive;
  int64_t floats = 0;
  // Without positional encoding Trace::queries, keys and values share the problem's matrices;
  // without W_q (or in additive scoring) q_proj shares Trace::queries, and so on.
  if (p.positional_encoding)
    floats += 2 * (batch_cells(p.queries) + batch_cells(p.keys)) +
              batch_cells(p.values);  // sums and the PE
  if (!additive && w.W_q.size()) floats += B * n_q * hs.dq * H;
  if (!additive && w.W_k.size()) floats += B * n_k * hs.dk * H;
  if (w.W_v.size()) floats += B * n_k * hs.dv * H;
  // One head's slices are the projections themselves, its output the concatenation.
  if (H > 1) floats += B * (n_q * hs.dq + n_k * hs.dk + n_k * hs.dv) * H + B * n_q * hs.dv * H;
  floats += B * n_q * hs.dv * H;                       // the heads' outputs
  if (w.W_o.size()) floats += B * n_q * w.W_o.cols();  // output (else: the concatenation)
  int64_t bytes = floats * kFloat;
  if (options.keep_head_matrices) bytes += head_matrix_bytes(p);
  return bytes;
}

int64_t head_matrix_bytes(const Problem& p) {
  const int64_t B = static_cast<int64_t>(p.queries.size());
  const int64_t n_q = batch_rows(p.queries), n_k = batch_rows(p.keys);
  return 4 * static_cast<int64_t>(p.heads) * B * n_q * n_k * static_cast<int64_t>(sizeof(float));
}

}  // namespace attn
