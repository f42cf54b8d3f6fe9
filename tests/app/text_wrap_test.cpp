// Line breaking of English and Chinese UI texts, with a measure that makes widths easy to
// count: an ASCII character is 1 wide, any other character 2.
#include "app/text/text_wrap.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace {

float width_of(std::string_view s) {
  float w = 0;
  for (unsigned char c : s) {
    if (c < 0x80)
      w += 1;
    else if ((c & 0xC0) != 0x80)
      w += 2;  // the first byte of a multi-byte character
  }
  return w;
}

std::vector<std::string> wrap(const std::string& text, float width) {
  return ui::wrap_lines(text, width, width_of);
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("English breaks at spaces and drops the spaces at a break", "[app][wrap]") {
  CHECK(wrap("the cat sat on the mat", 10) == Lines{"the cat", "sat on the", "mat"});
  CHECK(wrap("the cat", 100) == Lines{"the cat"});
  CHECK(wrap("", 10) == Lines{""});
}

TEST_CASE("explicit newlines break and keep empty lines", "[app][wrap]") {
  CHECK(wrap("one\n\ntwo", 10) == Lines{"one", "", "two"});
  CHECK(wrap("  indented\nnext", 20) == Lines{"  indented", "next"});
}

TEST_CASE("a word wider than a line is cut between characters", "[app][wrap]") {
  CHECK(wrap("abcdefghij xy", 4) == Lines{"abcd", "efgh", "ij", "xy"});
}

TEST_CASE("Chinese breaks between any two characters", "[app][wrap]") {
  // 6 characters of width 2 in a width of 8: four per line.
  CHECK(wrap("注意力机制很", 8) == Lines{"注意力机", "制很"});
}

TEST_CASE("closing punctuation never starts a line, opening never ends one", "[app][wrap]") {
  // "。" would start the second line: it stays with "制", which moves down with it.
  CHECK(wrap("注意力机制。", 8) == Lines{"注意力机", "制。"});
  CHECK(wrap("注意力机。", 8) == Lines{"注意力", "机。"});
  CHECK(wrap("每个头，各自", 8) == Lines{"每个头，", "各自"});
  // "（" stays with the character after it.
  CHECK(wrap("看看（注意）", 6) == Lines{"看看", "（注", "意）"});
}

TEST_CASE("Latin words inside Chinese text are not split", "[app][wrap]") {
  // "W_o" is one word; breaks may fall between it and the Chinese characters around it.
  CHECK(wrap("再由W_o混合", 7) == Lines{"再由W_o", "混合"});
  CHECK(wrap("再由W_o混合", 6) == Lines{"再由", "W_o混", "合"});
  // "·" is 2 wide here: the first line is 15.
  CHECK(wrap("投影 Q = X·W_q 被切成两块", 15) == Lines{"投影 Q = X·W_q", "被切成两块"});
}

TEST_CASE("every line fits unless a single character is wider", "[app][wrap]") {
  const std::string text =
      "两个头的输出并排拼接，再由 W_o 混合。Each head scores, masks and weights on its own.";
  for (float width : {4.0f, 7.0f, 12.0f, 30.0f}) {
    std::string rejoined;
    for (const std::string& line : wrap(text, width)) {
      CHECK(width_of(line) <= width);
      rejoined += line;
    }
    // Nothing but spaces at breaks is lost.
    std::string without_spaces, rejoined_without_spaces;
    for (char c : text)
      if (c != ' ') without_spaces += c;
    for (char c : rejoined)
      if (c != ' ') rejoined_without_spaces += c;
    CHECK(rejoined_without_spaces == without_spaces);
  }
}

TEST_CASE("fit_text shortens by whole characters and adds an ellipsis", "[app][wrap]") {
  CHECK(ui::fit_text("the cat", 10, width_of) == "the cat");
  // "…" is 2 wide here: 4 ASCII characters and the ellipsis fill 6.
  CHECK(ui::fit_text("the cat sat", 6, width_of) == "the \xe2\x80\xa6");
  CHECK(ui::fit_text("注意力机制", 7, width_of) == "注意\xe2\x80\xa6");
  CHECK(ui::fit_text("abc", 2, width_of) == "\xe2\x80\xa6");
  CHECK(ui::fit_text("abc", 1, width_of) == "");
}

TEST_CASE("numbers are never split at their decimal point", "[app][wrap]") {
  // Dear ImGui's own wrapping breaks after any '.', which gave "0." and "4868" on two lines.
  CHECK(wrap("exp(-0.195 - 0.525) = 0.4868", 24) == Lines{"exp(-0.195 - 0.525) =", "0.4868"});
  CHECK(wrap("alpha = 0.4868 / 2.33 = 0.2089", 12) ==
        Lines{"alpha =", "0.4868 /", "2.33 =", "0.2089"});
}
