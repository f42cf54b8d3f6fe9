// The browser bridge: events forwarded to JavaScript, exports handed over, the fonts the page
// loads on demand, and the page's settings of the canvas and the runtime (the calls on the app
// state are in web_api_state.cpp, those on the last drawn frame in web_api_frame.cpp).
#include <emscripten/emscripten.h>

#include <algorithm>
#include <string>

#include "app/platform/platform.h"
#include "app/text/i18n.h"
#include "app/views/app.h"
#include "core/parallel.h"
#include "imgui_impl_glfw.h"

namespace ui {

std::string load_kept_font_atlas(const std::string& name) {
  return read_file("/atlas/" + name + ".bin");
}

void keep_font_atlas(const std::string& name, const std::string& blob) {
  EM_ASM(
      {
        if (Module.apKeepAtlas) Module.apKeepAtlas(UTF8ToString($0), HEAPU8.slice($1, $1 + $2));
      },
      name.c_str(), blob.data(), blob.size());
}

// The page puts a kept atlas with the Chinese glyphs in /atlas/ if it has one, else fetches
// cjk.ttf into /fonts/, and then calls ap_fonts_changed.
void request_cjk_font() {
  const std::string name = font_atlas_name(g_runtime.dpr, true);
  EM_ASM(
      {
        if (Module.apNeedCjkFont) Module.apNeedCjkFont(UTF8ToString($0));
      },
      name.c_str());
}

void on_ready() {
  // app.js answers "open_file" with its picker, and "export_file|…" with exportFile.
  g_runtime.app.state.in_page = true;
  EM_ASM({
    if (Module.apReady) Module.apReady();
  });
}

void after_frame() {
  AppState& s = g_runtime.app.state;
  if (g_runtime.frame_count == 0) {
    EM_ASM({
      if (Module.apFirstFrame) Module.apFirstFrame();
    });
  }
  for (const std::string& e : s.events) {
    // A language switch needs the Chinese glyphs: the page fetches them, then calls back.
    if (e == "language") {
      if (s.lang == Lang::kZh && !g_runtime.cjk_loaded) {
        request_cjk_font();
      } else {
        g_runtime.fonts_dirty = true;
      }
      continue;
    }
    EM_ASM(
        {
          if (Module.apEvent) Module.apEvent(UTF8ToString($0));
        },
        e.c_str());
  }
  s.events.clear();
}

void deliver_export(const std::string& filename, const std::string& mime, const std::string& data,
                    bool copy) {
  EM_ASM(
      {
        if (Module.apExport)
          Module.apExport(UTF8ToString($0), UTF8ToString($1), HEAPU8.slice($2, $2 + $3), !!$4);
      },
      filename.c_str(), mime.c_str(), data.data(), data.size(), copy ? 1 : 0);
}

void report_fatal(const std::string& message) {
  EM_ASM(
      {
        if (Module.apFatal) Module.apFatal(UTF8ToString($0));
      },
      message.c_str());
}

}  // namespace ui

using ui::g_runtime;

extern "C" {

// In the threaded build the heap can grow on one of the core's threads, and emscripten renews
// its views of it (Module.HEAPU8, HEAPF32, …) only when its own code next reads them (its
// GROWABLE_HEAP checks, which this EM_ASM goes through too). The page calls this (heap() in
// web/js/calls.js) before it reads or writes those views itself.
EMSCRIPTEN_KEEPALIVE void ap_heap_views() {
  EM_ASM({ Module.apHeapBytes = HEAPU8.length; });
}

// Before the page is left: the core goes on one thread and the workers of the others end. In
// Firefox (153) a page whose thread workers are still alive, with a service worker in charge of
// it, cannot be left on a cross-origin isolated site: reloads and links are aborted
// (NS_ERROR_INTERCEPTION_FAILED). Should the page stay after all, it runs on one thread. No
// core call is under way: the page's event handlers run between them.
EMSCRIPTEN_KEEPALIVE void ap_end_threads() {
  if (attn::threads() <= 1) return;
  attn::set_threads(1);
#ifdef __EMSCRIPTEN_PTHREADS__
  EM_ASM({ PThread.terminateAllThreads(); });
#endif
}

// 1 on a touch screen: larger controls (ui::set_touch_targets).
EMSCRIPTEN_KEEPALIVE void ap_set_touch(int touch) {
  ui::set_touch_targets(touch != 0);
  ui::request_wake();
}

EMSCRIPTEN_KEEPALIVE void ap_set_embed(int embed) {
  g_runtime.app.state.embed = embed != 0;
  ui::request_wake();
}

// The values written in the cells (1) or only the colours (0: numbers=off in the address).
EMSCRIPTEN_KEEPALIVE void ap_set_numbers(int on) {
  g_runtime.app.state.show_numbers = on != 0;
  ui::request_wake();
}

// Step changes animate (1) or not (0: the page prefers reduced motion, or motion=off).
EMSCRIPTEN_KEEPALIVE void ap_set_animate(int animate) {
  g_runtime.app.state.animate = animate != 0;
  if (!animate) g_runtime.app.state.transition = ui::Transition{};
  ui::request_wake();
}

// Wheel steps (+1 = one notch up or left), normalised by the page from the DOM event: Emscripten
// 3.1.6's GLFW passes the raw pixel deltas, 100 times too large and with the sign flipped.
EMSCRIPTEN_KEEPALIVE void ap_wheel(double dx, double dy) {
  ImGui_ImplGlfw_ScrollCallback(g_runtime.window, dx, dy);
  ui::request_wake();
}

EMSCRIPTEN_KEEPALIVE void ap_clear_frame_times() {
  g_runtime.frame_ms.clear();
}

EMSCRIPTEN_KEEPALIVE void ap_wake() {
  ui::request_wake();
}

// Draws at least `n` more frames (1 to 60), the page idle or not; returns the frames drawn so
// far, which the page's frames(n) waits to see grow by n.
EMSCRIPTEN_KEEPALIVE double ap_draw_frames(int n) {
  g_runtime.frames_left = std::max(g_runtime.frames_left, std::clamp(n, 1, 60));
  ui::request_wake();
  return static_cast<double>(g_runtime.frame_count);
}

EMSCRIPTEN_KEEPALIVE double ap_frame_count() {
  return static_cast<double>(g_runtime.frame_count);
}

// The page wrote /fonts/cjk.ttf or a kept atlas: rebuild the atlas with the Chinese glyphs.
EMSCRIPTEN_KEEPALIVE void ap_fonts_changed() {
  g_runtime.fonts_dirty = true;
  ui::request_wake();
}

}  // extern "C"
