// The GL half of the heatmaps: the palettes, the shaders (shaders/heatmap.*), a float texture
// per matrix, the draw callback inside ImGui's render pass, and reading pixels back for a PNG.
// The ImGui widget that lays heatmaps out and handles the mouse is in heatmap.h.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "app/model/matrices.h"
#include "app/widgets/gl.h"
#include "core/status.h"
#include "core/tensor.h"
#include "imgui.h"

namespace ui {

// The palettes' stops as linear 0..1 RGB: the one source for the shader (as uniforms), the
// legend, the numbers' contrast and PNG colours.
const std::vector<ImVec4>& palette_stops(Palette p);
ImVec4 palette_color(Palette p, float t);  // t in [0, 1]
constexpr int kMaxPaletteStops = 16;       // the shader's uniform array, #defined at compile

// Masked cells: grey hatched with a darker grey; NaN cells: light and dark cross-hatch. The
// shader gets these as uniforms too.
inline const ImVec4 kMaskedColor(0.80f, 0.81f, 0.83f, 1.0f),
    kMaskedStripe(0.62f, 0.63f, 0.66f, 1.0f);
inline const ImVec4 kNanColor(0.95f, 0.95f, 0.95f, 1.0f), kNanStripe(0.35f, 0.35f, 0.35f, 1.0f);

// A cell's colour as the shader draws it (the hatching of masked and NaN cells aside).
ImU32 cell_color(Palette p, float lo, float hi, float v, bool masked);

// What draw_cells draws: the visible part of one matrix, scaled into a screen rectangle.
struct CellsJob {
  std::string key;  // the texture: unique per widget
  const attn::Matrix* values = nullptr;
  const std::vector<uint8_t>* mask = nullptr;  // row-major, 1 = masked; may be null
  uint64_t revision = 0;                       // textures are re-uploaded when it changes
  ImVec4 rect;                                 // screen pixels: x0, y0, x1, y1
  ImVec4 view;                                 // first col, first row, cols, rows (fractional)
  ImVec2 cell_px;                              // on-screen cell width and height
  float lo = 0.0f, hi = 1.0f;                  // the values at the palette's ends
  Palette palette = Palette::kSequential;
};

class HeatmapRenderer {
 public:
  attn::Status init();  // compiles the shaders; the error holds the log and the source
  void shutdown();
  void begin_frame();  // drops textures unused for a while
  void set_device_pixel_ratio(float dpr) { dpr_ = dpr; }
  int frame() const { return frame_; }

  // Queues the cells on `dl`: they are drawn by the shader when ImGui renders the frame.
  void draw_cells(ImDrawList* dl, const CellsJob& job);

  // The RGBA pixels of a screen rectangle (CSS pixels, with a 4-pixel margin) of the frame
  // just rendered, as a PNG file; empty when the rectangle is off the framebuffer.
  std::vector<uint8_t> read_png(ImVec4 rect, int fb_w, int fb_h, float dpr) const;

 private:
  struct Texture {
    GLuint values = 0, mask = 0;
    uint64_t revision = ~uint64_t{0};
    const void* source = nullptr;
    int rows = 0, cols = 0;
    int last_used = 0;
  };
  struct DrawJob {
    HeatmapRenderer* self;
    GLuint values, mask;
    CellsJob cells;
    int rows, cols;
  };

  Texture& texture_for(const CellsJob& job);
  static void draw_callback(const ImDrawList* list, const ImDrawCmd* cmd);
  void draw_job(const DrawJob& job, const ImDrawCmd* cmd);

  GLuint program_ = 0, vao_ = 0, empty_mask_ = 0;
  GLint u_rect_ = -1, u_view_ = -1, u_values_ = -1, u_mask_ = -1, u_size_ = -1, u_range_ = -1,
        u_stops_ = -1, u_stop_count_ = -1, u_cell_px_ = -1, u_dpr_ = -1, u_masked_ = -1,
        u_nan_ = -1;
  std::map<std::string, Texture> textures_;
  std::deque<DrawJob> jobs_;  // stable addresses until the frame is rendered
  int frame_ = 0;
  float dpr_ = 1.0f;
};

// The shader sources, embedded at build time from shaders/ (generated file).
extern const char* const kHeatmapVertexShader;
extern const char* const kHeatmapFragmentShader;

}  // namespace ui
