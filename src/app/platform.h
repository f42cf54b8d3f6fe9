// What main.cpp shares with the platform bridges: the runtime (window, sizes, idle frames,
// fonts) and the hooks the browser bridge (web_api.cpp) or the desktop (desktop.cpp) provide.
#pragma once

#include <string>
#include <vector>

#include "app/app.h"

struct GLFWwindow;

namespace ui {

struct Runtime {
  GLFWwindow* window = nullptr;
  App app;
  float css_w = 1, css_h = 1, dpr = 1, font_dpr = 0;
  int fb_w = 1, fb_h = 1;
  int busy_frames = 0;  // frames still to draw after the last input
  int frames_left = 0;  // frames to draw regardless (screenshots)
  long frame_count = 0;
  std::vector<float> frame_ms;  // CPU time of the last drawn frames (at most 240), for ap_stats
  std::string font_dir;
  bool fonts_dirty = false;  // rebuild the font atlas before the next frame
  bool cjk_loaded = false;
  double font_atlas_ms = 0.0;  // the last font atlas build (rebuild_fonts), for ap_stats
};
extern Runtime g_runtime;

void request_wake();   // draw frames again (after an API call or a resize)
void rebuild_fonts();  // at the current device pixel ratio and language

// Provided by web_api.cpp in the browser and desktop.cpp natively.
void on_ready();     // the app is initialised
void after_frame();  // once per drawn frame
void report_fatal(const std::string& message);
// Hands an export to the user: in the browser, text goes to the clipboard when `copy` is set
// (a download when the clipboard is refused) and anything else is downloaded; natively, the
// file is written to the current directory and text is also put on the clipboard.
void deliver_export(const std::string& filename, const std::string& mime, const std::string& data,
                    bool copy);

}  // namespace ui
