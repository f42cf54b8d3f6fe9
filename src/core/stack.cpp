// Attention layers on a residual stream (core/stack.h): the forward, both backward passes and
// the optimizer's step over every layer.
#include "core/stack.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace attn {

namespace {

std::string layer_name(int l) {
  return "layers[" + std::to_string(l) + "]";
}

// "W_q: has 3 rows ..." → "layers[1].W_q: has 3 rows ..."; a message that names no field
// ("grad: ...") gets the layer before it: "layers[1]: grad: ...".
std::string in_layer(int l, const std::string& error) {
  const size_t colon = error.find(": ");
  const std::string field = colon == std::string::npos ? "" : error.substr(0, colon);
  static const char* const kFields[] = {"W_q", "W_k", "W_v", "W_o", "W", "w_v", "heads"};
  for (const char* f : kFields)
    if (field == f) return layer_name(l) + "." + error;
  return layer_name(l) + ": " + error;
}

// The stream after a layer: h + what the layer adds.
Batch add(const Batch& h, const Batch& out) {
  Batch next(h.size());
  for (size_t b = 0; b < h.size(); ++b) next.mut(b) = h[b] + out[b];
  return next;
}

}  // namespace

namespace {

// x before the positional encoding: base.queries, or a token model's rows of embed.
// Precondition for a token model: its ids checked (validate).
Batch stack_x(const Stack& s) {
  if (!s.token_model()) return s.base.queries;
  Batch x;
  for (const std::vector<int>& ids : s.tokens.ids) {
    Matrix m(static_cast<Eigen::Index>(ids.size()), s.tokens.embed.cols());
    for (size_t i = 0; i < ids.size(); ++i)
      m.row(static_cast<Eigen::Index>(i)) = s.tokens.embed.row(ids[i]);
    x.push_back(std::move(m));
  }
  return x;
}

// A token model's tokens, embed, unembed and next, or "".
std::string check_tokens(const Tokens& t) {
  const std::vector<std::vector<int>>& ids = t.ids;
  const int V = static_cast<int>(t.embed.rows());
  if (ids.empty()) return "tokens: is empty, expected at least one sequence";
  for (size_t b = 0; b < ids.size(); ++b) {
    const std::string at = "tokens[" + std::to_string(b) + "]";
    if (ids[b].empty()) return at + ": is empty, expected at least one token";
    if (ids[b].size() != ids[0].size())
      return at + ": has " + std::to_string(ids[b].size()) + " tokens, expected " +
             std::to_string(ids[0].size()) + " like tokens[0]";
    for (size_t i = 0; i < ids[b].size(); ++i)
      if (ids[b][i] < 0 || ids[b][i] >= V)
        return at + "[" + std::to_string(i) + "]: is " + std::to_string(ids[b][i]) +
               ", expected a token in [0, " + std::to_string(V) + ") (the rows of embed)";
  }
  if (t.embed.cols() == 0) return "embed: has no columns";
  if (t.unembed.size() == 0) return "unembed: missing (d × V: the logits are h_L · unembed)";
  if (t.unembed.rows() != t.embed.cols())
    return "unembed: has " + std::to_string(t.unembed.rows()) + " rows, expected " +
           std::to_string(t.embed.cols()) + " (the stream's width d, the columns of embed)";
  if (!t.next.empty()) {
    const int V_out = static_cast<int>(t.unembed.cols());
    if (t.next.size() != ids.size())
      return "next: has " + std::to_string(t.next.size()) + " sequences, expected " +
             std::to_string(ids.size()) + " (one per sequence of tokens)";
    for (size_t b = 0; b < ids.size(); ++b) {
      const std::string at = "next[" + std::to_string(b) + "]";
      if (t.next[b].size() != ids[b].size())
        return at + ": has " + std::to_string(t.next[b].size()) + " entries, expected " +
               std::to_string(ids[b].size()) + " (one per token)";
      for (size_t i = 0; i < ids[b].size(); ++i)
        if (t.next[b][i] < -1 || t.next[b][i] >= V_out)
          return at + "[" + std::to_string(i) + "]: is " + std::to_string(t.next[b][i]) +
                 ", expected a token in [0, " + std::to_string(V_out) + ") or -1 (none)";
    }
  }
  return "";
}

}  // namespace

