// The GL half of the heatmaps: palettes, shaders, textures, the draw callback, read-back.
//
// [SECTION] Palettes
// [SECTION] Shaders
// [SECTION] Textures
// [SECTION] Drawing inside ImGui's render pass
// [SECTION] Reading back
#include "app/widgets/heatmap_renderer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "app/widgets/png.h"

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

ImU32 cell_color(Palette p, float lo, float hi, float v, bool masked) {
  if (masked) return ImGui::ColorConvertFloat4ToU32(kMaskedColor);
  if (std::isnan(v)) return ImGui::ColorConvertFloat4ToU32(kNanColor);
  const float span = hi - lo;
  return ImGui::ColorConvertFloat4ToU32(palette_color(p, span > 0 ? (v - lo) / span : 0.5f));
}

//-----------------------------------------------------------------------------
// [SECTION] Shaders
//-----------------------------------------------------------------------------

namespace {

GLuint compile(GLenum type, const char* body, std::string* error) {
  const std::string source = std::string(AP_GLSL_HEADER) + "#define AP_MAX_STOPS " +
                             std::to_string(kMaxPaletteStops) + "\n" + body;
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

attn::Status HeatmapRenderer::init() {
  attn::Status status;
  const GLuint vs = compile(GL_VERTEX_SHADER, kHeatmapVertexShader, &status.error);
  if (!vs) return status;
  const GLuint fs = compile(GL_FRAGMENT_SHADER, kHeatmapFragmentShader, &status.error);
  if (!fs) return status;
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
    return attn::Status{std::string("heatmap shader failed to link: ") + log};
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
  u_masked_ = glGetUniformLocation(program_, "u_masked");
  u_nan_ = glGetUniformLocation(program_, "u_nan");
  glGenVertexArrays(1, &vao_);

  const uint8_t zero = 0;
  glGenTextures(1, &empty_mask_);
  glBindTexture(GL_TEXTURE_2D, empty_mask_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, 1, 1, 0, GL_RED, GL_UNSIGNED_BYTE, &zero);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  return status;
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

//-----------------------------------------------------------------------------
// [SECTION] Textures
//-----------------------------------------------------------------------------

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

HeatmapRenderer::Texture& HeatmapRenderer::texture_for(const CellsJob& job) {
  Texture& t = textures_[job.key];
  t.last_used = frame_;
  const attn::Matrix& m = *job.values;
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
  if (t.values && t.revision == job.revision && t.source == job.values && t.rows == rows &&
      t.cols == cols && (t.mask != 0) == (job.mask != nullptr))
    return t;
  if (!t.values) glGenTextures(1, &t.values);
  glBindTexture(GL_TEXTURE_2D, t.values);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, cols, rows, 0, GL_RED, GL_FLOAT, m.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  if (job.mask) {
    if (!t.mask) glGenTextures(1, &t.mask);
    glBindTexture(GL_TEXTURE_2D, t.mask);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, cols, rows, 0, GL_RED, GL_UNSIGNED_BYTE,
                 job.mask->data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  } else if (t.mask) {
    glDeleteTextures(1, &t.mask);
    t.mask = 0;
  }
  t.revision = job.revision;
  t.source = job.values;
  t.rows = rows;
  t.cols = cols;
  return t;
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing inside ImGui's render pass
//-----------------------------------------------------------------------------

void HeatmapRenderer::draw_cells(ImDrawList* dl, const CellsJob& cells) {
  const Texture& tex = texture_for(cells);
  jobs_.push_back(DrawJob{this, tex.values, tex.mask, cells, tex.rows, tex.cols});
  dl->AddCallback(&HeatmapRenderer::draw_callback, &jobs_.back());
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void HeatmapRenderer::draw_callback(const ImDrawList*, const ImDrawCmd* cmd) {
  const DrawJob* job = static_cast<const DrawJob*>(cmd->UserCallbackData);
  job->self->draw_job(*job, cmd);
}

void HeatmapRenderer::draw_job(const DrawJob& job, const ImDrawCmd* cmd) {
  const CellsJob& c = job.cells;
  const ImDrawData* dd = ImGui::GetDrawData();
  const ImVec2 off = dd->DisplayPos, scale = dd->FramebufferScale, size = dd->DisplaySize;
  const float fb_h = size.y * scale.y;
  const ImVec4 clip = cmd->ClipRect;
  const float cx0 = std::max(clip.x, c.rect.x), cy0 = std::max(clip.y, c.rect.y);
  const float cx1 = std::min(clip.z, c.rect.z), cy1 = std::min(clip.w, c.rect.w);
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
  glUniform4f(u_rect_, ndc_x(c.rect.x), ndc_y(c.rect.y), ndc_x(c.rect.z), ndc_y(c.rect.w));
  glUniform4f(u_view_, c.view.x, c.view.y, c.view.z, c.view.w);
  glUniform2i(u_size_, job.cols, job.rows);
  glUniform2f(u_range_, c.lo, c.hi);
  const std::vector<ImVec4>& stops = palette_stops(c.palette);
  const int n = std::min(static_cast<int>(stops.size()), kMaxPaletteStops);
  float rgb[3 * kMaxPaletteStops];
  for (int i = 0; i < n; ++i) {
    rgb[3 * i] = stops[i].x;
    rgb[3 * i + 1] = stops[i].y;
    rgb[3 * i + 2] = stops[i].z;
  }
  glUniform3fv(u_stops_, n, rgb);
  glUniform1i(u_stop_count_, n);
  const float masked[6] = {kMaskedColor.x,  kMaskedColor.y,  kMaskedColor.z,
                           kMaskedStripe.x, kMaskedStripe.y, kMaskedStripe.z};
  const float nan[6] = {kNanColor.x,  kNanColor.y,  kNanColor.z,
                        kNanStripe.x, kNanStripe.y, kNanStripe.z};
  glUniform3fv(u_masked_, 2, masked);
  glUniform3fv(u_nan_, 2, nan);
  glUniform2f(u_cell_px_, c.cell_px.x, c.cell_px.y);
  glUniform1f(u_dpr_, scale.x);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

//-----------------------------------------------------------------------------
// [SECTION] Reading back
//-----------------------------------------------------------------------------

std::vector<uint8_t> HeatmapRenderer::read_png(ImVec4 rect, int fb_w, int fb_h, float dpr) const {
  const int x0 = std::clamp(static_cast<int>(std::floor(rect.x * dpr)) - 4, 0, fb_w);
  const int y0 = std::clamp(static_cast<int>(std::floor(rect.y * dpr)) - 4, 0, fb_h);
  const int x1 = std::clamp(static_cast<int>(std::ceil(rect.z * dpr)) + 4, 0, fb_w);
  const int y1 = std::clamp(static_cast<int>(std::ceil(rect.w * dpr)) + 4, 0, fb_h);
  const int w = x1 - x0, h = y1 - y0;
  if (w <= 0 || h <= 0) return {};
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * h * 4), flipped(pixels.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x0, fb_h - y1, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y)  // OpenGL's rows start at the bottom
    std::copy_n(&pixels[static_cast<size_t>(h - 1 - y) * row], row, &flipped[y * row]);
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // opaque
  return encode_png(flipped.data(), w, h);
}

}  // namespace ui
