// The desktop build's platform hooks: events have no listener, errors go to stderr in main.cpp,
// and exports are written to the current directory (text also goes to the clipboard).
#include <GLFW/glfw3.h>

#include <cstdio>
#include <fstream>

#include "app/platform/platform.h"
#include "app/text/i18n.h"

namespace ui {

void on_ready() {}

// Natively the atlas is built at every start (about 8 ms, 80 with Chinese): nothing is kept.
std::string load_kept_font_atlas(const std::string&) {
  return "";
}
void keep_font_atlas(const std::string&, const std::string&) {}
void request_cjk_font() {}  // cjk.ttf is always there

void after_frame() {
  AppState& s = g_runtime.app.state;
  for (const std::string& e : s.events)
    if (e == "language") g_runtime.fonts_dirty = true;  // the Chinese glyphs, or not
  s.events.clear();
}

void report_fatal(const std::string&) {}

void deliver_export(const std::string& filename, const std::string& mime, const std::string& data,
                    bool copy) {
  AppState& s = g_runtime.app.state;
  std::ofstream out(filename, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) {
    s.notice = std::string(T("Could not write")) + " " + filename;
    return;
  }
  std::printf("wrote %s (%zu bytes, %s)\n", filename.c_str(), data.size(), mime.c_str());
  if (copy) glfwSetClipboardString(g_runtime.window, data.c_str());
  s.toast = std::string(copy ? T("Copied, and saved as") : T("Saved as")) + " " + filename;
  s.toast_seconds = 3.0;
}

}  // namespace ui
