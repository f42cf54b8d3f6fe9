// What main.cpp shares with the platform bridges: the runtime (window, sizes, idle frames,
// fonts) and the hooks the browser bridge (web_api.cpp) or the desktop (desktop.cpp) provide.
#pragma once

#include <string>
#include <vector>

#include "app/views/app.h"

struct GLFWwindow;

namespace ui {

struct Runtime {
  GLFWwindow* window = nullptr;
  App app;
  float css_w = 1, css_h = 1, dpr = 1, font_dpr = 0;
  int fb_w = 1, fb_h = 1;
  int busy_frames = 0;      // frames still to draw after the last input, at least
  double busy_until = 0.0;  // ... and until this time (seconds, steady clock)
  int frames_left = 0;      // frames to draw regardless (screenshots)
  long frame_count = 0;
  std::vector<float> frame_ms;  // CPU time of the last drawn frames (at most 240), for ap_stats
  std::string font_dir;
  bool fonts_dirty = false;  // rebuild the font atlas before the next frame
  bool cjk_loaded = false;
  double font_atlas_ms = 0.0;        // the last font atlas build (rebuild_fonts), for ap_stats
  bool font_atlas_restored = false;  // ... restored from a kept blob, not rasterised
  std::string font_id;               // fonts/id.txt: what the kept atlases are checked against
  bool font_id_read = false;
};
extern Runtime g_runtime;

void request_wake();  // draw frames again (after an API call or a resize)
// Lays the UI out `n` times at once, without drawing (the canvas keeps its last picture; events
// wait for the next drawn frame, and stats().frames counts drawn frames only): the layout and
// items the frames' code makes, for tests that read them and not the pixels.
void layout_frames(int n);
std::string read_file(const std::string& path);  // the whole file, "" when it cannot be read
void rebuild_fonts();                            // at the current device pixel ratio and language
// The name a kept atlas goes by: "latin@100", "cjk@200" (the pixel ratio in hundredths).
std::string font_atlas_name(float dpr, bool cjk);

// Provided by web_api.cpp in the browser and desktop.cpp natively.
// The atlas blob kept under `name` ("" when none: always natively), and keeping one. In the
// browser the page keeps them in IndexedDB and puts the one for this start in /atlas/.
std::string load_kept_font_atlas(const std::string& name);
void keep_font_atlas(const std::string& name, const std::string& blob);
void request_cjk_font();  // the Chinese glyphs are needed and there are none yet
void on_ready();          // the app is initialised
void after_frame();       // once per drawn frame
void report_fatal(const std::string& message);
// Hands an export to the user: in the browser, text goes to the clipboard when `copy` is set
// (a download when the clipboard is refused) and anything else is downloaded; natively, the
// file is written to the current directory and text is also put on the clipboard.
void deliver_export(const std::string& filename, const std::string& mime, const std::string& data,
                    bool copy);

}  // namespace ui
