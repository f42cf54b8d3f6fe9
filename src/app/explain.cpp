// The teaching model of the pipeline: step names, formulas, explanations, cell arithmetic.
//
// [SECTION] Formatting
// [SECTION] Steps
// [SECTION] Masks
// [SECTION] Cell arithmetic
#include "app/explain.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "app/i18n.h"

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Formatting
//-----------------------------------------------------------------------------

namespace {

std::string fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

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
  if (elide) s += fmt("  (%d terms)", n);
  return s;
}

const char* kDot = "\xc2\xb7";    // ·
const char* kTimes = "\xc3\x97";  // ×

}  // namespace

std::string num(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "\xe2\x88\x92\xe2\x88\x9e" : "\xe2\x88\x9e";  // −∞, ∞
  if (v == -1e6f)
    return "\xe2\x88\x92"
           "1e6";
  std::string s;
  if (std::fabs(v) >= 1e5f || (v != 0.0f && std::fabs(v) < 1e-3f)) {
    s = fmt("%.2e", static_cast<double>(v));
  } else {
    s = fmt("%.4g", static_cast<double>(v));
  }
  if (s == "-0") s = "0";
  if (!s.empty() && s[0] == '-') s = "\xe2\x88\x92" + s.substr(1);  // a real minus sign
  return s;
}

