// The font atlas kept between starts (src/app/widgets/font_cache.h): an atlas restored from its
// blob is the atlas Build() made (texture, glyphs, lookup tables, text sizes), with no font file
// read; a blob under another key, cut short or damaged is refused and leaves the atlas alone.
// Native only: it needs Dear ImGui and the subset fonts of the build (AP_FONT_DIR).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>

#include "app/widgets/font_cache.h"
#include "imgui.h"

namespace {

const char* const kTexts[] = {"Attention weights: softmax(QKᵀ/√d) · V", "注意力权重 → 值的加权和",
                              "x₁ … x₉ ∑ ≤ ≥ ∞ α β γ", "\t¿?", "未收录的字：龘"};

void check_same(const ImFontAtlas& built, const ImFontAtlas& restored) {
  REQUIRE(restored.TexReady);
  REQUIRE(restored.TexWidth == built.TexWidth);
  REQUIRE(restored.TexHeight == built.TexHeight);
  CHECK(std::memcmp(restored.TexPixelsAlpha8, built.TexPixelsAlpha8,
                    static_cast<size_t>(built.TexWidth) * built.TexHeight) == 0);
  CHECK(restored.TexUvWhitePixel.x == built.TexUvWhitePixel.x);
  CHECK(restored.TexUvWhitePixel.y == built.TexUvWhitePixel.y);
  CHECK(std::memcmp(restored.TexUvLines, built.TexUvLines, sizeof built.TexUvLines) == 0);
  REQUIRE(restored.Fonts.Size == built.Fonts.Size);
  for (int i = 0; i < built.Fonts.Size; ++i) {
    INFO("font " << i);
    const ImFont& a = *built.Fonts[i];
    const ImFont& b = *restored.Fonts[i];
    CHECK(b.FontSize == a.FontSize);
    CHECK(b.Ascent == a.Ascent);
    CHECK(b.Descent == a.Descent);
    CHECK(b.ConfigDataCount == a.ConfigDataCount);
    CHECK(b.ContainerAtlas == &restored);
    REQUIRE(b.Glyphs.Size == a.Glyphs.Size);
    CHECK(std::memcmp(b.Glyphs.Data, a.Glyphs.Data, sizeof(ImFontGlyph) * a.Glyphs.Size) == 0);
    REQUIRE(b.IndexLookup.Size == a.IndexLookup.Size);
    CHECK(std::memcmp(b.IndexLookup.Data, a.IndexLookup.Data,
                      sizeof(ImWchar) * a.IndexLookup.Size) == 0);
    REQUIRE(b.FallbackGlyph != nullptr);
    CHECK(b.FallbackGlyph->Codepoint == a.FallbackGlyph->Codepoint);
    CHECK(b.EllipsisChar == a.EllipsisChar);
    for (const char* text : kTexts) {
      INFO(text);
      const ImVec2 sa = a.CalcTextSizeA(a.FontSize, 1e9f, 0.0f, text);
      const ImVec2 sb = b.CalcTextSizeA(b.FontSize, 1e9f, 0.0f, text);
      CHECK(sb.x == sa.x);
      CHECK(sb.y == sa.y);
    }
  }
}

}  // namespace

