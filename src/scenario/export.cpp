// Exports of a scenario: matrices as CSV, and NumPy / PyTorch programs that recompute it.
//
// [SECTION] CSV
// [SECTION] Python text: comments, literals, numbers
// [SECTION] The scenario as Python constants
// [SECTION] The NumPy program
// [SECTION] The PyTorch program
// [SECTION] Entry points
#include "scenario/export.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

namespace scenario {

namespace {

//-----------------------------------------------------------------------------
// [SECTION] CSV
//-----------------------------------------------------------------------------

std::string csv_label(const std::string& label) {
  std::string cell = label;
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

std::string matrix_csv(const attn::Matrix& m, const std::vector<std::string>& row_labels,
                       const std::vector<std::string>& col_labels, const std::string& row_prefix,
                       const std::string& col_prefix) {
  std::string out;
  for (Eigen::Index c = 0; c < m.cols(); ++c)
    out += "," + csv_label(label_at(col_labels, col_prefix, c));
  out += "\r\n";
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    out += csv_label(label_at(row_labels, row_prefix, r));
    for (Eigen::Index c = 0; c < m.cols(); ++c) out += "," + format_float(m(r, c));
    out += "\r\n";
  }
  return out;
}

std::string matrix_json(const attn::Matrix& m, const std::vector<std::string>& row_labels,
                        const std::vector<std::string>& col_labels, const std::string& row_prefix,
                        const std::string& col_prefix) {
  auto labels = [](const std::vector<std::string>& given, const std::string& prefix,
                   Eigen::Index n) {
    std::string out = "[";
    for (Eigen::Index i = 0; i < n; ++i) {
      if (i) out += ',';
      out += nlohmann::json(label_at(given, prefix, i))
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    return out + "]";
  };
  std::string out = "{\"rows\":" + labels(row_labels, row_prefix, m.rows()) +
                    ",\"columns\":" + labels(col_labels, col_prefix, m.cols()) + ",\"values\":[";
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    out += r ? ",[" : "[";
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      if (c) out += ',';
      const float v = m(r, c);
      out += std::isfinite(v) ? format_float(v) : "\"" + format_float(v) + "\"";
    }
    out += ']';
  }
  return out + "]}";
}

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Python text: comments, literals, numbers
//-----------------------------------------------------------------------------

// Text from the scenario made safe for a Python comment: one line (control characters and
// Unicode line separators become spaces, so nothing can end the comment and start code),
// valid UTF-8, at most ~200 bytes.
std::string comment_text(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && out.size() < 200) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80         ? 1
                       : (c >> 5) == 6  ? 2
                       : (c >> 4) == 14 ? 3
                       : (c >> 3) == 30 ? 4
                                        : 0;
    bool valid = len > 0 && i + len <= s.size();
    for (size_t k = 1; valid && k < len; ++k)
      valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!valid) {
      out += '?';
      ++i;
      continue;
    }
    const std::string ch = s.substr(i, len);
    const bool breaks = (len == 1 && (c < 0x20 || c == 0x7f)) || ch == "\xC2\x85" ||
                        ch == "\xE2\x80\xA8" || ch == "\xE2\x80\xA9";
    out += breaks ? " " : ch;
    i += len;
  }
  if (i < s.size()) out += "...";
  return out;
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

