// Line breaking for the UI's English and Chinese texts. Dear ImGui 1.86 wraps only at spaces
// and ASCII punctuation, so a Chinese sentence (no spaces) runs on until it is cut wherever it
// overflows, and a lone "。" can start a line. This breaks English at spaces and Chinese
// between any two characters, keeping closing punctuation on the line before it and opening
// punctuation with the character after it. Pure (no ImGui): the caller measures text.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ui {

// The lines of `text` no wider than `width` by `measure` (a word wider than a line is cut
// between characters). Explicit '\n' always breaks; spaces at a break are dropped.
std::vector<std::string> wrap_lines(std::string_view text, float width,
                                    const std::function<float(std::string_view)>& measure);

// `text` shortened, whole characters at a time, with "…" to fit `width` ("" when not even
// "…" fits); `text` itself when it fits.
std::string fit_text(std::string_view text, float width,
                     const std::function<float(std::string_view)>& measure);

}  // namespace ui
