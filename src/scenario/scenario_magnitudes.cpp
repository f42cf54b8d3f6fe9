// check_magnitudes: bounds, in double, on every number the core computes from a problem, or
// from each layer of a stack over the stream it reads (computed), so that a scenario whose
// numbers can overflow float32 is refused with the field to blame.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario.h"
#include "scenario/scenario_internal.h"

namespace scenario {

using scenario_internal::layer_name;
using scenario_internal::str;

namespace {

constexpr double kFloatMax = 3.4028234663852886e38;  // float32's largest number
// The most a bound may reach: half float32's largest number, room for the rounding of float32
// sums (the kernels' base-2 units, scores times log2 e, and their unnormalized sums are
// bounded on their own).
constexpr double kLimit = kFloatMax / 2;
constexpr double kLog2e = 1.4426950408889634;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

// The rows of one batch item of an input, as bounds: each row's length (with positional
// encoding, plus the encoding's, at most √cols) and the largest magnitude in it.
struct RowBounds {
  std::vector<double> length;
  double largest = 0.0;
};

RowBounds row_bounds(const attn::Matrix& x, bool pe) {
  RowBounds r;
  const int cols = static_cast<int>(x.cols());
  const double pe_length = pe ? std::sqrt(static_cast<double>(cols)) : 0.0;
  r.length.resize(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* row = x.data() + i * cols;
    r.length[i] = attn::vector_length(row, cols) + pe_length;
    for (int c = 0; c < cols; ++c) r.largest = std::max(r.largest, std::fabs(double{row[c]}));
  }
  if (pe) r.largest += 1.0;
  return r;
}

// A weight matrix's longest column and its Frobenius norm (bounds on x·W: each element of it
// is at most |x|·(longest column), each row's length at most |x|·|W|_F), and its largest
// magnitude.
struct WeightBounds {
  bool present = false;
  double longest_column = 0.0, frobenius = 0.0, largest = 0.0;
};

WeightBounds weight_bounds(const attn::Matrix& w) {
  WeightBounds r;
  if (!w.size()) return r;
  r.present = true;
  std::vector<double> column(w.cols(), 0.0);
  for (Eigen::Index i = 0; i < w.rows(); ++i)
    for (Eigen::Index j = 0; j < w.cols(); ++j) {
      const double v = w(i, j);
      column[j] += v * v;
      r.largest = std::max(r.largest, std::fabs(v));
    }
  double total = 0.0;
  for (double c : column) {
    total += c;
    r.longest_column = std::max(r.longest_column, std::sqrt(c));
  }
  r.frobenius = std::sqrt(total);
  return r;
}

std::string too_large(const std::string& field, const std::string& what, double bound) {
  return field + ": values too large: " + what + " can overflow float32 (up to " + num(bound) +
         "; at most " + num(kLimit) + " is safe)";
}

}  // namespace

std::string check_magnitudes(const attn::Problem& p, bool self_attention) {
  using attn::Scoring;
  const int B = static_cast<int>(p.queries.size());
  const attn::Weights& w = p.weights;
  const attn::HeadShape hs = attn::head_shape(p);
  const bool additive = p.scoring == Scoring::kAdditive;
  const bool pe = p.positional_encoding;
  const std::string qf = self_attention ? "x" : "queries", kf = self_attention ? "x" : "keys";
  const std::string vf = self_attention ? "x" : "values";
  const auto item = [B](int b) { return B > 1 ? " of batch item " + str(b) : std::string(); };
  // A temperature so small that dividing by it overflows.
  const auto too_small = [&p](const std::string& what, double bound) {
    return "temperature: is " + format_float(p.temperature) + ", too small: " + what +
           " divided by it can overflow float32 (up to " + num(bound) + "; at most " + num(kLimit) +
           " is safe)";
  };

  // The factor the scores are multiplied by (in the kernels' base-2 units, times log2 e).
  if (!std::isfinite(hs.scale))
    return "temperature: is " + format_float(p.temperature) +
           ", too small: 1/temperature is past float32's range (3.4e+38)";
  const double scale2 = static_cast<double>(hs.scale) * kLog2e;
  const double grow = std::max(1.0, scale2);  // what the scores may be multiplied by

  const WeightBounds Wq = weight_bounds(w.W_q), Wk = weight_bounds(w.W_k),
                     Wv = weight_bounds(w.W_v), Wo = weight_bounds(w.W_o), W = weight_bounds(w.W);
  double w_v_sum = 0.0;  // additive: |w_v|_1 bounds the scores
  for (Eigen::Index u = 0; u < w.w_v.size(); ++u) w_v_sum += std::fabs(double{w.w_v(u)});

  // x·W (a projection, or additive scoring's hidden layer): row i of x times any column.
  const auto product = [&](const RowBounds& x, const WeightBounds& wb, const std::string& xf,
                           const char* wf, const char* rows, int b, double limit) {
    if (!wb.present) return std::string();
    for (size_t i = 0; i < x.length.size(); ++i) {
      const double bound = x.length[i] * wb.longest_column;
      if (bound > limit)
        return too_large(
            wb.largest >= x.largest ? wf : xf,
            std::string(rows) + " " + str(static_cast<int64_t>(i)) + item(b) + " times " + wf,
            bound);
    }
    return std::string();
  };

  double values_largest = 0.0;  // a bound on every value (v = values·W_v)
  double values_input = 0.0;    // the largest magnitude in the values as given
  for (int b = 0; b < B; ++b) {
    // Self-attention shares one batch for all three (attn::Batch): its bounds are made once.
    const RowBounds q = row_bounds(p.queries[b], pe);
    const RowBounds k = p.keys.shares(p.queries) ? q : row_bounds(p.keys[b], pe);
    const RowBounds v = p.values.shares(p.keys)      ? k
                        : p.values.shares(p.queries) ? q
                                                     : row_bounds(p.values[b], pe);
    const double limit = additive ? kLimit / 2 : kLimit;  // additive sums its two products
    std::string e;
    if (!(e = product(q, Wq, qf, "W_q", "query", b, limit)).empty()) return e;
    if (!(e = product(k, Wk, kf, "W_k", "key", b, limit)).empty()) return e;
    if (!(e = product(v, Wv, vf, "W_v", "value", b, kLimit)).empty()) return e;
    values_input = std::max(values_input, v.largest);
    if (Wv.present) {
      for (double len : v.length)
        values_largest = std::max(values_largest, len * Wv.longest_column);
    } else {
      values_largest = std::max(values_largest, v.largest);
    }
    if (additive) {
      if (w_v_sum * grow > kLimit)
        return w_v_sum <= kLimit ? too_small("the scores", w_v_sum * grow)
                                 : too_large("w_v", "the scores (at most |w_v|_1)", w_v_sum);
      continue;
    }
    if (p.scoring == Scoring::kGaussian) {
      // −|q − k|² / (2σ²), with |q − k| <= |q| + |k| (projected: |x W| <= |x| |W|_F), summed in
      // double and rounded to float once; then times the scale.
      const double fq = Wq.present ? Wq.frobenius : 1.0, fk = Wk.present ? Wk.frobenius : 1.0;
      double c_max = 0.0;
      for (double len : k.length) c_max = std::max(c_max, len * fk);
      const double sigma = w.sigma, two_s2 = 2.0 * sigma * sigma;
      for (size_t i = 0; i < q.length.size(); ++i) {
        const double dist = (q.length[i] * fq + c_max) * (q.length[i] * fq + c_max);
        if (dist / two_s2 * grow <= kLimit) continue;
        const std::string what = "the score of query " + str(static_cast<int64_t>(i)) + item(b) +
                                 " and its farthest key (|q − k|² / (2σ²))";
        if (dist / two_s2 > kLimit && two_s2 >= 1.0)
          return too_large(q.length[i] * fq >= c_max ? qf : kf, what, dist / two_s2);
        if (dist / two_s2 > kLimit)
          return "sigma: is " + format_float(w.sigma) + ", too small: " + what +
                 " can overflow float32 (up to " + num(dist / two_s2) + "; at most " + num(kLimit) +
                 " is safe)";
        return too_small(what, dist / two_s2 * grow);
      }
      continue;
    }
    // The lengths of the rows that are dotted: projected (|x W| <= |x| |W|_F), general
    // scoring's q·W, or cosine scoring's unit rows. (Messages are made only on failure: this
    // runs at every training step of the CLI.)
    const bool cosine = p.scoring == Scoring::kCosine, general = p.scoring == Scoring::kGeneral;
    const double fq = (Wq.present ? Wq.frobenius : 1.0) * (general ? W.frobenius : 1.0);
    const double fk = Wk.present ? Wk.frobenius : 1.0;
    const auto a_of = [&](size_t i) { return cosine ? 1.0 : q.length[i] * fq; };
    const auto c_of = [&](size_t j) { return cosine ? 1.0 : k.length[j] * fk; };
    double c_max = 0.0;
    for (size_t j = 0; j < k.length.size(); ++j) c_max = std::max(c_max, c_of(j));
    for (size_t i = 0; i < q.length.size(); ++i) {
      const double a = a_of(i);
      if (a * c_max * grow <= kLimit && a * scale2 <= kLimit && !(general && a > kLimit)) continue;
      const std::string query = "query " + str(static_cast<int64_t>(i)) + item(b);
      if (general && a > kLimit)
        return too_large(W.largest >= q.largest ? "W" : qf, query + " times W", a);
      // The queries are multiplied by the scale before the fused kernel dots them.
      if (a * scale2 > kLimit)
        return a <= kLimit ? too_small(query, a * scale2)
                           : too_large(qf, query + " times the scores' scale", a * scale2);
      for (size_t j = 0; j < k.length.size(); ++j) {
        const double bound = a * c_of(j);
        if (bound * grow <= kLimit) continue;
        const std::string pair = "the score of query " + str(static_cast<int64_t>(i)) +
                                 " and key " + str(static_cast<int64_t>(j)) + item(b);
        if (bound <= kLimit) return too_small(pair, bound * grow);
        std::string field = q.length[i] >= k.length[j] ? qf : kf;
        if (general && W.frobenius > std::max(q.length[i], k.length[j])) field = "W";
        return too_large(field, pair + " (|q|·|k|)", bound);
      }
    }
  }

  // The weighted values: the fused kernel sums up to n_k values (each weight at most 1) before
  // it divides by the weights' sum; dropout scales the kept weights by 1/(1 - p).
  const double keep = 1.0 / (1.0 - static_cast<double>(p.dropout_p));
  const double n_k = static_cast<double>(attn::batch_rows(p.keys));
  const double weighted = values_largest * n_k * keep;
  const std::string values_field = Wv.present && Wv.largest >= values_input ? "W_v" : vf;
  if (weighted > kLimit)
    return too_large(values_field, "the sum of the values weighted by the softmax", weighted);
  // The output: each row of the heads' outputs (every number at most values_largest·keep)
  // times a column of W_o.
  if (Wo.present) {
    const double concat = std::sqrt(static_cast<double>(hs.dv) * p.heads) * values_largest * keep;
    const double bound = concat * Wo.longest_column;
    if (bound > kLimit)
      return too_large(Wo.largest >= values_largest * keep ? "W_o" : values_field,
                       "the heads' outputs times W_o", bound);
  }
  return "";
}

std::string check_magnitudes(const attn::Stack& st) {
  // Each layer is bounded as one layer (check_magnitudes above) over the stream as it is
  // computed, not over a bound of it: a bound carried from layer to layer grows with the depth
  // far faster than the numbers do (an init stack of 8 × 128 values in [-1, 1] was refused from
  // its 9th layer, up to 9e+39, while its largest score was 43.4). A layer that passes runs
  // finite in float32 whatever the order of its sums, so running it here (outputs only, as the
  // page's lean runs do) gives the stream the next layer reads, up to float32's rounding, which
  // kLimit's factor of two leaves room for.
  const int L = static_cast<int>(st.layers.size());
  attn::Batch h = attn::stack_input(st);  // h_0
  attn::RunOptions outputs_only;
  outputs_only.keep_head_matrices = false;
  for (int l = 0; l < L; ++l) {
    const attn::Problem p = attn::layer_problem(st, l, h);
    std::string e = check_magnitudes(p, true);
    if (!e.empty()) {
      // The layer's weights are its own; "x" after the first layer is the stream it reads.
      const std::string field = e.substr(0, e.find(": "));
      const std::string rest = e.substr(field.size());
      for (const char* name : attn::kWeightNames)
        if (field == name) return layer_name(l) + "." + e;
      if (field == "x" && l > 0)
        return layer_name(l) + rest + " (over the stream h_" + std::to_string(l) +
               ", computed from x and the layers before)";
      return e;
    }
    // The stream after the layer, h + its output, each number summed in double: one past
    // kLimit is refused (the next layer, the logits and the gradients read it).
    const attn::Trace t = attn::run(p, outputs_only);
    const attn::Weights& w = p.weights;
    attn::Batch next(h.size());
    for (size_t b = 0; b < h.size(); ++b) {
      const attn::Matrix& m = h[b];
      const attn::Matrix& out = t.output[b];
      for (Eigen::Index i = 0; i < m.rows(); ++i) {
        double largest = 0.0;
        for (Eigen::Index j = 0; j < m.cols(); ++j)
          largest = std::max(
              largest, std::fabs(static_cast<double>(m(i, j)) + static_cast<double>(out(i, j))));
        if (!(largest <= kLimit)) {
          const char* by = w.W_o.size() ? ".W_o" : w.W_v.size() ? ".W_v" : "";
          return too_large(layer_name(l) + by,
                           "row " + str(static_cast<int64_t>(i)) +
                               (h.size() > 1 ? " of batch item " + str(static_cast<int64_t>(b))
                                             : std::string()) +
                               " of the stream after " + layer_name(l) + " (h + its output)",
                           largest);
        }
      }
      next.mut(b) = m + out;
    }
    h = std::move(next);
  }
  return "";
}

}  // namespace scenario
