// Heatmaps drawn by our GLSL shaders: textures, the draw callback, and the ImGui widget.
//
// [SECTION] Palettes
// [SECTION] Shaders and textures
// [SECTION] Drawing inside ImGui's render pass
// [SECTION] The widget: layout, labels, numbers, legend, interaction
#include "app/heatmap.h"
#include "app/i18n.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/explain.h"
#include "app/platform.h"
#include "app/png.h"
#include "app/text_wrap.h"
#include "imgui_internal.h"
#include "scenario/export.h"

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Palettes
//-----------------------------------------------------------------------------

namespace {

ImVec4 hex(unsigned rgb) {
  return ImVec4(((rgb >> 16) & 255) / 255.0f, ((rgb >> 8) & 255) / 255.0f, (rgb & 255) / 255.0f,
                1.0f);
}

}  // namespace

const std::vector<ImVec4>& palette_stops(Palette p) {
  // viridis (sequential) and ColorBrewer PuOr (diverging, purple negative, orange positive):
  // both readable with the common forms of colour blindness.
  static const std::vector<ImVec4> viridis = {
      hex(0x440154), hex(0x482475), hex(0x414487), hex(0x355f8d), hex(0x2a788e), hex(0x21918c),
      hex(0x22a884), hex(0x44bf70), hex(0x7ad151), hex(0xbddf26), hex(0xfde725)};
  static const std::vector<ImVec4> puor = {
      hex(0x2d004b), hex(0x542788), hex(0x8073ac), hex(0xb2abd2), hex(0xd8daeb), hex(0xf7f7f7),
      hex(0xfee0b6), hex(0xfdb863), hex(0xe08214), hex(0xb35806), hex(0x7f3b08)};
  return p == Palette::kSequential ? viridis : puor;
}

ImVec4 palette_color(Palette p, float t) {
  const std::vector<ImVec4>& stops = palette_stops(p);
  const float x = std::clamp(t, 0.0f, 1.0f) * (stops.size() - 1);
  const int i = std::min(static_cast<int>(x), static_cast<int>(stops.size()) - 2);
  const float f = x - i;
  const ImVec4 a = stops[i], b = stops[i + 1];
  return ImVec4(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f, 1.0f);
}

void HeatmapRenderer::value_range(const HeatmapSpec& spec, float* lo, float* hi) {
  if (spec.fixed_range) {
    *lo = spec.lo;
    *hi = spec.hi;
    return;
  }
  const attn::Matrix& m = *spec.values;
  float mn = INFINITY, mx = -INFINITY;
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const float v = m(r, c);
      if (!std::isfinite(v)) continue;
      if (spec.mask && (*spec.mask)[r * m.cols() + c]) continue;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
  if (mn > mx) mn = mx = 0.0f;
  if (spec.palette == Palette::kDiverging) {
    const float a = std::max({std::fabs(mn), std::fabs(mx), 1e-6f});
    *lo = -a;
    *hi = a;
  } else {
    *lo = mn;
    *hi = mx > mn ? mx : mn + 1e-6f;
  }
}

ImU32 HeatmapRenderer::cell_color(const HeatmapSpec& spec, float lo, float hi, float v,
                                  bool masked) {
  if (masked) return IM_COL32(204, 207, 212, 255);
  if (std::isnan(v)) return IM_COL32(150, 150, 150, 255);
  const float span = hi - lo;
  return ImGui::ColorConvertFloat4ToU32(
      palette_color(spec.palette, span > 0 ? (v - lo) / span : 0.5f));
}

//-----------------------------------------------------------------------------
// [SECTION] Shaders and textures
//-----------------------------------------------------------------------------

namespace {

GLuint compile(GLenum type, const char* body, std::string* error) {
  const std::string source = std::string(AP_GLSL_HEADER) + body;
  const char* text = source.c_str();
  GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    *error =
        std::string("heatmap shader failed to compile: ") + log + "\n--- source ---\n" + source;
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

}  // namespace

bool HeatmapRenderer::init(std::string* error) {
  const GLuint vs = compile(GL_VERTEX_SHADER, kHeatmapVertexShader, error);
  if (!vs) return false;
  const GLuint fs = compile(GL_FRAGMENT_SHADER, kHeatmapFragmentShader, error);
  if (!fs) return false;
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    *error = std::string("heatmap shader failed to link: ") + log;
    return false;
  }
  u_rect_ = glGetUniformLocation(program_, "u_rect");
  u_view_ = glGetUniformLocation(program_, "u_view");
  u_values_ = glGetUniformLocation(program_, "u_values");
  u_mask_ = glGetUniformLocation(program_, "u_mask");
  u_size_ = glGetUniformLocation(program_, "u_size");
  u_range_ = glGetUniformLocation(program_, "u_range");
  u_stops_ = glGetUniformLocation(program_, "u_stops");
  u_stop_count_ = glGetUniformLocation(program_, "u_stop_count");
  u_cell_px_ = glGetUniformLocation(program_, "u_cell_px");
  u_dpr_ = glGetUniformLocation(program_, "u_dpr");
  glGenVertexArrays(1, &vao_);

