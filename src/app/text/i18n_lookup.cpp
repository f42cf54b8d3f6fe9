// The UI's current language and T(), which looks the English text up in i18n.cpp's table.
#include <string_view>
#include <unordered_map>

#include "app/text/i18n.h"

namespace ui {

namespace {

Lang g_lang = Lang::kEn;

}  // namespace

void set_language(Lang lang) {
  g_lang = lang;
}
Lang language() {
  return g_lang;
}
const char* language_code() {
  return g_lang == Lang::kZh ? "zh" : "en";
}

const char* T(const char* english) {
  if (g_lang == Lang::kEn) return english;
  static const std::unordered_map<std::string_view, const char*> table = [] {
    std::unordered_map<std::string_view, const char*> t;
    for (const auto& [en, zh] : translations()) t.emplace(en, zh);
    return t;
  }();
  const auto it = table.find(english);
  return it == table.end() ? english : it->second;
}

}  // namespace ui
