// Exports of a scenario: matrices as CSV, and NumPy / PyTorch programs that recompute it.
//
// [SECTION] CSV
// [SECTION] Python text: comments, literals, numbers
// [SECTION] The scenario as Python constants
// [SECTION] The program, from its template
// [SECTION] Entry points
#include "scenario/export.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "scenario/json_util.h"

namespace scenario {

// src/scenario/export_program.py.in, embedded at build time (cmake/Embed.cmake).
extern const char* const kExportProgramTemplate;

namespace {

//-----------------------------------------------------------------------------
// [SECTION] CSV
//-----------------------------------------------------------------------------

std::string csv_label(const std::string& label) {
  std::string cell;
  for (char c : label)  // NUL and the other control characters (but line breaks and tabs)
    cell +=
        (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f
            ? '?'
            : c;
  // A spreadsheet runs a cell starting with one of these as a formula (CSV injection).
  if (!cell.empty() && std::string("=+-@\t\r").find(cell[0]) != std::string::npos)
    cell = "'" + cell;
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string label_at(const std::vector<std::string>& labels, const std::string& prefix,
                     Eigen::Index i) {
  return static_cast<size_t>(i) < labels.size() ? labels[i] : prefix + std::to_string(i + 1);
}

}  // namespace

std::string matrix_text_head(MatrixText f, const attn::Matrix& m, const MatrixLabels& l) {
  std::string out;
  if (f == MatrixText::kCsv) {
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      out += "," + csv_label(label_at(l.cols, l.col_prefix, c));
    return out + "\r\n";
  }
  auto labels = [&](const std::vector<std::string>& given, const std::string& prefix,
                    Eigen::Index n) {
    out += '[';
    for (Eigen::Index i = 0; i < n; ++i) {
      if (i) out += ',';
      out += nlohmann::json(label_at(given, prefix, i))
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    out += ']';
  };
  out = "{\"rows\":";
  labels(l.rows, l.row_prefix, m.rows());
  out += ",\"columns\":";
  labels(l.cols, l.col_prefix, m.cols());
  return out + ",\"values\":[";
}

void append_matrix_rows(std::string* out, MatrixText f, const attn::Matrix& m,
                        const MatrixLabels& l, Eigen::Index first, Eigen::Index end) {
  char buf[48];
  for (Eigen::Index r = first; r < end; ++r) {
    if (f == MatrixText::kCsv) {
      *out += csv_label(label_at(l.rows, l.row_prefix, r));
    } else {
      *out += r ? ",[" : "[";
    }
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const float v = m(r, c);
      const size_t n = static_cast<size_t>(format_float_to(buf, v));
      if (f == MatrixText::kCsv) {
        *out += ',';
        out->append(buf, n);
      } else {
        if (c) *out += ',';
        // JSON has no infinities or NaN: they are written as strings, as in the trace.
        if (!std::isfinite(v)) *out += '"';
        out->append(buf, n);
        if (!std::isfinite(v)) *out += '"';
      }
    }
    *out += f == MatrixText::kCsv ? "\r\n" : "]";
  }
}

std::string matrix_text_tail(MatrixText f) {
  return f == MatrixText::kCsv ? "" : "]}";
}

namespace {

std::string matrix_text(MatrixText f, const attn::Matrix& m, MatrixLabels l) {
  std::string out = matrix_text_head(f, m, l);
  append_matrix_rows(&out, f, m, l, 0, m.rows());
  return out + matrix_text_tail(f);
}

}  // namespace

std::string matrix_csv(const attn::Matrix& m, const std::vector<std::string>& row_labels,
                       const std::vector<std::string>& col_labels, const std::string& row_prefix,
                       const std::string& col_prefix) {
  return matrix_text(MatrixText::kCsv, m, {row_labels, col_labels, row_prefix, col_prefix});
}

std::string matrix_json(const attn::Matrix& m, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels, const std::string& row_prefix,
                        const std::string& col_prefix) {
  return matrix_text(MatrixText::kJson, m, {row_labels, col_labels, row_prefix, col_prefix});
}

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Python text: comments, literals, numbers
//-----------------------------------------------------------------------------

// Text from the scenario made safe for a Python comment: one line, so that nothing can end
// the comment and start code.
std::string comment_text(const std::string& s) {
  return json_util::one_line(s, 200);
}

// A Python string literal (a JSON string is one, given the escapes below).
std::string py_string(const std::string& s) {
  std::string lit =
      nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  for (size_t i = 0; i < lit.size(); ++i) {
    const std::string three = lit.substr(i, 3);
    if (three == "\xE2\x80\xA8" || three == "\xE2\x80\xA9") {
      out += three == "\xE2\x80\xA8" ? "\\u2028" : "\\u2029";
      i += 2;
    } else if (lit.compare(i, 2, "\xC2\x85") == 0) {
      out += "\\x85";
      ++i;
    } else {
      out += lit[i];
    }
  }
  return out;
}

// A Python float literal for a finite or non-finite float32: the shortest text that reads
// back to the same float32, with the exponent written as Python people write it (1e-5, 1e6).
std::string py_number(float v) {
  if (std::isnan(v)) return "math.nan";
  if (std::isinf(v)) return v < 0 ? "-math.inf" : "math.inf";
  if (v == 0.0f) return "0";  // also -0, which init's rounding gives and no step can tell apart
  const std::string text = format_float(v);
  const size_t e = text.find('e');
  if (e == std::string::npos) return text;
  const int exponent = std::atoi(text.c_str() + e + 1);
  if (exponent >= 0 && exponent < 6 && v == std::round(v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(v));
    return buf;
  }
  return text.substr(0, e) + "e" + std::to_string(exponent);
}

// A float32 scalar as a Python float holding exactly the same value: the shortest text when
// that reads back as the same double, else 17 digits. Used where a comparison must decide as
// the playground does (`draw < DROPOUT_P`); elsewhere the shortest text is close enough.
std::string py_exact(float v) {
  const std::string shortest = py_number(v);
  if (!std::isfinite(v) || std::strtod(shortest.c_str(), nullptr) == static_cast<double>(v))
    return shortest;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
  return buf;
}

std::string py_row(const float* data, Eigen::Index n) {
  std::string out = "[";
  for (Eigen::Index i = 0; i < n; ++i) out += (i ? ", " : "") + py_number(data[i]);
  return out + "]";
}

std::string py_matrix(const attn::Matrix& m, const std::string& indent) {
  std::string out = "[\n";
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    out += indent + "    " + py_row(m.row(r).data(), m.cols()) + ",\n";
  return out + indent + "]";
}

std::string py_batch(const attn::Batch& b) {
  std::string out = "f32([  # [batch][rows][cols]\n";
  for (const attn::Matrix& m : b) out += "    " + py_matrix(m, "    ") + ",\n";
  return out + "])";
}

std::string py_weight(const char* name, const attn::Matrix& m, bool generated,
                      const std::string& note) {
  std::string out = std::string(name) + " = ";
  if (!m.size()) return out + "None" + (note.empty() ? "" : "  # " + note) + "\n";
  if (generated)
    out = "# " + std::string(name) + " was generated by init; here are its numbers.\n" + out;
  return out + "f32(" + py_matrix(m, "") + ")\n";
}

std::string py_tokens(const std::vector<std::vector<std::string>>& tokens, bool per_item) {
  if (tokens.empty()) return "None";
  auto list = [](const std::vector<std::string>& t) {
    std::string out = "[";
    for (size_t i = 0; i < t.size(); ++i) out += (i ? ", " : "") + py_string(t[i]);
    return out + "]";
  };
  if (!per_item) return list(tokens[0]);
  std::string out = "[";
  for (size_t b = 0; b < tokens.size(); ++b) out += (b ? ", " : "") + list(tokens[b]);
  return out + "]";
}

//-----------------------------------------------------------------------------
// [SECTION] The scenario as Python constants
//-----------------------------------------------------------------------------

// BATCH_OF_ONE and the token labels, the same in a one-layer program and a stack's.
std::string shape_and_labels(const Scenario& s) {
  std::string o = std::string("BATCH_OF_ONE = ") + (s.batch_of_one ? "True" : "False") +
                  "  # the scenario wrote its inputs as 2-D arrays (--grad prints their "
                  "gradients so)\n";
  const std::string per = s.tokens_per_item ? "  # one list per batch item" : "";
  o += "QUERY_TOKENS = " + py_tokens(s.query_tokens, s.tokens_per_item) + per + "\n";
  o += "KEY_TOKENS = " + py_tokens(s.key_tokens, s.tokens_per_item) + per + "\n\n";
  return o;
}

// The settings every layer shares: scoring, temperature, heads (the one-layer program's
// only: a stack's layers have their own), masks, positional encoding, hard attention, dropout.
std::string settings_constants(const Scenario& s, const attn::Problem& p, bool stack) {
  std::string o;
  o += "SCORING = \"" + std::string(attn::scoring_name(s.scoring)) +
       "\"  # dot, scaled_dot, additive, general, cosine or gaussian\n";
  o += "TEMPERATURE = " + py_number(s.temperature) + "\n";
  o += stack ? std::string("\n") : "HEADS = " + std::to_string(s.heads) + "\n\n";

  o += "# Masks. VALID_LENS[b] holds one length for every query of batch item b, or one length\n"
       "# per query; keys at or past the length are masked. None: no padding mask.\n";
  if (p.mask.valid_lens.empty()) {
    o += "VALID_LENS = None\n";
  } else {
    o += "VALID_LENS = [";
    for (size_t b = 0; b < p.mask.valid_lens.size(); ++b) {
      o += b ? ", [" : "[";
      for (size_t i = 0; i < p.mask.valid_lens[b].size(); ++i)
        o += (i ? ", " : "") + std::to_string(p.mask.valid_lens[b][i]);
      o += "]";
    }
    o += "]\n";
  }
  o += std::string("CAUSAL = ") + (s.causal ? "True" : "False") +
       "  # mask the keys after the query (j > i)\n";
  o += "WINDOW = " + (s.window >= 0 ? std::to_string(s.window) : std::string("None")) +
       "  # mask the keys farther than WINDOW from the query (|i - j| > WINDOW)\n";
  o += "MASKED_CELLS = [";
  for (size_t c = 0; c < s.masked_cells.size(); ++c)
    o += (c ? ", (" : "(") + std::to_string(s.masked_cells[c][0]) + ", " +
         std::to_string(s.masked_cells[c][1]) + ", " + std::to_string(s.masked_cells[c][2]) + ")";
  o += "]  # (batch item, query, key) cells masked one by one\n";
  o += "MASK_VALUE = " + py_number(s.mask_value) +
       "  # masked scores become this; with -inf a fully masked row has no weights (NaN)\n\n";

  o += std::string("POSITIONAL_ENCODING = ") + (s.positional_encoding ? "True" : "False") +
       (stack ? "  # add sinusoidal positions to h0, once (each layer adds none)\n"
              : "  # add sinusoidal positions to queries, keys and values\n");
  o += "PE_BASE = " + py_number(s.pe_base) + "\n";
  o += std::string("HARD = ") + (s.hard ? "True" : "False") +
       "  # one-hot weights at the first maximum instead of softmax\n";
  const bool gumbel = s.hard && s.hard_gradient == attn::HardGradient::kGumbel;
  o += std::string("HARD_ESTIMATOR = ") +
       (s.hard && s.hard_gradient == attn::HardGradient::kStraightThrough ? "\"straight_through\""
        : gumbel                                                          ? "\"gumbel\""
                                                                          : "None") +
       "  # with HARD: backward() passes through the softmax of the masked scores\n";
  o += std::string("GUMBEL = ") + (gumbel ? "True" : "False") +
       "  # Gumbel-softmax: noise on the masked scores, the softmax taken at GUMBEL_TAU\n";
  const float tau = gumbel ? s.gumbel_tau : 1.0f;
  o += "GUMBEL_TAU = " + py_exact(tau);
  if (py_exact(tau) != py_number(tau)) o += "  # " + py_number(tau) + " as float32, exactly";
  o += "\n";
  o += "GUMBEL_SEED = " + std::to_string(gumbel ? s.gumbel_seed : 0) +
       (stack ? "  # layer l draws its noise from GUMBEL_SEED + l\n" : "\n");
  o += std::string("GUMBEL_SOFT = ") + (gumbel && s.gumbel_soft ? "True" : "False") +
       "  # the weights are the softmax itself, not its one-hot argmax\n";
  const float p_drop = s.has_dropout ? s.dropout_p : 0.0f;
  o += "DROPOUT_P = " + py_exact(p_drop) +
       "  # > 0: train-mode dropout, drawn as the playground does";
  if (py_exact(p_drop) != py_number(p_drop))
    o += " (" + py_number(p_drop) + " as float32, exactly)";
  o += "\n";
  o += "DROPOUT_SEED = " + std::to_string(s.has_dropout ? s.dropout_seed : 0) +
       (stack ? "  # layer l draws its dropout from DROPOUT_SEED + l\n\n" : "\n\n");
  return o;
}

std::string scenario_constants(const Scenario& s) {
  const attn::Problem p = to_problem(s);
  std::string o = R"PY(

# -----------------------------------------------------------------------------
# [SECTION] The scenario
# -----------------------------------------------------------------------------

)PY";
  if (s.self_attention) {
    o += "# Self-attention: queries, keys and values are all the same x.\n";
    o += "x = " + py_batch(s.queries) + "\nqueries = keys = values = x\n";
  } else {
    o += "queries = " + py_batch(s.queries) + "\n";
    o += "keys = " + py_batch(s.keys) + "\n";
    o += "values = " + py_batch(s.values) + "\n";
  }
  o += std::string("SELF_ATTENTION = ") + (s.self_attention ? "True" : "False") + "\n";
  o += shape_and_labels(s);

  o += settings_constants(s, p, false);
  o += "# Weights, shaped as in x·W (rows are inputs). None: not used.\n";
  if (s.has_init)
    o += "# The scenario generates missing weights with init: {\"seed\": " +
         std::to_string(s.init_seed) + ", \"d_model\": " + std::to_string(s.init_d_model) + "}.\n";
  const bool additive = !attn::scoring_info(s.scoring).projects;  // W_q, W_k: its network
  const attn::Weights& w = p.weights;
  o += py_weight("W_q", w.W_q, !s.W_q.size(),
                 additive ? "" : "no projection: Q is the queries themselves");
  o += py_weight("W_k", w.W_k, !s.W_k.size(), additive ? "" : "no projection: K = keys");
  o += py_weight("W_v", w.W_v, !s.W_v.size(), "no projection: V = values");
  o += py_weight("W_o", w.W_o, !s.W_o.size(), "no output projection");
  o += py_weight("W", w.W, !s.W.size(), "used by general scoring only");
  if (w.w_v.size()) {
    if (!s.w_v.size()) o += "# w_v was generated by init; here are its numbers.\n";
    o += "w_v = f32(" + py_row(w.w_v.data(), w.w_v.size()) + ")\n";
  } else {
    o += "w_v = None  # used by additive scoring only\n";
  }
  o += "sigma = f32(" + py_number(w.sigma) + ")  # the kernel's width σ: gaussian scoring only\n";
  o +=
      "\n# The output the loss mean((output - TARGET)²) compares with (--grad). None: no target.\n";
  o += "TARGET = " + (s.target.empty() ? std::string("None") : py_batch(s.target)) + "\n";
  return o;
}

std::string py_ids(const std::vector<std::vector<int>>& ids) {
  std::string out = "[";
  for (size_t b = 0; b < ids.size(); ++b) {
    out += b ? ", [" : "[";
    for (size_t i = 0; i < ids[b].size(); ++i) out += (i ? ", " : "") + std::to_string(ids[b][i]);
    out += "]";
  }
  return out + "]";
}

// A stack's constants: x (or a token model's tokens, next, embed and unembed), the settings
// every layer shares, and each layer's weights and heads (LAYERS), init's filled in.
std::string stack_constants(const Scenario& s) {
  const attn::Problem p = to_problem(s);
  const attn::Stack st = to_stack(s);
  std::string o = R"PY(

# -----------------------------------------------------------------------------
# [SECTION] The scenario
# -----------------------------------------------------------------------------

)PY";
  o +=
      "# " + std::to_string(st.layers.size()) + " attention layers stacked on a residual stream:\n";
  o += "# h0 = x (+ positional encoding, once), h_{l+1} = h_l + layer_l(h_l), the output h_L.\n"
       "# Layer l is self-attention over h_l with its own weights and heads (LAYERS) and the\n"
       "# settings below.\n";
  if (s.token_model()) {
    o += "TOKEN_MODEL = True  # x is each token's row of embed; the logits are h_L·unembed\n";
    o += "TOKENS = " + py_ids(s.token_ids) + "  # [batch][n]: each position's token\n";
    o += "NEXT = " + (s.next_tokens.empty() ? std::string("None") : py_ids(s.next_tokens)) +
         "  # the token each position should predict (-1: none)\n";
    o += "VOCAB = " + (s.vocab.empty() ? std::string("None") : py_tokens({s.vocab}, false)) +
         "  # the tokens' names\n";
    o += py_weight("embed", st.tokens.embed, !s.embed.size(), "");
    o += py_weight("unembed", st.tokens.unembed, !s.unembed.size(), "");
  } else {
    o += "TOKEN_MODEL = False\n";
    o += "x = " + py_batch(s.queries) + "\n";
  }
  o += "SELF_ATTENTION = True  # each layer's queries, keys and values are all the stream h_l\n";
  o += shape_and_labels(s);
  o += settings_constants(s, p, true);

