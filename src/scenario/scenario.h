// The scenario model (Scenario JSON v1, docs/contracts.md §1): parse, validate, serialize,
// generate seeded weights, and turn a scenario into the core's Problem.
//
// [SECTION] Limits
// [SECTION] Scenario
// [SECTION] JSON
// [SECTION] Resolution into the core
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/stack.h"
#include "scenario/hierarchy_form.h"
#include "scenario/image.h"
#include "scenario/seq2seq_form.h"

namespace scenario {

//-----------------------------------------------------------------------------
// [SECTION] Limits: checked before anything of that size is allocated.
//-----------------------------------------------------------------------------

constexpr int kMaxBatch = 64;
constexpr int kMaxRows = 4096;  // tokens per sequence
constexpr int kMaxCols = 1024;  // features per token, d_model, hidden
constexpr int kMaxHeads = 64;
constexpr int kMaxLayers = 16;   // "layers": attention layers stacked on the residual stream
constexpr int kMaxVocab = 4096;  // a token model's tokens ("embed"'s rows, "vocab")
constexpr int kMaxTokenBytes = 64;
constexpr int kMaxMaskedCells = 65536;
// batch × heads × n_q × n_k: every head's score matrix of every batch item.
constexpr int64_t kMaxScoreCells = int64_t{1} << 27;

//-----------------------------------------------------------------------------
// [SECTION] Scenario
//-----------------------------------------------------------------------------

enum class ValidLensForm {
  kNone,
  kAll,          // "valid_lens": 3             one length for every sequence and query
  kPerSequence,  // "valid_lens": [3, 5]        one per batch item
  kPerQuery,     // "valid_lens": [[1, 2], ...] one per batch item and query
};

// A text in the UI's languages. JSON: a plain string (English) or {"en": ..., "zh": ...}.
struct LocalText {
  std::string en, zh;
  bool empty() const { return en.empty() && zh.empty(); }
  const std::string& in(const std::string& lang) const {
    return lang == "zh" && !zh.empty() ? zh : en;
  }
};

// A lesson's note on one pipeline step (0 inputs, 1 projections, 2 scores, 3 scaled, 4 masked,
// 5 weights, 6 weighted values, 7 output), shown with that step. JSON: {"step": 5, "text": ...,
// "controls": ["valid_lens"]}; `controls` (optional) are the ids of the controls the note asks
// the learner to use (as in the page's hide=): a page that hides one of them hides the note.
struct TourStop {
  int step = 0;
  LocalText text;
  std::vector<std::string> controls;
};
constexpr int kMaxTourControls = 8;

// A lesson's question, asked on one step (counted as in `tour`) before the learner sees the
// answer. JSON: {"step": 4, "ask": {...}, "why": {...}, "answer": A}, where A is either
//   {"head": h, "batch": b, "row": i, "key": j}: the largest weight in row i is key j, or
//   {"matrix": "weights", "head": h, "batch": b, "cell": [i, j], "value": v, "tolerance": t}:
//   that cell is v ± t. `matrix` is scores, scaled, masked, weights, head_output (head h's
//   output) or output (the final output; no head). Indices are 0-based like the arrays; the
//   screen shows them 1-based. "head" and "batch" may be left out (0).
struct QuizAnswer {
  bool argmax = true;  // false: a value within a tolerance
  // With "layers": the layer whose matrices it reads (its "output": what the layer adds).
  // JSON: "layer": l in either form, 0-based; only with "layers".
  int layer = 0;
  std::string matrix = "weights";
  int head = 0, batch = 0, row = 0, col = 0;  // col: the key (argmax) or the cell's column
  float value = 0.0f, tolerance = 0.0f;
};
struct QuizQuestion {
  int step = 0;
  LocalText ask, why;
  QuizAnswer answer;
};
constexpr int kMaxQuizQuestions = 8;
constexpr int kMaxTrueCurve = 1000;
constexpr int kMaxTourStops = 16;
// The pipeline's steps, inputs (0) to output (kStepCount − 1): what a tour note or a question
// is placed on (the app's ui::Step names them).
constexpr int kStepCount = 8;
constexpr int kTourLastStep = kStepCount - 1;

// One of the stacked attention layers ("layers": [{"W_q", "W_k", "W_v", "W_o", "W", "w_v",
// "heads"}, ...]): its own weights (as the top level's: empty = not given; init generates the
// missing ones, layer l from seed + l) and heads. Every layer shares the scenario's scoring,
// temperature, masks, hard attention and dropout (attn::Stack, core/stack.h).
struct LayerSpec {
  attn::Matrix W_q, W_k, W_v, W_o, W;
  attn::Vector w_v;
  int heads = 1;
};

struct Scenario {
  LocalText title, description;    // optional, shown by the app
  std::vector<TourStop> tour;      // optional: the lesson's notes, at most one per step
  std::vector<QuizQuestion> quiz;  // optional: questions to predict before the answer shows
  // Optional: what the output should be, shaped like it ([batch][n_q][output columns]); the
  // loss is mean((output − target)²) (attention-cli grad). Empty: none.
  attn::Batch target;
  // Optional: the function a regression's points were drawn from, as (x, y) pairs with x
  // increasing (2 to kMaxTrueCurve of them): the Curve view draws it beside the estimate.
  // JSON: "true_curve": [[0, 0], [0.05, 0.14], ...]. Empty: none.
  attn::Matrix true_curve;
  // Optional: the textbook section the lesson follows, a plain https link per language.
  // JSON: "read": {"title": {"en": ..., "zh": ...}, "url": {"en": "https://...", "zh": ...}}
  LocalText read_title, read_url;
  // Optional: the toy task and seed whose training made these weights (scenario/tasks.h; a
  // learned lesson's recipe writes it). JSON: "trained_from": {"task": "translate", "seed": 1}.
  // The Train section starts from that task, and its Reset goes back to the task's random start.
  std::string trained_from_task;  // "" = none
  uint64_t trained_from_seed = 0;

