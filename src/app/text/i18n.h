// The UI's languages: English text is the key, T() returns the current language's text.
#pragma once

#include <string>
#include <vector>

// Marks an English text for translation where it is defined; T() translates it where shown.
#define N_(text) text

namespace ui {

enum class Lang { kEn, kZh };

void set_language(Lang lang);
Lang language();
const char* language_code();  // "en" or "zh"

// The text in the current language; the English text itself when there is no translation
// (tests/app/check_i18n.py checks that every T("...") in src/app has one).
const char* T(const char* english);
// The text in the given language (for texts kept in both, such as a scenario's title).
const char* T(Lang lang, const char* english);

// Every English key that has a Chinese translation, for the coverage test and for the
// font subsetter, which keeps only the glyphs the UI can show.
std::vector<std::pair<const char*, const char*>> translations();

}  // namespace ui