  o += "# Each layer's heads and weights, shaped as in h·W (rows are inputs). None: not used.\n";
  if (s.has_init)
    o += "# The scenario generates missing weights with init: {\"seed\": " +
         std::to_string(s.init_seed) + ", \"d_model\": " + std::to_string(s.init_d_model) +
         "},\n# layer l's from seed + l.\n";
  o += "LAYERS = [\n";
  for (size_t l = 0; l < st.layers.size(); ++l) {
    const attn::Weights& w = st.layers[l].weights;
    const LayerSpec& given = s.layers[l];
    o += "    {  # layer " + std::to_string(l) + "\n";
    o += "        \"heads\": " + std::to_string(st.layers[l].heads) + ",\n";
    attn::for_each_weight(w, given, [&](const char* name, const auto& m, const auto& g) {
      const std::string key = "        \"" + std::string(name) + "\": ";
      if (!m.size()) {
        o += key + "None,\n";
        return;
      }
      if (!g.size())
        o += "        # " + std::string(name) + " was generated by init; here are its numbers.\n";
      o += key;
      if constexpr (std::is_same_v<std::decay_t<decltype(m)>, attn::Matrix>)
        o += "f32(" + py_matrix(m, "        ") + "),\n";
      else
        o += "f32(" + py_row(m.data(), m.size()) + "),\n";
    });
    o += "    },\n";
  }
  o += "]\n";
  if (s.token_model())
    o += "\nTARGET = None  # a token model's loss is the cross-entropy of NEXT (--grad)\n";
  else
    o += "\n# The output the loss mean((h_L - TARGET)²) compares with (--grad). None: none.\n"
         "TARGET = " +
         (s.target.empty() ? std::string("None") : py_batch(s.target)) + "\n";
  return o;
}

//-----------------------------------------------------------------------------
// [SECTION] The program, from its template
//-----------------------------------------------------------------------------

void replace_all(std::string* text, const std::string& key, const std::string& value) {
  for (size_t at = text->find(key); at != std::string::npos;
       at = text->find(key, at + value.size()))
    text->replace(at, key.size(), value);
}

// Whether a template line's marks ("numpy", "torch", "one", "stack", "note": the words between
// "#|" and the next "|") all hold for this program: its library, and whether it is the
// one-layer program or a stack's. A note holds for none.
bool marks_hold(const std::string& marks, const std::string& library, bool stack) {
  size_t at = 0;
  while (at < marks.size()) {
    size_t end = marks.find(' ', at);
    if (end == std::string::npos) end = marks.size();
    const std::string mark = marks.substr(at, end - at);
    at = end + 1;
    if (mark.empty()) continue;
    if (mark == "one" ? stack : mark == "stack" ? !stack : mark != library) return false;
  }
  return true;
}

// The text of src/scenario/export_program.py.in for one library ("numpy" or "torch") and
// kind of program (one layer, or a stack of layers): the lines marked for another library or
// kind and the notes are left out, and the placeholders filled in.
std::string render(const std::string& library, bool stack, const std::string& title,
                   const std::string& constants) {
  const std::string text = kExportProgramTemplate;
  std::string out;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.rfind("#|", 0) == 0) {
      const size_t close = line.find('|', 2);
      if (close == std::string::npos || !marks_hold(line.substr(2, close - 2), library, stack))
        continue;                                       // another library's line, or a note
      line.erase(0, std::min(line.size(), close + 2));  // the marks and their space
    }
    out += line + '\n';
  }
  replace_all(&out, "@LIBRARY@", library == "numpy" ? "NumPy" : "PyTorch");
  replace_all(&out, "@TITLE@", title);
  replace_all(&out, "@SCENARIO@", constants);
  return out;
}

std::string program(const Scenario& s, const std::string& library) {
  const std::string title =
      s.title.empty() ? "a scenario" : comment_text(s.title.en.empty() ? s.title.zh : s.title.en);
  const attn::Status status = validate(s);
  const bool stack = !s.layers.empty();
  if (!status.ok()) {
    // The header alone, then the reason: the program says why instead of computing.
    const std::string full = render(library, false, title, "");
    return full.substr(0, full.find("\nimport json")) + "\nraise SystemExit(" +
           py_string("this scenario cannot run: " + status.error) + ")\n";
  }
  return render(library, stack, title, stack ? stack_constants(s) : scenario_constants(s));
}

}  // namespace

std::string export_numpy(const Scenario& s) {
  return program(s, "numpy");
}

std::string export_pytorch(const Scenario& s) {
  return program(s, "torch");
}

}  // namespace scenario