TEST_CASE("a kept font atlas comes back as it was built, without reading a font", "[app][fonts]") {
  ImGui::CreateContext();
  for (const bool cjk : {false, true}) {
    for (const float dpr : {1.0f, 1.5f}) {
      INFO((cjk ? "Chinese" : "Latin") << " at dpr " << dpr);
      const std::string key = ui::font_atlas_key("test-fonts", dpr, cjk);
      ImFontAtlas built;
      const ui::Fonts fonts = ui::add_app_fonts(&built, AP_FONT_DIR, dpr, cjk, false);
      REQUIRE(fonts.ui != nullptr);
      REQUIRE(built.Build());
      REQUIRE(fonts.ui->ConfigData->FontDataOwnedByAtlas);  // read from the file, not ImGui's own
      // Chinese glyphs are in the Chinese atlas only.
      CHECK((fonts.ui->FindGlyphNoFallback(0x6CE8) != nullptr) == cjk);  // 注
      const std::string blob = ui::save_font_atlas(built, key);
      CHECK(blob.size() > static_cast<size_t>(built.TexWidth) * built.TexHeight);

      ImFontAtlas restored;
      const ui::Fonts kept = ui::add_app_fonts(&restored, "/nonexistent", dpr, cjk, true);
      REQUIRE(kept.ui != nullptr);
      REQUIRE(ui::restore_font_atlas(&restored, blob, key));
      check_same(built, restored);
      // The RGBA texture the GL backend asks for comes from the restored alpha, not a build.
      unsigned char* rgba = nullptr;
      int w = 0, h = 0;
      restored.GetTexDataAsRGBA32(&rgba, &w, &h);
      REQUIRE(rgba != nullptr);
      CHECK(w == built.TexWidth);
      const size_t white = static_cast<size_t>(restored.TexUvWhitePixel.y * h) * w +
                           static_cast<size_t>(restored.TexUvWhitePixel.x * w);
      CHECK(rgba[4 * white + 3] == 0xFF);
    }
  }
  ImGui::DestroyContext();
}

TEST_CASE("a kept font atlas under another key, cut short or damaged is refused", "[app][fonts]") {
  ImGui::CreateContext();
  const std::string key = ui::font_atlas_key("test-fonts", 1.0f, false);
  ImFontAtlas built;
  ui::add_app_fonts(&built, AP_FONT_DIR, 1.0f, false, false);
  REQUIRE(built.Build());
  const std::string blob = ui::save_font_atlas(built, key);
  const auto refused = [&](const std::string& b, const std::string& k) {
    ImFontAtlas atlas;
    ui::add_app_fonts(&atlas, "/nonexistent", 1.0f, false, true);
    const bool ok = ui::restore_font_atlas(&atlas, b, k);
    const bool untouched =
        !atlas.TexReady && atlas.TexPixelsAlpha8 == nullptr && atlas.Fonts[0]->Glyphs.Size == 0;
    return !ok && untouched;
  };
  CHECK(ui::font_atlas_key("", 1.0f, false).empty());  // no fonts id: nothing is kept
  CHECK(ui::font_atlas_key("a", 1.0f, false) != ui::font_atlas_key("b", 1.0f, false));
  CHECK(ui::font_atlas_key("a", 1.0f, false) != ui::font_atlas_key("a", 2.0f, false));
  CHECK(ui::font_atlas_key("a", 1.0f, false) != ui::font_atlas_key("a", 1.0f, true));
  CHECK(refused(blob, ui::font_atlas_key("other-fonts", 1.0f, false)));
  CHECK(refused(blob, ui::font_atlas_key("test-fonts", 2.0f, false)));
  CHECK(refused("", key));
  CHECK(refused("APFA", key));
  // Every cut, at a few hundred places from the header to the last byte of the texture.
  for (size_t n = 0; n < blob.size(); n += 1 + n / 2 + (n > 4096 ? 4096 : 0)) {
    INFO("cut to " << n << " of " << blob.size() << " bytes");
    CHECK(refused(blob.substr(0, n), key));
  }
  CHECK(refused(blob.substr(0, blob.size() - 1), key));
  CHECK(refused(blob + "x", key));
  // A glyph count beyond the blob, and a font count that is not the atlas's.
  const size_t fonts_at =
      4 + 4 + 4 + key.size() + 8 + 16 + sizeof(ImVec4) * (IM_DRAWLIST_TEX_LINES_WIDTH_MAX + 1);
  std::string bad = blob;
  uint32_t rects = 0;
  std::memcpy(&rects, blob.data() + fonts_at, sizeof rects);
  const size_t font_count_at = fonts_at + 4 + 8 * rects + 8;
  bad[font_count_at] = 2;
  CHECK(refused(bad, key));
  bad = blob;
  const size_t glyphs_at = font_count_at + 4 + 12 + 12 + 4;
  bad[glyphs_at + 2] = 0x7F;
  CHECK(refused(bad, key));
  ImGui::DestroyContext();
}
