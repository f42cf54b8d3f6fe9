#include "app/widgets/vertical_text.h"

#include <cfloat>

namespace ui {

void add_text_vertical(ImDrawList* dl, ImVec2 anchor, ImU32 color, std::string_view text) {
  if (text.empty() || (color & IM_COL32_A_MASK) == 0) return;
  ImFont* font = ImGui::GetFont();
  const float font_size = ImGui::GetFontSize();
  const char* begin = text.data();
  const char* end = begin + text.size();
  const ImVec2 size = font->CalcTextSizeA(font_size, FLT_MAX, 0.0f, begin, end);
  // Written flat first, then turned. ImDrawList::AddText would drop the glyphs that fall
  // outside the clip rectangle while the text is still flat: on a column near the right edge
  // that is the end of its label, which turned would have been inside. So the glyphs are
  // culled against the flat text's own rectangle, which holds them all.
  const ImVec4 flat(anchor.x - 1.0f, anchor.y - 1.0f, anchor.x + size.x + 1.0f,
                    anchor.y + size.y + 1.0f);
  const int start = dl->VtxBuffer.Size;
  font->RenderText(dl, font_size, anchor, color, flat, begin, end, 0.0f, false);
  // Turned around `anchor` by −90°: (x, y) → (anchor.x + (y − anchor.y), anchor.y − (x −
  // anchor.x)), then moved left by half the line so that the text is centred on anchor.x.
  for (int i = start; i < dl->VtxBuffer.Size; ++i) {
    ImVec2& p = dl->VtxBuffer[i].pos;
    const float dx = p.x - anchor.x, dy = p.y - anchor.y;
    p = ImVec2(anchor.x + dy - size.y * 0.5f, anchor.y - dx);
  }
}

}  // namespace ui
