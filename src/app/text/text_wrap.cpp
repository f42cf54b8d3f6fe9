// Line breaking for English and Chinese UI texts (see text_wrap.h).
#include "app/text/text_wrap.h"

#include <cstdint>

namespace ui {

namespace {

struct Char {
  uint32_t code;
  size_t begin, end;  // bytes of the text
};

// UTF-8 → code points; a malformed byte stands for itself, so nothing is lost.
std::vector<Char> decode(std::string_view s) {
  std::vector<Char> out;
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 1;
    if (i + len > s.size()) len = 1;
    uint32_t code = len == 1 ? b : b & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) {
        len = 1;
        code = b;
        break;
      }
      code = (code << 6) | (c & 0x3F);
    }
    out.push_back(Char{code, i, i + len});
    i += len;
  }
  return out;
}

bool is_space(uint32_t c) {
  return c == ' ' || c == '\t';
}

// Characters between which a line may break: CJK ideographs, kana, hangul, CJK symbols and
// punctuation, and full-width forms.
bool is_cjk(uint32_t c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x2FFFF);
}

// Never at the start of a line: , . ; : ? ! ) ] } ’ ” … 、 。 〉 》 」 』 】 〕 ！ ） ， ． ： ；
// ？ ］ ｝ ％
constexpr uint32_t kClosing[] = {',',    '.',    ';',    ':',    '?',    '!',    ')',    ']',
                                 '}',    0x2019, 0x201D, 0x2026, 0x3001, 0x3002, 0x3009, 0x300B,
                                 0x300D, 0x300F, 0x3011, 0x3015, 0xFF01, 0xFF09, 0xFF0C, 0xFF0E,
                                 0xFF1A, 0xFF1B, 0xFF1F, 0xFF3D, 0xFF5D, 0xFF05};
// Never at the end of a line: ( [ { ‘ “ 〈 《 「 『 【 〔 （ ［ ｛
constexpr uint32_t kOpening[] = {'(',    '[',    '{',    0x2018, 0x201C, 0x3008, 0x300A,
                                 0x300C, 0x300E, 0x3010, 0x3014, 0xFF08, 0xFF3B, 0xFF5B};

template <size_t N>
bool one_of(uint32_t c, const uint32_t (&set)[N]) {
  for (uint32_t x : set)
    if (x == c) return true;
  return false;
}
bool is_closing(uint32_t c) {
  return one_of(c, kClosing);
}
bool is_opening(uint32_t c) {
  return one_of(c, kOpening);
}

}  // namespace

std::vector<std::string> wrap_lines(std::string_view text, float width,
                                    const std::function<float(std::string_view)>& measure) {
  const std::vector<Char> chars = decode(text);
  std::vector<std::string> lines;
  std::string line;           // the line being filled
  std::string pending_space;  // spaces after the line's last word, kept if a word follows
  bool paragraph_start = true;
  auto fits = [&](const std::string& s) { return measure(s) <= width; };
  auto flush = [&]() {
    lines.push_back(line);
    line.clear();
    pending_space.clear();
  };
  // Adds a word (no break opportunity inside) to the lines.
  auto add_word = [&](size_t begin, size_t end) {
    const std::string word(text.substr(begin, end - begin));
    const std::string joined = line + pending_space + word;
    if (fits(joined) || (line.empty() && pending_space.empty() && fits(word))) {
      line = joined;
      pending_space.clear();
      return;
    }
    if (!line.empty()) flush();
    pending_space.clear();
    if (fits(word)) {
      line = word;
      return;
    }
    // A word wider than a line: cut it between characters.
    for (const Char& c : decode(word)) {
      const std::string piece = word.substr(c.begin, c.end - c.begin);
      if (!line.empty() && !fits(line + piece)) flush();
      line += piece;
    }
  };

  size_t i = 0;
  while (i < chars.size()) {
    const uint32_t c = chars[i].code;
    if (c == '\n') {
      line += pending_space;
      flush();
      paragraph_start = true;
      ++i;
      continue;
    }
    if (is_space(c)) {
      size_t j = i;
      while (j < chars.size() && is_space(chars[j].code)) ++j;
      const std::string spaces(text.substr(chars[i].begin, chars[j - 1].end - chars[i].begin));
      if (line.empty() && paragraph_start)
        line = spaces;  // indentation at the start of a paragraph stays
      else if (!line.empty())
        pending_space = spaces;
      i = j;
      continue;
    }
    // A word: up to the next space, newline or break opportunity.
    size_t j = i + 1;
    while (j < chars.size()) {
      const uint32_t a = chars[j - 1].code, b = chars[j].code;
      if (b == '\n' || is_space(b)) break;
      if ((is_cjk(a) || is_cjk(b)) && !is_closing(b) && !is_opening(a)) break;
      ++j;
    }
    add_word(chars[i].begin, chars[j - 1].end);
    paragraph_start = false;
    i = j;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::string fit_text(std::string_view text, float width,
                     const std::function<float(std::string_view)>& measure) {
  if (measure(text) <= width) return std::string(text);
  const std::vector<Char> chars = decode(text);
  for (size_t n = chars.size(); n-- > 0;) {
    const std::string s = std::string(text.substr(0, chars[n].begin)) + "\xe2\x80\xa6";
    if (n > 0 && measure(s) <= width) return s;
  }
  return measure("\xe2\x80\xa6") <= width ? "\xe2\x80\xa6" : "";
}

}  // namespace ui
