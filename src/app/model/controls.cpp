// The controls' table (controls.h): each control once, for the canvas, the table view, the
// JS API and the checks of hide= and lesson notes.
#include "app/model/controls.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/model/edits.h"
#include "app/model/matrices.h"
#include "app/model/views.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"
#include "scenario/link.h"
#include "scenario/tasks.h"

namespace ui {

namespace {

using nlohmann::json;

Control make(const char* id, const char* label, ControlKind kind, const char* hidden_by,
             double min = 0.0, double max = 0.0, double step = 0.0, bool logarithmic = false) {
  Control c;
  c.id = id;
  c.label = label;
  c.kind = kind;
  c.hidden_by = hidden_by;
  c.min = min;
  c.max = max;
  c.step = step;
  c.logarithmic = logarithmic;
  return c;
}

bool has_target(const AppState& s) {
  return s.has_target();
}
bool not_additive(const AppState& s) {  // W_q and W_k project (ScoringInfo::projects)
  return attn::scoring_info(s.scenario.scoring).projects;
}
const char* lang_code(const AppState& s) {
  return s.lang == Lang::kZh ? "zh" : "en";
}

// A checkbox on a bool of the state.
Control checkbox(const char* id, const char* label, const char* hidden_by, bool AppState::*member) {
  Control c = make(id, label, ControlKind::kCheckbox, hidden_by);
  c.read = [member](const AppState& s) { return json(s.*member); };
  c.apply = [member](AppState& s, const json& v) {
    s.*member = v.get<bool>();
    return std::string();
  };
  return c;
}
// A checkbox on a bool of the scenario: a change recomputes.
Control scenario_flag(const char* id, const char* label, bool scenario::Scenario::*member) {
  Control c = make(id, label, ControlKind::kCheckbox, id);
  c.read = [member](const AppState& s) { return json(s.scenario.*member); };
  c.apply = [member](AppState& s, const json& v) {
    s.scenario.*member = v.get<bool>();
    s.changed();
    return std::string();
  };
  return c;
}

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

std::vector<Control> make_table() {
  std::vector<Control> t;

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

  // The query the Picture and Curve tabs draw: here too, so the table view and the keyboard
  // reach it (the tabs draw their own buttons and slider for it).
  t.push_back(query_choice(
      "picture_query", N_("Picture's query"), &AppState::picture_query,
      [](const AppState& s) { return s.visible(Panel::kHeads) && !s.scenario.image.empty(); }));
  t.push_back(
      query_choice("curve_query", N_("Curve's query"), &AppState::curve_query,
                   [](const AppState& s) { return s.visible(Panel::kPlane) && s.has_curve(); }));

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

  Control scoring = make("scoring", N_("Scoring"), ControlKind::kSelect, "scoring");
  scoring.read = [](const AppState& s) { return json(attn::scoring_name(s.scenario.scoring)); };
  scoring.options = [](const AppState&) {
    std::vector<ControlOption> o;
    for (attn::Scoring k : attn::kScorings)
      o.push_back({attn::scoring_name(k), T(scoring_label(k))});
    return o;
  };
  scoring.apply = [](AppState& s, const json& v) {
    for (attn::Scoring k : attn::kScorings)
      if (v.get<std::string>() == attn::scoring_name(k)) set_scoring(&s.scenario, k);
    s.changed();
    return std::string();
  };
  t.push_back(scoring);

  Control temperature = make("temperature", N_("temperature"), ControlKind::kNumber, "temperature",
                             0.05, 10.0, 0.05, true);
  temperature.read = [](const AppState& s) { return json(s.scenario.temperature); };
  temperature.apply = [](AppState& s, const json& v) {
    s.scenario.temperature = v.get<float>();
    s.changed();
    return std::string();
  };
  temperature.help =
      N_("The scores are divided by T. Large T: flatter weights. Small T: the largest score "
         "takes almost everything.");
  t.push_back(temperature);

  // Gaussian scoring's kernel width σ (learned by Train, like a weight).
  Control sigma = make("sigma", N_("kernel width \xcf\x83"), ControlKind::kNumber, "scoring", 0.05,
                       20.0, 0.05, true);
  sigma.available = [](const AppState& s) {
    return !s.layered() && s.scenario.scoring == attn::Scoring::kGaussian;
  };
  sigma.read = [](const AppState& s) { return json(s.scenario.sigma); };
  sigma.apply = [](AppState& s, const json& v) {
    s.scenario.sigma = v.get<float>();
    s.changed();
    return std::string();
  };
  sigma.help =
      N_("Each key's weight falls with its distance from the query as a bell curve of this "
         "width: small \xcf\x83, only the nearest keys count (a wiggly fit); large, many keys "
         "share the weight (a smooth one).");
  t.push_back(sigma);

  Control valid_lens =
      make("valid_lens", N_("valid lengths"), ControlKind::kCheckbox, "valid_lens");
  valid_lens.read = [](const AppState& s) {
    return json(s.scenario.valid_lens_form != scenario::ValidLensForm::kNone);
  };
  valid_lens.apply = [](AppState& s, const json& v) {
    set_valid_len(&s.scenario, 0, v.get<bool>() ? s.scenario.n_keys() : -1);
    s.changed();
    return std::string();
  };
  valid_lens.help =
      N_("Padding: a sequence of valid length n keeps keys 1 to n; the keys after them are "
         "masked.");
  t.push_back(valid_lens);

  Control causal =
      scenario_flag("causal", N_("causal (no peeking ahead)"), &scenario::Scenario::causal);
  causal.help =
      N_("Each query may only look at keys at or before its own position, as in a decoder.");
  t.push_back(causal);

  Control window = make("window", N_("local window"), ControlKind::kCheckbox, "window");
  window.read = [](const AppState& s) { return json(s.scenario.window >= 0); };
  window.apply = [](AppState& s, const json& v) {
    s.scenario.window = v.get<bool>() ? 1 : -1;
    s.changed();
    return std::string();
  };
  t.push_back(window);

  Control mask_value = make("mask_value", N_("masked scores"), ControlKind::kSelect, "mask_value");
  mask_value.read = [](const AppState& s) {
    return json(std::isinf(s.scenario.mask_value) ? "-inf" : "-1e6");
  };
  mask_value.options = [](const AppState&) {
    return std::vector<ControlOption>{{"-1e6",
                                       "\xe2\x88\x92"
                                       "1e6"},
                                      {"-inf", "\xe2\x88\x92\xe2\x88\x9e"}};
  };
  mask_value.apply = [](AppState& s, const json& v) {
    s.scenario.mask_value = v == "-inf" ? -INFINITY : -1e6f;
    s.changed();
    return std::string();
  };
  mask_value.help =
      N_("With -1e6 a row whose keys are all masked gets uniform weights; with -infinity "
         "its weights are undefined (NaN).");
  t.push_back(mask_value);

  Control projections =
      make("projections", N_("learned projections"), ControlKind::kCheckbox, "projections");
  // A stack's layers keep their weights (its widths are set in its JSON).
  projections.available = [](const AppState& s) { return !s.layered() && not_additive(s); };
  projections.read = [](const AppState& s) { return json(has_projections(s.scenario)); };
  projections.apply = [](AppState& s, const json& v) {
    set_projections(&s.scenario, v.get<bool>());
    s.changed();
    return std::string();
  };
  projections.help =
      N_("Q = X·W_q, K = X·W_k, V = X·W_v and the output matrix W_o, with seeded random "
         "weights. Without them the inputs are used as they are.");
  t.push_back(projections);

  Control heads = make("heads", N_("heads"), ControlKind::kSelect, "heads");
  heads.available = not_additive;
  heads.read = [](const AppState& s) { return json(s.scenario.heads); };
  heads.options = [](const AppState& s) {
    std::vector<ControlOption> o;
    const int width = d_model(s.scenario);
    for (int h = 1; h <= std::min(width, 16); ++h)
      if (width % h == 0) o.push_back({h, std::to_string(h)});
    return o;
  };
  heads.apply = [](AppState& s, const json& v) {
    const attn::Status st = set_heads(&s.scenario, v.get<int>());
    if (!st.ok()) return st.error;
    s.changed();
    return std::string();
  };
  heads.help =
      N_("Heads split d_model into equal blocks of columns; only divisors of d_model work.");
  t.push_back(heads);

  Control pe = scenario_flag("positional_encoding", N_("positional encoding"),
                             &scenario::Scenario::positional_encoding);
  // A stack adds it to its input once, before the first layer: not per layer.
  pe.available = [](const AppState& s) { return !s.layered(); };
  t.push_back(pe);
  t.push_back(scenario_flag("hard", N_("hard attention (argmax)"), &scenario::Scenario::hard));
  Control straight = make("hard_straight_through", N_("train it straight through"),
                          ControlKind::kCheckbox, "hard");
  straight.available = [](const AppState& s) { return s.scenario.hard; };
  // On for straight through, with Gumbel's noise or without (hard_gumbel says which).
  straight.read = [](const AppState& s) {
    return json(s.scenario.hard_gradient != attn::HardGradient::kNone);
  };
  straight.apply = [](AppState& s, const json& v) {
    const bool on = v.get<bool>();
    if (on == (s.scenario.hard_gradient != attn::HardGradient::kNone)) return std::string();
    s.scenario.hard_gradient =
        on ? attn::HardGradient::kStraightThrough : attn::HardGradient::kNone;
    s.changed();
    return std::string();
  };
  straight.help =
      N_("The argmax has no gradient, so Train cannot learn through it. Straight through, the "
         "forward keeps its one-hot weights and the backward takes the gradient of the softmax "
         "of the same scores in their place.");
  t.push_back(straight);
  // Gumbel-softmax: noise from the seed added to the scores before the argmax; each training
  // step draws new noise (seed + step).
  const auto gumbel_on = [](const AppState& s) {
    return s.scenario.hard && s.scenario.hard_gradient == attn::HardGradient::kGumbel;
  };
  Control gumbel = make("hard_gumbel", N_("with Gumbel noise"), ControlKind::kCheckbox, "hard");
  gumbel.available = [](const AppState& s) {
    return s.scenario.hard && s.scenario.hard_gradient != attn::HardGradient::kNone;
  };
  gumbel.read = gumbel_on;
  gumbel.apply = [](AppState& s, const json& v) {
    s.scenario.hard_gradient =
        v.get<bool>() ? attn::HardGradient::kGumbel : attn::HardGradient::kStraightThrough;
    s.changed();
    return std::string();
  };
  gumbel.help =
      N_("Gumbel-softmax: random noise, drawn from the seed, is added to the scores before the "
         "argmax, so a key that is nearly the best is sometimes picked and learns too. The "
         "backward takes the gradient of softmax((scores + noise) / \xcf\x84). Each training "
         "step draws new noise.");
  t.push_back(gumbel);
  Control tau = make("gumbel_tau", N_("Gumbel \xcf\x84"), ControlKind::kNumber, "hard", 0.05, 10.0,
                     0.05, true);
  tau.available = gumbel_on;
  tau.read = [](const AppState& s) { return json(s.scenario.gumbel_tau); };
  tau.apply = [](AppState& s, const json& v) {
    s.scenario.gumbel_tau = v.get<float>();
    s.changed();
    return std::string();
  };
  tau.help =
      N_("Divides the noisy scores in the backward's softmax (and in the forward when "
         "soft): small \xcf\x84, close to the argmax; large, close to uniform.");
  t.push_back(tau);
  Control soft = make("gumbel_soft", N_("soft (no argmax)"), ControlKind::kCheckbox, "hard");
  soft.available = gumbel_on;
  soft.read = [](const AppState& s) { return json(s.scenario.gumbel_soft); };
  soft.apply = [](AppState& s, const json& v) {
    s.scenario.gumbel_soft = v.get<bool>();
    s.changed();
    return std::string();
  };
  soft.help =
      N_("The forward's weights are softmax((scores + noise) / \xcf\x84) themselves, "
         "not their argmax: what the noise does without the one-hot.");
  t.push_back(soft);

  Control numbers =
      checkbox("numbers", N_("numbers in the cells"), "numbers", &AppState::show_numbers);
  numbers.help =
      N_("Off: only the colours, for guessing before looking (pointing at a cell still shows "
         "its number and arithmetic).");
  t.push_back(numbers);
  Control transpose =
      checkbox("transpose", N_("transpose matrices"), "transpose", &AppState::transpose);
  transpose.help =
      N_("Draws every matrix of the step view transposed, tokens along the columns, with the "
         "same numbers, and writes the formulas in the column convention (S = K\xe1\xb5\x80Q, "
         "O = V\xc2\xb7"
         "A), as some courses teach them. Exports stay in the row convention.");
  t.push_back(transpose);
  Control animate = checkbox("animate", N_("animate step changes"), "animate", &AppState::animate);
  animate.help =
      N_("Going one step forward animates what the step does: the scores shrink by 1/\xe2\x88\x9a"
         "d, masked cells fall to the mask value, each row of weights is divided down to sum 1, "
         "the value rows flow into the output. Off when your system asks for reduced motion.");
  t.push_back(animate);

  // The Train section: all hidden with "train".
  Control task = make("task", N_("toy task"), ControlKind::kSelect, "train");
  task.read = [](const AppState& s) { return json(s.training.task); };
  task.options = [](const AppState& s) {
    std::vector<ControlOption> o{{"", T("this scenario's target")}};
    for (const scenario::TaskInfo& info : scenario::task_list())
      o.push_back({info.name, info.title.in(lang_code(s))});
    return o;
  };
  task.apply = [](AppState& s, const json& v) {
    if (v.get<std::string>().empty()) return std::string();  // the scenario's own target
    return s.load_task(v.get<std::string>(), s.training.seed).error;
  };
  t.push_back(task);

  Control train = make("train", N_("train (play)"), ControlKind::kCheckbox, "train");
  train.available = has_target;
  train.read = [](const AppState& s) { return json(s.training.playing); };
  train.apply = [](AppState& s, const json& v) {
    s.training.playing = v.get<bool>();
    s.training.converged = false;
    s.training.clock = 0.0;
    return std::string();
  };
  t.push_back(train);

  Control speed = make("train_speed", N_("training speed"), ControlKind::kSelect, "train");
  speed.available = has_target;
  speed.read = [](const AppState& s) { return json(AppState::speed_name(s.training.speed)); };
  speed.options = [](const AppState&) {
    return std::vector<ControlOption>{{"slow", T("slow: 10 steps a second")},
                                      {"steady", T("steady: 60 steps a second")},
                                      {"fast", T("fast: all a frame allows")}};
  };
  speed.apply = [](AppState& s, const json& v) {
    AppState::speed_from_name(v.get<std::string>(), &s.training.speed);
    return std::string();
  };
  t.push_back(speed);

  Control one_step = make("train_step", N_("one training step"), ControlKind::kButton, "train");
  one_step.available = has_target;
  one_step.apply = [](AppState& s, const json&) {
    if (s.train(1, 1000.0) == 0) return s.training.error;
    return std::string();
  };
  t.push_back(one_step);

  Control reset = make("train_reset", N_("reset training"), ControlKind::kButton, "train");
  reset.available = has_target;
  reset.apply = [](AppState& s, const json&) {
    s.reset_training();
    return std::string();
  };
  reset.help = N_("A fresh optimizer and loss curve; a toy task starts again from its seed.");
  t.push_back(reset);

  Control lr = make("learning_rate", N_("learning rate"), ControlKind::kNumber, "train", 0.001, 1.0,
                    0.001, true);
  lr.available = has_target;
  lr.read = [](const AppState& s) { return json(s.training.lr); };
  lr.apply = [](AppState& s, const json& v) {
    s.training.lr = v.get<float>();
    return std::string();
  };
  t.push_back(lr);

  Control optimizer = make("optimizer", N_("optimizer"), ControlKind::kSelect, "train");
  optimizer.available = has_target;
  optimizer.read = [](const AppState& s) { return json(s.training.adam ? "adam" : "sgd"); };
  optimizer.options = [](const AppState&) {
    return std::vector<ControlOption>{{"adam", "Adam"}, {"sgd", "SGD"}};
  };
  optimizer.apply = [](AppState& s, const json& v) {
    s.training.adam = v == "adam";
    return std::string();
  };
  t.push_back(optimizer);

  Control seed = make("train_seed", N_("seed"), ControlKind::kNumber, "train", 0.0,
                      static_cast<double>(scenario::kMaxViewTrainSeed), 1.0);
  seed.available = [](const AppState& s) {
    return scenario::find_task(s.training.task) != nullptr;
  };
  seed.read = [](const AppState& s) {
    return json(std::min<uint64_t>(s.training.seed, scenario::kMaxViewTrainSeed));
  };
  seed.apply = [](AppState& s, const json& v) {
    return s.load_task(s.training.task, static_cast<uint64_t>(v.get<double>())).error;
  };
  seed.help = N_("Another seed: other sequences and other starting weights, the same task.");
  t.push_back(seed);

  // The lessons, files, exports and language.
  Control lesson = make("preset", N_("Lesson"), ControlKind::kSelect, "preset");
  lesson.available = [](const AppState& s) { return !s.presets.empty(); };
  lesson.read = [](const AppState& s) {
    return json(s.preset >= 0 ? s.presets[s.preset].name : std::string());
  };
  lesson.options = [](const AppState& s) {
    std::vector<ControlOption> o;
    if (s.preset < 0) o.push_back({"", T("(your own scenario)")});
    for (const Preset& p : s.presets)
      o.push_back({p.name, (s.lesson_done(p.name) ? "\xe2\x97\x8f " : "") + p.title(lang_code(s))});
    return o;
  };
  lesson.apply = [](AppState& s, const json& v) {
    for (int i = 0; i < static_cast<int>(s.presets.size()); ++i)
      if (s.presets[i].name == v.get<std::string>()) s.load_preset(i);
    return std::string();
  };
  t.push_back(lesson);

  Control open = make("open", N_("Open a file\xe2\x80\xa6"), ControlKind::kButton, "open");
  open.available = [](const AppState& s) { return s.in_page; };
  open.apply = [](AppState& s, const json&) {
    s.events.push_back("open_file");  // the page opens its file picker
    return std::string();
  };
  open.help =
      N_("A scenario (.json), or your own Q, K and V saved by NumPy (.npy, .npz): each array "
         "becomes the field of its name. You can also drop the file on the page.");
  t.push_back(open);

  Control exports = make("export", N_("Export"), ControlKind::kMenu, "export");
  exports.options = [](const AppState& s) {
    std::vector<ControlOption> o{{"trace", T("Copy the trace as JSON")},
                                 {"scenario", T("Copy the scenario as JSON")},
                                 {"numpy", T("Copy as NumPy code")},
                                 {"pytorch", T("Copy as PyTorch code")}};
    if (s.in_page) o.push_back({"link", T("Copy the link")});
    // The page's dialog (web/js/coursepack.js); natively attention-cli package writes one.
    if (s.in_page) o.push_back({"course_package", T("Course package\xe2\x80\xa6")});
    return o;
  };
  exports.apply = [](AppState& s, const json& v) {
    if (v.get<std::string>() == "course_package") {
      s.emit("course_package");  // the page opens its dialog
      return std::string();
    }
    s.exports_due.push_back(v.get<std::string>());  // delivered by the next frame
    return std::string();
  };
  t.push_back(exports);

  // The step's matrix alone, as the heatmap's own menu exports it (not while it is hidden
  // until a question is answered).
  Control matrix = make("export_matrix", N_("This matrix"), ControlKind::kMenu, "export");
  matrix.available = [](const AppState& s) { return !answer_hidden(s, step_matrix(s.step)); };
  matrix.options = [](const AppState&) {
    return std::vector<ControlOption>{{"csv", T("Copy as CSV")}, {"json", T("Copy as JSON")}};
  };
  matrix.apply = [](AppState& s, const json& v) {
    s.exports_due.push_back("matrix|" + v.get<std::string>());
    return std::string();
  };
  t.push_back(matrix);

  Control language = make("language", N_("Language"), ControlKind::kSelect, "language");
  language.read = [](const AppState& s) { return json(lang_code(s)); };
  language.options = [](const AppState&) {
    return std::vector<ControlOption>{{"en", "English"}, {"zh", "\xe4\xb8\xad\xe6\x96\x87"}};
  };
  language.apply = [](AppState& s, const json& v) {
    s.set_language(v == "zh" ? Lang::kZh : Lang::kEn);
    return std::string();
  };
  t.push_back(language);
  return t;
}

std::string format_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

const char* control_kind_name(ControlKind k) {
  switch (k) {
    case ControlKind::kCheckbox:
      return "checkbox";
    case ControlKind::kSelect:
      return "select";
    case ControlKind::kNumber:
      return "number";
    case ControlKind::kButton:
      return "button";
    case ControlKind::kMenu:
      return "menu";
  }
  return "";
}

const std::vector<Control>& control_table() {
  static const std::vector<Control> table = make_table();
  return table;
}

const Control* find_control(std::string_view id) {
  for (const Control& c : control_table())
    if (id == c.id) return &c;
  return nullptr;
}

bool control_shown(const AppState& s, const Control& c) {
  if (c.hidden_by && s.control_hidden(c.hidden_by)) return false;
  return !c.available || c.available(s);
}

bool control_shown(const AppState& s, const char* id) {
  const Control* c = find_control(id);
  return c && control_shown(s, *c);
}

const std::vector<std::string>& hide_ids() {
  static const std::vector<std::string> ids = [] {
    // The canvas's parts that hide= names but that are not one control with a value.
    std::vector<std::string> out = {"tokens", "sizes", "randomize", "masked_cells",
                                    "seed",   "scale", "dropout",   "table"};
    for (const Control& c : control_table())
      if (c.hidden_by && std::find(out.begin(), out.end(), c.hidden_by) == out.end())
        out.push_back(c.hidden_by);
    return out;
  }();
  return ids;
}

bool hide_id_known(std::string_view id) {
  for (const std::string& known : hide_ids())
    if (id == known) return true;
  return false;
}

std::string apply_control(AppState& s, const Control& c, const json& v) {
  const std::string id = c.id;
  switch (c.kind) {
    case ControlKind::kCheckbox:
      if (!v.is_boolean()) return id + ": must be true or false";
      break;
    case ControlKind::kNumber:
      if (!v.is_number() || !(v.get<double>() >= c.min && v.get<double>() <= c.max) ||
          (c.step == 1.0 && v.get<double>() != std::floor(v.get<double>())))
        return id + ": must be " + (c.step == 1.0 ? "a whole number" : "a number") + " from " +
               format_number(c.min) + " to " + format_number(c.max);
      break;
    case ControlKind::kButton:
      if (v != true) return id + ": a button: apply it with true";
      break;
    case ControlKind::kSelect:
    case ControlKind::kMenu: {
      const std::vector<ControlOption> options = c.options(s);
      if (std::none_of(options.begin(), options.end(),
                       [&](const ControlOption& o) { return o.value == v; })) {
        std::string list;
        for (const ControlOption& o : options) list += (list.empty() ? "" : ", ") + o.value.dump();
        return id + ": must be one of " + list;
      }
      break;
    }
  }
  return c.apply(s, v);
}

json describe_control(const AppState& s, const Control& c) {
  json j = {{"id", c.id}, {"label", T(c.label)}, {"kind", control_kind_name(c.kind)}};
  if (c.read) j["value"] = c.read(s);
  if (c.options) {
    json options = json::array();
    for (const ControlOption& o : c.options(s))
      options.push_back({{"value", o.value}, {"label", o.label}});
    j["options"] = std::move(options);
  }
  if (c.kind == ControlKind::kNumber) {
    j["min"] = c.min;
    j["max"] = c.max;
    j["step"] = c.step;
  }
  return j;
}

}  // namespace ui
