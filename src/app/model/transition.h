// Step changes drawn as short animations, so that each step's arithmetic is seen happening:
// scores shrinking under 1/√d, masked cells falling to the mask value, each row of weights
// renormalising under the softmax, the value rows flowing into the output. Pure (no ImGui):
// the panels ask for the values to draw at the transition's progress.
#pragma once

#include "app/text/explain.h"
#include "core/tensor.h"

namespace ui {

constexpr double kTransitionSeconds = 0.45;

struct Transition {
  Step from = Step::kInputs, to = Step::kInputs;
  double elapsed = 0.0;  // seconds since it began
  bool active = false;

  // Progress 0…1, eased (slow in, slow out).
  float eased() const;
  // Advances the clock by dt (at most 1/30 s a frame, so that a page waking from sleep
  // still shows the motion); ends the transition after kTransitionSeconds.
  void advance(double dt);
};

// Whether going from step `from` to `to` is animated: one step forward from the scores to the
// weighted values.
bool animates(Step from, Step to);

// The step's matrix as drawn at eased progress e of the transition into step `to`, from
// `before` (the previous step's matrix: S for the scaled step, S′ for the masked one, M for
// the weights) to `after` (the step's own):
//   kScaled  S + e·(S′ − S)
//   kMasked  S′ + e·(M − S′), except that a cell falling below S′'s lowest value L gets there
//            in the first half (linearly) and on to the mask value in the second
//            (geometrically: L·(M/L)^(2e−1)); one going to −∞ falls as to −1e6, and is −∞
//            at e = 1
//   kWeights exp(M − max M[i,·]) + e·(A − exp(M − max M[i,·])): every row starts with its
//            largest cell at 1 and is divided down to sum 1 (rows with no finite score, and
//            cells whose weight is not finite, are `after` throughout)
// Other steps, or matrices of different shapes: `after`.
attn::Matrix transition_values(Step to, const attn::Matrix& before, const attn::Matrix& after,
                               float e);

}  // namespace ui
