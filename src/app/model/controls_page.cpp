// The controls' table (controls.h), its last part: the lessons, opening a file, the exports
// (the whole and the step's matrix) and the language.
#include <string>

#include "app/model/controls_internal.h"
#include "app/model/matrices.h"
#include "app/text/explain.h"
#include "app/text/i18n.h"

namespace ui::detail {

void add_page_controls(std::vector<Control>& t) {
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
}

}  // namespace ui::detail
