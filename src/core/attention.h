// The attention core: scoring, masked softmax, value weighting and multi-head attention.
//
// Pure functions from inputs to a Trace of every intermediate matrix. No GL, ImGui, JSON or
// I/O here (docs/contracts.md §7). Shapes follow `x·W`: rows are tokens, columns features.
//
// [SECTION] Problem: what to compute
// [SECTION] Trace: what was computed
// [SECTION] Steps, each usable and tested on its own
// [SECTION] Entry points
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace attn {

//-----------------------------------------------------------------------------
// [SECTION] Problem: what to compute
//-----------------------------------------------------------------------------

enum class Scoring {
  kDot,        // q·k
  kScaledDot,  // q·k / √d, d = the per-head key size
  kAdditive,   // w_vᵀ tanh(W_qᵀq + W_kᵀk)   (Bahdanau)
  kGeneral,    // qᵀ W k                      (bilinear, Luong "general")
  kCosine,     // q·k / (|q| |k|)
  kGaussian,  // −|q − k|² / (2σ²)            (Nadaraya–Watson kernel, σ = Weights::sigma)
};

// Every scoring, in the order the UI lists them: the JSON reader, the controls and the tests
// take the list from here.
constexpr Scoring kScorings[] = {Scoring::kDot,     Scoring::kScaledDot, Scoring::kAdditive,
                                 Scoring::kGeneral, Scoring::kCosine,    Scoring::kGaussian};

// What each scoring is, decided once here (the core, the scenario, the app and the tests read
// it rather than naming scorings):
struct ScoringInfo {
  Scoring scoring;
  const char* name;  // as Scenario JSON writes it: "dot", "scaled_dot", ...
  // W_q and W_k project the inputs into queries and keys (false: they are the scoring's own
  // network, additive's, and the scores read the inputs as they are).
  bool projects;
  bool one_head;  // only one head (additive: its network has no per-head split)
  // How the fused kernel computes the scores, q'·k'ᵀ: kDot (q' = q, k' = k), kBilinear
  // (q' = q·W), kUnitRows (q' and k' scaled to unit length), or kNone (row blocks of the
  // step-by-step path instead). A new scoring says which, or kNone, here.
  enum class Fused { kNone, kDot, kBilinear, kUnitRows } fused;
};
const ScoringInfo& scoring_info(Scoring s);
const char* scoring_name(Scoring s);  // scoring_info(s).name

// Which (query i, key j) cells of batch item b are hidden from the softmax. A cell is masked
// when any rule masks it.
struct MaskSpec {
  // Empty: no padding mask. Otherwise one entry per batch item, holding either one length
  // for every query of that item or one length per query. Keys j >= length are masked.
  std::vector<std::vector<int>> valid_lens;
  bool causal = false;  // mask keys after the query (j > i)
  int window = -1;      // >= 0: mask keys farther than `window` from the query (|i - j| > w)
  std::vector<std::array<int, 3>> cells;  // explicit (b, i, j) cells, e.g. clicked in the UI
  float mask_value = -1e6f;               // what masked scores become; may be -infinity

  bool any() const { return !valid_lens.empty() || causal || window >= 0 || !cells.empty(); }
};

// Learned matrices. An empty (0×0) matrix means "not used".
//  - dot, scaled_dot, cosine, general: W_q (d_q×d_model), W_k (d_k×d_model) and
//    W_v (d_v×d_model) project the inputs; heads split the projected columns.
//  - additive: W_q (d_q×hidden) and W_k (d_k×hidden) are the scoring network, w_v (hidden).
//  - general: W (d_q×d_k per head), shared by every head.
//  - W_o (concat width × d_out) projects the concatenated heads.
//  - gaussian: sigma, the kernel's width σ (one number, in (0, kMaxSigma]), shared by every
//    head. Learned like the matrices (Optimizer::step), but a scalar: it is not in
//    kWeightNames (for_each_weight walks matrices), the scenario writes it as "sigma": s, and
//    it is there (1) whatever the scoring, read only by gaussian scoring.
struct Weights {
  Matrix W_q, W_k, W_v, W_o, W;
  Vector w_v;
  float sigma = 1.0f;
};

// The largest kernel width σ that gaussian scoring takes (the smallest is any number above 0).
inline constexpr float kMaxSigma = 1000.0f;

// The learnable weights by name, the one list: scenario JSON, its NumPy fields, the CLI's
// gradients and the copies between a scenario and its problem walk it, so that a weight added
// to Weights is named here once. for_each_weight(t, f) calls f(name, t.<weight>) for each, in
// this order, on anything with these members (Weights, Gradients, scenario::Scenario);
// for_each_weight(a, b, f) calls f(name, a.<weight>, b.<weight>). w_v is a vector, the others
// matrices: f takes both (a generic lambda).
inline constexpr const char* kWeightNames[] = {"W_q", "W_k", "W_v", "W_o", "W", "w_v"};

template <class T, class F>
void for_each_weight(T& t, F&& f) {
  f(kWeightNames[0], t.W_q);
  f(kWeightNames[1], t.W_k);
  f(kWeightNames[2], t.W_v);
  f(kWeightNames[3], t.W_o);
  f(kWeightNames[4], t.W);
  f(kWeightNames[5], t.w_v);
}

// The weight matrix of that name in t (Weights or Gradients, as t is const or not), or null
// for w_v (a vector) and for a name that is not a weight's.
template <class T>
auto weight_matrix(T& t, std::string_view name) -> decltype(&t.W_q) {
  decltype(&t.W_q) found = nullptr;
  for_each_weight(t, [&](const char* n, auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, std::decay_t<decltype(t.W_q)>>)
      if (name == n) found = &m;
  });
  return found;
}

