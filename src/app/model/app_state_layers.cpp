// The playground's state for a stack of layers: the shown layer as one layer (layer_view),
// edits of it written back into the stack, and training every layer at once.
#include <algorithm>
#include <cstring>

#include "app/model/app_state.h"
#include "app/text/i18n.h"
#include "scenario/tasks.h"

namespace ui {

namespace {

bool same_batch(const attn::Batch& a, const attn::Batch& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].rows() != b[i].rows() || a[i].cols() != b[i].cols()) return false;
    if (a[i].size() > 0 &&
        std::memcmp(a[i].data(), b[i].data(), sizeof(float) * static_cast<size_t>(a[i].size())))
      return false;
  }
  return true;
}

}  // namespace

scenario::Scenario AppState::layer_view(const scenario::Scenario& whole, const attn::Stack& st,
                                        const attn::StackTrace& t, int l) {
  scenario::Scenario v;
  v.title = whole.title;
  v.description = whole.description;
  v.tour = whole.tour;
  v.read_title = whole.read_title;
  v.read_url = whole.read_url;
  v.trained_from_task = whole.trained_from_task;
  v.trained_from_seed = whole.trained_from_seed;
  v.self_attention = true;
  v.batch_of_one = whole.batch_of_one;
  v.queries = v.keys = v.values = t.stream[l];
  if (whole.token_model()) {  // the tokens' names: the vocabulary's, or their ids
    v.tokens_per_item = true;
    for (const std::vector<int>& ids : whole.token_ids) {
      std::vector<std::string> names;
      for (int id : ids)
        names.push_back(id >= 0 && id < static_cast<int>(whole.vocab.size())
                            ? whole.vocab[id]
                            : "#" + std::to_string(id));
      v.query_tokens.push_back(std::move(names));
    }
  } else {
    v.query_tokens = whole.query_tokens;
    v.query_tokens_zh = whole.query_tokens_zh;
    v.tokens_per_item = whole.tokens_per_item;
    // The stream's columns are x's: a layer reads them and writes into them.
    v.feature_names = v.output_names = whole.feature_names;
    v.feature_names_zh = v.output_names_zh = whole.feature_names_zh;
  }
  v.scoring = whole.scoring;
  v.temperature = whole.temperature;
  v.heads = st.layers[l].heads;
  v.valid_lens_form = whole.valid_lens_form;
  v.valid_lens = whole.valid_lens;
  v.causal = whole.causal;
  v.window = whole.window;
  v.masked_cells = whole.masked_cells;
  v.mask_value = whole.mask_value;
  attn::for_each_weight(v, st.layers[l].weights,
                        [](const char*, auto& to, const auto& from) { to = from; });
  v.hard = whole.hard;
  v.hard_gradient = whole.hard_gradient;
  v.gumbel_tau = whole.gumbel_tau;
  v.gumbel_soft = whole.gumbel_soft;
  v.gumbel_seed = whole.gumbel_seed + static_cast<uint64_t>(l);  // as the stack draws layer l's
  v.has_dropout = whole.has_dropout;
  v.dropout_p = whole.dropout_p;
  v.dropout_seed = whole.dropout_seed + static_cast<uint64_t>(l);
  return v;
}

void AppState::set_stack_trace(attn::StackTrace t) {
  stack_trace = std::move(t);
  next_probabilities = attn::Batch(stack_trace.logits.size());
  for (size_t b = 0; b < stack_trace.logits.size(); ++b)
    next_probabilities.mut(b) = attn::next_token_probabilities(stack_trace.logits[b]);
}

bool AppState::key_split(const attn::Stack& st, const attn::StackTrace& t, int l, int head, int b,
                         attn::Matrix* from_input, attn::Matrix* from_layers) {
  const attn::Scoring scoring = st.base.scoring;
  if (l < 1 || l >= static_cast<int>(t.layers.size()) || l >= static_cast<int>(st.layers.size()))
    return false;
  if (scoring != attn::Scoring::kDot && scoring != attn::Scoring::kScaledDot) return false;
  const attn::Trace& layer = t.layers[l];
  if (head < 0 || head >= static_cast<int>(layer.heads.size()) || b < 0 ||
      b >= static_cast<int>(layer.q_proj.size()))
    return false;
  const attn::Matrix& h0 = t.stream.front()[b];
  const attn::Matrix& hl = t.stream[l][b];
  const attn::Matrix& W_k = st.layers[l].weights.W_k;
  const int d = static_cast<int>(layer.q_proj[b].cols());
  const int H = static_cast<int>(layer.heads.size());
  const int dk = d / H, c0 = head * dk;
  // In double, rounded once: each part as the core's float run would give it.
  const Eigen::MatrixXd added = (hl - h0).cast<double>();
  const Eigen::MatrixXd k_in =
      W_k.size() ? Eigen::MatrixXd(h0.cast<double>() * W_k.middleCols(c0, dk).cast<double>())
                 : Eigen::MatrixXd(h0.middleCols(c0, dk).cast<double>());
  const Eigen::MatrixXd k_up = W_k.size()
                                   ? Eigen::MatrixXd(added * W_k.middleCols(c0, dk).cast<double>())
                                   : Eigen::MatrixXd(added.middleCols(c0, dk));
  const Eigen::MatrixXd q = layer.q_proj[b].middleCols(c0, dk).cast<double>();
  const double scale = attn::score_scale(scoring, dk, st.base.temperature);
  *from_input = (scale * q * k_in.transpose()).cast<float>();
  *from_layers = (scale * q * k_up.transpose()).cast<float>();
  return true;
}

