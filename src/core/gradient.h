// Gradients of the attention forward pass, for the loss mean((output − target)²).
//
// A backward pass over the core's own float32 forward trace (attn::run): every scoring (dot,
// scaled dot, additive with its W_q, W_k, w_v, general with its W, cosine, gaussian with its σ),
// temperature, every mask (masked cells pass no gradient), dropout with its fixed mask, heads,
// the projections W_q, W_k, W_v, W_o and the inputs (positional encoding adds a constant, so it
// passes the input's gradient through), and hard attention with the straight-through estimator
// (HardGradient::kStraightThrough: the forward's one-hot weights multiply the values, and the
// backward goes through the softmax of the masked scores as if they had been its weights), and
// Gumbel-softmax (HardGradient::kGumbel: the softmax of (masked + noise) / tau, exactly when
// it is the forward's weights (soft), straight through when they are its one-hot argmax).
// Refused with a reason (check_gradient): hard attention without an estimator (argmax has no
// gradient) and a row fully masked under -inf. Cosine scoring of a zero vector is the constant
// 0: its gradient there is taken as 0.
//
// Two implementations with the same coverage, refusals and messages: gradients() in float32
// on the attention kernels (core/kernels.h, best_kernels(); gradient.cpp), which the
// Optimizer, the CLI and the app use, and gradients_reference() in float64 with Eigen
// (gradient_reference.cpp), which tests/core/gradient_test.cpp checks against finite differences
// and the float32 one against.
#pragma once

#include <string>
#include <vector>

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
  MatrixD W;                   // general scoring's W (shared by the heads)
  Eigen::VectorXd w_v;         // additive scoring's w_v
  double sigma = 0.0;          // gaussian scoring's σ (Weights::sigma); 0 for other scorings
};

// Why gradients() cannot differentiate a problem, whatever its numbers: the rule, kept here
// once, that a caller with words of its own (the page's, in its language) maps to them.
enum class GradientRefusal {
  kNone,
  kHardWithoutEstimator,  // hard attention's argmax, with no estimator to pass through it
};
GradientRefusal gradient_refusal(const Problem& p);

// "" when gradients() can differentiate p, else why not ("grad: hard attention picks one key
// by argmax, which has no gradient (…)" when it has no estimator).
Status check_gradient(const Problem& p);

// The loss and every gradient. `target` has the output's shape. Fails (without NaN) when a
// row is fully masked under -inf: its weights are undefined, and so is their gradient; and
// when a score or the output of the forward pass overflows float32 (check_gradient). Values
// so large that the gradients overflow give inf: check_finite says so.
// float32 on the kernels (the loss itself is summed in float64). Agrees with
// gradients_reference within 1e-3 relative plus 1e-5 of the problem's largest gradient
// (tests/core/gradient_test.cpp; measured: 3e-6 of the largest at worst).
Status gradients(const Problem& p, const Batch& target, Gradients* out);

// The same in float64 (Eigen), over the same float32 forward trace: the reference.
Status gradients_reference(const Problem& p, const Batch& target, Gradients* out);

// The gradients from dY, the gradient of some loss with respect to the output of t = run(p)
// (dY has the output's shape), whatever the loss: what a stack of layers (core/stack.h) runs
// for each layer. out->loss is 0. Checks as gradients() does (check_gradient(p) and (p, t)).
Status backward(const Problem& p, const Trace& t, const Batch& dY, Gradients* out);
Status backward_reference(const Problem& p, const Trace& t, const BatchD& dY, Gradients* out);

// The gradients of one head's intermediate matrices for one batch item, as the attention
// view shows them (for a hovered cell): with respect to the head's output, its weights (as
// they multiplied the values, after any dropout), the masked scores (every cell: the softmax's
// own gradient), the scaled scores before masking (a masked cell is replaced by a constant,
// so it gets 0) and the raw scores (× the scoring's scale, attn::HeadShape::scale).
struct StepGradients {
  MatrixD output, weights, masked, scaled, scores;
};

// StepGradients for head h and batch item b of t = run(p), in float64: the same steps that
// gradients_reference takes. Checks as check_gradient(p, t, target) does, and h and b.
Status step_gradients(const Problem& p, const Trace& t, const Batch& target, int h, int b,
                      StepGradients* out);

// What both backward passes do first: check p (check_gradient, validate), run it, and check
// the trace against the target (below); *t is the forward trace when it returns ok.
Status forward_for_gradients(const Problem& p, const Batch& target, Trace* t);

// What both check once the forward pass t = run(p) is done: the target's shape, that no row
// is fully masked under -inf (the first such row, batch item by item, head by head), and that
// no score or output overflowed float32 (said so: "the numbers overflow float32"; -inf where
// the mask put it is not an overflow).
Status check_gradient(const Problem& p, const Trace& t, const Batch& target);

// Whether the loss is finite and every gradient within float32's range, else which is not
// ("grad: the gradient of W_q is not finite: it overflows float32"): what a caller that prints
// them checks first (attention-cli grad), so that no inf or NaN is printed. (The forward pass
// is checked by both backward passes, check_gradient; a step's new weights by the Optimizer.)
Status check_finite(const Gradients& g);

// Gradient steps on a problem's weights (W_q, W_k, W_v, W_o, W, w_v, and gaussian scoring's σ;
// the inputs stay fixed), with the float32 gradients(): SGD, w ← w − lr·∂L/∂w, or Adam
// (β = 0.9, 0.999, ε = 1e-8, bias-corrected). σ is stepped as it is, like any weight (one
// number, with moments of its own); a step that would take it out of (0, kMaxSigma] is
// refused, changing nothing ("train: step 3 would take sigma to -0.02, outside (0, 1000] (the
// learning rate 0.5 is too large)"): the page and the CLI both step through here, so they
// refuse the same step. The same problem, target and settings give the same weights, step for step.
// Gumbel's noise changes from step to step, reproducibly: the step taken after k steps
// (k = steps) computes its gradient with gumbel_seed + k (a stack: base.gumbel_seed + k, its
// layer l adding l), and leaves the problem's own seed as it was. The page and the CLI both
// train through step, so they draw the same noise.
struct Stack;  // core/stack.h

struct Optimizer {
  enum class Kind { kSgd, kAdam };
  Kind kind = Kind::kSgd;
  double lr = 0.1;
  int steps = 0;  // taken so far
  // One step; *loss is the loss before it. Fails (changing nothing) when the gradients do,
  // when the problem has no weights to learn, or when the step would take a weight past
  // float32's range ("train: step 3 would take W_q past float32's range (the learning rate
  // 100 is too large)").
  Status step(Problem* p, const Batch& target, double* loss);
  // The same on every layer's weights (the input x stays fixed), with the stack's gradients.
  Status step(Stack* s, const Batch& target, double* loss);

 private:
  struct Param {
    std::string name;  // as the error names it: "W_q", "layers[1].W_o"
    Matrix* weight;
    const MatrixD* gradient;
    bool width = false;  // gaussian scoring's σ (1 × 1): must stay in (0, kMaxSigma]
  };
  // One step of every weight by its gradient (SGD or Adam), all or none (see step).
  Status update(const std::vector<Param>& params);
  std::vector<MatrixD> m1_, m2_;  // Adam's moments, per weight
};

}  // namespace attn