std::string cell_number(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "\xe2\x88\x92\xe2\x88\x9e" : "\xe2\x88\x9e";
  const float a = std::fabs(v);
  std::string s;
  if (a >= 1e5f) {
    // The shortest of 1 or 2 significant digits that reads back to v, else 2 digits.
    s = fmt("%.0e", static_cast<double>(v));
    if (std::strtof(s.c_str(), nullptr) != v) s = fmt("%.1e", static_cast<double>(v));
    const size_t e = s.find('e');
    s = s.substr(0, e) + "e" + std::to_string(std::atoi(s.c_str() + e + 1));
  } else {
    s = fmt(a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", static_cast<double>(v));
  }
  if (s == "-0.00") s = "0.00";
  if (!s.empty() && s[0] == '-') s = "\xe2\x88\x92" + s.substr(1);  // a real minus sign
  return s;
}

std::string sub(int zero_based) {
  static const char* digits[] = {"\xe2\x82\x80", "\xe2\x82\x81", "\xe2\x82\x82", "\xe2\x82\x83",
                                 "\xe2\x82\x84", "\xe2\x82\x85", "\xe2\x82\x86", "\xe2\x82\x87",
                                 "\xe2\x82\x88", "\xe2\x82\x89"};
  const std::string n = std::to_string(zero_based + 1);
  std::string s;
  for (char c : n) s += digits[c - '0'];
  return s;
}

//-----------------------------------------------------------------------------
// [SECTION] Steps
//-----------------------------------------------------------------------------

const char* step_name(Step s) {
  switch (s) {
    case Step::kInputs:
      return N_("Inputs");
    case Step::kProjections:
      return N_("Projections");
    case Step::kScores:
      return N_("Scores");
    case Step::kScaled:
      return N_("Scaled");
    case Step::kMasked:
      return N_("Masked");
    case Step::kWeights:
      return N_("Weights");
    case Step::kWeightedValues:
      return N_("Weighted values");
    case Step::kOutput:
      return N_("Output");
  }
  return "";
}

const char* scoring_label(attn::Scoring s) {
  switch (s) {
    case attn::Scoring::kDot:
      return N_("dot product");
    case attn::Scoring::kScaledDot:
      return N_("scaled dot product");
    case attn::Scoring::kAdditive:
      return N_("additive (Bahdanau)");
    case attn::Scoring::kGeneral:
      return N_("general (bilinear)");
    case attn::Scoring::kCosine:
      return N_("cosine");
  }
  return "";
}

MatrixKind step_matrix(Step s) {
  switch (s) {
    case Step::kInputs:
      return MatrixKind::kQueries;
    case Step::kProjections:
      return MatrixKind::kQ;
    case Step::kScores:
      return MatrixKind::kScores;
    case Step::kScaled:
      return MatrixKind::kScaled;
    case Step::kMasked:
      return MatrixKind::kMasked;
    case Step::kWeights:
      return MatrixKind::kWeights;
    case Step::kWeightedValues:
      return MatrixKind::kHeadOutput;
    case Step::kOutput:
      return MatrixKind::kOutput;
  }
  return MatrixKind::kWeights;
}

const char* step_explanation(Step s, const attn::Problem& p) {
  switch (s) {
    case Step::kInputs:
      return p.positional_encoding
                 ? N_("Each row is one token's vector. Positional encoding adds a different "
                      "pattern "
                      "of sines and cosines to every position, so equal tokens at different places "
                      "become different vectors.")
                 : N_("Each row is one token's vector. Attention will compare every query row with "
                      "every key row, then mix the value rows.");
    case Step::kProjections:
      if (p.scoring == attn::Scoring::kAdditive)
        return N_(
            "Additive scoring keeps the inputs as they are: its W_q and W_k belong to the "
            "scoring network of the next step.");
      return p.weights.W_q.size() || p.weights.W_k.size() || p.weights.W_v.size()
                 ? N_("Learned matrices turn each input row into a query (what it looks for), a "
                      "key "
                      "(what it offers) and a value (what it passes on). With several heads, each "
                      "head takes its own block of columns.")
                 : N_("There are no learned weights in this scenario, so the queries, keys and "
                      "values "
                      "are used as they are.");
    case Step::kScores:
      switch (p.scoring) {
        case attn::Scoring::kAdditive:
          return N_(
              "A small network scores each pair: query and key are mapped to a shared hidden "
              "size, added, squashed by tanh and read out by w_v. Query and key may have "
              "different sizes.");
        case attn::Scoring::kGeneral:
          return N_(
              "A bilinear score q·W·k: the matrix W learns which query features should "
              "match which key features.");
        case attn::Scoring::kCosine:
          return N_(
              "The cosine of the angle between query and key: only the direction counts, not "
              "the length, so every score lies between -1 and 1.");
        default:
          return N_(
              "The score of a query and a key is their dot product: large when the two "
              "vectors point the same way, negative when they point apart.");
      }
    case Step::kScaled:
      return p.scoring == attn::Scoring::kScaledDot
                 ? N_("For random queries and keys, the variance of a dot product grows in "
                      "proportion to the vector size d, so large d would push the softmax to "
                      "all-or-nothing; dividing by the square root of d brings the variance back "
                      "to about 1. The temperature T divides too: above 1 it flattens the "
                      "weights, below 1 it sharpens them.")
                 : N_("The temperature T divides the scores: above 1 it flattens the weights, "
                      "below 1 "
                      "it sharpens them.");
    case Step::kMasked:
      return p.mask.any()
                 ? N_("Keys a query must not see get a very negative score, so that the softmax "
                      "gives them weight 0: padding past the valid length, later words under a "
                      "causal mask, keys outside a local window, or cells you masked by hand. A "
                      "row with every key masked has nothing left to choose: under -1e6 its "
                      "weights are uniform, under -\xe2\x88\x9e undefined (NaN).")
                 : N_("Nothing is masked in this scenario: every query may look at every key. Try "
                      "a "
                      "valid length, the causal mask or a window.");
    case Step::kWeights:
      if (p.hard && p.hard_gradient == attn::HardGradient::kStraightThrough)
        return N_(
            "Hard attention puts all the weight on the single best key of each row (the "
            "first one if several tie). Trained straight through: the backward pass treats "
            "these one-hot rows as if they were the softmax of the same scores.");
      if (p.hard)
        return N_(
            "Hard attention puts all the weight on the single best key of each row (the "
            "first one if several tie).");
      return p.dropout_p > 0
                 ? N_("The softmax turns each row of scores into weights that are positive and sum "
                      "to 1. In train mode dropout then zeroes some weights at random and scales "
                      "up "
                      "the rest.")
                 : N_("The softmax turns each row of scores into weights that are positive and sum "
                      "to 1. A masked cell gets exactly 0, unless every key of its row is masked.");
    case Step::kWeightedValues:
      return N_(
          "Each output row is a weighted sum of the value rows: the weights of a query say "
          "how much of each value it takes.");
    case Step::kOutput:
      if (p.heads == 1 && !p.weights.W_o.size())
        return N_("With one head and no output matrix W_o, the weighted sum is the final output.");
      return N_(
          "The heads' outputs are put side by side, and the output matrix W_o mixes them "
          "into the final output.");
  }
  return "";
}

std::string step_formula(Step s, const attn::Problem& p) {
  const int H = p.heads;
  const int d_k = attn::head_shape(p).dk;
  switch (s) {
    case Step::kInputs:
      return p.positional_encoding
                 ? fmt("X + PE,   PE[p, 2i] = sin(p / %g^(2i/d)),   PE[p, 2i+1] = cos(p / "
                       "%g^(2i/d))",
                       p.pe_base, p.pe_base)
                 : T("X: one row per token");
    case Step::kProjections:
      if (p.scoring == attn::Scoring::kAdditive)
        return fmt("Q = %s,   K = %s,   V = %s", T("queries"), T("keys"), T("values"));
      // A missing weight means no projection: that input is used as it is.
      return fmt("Q = %s,   K = %s,   V = %s",
                 p.weights.W_q.size() ? fmt("X%sW_q", kDot).c_str() : T("queries"),
                 p.weights.W_k.size() ? fmt("X%sW_k", kDot).c_str() : T("keys"),
                 p.weights.W_v.size() ? fmt("X%sW_v", kDot).c_str() : T("values")) +
             (H > 1 ? fmt(T(",   head h takes columns (h\xe2\x88\x92"
                            "1)%sd/%d + 1 to h%sd/%d"),
                          kDot, H, kDot, H)
                    : "");
    case Step::kScores:
      switch (p.scoring) {
        case attn::Scoring::kAdditive:
          return "S[i,j] = w_v \xc2\xb7 tanh(q_i\xc2\xb7W_q + k_j\xc2\xb7W_k)";
        case attn::Scoring::kGeneral:
          return "S = Q\xc2\xb7W\xc2\xb7K\xe1\xb5\x80";
        case attn::Scoring::kCosine:
          return "S[i,j] = q_i\xc2\xb7k_j / (\xe2\x80\x96q_i\xe2\x80\x96 "
                 "\xe2\x80\x96k_j\xe2\x80\x96)";
        default:
          return "S = Q\xc2\xb7K\xe1\xb5\x80";
      }
    case Step::kScaled:
      return p.scoring == attn::Scoring::kScaledDot
                 ? fmt("S' = S / \xe2\x88\x9a"
                       "d / T,   d = %d,   T = %s",
                       d_k, num(p.temperature).c_str())
                 : fmt("S' = S / T,   T = %s", num(p.temperature).c_str());
    case Step::kMasked: {
      std::string rules;
      if (!p.mask.valid_lens.empty()) rules += T("key j > valid length");
      if (p.mask.causal) rules += std::string(rules.empty() ? "" : ", ") + "j > i";
      if (p.mask.window >= 0)
        rules +=
            std::string(rules.empty() ? "" : ", ") + fmt("|i \xe2\x88\x92 j| > %d", p.mask.window);
      if (!p.mask.cells.empty())
        rules += std::string(rules.empty() ? "" : ", ") + T("clicked cells");
      return "M[i,j] = " + num(p.mask.mask_value) + T(" where masked") +
             (rules.empty() ? std::string(T(" (nothing is)")) : " (" + rules + ")") +
             T(", else S'[i,j]");
    }
    case Step::kWeights: {
      std::string f = p.hard ? "A[i,\xc2\xb7] = one-hot(argmax_j M[i,j])"
                             : "A[i,j] = exp(M[i,j] \xe2\x88\x92 max M[i,\xc2\xb7]) / "
                               "\xce\xa3_j exp(M[i,j] \xe2\x88\x92 max M[i,\xc2\xb7])";
      if (p.dropout_p > 0)
        f += fmt(T(",   then dropout p = %s: dropped \xe2\x86\x92 0, kept %s 1/(1 \xe2\x88\x92 p)"),
                 num(p.dropout_p).c_str(), kTimes);
      return f;
    }
    case Step::kWeightedValues:
      return H > 1 ? "O_h = A_h\xc2\xb7V_h" : "O = A\xc2\xb7V";
    case Step::kOutput:
      if (H == 1)  // O₁ rather than O, which the monospaced font draws much like 0
        return std::string(T("Output")) + " = O" + sub(0) +
               (p.weights.W_o.size() ? "\xc2\xb7W_o" : "");
      if (H == 2)
        return fmt("%s = [O%s | O%s]%s", T("Output"), sub(0).c_str(), sub(1).c_str(),
                   p.weights.W_o.size() ? "\xc2\xb7W_o" : "");
      return fmt("%s = [O%s | %s | O%s]%s", T("Output"), sub(0).c_str(), "\xe2\x80\xa6",
                 sub(H - 1).c_str(), p.weights.W_o.size() ? "\xc2\xb7W_o" : "");
  }
  return "";
}

//-----------------------------------------------------------------------------
// [SECTION] Masks
//-----------------------------------------------------------------------------

std::string overflow_text(const CellRef& c, const attn::Problem& p) {
  const MatrixInfo& info = matrix_info(c.kind);
  std::string where = fmt("%s [%d, %d]", T(info.title), c.row + 1, c.col + 1);
  if (info.per_head && p.heads > 1) where += fmt(T(", head %d"), c.head + 1);
  if (p.queries.size() > 1) where += fmt(T(", batch item %d"), c.batch + 1);
  std::string text = fmt(T("%s is beyond the largest float32 number (3.4e38), so what is computed "
                           "from it is infinite or NaN."),
                         where.c_str());
  if (c.kind == MatrixKind::kScaled && p.temperature < 1e-3f)
    text += " " + fmt(T("The temperature %s is too small: it divides the scores."),
                      num(p.temperature).c_str());
  return text;
}

std::string mask_reason_text(const attn::MaskSpec& m, int b, int i, int j) {
  const attn::MaskReason r = attn::mask_reason(m, b, i, j);
  switch (r.rule) {
    case attn::MaskRule::kNone:
      return "";
    case attn::MaskRule::kValidLength:
      return fmt(T("key %d is past the valid length %d of batch item %d"), j + 1, r.valid_len,
                 b + 1);
    case attn::MaskRule::kCausal:
      return fmt(T("causal mask: key %d comes after query %d"), j + 1, i + 1);
    case attn::MaskRule::kWindow:
      return fmt(T("local window: key %d is more than %d away from query %d"), j + 1, m.window,
                 i + 1);
    case attn::MaskRule::kCell:
      return T("masked by hand");
  }
  return "";
}

//-----------------------------------------------------------------------------
// [SECTION] Cell arithmetic
//-----------------------------------------------------------------------------

namespace {

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
        fmt(T("hard attention: the largest score of row %d is at key %d"), i + 1, arg + 1));
    lines.push_back(fmt("w%s%s = %s", sub(i).c_str(), sub(j).c_str(), j == arg ? "1" : "0"));
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
          fmt("\xce\xb1 = 1 / %d = %s", n_k, num(static_cast<float>(1.0 / n_k)).c_str()));
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
      lines.push_back(fmt("%s[%d, %d] = %s", name, i + 1, j + 1, num(used[b](i, j)).c_str()));
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
      lines.push_back(fmt("PE[%d, %d] = %s(%d / %g^(%d/%d))", i, j, j % 2 ? "cos" : "sin", i,
                          p.pe_base, two_i, d));
      lines.push_back(fmt("= %s(%s) = ", j % 2 ? "cos" : "sin", num(float(angle)).c_str()) +
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
        lines.push_back(fmt("%s[%d, %d] = %s", name, i + 1, j + 1, num((*W)(i, j)).c_str()));
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
      lines.push_back(fmt(T("%s[%d, %d] (head %d, column %d of the projection)"), name, i + 1,
                          j + 1, c.head + 1, col + 1));
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
      lines.push_back(
          fmt("O[%d, %d] = \xce\xa3_j A[%d, j]%sV[j, %d]", i + 1, j + 1, i + 1, kDot, j + 1));
      lines.push_back("= " + dot_terms(w.row(i).data(), 1, v.data() + j, static_cast<int>(v.cols()),
                                       static_cast<int>(w.cols())));
      lines.push_back("= " + num(ht.output[b](i, j)));
      break;
    }
    case MatrixKind::kConcat: {
      const int width = attn::batch_cols(t.heads[0].output);
      lines.push_back(fmt(T("column %d comes from head %d (its column %d)"), j + 1, j / width + 1,
                          j % width + 1));
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
