// Symbols shared by the step texts (explain.cpp) and the cell arithmetic (explain_cell.cpp).
#pragma once

namespace ui::detail {

inline constexpr const char* kDot = "\xc2\xb7";    // ·
inline constexpr const char* kTimes = "\xc3\x97";  // ×

}  // namespace ui::detail