template <class A, class B, class F>
void for_each_weight(A& a, B& b, F&& f) {
  f(kWeightNames[0], a.W_q, b.W_q);
  f(kWeightNames[1], a.W_k, b.W_k);
  f(kWeightNames[2], a.W_v, b.W_v);
  f(kWeightNames[3], a.W_o, b.W_o);
  f(kWeightNames[4], a.W, b.W);
  f(kWeightNames[5], a.w_v, b.w_v);
}

// How the backward passes (core/gradient.h) go through hard attention's argmax, which has no
// gradient of its own.
enum class HardGradient {
  kNone,             // none: gradients() refuses, saying why
  kStraightThrough,  // the forward keeps its one-hot weights; the backward takes the gradient
                     // of the softmax of the masked scores in their place
  kGumbel,           // Gumbel-softmax: noise (gumbel_noise) is added to the visible masked
                     // scores, y = masked + g. Soft (Problem::gumbel_soft): the weights are
                     // softmax(y / tau), differentiated exactly. Else one-hot at the first
                     // maximum of y, and the backward takes the gradient of softmax(y / tau)
                     // in their place (straight-through Gumbel-softmax)
};

struct Problem {
  Batch queries, keys, values;  // [batch][n_q][d_q], [batch][n_k][d_k], [batch][n_k][d_v]
  Scoring scoring = Scoring::kScaledDot;
  float temperature = 1.0f;  // divides the scores after the √d scaling
  int heads = 1;
  Weights weights;
  MaskSpec mask;
  bool positional_encoding = false;  // add sinusoidal PE to queries, keys and values
  float pe_base = 10000.0f;
  bool hard = false;                                 // one-hot argmax weights instead of softmax
  HardGradient hard_gradient = HardGradient::kNone;  // with hard: its gradient, if any
  // With hard and HardGradient::kGumbel: the softmax's temperature (in (0, 100]), the noise's
  // seed, and whether the forward is the softmax itself rather than its one-hot argmax.
  float gumbel_tau = 1.0f;
  uint64_t gumbel_seed = 0;
  bool gumbel_soft = false;
  float dropout_p = 0.0f;  // > 0: train mode, weights dropped with probability p
  uint64_t dropout_seed = 0;
};

//-----------------------------------------------------------------------------
// [SECTION] Trace: what was computed
//-----------------------------------------------------------------------------

struct HeadTrace {
  Batch q, k, v;  // this head's slice of the (projected) queries, keys and values
  Batch scores;   // raw scores, n_q × n_k
  Batch scaled;   // scores × scale (1/√d for scaled_dot) / temperature
  Batch masked;   // scaled, masked cells replaced by mask_value
  Batch weights;  // softmax (or one-hot) of masked, after dropout in train mode
  Batch output;   // weights · v
};

// A head's steps by name, the one list: trace JSON's head members (in this order), the CLI's
// --matrices, lesson questions and the page's step matrices. for_each_head_matrix(h, f) calls
// f(name, h.<matrix>) for each, on anything with these members (HeadTrace, StepGradients).
inline constexpr const char* kHeadMatrixNames[] = {"scores", "scaled", "masked", "weights",
                                                   "output"};

