// Attention layers stacked on a residual stream (scenario JSON's "layers", docs/contracts.md).
//
// h₀ = x (+ the positional encoding, added once, here), h_{l+1} = h_l + layer_l(h_l), and the
// output is h_L. Layer l is self-attention over the stream: its queries, keys and values are
// all h_l, with the layer's own weights and heads and the stack's scoring, temperature, mask,
// hard attention and dropout (layer l draws its dropout from seed + l). Each layer's output
// (concat · W_o, or concat without W_o) must be as wide as the stream, d, to be added to it.
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

struct Stack {
  // The input x (base.queries; base.keys and base.values are the same x or empty), and what
  // every layer shares: scoring, temperature, mask, positional encoding (added to x once),
  // hard attention and its gradient, dropout. base.weights and base.heads are not used.
  Problem base;
  std::vector<Layer> layers;
};

// The problem layer l computes over the stream h: base's settings with queries = keys =
// values = h, layer l's weights and heads, no positional encoding, dropout seed + l.
Problem layer_problem(const Stack& s, int l, const Batch& h);

// The stream's first state: x plus its positional encoding when base has it on.
Batch stack_input(const Stack& s);

// Checks each layer as validate(Problem) does, its errors named "layers[l].W_q: ...", and that
// each layer's output is as wide as the stream ("layers[1].W_o: has 3 columns, expected 4
// (the stream's width d)"). At least one layer.
Status validate(const Stack& s);

struct StackTrace {
  std::vector<Batch> stream;  // h_0 … h_L: L + 1 states
  std::vector<Trace> layers;  // layer l's trace over h_l; its output is what it adds
  const Batch& output() const { return stream.back(); }
};

// Precondition: validate(s).ok().
StackTrace run(const Stack& s, const RunOptions& options = {});

struct StackGradients {
  double loss = 0.0;              // mean((h_L − target)²)
  BatchD x;                       // with respect to x as given (before positional encoding)
  std::vector<Gradients> layers;  // each layer's weights (its queries, keys, values empty)
};

// The loss mean((h_L − target)²) and every gradient, float32 on the kernels / float64 (the
// reference). Refused as gradients(Problem) refuses, the layer named ("layers[2]: grad: ...").
Status gradients(const Stack& s, const Batch& target, StackGradients* out);
Status gradients_reference(const Stack& s, const Batch& target, StackGradients* out);

// Whether the loss and every gradient are finite and within float32 (check_finite per layer,
// the layer named).
Status check_finite(const StackGradients& g);

}  // namespace attn
