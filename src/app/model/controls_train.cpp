// The controls' table (controls.h): the Train section's (the toy task, train, its speed, one
// step, reset, the learning rate, the optimizer and the seed).
#include <algorithm>
#include <cstdint>
#include <string>

#include "app/model/controls_internal.h"
#include "app/text/i18n.h"
#include "scenario/link.h"
#include "scenario/tasks.h"

namespace ui::detail {

namespace {

bool has_target(const AppState& s) {
  return s.has_target();
}

}  // namespace

void add_train_controls(std::vector<Control>& t) {
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
    s.training.finished = false;
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

  Control large = make("loss_plot_large", N_("large loss plot"), ControlKind::kCheckbox, "train");
  large.available = [](const AppState& s) { return !s.training.losses.empty(); };
  large.read = [](const AppState& s) { return json(s.large_loss_plot); };
  large.apply = [](AppState& s, const json& v) {
    s.large_loss_plot = v.get<bool>();
    return std::string();
  };
  large.help =
      N_("Draws the loss plot across the middle of the screen and taller, to read off "
         "its steps or to show a class.");
  t.push_back(large);
}

}  // namespace ui::detail
