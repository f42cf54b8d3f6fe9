// The JavaScript API's view calls: step, head, batch, language, lessons, panels and controls.
#include "app/model/api.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "app/model/api_internal.h"
#include "app/model/controls.h"
#include "app/model/edits.h"

namespace ui::api {

using detail::dump;

namespace {

std::vector<std::string> split_csv(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty() && item.size() <= 32) out.push_back(item);
  return out;
}

}  // namespace

std::string view(const AppState& s) {
  const scenario::ViewState v = s.view();
  nlohmann::json j;
  j["step"] = v.step;
  j["head"] = v.head;
  j["batch"] = v.batch;
  j["layer"] = v.layer;  // a stack's layer shown (0 without "layers")
  j["layers"] = s.layer_count();
  j["lang"] = v.lang;
  j["embed"] = v.embed;
  j["lesson"] = v.lesson;
  j["preset"] = v.lesson;  // for pages written before "lesson"
  nlohmann::json panels = nlohmann::json::array();
  for (int p = 0; p < static_cast<int>(Panel::kCount); ++p)
    if (s.show[p]) panels.push_back(panel_id(static_cast<Panel>(p)));
  j["panels"] = panels;
  j["hidden"] = v.hidden;
  // The centre's tab: steps, picture, curve, decoder, document, layers, heads, positional or plane
  // (views.h lists them).
  j["tab"] = s.view_tab;
  // The step view drawn transposed, for the column convention (?transpose=1, the "transpose"
  // control): a view option the link's # part does not carry.
  j["transpose"] = s.transpose;
  return dump(j);
}

int set_step(AppState& s, int step) {
  s.set_step(step);
  return static_cast<int>(s.step);
}

int focus_head(AppState& s, int head) {
  s.set_head(head);
  return s.head;
}

int set_batch(AppState& s, int batch) {
  s.set_batch(batch);
  return s.batch;
}

int set_layer(AppState& s, int layer) {
  s.set_layer(layer);
  return s.layered() ? s.layer : 0;
}

void set_language(AppState& s, const std::string& code) {
  s.set_language(code == "zh" ? Lang::kZh : Lang::kEn);
}

bool load_preset(AppState& s, const std::string& name) {
  for (int i = 0; i < static_cast<int>(s.presets.size()); ++i) {
    if (s.presets[i].name == name) {
      s.load_preset(i);
      return s.preset == i;
    }
  }
  return false;
}

std::string set_path(AppState& s, const std::string& names) {
  std::vector<int> path;
  if (names.size() > 64 * (s.presets.size() + 1))
    return "lessons: is longer than any list of this playground's lessons";
  size_t at = 0;
  while (!names.empty() && at <= names.size()) {
    const size_t comma = std::min(names.find(',', at), names.size());
    const std::string name = names.substr(at, comma - at);
    const std::string where = "lessons[" + std::to_string(path.size()) + "]";
    int found = -1;
    for (int i = 0; i < static_cast<int>(s.presets.size()); ++i)
      if (s.presets[i].name == name) found = i;
    if (found < 0) {
      std::string shown = name.size() > 40 ? name.substr(0, 40) + "..." : name;
      for (char& c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || c == '"') c = '?';
      return where + ": \"" + shown + "\" is not a lesson of this playground";
    }
    if (std::find(path.begin(), path.end(), found) != path.end())
      return where + ": \"" + name + "\" is on the path already";
    path.push_back(found);
    at = comma + 1;
  }
  s.path = std::move(path);
  return "";
}

std::string add_lesson(AppState& s, const std::string& name, const std::string& json) {
  if (!scenario::lesson_name_problem(name).empty())
    return "lessons: a lesson of the course's own needs a name of 1 to 32 of a-z, 0-9 and _";
  const std::string where = scenario::own_lesson_path(name) + ": ";
  if (std::any_of(s.presets.begin(), s.presets.end(),
                  [&](const Preset& p) { return p.name == name; }))
    return where + "\"" + name + "\" is a lesson of this playground already";
  if (s.presets.size() >= static_cast<size_t>(kEmbeddedPresetCount) + scenario::kMaxOwnLessons)
    return where + "a course has at most " + std::to_string(scenario::kMaxOwnLessons) +
           " lessons of its own";
  scenario::Scenario lesson;
  if (std::string e = scenario::check_own_lesson(json, &lesson); !e.empty()) return where + e;
  if (std::string e = AppState::unknown_tour_control(lesson); !e.empty()) return where + e;
  s.presets.push_back(Preset{name, std::move(lesson)});
  return "";
}

