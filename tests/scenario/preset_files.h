// The preset files, for the scenario tests: reading one, and the lesson list
// (assets/lessons.txt, through the generated lesson_names.h).
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "lesson_names.h"
#include "scenario/scenario.h"

namespace test {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string preset_text(const std::string& name) {
  return read_file(std::string(AP_PRESETS_DIR) + "/" + name + ".json");
}

inline scenario::ParseResult preset(const std::string& name) {
  scenario::ParseResult r = scenario::parse(preset_text(name));
  INFO("preset " << name);
  REQUIRE(r.error == "");
  return r;
}

}  // namespace test