  const uint8_t zero = 0;
  glGenTextures(1, &empty_mask_);
  glBindTexture(GL_TEXTURE_2D, empty_mask_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, 1, 1, 0, GL_RED, GL_UNSIGNED_BYTE, &zero);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  return true;
}

void HeatmapRenderer::shutdown() {
  for (auto& [key, t] : textures_) {
    glDeleteTextures(1, &t.values);
    if (t.mask) glDeleteTextures(1, &t.mask);
  }
  textures_.clear();
  if (empty_mask_) glDeleteTextures(1, &empty_mask_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
  program_ = vao_ = empty_mask_ = 0;
}

bool HeatmapRenderer::request_png(const std::string& id) {
  const auto it = grids_.find(id);
  if (it == grids_.end() || it->second.frame != frame_) return false;
  capture_id_ = id;
  capture_name_ = export_names_[id];
  capture_frame_ = frame_ + 1;  // after the next frame, when menus are closed
  request_wake();
  return true;
}

void HeatmapRenderer::after_render(int fb_w, int fb_h, float dpr) {
  if (capture_frame_ < 0 || frame_ < capture_frame_) return;
  capture_frame_ = -1;
  const auto it = grids_.find(capture_id_);
  if (it == grids_.end() || it->second.frame != frame_) return;  // no longer on screen
  const GridInfo& g = it->second;
  const int x0 = std::clamp(static_cast<int>(std::floor(g.wx0 * dpr)) - 4, 0, fb_w);
  const int y0 = std::clamp(static_cast<int>(std::floor(g.wy0 * dpr)) - 4, 0, fb_h);
  const int x1 = std::clamp(static_cast<int>(std::ceil(g.wx1 * dpr)) + 4, 0, fb_w);
  const int y1 = std::clamp(static_cast<int>(std::ceil(g.wy1 * dpr)) + 4, 0, fb_h);
  const int w = x1 - x0, h = y1 - y0;
  if (w <= 0 || h <= 0) return;
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * h * 4), flipped(pixels.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x0, fb_h - y1, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y)
    std::copy_n(&pixels[static_cast<size_t>(h - 1 - y) * row], row, &flipped[y * row]);
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // opaque
  const std::vector<uint8_t> png = encode_png(flipped.data(), w, h);
  deliver_export(capture_name_ + ".png", "image/png", std::string(png.begin(), png.end()), false);
}

void HeatmapRenderer::begin_frame() {
  ++frame_;
  jobs_.clear();
  for (auto it = textures_.begin(); it != textures_.end();) {
    if (frame_ - it->second.last_used > 120) {
      glDeleteTextures(1, &it->second.values);
      if (it->second.mask) glDeleteTextures(1, &it->second.mask);
      it = textures_.erase(it);
    } else {
      ++it;
    }
  }
}

