// The playground's entry point: one loop for the browser (Emscripten, WebGL2) and the desktop
// (GLFW, OpenGL 3.3). Only the loop's entry and the canvas sizing check __EMSCRIPTEN__.
//
//   attention-playground [--preset NAME] [--step K] [--size WxH] [--lang en|zh]
//                        [--screenshot OUT.png] [--frames N] [--fonts DIR]
//
// [SECTION] Platform: window, sizes, fonts
// [SECTION] The frame
// [SECTION] main
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "app/platform/platform.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "app/widgets/font_cache.h"
#include "app/widgets/gl.h"
#include "app/widgets/item_log.h"
#include "app/widgets/png.h"
#include "core/parallel.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>
#endif

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Platform: window, sizes, fonts
//-----------------------------------------------------------------------------

Runtime g_runtime;

namespace {

// Marks the UI as busy for a short while after any input, so that hover effects and
// animations settle; when idle, frames are skipped and the canvas keeps its last image. In
// the browser an idle page stops its frame loop altogether (it would poll every animation
// frame, about 12% of a core), and input, a resize or an API call starts it again.
#if defined(__EMSCRIPTEN__)
bool g_sleeping = false;
#endif
// Frames drawn after an input: hover effects, ImGui's windows fitting their contents (two or
// three frames) and a tooltip placed from its size in the frame before. Half a second of
// frames, and at least six: a count of frames alone (30, half a second at 60 Hz) kept a slow
// machine drawing for seconds after each move of the mouse (a software renderer at 1440×900
// draws 5 frames a second, so 30 frames took 6 s of both its cores).
constexpr int kBusyFrames = 6;
constexpr double kBusySeconds = 0.5;
double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
void wake() {
  g_runtime.busy_frames = kBusyFrames;
  g_runtime.busy_until = seconds_now() + kBusySeconds;
#if defined(__EMSCRIPTEN__)
  if (g_sleeping) {
    g_sleeping = false;
    emscripten_resume_main_loop();
  }
#endif
}
void on_cursor(GLFWwindow*, double, double) {
  wake();
}
void on_button(GLFWwindow*, int, int, int) {
  wake();
}
void on_scroll(GLFWwindow*, double, double) {
  wake();
}
// A key pressed and released between two frames (a quick tap, or a test) would never be seen
// down by Dear ImGui 1.86, which reads key state once per frame: such a release is held back
// until the frame after the one that saw the press.
std::vector<int> g_keys_pressed;   // pressed since the last frame
std::vector<int> g_keys_released;  // released before any frame saw them down
std::vector<int> g_keys_to_clear;  // held down for one frame, released in the next

void on_key(GLFWwindow*, int key, int, int action, int) {
  wake();
  if (key < 0 || key >= 512) return;
  if (action == GLFW_PRESS) g_keys_pressed.push_back(key);
  if (action == GLFW_RELEASE &&
      std::find(g_keys_pressed.begin(), g_keys_pressed.end(), key) != g_keys_pressed.end())
    g_keys_released.push_back(key);
}

// Between the backend's NewFrame and ImGui::NewFrame.
void hold_quick_keys(ImGuiIO& io) {
  for (int key : g_keys_to_clear) io.KeysDown[key] = false;
  g_keys_to_clear.clear();
  for (int key : g_keys_released) {
    io.KeysDown[key] = true;
    g_keys_to_clear.push_back(key);
  }
  g_keys_released.clear();
  g_keys_pressed.clear();
  io.KeyCtrl = io.KeysDown[GLFW_KEY_LEFT_CONTROL] || io.KeysDown[GLFW_KEY_RIGHT_CONTROL];
  io.KeyShift = io.KeysDown[GLFW_KEY_LEFT_SHIFT] || io.KeysDown[GLFW_KEY_RIGHT_SHIFT];
  io.KeyAlt = io.KeysDown[GLFW_KEY_LEFT_ALT] || io.KeysDown[GLFW_KEY_RIGHT_ALT];
}
void on_char(GLFWwindow*, unsigned int) {
  wake();
}

bool file_exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::string out;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

void request_wake() {
  wake();
}

// The font atlas for the current pixel ratio and language: restored from the blob the page
// kept from an earlier start (font_cache.h) when there is one that matches, else built, and
// then handed to the page to keep. Chinese needs cjk.ttf, which the page fetches on demand,
// unless a kept atlas already has its glyphs.
void rebuild_fonts() {
  const auto t0 = std::chrono::steady_clock::now();
  ImGuiIO& io = ImGui::GetIO();
  const float dpr = g_runtime.dpr;
  const std::string dir = g_runtime.font_dir;
  if (!g_runtime.font_id_read) {
    g_runtime.font_id = read_file(dir + "/id.txt");
    while (!g_runtime.font_id.empty() &&
           std::isspace(static_cast<unsigned char>(g_runtime.font_id.back())))
      g_runtime.font_id.pop_back();
    g_runtime.font_id_read = true;
  }
  const bool want_cjk = g_runtime.app.state.lang == Lang::kZh;
  const bool cjk_file = want_cjk && file_exists(dir + "/cjk.ttf");
  io.Fonts->Clear();
  Fonts fonts;
  bool restored = false, cjk = false;
  // A kept atlas with the Chinese glyphs first (it needs no cjk.ttf), then one without.
  for (const bool c : {true, false}) {
    if (c && !want_cjk) continue;
    const std::string key = font_atlas_key(g_runtime.font_id, dpr, c);
    const std::string blob = key.empty() ? "" : load_kept_font_atlas(font_atlas_name(dpr, c));
    if (blob.empty()) continue;
    fonts = add_app_fonts(io.Fonts, dir, dpr, c, /*placeholders=*/true);
    restored = restore_font_atlas(io.Fonts, blob, key);
    if (restored) {
      cjk = c;
      break;
    }
    io.Fonts->Clear();
  }
  // A kept atlas without Chinese will not do once cjk.ttf is here: build that one.
  if (restored && want_cjk && !cjk && cjk_file) {
    io.Fonts->Clear();
    restored = false;
  }
  if (!restored) {
    cjk = cjk_file;
    fonts = add_app_fonts(io.Fonts, dir, dpr, cjk, /*placeholders=*/false);
    io.Fonts->Build();
    const std::string key = font_atlas_key(g_runtime.font_id, dpr, cjk);
    if (!key.empty()) keep_font_atlas(font_atlas_name(dpr, cjk), save_font_atlas(*io.Fonts, key));
  }
  g_runtime.cjk_loaded = cjk;
  g_runtime.font_atlas_restored = restored;
  g_fonts.ui = fonts.ui;
  g_fonts.mono = fonts.mono;
  g_fonts.title = fonts.title;
  io.FontDefault = g_fonts.ui;
  io.FontGlobalScale = 1.0f / dpr;
  g_runtime.font_dpr = dpr;
  g_runtime.fonts_dirty = false;
  g_runtime.font_atlas_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // Still no Chinese glyphs (none kept, no cjk.ttf yet): the page fetches the font.
  if (want_cjk && !cjk) request_cjk_font();
}

std::string font_atlas_name(float dpr, bool cjk) {
  // The ratio in hundredths, as web/app.js names it: Math.round(devicePixelRatio * 100).
  return std::string(cjk ? "cjk" : "latin") + "@" + std::to_string(std::lround(dpr * 100.0f));
}

//-----------------------------------------------------------------------------
// [SECTION] The frame
//-----------------------------------------------------------------------------

namespace {

// Sizes the canvas to its CSS size × devicePixelRatio so that text and cells are sharp.
void update_canvas_size() {
#if defined(__EMSCRIPTEN__)
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const double dpr = emscripten_get_device_pixel_ratio();
  const int fb_w = std::max(1, static_cast<int>(std::lround(css_w * dpr)));
  const int fb_h = std::max(1, static_cast<int>(std::lround(css_h * dpr)));
  int cur_w = 0, cur_h = 0;
  emscripten_get_canvas_element_size("#canvas", &cur_w, &cur_h);
  if (cur_w != fb_w || cur_h != fb_h) {
    emscripten_set_canvas_element_size("#canvas", fb_w, fb_h);
    wake();
  }
  g_runtime.css_w = static_cast<float>(css_w);
  g_runtime.css_h = static_cast<float>(css_h);
  g_runtime.fb_w = fb_w;
  g_runtime.fb_h = fb_h;
  g_runtime.dpr = static_cast<float>(dpr);
#else
  int w, h, fw, fh;
  glfwGetWindowSize(g_runtime.window, &w, &h);
  glfwGetFramebufferSize(g_runtime.window, &fw, &fh);
  g_runtime.css_w = static_cast<float>(w);
  g_runtime.css_h = static_cast<float>(h);
  g_runtime.fb_w = fw;
  g_runtime.fb_h = fh;
  g_runtime.dpr = w > 0 ? static_cast<float>(fw) / w : 1.0f;
#endif
}

// Lays the UI out once: fonts rebuilt when asked, then ImGui's frame and our panels, up to the
// draw data of ImGui::Render (nothing is drawn yet).
void build_frame() {
  if (g_runtime.fonts_dirty || std::fabs(g_runtime.font_dpr - g_runtime.dpr) > 0.01f) {
    rebuild_fonts();
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  // Two frames within the clock's resolution (layout_frames): ImGui wants time to pass.
  io.DeltaTime = std::max(io.DeltaTime, 1e-4f);
  hold_quick_keys(io);
  // Sizes in CSS pixels, framebuffer in device pixels. Emscripten's GLFW reports the mouse in
  // canvas (device) pixels: bring it back to CSS pixels.
  io.DisplaySize = ImVec2(g_runtime.css_w, g_runtime.css_h);
  io.DisplayFramebufferScale = ImVec2(g_runtime.dpr, g_runtime.dpr);
#if defined(__EMSCRIPTEN__)
  if (io.MousePos.x > -FLT_MAX / 2)
    io.MousePos = ImVec2(io.MousePos.x / g_runtime.dpr, io.MousePos.y / g_runtime.dpr);
#endif
  g_runtime.app.heatmaps.renderer.set_device_pixel_ratio(g_runtime.dpr);
  ui::item_log_new_frame();
  // Keys on the canvas do one thing each: ← → step and Space plays (panel_pipeline.cpp).
  // Dear ImGui's own keyboard navigation would move a highlight with the same arrows and
  // turn Space into a click on whatever it landed on ("◀ Previous" while the learner meant
  // Play), so it is on only while a popup (a menu) is open: there the arrows choose an item,
  // Space takes it and Escape closes the menu. The table view is the keyboard's way in.
  if (ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel))
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  else
    io.ConfigFlags &= ~ImGuiConfigFlags_NavEnableKeyboard;
  ImGui::NewFrame();
  g_runtime.app.frame();
  ImGui::Render();
}

// Draws one frame when there is something to draw; `present` swaps it to the screen (the
// screenshot reads it before that). Returns false when there was nothing to draw.
bool frame(bool present) {
  update_canvas_size();
  // A mouse button held down keeps the frames coming: a held button repeats (the +/- of a
  // number field), a drag scrolls.
  const ImGuiIO& io = ImGui::GetIO();
  const bool held =
      std::any_of(std::begin(io.MouseDown), std::end(io.MouseDown), [](bool d) { return d; });
  const bool busy = g_runtime.busy_frames > 0 || seconds_now() < g_runtime.busy_until ||
                    g_runtime.app.animating() || g_runtime.frames_left > 0 || held;
  if (!busy) return false;
  if (g_runtime.busy_frames > 0) --g_runtime.busy_frames;
  const auto t0 = std::chrono::steady_clock::now();
  build_frame();
  glViewport(0, 0, g_runtime.fb_w, g_runtime.fb_h);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(0.965f, 0.969f, 0.976f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (const std::optional<PngCapture> png =
          g_runtime.app.heatmaps.after_render(g_runtime.fb_w, g_runtime.fb_h, g_runtime.dpr))
    deliver_export(png->filename, "image/png", std::string(png->png.begin(), png->png.end()),
                   false);
  std::vector<float>& times = g_runtime.frame_ms;
  if (times.size() >= 240) times.erase(times.begin(), times.begin() + 120);
  times.push_back(static_cast<float>(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()));
  after_frame();  // the web bridge forwards events to JavaScript
  ++g_runtime.frame_count;
  if (g_runtime.frames_left > 0) --g_runtime.frames_left;
#if !defined(__EMSCRIPTEN__)
  if (present) glfwSwapBuffers(g_runtime.window);
#else
  (void)present;
#endif
  return true;
}

#if defined(__EMSCRIPTEN__)
void web_frame() {
  if (!frame(true)) {
    g_sleeping = true;
    emscripten_pause_main_loop();
  }
}
#endif

}  // namespace

void layout_frames(int n) {
  update_canvas_size();
  for (int i = 0; i < n; ++i) build_frame();
}

namespace {

bool parse_args(int argc, char** argv, std::string* screenshot, int* frames, int* width,
                int* height, std::string* preset, int* step, std::string* lang) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--screenshot")
      *screenshot = next();
    else if (a == "--frames")
      *frames = std::atoi(next());
    else if (a == "--size")
      std::sscanf(next(), "%dx%d", width, height);
    else if (a == "--preset")
      *preset = next();
    else if (a == "--step")
      *step = std::atoi(next());
    else if (a == "--lang")
      *lang = next();
    else if (a == "--fonts")
      g_runtime.font_dir = next();
    else {
      std::fprintf(stderr, "error: unknown argument %s\n", a.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

}  // namespace ui

//-----------------------------------------------------------------------------
// [SECTION] main
//-----------------------------------------------------------------------------

int main(int argc, char** argv) {
  using namespace ui;
  std::string screenshot, preset, lang = "en";
  int frames = 6, width = 1280, height = 800, step = -1;
#if defined(__EMSCRIPTEN__)
  g_runtime.font_dir = "/fonts";
#else
  g_runtime.font_dir = AP_FONT_DIR;
#endif
  if (!parse_args(argc, argv, &screenshot, &frames, &width, &height, &preset, &step, &lang))
    return 2;
  // The core's threads: the machine's cores natively, up to 8 in the threaded WASM build (a
  // cross-origin isolated page), 1 in the others. The results are the same bits whatever the
  // count (core/parallel.h).
  attn::set_threads(attn::max_threads());

  glfwSetErrorCallback(
      [](int code, const char* text) { std::fprintf(stderr, "GLFW error %d: %s\n", code, text); });
  if (!glfwInit()) {
    std::fprintf(stderr, "error: could not initialise GLFW\n");
    return 1;
  }
#if defined(__EMSCRIPTEN__)
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  const char* glsl = "#version 300 es";
#else
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
  if (!screenshot.empty()) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  const char* glsl = "#version 330 core";
#endif
  g_runtime.window = glfwCreateWindow(width, height, "Attention Playground", nullptr, nullptr);
  if (!g_runtime.window) {
    std::fprintf(stderr, "error: could not create an OpenGL 3.3 window\n");
    return 1;
  }
  glfwMakeContextCurrent(g_runtime.window);
  glfwSwapInterval(1);
  // Our callbacks first: the ImGui backend chains to them.
  glfwSetCursorPosCallback(g_runtime.window, on_cursor);
  glfwSetMouseButtonCallback(g_runtime.window, on_button);
  glfwSetScrollCallback(g_runtime.window, on_scroll);
  glfwSetKeyCallback(g_runtime.window, on_key);
  glfwSetCharCallback(g_runtime.window, on_char);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is computed, nothing to remember
  apply_style(1.0f);
  ImGui_ImplGlfw_InitForOpenGL(g_runtime.window, true);
  ImGui_ImplOpenGL3_Init(glsl);

  AppState& s = g_runtime.app.state;
  s.set_language(lang == "zh" ? Lang::kZh : Lang::kEn);
  const attn::Status started = g_runtime.app.init();
  if (!started.ok()) {
    std::fprintf(stderr, "error: %s\n", started.error.c_str());
    report_fatal(started.error);
    return 1;
  }
  for (int i = 0; i < static_cast<int>(s.presets.size()); ++i)
    if (s.presets[i].name == preset) s.load_preset(i);
  if (step >= 0) s.set_step(step);
  update_canvas_size();
  rebuild_fonts();
  wake();
  on_ready();

#if defined(__EMSCRIPTEN__)
  emscripten_set_main_loop(web_frame, 0, true);
#else
  if (!screenshot.empty()) {
    // A few frames for ImGui to settle its layout, then one more read before it is shown.
    for (int i = 0; i < std::max(frames, 2); ++i) {
      glfwPollEvents();
      g_runtime.frames_left = 1;
      frame(true);
    }
    g_runtime.frames_left = 1;
    frame(false);
    glFinish();
    std::vector<uint8_t> pixels(static_cast<size_t>(g_runtime.fb_w) * g_runtime.fb_h * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, g_runtime.fb_w, g_runtime.fb_h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // OpenGL's rows start at the bottom.
    std::vector<uint8_t> flipped(pixels.size());
    const size_t row = static_cast<size_t>(g_runtime.fb_w) * 4;
    for (int y = 0; y < g_runtime.fb_h; ++y)
      std::memcpy(&flipped[y * row], &pixels[(g_runtime.fb_h - 1 - y) * row], row);
    if (!write_png(screenshot, flipped.data(), g_runtime.fb_w, g_runtime.fb_h)) {
      std::fprintf(stderr, "error: could not write %s\n", screenshot.c_str());
      return 1;
    }
    std::printf("wrote %s (%dx%d)\n", screenshot.c_str(), g_runtime.fb_w, g_runtime.fb_h);
  } else {
    while (!glfwWindowShouldClose(g_runtime.window)) {
      if (g_runtime.busy_frames > 0 || seconds_now() < g_runtime.busy_until ||
          g_runtime.app.animating())
        glfwPollEvents();
      else
        glfwWaitEventsTimeout(0.25);
      frame(true);
    }
  }
  g_runtime.app.shutdown();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(g_runtime.window);
  glfwTerminate();
#endif
  return 0;
}