  // Inputs. With "x" (self-attention) queries, keys and values are all x.
  bool self_attention = false;
  bool batch_of_one = false;  // inputs were written as 2-D arrays
  attn::Batch queries, keys, values;
  // A picture whose patches are the keys and values (scenario/image.h); empty: none.
  Image image;
  // A GRU encoder–decoder whose decoder's attention this scenario is (scenario/seq2seq_form.h):
  // queries, keys, values, W_q, W_k, w_v, scoring, tokens and names are derived from it when read,
  // and to_json writes it alone. Empty: none.
  Seq2Seq seq2seq;
  // Attention over attention (scenario/hierarchy_form.h): word-level attention pools each
  // sentence, and this scenario is the sentence level: queries, keys, values, scoring, tokens
  // and names are derived from it when read, and to_json writes it alone. Empty: none.
  Hierarchy hierarchy;
  // Token labels: none, one list shared by every batch item, or one list per batch item.
  std::vector<std::vector<std::string>> query_tokens, key_tokens;
  // Their Chinese, when a lesson gives any: the same shape, a token written as
  // {"en": "tall", "zh": "高"} (a plain string is the same in both). Empty: none.
  std::vector<std::vector<std::string>> query_tokens_zh, key_tokens_zh;
  bool tokens_per_item = false;  // written as [batch][n] rather than [n]
  // Optional names of the columns, written like tokens ("height" or {"en": "height", "zh":
  // "身高"}): feature_names for the queries' and keys' columns (x's with self-attention),
  // value_names for the values' columns (separate values only). key_feature_names, when the
  // keys store their features in columns of their own (cross-attention between two languages):
  // then feature_names names the queries' columns only. output_names for the output's columns
  // (the space W_o, or W_v without W_o, maps into). Stored as one list ([0]), like tokens;
  // empty: d1, d2, ...
  std::vector<std::vector<std::string>> feature_names, feature_names_zh;
  std::vector<std::vector<std::string>> key_feature_names, key_feature_names_zh;
  std::vector<std::vector<std::string>> value_names, value_names_zh;
  std::vector<std::vector<std::string>> output_names, output_names_zh;

  attn::Scoring scoring = attn::Scoring::kScaledDot;
  float temperature = 1.0f;
  // Gaussian scoring's kernel width σ, in (0, 1000] (attn::Weights::sigma, which to_problem
  // copies it to, and set_weights back: it is learned). JSON: "sigma": s, only with "scoring":
  // "gaussian", written whenever the scoring is gaussian. Kept, unused, under another scoring.
  float sigma = 1.0f;
  int heads = 1;

  ValidLensForm valid_lens_form = ValidLensForm::kNone;
  std::vector<std::vector<int>> valid_lens;  // as written: [[all]], [[b0],[b1]], [[..],[..]]
  bool causal = false;
  int window = -1;
  std::vector<std::array<int, 3>> masked_cells;
  float mask_value = -1e6f;  // or -infinity

