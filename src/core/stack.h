// Attention layers stacked on a residual stream (scenario JSON's "layers", docs/contracts.md).
//
// h₀ = x (+ the positional encoding, added once, here), h_{l+1} = h_l + layer_l(h_l), and the
// output is h_L. Layer l is self-attention over the stream: its queries, keys and values are
// all h_l, with the layer's own weights and heads and the stack's scoring, temperature, mask,
// hard attention and dropout (layer l draws its dropout, and Gumbel's noise, from seed + l). Each
// layer's output (concat · W_o, or concat without W_o) must be as wide as the stream, d, to be
// added to it.
//
// The forward runs each layer with attn::run; the backward runs each layer's backward
// (attn::backward in float32, attn::backward_reference in float64) from the top down, the
// stream's gradient passing both around the layer (the residual) and through it (its queries,
// keys and values, summed).
#pragma once

#include <vector>

#include "core/attention.h"
#include "core/gradient.h"
#include "core/status.h"

namespace attn {

struct Layer {
  Weights weights;  // as Problem::weights: W_q, W_k, W_v, W_o; general's W; additive's w_v
  int heads = 1;
};

// A token model: the stream starts from the tokens' rows of `embed` in place of x, and reads
// out logits h_L · unembed; the loss is the mean cross-entropy of the next tokens given.
struct Tokens {
  std::vector<std::vector<int>> ids;   // [batch][n], each in [0, V)
  Matrix embed;                        // V × d
  Matrix unembed;                      // d × V_out
  std::vector<std::vector<int>> next;  // [batch][n]: the token each position should predict,
                                       // in [0, V_out), or -1 for none
};

struct Stack {
  // The input x (base.queries; base.keys and base.values are the same x or empty), and what
  // every layer shares: scoring, temperature, mask, positional encoding (added to x once),
  // hard attention and its gradient, dropout. base.weights and base.heads are not used. A token
  // model (tokens.embed given) takes its x from tokens.ids instead.
  Problem base;
  std::vector<Layer> layers;
  Tokens tokens;
  bool token_model() const { return tokens.embed.size() > 0; }
};

// The problem layer l computes over the stream h: base's settings with queries = keys =
// values = h, layer l's weights and heads, no positional encoding, dropout seed + l and
// Gumbel seed + l.
Problem layer_problem(const Stack& s, int l, const Batch& h);

// The stream's first state: x (a token model: each token's row of embed) plus its positional
// encoding when base has it on.
Batch stack_input(const Stack& s);

// Checks each layer as validate(Problem) does, its errors named "layers[l].W_q: ...", and that
// each layer's output is as wide as the stream ("layers[1].W_o: has 3 columns, expected 4
// (the stream's width d)"). At least one layer. A token model's ids, embed, unembed and next
// are checked as "tokens[1][3]: is 9, expected a token in [0, 8) (the rows of embed)".
Status validate(const Stack& s);

struct StackTrace {
  std::vector<Batch> stream;  // h_0 … h_L: L + 1 states
  std::vector<Trace> layers;  // layer l's trace over h_l; its output is what it adds
  Batch logits;               // a token model's h_L · unembed ([batch][n][V_out]), else empty
  const Batch& output() const { return stream.back(); }
};

// Row-wise softmax of a token model's logits, in float64 rounded to float: the probabilities
// of each next token.
Matrix next_token_probabilities(const Matrix& logits);

// Precondition: validate(s).ok().
StackTrace run(const Stack& s, const RunOptions& options = {});

struct StackGradients {
  double loss = 0.0;              // mean((h_L − target)²), or a token model's mean cross-entropy
  BatchD x;                       // with respect to x as given (before positional encoding)
  std::vector<Gradients> layers;  // each layer's weights (its queries, keys, values empty)
  MatrixD embed, unembed;         // a token model's
};

// The loss and every gradient, float32 on the kernels / float64 (the reference). The loss is
// mean((h_L − target)²), or for a token model (target empty) the mean over the positions with
// a next token of −log softmax(logits)[next]. Refused as gradients(Problem) refuses, the layer
// named ("layers[2]: grad: ..."), and when a token model has no position with a next token.
Status gradients(const Stack& s, const Batch& target, StackGradients* out);
Status gradients_reference(const Stack& s, const Batch& target, StackGradients* out);

// Whether the loss and every gradient are finite and within float32 (check_finite per layer,
// the layer named).
Status check_finite(const StackGradients& g);

}  // namespace attn