Batch stack_input(const Stack& s) {
  const Batch x = stack_x(s);
  if (!s.base.positional_encoding) return x;
  const Matrix pe = positional_encoding(batch_rows(x), batch_cols(x), s.base.pe_base);
  Batch h(x.size());
  for (size_t b = 0; b < x.size(); ++b) h.mut(b) = x[b] + pe;
  return h;
}

Problem layer_problem(const Stack& s, int l, const Batch& h) {
  Problem p = s.base;
  p.queries = p.keys = p.values = h;
  p.weights = s.layers[l].weights;
  p.heads = s.layers[l].heads;
  p.positional_encoding = false;
  p.dropout_seed = s.base.dropout_seed + static_cast<uint64_t>(l);
  p.gumbel_seed = s.base.gumbel_seed + static_cast<uint64_t>(l);
  return p;
}

Status validate(const Stack& s) {
  if (s.layers.empty()) return Status{"layers: is empty, expected at least one layer"};
  // Its width σ is one number of the scenario's, not a layer's; the stack's Optimizer does not
  // learn it.
  if (s.base.scoring == Scoring::kGaussian)
    return Status{"scoring: gaussian scoring is not available with \"layers\""};
  if (s.token_model()) {
    const std::string e = check_tokens(s.tokens);
    if (!e.empty()) return Status{e};
  }
  const Batch x = stack_x(s);
  // The inputs and settings, checked once as a problem without weights.
  Problem bare = s.base;
  bare.queries = bare.keys = bare.values = x;
  bare.weights = Weights{};
  bare.heads = 1;
  if (bare.scoring == Scoring::kAdditive || bare.scoring == Scoring::kGeneral)
    bare.scoring = Scoring::kDot;  // their weights are checked per layer below
  Status st = validate(bare);
  if (!st.ok()) {
    // The problem names its inputs queries, keys and values; a stack's is x.
    const std::string& e = st.error;
    for (const char* name : {"queries", "keys", "values"})
      if (e.rfind(name, 0) == 0) return Status{"x" + e.substr(std::string(name).size())};
    return st;
  }
  const int d = batch_cols(x);
  for (int l = 0; l < static_cast<int>(s.layers.size()); ++l) {
    const Problem p = layer_problem(s, l, x);
    st = validate(p);
    if (!st.ok()) return Status{in_layer(l, st.error)};
    const Weights& w = p.weights;
    const int width = w.W_o.size() ? static_cast<int>(w.W_o.cols())
                                   : (w.W_v.size() ? static_cast<int>(w.W_v.cols()) : d);
    if (width != d) {
      const char* field = w.W_o.size() ? "W_o" : "W_v";
      return Status{layer_name(l) + "." + field + ": has " + std::to_string(width) +
                    " columns, expected " + std::to_string(d) +
                    " (the stream's width d: a layer's output is added to it)"};
    }
  }
  return Status{};
}

StackTrace run(const Stack& s, const RunOptions& options) {
  StackTrace t;
  t.stream.push_back(stack_input(s));
  for (int l = 0; l < static_cast<int>(s.layers.size()); ++l) {
    t.layers.push_back(run(layer_problem(s, l, t.stream.back()), options));
    t.stream.push_back(add(t.stream.back(), t.layers.back().output));
  }
  if (s.token_model())
    for (const Matrix& h : t.stream.back()) t.logits.push_back(h * s.tokens.unembed);
  return t;
}

Matrix next_token_probabilities(const Matrix& logits) {
  Matrix p(logits.rows(), logits.cols());
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const double mx = logits.row(i).maxCoeff();
    double sum = 0.0;
    for (Eigen::Index j = 0; j < logits.cols(); ++j) sum += std::exp(logits(i, j) - mx);
    for (Eigen::Index j = 0; j < logits.cols(); ++j)
      p(i, j) = static_cast<float>(std::exp(logits(i, j) - mx) / sum);
  }
  return p;
}

