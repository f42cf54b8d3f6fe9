// The teaching model of the pipeline: number formatting, step names, formulas, explanations,
// mask reasons (the arithmetic behind a cell is in explain_cell.cpp).
//
// [SECTION] Formatting
// [SECTION] Steps
// [SECTION] Masks
#include "app/text/explain.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "app/text/explain_internal.h"
#include "app/text/i18n.h"

namespace ui {

using detail::kDot;
using detail::kTimes;

//-----------------------------------------------------------------------------
// [SECTION] Formatting
//-----------------------------------------------------------------------------

std::string printf_text(const char* format, ...) {
  // Measured first, then written: a translated sentence is never cut (a fixed buffer cut
  // English mid-word and Chinese inside a character).
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out(static_cast<size_t>(std::max(n, 0)), '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, again);
  va_end(again);
  return out;
}

std::string num(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "\xe2\x88\x92\xe2\x88\x9e" : "\xe2\x88\x9e";  // −∞, ∞
  if (v == -1e6f)
    return "\xe2\x88\x92"
           "1e6";
  std::string s;
  if (std::fabs(v) >= 1e5f || (v != 0.0f && std::fabs(v) < 1e-3f)) {
    s = printf_text("%.2e", static_cast<double>(v));
  } else {
    s = printf_text("%.4g", static_cast<double>(v));
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
    s = printf_text("%.0e", static_cast<double>(v));
    if (std::strtof(s.c_str(), nullptr) != v) s = printf_text("%.1e", static_cast<double>(v));
    const size_t e = s.find('e');
    s = s.substr(0, e) + "e" + std::to_string(std::atoi(s.c_str() + e + 1));
  } else {
    s = printf_text(a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", static_cast<double>(v));
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
    case attn::Scoring::kGaussian:
      return N_("Gaussian kernel");
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

const char* step_explanation(Step s, const attn::Problem& p, bool columns) {
  if (columns) {  // the sentences that speak of rows, said of columns
    switch (s) {
      case Step::kInputs:
        return p.positional_encoding
                   ? N_("Each column is one token's vector. Positional encoding adds a different "
                        "pattern of sines and cosines to every position, so equal tokens at "
                        "different places become different vectors.")
                   : N_("Each column is one token's vector. Attention will compare every query "
                        "column with every key column, then mix the value columns.");
      case Step::kWeights:
        if (!p.hard && !(p.dropout_p > 0))
          return N_(
              "The softmax turns each column of scores (one query's) into weights that are "
              "positive and sum to 1. A masked cell gets exactly 0, unless every key of its "
              "column is masked.");
        break;
      case Step::kProjections:
        if (p.scoring != attn::Scoring::kAdditive &&
            (p.weights.W_q.size() || p.weights.W_k.size() || p.weights.W_v.size()))
          return N_(
              "Learned matrices turn each input column into a query (what it looks for), a key "
              "(what it offers) and a value (what it passes on). With several heads, each head "
              "takes its own block of rows.");
        break;
      case Step::kWeightedValues:
        return N_(
            "Each output column is a weighted sum of the value columns: the weights of a query "
            "(its column of A) say how much of each value it takes.");
      case Step::kOutput:
        if (p.heads > 1 || p.weights.W_o.size())
          return N_(
              "The heads' outputs are stacked one above another, and the output matrix, drawn "
              "as W_o\xe1\xb5\x80, mixes them into the final output.");
        break;
      default:
        break;
    }
  }
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
        case attn::Scoring::kGaussian:
          return N_(
              "A Gaussian kernel scores each pair by distance: minus the squared distance "
              "between query and key over 2σ², 0 when they are equal and lower the farther apart "
              "they are. The width σ says how far a query reaches, and training learns it; with "
              "the softmax this is Nadaraya-Watson kernel regression.");
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
      if (p.hard && p.hard_gradient == attn::HardGradient::kGumbel && p.gumbel_soft)
        return N_(
            "Gumbel-softmax: random noise, the same for a given seed, is added to every score "
            "a query may see, and the softmax of the noisy scores divided by \xcf\x84 gives the "
            "weights. Small \xcf\x84 makes them nearly one-hot; each training step draws new "
            "noise.");
      if (p.hard && p.hard_gradient == attn::HardGradient::kGumbel)
        return N_(
            "Hard attention with Gumbel noise: random noise, the same for a given seed, is added "
            "to every score a query may see, and all the weight goes to the best noisy score, "
            "so a key that is nearly the best is sometimes picked. Training passes the gradient "
            "of the softmax of the noisy scores divided by \xcf\x84 through the one-hot rows, "
            "with new noise each step.");
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

namespace {

// The masked step's formula, in rows (M[i,j]) or in columns (M[j,i]).
std::string masked_formula(const attn::Problem& p, bool columns) {
  std::string rules;
  if (!p.mask.valid_lens.empty()) rules += T("key j > valid length");
  if (p.mask.causal) rules += std::string(rules.empty() ? "" : ", ") + "j > i";
  if (p.mask.window >= 0)
    rules += std::string(rules.empty() ? "" : ", ") +
             printf_text("|i \xe2\x88\x92 j| > %d", p.mask.window);
  if (!p.mask.cells.empty()) rules += std::string(rules.empty() ? "" : ", ") + T("clicked cells");
  return std::string(columns ? "M[j,i]" : "M[i,j]") + " = " + num(p.mask.mask_value) +
         T(" where masked") +
         (rules.empty() ? std::string(T(" (nothing is)")) : " (" + rules + ")") +
         (columns ? T(", else S'[j,i]") : T(", else S'[i,j]"));
}

// What the weights step adds for dropout, if any.
std::string dropout_formula(const attn::Problem& p) {
  if (!(p.dropout_p > 0)) return "";
  return printf_text(
      T(",   then dropout p = %s: dropped \xe2\x86\x92 0, kept %s 1/(1 \xe2\x88\x92 p)"),
      num(p.dropout_p).c_str(), kTimes);
}

// step_formula in the column convention: every matrix transposed (the tokens are columns),
// so S = KᵀQ, S[j,i] is key j against query i, A is the softmax of each column of M and
// O = V·A. The stored weights are drawn transposed too: Q = W_qᵀ·X.
std::string column_formula(Step s, const attn::Problem& p) {
  const int H = p.heads;
  const char* kT = "\xe1\xb5\x80";  // ᵀ
  switch (s) {
    case Step::kInputs:
      return p.positional_encoding
                 ? printf_text(
                       "X + PE,   PE[2i, p] = sin(p / %g^(2i/d)),   PE[2i+1, p] = cos(p / "
                       "%g^(2i/d))",
                       p.pe_base, p.pe_base)
                 : T("X: one column per token");
    case Step::kProjections:
      if (p.scoring == attn::Scoring::kAdditive)
        return printf_text("Q = %s,   K = %s,   V = %s", T("queries"), T("keys"), T("values"));
      return printf_text(
                 "Q = %s,   K = %s,   V = %s",
                 p.weights.W_q.size() ? printf_text("W_q%s%sX", kT, kDot).c_str() : T("queries"),
                 p.weights.W_k.size() ? printf_text("W_k%s%sX", kT, kDot).c_str() : T("keys"),
                 p.weights.W_v.size() ? printf_text("W_v%s%sX", kT, kDot).c_str() : T("values")) +
             (H > 1 ? printf_text(T(",   head h takes rows (h\xe2\x88\x92"
                                    "1)%sd/%d + 1 to h%sd/%d"),
                                  kDot, H, kDot, H)
                    : "");
    case Step::kScores:
      switch (p.scoring) {
        case attn::Scoring::kAdditive:
          return printf_text("S[j,i] = w_v \xc2\xb7 tanh(W_k%s\xc2\xb7k_j + W_q%s\xc2\xb7q_i)", kT,
                             kT);
        case attn::Scoring::kGeneral:
          return printf_text("S = K%s\xc2\xb7W%s\xc2\xb7Q", kT, kT);
        case attn::Scoring::kCosine:
          return "S[j,i] = k_j\xc2\xb7q_i / (\xe2\x80\x96k_j\xe2\x80\x96 "
                 "\xe2\x80\x96q_i\xe2\x80\x96)";
        case attn::Scoring::kGaussian:
          return printf_text(
              "S[j,i] = \xe2\x88\x92\xe2\x80\x96k_j \xe2\x88\x92 q_i\xe2\x80\x96\xc2\xb2 / "
              "(2\xcf\x83\xc2\xb2),   \xcf\x83 = %s",
              num(p.weights.sigma).c_str());
        default:
          return printf_text("S = K%s\xc2\xb7Q", kT);
      }
    case Step::kScaled:  // the same either way
      return step_formula(s, p, false);
    case Step::kMasked:
      return masked_formula(p, true);
    case Step::kWeights: {
      std::string f = p.hard ? "A[\xc2\xb7,i] = one-hot(argmax_j M[j,i])"
                             : "A[j,i] = exp(M[j,i] \xe2\x88\x92 max M[\xc2\xb7,i]) / "
                               "\xce\xa3_j exp(M[j,i] \xe2\x88\x92 max M[\xc2\xb7,i])";
      // (Hard attention takes no softmax: one 1 in each column, the argmax's.)
      if (!p.hard) f += T(",   softmax over each column");
      return f + dropout_formula(p);
    }
    case Step::kWeightedValues:
      return H > 1 ? "O_h = V_h\xc2\xb7"
                     "A_h"
                   : "O = V\xc2\xb7"
                     "A";
    case Step::kOutput: {
      const std::string wo = p.weights.W_o.size() ? printf_text("W_o%s\xc2\xb7", kT) : "";
      if (H == 1) return std::string(T("Output")) + " = " + wo + "O" + sub(0);
      if (H == 2)
        return printf_text("%s = %s[O%s ; O%s]", T("Output"), wo.c_str(), sub(0).c_str(),
                           sub(1).c_str());
      return printf_text("%s = %s[O%s ; %s ; O%s]", T("Output"), wo.c_str(), sub(0).c_str(),
                         "\xe2\x80\xa6", sub(H - 1).c_str());
    }
  }
  return "";
}

}  // namespace

std::string step_formula(Step s, const attn::Problem& p, bool columns) {
  if (columns) return column_formula(s, p);
  const int H = p.heads;
  const int d_k = attn::head_shape(p).dk;
  switch (s) {
    case Step::kInputs:
      return p.positional_encoding
                 ? printf_text(
                       "X + PE,   PE[p, 2i] = sin(p / %g^(2i/d)),   PE[p, 2i+1] = cos(p / "
                       "%g^(2i/d))",
                       p.pe_base, p.pe_base)
                 : T("X: one row per token");
    case Step::kProjections:
      if (p.scoring == attn::Scoring::kAdditive)
        return printf_text("Q = %s,   K = %s,   V = %s", T("queries"), T("keys"), T("values"));
      // A missing weight means no projection: that input is used as it is.
      return printf_text("Q = %s,   K = %s,   V = %s",
                         p.weights.W_q.size() ? printf_text("X%sW_q", kDot).c_str() : T("queries"),
                         p.weights.W_k.size() ? printf_text("X%sW_k", kDot).c_str() : T("keys"),
                         p.weights.W_v.size() ? printf_text("X%sW_v", kDot).c_str() : T("values")) +
             (H > 1 ? printf_text(T(",   head h takes columns (h\xe2\x88\x92"
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
        case attn::Scoring::kGaussian:  // S[i,j] = −‖q_i − k_j‖² / (2σ²),   σ = …
          return printf_text(
              "S[i,j] = \xe2\x88\x92\xe2\x80\x96q_i \xe2\x88\x92 k_j\xe2\x80\x96\xc2\xb2 / "
              "(2\xcf\x83\xc2\xb2),   \xcf\x83 = %s",
              num(p.weights.sigma).c_str());
        default:
          return "S = Q\xc2\xb7K\xe1\xb5\x80";
      }
    case Step::kScaled:
      return p.scoring == attn::Scoring::kScaledDot
                 ? printf_text(
                       "S' = S / \xe2\x88\x9a"
                       "d / T,   d = %d,   T = %s",
                       d_k, num(p.temperature).c_str())
                 : printf_text("S' = S / T,   T = %s", num(p.temperature).c_str());
    case Step::kMasked:
      return masked_formula(p, false);
    case Step::kWeights: {
      std::string f = p.hard ? "A[i,\xc2\xb7] = one-hot(argmax_j M[i,j])"
                             : "A[i,j] = exp(M[i,j] \xe2\x88\x92 max M[i,\xc2\xb7]) / "
                               "\xce\xa3_j exp(M[i,j] \xe2\x88\x92 max M[i,\xc2\xb7])";
      return f + dropout_formula(p);
    }
    case Step::kWeightedValues:
      return H > 1 ? "O_h = A_h\xc2\xb7V_h" : "O = A\xc2\xb7V";
    case Step::kOutput:
      if (H == 1)  // O₁ rather than O, which the monospaced font draws much like 0
        return std::string(T("Output")) + " = O" + sub(0) +
               (p.weights.W_o.size() ? "\xc2\xb7W_o" : "");
      if (H == 2)
        return printf_text("%s = [O%s | O%s]%s", T("Output"), sub(0).c_str(), sub(1).c_str(),
                           p.weights.W_o.size() ? "\xc2\xb7W_o" : "");
      return printf_text("%s = [O%s | %s | O%s]%s", T("Output"), sub(0).c_str(), "\xe2\x80\xa6",
                         sub(H - 1).c_str(), p.weights.W_o.size() ? "\xc2\xb7W_o" : "");
  }
  return "";
}

//-----------------------------------------------------------------------------
// [SECTION] Masks
//-----------------------------------------------------------------------------

std::string overflow_text(const CellRef& c, const attn::Problem& p) {
  const MatrixInfo& info = matrix_info(c.kind);
  std::string where = printf_text("%s [%d, %d]", T(info.title), c.row + 1, c.col + 1);
  if (info.per_head && p.heads > 1) where += printf_text(T(", head %d"), c.head + 1);
  if (p.queries.size() > 1) where += printf_text(T(", batch item %d"), c.batch + 1);
  std::string text =
      printf_text(T("%s is beyond the largest float32 number (3.4e38), so what is computed "
                    "from it is infinite or NaN."),
                  where.c_str());
  if (c.kind == MatrixKind::kScaled && p.temperature < 1e-3f)
    text += " " + printf_text(T("The temperature %s is too small: it divides the scores."),
                              num(p.temperature).c_str());
  return text;
}

std::string mask_reason_text(const attn::MaskSpec& m, int b, int i, int j) {
  const attn::MaskReason r = attn::mask_reason(m, b, i, j);
  switch (r.rule) {
    case attn::MaskRule::kNone:
      return "";
    case attn::MaskRule::kValidLength:
      return printf_text(T("key %d is past the valid length %d of batch item %d"), j + 1,
                         r.valid_len, b + 1);
    case attn::MaskRule::kCausal:
      return printf_text(T("causal mask: key %d comes after query %d"), j + 1, i + 1);
    case attn::MaskRule::kWindow:
      return printf_text(T("local window: key %d is more than %d away from query %d"), j + 1,
                         m.window, i + 1);
    case attn::MaskRule::kCell:
      return T("masked by hand");
  }
  return "";
}

}  // namespace ui
