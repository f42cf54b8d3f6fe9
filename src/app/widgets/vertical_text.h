// Text turned on its side, for the column labels of a heatmap whose columns are too narrow
// for them written flat.
#pragma once

#include <string_view>

#include "imgui.h"

namespace ui {

// `text` in the current font, turned 90° counter-clockwise so that it reads bottom to top,
// centred on the vertical line through `anchor`, its first character's end at `anchor`:
// it covers x in anchor.x ± height / 2 and y from anchor.y − width to anchor.y (CalcTextSize).
// Every glyph is drawn, wherever the text lies before it is turned: the draw list's clip
// rectangle clips the turned text, as it does everything else.
void add_text_vertical(ImDrawList* dl, ImVec2 anchor, ImU32 color, std::string_view text);

}  // namespace ui