std::string header(const Scenario& s, const char* library) {
  const std::string title =
      s.title.empty() ? "a scenario" : comment_text(s.title.en.empty() ? s.title.zh : s.title.en);
  std::string out = "#!/usr/bin/env python3\n# Attention, step by step, in " +
                    std::string(library) + ": " + title + "\n";
  out += R"PY(#
# Exported from the Attention Playground: a self-contained program (ours, free to use) that
# rebuilds the scenario's inputs and every weight, then recomputes each step of the
# playground's pipeline in float64:
#
#   inputs (+ positional encoding) -> projections Q = X·W_q, K = X·W_k, V = X·W_v
#   -> split into heads -> scores -> scaled -> masked -> softmax weights (-> dropout)
#   -> weighted values -> heads side by side -> W_o
#
# Run it to print the trace as JSON, in the format of `attention-cli eval`; or import it and
# call attention() to get every intermediate matrix.
#
# [SECTION] The scenario
# [SECTION] The steps
# [SECTION] The pipeline
# [SECTION] The trace as JSON
)PY";
  return out;
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
  const std::string per = s.tokens_per_item ? "  # one list per batch item" : "";
  o += "QUERY_TOKENS = " + py_tokens(s.query_tokens, s.tokens_per_item) + per + "\n";
  o += "KEY_TOKENS = " + py_tokens(s.key_tokens, s.tokens_per_item) + per + "\n\n";

  o += "SCORING = \"" + std::string(attn::scoring_name(s.scoring)) +
       "\"  # dot, scaled_dot, additive, general or cosine\n";
  o += "TEMPERATURE = " + py_number(s.temperature) + "\n";
  o += "HEADS = " + std::to_string(s.heads) + "\n\n";

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
       "  # add sinusoidal positions to queries, keys and values\n";
  o += "PE_BASE = " + py_number(s.pe_base) + "\n";
  o += std::string("HARD = ") + (s.hard ? "True" : "False") +
       "  # one-hot weights at the first maximum instead of softmax\n";
  const float p_drop = s.has_dropout ? s.dropout_p : 0.0f;
  o += "DROPOUT_P = " + py_exact(p_drop) +
       "  # > 0: train-mode dropout, drawn as the playground does";
  if (py_exact(p_drop) != py_number(p_drop))
    o += " (" + py_number(p_drop) + " as float32, exactly)";
  o += "\n";
  o += "DROPOUT_SEED = " + std::to_string(s.has_dropout ? s.dropout_seed : 0) + "\n\n";

  o += "# Weights, shaped as in x·W (rows are inputs). None: not used.\n";
  if (s.has_init)
    o += "# The scenario generates missing weights with init: {\"seed\": " +
         std::to_string(s.init_seed) + ", \"d_model\": " + std::to_string(s.init_d_model) + "}.\n";
  const bool additive = s.scoring == attn::Scoring::kAdditive;
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
  return o;
}

//-----------------------------------------------------------------------------
// [SECTION] The NumPy program
//-----------------------------------------------------------------------------

const char kNumpyPrologue[] = R"PY(
import json
import math

import numpy as np


def f32(numbers):
    """The playground holds numbers as float32: read them so, then widen to float64 so that
    every step below is computed in double precision."""
    return np.array(numbers, dtype=np.float32).astype(np.float64)
)PY";

const char kNumpySteps[] = R"PY(

# -----------------------------------------------------------------------------
# [SECTION] The steps
# -----------------------------------------------------------------------------


def positional_encoding(rows, cols, base):
    """PE[p, 2i] = sin(p / base^(2i/d)) and PE[p, 2i+1] = cos(p / base^(2i/d)), d = cols."""
    pe = np.zeros((rows, cols))
    p = np.arange(rows)
    for c in range(cols):
        angle = p * base ** (-(c - c % 2) / cols)  # columns 2i and 2i+1 share a frequency
        pe[:, c] = np.sin(angle) if c % 2 == 0 else np.cos(angle)
    return pe


def unit_rows(m):
    """Each row divided by its length; a zero row stays zero."""
    n = np.linalg.norm(m, axis=1, keepdims=True)
    return np.where(n > 0, m / np.where(n > 0, n, 1.0), 0.0)


def score(q, k):
    """Raw scores of every query (rows) against every key (columns)."""
    if SCORING in ("dot", "scaled_dot"):
        return q @ k.T  # q·k
    if SCORING == "additive":  # w_vᵀ tanh(q·W_q + k·W_k), for every pair (i, j)
        return np.tanh((q @ W_q)[:, None, :] + (k @ W_k)[None, :, :]) @ w_v
    if SCORING == "general":
        return q @ W @ k.T  # q·W·kᵀ
    if SCORING == "cosine":
        return unit_rows(q) @ unit_rows(k).T  # q·k / (|q| |k|)
    raise ValueError("unknown SCORING " + SCORING)


def hidden_cells(b, n_q, n_k):
    """True where query i of batch item b may not see key j."""
    i = np.arange(n_q)[:, None]
    j = np.arange(n_k)[None, :]
    hidden = np.zeros((n_q, n_k), dtype=bool)
    if VALID_LENS is not None:
        hidden |= j >= np.array(VALID_LENS[b])[:, None]  # padding
    if CAUSAL:
        hidden |= j > i  # the future
    if WINDOW is not None:
        hidden |= np.abs(i - j) > WINDOW  # too far away
    for cb, ci, cj in MASKED_CELLS:
        if cb == b:
            hidden[ci, cj] = True
    return hidden