  // Weights given explicitly (empty = not given). Missing ones are generated from init.
  attn::Matrix W_q, W_k, W_v, W_o, W;
  attn::Vector w_v;
  bool has_init = false;
  uint64_t init_seed = 0;
  int init_d_model = 0;
  // Optional: attention layers stacked on a residual stream over x (self-attention only):
  // h_0 = x (+ positional encoding), h_{l+1} = h_l + layer_l(h_l), the output h_L. With them
  // the top level has no weights and heads = 1. Empty: one layer, the top level's weights.
  std::vector<LayerSpec> layers;
  // Optional, with layers: a token model (attn::Tokens). "tokens": [[id, ...], ...] ([id, ...]
  // for a batch of one) in place of x, "embed" (V × d: row id is the token's vector), "unembed"
  // (d × V: the logits are h_L · unembed), "next": the token each position should predict (-1:
  // none; the loss is their mean cross-entropy), "vocab": the V tokens' names. `init` with
  // "vocab" generates a missing embed (V × d_model) and unembed (d_model × V). queries, keys
  // and values then hold each token's row of embed (what x would be); to_json writes tokens.
  std::vector<std::vector<int>> token_ids, next_tokens;
  attn::Matrix embed, unembed;
  std::vector<std::string> vocab;
  bool token_model() const { return !token_ids.empty(); }
  // Optional, with tokens: "batches": {"task": "induction", "seed": s}: training step k trains
  // on the task's batch k from that seed (scenario/tasks.h task_batch) in place of the tokens
  // and next shown, so that a model cannot learn them by heart. "" = none.
  std::string batches_task;
  uint64_t batches_seed = 0;

  bool positional_encoding = false;
  float pe_base = 10000.0f;
  // "hard": true, or {"estimator": "straight_through"} or {"estimator": "gumbel", "tau": 1,
  // "seed": 0, "soft": false} (also hard): how grad and train pass a gradient through the
  // argmax (attn::HardGradient), and Gumbel's settings (attn::Problem::gumbel_tau, ...).
  bool hard = false;
  attn::HardGradient hard_gradient = attn::HardGradient::kNone;
  float gumbel_tau = 1.0f;
  uint64_t gumbel_seed = 0;
  bool gumbel_soft = false;
  bool has_dropout = false;
  float dropout_p = 0.0f;
  uint64_t dropout_seed = 0;

