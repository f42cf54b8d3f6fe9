// Formatting helpers shared by the step texts (explain.cpp, which defines them) and the cell
// arithmetic (explain_cell.cpp).
#pragma once

#include <string>

namespace ui::detail {

// printf into a std::string (at most 511 bytes).
std::string fmt(const char* format, ...);

inline constexpr const char* kDot = "\xc2\xb7";    // ·
inline constexpr const char* kTimes = "\xc3\x97";  // ×

}  // namespace ui::detail
