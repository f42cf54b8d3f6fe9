// The attention core's C entry points for JavaScript (Emscripten builds): scenario JSON in,
// trace JSON or {"error": "<field>: <problem>"} out.
#include <emscripten/emscripten.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/attention.h"
#include "scenario/scenario.h"

namespace {
std::string g_result;  // owns the text returned to JavaScript until the next call
}

extern "C" {

// Evaluates a scenario. The returned string stays valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* ap_eval_json(const char* scenario_json) {
  const scenario::ParseResult parsed = scenario::parse(scenario_json ? scenario_json : "");
  if (!parsed.ok()) {
    const nlohmann::json error = {{"error", parsed.error}};
    g_result = error.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    g_result = scenario::trace_to_json(attn::run(scenario::to_problem(parsed.scenario)));
  }
  return g_result.c_str();
}

}  // extern "C"
