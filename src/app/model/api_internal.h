// What the JavaScript API's files share: the JSON writer (api.cpp defines it).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ui::api::detail {

// j as JSON text on one line, any invalid UTF-8 in its strings replaced by U+FFFD.
std::string dump(const nlohmann::json& j);

}  // namespace ui::api::detail