namespace {

// Both backward passes: the forward (every layer's full trace, each checked as a problem's
// backward checks it), the loss, then each layer's backward from the top, the stream's
// gradient passing around the layer and through its queries, keys and values.
template <class Backward>
Status stack_backward(const Stack& s, const Batch& target, Backward&& backward,
                      StackGradients* out) {
  Status st = validate(s);
  if (!st.ok()) return st;
  const int L = static_cast<int>(s.layers.size());
  std::vector<Batch> stream{stack_input(s)};
  std::vector<Trace> traces;
  for (int l = 0; l < L; ++l) {
    const Problem p = layer_problem(s, l, stream.back());
    st = check_gradient(p);
    if (!st.ok()) return Status{in_layer(l, st.error)};
    traces.push_back(run(p));
    stream.push_back(add(stream.back(), traces.back().output));
  }
  const Batch& h = stream.back();
  const int B = static_cast<int>(h.size());
  StackGradients g;
  BatchD dh;  // the loss's gradient with respect to the stream, from the top down
  if (s.token_model()) {
    // Cross-entropy of the next tokens: dlogits = (softmax − one-hot)/count at each position
    // with a next token; dh_L = dlogits · unembedᵀ, dunembed = Σ h_Lᵀ · dlogits.
    if (!target.empty())
      return Status{"target: not with tokens (the loss is the cross-entropy of next)"};
    const std::vector<std::vector<int>>& next = s.tokens.next;
    double count = 0.0;
    for (const std::vector<int>& row : next)
      for (int n : row) count += n >= 0 ? 1.0 : 0.0;
    if (count == 0.0)
      return Status{"next: no position has a next token to predict (give next, -1 for none)"};
    const MatrixD U = s.tokens.unembed.cast<double>();
    g.unembed = MatrixD::Zero(U.rows(), U.cols());
    for (int b = 0; b < B; ++b) {
      const MatrixD hb = h[b].cast<double>();
      const MatrixD z = hb * U;  // the logits in float64
      MatrixD dz = MatrixD::Zero(z.rows(), z.cols());
      for (Eigen::Index i = 0; i < z.rows(); ++i) {
        const int n = next[b][i];
        if (n < 0) continue;
        const double mx = z.row(i).maxCoeff();
        const double sum = (z.row(i).array() - mx).exp().sum();
        g.loss += std::log(sum) - (z(i, n) - mx);
        dz.row(i) = (z.row(i).array() - mx).exp() / sum;
        dz(i, n) -= 1.0;
      }
      dz /= count;
      g.unembed += hb.transpose() * dz;
      dh.push_back(dz * U.transpose());
    }
    g.loss /= count;
  } else {
    if (static_cast<int>(target.size()) != B)
      return Status{"target: has " + std::to_string(target.size()) + " batch items, expected " +
                    std::to_string(B)};
    for (int b = 0; b < B; ++b)
      if (target[b].rows() != h[b].rows() || target[b].cols() != h[b].cols())
        return Status{"target[" + std::to_string(b) + "]: is " + std::to_string(target[b].rows()) +
                      " × " + std::to_string(target[b].cols()) + ", the output is " +
                      std::to_string(h[b].rows()) + " × " + std::to_string(h[b].cols())};

    const double count = static_cast<double>(batch_cells(h));
    for (int b = 0; b < B; ++b) {
      const MatrixD diff = h[b].cast<double>() - target[b].cast<double>();
      g.loss += diff.squaredNorm();
      dh.push_back(2.0 * diff / count);
    }
    g.loss /= count;
  }
  g.layers.resize(L);
  for (int l = L - 1; l >= 0; --l) {
    const Problem p = layer_problem(s, l, stream[l]);
    Gradients& gl = g.layers[l];
    st = backward(p, traces[l], dh, &gl);
    if (!st.ok()) return Status{in_layer(l, st.error)};
    for (int b = 0; b < B; ++b) dh[b] += gl.queries[b] + gl.keys[b] + gl.values[b];
    gl.queries.clear();
    gl.keys.clear();
    gl.values.clear();
  }
  if (s.token_model()) {  // each token's row of embed gathers the gradients of its positions
    g.embed = MatrixD::Zero(s.tokens.embed.rows(), s.tokens.embed.cols());
    for (int b = 0; b < B; ++b)
      for (size_t i = 0; i < s.tokens.ids[b].size(); ++i)
        g.embed.row(s.tokens.ids[b][i]) += dh[b].row(static_cast<Eigen::Index>(i));
  }
  g.x = std::move(dh);  // the positional encoding is a constant: it passes the gradient
  *out = std::move(g);
  return Status{};
}

}  // namespace