def softmax_rows(x):
    """Row-wise softmax, the row maximum subtracted first. A row of -1e6 gives uniform
    weights; a row of -inf gives NaN (-inf minus -inf is undefined)."""
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


def hard_rows(x):
    """Hard attention: weight 1 on the first maximum of each row. A row containing NaN, or
    only -inf, has no maximum and gives NaN."""
    w = np.zeros_like(x)
    for i, row in enumerate(x):
        if np.isnan(row).any() or row.max() == -math.inf:
            w[i] = math.nan
        else:
            w[i, np.argmax(row)] = 1.0  # argmax returns the first maximum
    return w


MASK64 = (1 << 64) - 1


def splitmix64(x):
    """The playground's random numbers (SplitMix64) in 64-bit unsigned arithmetic."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def uniform01(seed, index):
    """A number in [0, 1) with 24 random bits; it depends only on (seed, index)."""
    return (splitmix64(seed ^ splitmix64(index)) >> 40) / 16777216.0


def dropout(w, head, b, batch):
    """Train-mode dropout: weight (i, j) is dropped when its draw is below DROPOUT_P, and the
    survivors are scaled by 1 / (1 - DROPOUT_P). Draw number ((head·B + b)·n_q + i)·n_k + j."""
    n_q, n_k = w.shape
    first = (head * batch + b) * n_q * n_k
    draws = np.array([[uniform01(DROPOUT_SEED, first + i * n_k + j) for j in range(n_k)]
                      for i in range(n_q)])
    return np.where(draws < DROPOUT_P, 0.0, w * (1.0 / (1.0 - DROPOUT_P)))


# -----------------------------------------------------------------------------
# [SECTION] The pipeline
# -----------------------------------------------------------------------------

STEPS = ("scores", "scaled", "masked", "weights", "output")


def attention():
    """Every step for every head and batch item, as the playground's trace."""
    q_in, k_in, v_in = queries, keys, values
    if POSITIONAL_ENCODING:
        q_in = q_in + positional_encoding(q_in.shape[1], q_in.shape[2], PE_BASE)
        k_in = k_in + positional_encoding(k_in.shape[1], k_in.shape[2], PE_BASE)
        v_in = v_in + positional_encoding(v_in.shape[1], v_in.shape[2], PE_BASE)

    # Projections. In additive scoring W_q and W_k are part of the scoring instead.
    additive = SCORING == "additive"
    Q = q_in if additive or W_q is None else q_in @ W_q
    K = k_in if additive or W_k is None else k_in @ W_k
    V = v_in if W_v is None else v_in @ W_v

    # Head h takes the contiguous columns [h·d, (h+1)·d) of Q, K and V.
    batch = Q.shape[0]
    dq, dk, dv = Q.shape[2] // HEADS, K.shape[2] // HEADS, V.shape[2] // HEADS
    scale = 1.0 / TEMPERATURE
    if SCORING == "scaled_dot":
        scale /= math.sqrt(dk)  # d: the size of the key vectors actually dotted

    heads = []
    for h in range(HEADS):
        steps = {name: [] for name in STEPS}
        for b in range(batch):
            q = Q[b][:, h * dq:(h + 1) * dq]
            k = K[b][:, h * dk:(h + 1) * dk]
            v = V[b][:, h * dv:(h + 1) * dv]
            scores = score(q, k)
            scaled = scores * scale
            masked = np.where(hidden_cells(b, q.shape[0], k.shape[0]), MASK_VALUE, scaled)
            weights = hard_rows(masked) if HARD else softmax_rows(masked)
            if DROPOUT_P > 0:
                weights = dropout(weights, h, b, batch)
            output = weights @ v  # each output row mixes the value rows
            for name, m in zip(STEPS, (scores, scaled, masked, weights, output)):
                steps[name].append(m)
        heads.append({name: np.stack(ms) for name, ms in steps.items()})

    concat = np.concatenate([head["output"] for head in heads], axis=2)
    output = concat if W_o is None else concat @ W_o
    return {"queries": q_in, "keys": k_in, "values": v_in, "Q": Q, "K": K, "V": V,
            "heads": heads, "concat": concat, "output": output}


# -----------------------------------------------------------------------------
# [SECTION] The trace as JSON
# -----------------------------------------------------------------------------


def as_json(a):
    """A [batch][rows][cols] array as lists; JSON has no -inf, inf or nan, so they are text."""
    def cell(v):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    return [[[cell(v) for v in row] for row in m] for m in a.tolist()]


