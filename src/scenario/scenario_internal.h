// What the scenario's checks share (scenario.cpp: resolve; scenario_magnitudes.cpp:
// check_magnitudes): a number and a layer as their messages name them. Internal to
// src/scenario.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace scenario::scenario_internal {

inline std::string str(int64_t v) {
  return std::to_string(v);
}

inline std::string layer_name(size_t l) {
  return "layers[" + std::to_string(l) + "]";
}

}  // namespace scenario::scenario_internal
