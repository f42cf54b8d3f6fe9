// A picture's patches as keys: their colour and edges (scenario/image.h).
#include "scenario/image.h"

#include <algorithm>
#include <cmath>

namespace scenario {

const char* const kImageFeatureNames[kImageFeatures] = {"red", "green", "blue", "edges"};
const char* const kImageFeatureNamesZh[kImageFeatures] = {"红", "绿", "蓝", "边缘"};

namespace {

double brightness(const Image& im, int x, int y) {
  const uint8_t* p = &im.rgb[3 * (static_cast<size_t>(y) * im.width + x)];
  return (0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]) / 255.0;
}

float two_decimals(double v) {
  return static_cast<float>(std::round(std::clamp(v, 0.0, 1.0) * 100.0) / 100.0);
}

}  // namespace

attn::Matrix image_features(const Image& im) {
  attn::Matrix f(im.patches(), kImageFeatures);
  const int P = im.patch;
  for (int pr = 0; pr < im.rows(); ++pr)
    for (int pc = 0; pc < im.columns(); ++pc) {
      const int row = pr * im.columns() + pc;
      double sum[3] = {0, 0, 0}, change = 0.0;
      int pairs = 0;
      for (int y = pr * P; y < (pr + 1) * P; ++y)
        for (int x = pc * P; x < (pc + 1) * P; ++x) {
          const uint8_t* p = &im.rgb[3 * (static_cast<size_t>(y) * im.width + x)];
          for (int c = 0; c < 3; ++c) sum[c] += p[c];
          const double here = brightness(im, x, y);
          if (x + 1 < (pc + 1) * P) {
            change += std::fabs(brightness(im, x + 1, y) - here);
            ++pairs;
          }
          if (y + 1 < (pr + 1) * P) {
            change += std::fabs(brightness(im, x, y + 1) - here);
            ++pairs;
          }
        }
      const double n = static_cast<double>(P) * P * 255.0;
      for (int c = 0; c < 3; ++c) f(row, c) = two_decimals(sum[c] / n);
      f(row, 3) = two_decimals(pairs > 0 ? 2.0 * change / pairs : 0.0);
    }
  return f;
}

std::string patch_name(const Image& im, int patch) {
  const int c = im.columns() > 0 ? im.columns() : 1;
  return "r" + std::to_string(patch / c + 1) + "c" + std::to_string(patch % c + 1);
}

std::vector<std::string> image_rows(const Image& im) {
  static const char kHex[] = "0123456789abcdef";
  std::vector<std::string> rows(im.height);
  for (int y = 0; y < im.height; ++y) {
    std::string& r = rows[y];
    r.reserve(6 * static_cast<size_t>(im.width));
    for (int x = 0; x < 3 * im.width; ++x) {
      const uint8_t v = im.rgb[3 * static_cast<size_t>(y) * im.width + x];
      r += kHex[v >> 4];
      r += kHex[v & 15];
    }
  }
  return rows;
}

}  // namespace scenario