if __name__ == "__main__":
    trace = attention()
    print(json.dumps({
        "version": 1,
        "heads": [{name: as_json(head[name]) for name in STEPS} for head in trace["heads"]],
        "output": as_json(trace["output"]),
    }))
)PY";

//-----------------------------------------------------------------------------
// [SECTION] The PyTorch program
//-----------------------------------------------------------------------------

const char kTorchPrologue[] = R"PY(
import json
import math

import torch


def f32(numbers):
    """The playground holds numbers as float32: read them so, then widen to float64 so that
    every step below is computed in double precision."""
    return torch.tensor(numbers, dtype=torch.float32).double()
)PY";

const char kTorchSteps[] = R"PY(

# -----------------------------------------------------------------------------
# [SECTION] The steps
# -----------------------------------------------------------------------------


def positional_encoding(rows, cols, base):
    """PE[p, 2i] = sin(p / base^(2i/d)) and PE[p, 2i+1] = cos(p / base^(2i/d)), d = cols."""
    pe = torch.zeros(rows, cols, dtype=torch.float64)
    p = torch.arange(rows, dtype=torch.float64)
    for c in range(cols):
        angle = p * base ** (-(c - c % 2) / cols)  # columns 2i and 2i+1 share a frequency
        pe[:, c] = torch.sin(angle) if c % 2 == 0 else torch.cos(angle)
    return pe


def unit_rows(m):
    """Each row divided by its length; a zero row stays zero."""
    n = torch.linalg.norm(m, dim=1, keepdim=True)
    return torch.where(n > 0, m / torch.where(n > 0, n, torch.ones_like(n)), torch.zeros_like(m))


def score(q, k):
    """Raw scores of every query (rows) against every key (columns)."""
    if SCORING in ("dot", "scaled_dot"):
        return q @ k.T  # q·k
    if SCORING == "additive":  # w_vᵀ tanh(q·W_q + k·W_k), for every pair (i, j)
        return torch.tanh((q @ W_q)[:, None, :] + (k @ W_k)[None, :, :]) @ w_v
    if SCORING == "general":
        return q @ W @ k.T  # q·W·kᵀ
    if SCORING == "cosine":
        return unit_rows(q) @ unit_rows(k).T  # q·k / (|q| |k|)
    raise ValueError("unknown SCORING " + SCORING)


def hidden_cells(b, n_q, n_k):
    """True where query i of batch item b may not see key j."""
    i = torch.arange(n_q)[:, None]
    j = torch.arange(n_k)[None, :]
    hidden = torch.zeros(n_q, n_k, dtype=torch.bool)
    if VALID_LENS is not None:
        hidden |= j >= torch.tensor(VALID_LENS[b])[:, None]  # padding
    if CAUSAL:
        hidden |= j > i  # the future
    if WINDOW is not None:
        hidden |= torch.abs(i - j) > WINDOW  # too far away
    for cb, ci, cj in MASKED_CELLS:
        if cb == b:
            hidden[ci, cj] = True
    return hidden


def softmax_rows(x):
    """Row-wise softmax, the row maximum subtracted first. A row of -1e6 gives uniform
    weights; a row of -inf gives NaN (-inf minus -inf is undefined)."""
    e = torch.exp(x - x.max(dim=1, keepdim=True).values)
    return e / e.sum(dim=1, keepdim=True)


def hard_rows(x):
    """Hard attention: weight 1 on the first maximum of each row. A row containing NaN, or
    only -inf, has no maximum and gives NaN."""
    w = torch.zeros_like(x)
    for i, row in enumerate(x):
        if torch.isnan(row).any() or row.max() == -math.inf:
            w[i] = math.nan
        else:
            w[i, torch.argmax(row)] = 1.0  # argmax returns the first maximum
    return w


MASK64 = (1 << 64) - 1