Status gradients(const Stack& s, const Batch& target, StackGradients* out) {
  return stack_backward(
      s, target,
      [](const Problem& p, const Trace& t, const BatchD& dh, Gradients* g) {
        Batch dY;  // float32, as the kernels take it
        for (const MatrixD& m : dh) dY.push_back(m.cast<float>());
        return backward(p, t, dY, g);
      },
      out);
}

Status gradients_reference(const Stack& s, const Batch& target, StackGradients* out) {
  return stack_backward(
      s, target,
      [](const Problem& p, const Trace& t, const BatchD& dh, Gradients* g) {
        return backward_reference(p, t, dh, g);
      },
      out);
}

Status check_finite(const StackGradients& g) {
  Gradients inputs;
  inputs.loss = g.loss;
  inputs.queries = g.x;
  Status st = check_finite(inputs);
  if (!st.ok()) return st;
  const auto finite = [](const MatrixD& m) {
    return m.allFinite() && m.cwiseAbs().maxCoeff() <= std::numeric_limits<float>::max();
  };
  if (g.embed.size() && !finite(g.embed))
    return Status{"grad: the gradient of embed is not finite: it overflows float32"};
  if (g.unembed.size() && !finite(g.unembed))
    return Status{"grad: the gradient of unembed is not finite: it overflows float32"};
  for (int l = 0; l < static_cast<int>(g.layers.size()); ++l) {
    Gradients gl = g.layers[l];
    gl.loss = 0.0;
    st = check_finite(gl);
    if (!st.ok()) {
      // "grad: the gradient of W_q is ..." → "grad: the gradient of layers[1].W_q is ..."
      std::string e = st.error;
      const std::string of = "the gradient of ";
      const size_t at = e.find(of);
      if (at != std::string::npos) e.insert(at + of.size(), layer_name(l) + ".");
      return Status{e};
    }
  }
  return Status{};
}

Status Optimizer::step(Stack* s, const Batch& target, double* loss) {
  std::vector<Matrix> w_vs;  // each layer's w_v, stepped as a one-column matrix
  w_vs.reserve(s->layers.size());
  bool any = false;
  for (const Layer& layer : s->layers) {
    w_vs.push_back(layer.weights.w_v);
    for_each_weight(layer.weights, [&](const char*, const auto& m) { any = any || m.size(); });
  }
  any = any || s->token_model();
  if (!any) return Status{"train: the layers have no weights to learn (give \"init\")"};
  StackGradients g;
  // Gumbel's noise is drawn anew at each step, from seed + the steps taken (restored after).
  const uint64_t seed = s->base.gumbel_seed;
  s->base.gumbel_seed = seed + static_cast<uint64_t>(steps);
  const Status st = gradients(*s, target, &g);
  s->base.gumbel_seed = seed;
  if (!st.ok()) return st;
  *loss = g.loss;
  std::vector<MatrixD> gw_vs;
  gw_vs.reserve(s->layers.size());
  std::vector<Param> params;
  for (int l = 0; l < static_cast<int>(s->layers.size()); ++l) {
    Weights& w = s->layers[l].weights;
    Gradients& gl = g.layers[l];
    gw_vs.push_back(gl.w_v);
    const std::string name = layer_name(l) + ".";
    params.push_back({name + "W_q", &w.W_q, &gl.W_q});
    params.push_back({name + "W_k", &w.W_k, &gl.W_k});
    params.push_back({name + "W_v", &w.W_v, &gl.W_v});
    params.push_back({name + "W_o", &w.W_o, &gl.W_o});
    params.push_back({name + "W", &w.W, &gl.W});
    params.push_back({name + "w_v", &w_vs[l], &gw_vs[l]});
  }
  if (s->token_model()) {
    params.push_back({"embed", &s->tokens.embed, &g.embed});
    params.push_back({"unembed", &s->tokens.unembed, &g.unembed});
  }
  const Status done = update(params);
  if (done.ok())
    for (int l = 0; l < static_cast<int>(s->layers.size()); ++l)
      if (w_vs[l].size()) s->layers[l].weights.w_v = w_vs[l].col(0);
  return done;
}

}  // namespace attn
