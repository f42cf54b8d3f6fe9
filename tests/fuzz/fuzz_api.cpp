// libFuzzer target: any bytes as a sequence of JavaScript API calls on the app state, the
// calls the page makes through the ap_* functions of web_api_state.cpp (ui::api). Each line
// of the input is one call: its first byte picks the call (modulo 12; 23 is add_lesson's,
// name|json, of 11's), the rest is its argument (a text, or a number; for call 0, JSON or the bytes
// of a .npy/.npz file). Nothing may crash; every error is one line naming a field; a link the state
// gives must reopen the same scenario; an export either succeeds or says why.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "app/model/api.h"
#include "app/model/app_state.h"
#include "scenario/scenario.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_api: %s: %s\n", what, detail.substr(0, 400).c_str());
  std::abort();
}

void one_line(const std::string& error, const char* call) {
  if (error.find('\n') != std::string::npos)
    fail(call, "the error is more than one line: " + error);
  if (!error.empty() && error.find(": ") == std::string::npos)
    fail(call, "the error names no field: " + error);
}

int number(const std::string& arg) {
  return arg.empty() ? 0 : static_cast<int>(static_cast<int8_t>(arg[0]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One state, set up once (the presets are parsed once), copied for each input.
  static const ui::AppState base;
  ui::AppState s = base;
  const std::string input(reinterpret_cast<const char*>(data), size);
  size_t at = 0;
  while (at < input.size()) {
    size_t end = input.find('\n', at);
    if (end == std::string::npos) end = input.size();
    const std::string line = input.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    const std::string arg = line.substr(1);
    switch (line[0] % 12) {
      case 0:
        // A NumPy file (loadArrays, a dropped file) when it looks like one, else JSON.
        if (arg.rfind("\x93NUMPY", 0) == 0 || arg.rfind("PK", 0) == 0) {
          const std::string before = ui::api::get_scenario(s);
          const std::string error = ui::api::open_arrays(s, arg, "keys.npy");
          one_line(error, "open_arrays");
          if (!error.empty() && ui::api::get_scenario(s) != before)
            fail("open_arrays refused a file but changed the scenario", error);
        } else {
          one_line(ui::api::set_scenario(s, arg), "set_scenario");
        }
        break;
      case 1:
        one_line(ui::api::open_link(s, arg), "open_link");
        break;
      case 2: {
        // what|format|head|batch
        const size_t bar = arg.find('|');
        const std::string what = arg.substr(0, bar);
        const std::string format = bar == std::string::npos ? "" : arg.substr(bar + 1, 4);
        const std::string e = ui::api::export_json(s, what, format, number(arg.substr(what.size())),
                                                   number(arg.substr(arg.size() / 2)));
        const nlohmann::json j = nlohmann::json::parse(e, nullptr, false);
        if (!j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) fail("export_json", e);
        if (!j["ok"].get<bool>()) one_line(j["error"].get<std::string>(), "export_json");
        break;
      }
      case 3:
        ui::api::set_step(s, number(arg));
        break;
      case 4:
        ui::api::focus_head(s, number(arg));
        break;
      case 5:
        ui::api::set_batch(s, number(arg));
        break;
      case 6:
        ui::api::set_language(s, arg);
        break;
      case 7:
        ui::api::load_preset(s, arg);
        break;
      case 8:
        ui::api::set_panels(s, arg);
        break;
      case 9:
        ui::api::hide_controls(s, arg);
        break;
      case 10: {
        const std::string link = ui::api::get_link(s);
        if (link.empty()) break;
        const std::string before = ui::api::get_scenario(s);
        const std::string error = ui::api::open_link(s, link);
        if (!error.empty()) fail("a link the state gave does not open", error);
        if (ui::api::get_scenario(s) != before) fail("the link changed the scenario", link);
        break;
      }
      case 11: {
        if (line[0] % 24 != 23) {  // 11 (and 35, …): what the page reads
          ui::api::get_trace(s);
          ui::api::view(s);
          ui::api::counts(s);
          break;
        }
        // 23 (and 47, …) name|json: a course package's lesson of its own, then walked (?own=,
        // ?lessons=).
        const size_t bar = arg.find('|');
        const std::string name = arg.substr(0, bar);
        const size_t lessons = s.presets.size();
        const std::string error =
            ui::api::add_lesson(s, name, bar == std::string::npos ? "" : arg.substr(bar + 1));
        one_line(error, "add_lesson");
        if (error.empty() != (s.presets.size() == lessons + 1))
          fail("add_lesson's answer and the lessons it added disagree", error);
        if (error.empty()) {
          one_line(ui::api::set_path(s, name), "set_path");
          ui::api::load_preset(s, name);
        }
        break;
      }
      default:  // negative bytes
        ui::api::get_trace(s);
        ui::api::view(s);
        ui::api::counts(s);
        break;
    }
    s.recompute_if_needed();
  }
  return 0;
}
