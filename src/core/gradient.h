// Gradients of the attention forward pass, for the loss mean((output − target)²).
//
// A first step of training (issue 15): a float64 backward pass over the core's own float32
// forward trace (attn::run), for dot and scaled dot-product scoring with temperature, every
// mask (masked cells pass no gradient), heads, the projections W_q, W_k, W_v, W_o and the
// inputs (positional encoding adds a constant, so it passes the input's gradient through).
// What it does not cover yet is refused with a reason (check_gradient): additive, general and
// cosine scoring, hard attention (argmax has no gradient) and dropout.
#pragma once

#include <string>

#include "core/attention.h"
#include "core/status.h"

namespace attn {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using BatchD = std::vector<MatrixD>;

struct Gradients {
  double loss = 0.0;  // mean over every element of (output − target)²
  // With respect to the inputs as given (before positional encoding). For self-attention the
  // caller adds the three: queries, keys and values are the same x.
  BatchD queries, keys, values;
  MatrixD W_q, W_k, W_v, W_o;  // empty when the problem has none
};

// "" when gradients() can differentiate p, else why not ("grad: additive scoring is not
// differentiated yet").
Status check_gradient(const Problem& p);

// The loss and every gradient. `target` has the output's shape. Fails (without NaN) when a
// row is fully masked under -inf: its weights are undefined, and so is their gradient.
Status gradients(const Problem& p, const Batch& target, Gradients* out);

}  // namespace attn
