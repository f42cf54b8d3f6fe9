// The controls' table (controls.h), its first part: what is on screen. The step, the centre's
// view, the query a Picture or Curve tab draws, the Decoder tab's word and its training, the
// Document's question, and the layer, head and batch item shown.
#include <algorithm>
#include <string>

#include "app/model/controls_internal.h"
#include "app/model/matrices.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"

namespace ui::detail {

namespace {

// The query a tab draws (an index into the shown batch item's queries), chosen by name.
int query_count(const AppState& s) {
  if (s.trace.heads.empty() || s.trace.heads[0].weights.empty()) return 0;
  const int b = std::clamp(s.batch, 0, static_cast<int>(s.trace.heads[0].weights.size()) - 1);
  return static_cast<int>(s.trace.heads[0].weights[b].rows());
}
Control query_choice(const char* id, const char* label, int AppState::*member,
                     std::function<bool(const AppState&)> available) {
  Control c = make(id, label, ControlKind::kSelect, "view");
  c.available = [available](const AppState& s) { return available(s) && query_count(s) > 0; };
  c.read = [member](const AppState& s) {
    return json(std::clamp(s.*member, 0, std::max(0, query_count(s) - 1)));
  };
  c.options = [](const AppState& s) {
    const int n = query_count(s);
    const std::vector<std::string> names = axis_labels(s, Axis::kQueryTokens, s.batch, n);
    std::vector<ControlOption> o;
    for (int i = 0; i < n; ++i) o.push_back({i, names[static_cast<size_t>(i)]});
    return o;
  };
  c.apply = [member](AppState& s, const json& v) {
    s.*member = v.get<int>();
    return std::string();
  };
  return c;
}

}  // namespace

void add_view_controls(std::vector<Control>& t) {
  Control step = make("step", N_("Step"), ControlKind::kSelect, nullptr);
  step.read = [](const AppState& s) { return json(static_cast<int>(s.step)); };
  step.options = [](const AppState&) {
    std::vector<ControlOption> o;
    for (int k = 0; k < kStepCount; ++k)
      o.push_back({k, std::to_string(k + 1) + ". " + T(step_name(static_cast<Step>(k)))});
    return o;
  };
  step.apply = [](AppState& s, const json& v) {
    s.set_step(v.get<int>());
    return std::string();
  };
  t.push_back(step);

  // The centre's tabs: the step by step view, all heads, the positional encoding explorer
  // and the 2-D view (those the page shows).
  Control view = make("view", N_("View"), ControlKind::kSelect, "view");
  view.available = [](const AppState& s) {
    return s.visible(Panel::kHeads) || s.visible(Panel::kPositional) || s.visible(Panel::kPlane);
  };
  view.read = [](const AppState& s) { return json(s.view_tab); };
  view.options = [](const AppState& s) {
    std::vector<ControlOption> o;
    for (const ViewSpec& v : view_registry())  // the tab bar's views, in its order
      if (v.available(s)) o.push_back({v.id, T(v.title)});
    return o;
  };
  view.apply = [](AppState& s, const json& v) {
    s.view_tab = s.view_tab_wanted = v.get<std::string>();
    return std::string();
  };
  t.push_back(view);

  // The query the Picture, Curve and 2-D tabs draw: here too, so the table view and the keyboard
  // reach it (the tabs draw their own buttons and slider for it).
  t.push_back(query_choice(
      "picture_query", N_("Picture's query"), &AppState::picture_query,
      [](const AppState& s) { return s.visible(Panel::kHeads) && !s.scenario.image.empty(); }));
  t.push_back(
      query_choice("curve_query", N_("Curve's query"), &AppState::curve_query,
                   [](const AppState& s) { return s.visible(Panel::kPlane) && s.has_curve(); }));
  // The 2-D view's query (its radio buttons), when its queries and keys are arrows.
  t.push_back(query_choice("plane_query", N_("2-D view's query"), &AppState::plane_query,
                           [](const AppState& s) { return plane_drawn(s); }));

  // The word a seq2seq model's Decoder tab shows being written, 1 to the words produced (the
  // tab draws its own Previous word, Next word and Play for it).
  Control decoder = make("decoder_step", N_("Decoder's word"), ControlKind::kSelect, "view");
  decoder.available = [](const AppState& s) {
    return s.visible(Panel::kHeads) && !s.scenario.seq2seq.empty() && s.decoder_words() > 0;
  };
  decoder.read = [](const AppState& s) {
    return json(std::clamp(s.decoder_step, 1, std::max(1, s.decoder_words())));
  };
  decoder.options = [](const AppState& s) {
    const scenario::Seq2Seq& m = s.scenario.seq2seq;
    std::vector<ControlOption> o;
    for (int t = 1; t <= s.decoder_words(); ++t)
      o.push_back({t, std::to_string(t) + ". " + m.target_word(m.produced[t - 1])});
    return o;
  };
  decoder.apply = [](AppState& s, const json& v) {
    s.decoder_playing = false;
    s.set_decoder_step(v.get<int>());
    return std::string();
  };
  t.push_back(decoder);
  // The tab's Play (a word every 0.8 s, stopping at the last), for the keyboard: from the
  // first word again when the last is shown, as the tab's button does.
  Control decoder_play =
      make("decoder_play", N_("play the decoder's words"), ControlKind::kCheckbox, "view");
  decoder_play.available = decoder.available;
  decoder_play.read = [](const AppState& s) { return json(s.decoder_playing); };
  decoder_play.apply = [](AppState& s, const json& v) {
    const bool play = v.get<bool>();
    if (play && !s.decoder_playing && s.decoder_step >= s.decoder_words()) s.set_decoder_step(1);
    s.decoder_playing = play;
    s.decoder_clock = 0.0;
    if (play) s.view_tab = s.view_tab_wanted = "decoder";
    return std::string();
  };
  t.push_back(decoder_play);

  // The question a hierarchy scenario's Document tab shows, 1 to the questions (the tab draws a
  // button for each).
  Control question =
      make("hierarchy_question", N_("Document's question"), ControlKind::kSelect, "view");
  const auto questions = [](const AppState& s) {
    return static_cast<int>(s.scenario.hierarchy.questions.rows());
  };
  question.available = [questions](const AppState& s) {
    return s.visible(Panel::kHeads) && !s.scenario.hierarchy.empty() && questions(s) > 0;
  };
  question.read = [questions](const AppState& s) {
    return json(std::clamp(s.hierarchy_question, 1, std::max(1, questions(s))));
  };
  question.options = [questions](const AppState& s) {
    const int n = questions(s);
    const std::vector<std::string> names = axis_labels(s, Axis::kQueryTokens, 0, n);
    std::vector<ControlOption> o;
    for (int i = 1; i <= n; ++i)
      o.push_back({i, std::to_string(i) + ". " + names[static_cast<size_t>(i - 1)]});
    return o;
  };
  question.apply = [](AppState& s, const json& v) {
    s.hierarchy_question = v.get<int>();
    return std::string();
  };
  t.push_back(question);

  // The Decoder tab's Random start and Train (AppState::DecoderTraining), for a model of the
  // toy language; hidden with the Train section. Either brings the Decoder tab on screen, where
  // the training plays.
  const auto decoder_trains = [](const AppState& s) {
    return s.visible(Panel::kHeads) && !s.scenario.seq2seq.empty() &&
           s.decoder_untrainable().empty();
  };
  Control decoder_train =
      make("decoder_train", N_("train the decoder (play)"), ControlKind::kCheckbox, "train");
  decoder_train.available = decoder_trains;
  decoder_train.read = [](const AppState& s) { return json(s.decoder_training.playing); };
  decoder_train.apply = [](AppState& s, const json& v) {
    s.decoder_training.playing = v.get<bool>();
    if (s.decoder_training.playing) s.decoder_playing = false;
    s.view_tab = s.view_tab_wanted = "decoder";
    return std::string();
  };
  decoder_train.help =
      N_("Adam on the toy language's sentence pairs, a few steps a frame, pausing every 1500.");
  t.push_back(decoder_train);
  Control decoder_random =
      make("decoder_random_start", N_("the decoder's random start"), ControlKind::kButton, "train");
  decoder_random.available = decoder_trains;
  decoder_random.apply = [](AppState& s, const json&) {
    s.view_tab = s.view_tab_wanted = "decoder";
    return s.decoder_random_start() ? std::string() : s.decoder_training.error;
  };
  decoder_random.help = N_("Every weight of the encoder and decoder drawn again from the seed.");
  t.push_back(decoder_random);

  // The layer of a stack the steps and heads show (AppState::layer_view).
  Control layer = make("layer", N_("Layer"), ControlKind::kSelect, "layer");
  layer.available = [](const AppState& s) { return s.layered(); };
  layer.read = [](const AppState& s) { return json(s.layer + 1); };
  layer.options = [](const AppState& s) {
    std::vector<ControlOption> o;
    for (int l = 1; l <= s.layer_count(); ++l) o.push_back({l, std::to_string(l)});
    return o;
  };
  layer.apply = [](AppState& s, const json& v) {
    s.set_layer(v.get<int>() - 1);
    return std::string();
  };
  layer.help =
      N_("A stack adds each layer's output to the stream it read: layer l reads the inputs plus "
         "what layers 1 to l\xe2\x88\x92"
         "1 wrote. The steps show one layer at a time.");
  t.push_back(layer);

  Control head = make("head", N_("Head"), ControlKind::kSelect, "head");
  head.available = [](const AppState& s) { return s.scenario.heads > 1; };
  head.read = [](const AppState& s) { return json(s.head + 1); };
  head.options = [](const AppState& s) {
    std::vector<ControlOption> o;
    for (int h = 1; h <= s.scenario.heads; ++h) o.push_back({h, std::to_string(h)});
    return o;
  };
  head.apply = [](AppState& s, const json& v) {
    s.set_head(v.get<int>() - 1);
    return std::string();
  };
  t.push_back(head);

  Control batch = make("batch", N_("Batch item"), ControlKind::kSelect, "batch");
  batch.available = [](const AppState& s) { return s.scenario.batch() > 1; };
  batch.read = [](const AppState& s) { return json(s.batch + 1); };
  batch.options = [](const AppState& s) {
    std::vector<ControlOption> o;
    for (int b = 1; b <= s.scenario.batch(); ++b) o.push_back({b, std::to_string(b)});
    return o;
  };
  batch.apply = [](AppState& s, const json& v) {
    s.set_batch(v.get<int>() - 1);
    return std::string();
  };
  t.push_back(batch);
}

}  // namespace ui::detail
