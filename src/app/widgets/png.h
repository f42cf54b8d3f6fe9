// A small PNG encoder (RGBA8, stored deflate blocks): screenshots and heatmap exports without
// a third-party image library. Files are larger than zlib's, and correct.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ui {

// `rgba` holds height rows of width·4 bytes, top row first.
std::vector<uint8_t> encode_png(const uint8_t* rgba, int width, int height);
bool write_png(const std::string& path, const uint8_t* rgba, int width, int height);

}  // namespace ui