std::string presets(const AppState& s) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < s.presets.size(); ++i) {
    const Preset& p = s.presets[i];
    list.push_back(
        {{"name", p.name}, {"title", p.scenario.title.en}, {"title_zh", p.scenario.title.zh}});
    if (i >= static_cast<size_t>(kEmbeddedPresetCount)) list.back()["own"] = true;  // add_lesson's
  }
  return dump(list);
}

void set_panels(AppState& s, const std::string& csv) {
  const std::vector<std::string> ids = split_csv(csv);
  for (int p = 0; p < static_cast<int>(Panel::kCount); ++p)
    s.show[p] = std::find(ids.begin(), ids.end(), panel_id(static_cast<Panel>(p))) != ids.end();
  s.emit("view");
}

std::string hide_controls(AppState& s, const std::string& csv) {
  std::vector<std::string> ids = split_csv(csv);
  std::string unknown;
  for (const std::string& id : ids)
    if (!hide_id_known(id)) unknown += (unknown.empty() ? "\"" : ", \"") + id + "\"";
  ids.erase(std::remove_if(ids.begin(), ids.end(),
                           [](const std::string& id) { return !hide_id_known(id); }),
            ids.end());
  s.hidden = std::set<std::string>(ids.begin(), ids.end());
  s.emit("view");
  if (unknown.empty()) return "";
  std::string known;
  for (const std::string& id : hide_ids()) known += (known.empty() ? "" : ", ") + id;
  return "hide: no control " + unknown + " (the ids: " + known + ")";
}

std::string controls(const AppState& s) {
  nlohmann::json list = nlohmann::json::array();
  for (const Control& c : control_table())
    if (control_shown(s, c)) list.push_back(describe_control(s, c));
  return dump(list);
}

std::string set_control(AppState& s, const std::string& id, const std::string& value_json) {
  const nlohmann::json v = nlohmann::json::parse(value_json, nullptr, false);
  if (v.is_discarded()) return id + ": the value is not JSON";
  scenario::Scenario& sc = s.scenario;
  if (id == "cell") {
    // One input cell: {"matrix": "queries"|"keys"|"values", "batch", "row", "col", "value"}.
    if (!v.is_object() || !v.contains("matrix") || !v["matrix"].is_string() ||
        !v.contains("value") || !v["value"].is_number())
      return "cell: must be {matrix, batch, row, col, value}";
    const std::string m = v["matrix"].get<std::string>();
    const char which = m == "queries" ? 'q' : m == "keys" ? 'k' : m == "values" ? 'v' : 0;
    if (!which) return "cell.matrix: must be queries, keys or values";
    const attn::Batch& x = which == 'q' ? sc.queries : which == 'k' ? sc.keys : sc.values;
    const auto index = [&](const char* f, int n) {
      return v.contains(f) && v[f].is_number_integer() && v[f].get<int>() >= 0 &&
                     v[f].get<int>() < n
                 ? v[f].get<int>()
                 : -1;
    };
    const int b = index("batch", static_cast<int>(x.size()));
    const int i = b < 0 ? -1 : index("row", static_cast<int>(x[b].rows()));
    const int j = b < 0 ? -1 : index("col", static_cast<int>(x[b].cols()));
    if (b < 0 || i < 0 || j < 0) return "cell: batch, row or col is outside " + m;
    const double value = v["value"].get<double>();
    if (!std::isfinite(value) || std::fabs(value) > 1e6)
      return "cell.value: must be a finite number";
    set_input(&sc, which, b, i, j, static_cast<float>(value));
    s.changed();
    s.recompute_if_needed();
    return s.error;
  }
  const Control* c = find_control(id);
  if (!c) return "id: unknown control \"" + id + "\"";
  if (c->hidden_by && s.control_hidden(c->hidden_by)) return id + ": hidden by the page";
  if (c->available && !c->available(s)) {
    const bool trains = c->hidden_by && std::string_view(c->hidden_by) == "train";
    const bool decoder = id.rfind("decoder_", 0) == 0;
    // The Decoder tab's training: a seq2seq model of other words says why it does not train.
    if (trains && decoder && !sc.seq2seq.empty() && !s.decoder_untrainable().empty())
      return id + ": " + s.decoder_untrainable();
    if (trains && !decoder && sc.target.empty())
      return id + ": the scenario has no target (give \"target\", or load a toy task)";
    return id + ": not there for this scenario";
  }
  const uint64_t revision = s.revision;
  const std::string before = s.error;
  const std::string e = apply_control(s, *c, v);
  if (!e.empty()) return e;
  s.recompute_if_needed();
  // The scenario's error when this change made it (a view setting leaves an older one unsaid).
  return s.revision != revision || s.error != before ? s.error : std::string();
}

}  // namespace ui::api
