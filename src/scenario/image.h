// Attention over a picture: a scenario's "image" is cut into square patches, and each patch
// becomes a key (and its value) described by a few numbers a learner can read off the picture,
// as the early stages of human vision do: its colour and how much its brightness changes.
//
//   "image": {"width": 64, "height": 40, "patch": 8,
//             "pixels": ["87ceeb87ceeb…", …]}   // one string a row, 6 hex digits a pixel
//
// The patches, in reading order (left to right, then down), are the keys and the values; the
// scenario's "queries" say what to look for in the same numbers (red, green, blue, edges).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace scenario {

struct Image {
  int width = 0, height = 0;  // pixels
  int patch = 0;              // a patch's side, in pixels; divides width and height
  std::vector<uint8_t> rgb;   // width × height × 3, row by row
  bool empty() const { return width == 0; }
  int columns() const { return patch > 0 ? width / patch : 0; }  // patches across
  int rows() const { return patch > 0 ? height / patch : 0; }    // patches down
  int patches() const { return columns() * rows(); }
  bool operator==(const Image& o) const {
    return width == o.width && height == o.height && patch == o.patch && rgb == o.rgb;
  }
};

// Limits: sides from 2 to 256 pixels, a patch from 2 to 64 pixels, at most 256 patches.
constexpr int kMaxImageSide = 256, kMinPatch = 2, kMaxPatch = 64, kMaxPatches = 256;

// The numbers that describe a patch, each from 0 to 1, rounded to two decimals:
//   red, green, blue  the patch's mean colour;
//   edges             how much brightness changes inside it: twice the mean absolute
//                     difference of brightness (0.299 R + 0.587 G + 0.114 B) between each pixel
//                     and its right and lower neighbours in the patch, at most 1.
// Writing on a sign, a fence or a window has edges; sky, a wall or a road has few.
constexpr int kImageFeatures = 4;
extern const char* const kImageFeatureNames[kImageFeatures];    // "red", "green", …
extern const char* const kImageFeatureNamesZh[kImageFeatures];  // "红", "绿", …

// One row a patch, kImageFeatures columns.
attn::Matrix image_features(const Image& im);

// A patch's name as the axes label it: "r2c5" (row 2 of patches, column 5, from 1).
std::string patch_name(const Image& im, int patch);

// The pixels as the JSON writes them: one string a row, 6 lower-case hex digits a pixel.
std::vector<std::string> image_rows(const Image& im);

}  // namespace scenario
