// The attention core's steps: scoring, masking, softmax (or hard attention), dropout and the
// products they run on. attn::validate is in validate.cpp, one head's rows as tasks in
// head_work.cpp, and the forward pass that runs them (attn::RunJob, attn::run) in run.cpp.
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
#include "core/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/attention_work.h"
#include "core/kernels.h"
#include "core/kernels_exp.h"
#include "core/parallel.h"
#include "core/random.h"

namespace attn {

using namespace work;

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
  {Scoring::kGaussian,  "gaussian",   true,    false,   Fused::kNone},
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

namespace work {
std::vector<float> packed_b(const Matrix& W, int col0, int cols) {
  std::vector<float> packed(kernels::packed_size(rows_of(W), cols));
  kernels::pack_b(rows_of(W), cols, W.data() + col0, cols_of(W), packed.data());
  return packed;
}

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

Batch times(const Batch& x, const Matrix& W) {
  if (!W.size()) return x;
  const std::vector<float> packed = packed_b(W, 0, cols_of(W));
  Batch out(x.size());
  for (size_t b = 0; b < x.size(); ++b) out.mut(b) = times_packed(x[b], packed, cols_of(W));
  return out;
}

Batch slice_cols(const Batch& x, int col0, int cols) {
  if (col0 == 0 && cols == batch_cols(x)) return x;
  Batch out(x.size());
  for (size_t b = 0; b < x.size(); ++b) out.mut(b) = x[b].middleCols(col0, cols);
  return out;
}

}  // namespace work

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

Matrix score_gaussian(const Matrix& q, const Matrix& k, float sigma) {
  // A scalar loop, O(n_q·n_k·d) like the product it stands in for: the distance is summed
  // in double (as vector_length is), then divided by 2σ² once.
  const int n_q = rows_of(q), n_k = rows_of(k), d = cols_of(q);
  const double over = -1.0 / (2.0 * static_cast<double>(sigma) * sigma);
  Matrix s(n_q, n_k);
  for (int i = 0; i < n_q; ++i) {
    const float* qi = q.data() + static_cast<ptrdiff_t>(i) * d;
    for (int j = 0; j < n_k; ++j) {
      const float* kj = k.data() + static_cast<ptrdiff_t>(j) * d;
      double sum = 0.0;
      for (int c = 0; c < d; ++c) {
        const double diff = static_cast<double>(qi[c]) - kj[c];
        sum += diff * diff;
      }
      s(i, j) = static_cast<float>(sum * over);
    }
  }
  return s;
}

namespace work {

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
    case Scoring::kGaussian:
      return score_gaussian(q, k, w.sigma);
  }
  return Matrix();
}

}  // namespace work

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

namespace work {

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

}  // namespace work

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

// log(x) for a finite x > 0, in double with + − × ÷ only, so that it gives the same bits on
// every platform (libm's log may differ in the last bit): x = m·2^e with m in [√½, √2), then
// log m = 2·atanh(s) = 2(s + s³/3 + s⁵/5 + …) with s = (m − 1)/(m + 1), |s| < 0.172, summed to
// s²⁹ (the next term is below 1e-23 of the sum).
double portable_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1), exact
  if (m < 0.70710678118654752) {
    m *= 2.0;
    e -= 1;
  }
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double sum = 0.0;
  for (int k = 29; k >= 1; k -= 2) sum = sum * s2 + 1.0 / k;
  return e * 0.69314718055994531 + 2.0 * s * sum;
}

// The stream Gumbel's draws take, apart from dropout's: xored into the seed (its top bit set,
// so no seed below 2^63 meets it).
constexpr uint64_t kGumbelStream = 0xD1B54A32D192ED03ull;

}  // namespace

float gumbel_noise(uint64_t seed, int head, int b, int i, int j, int batch_size, int n_q, int n_k) {
  const uint64_t row = (static_cast<uint64_t>(head) * batch_size + b) * n_q + i;
  const uint64_t bits = splitmix64((seed ^ kGumbelStream) ^ splitmix64(row * n_k + j));
  const double u = (static_cast<double>(bits >> 40) + 0.5) * (1.0 / 16777216.0);
  return static_cast<float>(-portable_log(-portable_log(u)));
}

namespace work {

void gumbel_rows(Matrix* x, const Problem& p, int head, int batch, int batch_size, int n_q, int i0,
                 bool over_tau) {
  const int rows = rows_of(*x), n_k = cols_of(*x);
  const float tau = p.gumbel_tau;
  std::vector<uint8_t> hidden(static_cast<size_t>(n_k));
  for (int r = 0; r < rows; ++r) {
    const int i = i0 + r;
    int lo, hi;
    visible_range(p.mask, batch, i, n_k, &lo, &hi);
    for (int j = 0; j < n_k; ++j) hidden[j] = j < lo || j >= hi;
    for (const auto& c : p.mask.cells)
      if (c[0] == batch && c[1] == i && c[2] < n_k) hidden[c[2]] = 1;
    for (int j = 0; j < n_k; ++j) {
      if (hidden[j]) continue;
      float& v = (*x)(r, j);
      v += gumbel_noise(p.gumbel_seed, head, batch, i, j, batch_size, n_q, n_k);
      if (over_tau) v /= tau;
    }
  }
}

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

}  // namespace work

}  // namespace attn
