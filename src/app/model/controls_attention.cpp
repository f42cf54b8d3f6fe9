// The controls' table (controls.h): the attention's settings, which change the scenario
// (scoring, temperature, σ, the masks, projections, heads, positional encoding, hard attention),
// and how the matrices are drawn (numbers, transpose, animation).
#include <algorithm>
#include <cmath>
#include <string>

#include "app/model/controls_internal.h"
#include "app/model/edits.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"

namespace ui::detail {

namespace {

bool not_additive(const AppState& s) {  // W_q and W_k project (ScoringInfo::projects)
  return attn::scoring_info(s.scenario.scoring).projects;
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

}  // namespace

void add_attention_controls(std::vector<Control>& t) {
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
}

}  // namespace ui::detail