  int batch() const { return static_cast<int>(queries.size()); }
  int n_queries() const { return attn::batch_rows(queries); }
  int n_keys() const { return attn::batch_rows(keys); }
};

//-----------------------------------------------------------------------------
// [SECTION] JSON
//-----------------------------------------------------------------------------

// A scenario that was read and validated, with the core problem it resolves to (weights that
// `init` generates filled in), so that nothing on its way to the screen checks it again.
struct ParseResult {
  Scenario scenario;
  attn::Problem problem;
  // With "layers": the stack they make (weights that `init` generates filled in); `problem` is
  // then its base, x and the settings without weights. Without: no layers.
  attn::Stack stack;
  std::string error;  // "" on success, else "<field>: <problem>"
  bool ok() const { return error.empty(); }
};

// Parses and validates Scenario JSON v1. Every error names the field (as a JSON path such as
// `keys[0][2]`) and the problem; nothing larger than the limits above is allocated, and JSON
// nested deeper than 16 levels is refused before it is built.
ParseResult parse(const std::string& json_text);

// The input fields, given as numbers (x, or queries, keys and values): with the weights
// (attn::kWeightNames) they are the fields that may come as arrays, typed or from files.
inline constexpr const char* kInputNames[] = {"x", "queries", "keys", "values"};

// Numbers handed over beside the JSON, as the JS API's typed arrays are: any matrix field
// (kInputNames and attn::kWeightNames; w_v as a vector) may then be
//   {"shape": [rows, cols] | [batch, rows, cols], "buffer": k}    (w_v: {"shape": [n], ...})
// whose numbers, row-major, are arrays[k]. The same limits and errors apply as to arrays of
// numbers; no text is made of them.
struct FloatArray {
  const float* data = nullptr;
  size_t size = 0;
};
ParseResult parse(const std::string& json_text, const std::vector<FloatArray>& arrays);

// Canonical compact JSON; parse(to_json(s)) gives back s exactly (floats are written with
// the shortest decimal that reads back to the same float).
std::string to_json(const Scenario& s);

// Trace JSON v1: {"version":1,"heads":[{"scores","scaled","masked","weights","output"}],
// "output"}. Non-finite numbers are written as the strings "-inf", "inf" and "nan".
std::string trace_to_json(const attn::Trace& t);
// A seq2seq scenario's own part of its trace: {"source": [words], "produced": [words],
// "greedy": bool, "loss": L} — the sentence read, the words the decoder produced (the rows of
// the alignment), whether it chose them itself, and their mean cross-entropy.
// Precondition: !s.seq2seq.empty().
std::string seq2seq_trace_json(const Scenario& s);
// A hierarchical scenario's own part of its trace: {"word_weights": [[a_1...], ...],
// "sentence_vectors": [[v_1...], ...]} — each sentence's word weights (ragged) and the
// vectors they pool, the keys and values of the sentence level.
// Precondition: !s.hierarchy.empty().
std::string hierarchy_trace_json(const Scenario& s);

// The same text written piece by piece (pieces of about 64 KB), so that a trace of any size
// can be streamed, one head at a time, and only the parts asked for:
//   TraceJsonWriter w(sink);  w.head(h0); w.head(h1); w.output(out); w.finish();
// With no head() call "heads" is left out; without output() "output" is.
// A stack of layers ("layers") is written as
//   {"version":1,"layers":[{"heads":[...],"output":...},...],"output":...}
// with, per layer, begin_layer(), its head() calls, layer_output() (what the layer adds to the
// stream) and end_layer(); then output() (the stream's last state, h_L).
class TraceJsonWriter {
 public:
  using Sink = std::function<void(const std::string&)>;
  explicit TraceJsonWriter(Sink sink);
  // One head object with the named matrices (attn::kHeadMatrixNames; all when `names` is
  // empty); index >= 0
  // adds "head": index, for output that holds only some heads.
  void head(const attn::HeadTrace& h, const std::vector<std::string>& names = {}, int index = -1);
  void output(const attn::Batch& out);
  // Another batch after the output, named: a token model's "logits" and "probabilities".
  void batch_member(const char* name, const attn::Batch& b);
  // A member whose value is JSON text already (a seq2seq model's "seq2seq" block).
  void json_member(const char* name, const std::string& json_text);
  void begin_layer();
  void layer_output(const attn::Batch& added);
  void end_layer();
  void finish();  // closes the document and hands over the rest