def splitmix64(x):
    """The playground's random numbers (SplitMix64) in 64-bit unsigned arithmetic. Python's
    integers, since torch has no unsigned 64-bit arithmetic."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def uniform01(seed, index):
    """A number in [0, 1) with 24 random bits; it depends only on (seed, index)."""
    return (splitmix64(seed ^ splitmix64(index)) >> 40) / 16777216.0


def dropout(w, head, b, batch):
    """Train-mode dropout: weight (i, j) is dropped when its draw is below DROPOUT_P, and the
    survivors are scaled by 1 / (1 - DROPOUT_P). Draw number ((head·B + b)·n_q + i)·n_k + j.
    (torch.nn.functional.dropout draws other numbers, so it would drop other cells.)"""
    n_q, n_k = w.shape
    first = (head * batch + b) * n_q * n_k
    draws = torch.tensor([[uniform01(DROPOUT_SEED, first + i * n_k + j) for j in range(n_k)]
                          for i in range(n_q)], dtype=torch.float64)
    return torch.where(draws < DROPOUT_P, torch.zeros_like(w), w * (1.0 / (1.0 - DROPOUT_P)))


# -----------------------------------------------------------------------------
# [SECTION] The pipeline
# -----------------------------------------------------------------------------

STEPS = ("scores", "scaled", "masked", "weights", "output")


def attention():
    """Every step for every head and batch item, as the playground's trace."""
    q_in, k_in, v_in = queries, keys, values
    if POSITIONAL_ENCODING:
        q_in = q_in + positional_encoding(q_in.shape[1], q_in.shape[2], PE_BASE)
        k_in = k_in + positional_encoding(k_in.shape[1], k_in.shape[2], PE_BASE)
        v_in = v_in + positional_encoding(v_in.shape[1], v_in.shape[2], PE_BASE)

    # Projections. In additive scoring W_q and W_k are part of the scoring instead.
    additive = SCORING == "additive"
    Q = q_in if additive or W_q is None else q_in @ W_q
    K = k_in if additive or W_k is None else k_in @ W_k
    V = v_in if W_v is None else v_in @ W_v

    # Head h takes the contiguous columns [h·d, (h+1)·d) of Q, K and V.
    batch = Q.shape[0]
    dq, dk, dv = Q.shape[2] // HEADS, K.shape[2] // HEADS, V.shape[2] // HEADS
    scale = 1.0 / TEMPERATURE
    if SCORING == "scaled_dot":
        scale /= math.sqrt(dk)  # d: the size of the key vectors actually dotted

    heads = []
    for h in range(HEADS):
        steps = {name: [] for name in STEPS}
        for b in range(batch):
            q = Q[b][:, h * dq:(h + 1) * dq]
            k = K[b][:, h * dk:(h + 1) * dk]
            v = V[b][:, h * dv:(h + 1) * dv]
            scores = score(q, k)
            scaled = scores * scale
            masked = scaled.masked_fill(hidden_cells(b, q.shape[0], k.shape[0]), MASK_VALUE)
            weights = hard_rows(masked) if HARD else softmax_rows(masked)
            if DROPOUT_P > 0:
                weights = dropout(weights, h, b, batch)
            output = weights @ v  # each output row mixes the value rows
            for name, m in zip(STEPS, (scores, scaled, masked, weights, output)):
                steps[name].append(m)
        heads.append({name: torch.stack(ms) for name, ms in steps.items()})

    concat = torch.cat([head["output"] for head in heads], dim=2)
    output = concat if W_o is None else concat @ W_o
    return {"queries": q_in, "keys": k_in, "values": v_in, "Q": Q, "K": K, "V": V,
            "heads": heads, "concat": concat, "output": output}


# -----------------------------------------------------------------------------
# [SECTION] The trace as JSON
# -----------------------------------------------------------------------------


def as_json(a):
    """A [batch][rows][cols] tensor as lists; JSON has no -inf, inf or nan, so they are text."""
    def cell(v):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    return [[[cell(v) for v in row] for row in m] for m in a.tolist()]


if __name__ == "__main__":
    with torch.no_grad():
        trace = attention()
    print(json.dumps({
        "version": 1,
        "heads": [{name: as_json(head[name]) for name in STEPS} for head in trace["heads"]],
        "output": as_json(trace["output"]),
    }))
)PY";

//-----------------------------------------------------------------------------
// [SECTION] Entry points
//-----------------------------------------------------------------------------

std::string program(const Scenario& s, const char* library, const char* prologue,
                    const char* steps) {
  const std::string error = validate(s);
  if (!error.empty())
    return header(s, library) + "\nraise SystemExit(" +
           py_string("this scenario cannot run: " + error) + ")\n";
  return header(s, library) + prologue + scenario_constants(s) + steps;
}

}  // namespace

std::string export_numpy(const Scenario& s) {
  return program(s, "NumPy", kNumpyPrologue, kNumpySteps);
}

std::string export_pytorch(const Scenario& s) {
  return program(s, "PyTorch", kTorchPrologue, kTorchSteps);
}

}  // namespace scenario
