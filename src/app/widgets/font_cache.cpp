// The font atlas as a blob and back (font_cache.h).
//
// Layout (native byte order: a blob never leaves the build that wrote it, and its key says so):
//   "APFA" u32 version | key (u32 length + bytes)
//   i32 width, height | f32 uv_scale[2], white_pixel[2], lines[4 × (IM_DRAWLIST_TEX_LINES_WIDTH_MAX
//   + 1)] u32 rect count, then each (u16 width, height, x, y) | i32 pack id of the cursors, of the
//   lines u32 font count, then each: f32 size, ascent, descent | u32 fallback, ellipsis, dot
//   characters
//                             | i32 metrics surface | u32 glyph count + raw ImFontGlyph array
//   the texture: width × height bytes of alpha
#include "app/widgets/font_cache.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "imgui.h"

namespace ui {

namespace {

constexpr char kMagic[4] = {'A', 'P', 'F', 'A'};
constexpr uint32_t kVersion = 1;
constexpr int kLines = IM_DRAWLIST_TEX_LINES_WIDTH_MAX + 1;

struct Writer {
  std::string out;
  void bytes(const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }
  template <typename T>
  void put(T v) {
    bytes(&v, sizeof v);
  }
};

struct Reader {
  const std::string& in;
  size_t at = 0;
  bool ok = true;
  bool bytes(void* p, size_t n) {
    if (!ok || n > in.size() - at) return ok = false;
    std::memcpy(p, in.data() + at, n);
    at += n;
    return true;
  }
  template <typename T>
  T get() {
    T v{};
    bytes(&v, sizeof v);
    return v;
  }
};

struct Rect {
  uint16_t w, h, x, y;
};

struct FontData {
  float size, ascent, descent;
  uint32_t fallback, ellipsis, dot;
  int32_t surface;
  std::vector<ImFontGlyph> glyphs;
};

// The glyph ranges the UI needs: Latin, Greek, punctuation, sub/superscripts, arrows, maths.
const ImWchar kLatinRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x1D00, 0x1DBF,
                                0x2000, 0x206F, 0x2070, 0x209F, 0x2190, 0x21FF,
                                0x2200, 0x22FF, 0x25A0, 0x25FF, 0};
const ImWchar kLangRanges[] = {0x4E2D, 0x4E2D, 0x6587, 0x6587, 0};
const ImWchar kCjkRanges[] = {0x3000, 0x303F, 0x4E00, 0x9FFF, 0xFF00, 0xFFEF, 0};

bool file_exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

// Stands in for a font file's bytes when the atlas is restored, not built (never parsed).
unsigned char g_placeholder[4] = {0, 1, 0, 0};

}  // namespace

Fonts add_app_fonts(ImFontAtlas* atlas, const std::string& dir, float dpr, bool cjk,
                    bool placeholders) {
  const auto add_file = [&](const std::string& path, float size, ImFontConfig cfg,
                            const ImWchar* ranges) -> ImFont* {
    if (placeholders) {
      cfg.FontDataOwnedByAtlas = false;
      return atlas->AddFontFromMemoryTTF(g_placeholder, sizeof g_placeholder, size, &cfg, ranges);
    }
    if (!file_exists(path)) return nullptr;
    return atlas->AddFontFromFileTTF(path.c_str(), size, &cfg, ranges);
  };
  const auto add = [&](const char* file, float size) -> ImFont* {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    ImFont* font = add_file(dir + "/" + file, size * dpr, cfg, kLatinRanges);
    if (!font) {
      ImFontConfig fallback;
      fallback.SizePixels = std::round(13.0f * dpr);
      font = atlas->AddFontDefault(&fallback);
    }
    ImFontConfig merge;
    merge.MergeMode = true;
    merge.OversampleH = 1;
    merge.PixelSnapH = true;
    if (cjk)
      add_file(dir + "/cjk.ttf", size * dpr, merge, kCjkRanges);
    else  // "中文" for the language switch
      add_file(dir + "/lang.ttf", size * dpr, merge, kLangRanges);
    return font;
  };
  Fonts fonts;
  fonts.ui = add("ui.ttf", 15.0f);
  fonts.mono = add("mono.ttf", 14.0f);
  fonts.title = add("bold.ttf", 17.0f);
  return fonts;
}

std::string font_atlas_key(const std::string& fonts_id, float dpr, bool cjk) {
  if (fonts_id.empty()) return "";
  char text[200];
  std::snprintf(text, sizeof text, "fonts %s | %s | dpr %.3f | imgui %d | glyph %d",
                fonts_id.c_str(), cjk ? "cjk" : "latin", static_cast<double>(dpr),
                IMGUI_VERSION_NUM, static_cast<int>(sizeof(ImFontGlyph)));
  return text;
}

std::string save_font_atlas(const ImFontAtlas& atlas, const std::string& key) {
  Writer w;
  w.bytes(kMagic, 4);
  w.put<uint32_t>(kVersion);
  w.put<uint32_t>(static_cast<uint32_t>(key.size()));
  w.bytes(key.data(), key.size());
  w.put<int32_t>(atlas.TexWidth);
  w.put<int32_t>(atlas.TexHeight);
  w.put(atlas.TexUvScale);
  w.put(atlas.TexUvWhitePixel);
  w.bytes(atlas.TexUvLines, sizeof(ImVec4) * kLines);
  w.put<uint32_t>(static_cast<uint32_t>(atlas.CustomRects.Size));
  for (const ImFontAtlasCustomRect& r : atlas.CustomRects) w.put(Rect{r.Width, r.Height, r.X, r.Y});
  w.put<int32_t>(atlas.PackIdMouseCursors);
  w.put<int32_t>(atlas.PackIdLines);
  w.put<uint32_t>(static_cast<uint32_t>(atlas.Fonts.Size));
  for (const ImFont* f : atlas.Fonts) {
    w.put(f->FontSize);
    w.put(f->Ascent);
    w.put(f->Descent);
    w.put<uint32_t>(f->FallbackChar);
    w.put<uint32_t>(f->EllipsisChar);
    w.put<uint32_t>(f->DotChar);
    w.put<int32_t>(f->MetricsTotalSurface);
    w.put<uint32_t>(static_cast<uint32_t>(f->Glyphs.Size));
    w.bytes(f->Glyphs.Data, sizeof(ImFontGlyph) * static_cast<size_t>(f->Glyphs.Size));
  }
  if (atlas.TexPixelsAlpha8)
    w.bytes(atlas.TexPixelsAlpha8,
            static_cast<size_t>(atlas.TexWidth) * static_cast<size_t>(atlas.TexHeight));
  return w.out;
}

