// The built font atlas as bytes, so that a later start can skip rasterising thousands of
// glyphs (stb_truetype: 50–170 ms in the browser, most of the first frame's set-up): the
// page keeps the bytes in IndexedDB and hands them back before the next start (web/app.js).
//
// A blob holds the atlas's 8-bit texture, its white pixel and baked-line coordinates, its
// default custom rectangles, and for each font its size, metrics and glyphs (ImFontGlyph as
// ImGui 1.86 lays it out). It starts with a key that names everything the atlas was built
// from (the font files' id, the language's glyph set, the pixel ratio, this format and ImGui's
// version): restore_font_atlas() refuses a blob whose key differs, or that is cut short or
// malformed, and then the caller builds the atlas as before. Nothing here reads a font file.
#pragma once

#include <string>

struct ImFont;
struct ImFontAtlas;

namespace ui {

// The playground's fonts, added to an atlas (not built): the UI face at 15 px, the monospace
// one at 14 px and the bold title face at 17 px, times the pixel ratio, from the subset fonts
// in `dir` (scripts/make_fonts.py), each with the Chinese glyphs merged in (cjk.ttf) when `cjk`
// is set, else with the two of the language switch (lang.ttf). With `placeholders` no file is
// read: the fonts are registered over placeholder bytes, only to be filled in by
// restore_font_atlas() (never built). A missing file falls back to ImGui's own font.
struct Fonts {
  ImFont* ui = nullptr;
  ImFont* mono = nullptr;
  ImFont* title = nullptr;
};
Fonts add_app_fonts(ImFontAtlas* atlas, const std::string& dir, float dpr, bool cjk,
                    bool placeholders);

// What an atlas of add_app_fonts(…, dpr, cjk, …) is built from: the fonts' id (the id.txt that
// scripts/make_fonts.py writes beside them), the glyph set, the pixel ratio, ImGui's version
// and the glyph layout. "" when there is no id: then nothing is cached.
std::string font_atlas_key(const std::string& fonts_id, float dpr, bool cjk);

// The atlas, already built (ImFontAtlas::Build), as a blob under `key`.
std::string save_font_atlas(const ImFontAtlas& atlas, const std::string& key);

// Fills in `atlas`, whose fonts were added (AddFont*) exactly as for the build that saved the
// blob but not built, from the blob: true when it matched `key` and was whole, leaving the
// atlas as Build() would (texture, glyphs, lookup tables); false, with the atlas unchanged,
// otherwise.
bool restore_font_atlas(ImFontAtlas* atlas, const std::string& blob, const std::string& key);

}  // namespace ui