template <class T, class F>
void for_each_head_matrix(T& h, F&& f) {
  f(kHeadMatrixNames[0], h.scores);
  f(kHeadMatrixNames[1], h.scaled);
  f(kHeadMatrixNames[2], h.masked);
  f(kHeadMatrixNames[3], h.weights);
  f(kHeadMatrixNames[4], h.output);
}

// The step of that name in h, or null.
template <class T>
auto head_matrix(T& h, std::string_view name) -> decltype(&h.scores) {
  decltype(&h.scores) found = nullptr;
  for_each_head_matrix(h, [&](const char* n, auto& m) {
    if (name == n) found = &m;
  });
  return found;
}

struct Trace {
  Batch queries, keys, values;   // inputs after positional encoding (if any)
  Batch pe_queries, pe_keys;     // the positional encodings that were added (empty if none)
  Batch q_proj, k_proj, v_proj;  // after W_q, W_k, W_v (the inputs, shared, when absent)
  std::vector<HeadTrace> heads;
  Batch concat;  // the heads' outputs side by side (n_q × Σ d_v per head)
  Batch output;  // concat · W_o, or concat when there is no W_o
};

//-----------------------------------------------------------------------------
// [SECTION] Steps, each usable and tested on its own
//-----------------------------------------------------------------------------

// PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(p / base^(2i/d)).
Matrix positional_encoding(int rows, int cols, float base = 10000.0f);

Matrix score_dot(const Matrix& q, const Matrix& k);  // q · kᵀ
Matrix score_additive(const Matrix& q, const Matrix& k, const Matrix& W_q, const Matrix& W_k,
                      const Vector& w_v);
Matrix score_general(const Matrix& q, const Matrix& k, const Matrix& W);  // q · W · kᵀ
Matrix score_cosine(const Matrix& q, const Matrix& k);                    // a zero vector scores 0
// −|q_i − k_j|² / (2σ²) for each pair, the squared distance summed in double.
Matrix score_gaussian(const Matrix& q, const Matrix& k, float sigma);

// |x|, the length of the n floats at x, summed in double: it neither overflows nor underflows
// for any finite floats (|x| may be past float32's largest number, 3.4e38, which is why it is
// a double). Cosine scoring divides each row by it, forward and backward.
double vector_length(const float* x, int n);
// The rows of x scaled to unit length (divided by vector_length in double, then rounded to
// float); a zero row stays zero. What cosine scoring dots.
Matrix unit_rows(const Matrix& x);

// The factor the raw scores are multiplied by: 1/√key_size for scaled_dot, then 1/temperature.
float score_scale(Scoring s, int key_size, float temperature);

// Keys [lo, hi) that the rules valid_lens, causal and window leave visible to query i of
// batch item b (explicit cells are not included). lo >= hi means the row is fully masked.
void visible_range(const MaskSpec& m, int b, int i, int n_k, int* lo, int* hi);

// Why key j is hidden from query i of batch item b: the first rule that hides it, in the
// order below, or kNone when it is visible.
enum class MaskRule {
  kNone,
  kValidLength,  // j >= the valid length
  kCausal,       // j > i
  kWindow,       // |i - j| > window
  kCell,         // listed in MaskSpec::cells
};
struct MaskReason {
  MaskRule rule = MaskRule::kNone;
  int valid_len = 0;  // kValidLength: the length of this query's sequence
};
MaskReason mask_reason(const MaskSpec& m, int b, int i, int j);
bool is_masked(const MaskSpec& m, int b, int i, int j);  // by any rule

// The mask of batch item b as n_q × n_k bytes, row-major, 1 where masked.
std::vector<uint8_t> mask_cells(const MaskSpec& m, int b, int n_q, int n_k);

// Copy of `scaled` with the masked cells of batch item b set to m.mask_value.
Matrix apply_mask(const Matrix& scaled, const MaskSpec& m, int b);

// Row-wise softmax, max-subtracted. A row of -1e6 gives uniform weights; a row of -inf NaN.
Matrix softmax_rows(const Matrix& x);
// Row-wise one-hot at the first maximum. A row containing NaN, or all -inf, gives NaN.
Matrix hard_rows(const Matrix& x);
// Train-mode dropout zeroes weight (i, j) of `head` and batch item b (of `batch_size`) when
// this draw, uniform in [0, 1), is below p, and scales the survivors by 1/(1-p). The draw is
// uniform01(seed, ((head·batch_size + b)·n_q + i)·n_k + j): one stream for every weight.
float dropout_draw(uint64_t seed, int head, int b, int i, int j, int batch_size, int n_q, int n_k);
// The Gumbel noise g = −log(−log(u)) that HardGradient::kGumbel adds to masked score (i, j) of
// `head` and batch item b: u = (k + 1/2) / 2^24, in (0, 1), with k the top 24 bits of a
// SplitMix64 hash of (seed, ((head·batch_size + b)·n_q + i)·n_k + j) in a stream of its own
// (not dropout's draws). Both logarithms are taken in double with + − × ÷ only (no libm), so
// the noise is the same bits natively, in WASM and in the exported Python program; then it is
// rounded to float. g lies in [−2.9, 17.4].
float gumbel_noise(uint64_t seed, int head, int b, int i, int j, int batch_size, int n_q, int n_k);
// Whether p's hard attention is Gumbel's (HardGradient::kGumbel).
inline bool gumbel(const Problem& p) {
  return p.hard && p.hard_gradient == HardGradient::kGumbel;
}

