// Column labels turned on their side (src/app/widgets/vertical_text.h): every glyph is drawn,
// however close to the clip rectangle's right edge the column is, inside the rectangle the turned
// text covers. Native only: it needs Dear ImGui (its own font; no file is read).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "app/widgets/vertical_text.h"
#include "imgui.h"

namespace {

struct Frame {
  Frame() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->AddFontDefault();
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsAlpha8(&pixels, &w, &h);
    io.DisplaySize = ImVec2(400, 300);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    ImGui::NewFrame();
  }
  ~Frame() {
    ImGui::EndFrame();
    ImGui::DestroyContext();
  }
};

// The vertices add_text_vertical adds to a draw list clipped to x < clip_right.
std::vector<ImVec2> turned(const char* text, ImVec2 anchor, float clip_right) {
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  dl->PushClipRect(ImVec2(0, 0), ImVec2(clip_right, 300), false);
  const int start = dl->VtxBuffer.Size;
  ui::add_text_vertical(dl, anchor, IM_COL32_WHITE, text);
  std::vector<ImVec2> out;
  for (int i = start; i < dl->VtxBuffer.Size; ++i) out.push_back(dl->VtxBuffer[i].pos);
  dl->PopClipRect();
  return out;
}

}  // namespace

TEST_CASE("a label turned on its side keeps every glyph near the clip rectangle's right edge",
          "[app][heatmap]") {
  Frame frame;
  const char* text = "he plays adventure games";
  int glyphs = 0;  // the characters that have a quad (not the spaces)
  for (const char* c = text; *c; ++c) glyphs += *c != ' ';
  const ImVec2 size = ImGui::CalcTextSize(text);
  REQUIRE(size.x > 100.0f);  // written flat from x = 290, it would cross x = 300

  const ImVec2 anchor(290.0f, 250.0f);
  const std::vector<ImVec2> near_edge = turned(text, anchor, 300.0f);
  const std::vector<ImVec2> wide = turned(text, anchor, 400.0f);
  CHECK(static_cast<int>(near_edge.size()) == 4 * glyphs);
  REQUIRE(near_edge.size() == wide.size());
  for (size_t i = 0; i < wide.size(); ++i) {
    INFO("vertex " << i);
    CHECK(near_edge[i].x == wide[i].x);
    CHECK(near_edge[i].y == wide[i].y);
    // Inside the turned text's rectangle, which lies inside the clip rectangle.
    CHECK(wide[i].x >= anchor.x - size.y * 0.5f - 1.0f);
    CHECK(wide[i].x <= anchor.x + size.y * 0.5f + 1.0f);
    CHECK(wide[i].y >= anchor.y - size.x - 1.0f);
    CHECK(wide[i].y <= anchor.y + 1.0f);
  }
}

TEST_CASE("a label turned on its side reads bottom to top", "[app][heatmap]") {
  Frame frame;
  const std::vector<ImVec2> v = turned("ab", ImVec2(100.0f, 200.0f), 400.0f);
  REQUIRE(v.size() == 8);
  // The first glyph's quad lies below the second's: the text goes up the screen.
  float a_bottom = -1e9f, b_bottom = -1e9f;
  for (int i = 0; i < 4; ++i) a_bottom = std::max(a_bottom, v[i].y);
  for (int i = 4; i < 8; ++i) b_bottom = std::max(b_bottom, v[i].y);
  CHECK(a_bottom > b_bottom);
  CHECK(a_bottom <= 201.0f);
}