bool restore_font_atlas(ImFontAtlas* atlas, const std::string& blob, const std::string& key) {
  // Everything is read and checked before the atlas is touched.
  Reader r{blob};
  char magic[4] = {};
  r.bytes(magic, 4);
  if (!r.ok || std::memcmp(magic, kMagic, 4) != 0 || r.get<uint32_t>() != kVersion) return false;
  const uint32_t key_size = r.get<uint32_t>();
  if (!r.ok || key_size != key.size()) return false;
  std::string blob_key(key_size, '\0');
  if (!r.bytes(blob_key.data(), key_size) || blob_key != key) return false;
  const int32_t width = r.get<int32_t>(), height = r.get<int32_t>();
  const ImVec2 uv_scale = r.get<ImVec2>(), white = r.get<ImVec2>();
  ImVec4 lines[kLines];
  r.bytes(lines, sizeof lines);
  const uint32_t rect_count = r.get<uint32_t>();
  if (!r.ok || width <= 0 || height <= 0 || width > 16384 || height > 16384 || rect_count > 64)
    return false;
  std::vector<Rect> rects(rect_count);
  for (Rect& rect : rects) rect = r.get<Rect>();
  const int32_t pack_cursors = r.get<int32_t>(), pack_lines = r.get<int32_t>();
  const uint32_t font_count = r.get<uint32_t>();
  if (!r.ok || font_count != static_cast<uint32_t>(atlas->Fonts.Size)) return false;
  if (pack_cursors >= static_cast<int32_t>(rect_count) ||
      pack_lines >= static_cast<int32_t>(rect_count))
    return false;
  std::vector<FontData> fonts(font_count);
  for (FontData& f : fonts) {
    f.size = r.get<float>();
    f.ascent = r.get<float>();
    f.descent = r.get<float>();
    f.fallback = r.get<uint32_t>();
    f.ellipsis = r.get<uint32_t>();
    f.dot = r.get<uint32_t>();
    f.surface = r.get<int32_t>();
    const uint32_t glyphs = r.get<uint32_t>();
    if (!r.ok || glyphs == 0 || glyphs >= 0xFFFF) return false;
    f.glyphs.resize(glyphs);
    if (!r.bytes(f.glyphs.data(), sizeof(ImFontGlyph) * glyphs)) return false;
  }
  const size_t pixels = static_cast<size_t>(width) * static_cast<size_t>(height);
  if (!r.ok || blob.size() - r.at != pixels) return false;

  // The atlas as Build() leaves it.
  atlas->ClearTexData();
  atlas->CustomRects.clear();
  for (const Rect& rect : rects) {
    const int id = atlas->AddCustomRectRegular(rect.w, rect.h);
    atlas->CustomRects[id].X = rect.x;
    atlas->CustomRects[id].Y = rect.y;
  }
  atlas->PackIdMouseCursors = pack_cursors;
  atlas->PackIdLines = pack_lines;
  atlas->TexWidth = width;
  atlas->TexHeight = height;
  atlas->TexUvScale = uv_scale;
  atlas->TexUvWhitePixel = white;
  std::memcpy(atlas->TexUvLines, lines, sizeof lines);
  atlas->TexPixelsAlpha8 = static_cast<unsigned char*>(IM_ALLOC(pixels));
  std::memcpy(atlas->TexPixelsAlpha8, blob.data() + r.at, pixels);
  // The fonts: each owns the configs from its own to the next font's (merged ones between).
  int cfg = 0;
  for (int i = 0; i < atlas->Fonts.Size; ++i) {
    ImFont* font = atlas->Fonts[i];
    const FontData& f = fonts[i];
    font->ClearOutputData();
    font->ContainerAtlas = atlas;
    while (cfg < atlas->ConfigData.Size && atlas->ConfigData[cfg].DstFont != font) ++cfg;
    font->ConfigData = cfg < atlas->ConfigData.Size ? &atlas->ConfigData[cfg] : nullptr;
    font->ConfigDataCount = 0;
    for (const ImFontConfig& c : atlas->ConfigData)
      if (c.DstFont == font) ++font->ConfigDataCount;
    font->FontSize = f.size;
    font->Ascent = f.ascent;
    font->Descent = f.descent;
    font->FallbackChar = static_cast<ImWchar>(f.fallback);
    font->EllipsisChar = static_cast<ImWchar>(f.ellipsis);
    font->DotChar = static_cast<ImWchar>(f.dot);
    font->MetricsTotalSurface = f.surface;
    font->Glyphs.resize(static_cast<int>(f.glyphs.size()));
    std::memcpy(font->Glyphs.Data, f.glyphs.data(), sizeof(ImFontGlyph) * f.glyphs.size());
    font->BuildLookupTable();
  }
  atlas->TexReady = true;
  return true;
}

}  // namespace ui