// The sizes of one head and the factor its scores are scaled by. Head h takes the columns
// [h·dq, (h+1)·dq) of the projected queries (likewise dk, dv), or of the inputs where there
// is no projection; in additive scoring W_q and W_k belong to the scoring network, so the
// queries and keys are not projected. Precondition: p.heads >= 1.
struct HeadShape {
  int dq, dk, dv;
  float scale;  // score_scale(p.scoring, dk, p.temperature)
};
HeadShape head_shape(const Problem& p);

//-----------------------------------------------------------------------------
// [SECTION] Entry points
//-----------------------------------------------------------------------------

// Checks that the shapes fit together. The error names the field the way the scenario JSON
// does, e.g. "W_k: has 3 rows, expected 4 (d_k)".
Status validate(const Problem& p);

struct RunOptions {
  // true: every head's scores, scaled, masked and weights (n_q × n_k each) are kept.
  // false: they are left empty and each head's output comes from the fused kernel, which
  // never holds more than a few rows of scores (see head_matrix_bytes). Hard attention,
  // dropout and additive scoring compute their rows in blocks instead, with the same steps
  // as the full path; dot, scaled_dot, cosine and general scoring use the fused kernel.
  bool keep_head_matrices = true;
};

// Runs the whole pipeline. Precondition: validate(p).ok().
Trace run(const Problem& p);
Trace run(const Problem& p, const RunOptions& options);

// run(p, options) in parts, for a caller that must keep answering while it computes (the
// page draws its frames between them): each advance(budget_ms) computes for about that long
// (one task at least: a block of rows of one product or of one head) and returns whether all
// is done; advance(0) does all that is left. take() finishes and gives the trace, bit for bit
// run(p, options)'s (run() is this job run at once). The job reads `p`, which must outlive it
// unchanged.
class RunJob {
 public:
  RunJob(const Problem& p, const RunOptions& options);
  // run_head(p, head, item) in parts: take_head() gives its HeadTrace (run_head is this job
  // run at once).
  RunJob(const Problem& p, int head, int item);
  ~RunJob();
  RunJob(RunJob&&) noexcept;
  RunJob& operator=(RunJob&&) noexcept;

  bool advance(double budget_ms);
  bool done() const;
  double progress() const;  // the part of the work done, from 0 to 1
  Trace take();
  HeadTrace take_head();

 private:
  struct Stage;
  struct State;
  std::unique_ptr<State> s_;
};

// Every intermediate of one head (0 <= head < p.heads), equal to run(p).heads[head]: lets a
// caller that ran with keep_head_matrices = false show one head. With item >= 0 only that
// batch item is computed; the others' scores, scaled, masked, weights and output are left
// empty (0 × 0). Precondition: validate(p).ok().
HeadTrace run_head(const Problem& p, int head, int item = -1);

// The heads' outputs side by side (Trace::concat), and the final output: concat · W_o, or
// concat itself without W_o (Trace::output). A caller that computes heads one at a time
// (run_head) gets the same output as run() from them.
Batch concat_heads(const std::vector<const Batch*>& head_outputs);
Batch output_of(const Problem& p, const Batch& concat);

// Bytes that keeping every head's scores, scaled, masked and weights would take:
// 4 · heads · batch · n_q · n_k · 4. Above 64 MB, prefer keep_head_matrices = false.
int64_t head_matrix_bytes(const Problem& p);

// Bytes of the matrices that the Trace run(p, options) returns holds beyond the problem's,
// from the sizes alone: what a caller checks against its memory before running. Matrices the
// trace shares (Batch: the inputs without positional encoding, projections without a W, one
// head's slices and output) count once. Precondition: validate(p).ok().
int64_t trace_bytes(const Problem& p, const RunOptions& options);

}  // namespace attn
