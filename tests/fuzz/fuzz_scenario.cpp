// libFuzzer target: any bytes as Scenario JSON. parse() must give a scenario or one error line
// naming a field; a scenario must survive to_json → parse unchanged; a small one must run and
// export without a crash, and its trace must hold weights in [0, 1] wherever they are finite.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/attention.h"
#include "core/stack.h"
#include "scenario/export.h"
#include "scenario/scenario.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_scenario: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const scenario::ParseResult r = scenario::parse(text);
  if (!r.ok()) {
    if (r.error.find('\n') != std::string::npos) fail("the error is not one line", r.error);
    if (r.error.find(": ") == std::string::npos) fail("the error names no field", r.error);
    return 0;
  }
  const scenario::Scenario& s = r.scenario;
  const std::string json = scenario::to_json(s);
  const scenario::ParseResult again = scenario::parse(json);
  if (!again.ok()) fail("to_json wrote a scenario parse() refuses", again.error + " in " + json);
  if (scenario::to_json(again.scenario) != json) fail("to_json → parse changed the scenario", json);
  if (!scenario::validate(s).ok()) return 0;

  // Run only what is quick: a few thousand score cells and small projections.
  int64_t cells = int64_t{s.batch()} * s.n_queries() * s.n_keys() * s.heads;
  for (const scenario::LayerSpec& layer : s.layers)
    cells += int64_t{s.batch()} * s.n_queries() * s.n_keys() * layer.heads;
  if (cells > 4096 || s.init_d_model > 64 || attn::batch_cols(s.queries) > 64) return 0;
  const auto check_weights = [&](const attn::Trace& t) {
    for (const attn::HeadTrace& h : t.heads)
      for (const attn::Matrix& w : h.weights)
        for (int i = 0; i < w.size(); ++i) {
          const float v = w.data()[i];
          if (std::isfinite(v) && (v < 0.0f || v > 1.0f + 1e-5f) && !s.has_dropout)
            fail("a weight outside [0, 1]", std::to_string(v) + " in " + json);
        }
  };
  const attn::Trace t = attn::run(scenario::to_problem(s));
  check_weights(t);
  if (!s.layers.empty()) {  // a stack of layers: each layer's trace over the stream
    const attn::StackTrace st = attn::run(r.stack);
    for (const attn::Trace& layer : st.layers) check_weights(layer);
  }
  (void)scenario::trace_to_json(t);
  (void)scenario::export_numpy(s);
  (void)scenario::export_pytorch(s);
  return 0;
}