attn::Status AppState::run_whole() {
  scenario::Resolved r = scenario::resolve(whole);
  if (!r.ok()) return attn::Status{r.error};
  stack = std::move(r.stack);
  stack_trace = attn::StackTrace{};  // the old one goes before the new one is made
  set_stack_trace(attn::run(stack));
  layer = std::clamp(layer, 0, layer_count() - 1);
  scenario = layer_view(whole, stack, stack_trace, layer);
  return attn::Status{};
}

bool AppState::merge_layer_edit() {
  scenario::Resolved v = scenario::resolve(scenario);
  if (!v.ok()) return false;  // the edit's error shows, as for one layer
  const scenario::Scenario before = whole;
  if (!same_batch(scenario.queries, stack_trace.stream[layer])) {
    notice = layer == 0 && !whole.token_model() && !whole.positional_encoding
                 ? T("A stack's inputs are not edited here: change x in its JSON.")
                 : T("A layer's inputs are what the layers below wrote: they change when the "
                     "layers below do.");
  } else {
    scenario::Scenario& w = whole;
    const scenario::Scenario& s = scenario;
    w.scoring = s.scoring;
    w.temperature = s.temperature;
    w.valid_lens_form = s.valid_lens_form;
    w.valid_lens = s.valid_lens;
    w.causal = s.causal;
    w.window = s.window;
    w.masked_cells = s.masked_cells;
    w.mask_value = s.mask_value;
    w.hard = s.hard;
    w.hard_gradient = s.hard_gradient;
    w.gumbel_tau = s.gumbel_tau;
    w.gumbel_soft = s.gumbel_soft;
    w.gumbel_seed = s.gumbel_seed - static_cast<uint64_t>(layer);
    w.has_dropout = s.has_dropout;
    w.dropout_p = s.dropout_p;
    w.dropout_seed = s.dropout_seed - static_cast<uint64_t>(layer);
    scenario::LayerSpec& spec = w.layers[layer];
    spec.heads = s.heads;
    attn::for_each_weight(spec, v.problem.weights,
                          [](const char*, auto& to, const auto& from) { to = from; });
  }
  const attn::Status st = run_whole();
  if (st.ok()) return true;
  // The stack refuses what one layer allowed (another layer has no weights for a scoring, a
  // number past float32): it stays as it was, and says why.
  notice = st.error;
  whole = before;
  run_whole();
  return false;
}

std::string AppState::stack_trace_json() const {
  std::string text;
  scenario::TraceJsonWriter w([&text](const std::string& piece) { text += piece; });
  for (const attn::Trace& t : stack_trace.layers) {
    w.begin_layer();
    for (const attn::HeadTrace& h : t.heads) w.head(h);
    w.layer_output(t.output);
    w.end_layer();
  }
  w.output(stack_trace.output());
  if (stack.token_model()) {
    w.batch_member("logits", stack_trace.logits);
    w.batch_member("probabilities", next_probabilities);
  }
  w.finish();
  return text;
}

void AppState::set_layer(int l) {
  if (!layered()) return;
  l = std::clamp(l, 0, layer_count() - 1);
  if (l == layer) return;
  recompute_if_needed();  // an edit of the layer shown goes in first
  // (One that cannot run never reached the stack: the layer shown next is the stack's own.)
  layer = l;
  scenario = layer_view(whole, stack, stack_trace, layer);
  scenario::Resolved r = scenario::resolve(scenario);
  if (!r.ok()) {
    error = r.error;
    return;
  }
  recompute(std::move(r.problem), slice_ms);
  emit("view");
}

void AppState::show_trained_stack(const attn::Stack& st) {
  scenario::set_weights(&whole, st);  // the weights; the stack keeps the tokens it shows
  const attn::Status ran = run_whole();
  scenario::Resolved r = scenario::resolve(scenario);
  if (!ran.ok() || !r.ok()) {
    error = ran.ok() ? r.error : ran.error;
    training.error = error;
    training.playing = false;
    return;
  }
  recompute(std::move(r.problem), 0.0);
  emit("training");
}

}  // namespace ui