HeatmapRenderer::Texture& HeatmapRenderer::texture_for(const HeatmapSpec& spec) {
  const std::string key = std::to_string(ImGui::GetID(spec.id));
  Texture& t = textures_[key];
  t.last_used = frame_;
  const attn::Matrix& m = *spec.values;
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
  if (t.values && t.revision == spec.revision && t.source == spec.values && t.rows == rows &&
      t.cols == cols && (t.mask != 0) == (spec.mask != nullptr))
    return t;
  if (!t.values) glGenTextures(1, &t.values);
  glBindTexture(GL_TEXTURE_2D, t.values);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, cols, rows, 0, GL_RED, GL_FLOAT, m.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  if (spec.mask) {
    if (!t.mask) glGenTextures(1, &t.mask);
    glBindTexture(GL_TEXTURE_2D, t.mask);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, cols, rows, 0, GL_RED, GL_UNSIGNED_BYTE,
                 spec.mask->data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  } else if (t.mask) {
    glDeleteTextures(1, &t.mask);
    t.mask = 0;
  }
  t.revision = spec.revision;
  t.source = spec.values;
  t.rows = rows;
  t.cols = cols;
  return t;
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing inside ImGui's render pass
//-----------------------------------------------------------------------------

void HeatmapRenderer::draw_callback(const ImDrawList*, const ImDrawCmd* cmd) {
  const DrawJob* job = static_cast<const DrawJob*>(cmd->UserCallbackData);
  job->self->draw_job(*job, cmd);
}

void HeatmapRenderer::draw_job(const DrawJob& job, const ImDrawCmd* cmd) {
  const ImDrawData* dd = ImGui::GetDrawData();
  const ImVec2 off = dd->DisplayPos, scale = dd->FramebufferScale, size = dd->DisplaySize;
  const float fb_h = size.y * scale.y;
  const ImVec4 clip = cmd->ClipRect;
  const float cx0 = std::max(clip.x, job.rect.x), cy0 = std::max(clip.y, job.rect.y);
  const float cx1 = std::min(clip.z, job.rect.z), cy1 = std::min(clip.w, job.rect.w);
  if (cx1 <= cx0 || cy1 <= cy0) return;
  glScissor(static_cast<GLint>((cx0 - off.x) * scale.x),
            static_cast<GLint>(fb_h - (cy1 - off.y) * scale.y),
            static_cast<GLsizei>((cx1 - cx0) * scale.x),
            static_cast<GLsizei>((cy1 - cy0) * scale.y));
  glDisable(GL_BLEND);
  glUseProgram(program_);
  glBindVertexArray(vao_);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, job.mask ? job.mask : empty_mask_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, job.values);
  glUniform1i(u_values_, 0);
  glUniform1i(u_mask_, 1);
  auto ndc_x = [&](float x) { return (x - off.x) / size.x * 2.0f - 1.0f; };
  auto ndc_y = [&](float y) { return 1.0f - (y - off.y) / size.y * 2.0f; };
  glUniform4f(u_rect_, ndc_x(job.rect.x), ndc_y(job.rect.y), ndc_x(job.rect.z), ndc_y(job.rect.w));
  glUniform4f(u_view_, job.view.x, job.view.y, job.view.z, job.view.w);
  glUniform2i(u_size_, job.cols, job.rows);
  glUniform2f(u_range_, job.lo, job.hi);
  const std::vector<ImVec4>& stops = palette_stops(job.palette);
  float rgb[33];
  for (size_t i = 0; i < stops.size() && i < 11; ++i) {
    rgb[3 * i] = stops[i].x;
    rgb[3 * i + 1] = stops[i].y;
    rgb[3 * i + 2] = stops[i].z;
  }
  glUniform3fv(u_stops_, static_cast<GLsizei>(std::min<size_t>(stops.size(), 11)), rgb);
  glUniform1i(u_stop_count_, static_cast<GLint>(std::min<size_t>(stops.size(), 11)));
  glUniform2f(u_cell_px_, job.cell_px.x, job.cell_px.y);
  glUniform1f(u_dpr_, scale.x);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

//-----------------------------------------------------------------------------
// [SECTION] The widget: layout, labels, numbers, legend, interaction
//-----------------------------------------------------------------------------

namespace {

// `text` shortened with an ellipsis to fit `max_w` pixels in the current font.
std::string fit_label(const std::string& text, float max_w) {
  return fit_text(text, max_w, [](std::string_view t) {
    return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x;
  });
}

// Text turned 90° counter-clockwise, its baseline end at `anchor` (reads bottom to top).
void add_text_vertical(ImDrawList* dl, ImVec2 anchor, ImU32 color, const std::string& text) {
  const int start = dl->VtxBuffer.Size;
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  dl->AddText(ImVec2(anchor.x, anchor.y), color, text.c_str());
  // Rotate around `anchor` by −90°: (x, y) → (anchor.x + (y − anchor.y), anchor.y − (x −
  // anchor.x)).
  for (int i = start; i < dl->VtxBuffer.Size; ++i) {
    ImVec2& p = dl->VtxBuffer[i].pos;
    const float dx = p.x - anchor.x, dy = p.y - anchor.y;
    p = ImVec2(anchor.x + dy - size.y * 0.5f, anchor.y - dx);
  }
}

std::string cell_text(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "\xe2\x88\x92\xe2\x88\x9e" : "\xe2\x88\x9e";
  if (v <= -1e5f)
    return "\xe2\x88\x92"
           "1e6";
  char buf[32];
  const float a = std::fabs(v);
  std::snprintf(buf, sizeof buf,
                a < 10    ? "%.2f"
                : a < 100 ? "%.1f"
                          : "%.0f",
                static_cast<double>(v));
  std::string s = buf;
  if (s == "-0.00") s = "0.00";
  if (!s.empty() && s[0] == '-') s = "\xe2\x88\x92" + s.substr(1);
  return s;
}

}  // namespace

float heatmap_row_label_width(const std::vector<std::string>* labels, const char* row_axis,
                              float avail_x) {
  float w = ImGui::GetTextLineHeight() * 1.5f;
  if (labels)
    for (const auto& l : *labels) w = std::max(w, ImGui::CalcTextSize(l.c_str()).x + 8.0f);
  if (row_axis && row_axis[0])  // room for "queries ↓" in the corner
    w = std::max(w, ImGui::CalcTextSize(row_axis).x + 24.0f);
  return std::min(w, std::max(56.0f, avail_x * 0.22f));
}

HeatmapResult HeatmapRenderer::draw(const HeatmapSpec& spec) {
  HeatmapResult result;
  if (!spec.values || spec.values->size() == 0) return result;
  ImGui::PushID(spec.id);
  const attn::Matrix& m = *spec.values;
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
  ImGuiIO& io = ImGui::GetIO();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line_h = ImGui::GetTextLineHeight();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);

  // Layout: row labels on the left, column labels on top, legend below.
  ImVec2 avail = spec.size;
  if (avail.x <= 0) avail.x = ImGui::GetContentRegionAvail().x;
  if (avail.y <= 0) avail.y = ImGui::GetContentRegionAvail().y;
  const float row_label_w = heatmap_row_label_width(spec.row_labels, spec.row_axis, avail.x);
  const float legend_h = spec.legend ? line_h * 2.2f : 0.0f;
  float col_label_max = line_h;
  if (spec.col_labels)
    for (const auto& l : *spec.col_labels)
      col_label_max = std::max(col_label_max, ImGui::CalcTextSize(l.c_str()).x);
  const float grid_w_avail = std::max(8.0f, avail.x - row_label_w - style.ItemSpacing.x);
  // First fit ignoring rotated labels, then decide the label band.
  float fit = std::min(grid_w_avail / cols, spec.max_cell_px);
  const bool labels_flat = col_label_max + 6.0f <= fit;
  const float col_label_h = labels_flat ? line_h + 4.0f : std::min(col_label_max, 90.0f) + 8.0f;
  const float grid_h_avail = std::max(8.0f, avail.y - col_label_h - legend_h);
  fit = std::max(1.0f, std::min({grid_w_avail / cols, grid_h_avail / rows, spec.max_cell_px}));
  // Cells may be wider than tall (up to max_aspect) when the columns are few and rows many.
  const float fit_w =
      std::max(fit, std::min({grid_w_avail / cols, fit * spec.max_aspect, spec.max_cell_px * 4}));

  View& view = views_[std::to_string(ImGui::GetID("view"))];
  const float cw = fit_w * view.zoom, ch = fit * view.zoom;  // cell width and height
  const float vis_cols = std::min(static_cast<float>(cols), grid_w_avail / cw);
  const float vis_rows = std::min(static_cast<float>(rows), grid_h_avail / ch);
  view.scroll.x = std::clamp(view.scroll.x, 0.0f, cols - vis_cols);
  view.scroll.y = std::clamp(view.scroll.y, 0.0f, rows - vis_rows);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 g0(origin.x + row_label_w, origin.y + col_label_h);
  const ImVec2 g1(g0.x + vis_cols * cw, g0.y + vis_rows * ch);

  // Interaction surface over the grid.
  ImGui::SetCursorScreenPos(g0);
  ImGui::InvisibleButton("grid", ImVec2(std::max(1.0f, g1.x - g0.x), std::max(1.0f, g1.y - g0.y)),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight |
                             ImGuiButtonFlags_MouseButtonMiddle);
  const bool hovered = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  const bool activated = ImGui::IsItemActivated();
  const bool deactivated = ImGui::IsItemDeactivated();
  const bool zoomable = cols > vis_cols + 0.01f || rows > vis_rows + 0.01f || view.zoom != 1.0f;
  if (hovered) {
    ImGui::SetItemUsingMouseWheel();
    if (io.MouseWheel != 0.0f && io.KeyCtrl) {
      const ImVec2 at((io.MousePos.x - g0.x) / cw + view.scroll.x,
                      (io.MousePos.y - g0.y) / ch + view.scroll.y);
      view.zoom = std::clamp(view.zoom * (io.MouseWheel > 0 ? 1.25f : 0.8f), 1.0f, 64.0f);
      view.scroll = ImVec2(at.x - (io.MousePos.x - g0.x) / (fit_w * view.zoom),
                           at.y - (io.MousePos.y - g0.y) / (fit * view.zoom));
    } else if (io.MouseWheel != 0.0f && zoomable) {
      if (io.KeyShift)
        view.scroll.x -= io.MouseWheel * 3.0f;
      else
        view.scroll.y -= io.MouseWheel * 3.0f;
    } else if (io.MouseWheel != 0.0f) {
      ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseWheel * line_h * 3.0f);
    }
    if (io.MouseWheelH != 0.0f) view.scroll.x -= io.MouseWheelH * 3.0f;
  }
  if (active && (ImGui::IsMouseDragging(ImGuiMouseButton_Right) ||
                 ImGui::IsMouseDragging(ImGuiMouseButton_Middle) ||
                 (!spec.editable && ImGui::IsMouseDragging(ImGuiMouseButton_Left) && zoomable))) {
    view.scroll.x -= io.MouseDelta.x / cw;
    view.scroll.y -= io.MouseDelta.y / ch;
  }
  view.scroll.x = std::clamp(view.scroll.x, 0.0f, cols - vis_cols);
  view.scroll.y = std::clamp(view.scroll.y, 0.0f, rows - vis_rows);

  if (hovered || (active && drag_id_ == spec.id)) {
    const int c = static_cast<int>(std::floor((io.MousePos.x - g0.x) / cw + view.scroll.x));
    const int r = static_cast<int>(std::floor((io.MousePos.y - g0.y) / ch + view.scroll.y));
    if (c >= 0 && c < cols && r >= 0 && r < rows) {
      result.hovered = true;
      result.row = r;
      result.col = c;
    }
  }

  // Editing: drag horizontally (or vertically) to change a value, double-click to type it.
  if (spec.editable) {
    if (activated && ImGui::IsMouseClicked(ImGuiMouseButton_Left) && result.hovered) {
      drag_id_ = spec.id;
      drag_row_ = result.row;
      drag_col_ = result.col;
      drag_start_value_ = m(result.row, result.col);
    }
    if (active && drag_id_ == spec.id && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 3.0f);
      if (d.x != 0.0f || d.y != 0.0f) {
        const float step = io.KeyShift ? 0.001f : 0.01f;
        const float v = std::round((drag_start_value_ + (d.x - d.y) * step) * 1000.0f) / 1000.0f;
        if (v != m(drag_row_, drag_col_)) {
          result.edited = true;
          result.edit_row = drag_row_;
          result.edit_col = drag_col_;
          result.edit_value = v;
        }
      }
    }
    if (result.hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
      edit_popup_id_ = spec.id;
      edit_row_ = result.row;
      edit_col_ = result.col;
      edit_buffer_ = m(result.row, result.col);
      ImGui::OpenPopup("edit");
    }
    if (ImGui::BeginPopup("edit")) {
      ImGui::Text("[%d, %d]", edit_row_ + 1, edit_col_ + 1);
      ImGui::SetNextItemWidth(120);
      if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
      if (ImGui::InputFloat("##value", &edit_buffer_, 0.1f, 1.0f, "%.3f",
                            ImGuiInputTextFlags_EnterReturnsTrue)) {
        if (std::isfinite(edit_buffer_) && std::fabs(edit_buffer_) < 1e6f) {
          result.edited = true;
          result.edit_row = edit_row_;
          result.edit_col = edit_col_;
          result.edit_value = edit_buffer_;
        }
        ImGui::CloseCurrentPopup();
      }
      ImGui::EndPopup();
    }
  }
  // A click: released on the grid after moving less than a few pixels.
  if (deactivated) {
    const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 0.0f);
    result.clicked = result.hovered && std::fabs(d.x) + std::fabs(d.y) < 4.0f;
    if (drag_id_ == spec.id) drag_id_.clear();
  }

  // The cells, by the shader.
  float lo, hi;
  value_range(spec, &lo, &hi);
  Texture& tex = texture_for(spec);
  jobs_.push_back(DrawJob{this, tex.values, tex.mask, ImVec4(g0.x, g0.y, g1.x, g1.y),
                          ImVec4(view.scroll.x, view.scroll.y, vis_cols, vis_rows), cols, rows, lo,
                          hi, ImVec2(cw, ch), spec.palette});
  dl->AddCallback(&HeatmapRenderer::draw_callback, &jobs_.back());
  {
    GridInfo& g = grids_[spec.id];  // the widget rectangle stays last frame's until the end
    g = GridInfo{g0.x,   g0.y,  g1.x,  g1.y,  rows,  cols, view.scroll.y, view.scroll.x, ch, lo, hi,
                 frame_, g.wx0, g.wy0, g.wx1, g.wy1, cw};
  }
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);

  const int c0 = static_cast<int>(view.scroll.x), r0 = static_cast<int>(view.scroll.y);
  const int c1 = std::min(cols, static_cast<int>(std::ceil(view.scroll.x + vis_cols)));
  const int r1 = std::min(rows, static_cast<int>(std::ceil(view.scroll.y + vis_rows)));
  auto cell_x = [&](int c) { return g0.x + (c - view.scroll.x) * cw; };
  auto cell_y = [&](int r) { return g0.y + (r - view.scroll.y) * ch; };
  dl->PushClipRect(g0, g1, true);

  // Numbers in the cells when they fit.
  if (cw >= ImGui::CalcTextSize("\xe2\x88\x92"
                                "0.00")
                    .x +
                6.0f &&
      ch >= line_h + 2.0f) {
    for (int r = r0; r < r1; ++r)
      for (int c = c0; c < c1; ++c) {
        const float v = m(r, c);
        const bool masked = spec.mask && (*spec.mask)[r * cols + c];
        const std::string text = cell_text(v);
        const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
        const ImVec4 bg = ImGui::ColorConvertU32ToFloat4(cell_color(spec, lo, hi, v, masked));
        const float lum = 0.2126f * bg.x + 0.7152f * bg.y + 0.0722f * bg.z;
        dl->AddText(ImVec2(cell_x(c) + (cw - ts.x) * 0.5f, cell_y(r) + (ch - ts.y) * 0.5f),
                    lum > 0.45f ? IM_COL32(20, 22, 28, 255) : IM_COL32(255, 255, 255, 240),
                    text.c_str());
      }
  }
  // Outlines: highlighted row/column from elsewhere, and the hovered cell.
  const ImU32 accent = IM_COL32(230, 60, 40, 255);
  if (spec.highlight_row >= 0 && spec.highlight_row < rows)
    dl->AddRect(ImVec2(g0.x, cell_y(spec.highlight_row)),
                ImVec2(g1.x, cell_y(spec.highlight_row + 1)), accent, 0, 0, 2.0f);
  if (spec.highlight_col >= 0 && spec.highlight_col < cols)
    dl->AddRect(ImVec2(cell_x(spec.highlight_col), g0.y),
                ImVec2(cell_x(spec.highlight_col + 1), g1.y), accent, 0, 0, 2.0f);
  if (result.hovered) {
    result.cell_min = ImVec2(cell_x(result.col), cell_y(result.row));
    result.cell_max = ImVec2(cell_x(result.col + 1), cell_y(result.row + 1));
    dl->AddRect(result.cell_min, result.cell_max, IM_COL32(255, 255, 255, 255), 0, 0, 3.0f);
    dl->AddRect(result.cell_min, result.cell_max, IM_COL32(20, 20, 20, 255), 0, 0, 1.0f);
  }
  dl->PopClipRect();

  // Row labels (every k-th when rows are thinner than a line of text).
  const int row_step = std::max(1, static_cast<int>(std::ceil((line_h + 1.0f) / ch)));
  for (int r = r0; r < r1; r += row_step) {
    const std::string label = spec.row_labels && r < static_cast<int>(spec.row_labels->size())
                                  ? (*spec.row_labels)[r]
                                  : std::to_string(r + 1);
    const std::string shown = fit_label(label, row_label_w - 8.0f);
    const ImVec2 ts = ImGui::CalcTextSize(shown.c_str());
    const float y = std::max(cell_y(r) + (ch - ts.y) * 0.5f, g0.y - 1.0f);
    if (y < g0.y - 1 || y + ts.y > g1.y + line_h) continue;
    dl->AddText(ImVec2(g0.x - ts.x - 6.0f, y), r == result.row ? text_col : dim_col, shown.c_str());
  }
  // Column labels: flat when they fit, otherwise vertical.
  const float col_pitch = labels_flat ? cw : line_h + 1.0f;
  const int col_step = std::max(1, static_cast<int>(std::ceil(col_pitch / cw)));
  for (int c = c0; c < c1; c += col_step) {
    const std::string label = spec.col_labels && c < static_cast<int>(spec.col_labels->size())
                                  ? (*spec.col_labels)[c]
                                  : std::to_string(c + 1);
    const ImU32 color = c == result.col ? text_col : dim_col;
    if (labels_flat) {
      const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
      dl->AddText(ImVec2(cell_x(c) + (cw - ts.x) * 0.5f, g0.y - ts.y - 3.0f), color, label.c_str());
    } else {
      const std::string shown = fit_label(label, col_label_h - 8.0f);
      const float x = cell_x(c) + cw * 0.5f;
      if (x < g0.x || x > g1.x) continue;
      add_text_vertical(dl, ImVec2(x, g0.y - 4.0f), color, shown);
    }
  }
  // Axis names in the top-left corner: "keys →" above "queries ↓" when the column labels
  // leave room for two lines, else on one line.
  if (spec.row_axis[0] || spec.col_axis[0]) {
    const std::string rows_name = std::string(spec.row_axis) + " \xe2\x86\x93";
    const std::string cols_name = std::string(spec.col_axis) + " \xe2\x86\x92";
    const float w = row_label_w - 4.0f;
    if (col_label_h >= 2.0f * line_h + 4.0f) {
      dl->AddText(ImVec2(origin.x, g0.y - 2.0f * line_h - 3.0f), dim_col,
                  fit_label(cols_name, w).c_str());
      dl->AddText(ImVec2(origin.x, g0.y - line_h - 3.0f), dim_col, fit_label(rows_name, w).c_str());
    } else {
      // One line: the row axis in the corner, the column axis after the last column label.
      const std::string both = rows_name + "  " + cols_name;
      const float cols_w = ImGui::CalcTextSize(cols_name.c_str()).x;
      if (ImGui::CalcTextSize(both.c_str()).x <= w) {
        dl->AddText(ImVec2(origin.x, g0.y - line_h - 3.0f), dim_col, both.c_str());
      } else {
        dl->AddText(ImVec2(origin.x, g0.y - line_h - 3.0f), dim_col,
                    fit_label(rows_name, w).c_str());
        if (g1.x + 8.0f + cols_w <= origin.x + avail.x)
          dl->AddText(ImVec2(g1.x + 8.0f, g0.y - line_h - 3.0f), dim_col, cols_name.c_str());
      }
    }
  }

  // Legend: the palette with the value range, and a masked swatch when there is a mask.
  float bottom = g1.y;
  float legend_right = g1.x, bottom_extra = 0.0f;
  if (spec.legend) {
    const float y = g1.y + line_h * 0.5f;
    const float bar_h = line_h * 0.7f;
    const ImVec2 b0(g0.x, y);
    const std::string lo_text = num(lo), hi_text = num(hi);
    const float lo_w = ImGui::CalcTextSize(lo_text.c_str()).x;
    const float hi_w = ImGui::CalcTextSize(hi_text.c_str()).x;
    // The bar and its two numbers stay inside the widget's width: "lo [bar] hi" on one line,
    // or, when that leaves the bar too short, the bar under the grid and the numbers below it.
    const float room = origin.x + avail.x - g0.x - lo_w - hi_w - 12.0f;
    const bool stacked = room < 60.0f && g1.x - g0.x >= lo_w + hi_w + 12.0f;
    const float bar_w =
        stacked ? g1.x - g0.x
                : std::max(24.0f, std::min({180.0f, room, std::max(80.0f, g1.x - g0.x - 40.0f)}));
    const ImVec2 bar0(stacked ? g0.x : b0.x + lo_w + 6.0f, y + (line_h - bar_h) * 0.5f);
    const int segments = 20;
    for (int s = 0; s < segments; ++s) {
      const ImU32 a =
          ImGui::ColorConvertFloat4ToU32(palette_color(spec.palette, s / float(segments)));
      const ImU32 b =
          ImGui::ColorConvertFloat4ToU32(palette_color(spec.palette, (s + 1) / float(segments)));
      dl->AddRectFilledMultiColor(ImVec2(bar0.x + bar_w * s / segments, bar0.y),
                                  ImVec2(bar0.x + bar_w * (s + 1) / segments, bar0.y + bar_h), a, b,
                                  b, a);
    }
    float x;       // where the legend's first line ends
    float next_y;  // the top of the next free line
    if (stacked) {
      const float ny = bar0.y + bar_h + 2.0f;
      dl->AddText(ImVec2(g0.x, ny), dim_col, lo_text.c_str());
      dl->AddText(ImVec2(g1.x - hi_w, ny), dim_col, hi_text.c_str());
      x = g1.x + 6.0f;
      next_y = ny + line_h + 2.0f;
      bottom_extra = next_y - (y + line_h * 1.3f);
    } else {
      dl->AddText(b0, dim_col, lo_text.c_str());
      dl->AddText(ImVec2(bar0.x + bar_w + 6.0f, y), dim_col, hi_text.c_str());
      x = bar0.x + bar_w + 12.0f + hi_w;
      next_y = y + line_h * 1.3f;
    }
    bool any_mask = false;
    if (spec.mask)
      for (uint8_t v : *spec.mask) any_mask = any_mask || v;
    legend_right = x - 6.0f;
    if (any_mask) {
      // The swatch follows the bar when it fits beside the grid, else it takes a line below.
      const float swatch_w = 10.0f + bar_h * 1.6f + 5.0f + ImGui::CalcTextSize(T("masked")).x;
      float sy = bar0.y, ty = y;
      x += 10.0f;
      if (x - 10.0f + swatch_w > std::max(g1.x, legend_right)) {
        x = g0.x;
        sy = next_y + (line_h - bar_h) * 0.5f;
        ty = next_y;
        bottom_extra = next_y + line_h * 1.3f - (y + line_h * 1.3f);
      }
      const ImVec2 s0(x, sy), s1(x + bar_h * 1.6f, sy + bar_h);
      dl->AddRectFilled(s0, s1, IM_COL32(204, 207, 212, 255));
      for (float k = -bar_h; k < bar_h * 1.6f; k += 5.0f)
        dl->AddLine(ImVec2(std::max(s0.x, s0.x + k), s1.y - std::max(0.0f, -k)),
                    ImVec2(std::min(s1.x, s0.x + k + bar_h),
                           s0.y + std::max(0.0f, s0.x + k + bar_h - s1.x)),
                    IM_COL32(158, 160, 168, 255), 2.0f);
      dl->AddText(ImVec2(s1.x + 5.0f, ty), dim_col, T("masked"));
      x = s1.x + 5.0f + ImGui::CalcTextSize(T("masked")).x;
      legend_right = std::max(legend_right, x);
    }
    if (zoomable) {
      const float after = bottom_extra > 0.0f ? (stacked ? g1.x : bar0.x + bar_w + 6.0f + hi_w) : x;
      ImGui::SetCursorScreenPos(ImVec2(std::max(after + 12.0f, g1.x - 150.0f), y - 2.0f));
      ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(5, 0));
      if (ImGui::SmallButton("\xe2\x88\x92")) view.zoom = std::max(1.0f, view.zoom * 0.8f);
      ImGui::SameLine();
      if (ImGui::SmallButton("+")) view.zoom = std::min(64.0f, view.zoom * 1.25f);
      ImGui::SameLine();
      if (ImGui::SmallButton("fit")) view = View{};
      ImGui::SameLine();
      ImGui::TextDisabled("%d\xc3\x97%d", rows, cols);
      ImGui::PopStyleVar();
    }
    bottom = y + line_h * 1.5f + bottom_extra;
  }
  // Exports: right-click the grid (without dragging), or the button shown while the mouse is
  // over the widget.
  const std::string export_name = spec.export_name.empty() ? spec.id : spec.export_name;
  export_names_[spec.id] = export_name;
  GridInfo& grid = grids_[spec.id];
  const bool was_over =
      ImGui::IsMouseHoveringRect(ImVec2(grid.wx0, grid.wy0), ImVec2(grid.wx1, grid.wy1), false) &&
      ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem);
  if (hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Right)) {
    const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Right, 0.0f);
    if (std::fabs(d.x) + std::fabs(d.y) < 4.0f) ImGui::OpenPopup("export");
  }
  if (was_over || ImGui::IsPopupOpen("export")) {
    const float bw = ImGui::CalcTextSize(T("Export")).x + 10.0f;
    ImGui::SetCursorScreenPos(ImVec2(std::max(origin.x, origin.x + row_label_w - bw - 4.0f),
                                     spec.legend ? g1.y + line_h * 0.5f - 2.0f : g1.y + 2.0f));
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(5, 0));
    if (ImGui::SmallButton(T("Export"))) ImGui::OpenPopup("export");
    ImGui::PopStyleVar();
    if (!spec.legend) bottom = std::max(bottom, g1.y + line_h + 4.0f);
  }
  if (ImGui::BeginPopup("export")) {
    static const std::vector<std::string> kNone;
    const std::vector<std::string>& rl = spec.row_labels ? *spec.row_labels : kNone;
    const std::vector<std::string>& cl = spec.col_labels ? *spec.col_labels : kNone;
    if (ImGui::MenuItem(T("Copy as CSV")))
      deliver_export(export_name + ".csv", "text/csv", scenario::matrix_csv(m, rl, cl, "r", "c"),
                     true);
    if (ImGui::MenuItem(T("Copy as JSON")))
      deliver_export(export_name + ".json", "application/json",
                     scenario::matrix_json(m, rl, cl, "r", "c"), true);
    if (ImGui::MenuItem(T("Save as PNG"))) request_png(spec.id);
    ImGui::EndPopup();
  }
  grid.wx0 = origin.x;
  grid.wy0 = origin.y;
  grid.wx1 = std::max(g1.x, ImGui::GetItemRectMax().x);
  grid.wy1 = bottom;

  // Reserve the space used.
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(
      ImVec2(std::max({g1.x, legend_right, origin.x + 1.0f}) - origin.x, bottom - origin.y));
  ImGui::PopID();
  return result;
}

}  // namespace ui
