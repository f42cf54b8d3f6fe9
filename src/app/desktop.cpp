// The desktop build's platform hooks: nothing to forward, errors go to stderr in main.cpp.
#include "app/platform.h"

namespace ui {

void on_ready() {}
void after_frame() {
  g_runtime.app.state.events.clear();
}
void report_fatal(const std::string&) {}

}  // namespace ui