 private:
  void key(const char* name);  // ,"name": (no comma first in an object)
  void close_heads();
  void close_layers();
  void matrix(const attn::Matrix& m);
  void batch(const attn::Batch& b);
  void flush_if_full();
  Sink sink_;
  std::string buffer_;
  float last_value_ = 0.0f;  // the last number formatted (compared by its bits), and its text
  std::string last_text_ = "0";
  int heads_ = 0;  // of the object being written (the document's, or a layer's)
  bool heads_closed_ = false;
  bool object_empty_ = false;  // the object being written has no member yet
  int layers_ = 0;
  bool in_layer_ = false, layers_closed_ = false;
};

// attention-cli grad's JSON for a stack: {"version":1,"loss":L,"grads":{"x":...,"layers":
// [{"W_q":...,...},...]}}, x shaped as written (2-D for a batch of one), each layer with the
// weights it has, numbers with 9 significant digits.
std::string stack_gradients_json(const Scenario& s, const attn::StackGradients& g);
// The same for one layer: {"version":1,"loss":L,"grads":{"x" (or "queries", "keys",
// "values"), "W_q", ...}}, each weight the problem has.
std::string gradients_json(const Scenario& s, const attn::Gradients& g);

// The shortest decimal text that reads back (strtof) to exactly v.
std::string format_float(float v);
// The same into buf (at least 48 bytes), without allocating; returns its length.
int format_float_to(char* buf, float v);

//-----------------------------------------------------------------------------
// [SECTION] Resolution into the core
//-----------------------------------------------------------------------------

// Semantic checks beyond the JSON's shape (sizes fit, lengths in range, limits), the core's
// attn::validate on the resolved problem, and check_magnitudes.
attn::Status validate(const Scenario& s);

// "" when no number the core computes for p can overflow float32, else "<field>: values too
// large: <what> can overflow float32 (up to <bound>; at most 1.7e+38 is safe)". Checked on
// bounds in double, from the inputs and weights alone (O(inputs), nothing is run): each
// projection element by |row|·|column|, each score by |q|·|k| (Cauchy–Schwarz; rows projected
// by W bounded by |W|_F; cosine scoring's rows are unit), times the scale when it is above 1,
// the weighted values by n_keys·max|v|, the output by its rows' lengths times W_o's columns,
// with room for float32's rounding. So a scenario that passes renders with no inf or NaN but
// a fully masked row under -inf, which is NaN by design; one that fails names the field (x,
// queries, keys, values, a W, or temperature) and the first row or query-key pair concerned.
// self_attention: the inputs are named "x". resolve() checks it.
std::string check_magnitudes(const attn::Problem& p, bool self_attention);

// validate() and to_problem() in one: the problem when the scenario can run.
struct Resolved {
  attn::Problem problem;
  attn::Stack stack;  // with "layers" (see ParseResult)
  std::string error;
  bool ok() const { return error.empty(); }
};
Resolved resolve(const Scenario& s);

// The core problem: inputs, masks and weights, with the weights that `init` generates
// filled in where none are given explicitly. With "layers": the stack's base (x and the
// settings, no weights, one head).
attn::Problem to_problem(const Scenario& s);

// The stack of a scenario with "layers" (no layers without): base = to_problem(s), and each
// layer's weights, those `init` generates filled in: layer l's as a one-layer self-attention
// scenario's of seed init.seed + l, except that a missing W_o is always generated,
// (the concatenated heads' width: W_v's columns, or d) × d, so that the layer maps back to
// the stream's width d.
attn::Stack to_stack(const Scenario& s);

// check_magnitudes for a stack: each layer's problem over the stream it reads, as computed
// (h_0, then each layer run with outputs only and added), and the stream's every number.
// Errors name the layer ("layers[1].W_q: values too large: ...").
std::string check_magnitudes(const attn::Stack& st);

// The quiz: which matrices a value question may name, and what the core says. For an argmax
// question, the key with the largest weight in the row (the first of equal ones); for a value
// question, the cell. Precondition: resolve(s) is ok and `t` is its full trace.
bool is_quiz_matrix(const std::string& name);
// The matrix question `a` reads, for batch item `item` of `head` (a lean trace's head holds
// that item alone, at its own index) or of the final output; and the key with the largest
// weight in a row (the first of equal ones). quiz_argmax and quiz_value below are these on a full
// trace.
const attn::Matrix& quiz_matrix(const QuizAnswer& a, const attn::HeadTrace& head, int item,
                                const attn::Batch& output);
int argmax_in_row(const attn::Matrix& m, int row);
// Drops the questions whose cells an edit has taken away (fewer rows, keys or heads), the
// column names whose columns an edit has changed, and a target the output's shape has left.
// Returns, for each question s->quiz had, "" when it was kept, else why it was dropped (as
// check_quiz_question says it).
std::vector<std::string> fit_to_shapes(Scenario* s);
int quiz_argmax(const QuizAnswer& a, const attn::Trace& t);
float quiz_value(const QuizAnswer& a, const attn::Trace& t);
// "" when the answer key agrees with the core's numbers, else what the core says instead.
std::string check_quiz_answer(const QuizAnswer& a, const attn::Trace& t);

// Writes a problem's weights into the scenario (after training): init no longer generates them;
// gaussian scoring's learned σ (attn::Weights::sigma) goes to Scenario::sigma.
void set_weights(Scenario* s, const attn::Weights& w);
// The same for a stack's layers, into the scenario's "layers".
void set_weights(Scenario* s, const attn::Stack& st);

// Which weight a generated matrix is: the streams of one seed differ, so that W_q and W_k
// of one seed differ.
enum class WeightStream : int { kWq = 1, kWk, kWv, kWo, kW, kwv, kEmbed, kUnembed };

// A token model's embed and unembed: as given, or generated from init (embed V × d_model,
// unembed d_model × V, V the vocabulary's size), or empty (neither).
attn::Matrix token_embed(const Scenario& s);
attn::Matrix token_unembed(const Scenario& s);
// Sets a token model's queries, keys and values to each token's row of token_embed(s).
// Precondition: the ids are within embed's rows.
void fill_token_inputs(Scenario* s);

// Weights for `init`: uniform in ±√(6 / (rows + cols)) (Glorot), rounded to 0.01 so that a
// learner can redo the arithmetic.
attn::Matrix generated_matrix(int rows, int cols, uint64_t seed, WeightStream stream);

}  // namespace scenario
